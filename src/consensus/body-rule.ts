/**
 * The block-body rule of a genesis network (the chain's `BlockBodyRule`, reference-network §5.1,
 * §5.8): the staking reward block n owes the signers of block n − rewardMaturity, and the signer
 * bits of superblocks. Installing it also sends fees to the signers through that staking reward
 * instead of to the proposer (the reference's v10+ blocks). The embedded network installs none.
 */
import type { BlockBodyRule } from '../chain/chain.js';
import { stakingTransactionOf, type StakingSource } from './staking.js';
import { superBlockBitsOf, type SuperBlockSource } from './superblocks.js';

export type GenesisBodySource = StakingSource & SuperBlockSource;

export function genesisBodyRule(src: GenesisBodySource): BlockBodyRule {
  return {
    stakingReward: (num, timestamp) => stakingTransactionOf(src, num, timestamp),
    superBlockSignerBits: (num, version, timestamp) => superBlockBitsOf(src, num, version, timestamp),
  };
}
