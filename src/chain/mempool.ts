/**
 * The pending pool: transactions admitted but not yet in a block, in arrival order (`txu`),
 * persisted in the `pending` sub-database (key = arrival sequence) so they survive a restart.
 * Admission runs every rule of `validate.ts`, checks balances net of the pool's own pending
 * spends, and verifies the signature (in the worker pool) before the transaction is stored.
 */
import { latin1Key, readU64Key, u64Key } from '../state/keys.js';
import type { Chain } from './chain.js';
import { TxRejectedError } from './errors.js';
import { decodeStoredTx, encodeStoredTx, type KnownTx } from './tx-codec.js';
import { checkTransaction, inputSources, resolveSigner } from './validate.js';
import type { WalletState } from './wallet-state.js';

/** Verifies RSA signatures: true when `signature` is valid for `data` under `publicKey`. */
export type SignatureVerifier = (items: { publicKey: Uint8Array; data: Uint8Array; signature: Uint8Array }[]) => Promise<boolean[]>;

/** Largest pool; past it admission answers with an error instead of growing without bound. */
export const MAX_PENDING = 200_000;
/**
 * Submissions admitted together (one verifier call, one LMDB write). Small enough that the first
 * are answered while the pool still verifies the rest (~80 µs per RSA-4096 signature).
 */
const ADMIT_CHUNK = 64;

interface Entry {
  k: KnownTx;
  seq: bigint;
  /** Source address (latin1Key) → amount this transaction withdraws. */
  spends: Map<string, bigint>;
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

export class Mempool {
  private readonly entries = new Map<string, Entry>(); // by binary id (latin1Key), insertion = arrival order
  private readonly pendingSpend = new Map<string, bigint>();
  private nextSeq = 1n;
  /** Submissions of the current macrotask, admitted together (`submit`). */
  private queue: { k: KnownTx; resolve(reason: string | null): void; reject(err: unknown): void }[] = [];

  constructor(
    private readonly chain: Chain,
    private readonly verify: SignatureVerifier,
  ) {
    for (const { key, value } of chain.store.db('pending').getRange({ snapshot: false })) {
      const seq = readU64Key(key);
      const k = decodeStoredTx(value, chain.network);
      this.track(k, seq, this.signerSpends(k).spends);
      this.nextSeq = seq + 1n;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  has(id: Uint8Array): boolean {
    return this.entries.has(latin1Key(id));
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
      // A committed block is visible in LMDB a moment before its commit promise resolves and the
      // producer removes its transactions from the pool: never list what the chain already holds.
      if (this.chain.hasTransaction(e.k.id)) continue;
      if (i++ >= fromIndex) out.push(e.k);
    }
    return out;
  }

  /** Amount the pool's transactions withdraw from `address`. */
  pendingSpendOf(address: Uint8Array): bigint {
    return this.pendingSpend.get(latin1Key(address)) ?? 0n;
  }

  /** The signer's key and what each input address gives (§8.8: inputs resolve against one signer). */
  private signerSpends(k: KnownTx, walletOf: (address: Uint8Array) => WalletState = (a) => this.chain.wallet(a)): {
    publicKey: Uint8Array;
    spends: Map<string, bigint>;
  } {
    const signer = resolveSigner(k.tx, walletOf);
    const spends = new Map<string, bigint>();
    for (const s of inputSources(k.tx, signer.primary)) {
      const a = latin1Key(s.address);
      spends.set(a, (spends.get(a) ?? 0n) + s.amount);
    }
    return { publicKey: signer.publicKey, spends };
  }

  private track(k: KnownTx, seq: bigint, spends: Map<string, bigint>, id = latin1Key(k.id)): void {
    this.entries.set(id, { k, seq, spends });
    for (const [a, amount] of spends) this.pendingSpend.set(a, (this.pendingSpend.get(a) ?? 0n) + amount);
  }

  /**
   * Admits one transaction with the others submitted in the same macrotask: they are validated,
   * signature-checked (one call to the verifier) and stored (one LMDB write) together, in chunks.
   * Resolves with null (admitted) or the rejection reason.
   */
  submit(k: KnownTx): Promise<string | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ k, resolve, reject });
      if (this.queue.length === 1) setImmediate(() => this.drainQueue());
    });
  }

  private drainQueue(): void {
    const queue = this.queue;
    this.queue = [];
    // Chunks finish (verified, stored, answered) as their signatures come back from the pool, so
    // answered clients send again while the rest verify: the event loop and the pool overlap.
    for (let at = 0; at < queue.length; at += ADMIT_CHUNK) {
      const chunk = queue.slice(at, at + ADMIT_CHUNK);
      this.admit(chunk.map((q) => q.k)).then(
        (results) => chunk.forEach((q, i) => q.resolve(results[i]!)),
        (err: unknown) => chunk.forEach((q) => q.reject(err)),
      );
    }
  }

  /**
   * Validates and admits a batch; each item gets `null` (admitted) or the rejection reason.
   * Signatures of the whole batch are verified in one call to the verifier; the admitted ones are
   * stored in one write transaction.
   */
  async admit(batch: KnownTx[]): Promise<(string | null)[]> {
    const results: (string | null)[] = new Array(batch.length).fill(null);
    const checked: { i: number; k: KnownTx; id: string; publicKey: Uint8Array; spends: Map<string, bigint> }[] = [];
    const tip = this.chain.height;
    const seen = new Set<string>();
    // Senders repeat within a batch: each wallet is read once (committed state, before the await).
    const walletOf = batchWalletReader(this.chain);
    const view = this.chain.view();
    for (let i = 0; i < batch.length; i++) {
      const k = batch[i]!;
      const id = latin1Key(k.id);
      try {
        if (this.entries.size + checked.length >= MAX_PENDING) throw new TxRejectedError(`the pending pool is full (${MAX_PENDING} transactions)`);
        if (this.entries.has(id) || seen.has(id)) throw new TxRejectedError('transaction is already pending');
        if (this.chain.hasTransaction(k.id)) throw new TxRejectedError('transaction is already applied');
        checkTransaction(k, tip, this.chain.extensions);
        const { publicKey, spends } = this.signerSpends(k, walletOf);
        this.chain.extensions.txType(k.tx.type)?.validate(k.tx, view);
        seen.add(id);
        checked.push({ i, k, id, publicKey, spends });
      } catch (err) {
        results[i] = (err as Error).message;
      }
    }
    if (checked.length === 0) return results;
    const valid = await this.verify(checked.map((c) => ({ publicKey: c.publicKey, data: c.k.checksum, signature: c.k.tx.signature! })));
    // Balances net of pending spends, checked after the await so concurrent batches see each other
    // (and a block committed meanwhile): read afresh.
    const balanceOf = batchWalletReader(this.chain);
    const admitted: Entry[] = [];
    for (let j = 0; j < checked.length; j++) {
      const c = checked[j]!;
      if (!valid[j]) {
        results[c.i] = 'signature does not verify';
        continue;
      }
      let short: string | null = null;
      for (const [a, amount] of c.spends) {
        const balance = balanceOf(Buffer.from(a, 'latin1')).balance;
        if (balance - (this.pendingSpend.get(a) ?? 0n) < amount) short = 'Balance is too low';
      }
      if (short || this.entries.has(c.id)) {
        results[c.i] = short ?? 'transaction is already pending';
        continue;
      }
      const seq = this.nextSeq++;
      this.track(c.k, seq, c.spends, c.id);
      admitted.push(this.entries.get(c.id)!);
    }
    if (admitted.length > 0) {
      const pending = this.chain.store.db('pending');
      try {
        await this.chain.store.write(() => {
          for (const e of admitted) pending.put(u64Key(e.seq), encodeStoredTx(e.k));
        });
      } catch (err) {
        this.remove(admitted.map((e) => e.k)); // not stored: not pending either
        throw err;
      }
    }
    return results;
  }

  /** Candidates for the next block (arrival order) with their pending keys. */
  candidates(limit: number): { txs: KnownTx[]; keys: Buffer[] } {
    const txs: KnownTx[] = [];
    const keys: Buffer[] = [];
    for (const e of this.entries.values()) {
      if (txs.length >= limit) break;
      txs.push(e.k);
      keys.push(u64Key(e.seq));
    }
    return { txs, keys };
  }

  /** Forgets transactions that left the pool (applied or rejected by a block). */
  remove(ks: KnownTx[]): void {
    for (const k of ks) {
      const id = latin1Key(k.id);
      const e = this.entries.get(id);
      if (!e) continue;
      this.entries.delete(id);
      for (const [a, amount] of e.spends) {
        const left = (this.pendingSpend.get(a) ?? 0n) - amount;
        if (left > 0n) this.pendingSpend.set(a, left);
        else this.pendingSpend.delete(a);
      }
    }
  }
}
