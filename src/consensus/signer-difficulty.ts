/**
 * The required signer difficulty a superblock sets for the next period (reference-network §5.6,
 * §5.8; DLT `BlockChain.calculateRequiredSignerDifficulty` with its block-based v1 and time-based
 * v2 averages and `findLastDifficultyChangedSuperBlock`). The superblock's header carries
 * `difficultyToBits` of the result. Pure: the chain is read through the two lookups of the input.
 *
 * Constants are the reference's and do not scale with a devnet's superblock period: a devnet with
 * a short period averages over far fewer than 40 000 blocks, so its requirement falls to the floor:
 * the reference's 10 000 000 coin, or the lower signer-PoW floor of a devnet's genesis (`floor`).
 */
import { COIN } from '../formats/amount.js';
import { ConsensusError } from './errors.js';
import { boundSignerDifficultyChange, previousSuperBlock, SUPERBLOCK_PERIOD } from './rules.js';
import { bitsToDifficulty, difficultyToBits, MIN_BLOCK_SIGNER_POW_DIFFICULTY } from './signer-pow.js';

/** `blocksToUseForAverageDifficultyCalculation` (v1 average from v11 on). */
export const V1_AVERAGE_BLOCKS = 40_320n;
/** `difficultyAdjustmentTimeInterval`: 14 days (v2). */
export const ADJUSTMENT_INTERVAL_SECONDS = 14 * 24 * 60 * 60;
/** `difficultyAdjustmentExpectedBlockCount` (v2 divides by at least this many blocks). */
export const EXPECTED_BLOCK_COUNT = 40_000n;
/** v2 caps one block's total signer difficulty at 4 × the last changed difficulty. */
const SPIKE_CAP = 4n;
/** The v1 regression kept for v10: below v11 only blocks within 30 of the new one count. */
const V10_WINDOW = 30n;
/** v12 and below stop the superblock walk 11 000 blocks back (a kept regression). */
const V12_WALK_LIMIT = 11_000n;
const OFFSET = 7n;

/** A superblock (or block 1) as the average needs it. */
export interface SuperBlockInfo {
  num: bigint;
  timestamp: number;
  /** Header signer bits (0 when absent). */
  signerBits: bigint;
  /** Previous superblock number (0 for block 1). */
  lastSuperBlockNum: bigint;
}

/** What {@link superBlockSignerDifficulty} reads. */
export interface SignerDifficultyInput {
  /** The superblock being made or checked (tip + 1, a multiple of the period). */
  blockNum: bigint;
  blockVersion: number;
  /** Version of the tip. */
  lastBlockVersion: number;
  /** The new superblock's timestamp. */
  timestamp: number;
  /** Total signer difficulty of block k (frozen list, or compacted total), undefined when not held. */
  totalSignerDifficultyOf: (k: bigint) => bigint | undefined;
  /** Superblock k (k = 1 for genesis), undefined when not held. */
  superBlock: (k: bigint) => SuperBlockInfo | undefined;
  period?: bigint;
  /** Lowest difficulty (minBlockSignerPowDifficulty, 10 000 000 coin; a devnet's genesis may lower it). */
  floor?: bigint;
}

const floorOf = (input: SignerDifficultyInput): bigint => input.floor ?? MIN_BLOCK_SIGNER_POW_DIFFICULTY;
const minBits = (input: SignerDifficultyInput): bigint => difficultyToBits(floorOf(input));

/** Difficulty a held superblock stands for (`getRequiredSignerDifficulty(block)`): block 1 and zero bits → the floor's bits. */
function superBlockDifficulty(input: SignerDifficultyInput, sb: SuperBlockInfo): bigint {
  return bitsToDifficulty(sb.num === 1n || sb.signerBits === 0n ? minBits(input) : sb.signerBits);
}

function need(input: SignerDifficultyInput, k: bigint): SuperBlockInfo {
  const sb = input.superBlock(k);
  if (!sb) throw new ConsensusError('ERR_CONSENSUS_INPUT', `signer difficulty of block ${input.blockNum}: superblock ${k} is not held`);
  return sb;
}

/** `findLastDifficultyChangedSuperBlock`: walk back from the previous superblock while the difficulty stays the same. */
export function lastDifficultyChange(input: SignerDifficultyInput): SuperBlockInfo {
  const period = input.period ?? SUPERBLOCK_PERIOD;
  if (input.blockNum === period) return need(input, 1n);
  let sb = need(input, input.blockNum - period);
  const diff = superBlockDifficulty(input, sb);
  while (sb.lastSuperBlockNum !== 0n) {
    const cmp = superBlockDifficulty(input, need(input, sb.lastSuperBlockNum));
    if (cmp !== diff) return sb;
    if (input.blockVersion <= 12 && input.blockNum - sb.num === V12_WALK_LIMIT) return sb;
    sb = need(input, sb.lastSuperBlockNum);
  }
  return sb;
}

const divideByCount = (total: bigint, count: bigint): bigint => (total * COIN) / (count * COIN); // IxiNumber ÷ ulong

/** Block-based average (`calculateRequiredSignerDifficulty_v1`). */
function averageV1(input: SignerDifficultyInput, period: bigint): bigint {
  const full = input.lastBlockVersion >= 11 && input.blockVersion >= 11;
  const toUse = full ? V1_AVERAGE_BLOCKS : period;
  let total = 0n;
  let count = 0n;
  for (let i = 0n; i < toUse; i++) {
    const k = input.blockNum - i - OFFSET;
    const d = k >= 1n ? input.totalSignerDifficultyOf(k) : undefined;
    if (d === undefined) break;
    if (full || i + OFFSET <= V10_WINDOW) total += d;
    count++;
  }
  if (input.blockVersion >= 11 && count !== toUse && (input.blockNum > toUse || input.blockNum - OFFSET !== count)) {
    throw new ConsensusError('ERR_CONSENSUS_INPUT', `signer difficulty of block ${input.blockNum}: ${count} blocks held, ${toUse} expected`);
  }
  if (count === 0n) return floorOf(input);
  if (input.blockNum < toUse) count = toUse;
  return divideByCount(total, count);
}

/** Time-based average (`calculateRequiredSignerDifficulty_v2`). */
function averageV2(input: SignerDifficultyInput, period: bigint): bigint {
  const changed = lastDifficultyChange(input);
  if (input.timestamp - changed.timestamp < ADJUSTMENT_INTERVAL_SECONDS) {
    // not enough time: the difficulty in force stays
    return input.blockNum === period ? bitsToDifficulty(minBits(input)) : superBlockDifficulty(input, need(input, input.blockNum - period));
  }
  const toUse = input.blockNum - changed.num;
  const cap = changed.signerBits > 0n ? (bitsToDifficulty(changed.signerBits) * (SPIKE_CAP * COIN)) / COIN : null;
  let total = 0n;
  let count = 0n;
  for (let i = 0n; i < toUse; i++) {
    const k = input.blockNum - i - OFFSET;
    let d = k >= 1n ? input.totalSignerDifficultyOf(k) : undefined;
    if (d === undefined) break;
    if (cap !== null && d > cap) d = cap;
    total += d;
    count++;
  }
  if (changed.num !== 1n && count !== toUse && input.blockNum - OFFSET !== count) {
    throw new ConsensusError('ERR_CONSENSUS_INPUT', `signer difficulty of block ${input.blockNum}: ${count} blocks held, ${toUse} expected`);
  }
  if (count === 0n) return floorOf(input);
  if (count < EXPECTED_BLOCK_COUNT) count = EXPECTED_BLOCK_COUNT;
  return divideByCount(total, count);
}

/**
 * The unadjusted required signer difficulty superblock `blockNum` sets: the v1 average when the tip
 * is v11 or the new block below v12, else the v2 average; then at most ×2 / at least ÷2 the last
 * superblock's (×4/÷4 above v13), never below 10 000 000 coin. Below block 8: the floor.
 * @throws ConsensusError ERR_CONSENSUS_INPUT when the chain lacks a block the reference requires.
 */
export function superBlockSignerDifficulty(input: SignerDifficultyInput): bigint {
  const period = input.period ?? SUPERBLOCK_PERIOD;
  if (input.blockNum < OFFSET + 1n) return floorOf(input);
  const proposed = input.lastBlockVersion === 11 || input.blockVersion < 12 ? averageV1(input, period) : averageV2(input, period);
  const last = input.superBlock(previousSuperBlock(input.blockNum, period));
  return boundSignerDifficultyChange(proposed, last ? last.signerBits : null, input.blockVersion, floorOf(input));
}

/** The signer bits a superblock's header carries: `difficultyToBits` of {@link superBlockSignerDifficulty}. */
export function superBlockSignerBits(input: SignerDifficultyInput): bigint {
  return difficultyToBits(superBlockSignerDifficulty(input));
}
