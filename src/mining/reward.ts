/**
 * The reward of a mining claim (reference-formats.md §11.3, §14 `argon2ExpirationBlockHeight`).
 */
import { COIN } from '../formats/amount.js';

/** Claims end once the tip reaches this height (Δ2026, §14). */
export const ARGON2_EXPIRATION_BLOCK_HEIGHT = 6_307_200n;
/** First reward era: up to block 1 051 200 the reward grows with the block number. */
const ERA1_END = 1_051_200n;
/** Second era: the reward of block 1 051 200, fixed, up to block 1 802 000. */
const ERA2_END = 1_802_000n;
/** Third era's fixed reward: 2304 IXI. */
const ERA3_REWARD = 2304n * COIN;
/** Unit factor of the era formulas (raw units per formula unit). */
const FORMULA_UNIT = 100_000n;

/** Raw reward (10⁻⁸ IXI) of a claim for block `blockNum` (§11.3). */
export function miningReward(blockNum: bigint): bigint {
  if (blockNum < ERA1_END) return ((blockNum * 9n + 9n) / 2n + 10_000n) * FORMULA_UNIT;
  if (blockNum < ERA2_END) return ((ERA1_END * 9n) / 2n + 10_000n) * FORMULA_UNIT;
  if (blockNum < ARGON2_EXPIRATION_BLOCK_HEIGHT) return ERA3_REWARD;
  return 0n;
}
