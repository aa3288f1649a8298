/**
 * Per-block rules of the name system: expiry and removal (reference-names.md §5.3), the reward
 * pool payout (§5.5) and the name-state checksum of the block header (§5.6).
 */
import { merkleRoot } from '../formats/merkle.js';
import { nameRecordChecksum } from './name-record.js';
import { SUPERBLOCK_INTERVAL, type NameParams } from './params.js';
import type { NameState } from './state.js';

/** The checksum of an empty set of names (§5.6). */
export const EMPTY_NAME_STATE_CHECKSUM = new Uint8Array(64);

/**
 * Removes, at the start of block `height`, every name whose expiration is more than the grace
 * period behind (expiration < height − grace); a name expiring at E disappears in block
 * E + grace + 1. Returns the removed ids.
 */
export function expireNames(state: NameState, height: bigint, params: NameParams): Uint8Array[] {
  const threshold = height - BigInt(params.gracePeriodBlocks);
  if (threshold <= 0n) return [];
  const removed = state.expiredBefore(threshold);
  for (const id of removed) state.delete(id);
  return removed;
}

/**
 * Pays the block's share of the reward pool (§5.5): pool ÷ (highest expiration − height), the
 * whole pool once no name lasts beyond this block. Subtracts it from the pool and returns it; the
 * caller adds it to the block's fees.
 */
export function payNameReward(state: NameState, height: bigint): bigint {
  const meta = state.getMeta();
  if (meta.rewardPool === 0n) return 0n;
  const blocksLeft = meta.highestExpiration - height;
  const reward = blocksLeft > 0n ? meta.rewardPool / blocksLeft : meta.rewardPool;
  meta.rewardPool -= reward;
  state.setMeta(meta);
  return reward;
}

/**
 * The name-state checksum of block `height` (§5.6): on superblocks (height % period = 0; the period
 * is 1000 unless a genesis file shortens it) the Merkle
 * root of the `forMerkle` checksums of all names in id order; on other blocks that of the names
 * the block touched, in order of first touch (removed names are skipped). 64 zero bytes when empty.
 */
export function nameStateChecksum(state: NameState, height: bigint, touched: readonly Uint8Array[], period = BigInt(SUPERBLOCK_INTERVAL)): Uint8Array {
  const leaves: Uint8Array[] = [];
  if (height % period === 0n) {
    for (const r of state.all()) leaves.push(nameRecordChecksum(r, 'forMerkle'));
  } else {
    const seen = new Set<string>();
    for (const id of touched) {
      const key = Buffer.from(id).toString('hex');
      if (seen.has(key)) continue;
      seen.add(key);
      const r = state.get(id);
      if (r) leaves.push(nameRecordChecksum(r, 'forMerkle'));
    }
  }
  return merkleRoot(leaves) ?? EMPTY_NAME_STATE_CHECKSUM;
}
