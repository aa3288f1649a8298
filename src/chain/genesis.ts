/**
 * A network is defined by its genesis (DESIGN.md decision 7; issue 9): the network's checksum
 * lock, its name, the time of block 1, the funded addresses and the first masters. Every node of
 * the network builds block 1 from the same genesis, byte for byte, so the genesis checksum
 * identifies the network: a peer of another genesis is refused.
 *
 * Block 1 of a genesis network carries one Genesis transaction (type 3, reference-formats §8.1)
 * whose outputs are the allocations, no fee and no signature. Every node builds it itself from the
 * file (`produceBlock` at the genesis time) and imports it with source `genesis`, which needs no
 * signature; block 1 is never taken from a peer. The embedded network (`npm start`, no genesis
 * file) keeps its own block 1: one output to the node's wallet, signed by the node.
 */
import type { Network, Transaction } from '../codec/types.js';
import { TransactionType } from '../formats/constants.js';
import { TX_VERSION } from './constants.js';

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
}

/**
 * Shortest reward maturity: block m's signature row is final once block m + 5 carries its freeze
 * checksum (reference-network §5.5), so the block that pays it must come after that one.
 */
export const MIN_REWARD_MATURITY = 6n;
/** Shortest superblock period a genesis may set: superblocks carry no ordinary transactions, so they stay the exception. */
export const MIN_SUPERBLOCK_PERIOD = 10n;

/** The Genesis transaction (type 3) of block 1: the initial funds, no inputs, no signature. */
export function genesisTransaction(outputs: readonly GenesisAllocation[], timestamp: bigint): Transaction {
  return {
    version: TX_VERSION,
    type: TransactionType.Genesis,
    blockHeight: 1n,
    inputs: [],
    outputs: outputs.map((o) => ({ address: o.address, amount: o.amount })),
    nonce: 0,
    pubKey: null,
    signature: null,
    applied: 0n,
    timestamp,
  };
}
