/**
 * Constants of the reference network (reference-formats.md §14, §8.1, §8.5, §8.9), defined once.
 * Amounts are raw CoinNumber units (10⁻⁸ coin, §5).
 */
import type { Network } from '../codec/types.js';

/** Numeric network types of the reference (§14). */
export const NETWORK_TYPE_IDS: Readonly<Record<Network, number>> = Object.freeze({ main: 0, test: 1, reg: 2 });

/**
 * Checksum locks (§8.5): raw UTF-8, no length prefix, prepended to transaction checksum preimages,
 * name-label hashing and signatures, so data of one network is never valid on another.
 */
export const CHECKSUM_LOCKS: Readonly<Record<Network, string>> = Object.freeze({
  main: 'Ixian',
  test: 'IxiTest',
  reg: 'IxiReg',
});

const LOCK_BYTES: Readonly<Record<Network, Uint8Array>> = Object.freeze({
  main: new TextEncoder().encode(CHECKSUM_LOCKS.main),
  test: new TextEncoder().encode(CHECKSUM_LOCKS.test),
  reg: new TextEncoder().encode(CHECKSUM_LOCKS.reg),
});

/** UTF-8 bytes of a network's checksum lock (a fresh copy). */
export function checksumLockBytes(network: Network): Uint8Array {
  const bytes = LOCK_BYTES[network];
  if (bytes === undefined) throw new RangeError(`unknown network ${JSON.stringify(network)}, expected main, test or reg`);
  return bytes.slice();
}

/** Transaction types (§8.1); `type` is a signed varint on the wire. */
export const TransactionType = Object.freeze({
  Normal: 0,
  PoWSolution: 1,
  StakingReward: 2,
  Genesis: 3,
  RegName: 4,
  MultisigTx: 997,
  ChangeMultisigWallet: 998,
  MultisigAddTxSignature: 999,
} as const);

/** Default API (RPC) and P2P ports of the reference node (§14). */
export const DEFAULT_PORTS = Object.freeze({
  main: Object.freeze({ p2p: 10234, api: 8081 }),
  test: Object.freeze({ p2p: 11234, api: 8181 }),
} as const);

/** Block interval and minimum gap, seconds (§14). */
export const BLOCK_INTERVAL_SECONDS = 30;
/** Largest accepted clock drift of a block into the future, seconds (§14). */
export const MAX_BLOCK_FUTURE_DRIFT_SECONDS = 60;
/** Redacted window of block versions 10 and later, in blocks (§14). */
export const REDACTED_WINDOW = 10_000;
export const SUPERBLOCK_INTERVAL = 1000;
/** First block version of the current fee price and dust limit (§8.9). */
export const BLOCK_VERSION_V10 = 10;

/** RSA size of wallet keys, bits (§6.1, §14). */
export const WALLET_RSA_BITS = 4096;
/** Public exponent of wallet keys. */
export const WALLET_RSA_PUBLIC_EXPONENT = 65537;

/** `transactionPrice`, block v10+ or unknown: 0.005 coin per started 1000 bytes (§8.9). */
export const TRANSACTION_PRICE = 500_000n;
/** `transactionPrice` before block v10: 0.00005 coin per started 1000 bytes (§8.9). */
export const TRANSACTION_PRICE_PRE_V10 = 5_000n;
/** `forceTransactionPrice`: the default fee per kB of transactions the node builds (§8.9). */
export const FORCE_TRANSACTION_PRICE = 500_000n;
/** Size unit of the fee rule: a fee is due for every started 1000 bytes (§8.9). */
export const FEE_SIZE_UNIT = 1000;
/** `transactionDustLimit`: 0.01 coin minimum per output, block v10+ (§8.9). */
export const TRANSACTION_DUST_LIMIT = 1_000_000n;
/** Share of fees paid to the foundation address, percent (§8.9). */
export const FOUNDATION_FEE_PERCENT = 3;
/** Largest serialized transaction, bytes (§8.2, §14). */
export const MAX_TRANSACTION_SIZE = 512_000;

/** `maximumTransactionsPerBlock` (§14, Δ2026). */
export const MAX_TRANSACTIONS_PER_BLOCK = 307_020;
/** `maximumBlockSize`, bytes (§14, Δ2026). */
export const MAX_BLOCK_SIZE = 4_194_304 + 307_020 * 66;
/** Height after which Argon2 mining solutions are no longer accepted (§14, Δ2026). */
export const ARGON2_EXPIRATION_BLOCK_HEIGHT = 6_307_200;
/** Blocks before a reward can be spent (§14). */
export const REWARD_MATURITY = 960;
export const MAX_BLOCK_SIGNERS = 1000;

/** Foundation address (§14). */
export const FOUNDATION_ADDRESS = '153xXfVi1sznPcRqJur8tutgrZecNVYGSzetp47bQvRfNuDix';
/** "InfiniMine" pseudo-address, recipient of PoW-solution transactions (§7.9). */
export const INFINIMINE_ADDRESS = '1ixianinfinimine234234234234234234234234234242HP';
/**
 * The name-operation address (`rnRewardPoolAddress`, §7.9): every name (type 4) transaction pays
 * its first output here.
 */
export const NAME_REWARD_POOL_ADDRESS = '125D6XDzTZzQUWsyQZmQZmQZmQZmQZmQZmQZmQZmQZmQb8t25';

/** Name-system constants (§14), in blocks unless stated. */
export const RN_MONTH_IN_BLOCKS = 86_400;
export const RN_MIN_REGISTRATION_BLOCKS = 518_400;
export const RN_MAX_REGISTRATION_BLOCKS = 2_102_400;
export const RN_GRACE_PERIOD_BLOCKS = 129_600;
/** Minimum capacity of a name, kB. */
export const RN_MIN_CAPACITY_KB = 10;
/** Price per kB of capacity per month: 500 coin (raw units). */
export const RN_PRICE_PER_UNIT = 50_000_000_000n;
/** Minimum price per unit: 10 coin (raw units). */
export const RN_MIN_PRICE_PER_UNIT = 1_000_000_000n;
export const RN_MAX_NAME_LENGTH = 256;
export const RN_MAX_RECORD_KEY_LENGTH = 256;
export const RN_MAX_SUBNAME_LEVELS = 1;
