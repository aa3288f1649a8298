/**
 * The logical content of a transaction (reference-formats.md §8.3), shared by the codec, the
 * chain, the mempool and the RPC layer. Amounts are CoinNumber raw values: bigint counts of 10⁻⁸
 * coin (§5). 64-bit integers are bigint so they are never rounded.
 */

/** Network of a node; selects the checksum lock (reference-formats.md §8.5). */
export type Network = 'main' | 'test' | 'reg';

/** One `fromList` entry: a nonce key relative to the signer's primary address (§7.3) and an amount. */
export interface TxInput {
  /** `[0x00]` for the primary address itself, or a 16-byte address nonce. */
  key: Uint8Array;
  /** Raw CoinNumber (10⁻⁸ units). */
  amount: bigint;
}

/** One `toList` entry. */
export interface TxOutput {
  /** Recipient `addressNoChecksum` (33 or 45 bytes). */
  address: Uint8Array;
  /** Raw CoinNumber (10⁻⁸ units). */
  amount: bigint;
  /** Optional per-output payload; not covered by the v7 checksum (§8.4 row 5d). */
  data?: Uint8Array;
  /** Stored data checksum, written in the checksum slot only when `data` is absent (§8.4 row 5c). */
  dataChecksum?: Uint8Array;
}

export interface Transaction {
  version: number;
  /** 0 Normal, 1 PoWSolution, 2 StakingReward, 3 Genesis, 4 RegName, 997–999 multisig (§8.1). */
  type: number;
  blockHeight: bigint;
  inputs: TxInput[];
  outputs: TxOutput[];
  /** Signed 32-bit replay-protection nonce. */
  nonce: number;
  /** Full serialized public key or the signer's primary `addressNoChecksum`; null when absent. */
  pubKey: Uint8Array | null;
  /** RSA signature over the checksum; null when unsigned. */
  signature: Uint8Array | null;
  /** Block height at which it was applied; 0n when pending. Node-local metadata. */
  applied: bigint;
  /** Unix seconds of creation or receipt. Node-local metadata (on the v7 wire only for version < 7). */
  timestamp: bigint;
}
