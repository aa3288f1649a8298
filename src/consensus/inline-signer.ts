/**
 * A block signer that finds its signer PoW solution when it needs one, on the calling thread
 * (reference-formats §12, reference-network §5.2): for block n it searches over block n − 1 with
 * an ephemeral RSA-2048 key until a hash reaches the minimum difficulty, and reuses the solution
 * while it stays inside the validity window. For tests and networks with a small minimum signer
 * difficulty; a master's background miner (signer-miner.ts) keeps a solution ready instead.
 */
import { generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { BlockSignature } from '../chain/block.js';
import type { Chain } from '../chain/chain.js';
import { signerPowChallengePrefix, signerPowSearch, SIGNER_POW_MINER_SOLUTION } from '../core/signer-pow.js';
import { publicKeyToBytes } from '../formats/rsa.js';
import { makeBlockSignature } from './block-signatures.js';
import { signerPowInWindow, signerPowTargetForDifficulty, type SignerPowSolution } from './signer-pow.js';

/** Hashes tried per call before giving up (the caller tries again at its next step). */
const SEARCH_LIMIT = 1 << 20;

export class InlineSignerPow {
  private key: { privateKey: KeyObject; publicKey: Uint8Array } | null = null;
  private solution: SignerPowSolution | null = null;

  constructor(
    private readonly o: {
      chain: Chain;
      address: Uint8Array;
      /** Minimum difficulty of one signature for block n (acceptance.minSignatureDifficulty). */
      minDifficulty(n: bigint): bigint;
    },
  ) {}

  private async signingKey(): Promise<{ privateKey: KeyObject; publicKey: Uint8Array }> {
    if (!this.key) {
      const { privateKey, publicKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048, publicExponent: 65537 });
      this.key = { privateKey, publicKey: publicKeyToBytes(publicKey) };
    }
    return this.key;
  }

  async signBlock(num: bigint, version: number, checksum: Uint8Array): Promise<BlockSignature | null> {
    const key = await this.signingKey();
    if (!this.solution || !signerPowInWindow(this.solution.blockNum, num, version)) this.solution = this.search(num - 1n, key.publicKey, this.o.minDifficulty(num));
    if (!this.solution) return null;
    return makeBlockSignature(checksum, this.o.address, this.solution, key.privateKey);
  }

  private search(over: bigint, signingPubKey: Uint8Array, minDifficulty: bigint): SignerPowSolution | null {
    const block = this.o.chain.getBlock(over);
    if (!block) return null;
    const prefix = signerPowChallengePrefix({ blockNum: over, blockChecksum: block.checksum, recipientAddress: this.o.address, signingPubKey });
    const found = signerPowSearch(prefix, new Uint8Array(SIGNER_POW_MINER_SOLUTION), signerPowTargetForDifficulty(minDifficulty), SEARCH_LIMIT);
    return found.solution ? { blockNum: over, solution: found.solution, signingPubKey } : null;
  }
}
