/**
 * The PoW field of blocks (reference-formats.md §11.3): set when a block's mining claim (type 1,
 * §8.10) is applied; a block whose field is set takes no further claim. Stored in its own
 * sub-database: u64 BE block number → binary txid (§8.7) of the claim that solved it.
 */
import type { SubDbSpec } from '../state/schema.js';
import { u64Key } from '../state/keys.js';
import type { Store } from '../state/store.js';

export const POW_FIELD_DB: SubDbSpec = {
  name: 'powFields',
  encoding: 'binary',
  shape: 'u64 BE block number → binary txid of the applied mining claim (reference-formats §11.3)',
};

/** The PoW field of block `num`, or null while it is unsolved. */
export function powFieldOf(store: Store, num: bigint): Uint8Array | null {
  const v = store.declare(POW_FIELD_DB).getBinary(u64Key(num));
  return v ? new Uint8Array(v) : null;
}

/** Records the claim that solved block `num` (inside the block's write transaction). */
export function setPowField(store: Store, num: bigint, claimId: Uint8Array): void {
  store.declare(POW_FIELD_DB).put(u64Key(num), Buffer.from(claimId));
}

/** Solved blocks among `from..to` (inclusive). */
export function countSolved(store: Store, from: bigint, to: bigint): number {
  if (to < from) return 0;
  let n = 0;
  for (const _ of store.declare(POW_FIELD_DB).getKeys({ start: u64Key(from), end: u64Key(to + 1n), snapshot: false })) n++;
  return n;
}

/**
 * What the claims applied in each block solved: the difficulty of each solved block, so the next
 * difficulty's hash-rate estimate (src/mining/difficulty.ts) reads 10 small records, not 10 blocks.
 */
export const SOLVED_IN_DB: SubDbSpec = {
  name: 'powSolvedIn',
  encoding: 'binary',
  shape: 'u64 BE block number → u64 BE difficulty of each block the mining claims applied in it solved, in block order',
};

/** Records the difficulties of the blocks solved by the claims of block `num` (inside its write transaction). */
export function recordSolvedIn(store: Store, num: bigint, difficulties: readonly bigint[]): void {
  const value = Buffer.allocUnsafe(8 * difficulties.length);
  difficulties.forEach((d, i) => value.writeBigUInt64BE(d, 8 * i));
  store.declare(SOLVED_IN_DB).put(u64Key(num), value);
}

/** The difficulties of the blocks solved by the claims of block `num` (empty when none). */
export function solvedIn(store: Store, num: bigint): bigint[] {
  const v = store.declare(SOLVED_IN_DB).getBinary(u64Key(num));
  const out: bigint[] = [];
  if (v) for (let o = 0; o + 8 <= v.length; o += 8) out.push(v.readBigUInt64BE(o));
  return out;
}
