/**
 * The signer proof of work of reference-formats.md §12 on the WASM core
 * (assembly/core/signer-pow.ts): `hash = sha3_512sq(challenge)` with
 * `challenge = varint(blockNum) ‖ blockChecksum ‖ recipient addressNoChecksum ‖ K ‖ solution`,
 * K = `sha3_512sq(signingPubKey)` for keys longer than 64 bytes, else the key itself.
 *
 * The constant part of the challenge (everything before the solution) is built once per block
 * ({@link signerPowChallengePrefix}); a search then tries `count` consecutive solutions inside
 * WASM per call ({@link signerPowSearch}), so a worker crosses the boundary once per batch.
 * What a hash is worth (difficulty, bits) is decided in src/consensus/signer-pow.ts.
 */
import { assertBytes, describeType } from '../formats/bytes.js';
import { encodeVarUint, U64_MAX } from '../formats/varint.js';
import type { CoreAccess } from './blake2b.js';
import { sha3_512sq } from './hash.js';
import { coreInstance } from './instance.js';

/** Length of a signer-PoW hash (sha3_512sq). */
export const SIGNER_POW_HASH_LENGTH = 64;
/** Longest solution (§12: 1–64 bytes). */
export const SIGNER_POW_MAX_SOLUTION = 64;
/** Length of the solutions the reference's built-in miner makes (§12). */
export const SIGNER_POW_MINER_SOLUTION = 32;
/** Longest signing key that is used as is in the challenge; longer keys are hashed (§12). */
export const SIGNER_POW_KEY_INLINE_MAX = 64;
/** Capacity of the WASM challenge window (assembly/core/signer-pow.ts SPOW_INPUT_SIZE). */
export const SIGNER_POW_WINDOW = 256;
/** Longest challenge prefix: varint 9 + checksum 64 + address 45 + K 64. */
export const SIGNER_POW_MAX_PREFIX = SIGNER_POW_WINDOW - SIGNER_POW_MAX_SOLUTION;
/** Largest batch of one search call: about a second of hashing at ~1 M hashes/s, so a worker stays responsive. */
export const SIGNER_POW_MAX_BATCH = 1 << 20;

/** Block checksum lengths the challenge accepts: 64 (v10+ blocks; the only ones with signer PoW). */
const CHECKSUM_LENGTH = 64;
/** Recipient addressNoChecksum: 33 (v0) or 45 (v1, v2) bytes (§7.1). */
const ADDRESS_LENGTHS = [33, 45];

/** The signer-PoW exports of the core program. */
interface SignerPowExports {
  signerPowInput(): number;
  signerPowTarget(): number;
  signerPowHashOutput(): number;
  signerPowBestHash(): number;
  signerPowBestSolution(): number;
  signerPowResetBest(): void;
  signerPowHash(length: number): void;
  signerPowSearch(prefixLength: number, solutionLength: number, count: number): number;
}

const exportsOf = (core: CoreAccess): SignerPowExports => core.exports as unknown as SignerPowExports;

/** What the challenge is made of, besides the solution. */
export interface SignerPowChallenge {
  /** Number of the block the solution is for. */
  blockNum: bigint;
  /** That block's 64-byte checksum. */
  blockChecksum: Uint8Array;
  /** The signer's (beneficiary's) addressNoChecksum, 33 or 45 bytes. */
  recipientAddress: Uint8Array;
  /** The ephemeral signing public key (serialized, §6.1), at most 300 bytes. */
  signingPubKey: Uint8Array;
}

/** K of §12: the key itself when it has at most 64 bytes, else its sha3_512sq. */
export function signingKeyDigest(signingPubKey: Uint8Array): Uint8Array {
  assertBytes(signingPubKey, 'signingPubKey');
  return signingPubKey.length > SIGNER_POW_KEY_INLINE_MAX ? sha3_512sq(signingPubKey) : signingPubKey.slice();
}

/**
 * The constant prefix of the challenge: `varint(blockNum) ‖ blockChecksum ‖ recipientAddress ‖ K`.
 * @throws TypeError for wrong types; RangeError for a blockNum outside u64, a checksum that is not
 *   64 bytes, an address that is not 33/45 bytes.
 */
export function signerPowChallengePrefix(c: SignerPowChallenge): Uint8Array {
  if (c === null || typeof c !== 'object') throw new TypeError(`signer PoW challenge: expected an object, got ${describeType(c)}`);
  if (typeof c.blockNum !== 'bigint') throw new TypeError(`blockNum: expected a bigint, got ${describeType(c.blockNum)}`);
  if (c.blockNum < 0n || c.blockNum > U64_MAX) throw new RangeError(`blockNum: expected 0..2^64-1, got ${c.blockNum}`);
  assertBytes(c.blockChecksum, 'blockChecksum');
  assertBytes(c.recipientAddress, 'recipientAddress');
  if (c.blockChecksum.length !== CHECKSUM_LENGTH) {
    throw new RangeError(`blockChecksum: expected ${CHECKSUM_LENGTH} bytes, got ${c.blockChecksum.length}`);
  }
  if (!ADDRESS_LENGTHS.includes(c.recipientAddress.length)) {
    throw new RangeError(`recipientAddress: expected an addressNoChecksum of 33 or 45 bytes, got ${c.recipientAddress.length}`);
  }
  const k = signingKeyDigest(c.signingPubKey);
  const num = encodeVarUint(c.blockNum);
  const out = new Uint8Array(num.length + c.blockChecksum.length + c.recipientAddress.length + k.length);
  out.set(num, 0);
  out.set(c.blockChecksum, num.length);
  out.set(c.recipientAddress, num.length + c.blockChecksum.length);
  out.set(k, num.length + c.blockChecksum.length + c.recipientAddress.length);
  return out;
}

function checkPrefix(prefix: Uint8Array): void {
  assertBytes(prefix, 'challenge prefix');
  if (prefix.length > SIGNER_POW_MAX_PREFIX) {
    throw new RangeError(`challenge prefix: expected at most ${SIGNER_POW_MAX_PREFIX} bytes, got ${prefix.length}`);
  }
}

function checkSolution(solution: Uint8Array): void {
  assertBytes(solution, 'solution');
  if (solution.length < 1 || solution.length > SIGNER_POW_MAX_SOLUTION) {
    throw new RangeError(`solution: expected 1..${SIGNER_POW_MAX_SOLUTION} bytes, got ${solution.length}`);
  }
}

/**
 * `sha3_512sq(prefix ‖ solution)`: the 64-byte signer-PoW hash, read as a little-endian number
 * by the difficulty rules.
 * @throws TypeError for non-Uint8Array inputs; RangeError for a solution outside 1..64 bytes or a
 *   prefix over SIGNER_POW_MAX_PREFIX bytes.
 * @example signerPowHash(signerPowChallengePrefix({ blockNum, blockChecksum, recipientAddress, signingPubKey }), solution)
 */
export function signerPowHash(prefix: Uint8Array, solution: Uint8Array, core: CoreAccess = coreInstance()): Uint8Array {
  checkPrefix(prefix);
  checkSolution(solution);
  const e = exportsOf(core);
  const input = e.signerPowInput();
  const mem = core.bytes();
  mem.set(prefix, input);
  mem.set(solution, input + prefix.length);
  e.signerPowHash(prefix.length + solution.length);
  return core.read(e.signerPowHashOutput(), SIGNER_POW_HASH_LENGTH);
}

/** What one search call found. */
export interface SignerPowSearchResult {
  /** The solution whose hash h satisfies 0 < h ≤ target (signed little-endian), or null. */
  solution: Uint8Array | null;
  /** Its hash, or null. */
  hash: Uint8Array | null;
  /** Solutions hashed by this call (the hit included). */
  tried: number;
  /** The solution to start the next call with (the one after the last tried). */
  next: Uint8Array;
  /** Lowest non-negative hash of this call and its solution (null when every hash was negative). */
  bestHash: Uint8Array | null;
  bestSolution: Uint8Array | null;
}

/** Adds one to a little-endian counter over all its bytes, wrapping (what the WASM search does). */
export function incrementSolution(solution: Uint8Array): Uint8Array {
  const out = solution.slice();
  for (let i = 0; i < out.length; i++) {
    out[i] = (out[i]! + 1) & 0xff;
    if (out[i] !== 0) break;
  }
  return out;
}

/**
 * Tries up to `count` solutions, `start` and its successors (a little-endian counter over the
 * solution bytes), against a 64-byte little-endian `target` (src/consensus/signer-pow.ts
 * `signerPowTargetForDifficulty`): stops at the first hash h with 0 < h ≤ target. Keeps the best
 * (lowest non-negative) hash of the call.
 * @throws TypeError / RangeError for bad types, lengths, or a count outside 1..SIGNER_POW_MAX_BATCH.
 */
export function signerPowSearch(
  prefix: Uint8Array,
  start: Uint8Array,
  target: Uint8Array,
  count: number,
  core: CoreAccess = coreInstance(),
): SignerPowSearchResult {
  checkPrefix(prefix);
  checkSolution(start);
  assertBytes(target, 'target');
  if (target.length !== SIGNER_POW_HASH_LENGTH) throw new RangeError(`target: expected 64 bytes, got ${target.length}`);
  if (typeof count !== 'number') throw new TypeError(`count: expected a number, got ${describeType(count)}`);
  if (!Number.isInteger(count) || count < 1 || count > SIGNER_POW_MAX_BATCH) {
    throw new RangeError(`count: expected an integer 1..${SIGNER_POW_MAX_BATCH}, got ${String(count)}`);
  }
  const e = exportsOf(core);
  const input = e.signerPowInput();
  let mem = core.bytes();
  mem.set(prefix, input);
  mem.set(start, input + prefix.length);
  mem.set(target, e.signerPowTarget());
  e.signerPowResetBest();
  const hit = e.signerPowSearch(prefix.length, start.length, count);
  mem = core.bytes();
  const at = input + prefix.length;
  const current = mem.slice(at, at + start.length);
  const bestHash = core.read(e.signerPowBestHash(), SIGNER_POW_HASH_LENGTH);
  const seen = !bestHash.every((b) => b === 0xff);
  return {
    solution: hit > 0 ? current : null,
    hash: hit > 0 ? core.read(e.signerPowHashOutput(), SIGNER_POW_HASH_LENGTH) : null,
    tried: hit > 0 ? hit : count,
    next: hit > 0 ? incrementSolution(current) : current,
    bestHash: seen ? bestHash : null,
    bestSolution: seen ? core.read(e.signerPowBestSolution(), start.length) : null,
  };
}
