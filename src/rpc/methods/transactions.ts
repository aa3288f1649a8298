/**
 * Transactions (interface.md "Transactions"; reference-rpc-messaging.md §2.1–§2.5, §2.11).
 */
import { PaymentBuilder, type PaymentRequest } from '../../wallet/payments.js';
import { submissionError } from '../errors.js';
import { TxError } from '../../chain/errors.js';
import { knownTx, knownTxFromBytes, type KnownTx } from '../../chain/tx-codec.js';
import { toDecodedForm, toStringForm, toStringFormJson } from '../../chain/tx-json.js';
import { HEAVY_PAGE_ENTRIES, inSlices } from '../heavy.js';
import { JsonText } from '../envelope.js';
import type { TransactionStringForm } from '../../codec/json.js';
import { formatAmount, parseAmount } from '../../formats/amount.js';
import { toHex } from '../../formats/bytes.js';
import { CodecError } from '../../codec/errors.js';
import { parseTransactionId } from '../../codec/transaction.js';
import type { LightModules, NodeModules } from '../../node/modules.js';
import { checkStateless, LightWalletError } from '../../wallet/light-wallet.js';
import { askNetwork } from './light.js';

import { invalidParams, methodFor, paramList, type ParamsOf } from '../types.js';
import { addressParam, amountList, selectKey } from './params.js';

/** The modules the transaction operations use. */
export type TxModules = Pick<NodeModules, 'chain' | 'mempool' | 'wallet' | 'network' | 'clock' | 'p2p' | 'light'>;

const method = methodFor<TxModules>();

const paymentParams = paramList([
  { name: 'to', kind: 'string', required: true, description: 'Hyphen-separated <address>_<amount> entries', missingMessage: "Parameter 'to' is missing." },
  { name: 'from', kind: 'string', description: 'Advanced: hyphen-separated <address>_<amount> inputs' },
  { name: 'wallet', kind: 'string', description: 'Primary address of the wallet that signs and pays' },
  { name: 'primaryAddress', kind: 'string', description: 'Which key of the wallet signs' },
  { name: 'fee', kind: 'string', description: 'Explicit fee (CoinNumber); default the size-dependent fee (0.005 per started kB)' },
  { name: 'autofee', kind: 'boolean', description: "With 'from': add the fee to the first input" },
  { name: 'relayNodeAddress', kind: 'string', description: 'Client nodes only: the relay paid by this payment (default: two connected relays or masters)' },
  { name: 'requestId', kind: 'string', description: 'Optional tracking identifier' },
]);

/**
 * Largest `count` of txa/tx/txu. A transaction's string form is ~1.6 kB (its sender's key in
 * Base58), so a page of 1,000 is ~1.6 MB built in a few ms; larger pages held the event loop for
 * tenths of a second each and let clients that never read pile replies up in memory (issue 13).
 */
export const MAX_PAGE_COUNT = 1000;

const pageParams = paramList([
  { name: 'fromIndex', kind: 'integer', default: 0, min: 0, description: 'Start index' },
  { name: 'count', kind: 'integer', default: 50, min: 0, max: MAX_PAGE_COUNT, description: `Maximum number of transactions to list (0 to ${MAX_PAGE_COUNT})` },
]);

const rawParams = paramList([{
  name: 'transaction',
  kind: 'hex',
  required: true,
  description: 'Raw transaction, hex',
  missingMessage: 'transaction parameter is missing',
}]);

/** The string form of a transaction the node wrote as JSON text. */
const stringFormText = (k: KnownTx): JsonText<TransactionStringForm> => new JsonText(toStringFormJson(k));

function paymentRequest(p: ParamsOf<typeof paymentParams>, ctx: TxModules): PaymentRequest {
  const key = selectKey(ctx, p.wallet, p.primaryAddress);
  const outputs = amountList(p.to, 'to').map((e) => ({
    address: e.address.addressNoChecksum,
    amount: e.amount,
    ...(e.tag ? { data: e.tag } : {}),
  }));
  let from: PaymentRequest['from'];
  if (p.from !== undefined) {
    from = amountList(p.from, 'from').map((e) => {
      if (!key.nonceOf(e.address.addressNoChecksum)) throw invalidParams('Invalid from address was specified');
      return { address: e.address.addressNoChecksum, amount: e.amount };
    });
  }
  let fee: bigint | undefined;
  if (p.fee !== undefined && p.fee !== '') {
    try {
      // More than 8 decimals are truncated, as for the amounts of to and from (the reference's IxiNumber(string)).
      fee = parseAmount(p.fee, { strictDecimals: false });
    } catch (err) {
      throw invalidParams(`Invalid fee was specified: ${(err as Error).message}`);
    }
  }
  const relays = relayOutputs(ctx, p.relayNodeAddress);
  return { key, outputs, from, fee, autofee: p.autofee, ...(relays.length > 0 ? { relays } : {}) };
}

/** Relays a client node pays with each payment (interface.md addTransaction rule 5): none on other nodes. */
const RELAYS_PAID = 2;
function relayOutputs(ctx: TxModules, relayNodeAddress: string | undefined): Uint8Array[] {
  if (ctx.p2p?.role !== 'client') return [];
  if (relayNodeAddress !== undefined && relayNodeAddress !== '') return [addressParam(relayNodeAddress, 'Invalid relayNodeAddress was specified').addressNoChecksum];
  const servers = ctx.p2p.peers.links().filter((l) => l.peer);
  const relays = servers.filter((l) => l.peerType === 'R');
  return (relays.length > 0 ? relays : servers).slice(0, RELAYS_PAID).map((l) => l.peer!.address);
}

const builderOf = (ctx: TxModules) => new PaymentBuilder(ctx.chain, ctx.mempool, ctx.network, ctx.clock);

/** A light node's parts (the light handlers run only on one). */
function lightOf(ctx: TxModules): LightModules {
  if (!ctx.light) throw new Error('a light handler ran on a full node');
  return ctx.light;
}

/** A light node builds on the balances a master reports, less its own pending spends (src/wallet/light-wallet.ts). */
async function lightBuilderOf(ctx: TxModules): Promise<PaymentBuilder> {
  const wallet = lightOf(ctx).wallet;
  return new PaymentBuilder(await askNetwork(() => wallet.paymentState()), wallet, ctx.network, ctx.clock);
}

/**
 * A light node's own transaction, sent: kept as pending and handed to its links. One that breaks a
 * rule a master checks without state is refused with the error a master's `submit` gives.
 */
async function lightSubmit(ctx: TxModules, k: KnownTx): Promise<KnownTx> {
  try {
    await lightOf(ctx).wallet.submit(k);
  } catch (err) {
    if (err instanceof LightWalletError) throw invalidParams(`The transaction was rejected: ${err.message}`);
    refusedAsSubmission(err);
  }
  return k;
}

function transactionIdParam(text: string): Uint8Array {
  try {
    return parseTransactionId(text).binary;
  } catch {
    throw invalidParams(`Invalid transaction id ${JSON.stringify(text)}: expected <blockHeight>-<Base58 checksum>`);
  }
}

function decodeRaw(ctx: TxModules, bytes: Uint8Array): KnownTx {
  try {
    // Decoded through a Buffer view: the codec's slices (signature, keys, addresses) are then views
    // of the parameter's bytes, not ~1 kB of copies per transaction.
    return knownTxFromBytes(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), ctx.network);
  } catch (err) {
    // A CodecError's message already says "invalid transaction: …" (codec/errors.ts).
    const message = (err as Error).message;
    throw invalidParams(err instanceof CodecError ? `I${message.slice(1)}` : `Invalid transaction: ${message}`);
  }
}

async function submit(ctx: TxModules, k: KnownTx): Promise<KnownTx> {
  const error = await ctx.mempool.submit(k);
  if (error) throw submissionError(error);
  return k;
}

/** A rule of admission broken by a light node's or a built payment: addTransaction's error for it. */
function refusedAsSubmission(err: unknown): never {
  throw err instanceof TxError ? submissionError(err) : err;
}

/**
 * `k`, refused with addTransaction's error when it breaks a rule admission checks without state
 * (dust, an input address paid, …; interface.md: "the same errors as addTransaction apply").
 * `tip`: the chain's height, or a light node's header height.
 */
function checked(k: KnownTx, ctx: TxModules, tip: bigint): KnownTx {
  try {
    checkStateless(k, tip, ctx.chain.extensions);
  } catch (err) {
    refusedAsSubmission(err);
  }
  return k;
}

/** calculateTransactionFee's answer: the fee of the payment addTransaction would send (checked as it would be). */
function paymentFee(builder: PaymentBuilder, req: PaymentRequest, ctx: TxModules, tip: bigint): string {
  const { k, fee } = builder.buildSizedAsSigned(req);
  checked(k, ctx, tip);
  return formatAmount(fee);
}

/** The tip a light node checks against: its headers' (as its addTransaction does). */
const lightTip = (ctx: TxModules): bigint => lightOf(ctx).headers.height;

/** createRawTransaction's answer: the payment unsigned or signed, as hex or its string form. */
function rawPayment(builder: PaymentBuilder, p: ParamsOf<typeof paymentParams> & { sign: boolean; json: boolean }, ctx: TxModules, tip: bigint): string | TransactionStringForm {
  const req = paymentRequest(p, ctx);
  let k: KnownTx;
  if (p.sign) k = checked(builder.buildSigned(req), ctx, tip);
  else {
    const sized = checked(builder.buildSizedAsSigned(req).k, ctx, tip);
    k = knownTx({ ...sized.tx, signature: null }, ctx.network); // its placeholder signature dropped
  }
  return p.json ? toStringForm(k) : toHex(k.bytes);
}

/** A page entry: a transaction held (the pool's, or a light node's own), or the apply sequence of an applied one (read in its slice). */
type PageEntry = KnownTx | bigint;

/**
 * A page as JSON text, `{"<id>": <string form>, …}`, built in slices (src/rpc/heavy.ts): the
 * entries were listed at once, so the page is consistent; a transaction reverted meanwhile is left out
 * (or, once another block took its place, the one applied in its place is shown).
 */
async function page(ctx: TxModules, entries: readonly PageEntry[]): Promise<JsonText<Record<string, TransactionStringForm>>> {
  const parts: string[] = [];
  await inSlices(entries, (e) => {
    const k = typeof e === 'bigint' ? ctx.chain.appliedTransaction(e) : e;
    if (k) parts.push(`${JSON.stringify(k.textId)}:${toStringFormJson(k)}`);
  });
  return new JsonText(`{${parts.join(',')}}`);
}

/** A page of more than a hundred entries is heavy: built one at a time, node-wide. */
const heavyPage = (p: { count: number }): boolean => p.count > HEAVY_PAGE_ENTRIES;

export const transactionMethods = [
  method({
    name: 'addTransaction',
    group: 'Transactions',
    maturity: 'Finalized',
    summary: 'Builds, signs and submits a payment from the node wallet',
    params: paymentParams,
    result: { description: 'Transaction (string form)' },
    handler: async (p, ctx) => stringFormText(await submit(ctx, builderOf(ctx).buildSigned(paymentRequest(p, ctx)))),
    light: async (p, ctx) => stringFormText(await lightSubmit(ctx, (await lightBuilderOf(ctx)).buildSigned(paymentRequest(p, ctx)))),
  }),
  method({
    name: 'calculateTransactionFee',
    group: 'Transactions',
    summary: 'The fee addTransaction would pay, without sending anything',
    params: paymentParams,
    result: { description: 'CoinNumber string' },
    handler: (p, ctx) => paymentFee(builderOf(ctx), paymentRequest(p, ctx), ctx, ctx.chain.height),
    light: async (p, ctx) => paymentFee(await lightBuilderOf(ctx), paymentRequest(p, ctx), ctx, lightTip(ctx)),
  }),
  method({
    name: 'createRawTransaction',
    group: 'Transactions',
    summary: 'Builds a payment and returns its hex (signed with `sign`), or its JSON with `json`',
    params: [
      ...paymentParams,
      { name: 'sign', kind: 'boolean', description: 'Sign the transaction' },
      { name: 'json', kind: 'boolean', description: 'Return the string form instead of hex' },
    ],
    result: { description: 'Hex of the v7 full form, or Transaction (string form)' },
    handler: (p, ctx) => rawPayment(builderOf(ctx), p, ctx, ctx.chain.height),
    light: async (p, ctx) => rawPayment(await lightBuilderOf(ctx), p, ctx, lightTip(ctx)),
  }),
  method({
    name: 'sendRawTransaction',
    group: 'Transactions',
    summary: 'Submits a signed raw transaction to the pool',
    params: rawParams,
    result: { description: 'Transaction (string form)' },
    handler: async (p, ctx) => stringFormText(await submit(ctx, decodeRaw(ctx, p.transaction))),
    // A light node cannot check it against the state: masters do, and a refused one is dropped from txu (light-wallet.ts).
    light: async (p, ctx) => stringFormText(await lightSubmit(ctx, decodeRaw(ctx, p.transaction))),
  }),
  method({
    name: 'txu',
    group: 'Transactions',
    maturity: 'Finalized',
    summary: 'Pending transactions of this node, in arrival order',
    params: pageParams,
    result: { description: 'Map of id to Transaction (string form)' },
    heavy: heavyPage,
    handler: (p, ctx) => page(ctx, ctx.mempool.page(p.fromIndex, p.count)),
    light: (p, ctx) => page(ctx, lightOf(ctx).wallet.pendingList().slice(p.fromIndex, p.fromIndex + p.count)),
  }),
  method({
    name: 'txa',
    group: 'Transactions',
    summary: 'Applied transactions, most recently applied first',
    params: pageParams,
    result: { description: 'Map of id to Transaction (string form)' },
    heavy: heavyPage,
    handler: (p, ctx) => page(ctx, ctx.chain.appliedSeqs(p.fromIndex, p.count)),
    light: (p, ctx) => page(ctx, lightOf(ctx).wallet.appliedList(p.fromIndex, p.count)),
  }),
  method({
    name: 'tx',
    group: 'Transactions',
    summary: 'Applied transactions, then pending ones',
    params: pageParams,
    result: { description: 'Map of id to Transaction (string form)' },
    heavy: heavyPage,
    handler: (p, ctx) => {
      const applied = ctx.chain.appliedSeqs(p.fromIndex, p.count);
      const rest = p.count - applied.length;
      const skipped = Math.max(0, p.fromIndex - ctx.chain.appliedCount());
      return page(ctx, [...applied, ...ctx.mempool.page(skipped, rest)]);
    },
    light: (p, ctx) => {
      const w = lightOf(ctx).wallet;
      return page(ctx, [...w.appliedList(0, Number.MAX_SAFE_INTEGER), ...w.pendingList()].slice(p.fromIndex, p.fromIndex + p.count));
    },
  }),
  method({
    name: 'getTransaction',
    group: 'Transactions',
    summary: 'One transaction by id, applied or pending; with `hex`, its raw v7 bytes',
    params: [
      { name: 'id', kind: 'string', required: true, description: 'Transaction id', missingMessage: "Parameter 'id' is missing" },
      { name: 'hex', kind: 'boolean', description: 'Return the hex of its full v7 form (applied written 0, reference-formats §8.4), as decodeRawTransaction reads it' },
    ],
    result: { description: 'Transaction (string form), or hex with `hex`' },
    handler: (p, ctx) => {
      const id = transactionIdParam(p.id);
      const k = ctx.chain.getTransaction(id) ?? ctx.mempool.get(id);
      if (!k) throw invalidParams(`Transaction ${p.id} was not found`);
      return p.hex ? toHex(k.bytes) : toStringForm(k);
    },
    // Ours from the wallet; any other from a master (getTransaction3).
    light: async (p, ctx) => {
      const id = transactionIdParam(p.id);
      const own = lightOf(ctx).wallet.get(id);
      if (own && !own.dropped) return p.hex ? toHex(own.k.bytes) : toStringForm(own.k);
      // One of ours that was dropped: no master holds it (the reference answers "not found" for a
      // transaction neither pending nor applied), and the answer says why, as `activity` lists it (status 3).
      const droppedHere = (): never => {
        throw invalidParams(`Transaction ${p.id} was not found: this wallet sent it, and it was dropped (${own!.dropped})`);
      };
      let answer;
      try {
        answer = await askNetwork(() => ctx.p2p!.queries.transaction(id));
      } catch (err) {
        if (own?.dropped) droppedHere();
        throw err;
      }
      if (!answer.transaction && own?.dropped) droppedHere();
      if (!answer.transaction) throw invalidParams(`Transaction ${p.id} was not found`);
      const k = decodeRaw(ctx, answer.transaction);
      if (p.hex) return toHex(k.bytes);
      k.tx.applied = answer.height;
      return toStringForm(k);
    },
  }),
  method({
    name: 'decodeTransaction',
    group: 'Transactions',
    maturity: 'Finalized',
    summary: 'Decodes a raw transaction into its decoded form',
    params: rawParams,
    result: { description: 'Transaction (decoded form)' },
    handler: (p, ctx) => toDecodedForm(decodeRaw(ctx, p.transaction)),
    light: 'same',
  }),
  method({
    name: 'decodeRawTransaction',
    group: 'Transactions',
    maturity: 'Finalized',
    summary: 'Decodes a raw transaction into its string form',
    params: rawParams,
    result: { description: 'Transaction (string form)' },
    handler: (p, ctx) => toStringForm(decodeRaw(ctx, p.transaction)),
    light: 'same',
  }),
];

