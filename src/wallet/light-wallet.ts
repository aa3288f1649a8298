/**
 * A light node's wallet (relays and clients hold no chain, reference-network §1): its own
 * transactions and the ones paid to it, learnt from the headers it follows, and payments built
 * on the balances masters report.
 *
 * - A transaction this node sends is kept as pending (sub-database `ownTransactions`) and handed
 *   to its links; it is applied when a header arrives whose block lists it (the txids come with
 *   the header and are checked against its root, chain/header-chain.ts). Transactions paid to our
 *   addresses arrive the same way.
 * - A payment is built on the balances a master reports (`balance2`), less what our own pending
 *   transactions spend, at the header tip's height.
 * - A pending transaction is sent to the links again 40 s after its last sending, as long as it is
 *   pending (reference-network §4.1; QuIXI `processPendingTransactions`): a sending lost in transit
 *   (a relay that died, or held it with no master linked) is not the end of it. A minute after it
 *   was sent, and every minute, the masters are asked about it: applied, it is taken as applied;
 *   unknown to them, it is sent again at once.
 * - It is dropped only as the reference drops it: refused by a master (`rejected`), or expired
 *   (its blockHeight more than the redacted window below the header tip, when no master takes it
 *   any more). Its inputs are then free again, and it stays listed as dropped.
 */
import type { HeaderChain, StoredHeader } from '../chain/header-chain.js';
import { knownTxFromBytes, type KnownTx } from '../chain/tx-codec.js';
import type { Network } from '../codec/types.js';
import type { Clock } from '../clock.js';
import { deriveAddress } from '../formats/address.js';
import { checkTransaction, inputSources, signerPrimaryOf } from '../chain/validate.js';
import type { ChainExtensions } from '../chain/extensions.js';
import { TxStatus } from '../network/protocol/messages.js';
import { REFORWARD_AFTER_MS } from '../network/light-node.js';
import { REDACTED_WINDOW } from '../formats/constants.js';
import { equalBytes, latin1Key } from '../formats/bytes.js';
import type { Logger } from '../log/logger.js';
import type { Database } from 'lmdb';
import type { Store } from '../state/store.js';
import type { Emitter } from '../events.js';
import type { ChainEvents } from '../chain/chain.js';
import type { MempoolEvents } from '../mempool/mempool.js';
import { bytesKey } from '../state/keys.js';
import type { PaymentState, PendingSpends } from './payments.js';
import type { NodeWallet } from './wallet.js';

/**
 * What the light wallet tells the node besides the transaction events: the inclusion of a
 * transaction it sent was verified (its block's header listed it) or it was dropped (QuIXI's
 * `TransactionStatusUpdate`, reference-quixi-events §1.7).
 */
export interface LightWalletEvents {
  txInclusion: { txid: Uint8Array; verified: boolean };
}

/** A stored transaction of ours. `height` 0 while pending; `dropped` once the network forgot it. */
interface OwnRecord {
  bytes: Uint8Array;
  height: number;
  sent: number;
  /** When the network was last asked about it while pending (unix ms). */
  checked?: number;
  dropped?: string;
}

/** The start of the reason a transaction is dropped for when it left the redacted window (`expire`). */
const EXPIRED_DROP_PREFIX = 'expired: ';

/** Whether a drop reason is the redacted window's expiry (not a master's refusal): activity2's status 3 against 5. */
export function droppedByExpiry(reason: string | undefined): boolean {
  return reason?.startsWith(EXPIRED_DROP_PREFIX) === true;
}

export interface OwnTransaction {
  k: KnownTx;
  /** Applied height, 0 while pending. */
  height: bigint;
  /** Unix ms it was sent from here (0 for one received). */
  sent: number;
  /** Why it was dropped (pending no more, never applied), or undefined. */
  dropped?: string;
}

/** What a light wallet asks of masters (network/light-queries.ts). */
export interface LightAsker {
  balance(address: Uint8Array): Promise<{ balance: bigint; walletType: number; hasPublicKey: boolean; height: bigint }>;
  transaction(txid: Uint8Array): Promise<{ status: number; height: bigint }>;
}

/** A pending transaction is looked up this long after it was sent, and then every minute. */
const CHECK_AFTER_MS = 60_000;
/** Pending transactions checked per round, at most. */
const CHECK_BATCH = 16;
/** How often pending transactions are looked at (sent again when due, expired, asked about). */
export const PENDING_TICK_MS = 5_000;
/** Pending transactions sent again per round, at most (the rest at the next rounds). */
const RESEND_BATCH = 1_000;

export class LightWallet implements PendingSpends {
  /** Own pending transactions by txid key (also in the store). */
  private readonly pending = new Map<string, KnownTx>();
  /** When each pending one was last handed to the links (unix ms); none since start: due at once. */
  private readonly lastSent = new Map<string, number>();
  private ticking = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly o: {
      store: Store;
      network: Network;
      /** The transaction types' rules (a type may name its signer in its payload). */
      extensions: ChainExtensions;
      wallet: NodeWallet;
      headers: HeaderChain;
      clock: Clock;
      log: Logger;
      /**
       * The node's bus: `txAdmitted` (source rpc) for a transaction sent from here, which the
       * network hands to the links (client: every link; relay: the masters); `txApplied` when a
       * header shows ours applied; `txDropped` when the network forgot one.
       */
      events: Emitter<MempoolEvents & Pick<ChainEvents, 'txApplied'> & LightWalletEvents>;
      /** The network's answers (absent while the node has no network). */
      asker: () => LightAsker | null;
      /** Hands pending transactions to the links again; returns how many links took them (0: none now). */
      resend?: (txs: readonly KnownTx[]) => number;
    },
  ) {
    for (const { value } of this.db.getRange({})) {
      const r = value;
      if (r.height === 0 && !r.dropped) {
        const k = knownTxFromBytes(r.bytes, o.network);
        this.pending.set(latin1Key(k.id), k);
      }
    }
  }

  private get db(): Database<OwnRecord, Buffer> {
    // A msgpack sub-database (state/schema.ts): values are records, not bytes.
    return this.o.store.db('ownTransactions') as unknown as Database<OwnRecord, Buffer>;
  }

  start(): void {
    this.timer ??= setInterval(() => void this.tick(), PENDING_TICK_MS);
    this.timer.unref();
  }

  /** One round over the pending transactions: the expired are dropped, the due sent again, the due asked about. */
  async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      await this.expire();
      this.resendDue();
      await this.checkPending();
    } catch (err) {
      this.o.log.warn({ err }, 'checking pending transactions failed');
    } finally {
      this.ticking = false;
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Our addresses: what header ranges are filtered by. */
  addresses(): Uint8Array[] {
    return this.o.wallet.allAddresses();
  }

  /** The state a payment is built on: balances from a master for `addresses`, the header tip's height. */
  async paymentState(): Promise<PaymentState> {
    const asker = this.o.asker();
    if (!asker) throw new LightWalletError('this node has no link to the network');
    const addresses = this.addresses();
    const answers = await Promise.all(addresses.map((a) => asker.balance(a)));
    const byKey = new Map(addresses.map((a, i) => [latin1Key(a), answers[i]!]));
    const height = this.o.headers.height;
    return {
      height,
      wallet: (address) => {
        const a = byKey.get(latin1Key(address));
        // The key itself stands for "stored": the builder only asks whether one is.
        return { balance: a?.balance ?? 0n, type: a?.walletType ?? 0, publicKey: a?.hasPublicKey ? this.o.wallet.primary.publicKey : null };
      },
    };
  }

  /** An address's balance as a master reports it. */
  async balance(address: Uint8Array): Promise<bigint> {
    const asker = this.o.asker();
    if (!asker) throw new LightWalletError('this node has no link to the network');
    return (await asker.balance(address)).balance;
  }

  /** What our pending transactions spend from `address`. */
  pendingSpendOf(address: Uint8Array): bigint {
    let total = 0n;
    for (const k of this.pending.values()) {
      let signer: Uint8Array;
      try {
        signer = signerPrimaryOf(k.tx, this.o.extensions);
      } catch {
        continue; // it names no signer: no master takes it, it spends nothing
      }
      for (const i of k.tx.inputs) if (equalBytes(deriveAddress(signer, i.key), address)) total += i.amount;
    }
    return total;
  }

  /**
   * Keeps a transaction of ours as pending and hands it to the network, after the checks a master
   * makes that need no state ({@link checkStateless}): one that breaks them is refused here, with
   * the master's reason, instead of being sent and dropped seconds later.
   * @throws TxError (TX_INVALID) naming the broken rule; LightWalletError when sent already.
   */
  async submit(k: KnownTx): Promise<void> {
    checkStateless(k, this.o.headers.height, this.o.extensions);
    const key = bytesKey(k.id);
    // One dropped (refused, or forgotten by the network) may be sent again; one pending or applied not.
    const prior = this.db.get(key);
    if (this.pending.has(latin1Key(key)) || (prior && !prior.dropped)) {
      throw new LightWalletError(prior && prior.height > 0 ? `the transaction is applied already, in block ${prior.height}` : 'the transaction was sent already');
    }
    // Pending before the write's await: a payment built meanwhile (another addTransaction) counts
    // this one's spend (pendingSpendOf) instead of picking the same coins, which no master would take.
    // (lastSent too: the resend round does not take it for one never sent.)
    this.pending.set(latin1Key(key), k);
    this.lastSent.set(latin1Key(key), this.o.clock.now());
    try {
      await this.db.put(key, { bytes: k.bytes, height: 0, sent: this.o.clock.now() });
    } catch (err) {
      this.pending.delete(latin1Key(key));
      this.lastSent.delete(latin1Key(key));
      throw err;
    }
    this.o.events.emit('txAdmitted', { txs: [k], source: 'rpc' });
  }

  /** A header was taken with the transactions of ours its block holds (checked against its txids). */
  headerTaken(h: StoredHeader, txs: readonly KnownTx[]): void {
    for (const k of txs) this.applied(k, h.num);
    if (txs.length > 0) this.o.events.emit('txApplied', { height: h.num, txs });
  }

  /**
   * A master refused a transaction (`rejected`, reference-network §4.3): one of ours still pending
   * is dropped at once with the reason, its inputs free again.
   */
  async rejected(txid: Uint8Array, reason: string): Promise<void> {
    const key = bytesKey(txid);
    const k = this.pending.get(latin1Key(key));
    if (!k) return;
    const why = `refused by a master: ${reason}`;
    await this.drop(k, why);
  }

  private async drop(k: KnownTx, why: string): Promise<void> {
    const key = bytesKey(k.id);
    await this.db.put(key, { bytes: k.bytes, height: 0, sent: this.db.get(key)?.sent ?? this.o.clock.now(), dropped: why });
    this.lastSent.delete(latin1Key(key));
    if (!this.pending.delete(latin1Key(key))) return;
    this.o.log.warn({ txid: k.textId, reason: why }, 'a transaction of ours was dropped; its inputs are free again');
    this.o.events.emit('txDropped', { txs: [k], reason: why });
    this.o.events.emit('txInclusion', { txid: k.id, verified: false });
  }

  /** Own pending transactions, oldest first. */
  pendingList(): KnownTx[] {
    return [...this.pending.values()];
  }

  /** A transaction of ours (sent, or received), or null. */
  get(txid: Uint8Array): OwnTransaction | null {
    const r = this.db.get(bytesKey(txid));
    if (!r) return null;
    return ownTransaction(knownTxFromBytes(r.bytes, this.o.network), r);
  }

  /** Every transaction of ours: applied, pending and dropped, in no particular order. */
  all(): OwnTransaction[] {
    const out: OwnTransaction[] = [];
    for (const { value } of this.db.getRange({})) out.push(ownTransaction(knownTxFromBytes(value.bytes, this.o.network), value));
    return out;
  }

  /** Applied transactions of ours, highest block first, from `fromIndex`. */
  appliedList(fromIndex: number, count: number): KnownTx[] {
    const applied = this.all().filter((t) => t.height > 0n).sort((a, b) => (a.height === b.height ? 0 : a.height > b.height ? -1 : 1));
    return applied.slice(Math.max(0, fromIndex), Math.max(0, fromIndex) + Math.max(0, count)).map((t) => t.k);
  }

  private applied(k: KnownTx, height: bigint): void {
    const key = bytesKey(k.id);
    const prior = this.db.get(key);
    void this.db.put(key, { bytes: k.bytes, height: Number(height), sent: prior?.sent ?? 0 });
    // One we sent and waited for: its inclusion is verified (QuIXI's TransactionStatusUpdate).
    this.lastSent.delete(latin1Key(key));
    if (this.pending.delete(latin1Key(key))) this.o.events.emit('txInclusion', { txid: k.id, verified: true });
  }

  /**
   * Drops the pending transactions no master takes any more: their blockHeight is more than the
   * redacted window below the header tip (the reference's expiry of a pending transaction, §4.3;
   * QuIXI `processPendingTransactions`).
   */
  private async expire(): Promise<void> {
    const tip = this.o.headers.height;
    const expired = [...this.pending.values()].filter((k) => k.tx.blockHeight + BigInt(REDACTED_WINDOW) < tip);
    for (const k of expired) await this.drop(k, `${EXPIRED_DROP_PREFIX}its blockHeight ${k.tx.blockHeight} is more than ${REDACTED_WINDOW} blocks (the redacted window) below the tip ${tip}`);
  }

  /**
   * Hands the pending transactions last sent `REFORWARD_AFTER_MS` ago or more (or not since the
   * node started) to the links again (§4.1). With no link to take them, they are due again at the
   * next round.
   */
  private resendDue(): void {
    if (!this.o.resend || this.pending.size === 0) return;
    const now = this.o.clock.now();
    const due: KnownTx[] = [];
    for (const [key, k] of this.pending) {
      if (due.length >= RESEND_BATCH) break;
      if (now - (this.lastSent.get(key) ?? -Infinity) >= REFORWARD_AFTER_MS) due.push(k);
    }
    if (due.length > 0) this.resend(due);
  }

  private resend(txs: KnownTx[]): void {
    const reached = this.o.resend?.(txs) ?? 0;
    if (reached === 0) return;
    const now = this.o.clock.now();
    for (const k of txs) this.lastSent.set(latin1Key(k.id), now);
    this.o.log.info({ count: txs.length, links: reached, txids: txs.slice(0, 8).map((k) => k.textId) }, 'pending transactions sent again');
  }

  /** Asks the network about pending transactions sent more than a minute ago: applied, or unknown (sent again). */
  async checkPending(): Promise<void> {
    const asker = this.o.asker();
    if (!asker || this.pending.size === 0) return;
    const now = this.o.clock.now();
    const due: KnownTx[] = [];
    for (const k of this.pending.values()) {
      const r = this.db.get(bytesKey(k.id));
      if (r && now - (r.checked ?? r.sent) >= CHECK_AFTER_MS) due.push(k);
      if (due.length >= CHECK_BATCH) break;
    }
    for (const k of due) {
      let answer: { status: number; height: bigint };
      try {
        answer = await asker.transaction(k.id);
      } catch {
        return; // no answer now: ask again next round
      }
      const key = bytesKey(k.id);
      if (answer.status === TxStatus.applied && answer.height <= this.o.headers.height) {
        this.applied(k, answer.height);
        this.o.events.emit('txApplied', { height: answer.height, txs: [k] });
      } else {
        // Pending somewhere, or lost on its way (no master holds it): look again in a minute; a lost
        // one is sent again now (the reference drops it only when refused or expired).
        if (answer.status === TxStatus.unknown && this.pending.has(latin1Key(key))) this.resend([k]);
        const r = this.db.get(key);
        if (r) await this.db.put(key, { ...r, checked: now });
      }
    }
  }
}

/**
 * The rules of a master's admission that need no wallet state (mempool admission runs the same
 * two functions): `checkTransaction` (version, type, size, inputs and outputs, amounts, dust,
 * fee, signed) and `inputSources` (no input address is also an output). A light node knows the
 * network's tip only from its headers, which may lag: a blockHeight above them is left to the
 * masters (the "ahead" limit), one too old for them is too old for the network too.
 * calculateTransactionFee and createRawTransaction check their payment with it (on every node).
 */
export function checkStateless(k: KnownTx, headerHeight: bigint, extensions: ChainExtensions): void {
  checkTransaction(k, headerHeight > k.tx.blockHeight ? headerHeight : k.tx.blockHeight, extensions);
  inputSources(k.tx, signerPrimaryOf(k.tx, extensions));
}

function ownTransaction(k: KnownTx, r: OwnRecord): OwnTransaction {
  k.tx.applied = BigInt(r.height);
  return { k, height: BigInt(r.height), sent: r.sent, ...(r.dropped ? { dropped: r.dropped } : {}) };
}

/** The wallet cannot do what was asked (no network link, sent twice). */
export class LightWalletError extends Error {
  override name = 'LightWalletError';
}
