/**
 * The signer PoW of a master's keep-alive (reference-network.md §3.3–§3.4, §10 keep 3: "a master
 * keep-alive must carry a valid signer PoW"; CORE `Presence.verifyPowSolution`,
 * `PresenceList.generateKeepAlive`).
 *
 * Receiving: the solution is over a block of our chain at most our tip (not "from the future") and
 * not expired (`solution block + validity ≥ tip`, the validity of the tip's block version: 30
 * blocks from v12, 120 before), and its hash — over that block's checksum and the keep-alive's
 * wallet address — reaches the minimum signer difficulty (§5.6). Note the window differs from a
 * block signature's (§5.2: strictly below the signed block): it is taken against the tip.
 *
 * Sending: a master attaches a solution with at least 7 blocks of validity left when it has one,
 * else its newest still valid, and makes a new keep-alive when the attached one expired.
 */
import type { CoreAccess } from '../core/blake2b.js';
import { ConsensusError } from './errors.js';
import {
  decodeSignerPowSolution, signerPowDifficulty, signerPowSolutionHash, signerPowValidityBlocks, type SignerPowSolution,
} from './signer-pow.js';

/** The chain as the keep-alive check reads it (src/chain/chain.ts `Chain`). */
export interface KeepAlivePowChain {
  readonly height: bigint;
  getBlock(num: bigint): { block: { version: number }; checksum: Uint8Array } | null;
}

/**
 * Why a keep-alive's solution does not count. `future` and `unknown-block` say more about our
 * chain (behind the sender's) than about the sender: a caller should ignore the keep-alive
 * rather than hold it against the peer.
 */
export type KeepAlivePowRejection = 'decode' | 'future' | 'expired' | 'unknown-block' | 'difficulty' | 'hash';

/** Blocks of validity a keep-alive's solution should still have (`generateKeepAlive`: minValidBlockHeight + 7). */
export const KEEPALIVE_POW_MARGIN_BLOCKS = 7n;

/**
 * Checks a master keep-alive's solution bytes for wallet `address` (addressNoChecksum) against our
 * chain. Never throws: anything malformed is a rejection.
 */
export function keepAlivePowVerdict(
  solutionBytes: Uint8Array,
  address: Uint8Array,
  chain: KeepAlivePowChain,
  minDifficulty: bigint,
  core?: CoreAccess,
): { ok: true; difficulty: bigint } | { ok: false; reason: KeepAlivePowRejection } {
  let solution: SignerPowSolution;
  try {
    solution = decodeSignerPowSolution(solutionBytes);
  } catch {
    return { ok: false, reason: 'decode' };
  }
  try {
    const tip = chain.height;
    if (solution.blockNum > tip) return { ok: false, reason: 'future' };
    const tipVersion = chain.getBlock(tip)?.block.version;
    if (tipVersion === undefined) return { ok: false, reason: 'unknown-block' };
    if (solution.blockNum + BigInt(signerPowValidityBlocks(tipVersion)) < tip) return { ok: false, reason: 'expired' };
    const block = chain.getBlock(solution.blockNum);
    if (!block) return { ok: false, reason: 'unknown-block' };
    const difficulty = signerPowDifficulty(signerPowSolutionHash(solution, block.checksum, address, core));
    return difficulty >= minDifficulty ? { ok: true, difficulty } : { ok: false, reason: 'difficulty' };
  } catch (e) {
    // A zero hash (ConsensusError), an address or checksum of the wrong size (RangeError/TypeError).
    return { ok: false, reason: e instanceof ConsensusError ? 'hash' : 'decode' };
  }
}

/** {@link keepAlivePowVerdict} as a yes/no: does this keep-alive's signer PoW count? Never throws. */
export function verifyKeepAlivePow(solutionBytes: Uint8Array, address: Uint8Array, chain: KeepAlivePowChain, minDifficulty: bigint, core?: CoreAccess): boolean {
  return keepAlivePowVerdict(solutionBytes, address, chain, minDifficulty, core).ok;
}

/**
 * Has the solution of our last keep-alive expired (`generateKeepAlive`: solution block + validity
 * < network height)? Then a new keep-alive is due. Unreadable bytes count as expired.
 */
export function keepAlivePowExpired(solutionBytes: Uint8Array, networkHeight: bigint, blockVersion: number): boolean {
  try {
    return decodeSignerPowSolution(solutionBytes).blockNum + BigInt(signerPowValidityBlocks(blockVersion)) < networkHeight;
  } catch {
    return true;
  }
}

/**
 * The solution a keep-alive carries (`generateKeepAlive`): of the miner's solutions (any order),
 * the oldest with at least {@link KEEPALIVE_POW_MARGIN_BLOCKS} blocks of validity left at the
 * network height, else the newest still valid; null when none is.
 */
export function pickKeepAliveSolution<T extends { solution: { blockNum: bigint } }>(
  solutions: readonly T[],
  networkHeight: bigint,
  blockVersion: number,
): T | null {
  const validity = BigInt(signerPowValidityBlocks(blockVersion));
  const minValid = networkHeight > validity ? networkHeight - validity : 0n;
  const sorted = [...solutions].sort((a, b) => (a.solution.blockNum < b.solution.blockNum ? -1 : a.solution.blockNum > b.solution.blockNum ? 1 : 0));
  return sorted.find((s) => s.solution.blockNum > minValid + KEEPALIVE_POW_MARGIN_BLOCKS)
    ?? sorted.filter((s) => s.solution.blockNum > minValid).pop()
    ?? null;
}
