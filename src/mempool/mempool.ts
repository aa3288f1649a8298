/**
 * The pending pool: transactions admitted but not yet in a block, in arrival order (`txu`),
 * persisted in the `pending` sub-database, which the pool alone writes, so they survive a restart:
 * one record per admitted chunk (`encodePendingRecord`), removed once none of its transactions is
 * pending. A submission of this node's (RPC) is answered once its record is stored; a peer's
 * transaction once the pool holds it, its record following (see `admitWithSources`). Admission
 * runs every rule of `chain/validate.ts`, verifies the signature (in the worker pool), then the
 * type's own checks (a mining claim's Argon2, also in the pool, only once the signature holds),
 * and checks balances net of the pool's own pending spends before the transaction is stored; a
 * refusal is a `TxError` with its code (reshape-for-peers §3 P4).
 *
 * The pool follows the chain (§3 P6): on `blockImported` it forgets what the block included,
 * re-checks the pending spends of the wallets the block touched, and validates again, by their
 * type hook, the pending transactions of every extension whose types the block carried (a name
 * the block registered or updated, a multisig wallet it changed, a block it marked solved); it
 * emits `txAdmitted`, the source of transaction gossip, and `txDropped` for what leaves unapplied.
 *
 * A transaction whose type names a `leader` (a multisig co-signature, type 999, names the
 * transaction it signs) is a follower: admitted only while its leader is pending, handed to the
 * producer right behind its leader (`candidates`), and dropped when the leader leaves the pool. A
 * multisig transaction waiting for co-signatures stays pending: the producer leaves it out of a
 * block with TX_NOT_READY, which does not drop it.
 */
import { verifyOnce, type Chain, type ChainEvents, type SignatureVerifier } from '../chain/chain.js';
import { storeDamaged, StoreCorruptionError, TxError, TxErrorCode } from '../chain/errors.js';
import type { Network } from '../codec/types.js';
import type { Emitter } from '../events.js';
import { decodeStoredTx, storedTxLength, writeStoredTx, type KnownTx } from '../chain/tx-codec.js';
import { checkSourceWallets, checkTransaction, inputSources, resolveTxSigner, signerPrimaryOf } from '../chain/validate.js';
import type { ChainExtension, PendingView } from '../chain/extensions.js';
import type { WalletState } from '../chain/wallet-state.js';
import type { Logger } from '../log/logger.js';
import { equalBytes } from '../formats/bytes.js';
import { latin1Key, readU64Key, u64Key } from '../state/keys.js';
import { TransactionType } from '../formats/constants.js';

export type { SignatureVerifier };

/** Largest pool; past it admission answers with an error instead of growing without bound. */
export const MAX_PENDING = 200_000;
/**
 * Submissions admitted together (one verifier call, one LMDB write). Small enough that the first
 * are answered while the pool still verifies the rest (~80 µs per RSA-4096 signature).
 */
const ADMIT_CHUNK = 64;

/** Events the mempool emits. */
export interface MempoolEvents {
  /** Transactions that entered the pool (in arrival order); `source` says who sent them. */
  txAdmitted: { txs: readonly KnownTx[]; source: AdmitSource };
  /** Transactions that left the pool without entering a block (refused by a block's producer, or no longer covered). */
  txDropped: { txs: readonly KnownTx[]; reason: string };
}

/** Who submitted: this node's RPC, or a peer (by its id, for gossip scoring and no echo). */
export type AdmitSource = 'rpc' | { peer: string };

interface Entry {
  k: KnownTx;
  /** Key of the stored record that holds it (the arrival sequence of the record's first transaction). */
  record: bigint;
  /** What this transaction withdraws, by source address (latin1Key). */
  spends: Spends;
  /** Id (latin1Key) of the transaction this one follows in a block (a co-signature's), or null. */
  leader: string | null;
}

/**
 * What a transaction withdraws, by source address (latin1Key), each address once. Pairs in an
 * array, not a Map: the pool keeps one per pending transaction (usually one source), and a Map's
 * hash table was a few hundred bytes of each one's wait in the collector's young generation.
 */
type Spends = readonly (readonly [address: string, amount: bigint])[];

/** What inputs withdraw, by source address (latin1Key). */
function spendsByAddress(sources: readonly { address: Uint8Array; amount: bigint }[]): Spends {
  if (sources.length === 1) return [[latin1Key(sources[0]!.address), sources[0]!.amount]];
  const spends = new Map<string, bigint>();
  for (const s of sources) {
    const a = latin1Key(s.address);
    spends.set(a, (spends.get(a) ?? 0n) + s.amount);
  }
  return [...spends];
}

/** Adds (`sign` 1) or takes away (−1) `spends` to a total by address; totals at 0 are removed. */
function addSpends(total: Map<string, bigint>, spends: Spends, sign: 1n | -1n): void {
  for (const [a, amount] of spends) {
    const sum = (total.get(a) ?? 0n) + sign * amount;
    if (sum > 0n) total.set(a, sum);
    else total.delete(a);
  }
}

/** Committed wallet states, each address read from the store once (for one synchronous pass). */
function batchWalletReader(chain: Chain): (address: Uint8Array) => WalletState {
  const read = new Map<string, WalletState>();
  return (address) => {
    const key = latin1Key(address);
    let w = read.get(key);
    if (!w) read.set(key, (w = chain.wallet(address)));
    return w;
  };
}

/**
 * A stored record of the `pending` sub-database: `01 ‖ (u32 BE length ‖ stored transaction)…`, the
 * transactions of one admitted chunk in arrival order. One record per chunk, not per transaction:
 * storing and removing each transaction was two B-tree writes apiece, ~6 % of the event loop
 * under a peer's push (bench network (a)).
 */
const CHUNK_RECORD = 1;

function encodePendingRecord(ks: readonly KnownTx[]): Buffer {
  let length = 1;
  for (const k of ks) length += 4 + storedTxLength(k);
  const out = Buffer.allocUnsafe(length);
  out[0] = CHUNK_RECORD;
  let at = 1;
  for (const k of ks) {
    out.writeUInt32BE(storedTxLength(k), at);
    at = writeStoredTx(out, at + 4, k);
  }
  return out;
}

/**
 * The transactions of a stored record. A record whose first byte is 0 holds one stored
 * transaction (the form before chunk records: its applied height, 0 while pending, comes first).
 * @throws StoreCorruptionError for a record of neither form.
 */
function decodePendingRecord(record: Uint8Array, network: Network): KnownTx[] {
  if (record[0] === 0) return [decodeStoredTx(record, network)];
  if (record[0] !== CHUNK_RECORD) throw new StoreCorruptionError(`pending record of unknown form ${record[0]}`);
  const view = Buffer.from(record.buffer, record.byteOffset, record.byteLength);
  const out: KnownTx[] = [];
  for (let at = 1; at < record.length; ) {
    if (at + 4 > record.length) throw new StoreCorruptionError(`pending record truncated at byte ${at}`);
    const length = view.readUInt32BE(at);
    if (at + 4 + length > record.length) throw new StoreCorruptionError(`pending record truncated at byte ${at}`);
    out.push(decodeStoredTx(record.subarray(at + 4, at + 4 + length), network));
    at += 4 + length;
  }
  return out;
}

/**
 * The pool as a type hook sees it when a pending transaction is judged again after a block:
 * `held`, the hooked entries (by id) that arrived before it and still hold, in arrival order.
 */
function heldView(held: ReadonlyMap<string, Entry>): PendingView {
  const listed = (keep: (e: Entry) => boolean): KnownTx[] => {
    const out: KnownTx[] = [];
    for (const e of held.values()) if (keep(e)) out.push(e.k);
    return out;
  };
  return {
    get: (id) => held.get(latin1Key(id))?.k,
    followers: (id) => {
      const key = latin1Key(id);
      return listed((e) => e.leader === key);
    },
    ofType: (type) => listed((e) => e.k.tx.type === type),
  };
}

/** A refusal as a `TxError` (anything unexpected is a rule break). */
const asTxError = (err: unknown): TxError => (err instanceof TxError ? err : new TxError(TxErrorCode.Invalid, (err as Error).message));

export interface MempoolDeps {
  chain: Chain;
  verify: SignatureVerifier;
  events: Emitter<ChainEvents & MempoolEvents>;
  log: Logger;
}

/** One admission pass's answers by id: the bytes it judged and null (admitted) or its refusal. */
type Decisions = Map<string, { bytes: Uint8Array; error: TxError | null }>;

export class Mempool {
  private readonly chain: Chain;
  private readonly verify: SignatureVerifier;
  private readonly events: Emitter<ChainEvents & MempoolEvents>;
  private readonly log: Logger;
  private readonly entries = new Map<string, Entry>(); // by binary id (latin1Key), insertion = arrival order
  private readonly pendingSpend = new Map<string, bigint>();
  /**
   * What submissions still being admitted (queued, or awaiting their signature check) withdraw, by
   * source address: counted by {@link pendingSpendOf}, so a payment built meanwhile does not pick
   * the same coins (reference-rpc-messaging §2.1 "Input selection": pending local transactions).
   */
  private readonly submittedSpend = new Map<string, bigint>();
  /** Leader id → ids of its pending followers, in arrival order. */
  private readonly followersOf = new Map<string, string[]>();
  /**
   * The pending entries whose type has a hook (names, multisig, mining claims), in arrival order:
   * those `onBlockImported` validates again and `ofType` lists, without walking the payments (which have none).
   */
  private readonly hooked = new Set<Entry>();
  /**
   * Ids being admitted by a batch that awaits its signatures, with the signature being checked,
   * once it is sent to the verifier its verdict, and `decided`, which settles once that batch has
   * admitted or refused it, with its answers (a concurrent copy waits for it: `admitWithSources`).
   */
  private readonly inFlight = new Map<string, { signature: Uint8Array | null; verdict: Promise<boolean> | null; decided: Promise<Decisions> }>();
  /** Arrival sequence of the next admitted transaction (a record's key is its first one's). */
  private nextSeq = 1n;
  /** Stored records (by key) and their entries still pending, in arrival order. */
  private readonly records = new Map<bigint, Set<Entry>>();
  /** Submissions of the current macrotask, admitted together (`submit`). */
  private queue: { k: KnownTx; source: AdmitSource; spends: Spends; resolve(error: TxError | null): void; reject(err: unknown): void }[] = [];
  private readonly unsubscribe: () => void;
  /** `spentUnannounced` of the block in that window (by the identity of its transaction list). */
  private unannounced: { txs: readonly KnownTx[]; spends: Map<string, bigint> } | null = null;
  /** The removal of the records of what the last block included (see `pruned`). */
  private pruning: Promise<void> = Promise.resolve();

  constructor(deps: MempoolDeps) {
    this.chain = deps.chain;
    this.verify = deps.verify;
    this.events = deps.events;
    this.log = deps.log;
    // Records holding transactions that are no longer pending: rewritten without them (or removed).
    const shrunk: bigint[] = [];
    for (const { key, value } of this.chain.store.db('pending').getRange({ snapshot: false })) {
      const record = readU64Key(key);
      let ks: KnownTx[];
      try {
        ks = decodePendingRecord(value, this.chain.network);
      } catch (err) {
        throw new StoreCorruptionError(storeDamaged(this.chain.store.path, `its pending transactions record ${record}: ${(err as Error).message}`));
      }
      this.records.set(record, new Set());
      if (record + BigInt(ks.length) > this.nextSeq) this.nextSeq = record + BigInt(ks.length);
      let kept = 0;
      for (const k of ks) {
        try {
          // Applied (its record outlives it until the rest of its chunk leaves), or taken back by a
          // revert and stored again in a later record.
          if (this.chain.hasTransaction(k.id)) throw new TxError(TxErrorCode.AlreadyApplied, 'transaction is already applied');
          if (this.entries.has(latin1Key(k.id))) throw new TxError(TxErrorCode.AlreadyPending, 'transaction is already pending');
          // Stored in arrival order: a follower's leader is tracked before it, or is gone.
          const leader = this.leaderOf(k);
          if (leader !== null && !this.entries.has(leader)) throw new TxError(TxErrorCode.NotReady, 'the transaction it follows is no longer pending');
          this.track(k, record, this.signerSpends(k).spends, leader);
          kept++;
        } catch (err) {
          this.log.debug({ id: k.textId, err: (err as Error).message }, 'stored pending transaction no longer pending; removed');
        }
      }
      if (kept < ks.length) shrunk.push(record);
    }
    if (shrunk.length > 0) void this.rewriteStored(shrunk);
    const offImported = this.events.on('blockImported', ({ txs }) => this.onBlockImported(txs));
    const offReverted = this.events.on('blockReverted', ({ block, txs }) => this.onBlockReverted(block.num, txs));
    this.unsubscribe = () => {
      offImported();
      offReverted();
    };
  }

  /** Stops following the chain. */
  close(): void {
    this.unsubscribe();
  }

  get size(): number {
    return this.entries.size;
  }

  has(id: Uint8Array): boolean {
    return this.entries.has(latin1Key(id));
  }

  /**
   * What the pool knows of the signature `signature` of transaction `id`: true when it holds that
   * transaction with that signature (verified on admission); the verdict to come when an admission
   * is verifying it now (it rejects when the verifier fails); undefined otherwise. The signature is
   * compared because a txid does not cover it (formats §8.7): a block may carry another one.
   */
  signatureVerdict(id: Uint8Array, signature: Uint8Array): true | Promise<boolean> | undefined {
    const key = latin1Key(id);
    const held = this.entries.get(key);
    if (held) return held.k.tx.signature && equalBytes(held.k.tx.signature, signature) ? true : undefined;
    const admitting = this.inFlight.get(key);
    if (!admitting?.verdict || !admitting.signature || !equalBytes(admitting.signature, signature)) return undefined;
    return admitting.verdict;
  }

  get(id: Uint8Array): KnownTx | undefined {
    return this.entries.get(latin1Key(id))?.k;
  }

  /** Pool transactions in arrival order, from `fromIndex`, at most `count` (txu). */
  page(fromIndex: number, count: number): KnownTx[] {
    const out: KnownTx[] = [];
    let i = 0;
    for (const e of this.entries.values()) {
      if (out.length >= count) break;
      // A committed block is visible in LMDB a moment before `blockImported` prunes the pool:
      // never list what the chain already holds.
      if (this.chain.hasTransaction(e.k.id)) continue;
      if (i++ >= fromIndex) out.push(e.k);
    }
    return out;
  }

  /**
   * Amount the pool's transactions, and the submissions being admitted, withdraw from `address`
   * beyond the balance a store read made now shows: what a wallet can spend is
   * `chain.wallet(address).balance − pendingSpendOf(address)`, both read in one synchronous pass.
   */
  pendingSpendOf(address: Uint8Array): bigint {
    const a = latin1Key(address);
    return this.heldSpendOf(a) + (this.submittedSpend.get(a) ?? 0n);
  }

  /**
   * What the pool's transactions withdraw from `a` (latin1Key) beyond the balance a store read made
   * now shows (`spentUnannounced`, passed in by a caller that reads it once for many addresses).
   */
  private heldSpendOf(a: string, unannounced = this.spentUnannounced()): bigint {
    return (this.pendingSpend.get(a) ?? 0n) - (unannounced?.get(a) ?? 0n);
  }

  /**
   * What the pool's transactions in a block that store reads already show, but that
   * `blockImported` has not announced yet, withdraw, by address (null outside that window, see
   * `Chain.appliedUnannounced`): a balance read now has them taken off already, and the pool still
   * counts them as pending. Without this a payment the balance covers was refused with 'Balance is
   * too low' for a moment after each block.
   */
  private spentUnannounced(): Map<string, bigint> | null {
    const txs = this.chain.appliedUnannounced();
    if (!txs) return null;
    // Kept for the window's duration (one block's transactions, summed once).
    if (this.unannounced?.txs !== txs) {
      const spends = new Map<string, bigint>();
      for (const k of txs) {
        const e = this.entries.get(latin1Key(k.id));
        if (e) addSpends(spends, e.spends, 1n);
      }
      this.unannounced = { txs, spends };
    }
    return this.unannounced.spends;
  }

  /** The pending followers of a transaction (multisig co-signatures of a pending multisig transaction), in arrival order. */
  followers(id: Uint8Array): KnownTx[] {
    return (this.followersOf.get(latin1Key(id)) ?? []).map((f) => this.entries.get(f)!.k);
  }

  /** The signer's key and what each input address gives (§8.8: inputs resolve against one signer). */
  private signerSpends(k: KnownTx, walletOf: (address: Uint8Array) => WalletState = (a) => this.chain.wallet(a)): {
    publicKey: Uint8Array;
    spends: Spends;
  } {
    const { extensions } = this.chain;
    const signer = resolveTxSigner(k.tx, walletOf, extensions);
    const sources = inputSources(k.tx, signer.primary);
    checkSourceWallets(k.tx, sources, walletOf, extensions);
    return { publicKey: signer.publicKey, spends: spendsByAddress(sources) };
  }

  /** The id (latin1Key) of the transaction `k` follows, or null (see the module comment). */
  private leaderOf(k: KnownTx): string | null {
    const leader = this.chain.extensions.txType(k.tx.type)?.leader?.(k.tx);
    return leader ? latin1Key(leader) : null;
  }

  private track(k: KnownTx, record: bigint, spends: Spends, leader: string | null, id = latin1Key(k.id)): void {
    const e: Entry = { k, record, spends, leader };
    this.entries.set(id, e);
    if (this.chain.extensions.txType(k.tx.type)) this.hooked.add(e);
    let live = this.records.get(record);
    if (!live) this.records.set(record, (live = new Set()));
    live.add(e);
    addSpends(this.pendingSpend, spends, 1n);
    if (leader !== null) {
      const list = this.followersOf.get(leader);
      if (list) list.push(id);
      else this.followersOf.set(leader, [id]);
    }
  }

  /**
   * Admits one transaction with the others submitted in the same macrotask: they are validated,
   * signature-checked (one call to the verifier) and stored (one LMDB write) together, in chunks.
   * Resolves with null (admitted) or the `TxError` that refused it.
   */
  submit(k: KnownTx, source: AdmitSource = 'rpc'): Promise<TxError | null> {
    const spends = this.claimedSpends(k);
    addSpends(this.submittedSpend, spends, 1n);
    return new Promise((resolve, reject) => {
      this.queue.push({ k, source, spends, resolve, reject });
      if (this.queue.length === 1) setImmediate(() => this.drainQueue());
    });
  }

  /**
   * What `k` withdraws, counted in `submittedSpend` while its admission runs. Read afresh (not
   * through a reader kept until the queue drains): a block committed meanwhile may have stored the
   * signer's key, and a signer that no longer resolves would leave these spends out, so a payment
   * built next could pick the same coins. No state read: the signer's primary comes from the
   * transaction itself (as the hot path of every RPC submission, a wallet read here cost ~60 µs per
   * transaction end to end).
   */
  private claimedSpends(k: KnownTx): Spends {
    try {
      return spendsByAddress(inputSources(k.tx, signerPrimaryOf(k.tx, this.chain.extensions)));
    } catch {
      return []; // no signer, or inputs that break a rule: admission refuses it with its code
    }
  }

  private drainQueue(): void {
    const queue = this.queue;
    this.queue = [];
    // Chunks finish (verified, stored, answered) as their signatures come back from the pool, so
    // answered clients send again while the rest verify: the event loop and the pool overlap.
    for (let at = 0; at < queue.length; at += ADMIT_CHUNK) {
      const chunk = queue.slice(at, at + ADMIT_CHUNK);
      const settled = (): void => {
        for (const q of chunk) addSpends(this.submittedSpend, q.spends, -1n);
      };
      this.admitWithSources(chunk.map((q) => q.k), chunk.map((q) => q.source)).then(
        ({ results, stored }) => {
          settled();
          // A peer's transactions are answered once the pool holds them; this node's own (RPC) once
          // their record is stored too: an acknowledged payment survives a crash (see `stored`).
          const durable: typeof chunk = [];
          chunk.forEach((q, i) => (q.source === 'rpc' && results[i] === null ? durable.push(q) : q.resolve(results[i]!)));
          if (durable.length > 0) {
            stored.then(
              () => durable.forEach((q) => q.resolve(null)),
              (err: unknown) => durable.forEach((q) => q.reject(err)),
            );
          }
        },
        (err: unknown) => {
          settled();
          chunk.forEach((q) => q.reject(err));
        },
      );
    }
  }

  /**
   * Validates and admits a batch; each item gets `null` (admitted) or the `TxError` that refused it.
   * Signatures of the whole batch are verified in one call to the verifier; the admitted ones are
   * stored in one write transaction.
   */
  async admit(batch: KnownTx[], source: AdmitSource = 'rpc'): Promise<(TxError | null)[]> {
    const { results, stored } = await this.admitWithSources(batch, batch.map(() => source));
    await stored;
    return results;
  }

  /**
   * `results`: null (admitted: the pool holds it) or the `TxError` that refused it, per item.
   * `stored`: settles once the admitted items' record is written; when that write fails they leave
   * the pool again (`txDropped`) and it rejects with the error. The write waits in LMDB's one
   * write queue behind a block's commit (~0.5 s for a block of thousands of transactions), which is
   * why a peer's batch is not held until then: admission would stall and the verifier idle (bench
   * network (a)). The record is written at the same moment either way; only a peer's answer, and
   * so its relay to the other masters, no longer waits for it.
   */
  private async admitWithSources(batch: KnownTx[], sources: AdmitSource[]): Promise<{ results: (TxError | null)[]; stored: Promise<void> }> {
    const { results, stored, waiting } = await this.admitOnce(batch, sources);
    if (waiting.length === 0) return { results, stored };
    // A copy of a transaction another admission was deciding on is answered once that one is
    // decided, as the reference's pool answers a second submission after the first: the same
    // bytes get the same answer (already pending when it was admitted), checked once however many
    // copies came; other bytes of that id are judged on their own (a txid does not cover the
    // signature, formats §8.7: a copy with a broken signature must not turn the valid one away).
    const decisions = await Promise.all(waiting.map((w) => w.decided));
    const rest: { i: number }[] = [];
    waiting.forEach((w, j) => {
      const k = batch[w.i]!;
      const d = decisions[j]!.get(latin1Key(k.id));
      if (!d || !equalBytes(d.bytes, k.bytes)) rest.push(w);
      else results[w.i] = d.error ?? new TxError(TxErrorCode.AlreadyPending, 'transaction is already pending');
    });
    if (rest.length === 0) return { results, stored };
    const again = await this.admitWithSources(
      rest.map((w) => batch[w.i]!),
      rest.map((w) => sources[w.i]!),
    );
    rest.forEach((w, j) => (results[w.i] = again.results[j]!));
    return { results, stored: Promise.all([stored, again.stored]).then(() => undefined) };
  }

  /** One pass of `admitWithSources`; `waiting`: the items another admission in flight holds the id of. */
  private async admitOnce(
    batch: KnownTx[],
    sources: AdmitSource[],
  ): Promise<{ results: (TxError | null)[]; stored: Promise<void>; waiting: { i: number; decided: Promise<Decisions> }[] }> {
    const results: (TxError | null)[] = new Array(batch.length).fill(null);
    const waiting: { i: number; decided: Promise<Decisions> }[] = [];
    // This pass's answers, filled once it decides (synchronously after `decide`, before any waiter runs).
    const decisions: Decisions = new Map();
    let decide!: (d: Decisions) => void;
    const decided = new Promise<Decisions>((resolve) => (decide = resolve));
    const checked: { i: number; k: KnownTx; id: string; publicKey: Uint8Array; spends: Spends; leader: string | null }[] = [];
    const tip = this.chain.height;
    // Senders repeat within a batch: each wallet is read once (committed state, before the await).
    const walletOf = batchWalletReader(this.chain);
    for (let i = 0; i < batch.length; i++) {
      const k = batch[i]!;
      const id = latin1Key(k.id);
      try {
        // Applied before pending: a committed block shows in LMDB a moment before `blockImported`
        // prunes the pool, and in that window the transaction is applied (getTransaction, txu say so).
        if (this.chain.hasTransaction(k.id)) throw new TxError(TxErrorCode.AlreadyApplied, 'transaction is already applied');
        if (this.entries.has(id)) throw new TxError(TxErrorCode.AlreadyPending, 'transaction is already pending');
        const admitting = this.inFlight.get(id);
        if (admitting) {
          waiting.push({ i, decided: admitting.decided });
          continue;
        }
        if (this.entries.size + this.inFlight.size >= MAX_PENDING) throw new TxError(TxErrorCode.PoolFull, `the pending pool is full (${MAX_PENDING} transactions)`);
        checkTransaction(k, tip, this.chain.extensions);
        const { publicKey, spends } = this.signerSpends(k, walletOf);
        this.inFlight.set(id, { signature: k.tx.signature, verdict: null, decided });
        checked.push({ i, k, id, publicKey, spends, leader: this.leaderOf(k) });
      } catch (err) {
        results[i] = asTxError(err);
      }
    }
    if (checked.length === 0) return { results, stored: Promise.resolve(), waiting };
    // The signature first (one RSA verification, in the pool); then the type's costly checks (a
    // mining claim's Argon2, in the pool) only for what is signed; then its cheap rules.
    const refused: (TxError | null)[] = new Array(checked.length).fill(null);
    try {
      // This node's own submissions ahead of the peers' checks still queued (a push keeps thousands
      // waiting): a wallet's payment is answered in a fraction of a second under load.
      const valid = await this.verifySignatures(checked, sources.includes('rpc'));
      const view = this.chain.view();
      const prepared: Promise<void>[] = [];
      checked.forEach((c, j) => {
        if (!valid[j]) {
          refused[j] = new TxError(TxErrorCode.BadSignature, 'signature does not verify');
          return;
        }
        const costly = this.chain.extensions.prepare(c.k.tx, view);
        if (costly) prepared.push(costly.catch((err: unknown) => void (refused[j] = asTxError(err))));
      });
      if (prepared.length > 0) await Promise.all(prepared);
    } finally {
      for (const c of checked) this.inFlight.delete(c.id);
      // Waiters resume after the synchronous rest of this pass below, which fills `decisions`.
      decide(decisions);
    }
    // The type rules, each against the committed state, the pool and the earlier items of this
    // batch that passed (a co-signature right behind the multisig transaction it signs).
    const base = this.chain.view();
    const passed: typeof checked = [];
    for (let j = 0; j < checked.length; j++) {
      const c = checked[j]!;
      if (refused[j]) continue;
      try {
        const hook = this.chain.extensions.txType(c.k.tx.type);
        // The view reads `passed` during this synchronous call only: as it stands before `c`.
        if (hook) hook.validate(c.k.tx, { ...base, pending: this.pendingView(passed) });
        passed.push(c);
      } catch (err) {
        refused[j] = asTxError(err);
      }
    }
    // Balances net of pending spends, checked after the await so concurrent batches see each other
    // (and a block committed meanwhile): read afresh.
    const balanceOf = batchWalletReader(this.chain);
    const unannounced = this.spentUnannounced();
    const admitted: Entry[] = [];
    let chunkRecord = 0n;
    const admittedSources: AdmitSource[] = [];
    for (let j = 0; j < checked.length; j++) {
      const c = checked[j]!;
      if (refused[j]) {
        results[c.i] = refused[j]!;
        continue;
      }
      if (this.chain.hasTransaction(c.k.id)) {
        results[c.i] = new TxError(TxErrorCode.AlreadyApplied, 'transaction is already applied');
        continue;
      }
      if (this.entries.has(c.id)) {
        results[c.i] = new TxError(TxErrorCode.AlreadyPending, 'transaction is already pending');
        continue;
      }
      let short = false;
      for (const [a, amount] of c.spends) {
        const balance = balanceOf(Buffer.from(a, 'latin1')).balance;
        if (balance - this.heldSpendOf(a, unannounced) < amount) short = true;
      }
      if (short) {
        results[c.i] = new TxError(TxErrorCode.BalanceTooLow, 'Balance is too low');
        continue;
      }
      // A follower's leader may have left the pool (or failed in this batch) during the await.
      if (c.leader !== null && !this.entries.has(c.leader)) {
        results[c.i] = new TxError(TxErrorCode.TypeRule, 'the transaction it co-signs is no longer pending on this node');
        continue;
      }
      // One record per ADMIT_CHUNK transactions, keyed by its first one's arrival sequence.
      if (admitted.length % ADMIT_CHUNK === 0) chunkRecord = this.nextSeq;
      this.nextSeq++;
      this.track(c.k, chunkRecord, c.spends, c.leader, c.id);
      admitted.push(this.entries.get(c.id)!);
      admittedSources.push(sources[c.i]!);
    }
    for (const c of checked) decisions.set(c.id, { bytes: c.k.bytes, error: results[c.i] ?? null });
    if (admitted.length === 0) return { results, stored: Promise.resolve(), waiting };
    const pending = this.chain.store.db('pending');
    const records = new Map<bigint, KnownTx[]>();
    for (const e of admitted) {
      const list = records.get(e.record);
      if (list) list.push(e.k);
      else records.set(e.record, [e.k]);
    }
    // One event per source (a peer's batch is relayed to every other peer, not back to it): a
    // peer's now, this node's own once stored (as their answers).
    const bySource = new Map<AdmitSource | string, KnownTx[]>();
    admitted.forEach((e, i) => {
      const s = admittedSources[i]!;
      const key = s === 'rpc' ? 'rpc' : s.peer;
      const list = bySource.get(key) ?? [];
      list.push(e.k);
      bySource.set(key, list);
    });
    const announce = (own: boolean): void => {
      for (const [key, txs] of bySource) if ((key === 'rpc') === own) this.events.emit('txAdmitted', { txs, source: key === 'rpc' ? 'rpc' : { peer: key as string } });
    };
    const stored = this.chain.store
      .write(() => {
        for (const [record, ks] of records) pending.put(u64Key(record), encodePendingRecord(ks));
      })
      .then(
        () => announce(true),
        (err: unknown) => {
          // Not stored: not pending either.
          const gone = new Set(this.forget(admitted.map((e) => e.k)));
          for (const record of records.keys()) this.records.delete(record);
          this.log.error({ err, count: gone.size }, 'admitted transactions could not be stored; they left the pool');
          // A peer's were announced as admitted (`txAdmitted` above); this node's own were not.
          const announced = admitted.filter((e, i) => admittedSources[i] !== 'rpc' && gone.has(e));
          if (announced.length > 0) this.events.emit('txDropped', { txs: announced.map((e) => e.k), reason: 'the pending pool could not store them' });
          throw err;
        },
      );
    // Observed by whoever waits for it (an RPC answer, `admit`); logged above either way.
    stored.catch(() => undefined);
    announce(false);
    return { results, stored, waiting };
  }

  /**
   * One signature verdict per item of `checked`, in order (`verifyOnce`): a transaction whose
   * signature a block import is checking right now takes that check's verdict
   * (`Chain.checkingVerdict`); each check made here is published in `inFlight` for a block import
   * that comes meanwhile (`signatureVerdict`). `first`: ahead of the checks queued in the pool.
   * @throws what the verifier throws (e.g. PoolBusyError)
   */
  private verifySignatures(checked: readonly { id: string; k: KnownTx; publicKey: Uint8Array }[], first: boolean): Promise<boolean[]> {
    return verifyOnce(
      checked.map((c) => ({ publicKey: c.publicKey, data: c.k.checksum, signature: c.k.tx.signature! })),
      checked.map((c) => this.chain.checkingVerdict(c.k.id, c.k.tx.signature!)),
      first ? (items) => this.verify(items, { first: true }) : this.verify,
      (j, verdict) => void (this.inFlight.get(checked[j]!.id)!.verdict = verdict),
    );
  }

  /** Resolves once the stored records reflect what imported blocks took out of the pool (see `releaseStored`). */
  pruned(): Promise<void> {
    return this.pruning;
  }

  /** The pool as the type hooks see it on admission: pending entries and the batch admitted so far. */
  private pendingView(batch: readonly { id: string; k: KnownTx; leader: string | null }[]): PendingView {
    return {
      get: (id) => {
        const key = latin1Key(id);
        return this.entries.get(key)?.k ?? batch.find((c) => c.id === key)?.k;
      },
      followers: (id) => {
        const key = latin1Key(id);
        return [...this.followers(id), ...batch.filter((c) => c.leader === key).map((c) => c.k)];
      },
      ofType: (type) => {
        const out: KnownTx[] = [];
        for (const e of this.hooked) {
          // As `page`: a committed block's transactions stay here until `blockImported`.
          if (e.k.tx.type === type && !this.chain.hasTransaction(e.k.id)) out.push(e.k);
        }
        for (const c of batch) if (c.k.tx.type === type) out.push(c.k);
        return out;
      },
    };
  }

  /**
   * Candidates for the next block, in arrival order, each followed by its pending followers (a
   * multisig transaction by its co-signatures, which enter a block right behind it).
   */
  candidates(limit: number): KnownTx[] {
    const txs: KnownTx[] = [];
    for (const [id, e] of this.entries) {
      if (txs.length >= limit) break;
      if (e.leader !== null) continue;
      txs.push(e.k);
      for (const f of this.followersOf.get(id) ?? []) txs.push(this.entries.get(f)!.k);
    }
    return txs.length > limit ? txs.slice(0, limit) : txs;
  }

  /** Removes transactions that a producer refused (they would fail every later block too), and their followers. */
  async drop(ks: readonly KnownTx[], reason: string): Promise<void> {
    const gone = this.forget(ks);
    gone.push(...this.forgetOrphans());
    if (gone.length === 0) return;
    await this.releaseStored([], gone);
    this.events.emit('txDropped', { txs: gone.map((e) => e.k), reason });
  }

  /** Forgets transactions that left the pool; returns their entries. */
  private forget(ks: readonly KnownTx[]): Entry[] {
    const gone: Entry[] = [];
    for (const k of ks) {
      const id = latin1Key(k.id);
      const e = this.entries.get(id);
      if (!e) continue;
      this.entries.delete(id);
      this.hooked.delete(e);
      gone.push(e);
      addSpends(this.pendingSpend, e.spends, -1n);
      if (e.leader !== null) {
        const list = this.followersOf.get(e.leader);
        const at = list?.indexOf(id) ?? -1;
        if (at >= 0) list!.splice(at, 1);
        if (list?.length === 0) this.followersOf.delete(e.leader);
      }
    }
    return gone;
  }

  /** Forgets the followers whose leader left the pool (applied without them, or dropped); returns their entries. */
  private forgetOrphans(): Entry[] {
    const orphans: KnownTx[] = [];
    for (const [leader, list] of this.followersOf) {
      if (!this.entries.has(leader)) for (const f of list) orphans.push(this.entries.get(f)!.k);
    }
    return orphans.length > 0 ? this.forget(orphans) : [];
  }

  /**
   * The stored records of entries that left the pool: a record with no pending entry left is
   * removed; one that still has some is rewritten without those that left unapplied (`dropped`: a
   * restart must not bring them back). Entries a block included stay in their record until it
   * empties: a restart finds them applied and skips them.
   */
  private releaseStored(included: readonly Entry[], dropped: readonly Entry[]): Promise<void> {
    const changed = new Set<bigint>();
    for (const list of [included, dropped]) {
      for (const e of list) {
        const live = this.records.get(e.record);
        if (!live?.delete(e)) continue;
        if (live.size === 0 || list === dropped) changed.add(e.record);
      }
    }
    return changed.size === 0 ? Promise.resolve() : this.rewriteStored([...changed]);
  }

  /** Writes `records` again with only their pending entries (removing those with none). */
  private rewriteStored(records: readonly bigint[]): Promise<void> {
    const pending = this.chain.store.db('pending');
    return this.chain.store
      .write(() => {
        for (const record of records) {
          const live = this.records.get(record);
          if (!live || live.size === 0) {
            this.records.delete(record);
            pending.remove(u64Key(record));
          } else {
            pending.put(u64Key(record), encodePendingRecord([...live].map((e) => e.k)));
          }
        }
      })
      .catch((err: unknown) => this.log.error({ err }, 'pending pool records could not be updated; they are pruned at the next start'));
  }

  /**
   * The tip was reverted (a competing chain won): its transactions are pending again, admitted
   * afresh against the state before the block (those the winning chain applies leave again on its
   * `blockImported`). Genesis and staking rewards belong to their block, not to the pool.
   */
  private onBlockReverted(num: bigint, txs: readonly KnownTx[]): void {
    const back = txs.filter((k) => k.tx.type !== TransactionType.Genesis && k.tx.type !== TransactionType.StakingReward);
    if (back.length === 0) return;
    // Their spends count from now, as a submission's do, not once their signatures are checked
    // again: the balance read now is the one before the block, and a payment built meanwhile
    // would take the same coins (and one of the two would then be refused).
    const claims = back.map((k) => this.claimedSpends(k));
    for (const c of claims) addSpends(this.submittedSpend, c, 1n);
    const settled = (): void => {
      for (const c of claims) addSpends(this.submittedSpend, c, -1n);
    };
    const source: AdmitSource = { peer: 'revert' };
    void this.admitWithSources(back, back.map(() => source))
      .then(({ results, stored }) => {
        settled();
        const refused = results.filter((r) => r !== null).length;
        this.log.info({ height: Number(num), back: back.length - refused, refused }, 'transactions of a reverted block are pending again');
        return stored;
      }, (err: unknown) => {
        settled();
        throw err;
      })
      .catch((err: unknown) => this.log.error({ err }, 'transactions of a reverted block could not be taken back'));
  }

  /**
   * The pending transactions (by the reason that refuses them) that their type hook's admission
   * `validate` now refuses against the state the block left: only those of the extensions whose
   * types the block carried, so a block of payments costs nothing here, and a pool of payments is
   * never walked (`hooked`). Each is judged as on admission, with the pool as it stood before it
   * (the hooked transactions that arrived earlier and still hold), so a co-signature still finds
   * its transaction and a wallet change does not conflict with itself.
   *
   * Without this, a name operation refused by another master's block (the same name and sequence
   * applied there first) stayed pending until this node produced, and every operation on that
   * name was refused meanwhile as pending (rpc/methods/names.ts `refusePending`). The reference
   * cleans its pool after every block it appends (ixian-platform/Ixian-DLT BlockChain.appendBlock
   * → TransactionPool.performCleanup: pending mining solutions of blocks now solved leave), and
   * re-verifies the node's own pending submissions (processPendingTransactions → verifyTransaction,
   * name rules included), forgetting those no longer valid.
   */
  private refusedByTypeRules(blockTxs: readonly KnownTx[]): Map<string, KnownTx[]> {
    const refused = new Map<string, KnownTx[]>();
    if (this.hooked.size === 0) return refused;
    const { extensions } = this.chain;
    const changed = new Set<ChainExtension>();
    for (const k of blockTxs) {
      const owner = extensions.ownerOf(k.tx.type);
      if (owner) changed.add(owner);
    }
    if (changed.size === 0) return refused;
    const base = this.chain.view();
    const earlier = new Map<string, Entry>(); // by id (latin1Key), in arrival order
    for (const e of this.hooked) {
      const id = latin1Key(e.k.id);
      if (changed.has(extensions.ownerOf(e.k.tx.type)!)) {
        try {
          extensions.txType(e.k.tx.type)!.validate(e.k.tx, { ...base, pending: heldView(earlier) });
        } catch (err) {
          const reason = asTxError(err).message;
          const list = refused.get(reason);
          if (list) list.push(e.k);
          else refused.set(reason, [e.k]);
          continue;
        }
      }
      earlier.set(id, e);
    }
    return refused;
  }

  /**
   * A block was imported: forget what it included, then re-check the pending spends of every
   * address it touched against the new balances, in arrival order; what no longer fits leaves.
   * Touched are the outputs and every input source of every transaction of the block, not only of
   * those this pool held: a peer's block spends from wallets whose other payments wait here.
   */
  private onBlockImported(txs: readonly KnownTx[]): void {
    this.unannounced = null;
    const included = this.forget(txs);
    const uncovered: KnownTx[] = [];
    if (this.entries.size > 0) {
      const balanceOf = batchWalletReader(this.chain);
      const touched = new Set<string>();
      for (const k of txs) for (const o of k.tx.outputs) touched.add(latin1Key(o.address));
      // The pool knew the sources of what it held; the others' are resolved (the block applied
      // them, so their signers resolve against the state it left).
      const known = new Set<string>();
      for (const e of included) {
        known.add(latin1Key(e.k.id));
        for (const [a] of e.spends) touched.add(a);
      }
      for (const k of txs) {
        if (k.tx.inputs.length === 0 || known.has(latin1Key(k.id))) continue;
        try {
          for (const s of inputSources(k.tx, resolveTxSigner(k.tx, balanceOf, this.chain.extensions).primary)) touched.add(latin1Key(s.address));
        } catch {
          // A block transaction without an ordinary signer (a reward) withdraws from no wallet here.
        }
      }
      const left = new Map<string, bigint>();
      for (const e of this.entries.values()) {
        let fits = true;
        for (const [a, amount] of e.spends) {
          if (!touched.has(a)) continue;
          const remaining = left.get(a) ?? balanceOf(Buffer.from(a, 'latin1')).balance;
          if (remaining < amount) fits = false;
        }
        if (!fits) {
          uncovered.push(e.k);
          continue;
        }
        for (const [a, amount] of e.spends) if (touched.has(a)) left.set(a, (left.get(a) ?? balanceOf(Buffer.from(a, 'latin1')).balance) - amount);
      }
    }
    const dropped = this.forget(uncovered);
    const refused = this.refusedByTypeRules(txs);
    const refusedGone = this.forget([...refused.values()].flat());
    // Co-signatures of a transaction the block applied without them (surplus), or that left uncovered or refused.
    const orphans = this.forgetOrphans();
    if (included.length + dropped.length + refusedGone.length + orphans.length > 0) {
      const removal = this.releaseStored(included, [...dropped, ...refusedGone, ...orphans]);
      this.pruning = this.pruning.then(() => removal);
    }
    if (dropped.length > 0) {
      this.log.warn({ count: dropped.length }, 'pending transactions no longer covered by their balance; dropped');
      this.events.emit('txDropped', { txs: dropped.map((e) => e.k), reason: 'Balance is too low' });
    }
    for (const [reason, ks] of refused) {
      this.log.warn({ count: ks.length, reason }, 'pending transactions that the block made invalid; dropped');
      this.events.emit('txDropped', { txs: ks, reason });
    }
    if (orphans.length > 0) {
      this.log.info({ count: orphans.length }, 'co-signatures of a transaction no longer pending; dropped');
      this.events.emit('txDropped', { txs: orphans.map((e) => e.k), reason: 'the transaction they co-sign is no longer pending' });
    }
  }
}
