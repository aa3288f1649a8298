/**
 * The Argon2 mining difficulty of the next block, computed as the reference computes it for v10+
 * blocks (Ixian-DLT `BlockProcessor.calculateDifficulty_v4` with `calculateEstimatedHashRate`,
 * Ixian-Core `MiningUtils`; reference-formats §11.2): a deterministic function of the chain, so a
 * node checks that every block it imports carries it (reference-network §5.3).
 *
 * - Up to block 10 (tip ≤ 10): the minimum, 0xA2CB1211629F6141 (≈ 180,000 hashes per solution).
 * - Otherwise, from the share of solved blocks (PoW field set) among the last 10,000 blocks (all of
 *   them while the chain is shorter), in thousandths: below 300 the minimum, above 700 the maximum
 *   (2^64 − 1); in between a hash rate estimated from the claims of the last 10 blocks (each adds
 *   the hashes its solved block's difficulty needed; the sum over 5 blocks, 1000 when none), scaled
 *   by the share below 480, kept from 480 to 509, scaled by (1 + share) from 510; bounded to ×4 / ÷4
 *   of the previous block's hashes unless that block had the minimum or the maximum; turned back
 *   into a difficulty, never below the minimum.
 */
import { REDACTED_WINDOW } from '../formats/constants.js';

/** The minimum and starting difficulty (MiningUtils: "approx 180 Khashes to find a solution"). */
export const MIN_MINING_DIFFICULTY = 0xa2cb1211629f6141n;
/** The maximum difficulty, set while more than 70 % of the window is solved. */
export const MAX_MINING_DIFFICULTY = 0xffff_ffff_ffff_ffffn;
/** Tips up to this height give the minimum. */
const EARLY_BLOCKS = 10n;
/** Blocks whose claims estimate the network's hash rate, and the divisor of their sum (every second block solved). */
export const HASHRATE_BLOCKS = 10;
const HASHRATE_DIVISOR = BigInt(HASHRATE_BLOCKS / 2);
/** The estimate when the last blocks hold no claim (and the floor of `targetDifficulty`'s input). */
const DEFAULT_HASHES = 1000n;
/** 2^256 − 1: the largest hash (MiningUtils `maxHashValue`). */
const MAX_HASH = (1n << 256n) - 1n;
const U64 = (1n << 64n) - 1n;
/** The 22 low bytes of the ceiling that are always 0xFF (§11.2). */
const CEILING_TAIL_BITS = 176n;

/** Hashes a solution of `difficulty` needs on average: (2^256 − 1) ÷ its 32-byte ceiling (§11.2). */
export function targetHashcountPerBlock(difficulty: bigint): bigint {
  const ceiling = ((~difficulty & U64) << CEILING_TAIL_BITS) | ((1n << CEILING_TAIL_BITS) - 1n);
  return MAX_HASH / ceiling;
}

/** The difficulty whose ceiling (2^256 − 1) ÷ `hashes` falls under: its bits 176–239, inverted. */
export function targetDifficulty(hashes: bigint): bigint {
  const ceiling = MAX_HASH / (hashes === 0n ? DEFAULT_HASHES : hashes);
  return ~(ceiling >> CEILING_TAIL_BITS) & U64;
}

/** What the next difficulty depends on. */
export interface DifficultyInputs {
  /** Height of the tip (the new block is tip + 1). */
  tip: bigint;
  /** Difficulty of the tip block. */
  tipDifficulty: bigint;
  /** Solved blocks among the last min(tip, 10,000) blocks. */
  solved: number;
  /** Difficulties of the blocks solved by the claims of the last 10 blocks (one per claim). */
  recentlySolved: readonly bigint[];
}

/** The reference's `calculateDifficulty_v4`. */
export function nextMiningDifficulty(x: DifficultyInputs): bigint {
  if (x.tip <= EARLY_BLOCKS) return MIN_MINING_DIFFICULTY;
  const window = x.tip < BigInt(REDACTED_WINDOW) ? x.tip : BigInt(REDACTED_WINDOW);
  const ratio = (BigInt(x.solved) * 1000n) / window;
  if (ratio < 300n) return MIN_MINING_DIFFICULTY;
  if (ratio > 700n) return MAX_MINING_DIFFICULTY;
  let estimated = x.recentlySolved.reduce((sum, d) => sum + targetHashcountPerBlock(d), 0n) / HASHRATE_DIVISOR;
  if (estimated === 0n) estimated = DEFAULT_HASHES;
  if (ratio < 480n) estimated = (estimated * ratio) / 1000n;
  else if (ratio >= 510n) estimated = (estimated * (1000n + ratio)) / 1000n;
  const current = x.tipDifficulty;
  if (current !== MIN_MINING_DIFFICULTY && current !== MAX_MINING_DIFFICULTY) {
    const currentHashes = targetHashcountPerBlock(current);
    if (estimated > currentHashes * 4n) estimated = currentHashes * 4n;
    else if (estimated < currentHashes / 4n) estimated = currentHashes / 4n;
  }
  const next = targetDifficulty(estimated);
  return next < MIN_MINING_DIFFICULTY ? MIN_MINING_DIFFICULTY : next;
}

/** Seconds the reference's hash-rate figures assume one solution takes (MiningUtils: "hash rate * 60"). */
const SOLUTION_SECONDS = 60n;

/** The `Hashrate` a block's difficulty stands for (getblock): its hashes per solution ÷ 60 s. */
export const hashrateOf = (difficulty: bigint): bigint => targetHashcountPerBlock(difficulty) / SOLUTION_SECONDS;
