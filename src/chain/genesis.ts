/**
 * A network is defined by its genesis (DESIGN.md decision 7; issue 9): the network's checksum
 * lock, its name, the time of block 1, the funded addresses and the first masters. Every node of
 * the network builds block 1 from the same genesis, byte for byte, so the genesis checksum
 * identifies the network: a peer of another genesis is refused.
 *
 * Block 1 carries one Genesis transaction (type 3, reference-formats §8.1) in the reference's
 * shape (Ixian-DLT `Node.distributeGenesisFunds`): the InfiniMine address is its `pubKey` and its
 * one input `[0x00]` gives the whole allocation (so `from` is `{"1": total}`), the outputs are the
 * allocations, the fee 0. Nobody holds the InfiniMine key and no node verifies a genesis
 * signature (§8.8); the reference's mainnet block 1 carries the genesis node's signature over the
 * transaction checksum, which this node reproduces:
 * - the embedded network (`npm start`, no genesis file): the node signs it with its own key;
 * - a genesis-file network has no single node that makes block 1, so the signature is part of the
 *   file: `dltnode init --sign-with DIR` (and `dltnode devnet`, with its first master's wallet)
 *   signs the checksum once and writes it there, and every node copies it into block 1. A file
 *   without one gives an unsigned genesis transaction, as the reference's own `--genesis` start
 *   does (its InfiniMine "signer" has no key). The signature is outside the checksum and the txid
 *   (§8.4 row 8), so it never changes the block's checksum.
 * Every node builds block 1 itself from the file (`produceBlock` at the genesis time) and imports
 * it with source `genesis`, which needs no block signature; block 1 is never taken from a peer.
 */
import type { Network, Transaction } from '../codec/types.js';
import { infiniMineAddress } from '../formats/address.js';
import { TransactionType } from '../formats/constants.js';
import { TX_VERSION } from './constants.js';
import { knownTx } from './tx-codec.js';

export interface GenesisAllocation {
  /** `addressNoChecksum`. */
  address: Uint8Array;
  /** Raw CoinNumber. */
  amount: bigint;
}

export interface GenesisSpec {
  /** A name for people (devnet, staging…); part of the file, not of block 1. */
  name: string;
  /** Whose checksum lock the network's transactions and blocks carry (reference-formats §8.5). */
  network: Network;
  /** Unix seconds of block 1. */
  timestamp: bigint;
  /** Seconds between blocks on this network. */
  blockIntervalSeconds: number;
  allocations: GenesisAllocation[];
  /** `addressNoChecksum` of the masters; the first is the genesis node, which alone makes blocks 2–7 (reference-network §5.1). */
  masters: Uint8Array[];
  /**
   * Floor of the minimum signer-PoW difficulty (raw CoinNumber) of one block signature or master
   * keep-alive (reference-network §5.6 `minBlockSignerPowDifficulty`): the reference's 10 000 000
   * coin by default (about 10^7 hashes per solution); a devnet sets a small one so a master finds
   * a solution in well under a second.
   */
  minSignerDifficulty: bigint;
  /**
   * Blocks between a block and the staking reward that pays its signers (reference-formats §14
   * `rewardMaturity`): block n pays the signers of block n − rewardMaturity. Absent: the
   * reference's 960; a devnet may shorten it (at least {@link MIN_REWARD_MATURITY}).
   */
  rewardMaturity?: bigint;
  /** Every how many blocks a superblock comes (reference-network §5.8). Absent: the reference's 1000. */
  superBlockPeriod?: bigint;
  /** RSA signature of the genesis transaction's checksum by the network's creator (`genesisSignature`). */
  signature?: Uint8Array;
}

/**
 * Shortest reward maturity: block m's signature row is final once block m + 5 carries its freeze
 * checksum (reference-network §5.5), so the block that pays it must come after that one.
 */
export const MIN_REWARD_MATURITY = 6n;
/** Shortest superblock period a genesis may set: superblocks carry no ordinary transactions, so they stay the exception. */
export const MIN_SUPERBLOCK_PERIOD = 10n;

/** The Genesis transaction (type 3) of block 1: the initial funds, from the InfiniMine address, no fee. */
export function genesisTransaction(outputs: readonly GenesisAllocation[], timestamp: bigint, signature: Uint8Array | null = null): Transaction {
  const total = outputs.reduce((sum, o) => sum + o.amount, 0n);
  return {
    version: TX_VERSION,
    type: TransactionType.Genesis,
    blockHeight: 1n,
    inputs: [{ key: Uint8Array.of(0), amount: total }],
    outputs: outputs.map((o) => ({ address: o.address, amount: o.amount })),
    nonce: 0,
    pubKey: infiniMineAddress(),
    signature,
    applied: 0n,
    timestamp,
  };
}

/** The signature a genesis file carries: `sign` applied to the checksum of its genesis transaction. */
export function genesisSignature(spec: Pick<GenesisSpec, 'network' | 'allocations' | 'timestamp'>, sign: (checksum: Uint8Array) => Uint8Array): Uint8Array {
  return sign(knownTx(genesisTransaction(spec.allocations, spec.timestamp), spec.network).checksum);
}
