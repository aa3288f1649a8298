/**
 * The signer members of `status` (interface.md "status", verbose; DLT `APIServer` onStatus, from
 * block v10): `Signer Difficulty` — the required signer difficulty of the tip (its governing
 * superblock's bits, §5.6, unadjusted) —, `Signer Bits` — the required bits of the next block, as
 * the 8 little-endian bytes in hex —, and the signer miner's `Signer Hashrate`, `Signer Last PoW
 * Solution`, `Signer Active PoW Solution` (0 and `{}` on a node that does not mine).
 */
import { u64le } from '../chain/block.js';
import { formatAmount } from '../formats/amount.js';
import { toHex } from '../formats/bytes.js';
import { requiredSignerBits, signerBitsSourceBlock } from './rules.js';
import type { SignerMiner } from './signer-miner.js';
import { bitsToDifficulty } from './signer-pow.js';

/** The chain as these members read it (src/chain/chain.ts `Chain`). */
export interface SignerStatusChain {
  readonly height: bigint;
  getBlock(num: bigint): { block: { signerBits?: bigint } } | null;
}

/**
 * Required signer bits of block `num` (`getRequiredSignerBits`): its governing block's bits — for
 * a block above our last superblock, that superblock's —, or the minimum's when none are known.
 */
export function requiredSignerBitsOf(chain: SignerStatusChain, num: bigint): bigint {
  if (num < 1n) return requiredSignerBits(1n, null);
  let source = signerBitsSourceBlock(num);
  if (source > chain.height && chain.height >= 1n) source = signerBitsSourceBlock(chain.height);
  return requiredSignerBits(num, chain.getBlock(source)?.block.signerBits);
}

export function signerStatusMembers(chain: SignerStatusChain, miner: Pick<SignerMiner, 'statusMembers'> | undefined): Record<string, unknown> {
  const tip = chain.height;
  return {
    'Signer Difficulty': formatAmount(bitsToDifficulty(requiredSignerBitsOf(chain, tip))),
    'Signer Bits': toHex(u64le(requiredSignerBitsOf(chain, tip + 1n))),
    ...(miner ? miner.statusMembers() : { 'Signer Hashrate': 0, 'Signer Last PoW Solution': {}, 'Signer Active PoW Solution': {} }),
  };
}
