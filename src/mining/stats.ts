/**
 * The miner's counters as `minerstats` reports them (reference-client-methods.md `minerstats`,
 * `setBlockSelectionAlgorithm`): hash rate, search mode, the block and difficulty being searched,
 * blocks solved here, the last solved block and when.
 */

/** Block selection modes of the reference miner (−1 pauses it). */
export const SEARCH_MODES = ['lowestDifficulty', 'randomLowestDifficulty', 'latestBlock', 'random'] as const;
export type SearchModeName = (typeof SEARCH_MODES)[number];
/** `setBlockSelectionAlgorithm` value that pauses the miner. */
export const PAUSED = -1;
/** Text of the paused mode in `Search Mode`. */
export const PAUSED_MODE = 'paused';

/** What `minerstats` answers, member for member (values from real counters). */
export interface MinerStatsRecord {
  /** Nonces searched per second over the last measuring period. */
  Hashrate: number;
  'Search Mode': string;
  /** Block whose solution is being searched; 0 when none. */
  'Current Block': bigint;
  /** That block's difficulty. */
  'Current Difficulty': bigint;
  /** Claims this node submitted for its own solutions. */
  'Solved Blocks (Local)': number;
  /** Blocks of the redacted window whose PoW field is set. */
  'Solved Blocks (Network)': number;
  /** Blocks of the redacted window still without a solution. */
  'Empty Blocks': number;
  /** Number of the last block this node solved; 0 when none. */
  'Last Solved Block': bigint;
  /** Unix seconds this node last solved a block; 0 when never. */
  'Last Solved Block Time': number;
}

/** Counters of the built-in miner and of `submitminingsolution` (one per node). */
export class MinerStats {
  /** −1 paused, else an index of {@link SEARCH_MODES}. */
  algorithm = 0;
  hashrate = 0;
  currentBlock = 0n;
  currentDifficulty = 0n;
  solvedLocal = 0;
  lastSolvedBlock = 0n;
  lastSolvedTime = 0;

  get searchMode(): string {
    return this.algorithm === PAUSED ? PAUSED_MODE : SEARCH_MODES[this.algorithm] ?? PAUSED_MODE;
  }

  /** A solution of this node was submitted as a claim. */
  recordSolved(blockNum: bigint, unixSeconds: number): void {
    this.solvedLocal++;
    this.lastSolvedBlock = blockNum;
    this.lastSolvedTime = unixSeconds;
  }
}
