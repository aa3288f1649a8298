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
  /** How long ago this node last solved a block, as the reference words it ("12 seconds ago"); "Never" before. */
  'Last Solved Block Time': string;
}

/** `Last Solved Block Time` before this node solved a block (the reference's word). */
export const NEVER_SOLVED = 'Never';

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86_400;

/**
 * How long before `nowSeconds` the moment `thenSeconds` was, in the reference's words and steps
 * (Ixian-Core Time/Clock.cs getRelativeTime, which `minerstats` shows): "a second ago",
 * "N seconds ago", "a minute ago", "N minutes ago" up to 45, "an hour ago", "N hours ago",
 * "yesterday", "N days ago", then months of 30 days and years of 365.
 */
export function relativeTime(thenSeconds: number, nowSeconds: number): string {
  const d = nowSeconds - thenSeconds;
  if (d < 0) return 'in the future';
  if (d < MINUTE) return d === 1 ? 'a second ago' : `${d} seconds ago`;
  if (d < 2 * MINUTE) return 'a minute ago';
  if (d < 45 * MINUTE) return `${Math.floor(d / MINUTE)} minutes ago`;
  if (d < 90 * MINUTE) return 'an hour ago';
  if (d < DAY) return `${Math.floor(d / HOUR)} hours ago`;
  if (d < 2 * DAY) return 'yesterday';
  if (d < 30 * DAY) return `${Math.floor(d / DAY)} days ago`;
  if (d < 12 * 30 * DAY) {
    const months = Math.floor(d / DAY / 30);
    return months <= 1 ? 'a month ago' : `${months} months ago`;
  }
  const years = Math.floor(d / DAY / 365);
  return years <= 1 ? 'a year ago' : `${years} years ago`;
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
  /** Unix seconds this node last solved a block; 0 when never. */
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
