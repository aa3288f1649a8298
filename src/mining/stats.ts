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

/**
 * How long ago a time was, in the reference's words (CORE `Clock.getRelativeTime`: "5 seconds
 * ago", "a minute ago", "3 hours ago", "yesterday", "2 months ago", …), from the whole units of the
 * span; `minerstats`' "Last Solved Block Time".
 */
export function relativeTimeText(nowMs: number, thenMs: number): string {
  const spanMs = nowMs - thenMs;
  const delta = Math.abs(spanMs) / 1000;
  const whole = (unitMs: number, modulo: number) => Math.trunc(spanMs / unitMs) % modulo;
  if (delta < 60) {
    const seconds = whole(1000, 60);
    return seconds === 1 ? 'one second ago' : `${seconds} seconds ago`;
  }
  if (delta < 2 * 60) return 'a minute ago';
  if (delta < 45 * 60) return `${whole(60_000, 60)} minutes ago`;
  if (delta < 90 * 60) return 'an hour ago';
  if (delta < 24 * 3600) return `${whole(3_600_000, 24)} hours ago`;
  if (delta < 48 * 3600) return 'yesterday';
  const days = Math.trunc(spanMs / 86_400_000);
  if (delta < 30 * 86400) return `${days} days ago`;
  if (delta < 12 * 2592000) {
    const months = Math.floor(days / 30);
    return months <= 1 ? 'one month ago' : `${months} months ago`;
  }
  const years = Math.floor(days / 365);
  return years <= 1 ? 'one year ago' : `${years} years ago`;
}

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
  /** How long ago this node last solved a block ("5 minutes ago"); "Never" when it has not (the reference's text). */
  'Last Solved Block Time': string;
}

/** Counters of the built-in miner and of `submitminingsolution` (one per node). */
export class MinerStats {
  /** The search mode, an index of {@link SEARCH_MODES}; pausing keeps it (the reference's separate `pause` flag). */
  private mode = 0;
  private paused = false;
  hashrate = 0;
  currentBlock = 0n;
  currentDifficulty = 0n;
  solvedLocal = 0;
  lastSolvedBlock = 0n;
  lastSolvedTime = 0;

  /** −1 while paused, else the mode's index (`setBlockSelectionAlgorithm`: −1 pauses, 0–3 pick a mode and resume). */
  get algorithm(): number {
    return this.paused ? PAUSED : this.mode;
  }

  set algorithm(value: number) {
    if (value === PAUSED) this.paused = true;
    else if (SEARCH_MODES[value] !== undefined) {
      this.mode = value;
      this.paused = false;
    } else throw new RangeError(`search mode: expected -1 or 0..${SEARCH_MODES.length - 1}, got ${value}`);
  }

  /** `Search Mode`: the mode's name, also while paused (the reference prints its `searchMode`, which pausing leaves). */
  get searchMode(): SearchModeName {
    return SEARCH_MODES[this.mode]!;
  }

  /** A solution of this node was submitted as a claim. */
  recordSolved(blockNum: bigint, unixSeconds: number): void {
    this.solvedLocal++;
    this.lastSolvedBlock = blockNum;
    this.lastSolvedTime = unixSeconds;
  }
}
