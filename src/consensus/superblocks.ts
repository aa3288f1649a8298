/**
 * The signer bits a superblock sets for the next period (reference-network §5.8, §5.6), read from
 * the chain: `superBlockSignerBits` over the held superblocks and the total signer difficulty of
 * the blocks' stored rows. The proposer writes them into header row 9; every importer computes
 * them again and compares (DLT `BlockProcessor.verifyBlock`: `calculateRequiredSignerBits`).
 */
import type { Chain } from '../chain/chain.js';
import { superBlockSignerBits, type SuperBlockInfo } from './signer-difficulty.js';

export interface SuperBlockSource {
  chain: Pick<Chain, 'getBlock' | 'tip' | 'superBlockPeriod'>;
  /** Total signer difficulty of block k's stored row (the acceptance's `rowTally`). */
  rowTotalDifficulty(k: bigint): bigint;
  /** The network's floor of one signature's difficulty (a devnet's genesis may lower the reference's). */
  minSignerDifficulty?: bigint;
}

/** Superblock (or block 1) k as the signer-difficulty average reads it. */
function superBlockInfo(chain: SuperBlockSource['chain'], k: bigint): SuperBlockInfo | undefined {
  const stored = chain.getBlock(k);
  if (!stored) return undefined;
  const b = stored.block;
  return { num: k, timestamp: Number(b.timestamp), signerBits: b.signerBits ?? 0n, lastSuperBlockNum: b.superBlock?.lastSuperBlockNum ?? 0n };
}

/** Header signer bits of superblock `num` (the next block), version `version`, dated `timestamp`. */
export function superBlockBitsOf(src: SuperBlockSource, num: bigint, version: number, timestamp: bigint): bigint {
  const { chain } = src;
  return superBlockSignerBits({
    blockNum: num,
    blockVersion: version,
    lastBlockVersion: chain.tip?.block.version ?? version,
    timestamp: Number(timestamp),
    totalSignerDifficultyOf: (k) => (chain.getBlock(k) ? src.rowTotalDifficulty(k) : undefined),
    superBlock: (k) => superBlockInfo(chain, k),
    period: chain.superBlockPeriod,
    ...(src.minSignerDifficulty !== undefined ? { floor: src.minSignerDifficulty } : {}),
  });
}
