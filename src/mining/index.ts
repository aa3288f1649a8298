/**
 * Mining on this node (reference-formats.md §11; reference-client-methods.md `minerstats`,
 * `submitminingsolution`): the miner's counters, the claim window and the solved/empty block counts.
 */
import type { Chain } from '../chain/chain.js';
import { REDACTED_WINDOW } from '../formats/constants.js';
import { countSolved } from './pow-field.js';
import { MinerStats, type MinerStatsRecord } from './stats.js';

export { MinerStats, PAUSED, SEARCH_MODES, type MinerStatsRecord } from './stats.js';

/** Claims are accepted for blocks within the redacted window minus this margin (§11.3). */
export const CLAIM_WINDOW_MARGIN = 100;
/** Blocks a claim may still target: `blocknum + redactedWindow − 100 ≥ tip` (§11.3). */
export const CLAIM_WINDOW = BigInt(REDACTED_WINDOW - CLAIM_WINDOW_MARGIN);

/** Lowest block a claim may target while the tip is `tip`. */
export const lowestClaimable = (tip: bigint): bigint => (tip > CLAIM_WINDOW ? tip - CLAIM_WINDOW : 1n);

/** The node's mining state, as the RPC sees it. */
export class Mining {
  readonly stats = new MinerStats();

  constructor(private readonly chain: Chain) {}

  /** `minerstats`, member for member. */
  minerStats(): MinerStatsRecord {
    const tip = this.chain.height;
    const from = lowestClaimable(tip);
    const inWindow = tip >= from ? Number(tip - from + 1n) : 0;
    const solved = countSolved(this.chain.store, from, tip);
    const s = this.stats;
    return {
      Hashrate: s.hashrate,
      'Search Mode': s.searchMode,
      'Current Block': s.currentBlock,
      'Current Difficulty': s.currentDifficulty,
      'Solved Blocks (Local)': s.solvedLocal,
      'Solved Blocks (Network)': solved,
      'Empty Blocks': inWindow - solved,
      'Last Solved Block': s.lastSolvedBlock,
      'Last Solved Block Time': s.lastSolvedTime,
    };
  }
}
