/**
 * Mining on this node (reference-formats.md §11; reference-client-methods.md `minerstats`,
 * `submitminingsolution`): the miner's counters, the claim window and the solved/empty block counts.
 */
import type { Chain } from '../chain/chain.js';
import { REDACTED_WINDOW } from '../formats/constants.js';
import { countSolved } from './pow-field.js';
import type { ChainEvents } from '../chain/chain.js';
import type { KnownTx } from '../chain/tx-codec.js';
import type { Clock } from '../clock.js';
import { signerAddressOf } from '../consensus/signer-pow.js';
import type { Emitter } from '../events.js';
import { TransactionType } from '../formats/constants.js';
import { decodeClaimData } from './claim.js';
import { MinerStats, relativeTimeText, type MinerStatsRecord } from './stats.js';

export { MinerStats, PAUSED, SEARCH_MODES, type MinerStatsRecord } from './stats.js';

/** Claims are accepted for blocks within the redacted window minus this margin (§11.3). */
export const CLAIM_WINDOW_MARGIN = 100;
/** Blocks a claim may still target: `blocknum + redactedWindow − 100 ≥ tip` (§11.3). */
export const CLAIM_WINDOW = BigInt(REDACTED_WINDOW - CLAIM_WINDOW_MARGIN);

/** Lowest block a claim may target while the tip is `tip`. */
export const lowestClaimable = (tip: bigint): bigint => (tip > CLAIM_WINDOW ? tip - CLAIM_WINDOW : 1n);

/** The block a claim (type 1) targets; null for another type or an unreadable claim, which never applies. */
function claimedBlockOf(k: KnownTx): bigint | null {
  if (k.tx.type !== TransactionType.PoWSolution) return null;
  try {
    return decodeClaimData(k.tx.outputs[0]?.data).blockNum;
  } catch {
    return null;
  }
}

/** The node's mining state, as the RPC sees it. */
export class Mining {
  readonly stats = new MinerStats();

  constructor(
    private readonly chain: Chain,
    private readonly isOwn: (address: Uint8Array) => boolean,
    events: Emitter<ChainEvents>,
    private readonly clock: Clock,
  ) {
    // Claims of this node's addresses applied in a block: the local solved count.
    events.on('blockImported', ({ txs }) => {
      for (const k of txs) {
        if (k.tx.type !== TransactionType.PoWSolution || !k.tx.pubKey) continue;
        const solver = signerAddressOf(k.tx.pubKey);
        if (!solver || !this.isOwn(solver)) continue;
        try {
          this.stats.recordSolved(decodeClaimData(k.tx.outputs[0]?.data).blockNum, Math.floor(this.clock.now() / 1000));
        } catch {
          // An unreadable claim never applies; nothing to count.
        }
      }
    });
  }

  /**
   * A claim for block `num` waiting in the pool, if any: this node submits one claim per block (a
   * block may apply several distinct solutions for one target, which then share its reward).
   */
  pendingClaimFor(pending: readonly KnownTx[], num: bigint): KnownTx | undefined {
    return pending.find((k) => claimedBlockOf(k) === num);
  }

  /** The blocks that claims waiting in the pool target (`getminingblock` skips them). */
  pendingClaimBlocks(pending: readonly KnownTx[]): Set<bigint> {
    const blocks = new Set<bigint>();
    for (const k of pending) {
      const num = claimedBlockOf(k);
      if (num !== null) blocks.add(num);
    }
    return blocks;
  }

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
      'Last Solved Block Time': s.lastSolvedTime === 0 ? 'Never' : relativeTimeText(this.clock.now(), s.lastSolvedTime * 1000),
    };
  }
}
