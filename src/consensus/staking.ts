/**
 * Signing rewards on a genesis network, read from the chain (reference-network §5.1; formats §8.1
 * type 2, §8.7, §14; DLT `BlockProcessor.generateStakingTransactions`, `distributeStakingRewards`):
 * block n (v10+) carries, first, one StakingReward transaction that pays the signers of block
 * m = n − rewardMaturity the signing reward of block m plus m's totalFee (its transaction fees and
 * name reward, which the fee-paying block held back), split by their solutions' difficulties in
 * m's stored row — the frozen list once m + 5 was handled (§5.5), in its order.
 *
 * The proposer builds it and every node importing block n builds it again from its own chain and
 * compares (src/chain/chain.ts `checkBody`); both read only committed state of block n − 1.
 */
import type { Network } from '../codec/types.js';
import type { Chain } from '../chain/chain.js';
import { StoreCorruptionError } from '../chain/errors.js';
import { knownTx, type KnownTx } from '../chain/tx-codec.js';
import { latin1Key } from '../state/keys.js';
import { parseBlockSignature, storedEntryDifficulty } from './block-signatures.js';
import { buildStakingReward, stakingRewardTarget, type RewardSigner, type StakingReward } from './rewards.js';
import { signatureDifficulty } from './rules.js';

/** Staking transactions pay signers of v10+ blocks only (the generator skips a target whose predecessor is older). */
const MIN_STAKING_BLOCK_VERSION = 10;

/** What the staking reward of a block is computed from. */
export interface StakingSource {
  chain: Pick<Chain, 'getBlock' | 'supply'>;
  network: Network;
  /** Blocks between a block and the one that pays its signers (960, or a genesis file's). */
  rewardMaturity: bigint;
}

/**
 * The signers of stored block m with their solutions' difficulties, in row order (the reference's
 * `getSignaturesWalletAddressesWithDifficulty`: a signature without a solution counts 1 coin).
 * Entries that do not parse, or repeat a signer, are left out (a stored row holds verified entries only).
 */
export function rowSigners(chain: Pick<Chain, 'getBlock'>, m: bigint): RewardSigner[] {
  const stored = chain.getBlock(m);
  if (!stored) throw new StoreCorruptionError(`block ${m} is not held: its signers cannot be rewarded`);
  const out: RewardSigner[] = [];
  const seen = new Set<string>();
  for (const sig of stored.block.signatures) {
    let address: Uint8Array;
    try {
      address = parseBlockSignature(sig).address;
    } catch {
      continue;
    }
    // One entry per signer (a row never holds two; one in key form and one in address form would be the same signer).
    if (seen.has(latin1Key(address))) continue;
    seen.add(latin1Key(address));
    const difficulty = storedEntryDifficulty(sig, stored.block, (k) => chain.getBlock(k)?.checksum);
    out.push({ address, difficulty: signatureDifficulty(difficulty) });
  }
  return out;
}

/**
 * The StakingReward that block `num` (the next block: the chain's tip is num − 1) dated
 * `timestamp` carries, with what it pays; null when none is due (num ≤ rewardMaturity + 1, a
 * target whose predecessor is older than v10, or nothing to pay).
 */
export function stakingRewardOf(src: StakingSource, num: bigint, timestamp: bigint): StakingReward | null {
  const target = stakingRewardTarget(num, src.rewardMaturity);
  if (target === null) return null;
  const before = src.chain.getBlock(target - 1n);
  const rewarded = src.chain.getBlock(target);
  if (!before || !rewarded) throw new StoreCorruptionError(`blocks ${target - 1n}–${target} are not held: block ${num}'s staking reward cannot be computed`);
  if (before.block.version < MIN_STAKING_BLOCK_VERSION) return null;
  return buildStakingReward(
    {
      targetBlockNum: target,
      tipHeight: num - 1n,
      timestamp,
      // The sum of the balances after block num − 1 (the reference's `calculateTotalSupply`).
      totalSupply: src.chain.supply(),
      targetTotalFee: rewarded.block.totalFee,
      signers: rowSigners(src.chain, target),
    },
    src.network,
  );
}

/** {@link stakingRewardOf} as the transaction a block carries. */
export function stakingTransactionOf(src: StakingSource, num: bigint, timestamp: bigint): KnownTx | null {
  const reward = stakingRewardOf(src, num, timestamp);
  return reward ? knownTx(reward.transaction, src.network) : null;
}
