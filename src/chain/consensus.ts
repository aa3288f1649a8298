/**
 * Consensus constants the chain uses (reference-formats.md §8.9, §10.1, §14), defined once here.
 */
import { COIN } from '../formats/amount.js';

/** Block version produced: the highest the reference generates today (§10.1, v13). */
export const BLOCK_VERSION = 13;
/** Transaction version accepted and produced in blocks ≥ v11 (§8.2). */
export const TX_VERSION = 7;
/** Fee per started 1000 bytes of the signed full form (§8.9, block ≥ v10). */
export const TRANSACTION_PRICE = COIN / 200n; // 0.005
/** Bytes per fee unit (§8.9: per started 1000 bytes). */
export const FEE_UNIT_BYTES = 1000;
/** Smallest output of a Normal transaction (§8.9). */
export const DUST_LIMIT = COIN / 100n; // 0.01
/** Share of block fees paid to the foundation address (§8.9). */
export const FOUNDATION_FEE_PERCENT = 3n;
export const FOUNDATION_ADDRESS = '153xXfVi1sznPcRqJur8tutgrZecNVYGSzetp47bQvRfNuDix';
/** Redacted window of v10+ blocks (§14): how far below the tip a tx's blockHeight may be. */
export const REDACTED_WINDOW = 10_000n;
/** How far above the tip a tx's blockHeight may be (§8.3: "at most ~10 blocks above"). */
export const MAX_BLOCKHEIGHT_AHEAD = 10n;
/** Largest serialized transaction (§8.2). */
export const MAX_TX_BYTES = 512_000;
/** Argon2 mining difficulty written into produced blocks: the documented minimum (§11.2). */
export const REG_MINING_DIFFICULTY = 0xa2cb1211629f6141n;
/** Signer bits of block 1 and superblocks: `maxTargetBits` ↔ difficulty 1 (§12). */
export const REG_SIGNER_BITS = 0x39ffffffffffffffn;
/** Transactions per produced block at most (§14 maximumTransactionsPerBlock, 2026). */
export const MAX_TXS_PER_BLOCK = 307_020;
/** No block for this long → `DLT Status` ErrorLongTimeNoBlock (interface.md §Limits). */
export const NO_BLOCK_ERROR_SECONDS = 1800;
/** Transaction types (§8.1). */
export const TxType = { Normal: 0, PoWSolution: 1, StakingReward: 2, Genesis: 3, RegName: 4 } as const;
