// dltnode web wallet: a plain ES module, no framework, no build step. It calls the node's own RPC
// (POST / with {method, params, id}) on the origin that served it, with the browser's credentials.
// Money is never a floating-point number: CoinNumber strings are parsed to BigInt counts of
// 10^-8 coins, added as BigInt and written back as strings with 8 decimals.

const REFRESH_MS = 3000;
const DECIMALS = 8n;
const UNIT = 10n ** DECIMALS;
const METHOD_NOT_FOUND = -32601;
/** A call unanswered this long fails in words: a paused or overloaded node must not leave the page "Connected" on stale values. */
const RPC_TIMEOUT_MS = 10_000;
/** RpcFailure code of a call that got no answer at all (connection refused, or no answer within RPC_TIMEOUT_MS). */
const NO_ANSWER = 0;
const HISTORY_COUNT = 50;
// Page parameters go as decimal strings: the RPC reads them whether an operation declares them as
// integers or as strings (the reference's `activity` takes text). `descending: 'true'` asks for newest first (the reference's default is oldest first).

// ---------------------------------------------------------------------------------------------
// Amounts

/** "12.5" → 1250000000n; throws a message in words for anything that is not a CoinNumber. */
export function parseCoins(text) {
  const s = String(text).trim();
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(s);
  if (!m) throw new Error(`"${s}" is not an amount: write digits with an optional decimal point, e.g. 12.5`);
  const frac = m[3] ?? '';
  if (frac.length > Number(DECIMALS)) throw new Error(`An amount has at most ${DECIMALS} decimals; "${s}" has ${frac.length}`);
  const units = BigInt(m[2]) * UNIT + BigInt((frac + '00000000').slice(0, Number(DECIMALS)));
  return m[1] === '-' ? -units : units;
}

/** 1250000000n → "12.50000000". */
export function formatCoins(units) {
  const neg = units < 0n;
  const abs = neg ? -units : units;
  const whole = (abs / UNIT).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const frac = (abs % UNIT).toString().padStart(Number(DECIMALS), '0');
  return `${neg ? '−' : ''}${whole}.${frac}`;
}

/** 1250000000n → "12.50000000" without grouping: the CoinNumber text the RPC takes. */
export function coinNumber(units) {
  const neg = units < 0n;
  const abs = neg ? -units : units;
  return `${neg ? '-' : ''}${abs / UNIT}.${(abs % UNIT).toString().padStart(Number(DECIMALS), '0')}`;
}

/** Parses an amount the node sent; a malformed one counts as zero rather than breaking the page. */
function nodeCoins(text) {
  try {
    return parseCoins(text ?? '0');
  } catch {
    return 0n;
  }
}

// ---------------------------------------------------------------------------------------------
// Base58 (to compare a transaction's `pubKey` text with this wallet's key from `myPubKey`)

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export function base58FromHex(hex) {
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex)) return '';
  const bytes = hex.match(/../g)?.map((h) => parseInt(h, 16)) ?? [];
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = B58[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = '1' + out;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// RPC

class RpcFailure extends Error {
  constructor(method, code, message, nodeMessage = '') {
    super(message);
    this.method = method;
    this.code = code;
    /** The node's own error text (kept where `message` says it in the page's words). */
    this.nodeMessage = nodeMessage;
  }
}

let nextId = 1;

/** One RPC call; resolves with `result`, rejects with an RpcFailure whose message is in words. */
async function rpc(method, params = {}) {
  // The signal bounds the whole exchange, the reply's body included.
  const signal = AbortSignal.timeout(RPC_TIMEOUT_MS);
  const noAnswer = () =>
    new RpcFailure(
      method,
      NO_ANSWER,
      signal.aborted
        ? `The node did not answer within ${RPC_TIMEOUT_MS / 1000} s: it is busy, paused or unreachable. The page keeps asking.`
        : 'The node did not answer. Is it running, and is this page opened from it?',
    );
  let response;
  try {
    response = await fetch('/', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      credentials: 'same-origin',
      body: JSON.stringify({ method, params, id: nextId++ }),
      signal,
    });
  } catch {
    throw noAnswer();
  }
  if (response.status === 401) throw new RpcFailure(method, 401, 'The node asks for a user name and password (--rpc-user). Reload the page to sign in.');
  if (response.status === 403) throw new RpcFailure(method, 403, 'This computer is not allowed to call the node (--rpc-allow).');
  if (response.status === 503) throw new RpcFailure(method, 503, 'The node is starting or shutting down; it will answer again shortly.');
  let body;
  try {
    body = await response.json();
  } catch {
    if (signal.aborted) throw noAnswer();
    throw new RpcFailure(method, response.status, `The node answered ${method} with HTTP ${response.status} and no readable reply.`);
  }
  if (body && body.error) {
    const code = Number(body.error.code);
    const text = code === METHOD_NOT_FOUND ? `${method} is not available on this node.` : String(body.error.message || 'Unknown error');
    throw new RpcFailure(method, code, text, String(body.error.message || ''));
  }
  return body ? body.result : null;
}

const notAvailable = (e) => e instanceof RpcFailure && e.code === METHOD_NOT_FOUND;
const words = (e) => (e instanceof Error ? e.message : String(e));

// ---------------------------------------------------------------------------------------------
// DOM helpers

const $ = (id) => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`The page lacks #${id}`);
  return el;
};

function show(id, text) {
  const el = $(id);
  el.textContent = text ?? '';
  el.hidden = !text;
}

function cell(row, text, className) {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  row.append(td);
  return td;
}

function shortAddress(a) {
  return a.length > 22 ? `${a.slice(0, 10)}…${a.slice(-8)}` : a;
}

function when(seconds) {
  const n = Number(seconds);
  if (!Number.isFinite(n) || n <= 0) return '—';
  return new Date(n * 1000).toLocaleString();
}

// ---------------------------------------------------------------------------------------------
// State

const state = {
  /** address → balance text, from myWallet. */
  addresses: new Map(),
  primary: '',
  pubKeyBase58: '',
  receive: '',
  historySource: '',
};

// ---------------------------------------------------------------------------------------------
// Panels

async function refreshBalance() {
  try {
    const wallet = await rpc('myWallet');
    state.addresses = new Map(Object.entries(wallet ?? {}));
    let total = 0n;
    const rows = $('address-rows');
    rows.replaceChildren();
    for (const [address, balance] of state.addresses) {
      total += nodeCoins(balance);
      const tr = document.createElement('tr');
      cell(tr, address, 'mono');
      cell(tr, formatCoins(nodeCoins(balance)), 'num');
      rows.append(tr);
    }
    // Another wallet behind the page (the node restarted on another data directory): the old
    // receive address is not this wallet's, so it must not stay on show.
    const primary = state.addresses.keys().next().value ?? '';
    if (primary && primary !== state.primary) {
      if (state.primary) {
        state.receive = '';
        show('receive-note', '');
      }
      setPrimary(primary);
    }
    $('address-count').textContent = String(state.addresses.size);
    $('balance-total').textContent = formatCoins(total);
    show('balance-error', '');
  } catch (e) {
    show('balance-error', `Could not read the balance: ${words(e)}`);
    // A relay or client asks a master for balances; its own addresses it knows without one.
    if (!state.primary) {
      try {
        const list = await rpc('listWallets');
        setPrimary(Array.isArray(list) ? String(list[0] ?? '') : '');
      } catch {
        // The balance error above already says what is wrong.
      }
    }
  }
}

/** The wallet's primary address, also the address to receive with until "New address". */
function setPrimary(address) {
  state.primary = address;
  if (!state.receive && address) {
    state.receive = address;
    $('receive-address').textContent = address;
  }
}

async function refreshStatus() {
  try {
    const s = await rpc('status', { verbose: true });
    $('st-height').textContent = String(s['Block Height']);
    $('st-dlt').textContent = String(s['DLT Status']);
    const pending = s['Unapplied TX Count'];
    $('st-pending').textContent = pending === undefined ? '—' : `${pending} transaction${pending === 1 ? '' : 's'}`;
    const clients = Array.isArray(s['Network Clients']) ? s['Network Clients'].length : 0;
    const servers = Array.isArray(s['Network Servers']) ? s['Network Servers'].length : 0;
    $('st-peers').textContent = `${clients + servers} (${servers} out, ${clients} in)`;
    $('st-network').textContent = `${s['Network type']} · node type ${s['Node Type']}`;
    $('st-ago').textContent = `${s['Block generated seconds ago']} s ago`;
    $('node-version').textContent = String(s['Node Version'] ?? '');
    const ok = s['DLT Status'] === 'Active';
    const conn = $('connection');
    conn.textContent = ok ? `Connected · block ${s['Block Height']}` : `Node: ${s['DLT Status']}`;
    conn.className = `pill ${ok ? 'ok' : 'warn'}`;
    show('status-error', '');
    show('global-error', '');
  } catch (e) {
    show('status-error', `Could not read the node status: ${words(e)}`);
    const conn = $('connection');
    conn.textContent = 'Not connected';
    conn.className = 'pill bad';
    if (e instanceof RpcFailure && (e.code === NO_ANSWER || e.code === 401 || e.code === 403)) show('global-error', words(e));
  }
}

const ACTIVITY_KINDS = { 100: 'Received', 101: 'Sent', 200: 'Mining reward', 201: 'Signing reward', 202: 'Fee reward' };
const ACTIVITY_STATES = { 1: 'Pending', 2: 'Final', 3: 'Error' };

/** History rows from `activity` (the reference Activity records). */
async function historyFromActivity() {
  const list = await rpc('activity', { fromIndex: '0', count: String(HISTORY_COUNT), descending: 'true' });
  return (Array.isArray(list) ? list : Object.values(list ?? {})).map((a) => {
    const type = Number(a.type);
    const to = a.toList && typeof a.toList === 'object' ? Object.keys(a.toList) : [];
    // Rewards have no counterparty; a received payment names its payer, a sent one its first other recipient.
    const counterparty = type >= 200 ? '' : type === 100 ? String(a.from ?? '') : to.find((t) => !state.addresses.has(t)) ?? to[0] ?? '';
    const value = nodeCoins(a.value ?? a.amount);
    const status = Number(a.status);
    const height = a.blockHeight && String(a.blockHeight) !== '0' ? ` · block ${a.blockHeight}` : '';
    return {
      id: String(a.txid ?? a.id ?? ''),
      time: a.timestamp,
      kind: ACTIVITY_KINDS[type] ?? `Type ${a.type}`,
      counterparty,
      amount: type === 101 ? -value : value,
      state: (ACTIVITY_STATES[status] ?? String(a.status)) + (status === 2 ? height : ''),
      pending: status === 1,
    };
  });
}

/** History rows from applied (`txa`) and pending (`txu`) transactions touching this wallet. */
async function historyFromTransactions() {
  if (!state.pubKeyBase58) {
    try {
      state.pubKeyBase58 = base58FromHex(String(await rpc('myPubKey')));
    } catch {
      // Without the key, only payments from an address-only signer text are recognised as sent.
    }
  }
  const [applied, pending] = await Promise.all([rpc('txa', { fromIndex: '0', count: String(HISTORY_COUNT) }), rpc('txu', { fromIndex: '0', count: String(HISTORY_COUNT) })]);
  const mine = state.addresses;
  const rows = [];
  const seen = new Set();
  for (const tx of [...Object.values(pending ?? {}), ...Object.values(applied ?? {})]) {
    if (!tx || seen.has(tx.id)) continue;
    seen.add(tx.id);
    const outputs = Object.entries(tx.to ?? {});
    const sent = tx.pubKey !== undefined && (tx.pubKey === state.pubKeyBase58 || mine.has(tx.pubKey));
    const toMine = outputs.filter(([a]) => mine.has(a));
    if (!sent && toMine.length === 0) continue;
    const isPending = String(tx.applied ?? '0') === '0';
    const others = outputs.filter(([a]) => !mine.has(a));
    let kind;
    let amount;
    let counterparty;
    if (sent) {
      kind = others.length === 0 ? 'To self' : 'Sent';
      amount = others.length === 0 ? 0n : -others.reduce((sum, [, v]) => sum + nodeCoins(v), 0n);
      counterparty = (others[0] ?? outputs[0] ?? [''])[0];
    } else {
      kind = tx.type === '0' ? 'Received' : tx.type === '3' ? 'Genesis' : `Received (type ${tx.type})`;
      amount = toMine.reduce((sum, [, v]) => sum + nodeCoins(v), 0n);
      counterparty = tx.pubKey ? String(tx.pubKey) : '';
    }
    rows.push({
      id: String(tx.id),
      time: tx.timestamp,
      kind,
      counterparty,
      amount,
      state: isPending ? 'Pending' : `Final · block ${tx.applied}`,
      pending: isPending,
      fee: sent ? nodeCoins(tx.fee) : 0n,
    });
  }
  rows.sort((a, b) => Number(b.time) - Number(a.time));
  return rows;
}

async function refreshHistory() {
  let rows;
  try {
    if (state.historySource !== 'transactions') {
      try {
        rows = await historyFromActivity();
        state.historySource = 'activity';
      } catch (e) {
        if (!notAvailable(e)) throw e;
        state.historySource = 'transactions';
      }
    }
    if (state.historySource === 'transactions') rows = await historyFromTransactions();
  } catch (e) {
    show('history-error', `Could not read the history: ${words(e)}`);
    return;
  }
  show('history-error', '');
  $('history-source').textContent = state.historySource === 'activity' ? '(activity)' : '(from the node\u2019s transactions)';
  const body = $('history-rows');
  body.replaceChildren();
  for (const r of rows) {
    const tr = document.createElement('tr');
    tr.dataset.txid = r.id;
    tr.className = r.pending ? 'pending' : '';
    tr.title = r.id;
    cell(tr, when(r.time));
    cell(tr, r.kind);
    const cp = cell(tr, r.counterparty ? shortAddress(r.counterparty) : '—', 'mono');
    if (r.counterparty) cp.title = r.counterparty;
    cell(tr, (r.amount > 0n ? '+' : '') + formatCoins(r.amount), `num ${r.amount < 0n ? 'out' : 'in'}`);
    cell(tr, r.state);
    body.append(tr);
  }
  $('history-empty').hidden = rows.length > 0;
}

let minerAvailable = true;

async function refreshMiner() {
  if (!minerAvailable) return;
  try {
    const stats = await rpc('minerstats');
    const dl = $('miner-facts');
    dl.replaceChildren();
    for (const [k, v] of Object.entries(stats ?? {})) {
      const dt = document.createElement('dt');
      dt.textContent = k;
      const dd = document.createElement('dd');
      dd.textContent = typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
      dl.append(dt, dd);
    }
    show('miner-note', '');
    show('miner-error', '');
  } catch (e) {
    if (notAvailable(e)) {
      minerAvailable = false;
      // The node says why: no such operation, or (a relay or client) no chain state to count from.
      show('miner-note', `Miner statistics are not available on this node${e.nodeMessage ? `: ${e.nodeMessage}` : '.'}`);
      return;
    }
    show('miner-error', `Could not read the miner statistics: ${words(e)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Actions

let pendingSend = null;

async function previewSend(event) {
  event.preventDefault();
  show('send-error', '');
  show('send-result', '');
  const to = $('send-to').value.trim();
  const amountText = $('send-amount').value.trim();
  if (!to) return show('send-error', 'Enter the recipient address.');
  let amount;
  try {
    amount = parseCoins(amountText);
  } catch (e) {
    return show('send-error', words(e));
  }
  if (amount <= 0n) return show('send-error', 'The amount must be more than zero.');
  if (/[_\-\s]/.test(to)) return show('send-error', 'An address has no spaces, hyphens or underscores.');
  const button = $('send-preview');
  button.disabled = true;
  try {
    const params = { to: `${to}_${coinNumber(amount)}` };
    const fee = nodeCoins(await rpc('calculateTransactionFee', params));
    pendingSend = { params, fee };
    $('confirm-to').textContent = to;
    $('confirm-amount').textContent = `${formatCoins(amount)} coins`;
    $('confirm-fee').textContent = `${formatCoins(fee)} coins`;
    $('confirm-total').textContent = `${formatCoins(amount + fee)} coins`;
    const dialog = $('confirm');
    // Escape closes without a new value: clear the last one, or a cancel would read as "send".
    dialog.returnValue = '';
    dialog.showModal();
  } catch (e) {
    show('send-error', `The payment cannot be prepared: ${words(e)}`);
  } finally {
    button.disabled = false;
  }
}

async function confirmSend() {
  const dialog = $('confirm');
  const send = pendingSend;
  pendingSend = null;
  if (dialog.returnValue !== 'send' || !send) return;
  try {
    // The fee shown is the fee paid: the preview's fee goes with the payment.
    const tx = await rpc('addTransaction', { ...send.params, fee: coinNumber(send.fee) });
    show('send-result', `Sent. Transaction ${tx && tx.id ? tx.id : ''} is pending until the next block.`);
    $('send-form').reset();
    void refreshAll();
  } catch (e) {
    // Without an answer the node may still have taken the payment: say so, or a retry could pay twice.
    if (e instanceof RpcFailure && e.code === NO_ANSWER) show('send-error', `No answer to the payment: ${words(e)} It may still have been sent; check the history before sending again.`);
    else show('send-error', `The payment was not sent: ${words(e)}`);
  }
}

async function newAddress() {
  show('receive-error', '');
  try {
    const address = String(await rpc('generateNewAddress'));
    state.receive = address;
    $('receive-address').textContent = address;
    show('receive-note', 'A new address of this wallet; payments to it count in the balance.');
    void refreshBalance();
  } catch (e) {
    show('receive-error', `No new address: ${words(e)}`);
  }
}

async function copyAddress() {
  if (!state.receive) return show('receive-note', 'No address to copy yet: the node has not told the page its address.');
  try {
    await navigator.clipboard.writeText(state.receive);
    show('receive-note', 'Address copied.');
  } catch {
    show('receive-note', 'Copying is not allowed here; select the address and copy it by hand.');
  }
}

async function signMessage(event) {
  event.preventDefault();
  show('sign-error', '');
  const message = $('sign-message').value;
  if (!message) return show('sign-error', 'Enter the message to sign.');
  try {
    const r = await rpc('sign', { message });
    $('sign-signature').value = String(r.signature ?? '');
    $('sign-pubkey').value = String(r.publicKey ?? '');
    $('sign-output').hidden = false;
  } catch (e) {
    show('sign-error', `Not signed: ${words(e)}`);
  }
}

async function verifyMessage(event) {
  event.preventDefault();
  show('verify-error', '');
  show('verify-result', '');
  const message = $('verify-message').value;
  const signature = $('verify-signature').value.trim();
  const publicKey = $('verify-pubkey').value.trim();
  if (!message || !signature || !publicKey) return show('verify-error', 'Enter the message, the signature and the public key.');
  try {
    const r = await rpc('verify', { message, signature, publicKey });
    const ok = r === 'OK' || r === true;
    const out = $('verify-result');
    show('verify-result', ok ? 'Valid: this key signed this message.' : 'Not valid: the signature does not match this message and key.');
    out.classList.toggle('good', ok);
    out.classList.toggle('error', !ok);
  } catch (e) {
    show('verify-error', `Could not verify: ${words(e)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Start

let refreshing = false;

async function refreshAll() {
  if (refreshing) return;
  refreshing = true;
  try {
    await refreshStatus();
    await refreshBalance();
    await Promise.all([refreshHistory(), refreshMiner()]);
  } finally {
    refreshing = false;
  }
}

function start() {
  $('send-form').addEventListener('submit', previewSend);
  $('confirm').addEventListener('close', () => void confirmSend());
  $('new-address').addEventListener('click', () => void newAddress());
  $('copy-address').addEventListener('click', () => void copyAddress());
  $('sign-form').addEventListener('submit', signMessage);
  $('verify-form').addEventListener('submit', verifyMessage);
  void refreshAll();
  setInterval(() => {
    if (document.visibilityState === 'visible') void refreshAll();
  }, REFRESH_MS);
}

// In a page only: the amount helpers above are also imported by the unit tests (test/web/).
if (typeof document !== 'undefined') {
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
}
