/**
 * Consensus values of block production on this node that src/formats/constants.ts does not hold
 * (reference-formats.md §8.2, §8.3, §10.1, §11.2, §12; interface.md §Limits).
 */

/** Block version produced: the highest the reference generates today (§10.1, v13). */
export const BLOCK_VERSION = 13;
/** Transaction version accepted and produced in blocks ≥ v11 (§8.2). */
export const TX_VERSION = 7;
/** How far above the tip a tx's blockHeight may be (§8.3: "at most ~10 blocks above"). */
export const MAX_BLOCKHEIGHT_AHEAD = 10n;
/** Argon2 mining difficulty written into produced blocks: the documented minimum (§11.2). */
export const REG_MINING_DIFFICULTY = 0xa2cb1211629f6141n;
/** Signer bits of block 1 and superblocks: `maxTargetBits` ↔ difficulty 1 (§12). */
export const REG_SIGNER_BITS = 0x39ffffffffffffffn;
/** The signer difficulty `REG_SIGNER_BITS` stands for: 1.00000000 (raw CoinNumber, §12). */
export const REG_SIGNER_DIFFICULTY = 100_000_000n;
/** No block for this long → `DLT Status` ErrorLongTimeNoBlock (interface.md §Limits). */
export const NO_BLOCK_ERROR_SECONDS = 1800;
/** Oldest block version `importBlock` accepts: the v10+ layout this node decodes (reference-formats §10.3). */
export const MIN_IMPORT_BLOCK_VERSION = 10;
/**
 * Deepest tip revert: a different valid block within the last 5 blocks may replace ours
 * (reference-network §5.7; older blocks are final, §5.5). Undo records are kept this deep.
 */
export const MAX_REVERT_DEPTH = 5;
