/**
 * Signing rewards (reference-formats.md §8.1 type 2, §8.7 `stk-` ids, §14 signing reward per
 * block and `rewardMaturity`, vector §15.7; DLT `BlockProcessor.generateStakingTransactions`):
 * block n (v10+) pays the signers of block n − 960 the signing reward of that block plus its
 * transaction fees, split by their solutions' difficulties in that block's frozen list, in one
 * StakingReward transaction that every node rebuilds and compares.
 */
import { transactionChecksum, transactionId, binaryTransactionId, type ChecksumLock } from '../codec/transaction.js';
import type { Transaction, TxOutput } from '../codec/types.js';
import { addressFromText } from '../formats/address.js';
import { COIN, divAmount, mulAmount } from '../formats/amount.js';
import { assertBytes } from '../formats/bytes.js';
import { INFINIMINE_ADDRESS, REWARD_MATURITY, TransactionType } from '../formats/constants.js';
import { encodeVarUint } from '../formats/varint.js';
import { ConsensusError } from './errors.js';

/** Version of the staking transactions of v10+ blocks (formats §8.2: v7 from block v10). */
const STAKING_TX_VERSION = 7;
/** The UTF-8 bytes of "Stake": the signature field of every staking transaction (§8.1). */
export const STAKE_SIGNATURE = new TextEncoder().encode('Stake');
/** Nonce of staking transactions: the generator passes 0. */
const STAKING_NONCE = 0;
/** The pseudo-address staking transactions are "from" (their pubKey field). */
export const STAKING_SOURCE_ADDRESS: Uint8Array = addressFromText(INFINIMINE_ADDRESS);
/** The remainder pass works in hundredths of a raw unit (the reference's × 100 … mod 100). */
const REMAINDER_SCALE = 100n;

/** Signing-reward schedule (§14, Δ2026): [first block not covered, reward in coin]. */
const FIXED_REWARDS: readonly [bigint, bigint][] = [
  [6_307_200n, 576n],
  [9_460_800n, 864n], // 288 + 576 (the reward of the ended Argon2 mining added)
  [12_614_400n, 432n], // 144 + 288
  [15_768_000n, 81n], // 72 + 9
  [105_120_000n, 45n], // 36 + 9
];
const FIRST_YEAR_END = 86_400n;
const SUPPLY_RATE_END = 1_802_000n;
const FINAL_REWARD = 36n;

/**
 * Signing reward of block `targetBlockNum` in raw units (`ConsensusConfig.calculateSigningRewardForBlock`):
 * up to block 86 400 `supply × 0.1 / 100 000 000`, below 1 802 000 `supply × 5 / 100 000 000`
 * (IxiNumber arithmetic, truncating at each step), then the fixed amounts of §14, 36 coin from
 * block 105 120 000.
 * @param currentSupply total supply in raw units (only the first two eras use it).
 */
export function signingRewardForBlock(targetBlockNum: bigint, currentSupply: bigint): bigint {
  if (typeof targetBlockNum !== 'bigint' || targetBlockNum < 0n) {
    throw new ConsensusError('ERR_CONSENSUS_INPUT', `target block: expected a non-negative bigint, got ${String(targetBlockNum)}`);
  }
  const hundredMillionCoin = 100_000_000n * COIN;
  if (targetBlockNum <= FIRST_YEAR_END) return divAmount(mulAmount(currentSupply, COIN / 10n), hundredMillionCoin);
  if (targetBlockNum < SUPPLY_RATE_END) return divAmount(mulAmount(currentSupply, 5n * COIN), hundredMillionCoin);
  for (const [end, reward] of FIXED_REWARDS) if (targetBlockNum < end) return reward * COIN;
  return FINAL_REWARD * COIN;
}

/**
 * The block whose signers block n rewards (`generateNewBlock` / `distributeStakingRewards`, v10+):
 * n − 960 when n > 961 (block 961 would reward block 1, which the generator skips: target < 2),
 * else null. The generator also pays nothing when block target − 1 is older than v10; the caller
 * checks that with its chain.
 * @param maturity the network's rewardMaturity (960; a devnet's genesis may shorten it).
 */
export function stakingRewardTarget(blockNum: bigint, maturity: bigint = BigInt(REWARD_MATURITY)): bigint | null {
  if (typeof blockNum !== 'bigint' || blockNum < 0n) {
    throw new ConsensusError('ERR_CONSENSUS_INPUT', `block number: expected a non-negative bigint, got ${String(blockNum)}`);
  }
  if (typeof maturity !== 'bigint' || maturity < 1n) throw new ConsensusError('ERR_CONSENSUS_INPUT', `reward maturity: expected a positive bigint, got ${String(maturity)}`);
  if (blockNum <= maturity + 1n) return null;
  return blockNum - maturity;
}

/** One signer of the rewarded block, in its frozen list order. */
export interface RewardSigner {
  /** Signer addressNoChecksum (33/45 bytes). */
  address: Uint8Array;
  /** Its solution's difficulty in raw units (a signature without a solution counts 1 coin). */
  difficulty: bigint;
}

/**
 * Splits `total` raw units among signers in proportion to their difficulties (§15.7):
 * p = floor(total × d × 100 / Σd); award = p div 100, remainder = p mod 100; the units left over
 * go one each to the signers with the largest remainders (a stable descending sort: on equal
 * remainders the earlier signer first). Returns the awards in the signers' order, or null when
 * Σd ≤ 0 (the reference then pays nothing).
 */
export function splitSigningReward(total: bigint, stakes: readonly bigint[]): bigint[] | null {
  if (typeof total !== 'bigint' || total < 0n) throw new ConsensusError('ERR_CONSENSUS_INPUT', `reward: expected a non-negative bigint, got ${String(total)}`);
  let staked = 0n;
  for (const s of stakes) staked += s;
  if (staked <= 0n) return null;
  const awards: bigint[] = [];
  const remainders: bigint[] = [];
  let awarded = 0n;
  for (const s of stakes) {
    const p = (total * s * REMAINDER_SCALE) / staked;
    remainders.push(p % REMAINDER_SCALE);
    awards.push(p / REMAINDER_SCALE);
    awarded += p / REMAINDER_SCALE;
  }
  let left = total - awarded;
  if (left > 0n) {
    const order = remainders.map((r, i) => ({ r, i })).sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
    for (let k = 0; left > 0n; k++, left--) awards[order[k % order.length]!.i]! += 1n;
  }
  return awards;
}

/** What the staking transaction of block n is built from. */
export interface StakingRewardInput {
  /** The rewarded block, n − 960. */
  targetBlockNum: bigint;
  /** The chain height when block n is made or applied (the tip, n − 1): the transaction's blockHeight. */
  tipHeight: bigint;
  /** Block n's timestamp (node-local metadata of the transaction). */
  timestamp: bigint;
  /** Total supply in raw units (used by the first two reward eras). */
  totalSupply: bigint;
  /** Sum of the transaction fees of the rewarded block (its header's totalFee, v11+). */
  targetTotalFee: bigint;
  /** The rewarded block's signers, from its frozen list (else its live list), in list order. */
  signers: readonly RewardSigner[];
}

/** The staking transaction of a block with what identifies it. */
export interface StakingReward {
  transaction: Transaction;
  /** Awards in the signers' order (zero awards get no output). */
  awards: bigint[];
  /** signing reward + fees that was split. */
  total: bigint;
  checksum: Uint8Array;
  /** `stk-<blockHeight − 5>-<blockHeight>-<base58(checksum)>`. */
  id: string;
  /** Binary id (prefix 0). */
  binaryId: Uint8Array;
}

/**
 * The StakingReward transaction block n carries for block n − 960 (v10+ form): version 7, type 2,
 * blockHeight = the tip, one input `{[0x00]: Σ awards}` (fee 0), one output per signer with a
 * non-zero award in frozen-list order, the first output carrying `data = varint(targetBlockNum)`
 * (not covered by the checksum, formats §8.4), nonce 0, pubKey = the InfiniMine address,
 * signature "Stake". Returns null when nothing is paid (no difficulty staked, or every award 0).
 * @param network checksum lock for the checksum and id.
 * @throws ConsensusError for negative amounts; TypeError for wrong types; RangeError when two
 *   signers share an address (the reference's dictionary would throw too).
 */
export function buildStakingReward(input: StakingRewardInput, network: ChecksumLock): StakingReward | null {
  for (const s of input.signers) assertBytes(s.address, 'signer address');
  const total = signingRewardForBlock(input.targetBlockNum, input.totalSupply) + input.targetTotalFee;
  const awards = splitSigningReward(total, input.signers.map((s) => s.difficulty));
  if (awards === null) return null;
  const outputs: TxOutput[] = [];
  const seen = new Set<string>();
  input.signers.forEach((s, i) => {
    const key = Buffer.from(s.address).toString('hex');
    if (seen.has(key)) throw new RangeError(`staking reward: signer ${key} appears twice in block ${input.targetBlockNum}'s list`);
    seen.add(key);
    if (awards[i]! > 0n) outputs.push({ address: s.address.slice(), amount: awards[i]! });
  });
  if (outputs.length === 0) return null;
  outputs[0]!.data = encodeVarUint(input.targetBlockNum);
  const amount = outputs.reduce((sum, o) => sum + o.amount, 0n);
  const transaction: Transaction = {
    version: STAKING_TX_VERSION,
    type: TransactionType.StakingReward,
    blockHeight: input.tipHeight,
    inputs: [{ key: Uint8Array.of(0), amount }],
    outputs,
    nonce: STAKING_NONCE,
    pubKey: STAKING_SOURCE_ADDRESS.slice(),
    signature: STAKE_SIGNATURE.slice(),
    applied: 0n,
    timestamp: input.timestamp,
  };
  const checksum = transactionChecksum(transaction, network);
  return {
    transaction,
    awards,
    total,
    checksum,
    id: transactionId(transaction, checksum),
    binaryId: binaryTransactionId(transaction, checksum),
  };
}
