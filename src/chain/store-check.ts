/**
 * The start-up check of a stored chain. LMDB keeps no checksums of its data pages (lmdb-file.ts
 * checks only its meta pages), so a flipped byte in a block or a wallet is read back as if it were
 * right: the node would serve the changed block, extend a chain whose tip no longer hashes to what
 * its successor will name, and pay from a balance no block set. Before the node serves, what its
 * next block builds on is checked against what was recorded with it:
 * - the running totals in `meta` read as the types they were written as;
 * - no block is stored above the tip;
 * - the tip's header hashes to the checksum recorded with it (META.tipChecksum; stores from before
 *   that record: to block tip − 1's checksum as the tip names it, and block tip − 1 hashes to
 *   what the tip names);
 * - the tip's transaction root matches its txids, and every one of them has its record;
 * - the tip's wallet-state checksum equals the running one, and, while the store holds at most
 *   WALLET_CHECK_LIMIT wallets, that checksum and the wallet count are recomputed from every
 *   stored wallet (~9 µs a wallet: a SHA3-512 of it and its LMDB read).
 * Older blocks, transactions and the name state are not read: their damage shows when they are
 * read (a decode failure is an RPC error; a block read to be served is checked, chain.ts servedBlock).
 */
import { txIdRoot } from './block.js';
import { META, type Chain } from './chain.js';
import { storeDamaged, StoreCorruptionError } from './errors.js';
import { walletEntryHash, xorInto } from './state-transition.js';
import { equalBytes } from '../formats/bytes.js';
import { readU64Key } from '../state/keys.js';

/** Above this many wallets the full wallet-state recomputation is skipped: 20,000 take ~0.2 s of start-up. */
export const WALLET_CHECK_LIMIT = 20_000;
const CHECKSUM_BYTES = 64;

export interface StoreCheckResult {
  /** Wallets whose state was hashed again (0 when over the limit or no chain). */
  wallets: number;
  /** Whether the wallet count was over WALLET_CHECK_LIMIT, so the recomputation was skipped. */
  walletsSkipped: boolean;
  ms: number;
}

const hex = (b: Uint8Array | null | undefined): string => (b ? Buffer.from(b).toString('hex').slice(0, 16) : 'none');

/**
 * Throws StoreCorruptionError (one sentence naming the store, what is wrong and what to do) when the
 * stored chain's tip or running totals are damaged as listed above. A store without a chain passes.
 */
export function checkStoredChain(chain: Chain, o: { walletLimit?: number } = {}): StoreCheckResult {
  const started = performance.now();
  const { store } = chain;
  const fail = (why: string): never => {
    throw new StoreCorruptionError(storeDamaged(store.path, why));
  };
  const tip = chain.tip;
  if (!tip) return { wallets: 0, walletsSkipped: false, ms: performance.now() - started };
  const num = tip.block.num;

  // The running totals, as written by commitTotals.
  const appliedSeq = store.meta.get(META.appliedSeq);
  const walletCount = store.meta.get(META.walletCount);
  const supply = store.meta.get(META.supply);
  const ws = store.meta.get(META.wsChecksum);
  if (!Number.isSafeInteger(appliedSeq) || (appliedSeq as number) < 0) fail(`its applied-transaction count reads as ${JSON.stringify(appliedSeq)}`);
  if (!Number.isSafeInteger(walletCount) || (walletCount as number) < 0) fail(`its wallet count reads as ${JSON.stringify(walletCount)}`);
  if (typeof supply !== 'string' || !/^\d+$/.test(supply)) fail(`its coin supply reads as ${JSON.stringify(supply)}`);
  if (!(ws instanceof Uint8Array) || ws.length !== CHECKSUM_BYTES) fail('its wallet-state checksum cannot be read');
  const wsChecksum = ws as Uint8Array;

  // Nothing above the tip: a tip height that reads lower than it was would build on an old block.
  let last: Buffer | undefined;
  for (const key of store.db('blocks').getKeys({ reverse: true, limit: 1 })) last = key;
  if (last === undefined || readU64Key(last) !== num) fail(`its tip is block ${num}, but it holds block ${last === undefined ? 'none' : readU64Key(last)} above it`);

  // The tip's header: what the next block names as its parent.
  const recorded = store.meta.get(META.tipChecksum);
  if (recorded !== undefined && !(recorded instanceof Uint8Array && equalBytes(recorded, tip.checksum))) {
    fail(`its tip, block ${num}, hashes to ${hex(tip.checksum)}… but was stored as ${recorded instanceof Uint8Array ? hex(recorded) : 'unreadable'}…`);
  }
  if (num > 1n) {
    const parent = chain.getBlock(num - 1n);
    if (!parent) fail(`it holds no block ${num - 1n} below its tip`);
    if (!equalBytes(parent!.checksum, tip.block.lastBlockChecksum ?? new Uint8Array(0))) {
      fail(`its tip, block ${num}, names ${hex(tip.block.lastBlockChecksum)}… as its parent, but block ${num - 1n} hashes to ${hex(parent!.checksum)}…`);
    }
  }
  const root = txIdRoot(tip.block.txIds);
  if (!(root === null ? tip.block.pitRoot === null || tip.block.pitRoot.length === 0 : tip.block.pitRoot !== null && equalBytes(root, tip.block.pitRoot))) {
    fail(`its tip, block ${num}, lists transaction ids that do not match its transaction root`);
  }
  try {
    chain.blockTransactionBytes(tip.block);
  } catch (err) {
    fail(`its tip, block ${num}: ${(err as Error).message}`);
  }
  if (tip.block.walletStateChecksum && tip.block.walletStateChecksum.length > 0 && !equalBytes(tip.block.walletStateChecksum, wsChecksum)) {
    fail(`its tip, block ${num}, carries wallet-state checksum ${hex(tip.block.walletStateChecksum)}… but the running one is ${hex(wsChecksum)}…`);
  }

  // Every wallet, hashed again, while that stays cheap.
  const limit = o.walletLimit ?? WALLET_CHECK_LIMIT;
  if ((walletCount as number) > limit) return { wallets: 0, walletsSkipped: true, ms: performance.now() - started };
  const acc = new Uint8Array(CHECKSUM_BYTES);
  let count = 0;
  for (const { key, value } of store.db('wallets').getRange({})) {
    // Bounded: more entries than the count says is already the answer.
    if (++count > (walletCount as number)) break;
    xorInto(acc, walletEntryHash(key, value));
  }
  if (count !== walletCount) fail(`it counts ${String(walletCount)} wallets but holds ${count > (walletCount as number) ? 'more' : count}`);
  if (!equalBytes(acc, wsChecksum)) fail(`its wallets hash to ${hex(acc)}…, not to the wallet-state checksum of its tip ${hex(wsChecksum)}…: a wallet's stored state was changed`);
  return { wallets: count, walletsSkipped: false, ms: performance.now() - started };
}
