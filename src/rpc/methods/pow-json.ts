/**
 * A SignerPowSolution as the reference's Newtonsoft writes it (CORE `Pow/SignerPowSolution.cs`),
 * inside a presence (`pl`, `getpresence`) and a block signature (`getblock` "Signatures"): the
 * fields `blockNum`, `solution`, `signingPubKey`, then the computed properties `checksum` (the
 * signer-PoW hash over block `blockNum` and the solver's address, reference-formats §12),
 * `difficulty` (CoinNumber text) and `bits`. Byte arrays are base64.
 */
import { ConsensusError } from '../../consensus/errors.js';
import { decodeSignerPowSolution, hashToBits, signerPowDifficulty, signerPowSolutionHash, type SignerPowSolution } from '../../consensus/signer-pow.js';
import { formatAmount } from '../../formats/amount.js';
import { toBase64 } from '../../formats/bytes.js';

/** The checksum of block `num` as this node holds it; null when it does not. */
export type BlockChecksumLookup = (num: bigint) => Uint8Array | null;

export interface SignerPowSolutionJson {
  blockNum: bigint;
  solution: string;
  signingPubKey: string;
  checksum: string | null;
  difficulty: string | null;
  bits: bigint | null;
}


/**
 * The JSON of a solution (its bytes or decoded) solved for `recipient` (an addressNoChecksum).
 * Where the hash cannot be computed (a block this node does not hold, a zero hash) `checksum`,
 * `difficulty` and `bits` are null, where the reference's serialiser would throw; bytes that do
 * not decode give null.
 */
export function signerPowSolutionJson(
  solution: Uint8Array | SignerPowSolution,
  recipient: Uint8Array,
  blockChecksum: BlockChecksumLookup,
): SignerPowSolutionJson | null {
  let s: SignerPowSolution;
  try {
    s = solution instanceof Uint8Array ? decodeSignerPowSolution(solution) : solution;
  } catch {
    return null;
  }
  let checksum: Uint8Array | null = null;
  let difficulty: string | null = null;
  let bits: bigint | null = null;
  const block = blockChecksum(s.blockNum);
  if (block) {
    try {
      checksum = signerPowSolutionHash(s, block, recipient);
      difficulty = formatAmount(signerPowDifficulty(checksum));
      bits = hashToBits(checksum);
    } catch (e) {
      // A zero hash or one past maxTargetHash (ConsensusError), an address of a size no hash takes (RangeError).
      if (!(e instanceof ConsensusError) && !(e instanceof RangeError)) throw e;
    }
  }
  return { blockNum: s.blockNum, solution: toBase64(s.solution), signingPubKey: toBase64(s.signingPubKey), checksum: checksum && toBase64(checksum), difficulty, bits };
}
