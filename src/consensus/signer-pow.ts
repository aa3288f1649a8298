/**
 * Signer proof of work (reference-formats.md §12, vectors §15.4; reference-network.md §5.2, §5.6):
 * the SignerPowSolution wire form, what a hash is worth (difficulty from the little-endian hash,
 * compact bits both ways), the validity window, and the check of a solution as a block signer
 * presents it. The hashing itself runs in the WASM core (src/core/signer-pow.ts).
 *
 * Numbers: a hash is read as a little-endian two's-complement integer (.NET `BigInteger(bytes)`);
 * difficulties are CoinNumber raw values (10⁻⁸ units, formats §5), so difficulty 1.00000000 is
 * 100 000 000n; bits are u64 bigints.
 *
 * One correction to §12's prose, decided by the [VERIFIED] vectors of §15.4 and the reference
 * constant (a 130-hex-digit string, 65 bytes): `maxTargetHash` has 0xFF in bytes **57–63** of a
 * 65-byte number, i.e. (2^56 − 1)·2^456, not bytes 56–62 of 64. Only this value reproduces
 * minHash → 65536.00000000 and maxTargetBits ↔ 1.00000000 (NOTES-consensus.md).
 */
import type { CoreAccess } from '../core/blake2b.js';
import { sha3_512sq } from '../core/hash.js';
import { signerPowChallengePrefix, signerPowHash, SIGNER_POW_MAX_SOLUTION } from '../core/signer-pow.js';
import { primaryAddressFromPublicKey } from '../formats/address.js';
import { amountToBytes, COIN } from '../formats/amount.js';
import { assertBytes, concatBytes, describeType } from '../formats/bytes.js';
import { FormatError } from '../formats/errors.js';
import { decodeVarUint, decodeVarUintNumber, encodeVarUint, U64_MAX, varUintLength } from '../formats/varint.js';
import { ConsensusError } from './errors.js';

/** `maxTargetBits`: the largest (easiest) compact target, difficulty 1.00000000 (§12). */
export const MAX_TARGET_BITS = 0x39ffffffffffffffn;
/** `maxTargetHash` = (2^56 − 1)·2^456 (see the file comment). */
export const MAX_TARGET_HASH = ((1n << 56n) - 1n) << 456n;
/** `minBlockSignerPowDifficulty`: 10 000 000 coin, raw (formats §14, reference-network §5.6). */
export const MIN_BLOCK_SIGNER_POW_DIFFICULTY = 10_000_000n * COIN;
/** Longest signing key a solution may carry (§12; the reference reader's bound). */
export const MAX_SIGNING_KEY_LENGTH = 300;
/** Signing keys longer than this are replaced by their sha3_512sq in compacted form (§12). */
const COMPACT_KEY_THRESHOLD = 64;
/** Solutions stay valid for this many blocks: 120 for blocks below v12 (§12, §14). */
export const SIGNER_POW_VALIDITY_BEFORE_V12 = 120;
/** … and 30 from v12 on. */
export const SIGNER_POW_VALIDITY_V12 = 30;
/** First block version with the 30-block window. */
const BLOCK_VERSION_V12 = 12;

/** A signer PoW solution as carried in a block signature entry or a master's presence. */
export interface SignerPowSolution {
  /** The block the proof of work was done over (strictly below the signed block). */
  blockNum: bigint;
  /** The nonce found by the miner, 1–64 bytes (32 from the reference miner). */
  solution: Uint8Array;
  /** The ephemeral RSA-2048 public key that signs blocks (or its sha3_512sq in compacted form). */
  signingPubKey: Uint8Array;
}

// ---- numbers ----

function checkBits(bits: bigint): void {
  if (typeof bits !== 'bigint') throw new TypeError(`bits: expected a bigint, got ${describeType(bits)}`);
  if (bits < 0n || bits > U64_MAX) throw new ConsensusError('ERR_SIGNER_POW_BITS', `bits: expected a u64, got ${bits}`);
}

function checkDifficulty(difficulty: bigint): void {
  if (typeof difficulty !== 'bigint') throw new TypeError(`difficulty: expected a bigint, got ${describeType(difficulty)}`);
  if (difficulty < 0n) throw new ConsensusError('ERR_SIGNER_POW_DIFFICULTY', `difficulty: cannot be negative, got ${difficulty}`);
}

/** A byte string read as a little-endian two's-complement integer (.NET `new BigInteger(bytes)`; empty → 0). */
export function leSignedToBigInt(bytes: Uint8Array): bigint {
  assertBytes(bytes, 'bytes');
  let v = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i]!);
  if (bytes.length > 0 && bytes[bytes.length - 1]! & 0x80) v -= 1n << BigInt(bytes.length * 8);
  return v;
}

/**
 * The minimal little-endian two's-complement bytes of an integer (.NET `BigInteger.ToByteArray`;
 * 0 → `00`): the same encoding as an amount's, so the same code.
 */
export const bigIntToLeSigned: (value: bigint) => Uint8Array = amountToBytes;

/**
 * Difficulty of a (little-endian) hash, raw CoinNumber: `floor(maxTargetHash·10⁸ / H)`; 0 for a
 * negative H (§12).
 * @throws ConsensusError ERR_SIGNER_POW_HASH for H = 0 (the reference divides by zero) or
 *   H > maxTargetHash (the reference throws "Hash too large"); neither occurs for a 64-byte hash
 *   other than all zeroes.
 * @example signerPowDifficulty(minHash) // 6_553_600_000_000n (65536.00000000)
 */
export function signerPowDifficulty(hash: Uint8Array): bigint {
  const h = leSignedToBigInt(hash);
  if (h < 0n) return 0n;
  if (h === 0n) throw new ConsensusError('ERR_SIGNER_POW_HASH', 'signer PoW hash is zero: it has no difficulty');
  if (h > MAX_TARGET_HASH) throw new ConsensusError('ERR_SIGNER_POW_HASH', 'signer PoW hash is larger than maxTargetHash');
  return (MAX_TARGET_HASH * COIN) / h;
}

/**
 * The hash (minimal little-endian bytes) standing for a difficulty: `maxTargetHash·10⁸ / d`, with
 * d below 1 raw unit taken as 1 (§12 `difficultyToHash`).
 * @throws ConsensusError ERR_SIGNER_POW_DIFFICULTY for a negative difficulty.
 */
export function difficultyToHash(difficulty: bigint): Uint8Array {
  checkDifficulty(difficulty);
  const d = difficulty < 1n ? 1n : difficulty;
  return bigIntToLeSigned((MAX_TARGET_HASH * COIN) / d);
}

/**
 * Compact bits of a little-endian hash (§12 `hashToBits`): the 7 bytes from the highest non-zero
 * one down, and their position in byte 7. Hashes shorter than 8 bytes are zero-padded.
 */
export function hashToBits(hash: Uint8Array): bigint {
  assertBytes(hash, 'hash');
  let h = hash;
  if (h.length < 8) {
    h = new Uint8Array(8);
    h.set(hash);
  }
  const len = h.length;
  let zeroes = 0;
  while (zeroes < len - 7 && h[len - 1 - zeroes] === 0) zeroes++;
  const firstPos = len - zeroes - 7;
  let bits = BigInt(firstPos & 0xff) << 56n;
  for (let i = 0; i < 7; i++) bits |= BigInt(h[firstPos + i]!) << BigInt(8 * i);
  return bits;
}

/**
 * The hash a compact bits value stands for (§12 `bitsToHash`): firstPos + 8 bytes, the 7 bytes at
 * offset firstPos (= byte 7 of the bits).
 * @throws ConsensusError ERR_SIGNER_POW_BITS above maxTargetBits or outside u64.
 */
export function bitsToHash(bits: bigint): Uint8Array {
  checkBits(bits);
  if (bits > MAX_TARGET_BITS) {
    throw new ConsensusError('ERR_SIGNER_POW_BITS', `bits 0x${bits.toString(16)} are above maxTargetBits 0x${MAX_TARGET_BITS.toString(16)}`);
  }
  const firstPos = Number(bits >> 56n);
  const hash = new Uint8Array(firstPos + 8);
  for (let i = 0; i < 7; i++) hash[firstPos + i] = Number((bits >> BigInt(8 * i)) & 0xffn);
  return hash;
}

/** Difficulty of compact bits: `signerPowDifficulty(bitsToHash(bits))`. maxTargetBits → 1.00000000. */
export function bitsToDifficulty(bits: bigint): bigint {
  return signerPowDifficulty(bitsToHash(bits));
}

/** Compact bits of a difficulty: `hashToBits(difficultyToHash(d))`. 10 000 000 coin → 0x3701AD7F29ABCAF4. */
export function difficultyToBits(difficulty: bigint): bigint {
  return hashToBits(difficultyToHash(difficulty));
}

/**
 * The 64-byte little-endian search target of a minimum difficulty: the largest H with
 * `floor(maxTargetHash·10⁸ / H) ≥ d`, i.e. `floor(maxTargetHash·10⁸ / d)`, capped at 2^511 − 1
 * (hashes are signed). A hash h passes iff 0 < h ≤ target (src/core/signer-pow.ts).
 */
export function signerPowTargetForDifficulty(minDifficulty: bigint): Uint8Array {
  checkDifficulty(minDifficulty);
  const cap = (1n << 511n) - 1n;
  let t = minDifficulty === 0n ? cap : (MAX_TARGET_HASH * COIN) / minDifficulty;
  if (t > cap) t = cap;
  const out = new Uint8Array(64);
  for (let i = 0; i < 64 && t > 0n; i++, t >>= 8n) out[i] = Number(t & 0xffn);
  return out;
}

// ---- wire form ----

/**
 * SignerPowSolution bytes (§12): `varint(blockNum) ‖ varint(len) ‖ solution ‖ varint(len) ‖ key`.
 * `compacted` (block signature entries in sig-freeze checksums and compacted blocks) replaces a key
 * longer than 64 bytes by its sha3_512sq.
 * @throws TypeError for wrong types; ConsensusError ERR_SIGNER_POW_DECODE for lengths the reader
 *   would refuse (solution 1–64, key ≤ 300 bytes, blockNum u64).
 */
export function encodeSignerPowSolution(s: SignerPowSolution, options: { compacted?: boolean } = {}): Uint8Array {
  checkSolutionShape(s);
  const key = options.compacted && s.signingPubKey.length > COMPACT_KEY_THRESHOLD ? sha3_512sq(s.signingPubKey) : s.signingPubKey;
  return concatBytes(
    encodeVarUint(s.blockNum),
    encodeVarUint(s.solution.length),
    s.solution,
    encodeVarUint(key.length),
    key,
  );
}

function checkSolutionShape(s: SignerPowSolution): void {
  if (s === null || typeof s !== 'object') throw new TypeError(`signer PoW solution: expected an object, got ${describeType(s)}`);
  if (typeof s.blockNum !== 'bigint') throw new TypeError(`blockNum: expected a bigint, got ${describeType(s.blockNum)}`);
  assertBytes(s.solution, 'solution');
  assertBytes(s.signingPubKey, 'signingPubKey');
  if (s.blockNum < 0n || s.blockNum > U64_MAX) throw new ConsensusError('ERR_SIGNER_POW_DECODE', `blockNum: expected a u64, got ${s.blockNum}`);
  if (s.solution.length < 1 || s.solution.length > SIGNER_POW_MAX_SOLUTION) {
    throw new ConsensusError('ERR_SIGNER_POW_DECODE', `solution: expected 1..${SIGNER_POW_MAX_SOLUTION} bytes, got ${s.solution.length}`);
  }
  if (s.signingPubKey.length > MAX_SIGNING_KEY_LENGTH) {
    throw new ConsensusError('ERR_SIGNER_POW_DECODE', `signingPubKey: expected at most ${MAX_SIGNING_KEY_LENGTH} bytes, got ${s.signingPubKey.length}`);
  }
}

/** Length of the encoded form (without building it). */
export function signerPowSolutionLength(s: SignerPowSolution): number {
  return varUintLength(s.blockNum) + varUintLength(s.solution.length) + s.solution.length +
    varUintLength(s.signingPubKey.length) + s.signingPubKey.length;
}

/**
 * Reads SignerPowSolution bytes. Stricter than the reference reader (NOTES-consensus.md): a
 * solution of 0 bytes, truncated fields and trailing bytes are errors instead of silently short
 * arrays; the reference never produces any of them.
 * @throws TypeError for a non-Uint8Array; ConsensusError ERR_SIGNER_POW_DECODE (naming the field
 *   and offset) for anything else.
 */
export function decodeSignerPowSolution(bytes: Uint8Array): SignerPowSolution {
  assertBytes(bytes, 'signer PoW solution bytes');
  try {
    const num = decodeVarUint(bytes, 0);
    const solLen = decodeVarUintNumber(bytes, num.next, SIGNER_POW_MAX_SOLUTION);
    if (solLen.value === 0) throw new ConsensusError('ERR_SIGNER_POW_DECODE', 'signer PoW solution: the solution is empty');
    const solEnd = solLen.next + solLen.value;
    if (solEnd > bytes.length) throw truncated('solution', solLen.next, solLen.value, bytes.length);
    const keyLen = decodeVarUintNumber(bytes, solEnd, MAX_SIGNING_KEY_LENGTH);
    const keyEnd = keyLen.next + keyLen.value;
    if (keyEnd > bytes.length) throw truncated('signingPubKey', keyLen.next, keyLen.value, bytes.length);
    if (keyEnd !== bytes.length) {
      throw new ConsensusError('ERR_SIGNER_POW_DECODE', `signer PoW solution: ${bytes.length - keyEnd} trailing bytes after the key`);
    }
    return {
      blockNum: num.value,
      solution: bytes.slice(solLen.next, solEnd),
      signingPubKey: bytes.slice(keyLen.next, keyEnd),
    };
  } catch (e) {
    if (e instanceof ConsensusError) throw e;
    if (e instanceof FormatError) throw new ConsensusError('ERR_SIGNER_POW_DECODE', `signer PoW solution: ${e.message}`);
    throw e;
  }
}

function truncated(field: string, at: number, length: number, total: number): ConsensusError {
  return new ConsensusError('ERR_SIGNER_POW_DECODE', `signer PoW solution: ${field} at offset ${at} has length ${length}, ${Math.max(0, total - at)} bytes available`);
}

// ---- hashing and checks ----

/**
 * The signer-PoW hash of a solution for a signer (§12): `sha3_512sq(varint(blockNum) ‖
 * blockChecksum ‖ recipientAddress ‖ K ‖ solution)`.
 * @param blockChecksum the 64-byte checksum of block `s.blockNum`.
 * @param recipientAddress the signer's addressNoChecksum (33/45 bytes).
 */
export function signerPowSolutionHash(
  s: SignerPowSolution,
  blockChecksum: Uint8Array,
  recipientAddress: Uint8Array,
  core?: CoreAccess,
): Uint8Array {
  checkSolutionShape(s);
  const prefix = signerPowChallengePrefix({ blockNum: s.blockNum, blockChecksum, recipientAddress, signingPubKey: s.signingPubKey });
  return signerPowHash(prefix, s.solution, core);
}

/** Blocks a solution stays valid for, by the version of the block it signs: 120 below v12, 30 from v12 (§12). */
export function signerPowValidityBlocks(blockVersion: number): number {
  if (!Number.isInteger(blockVersion) || blockVersion < 0) {
    throw new ConsensusError('ERR_CONSENSUS_INPUT', `block version: expected a non-negative integer, got ${String(blockVersion)}`);
  }
  return blockVersion < BLOCK_VERSION_V12 ? SIGNER_POW_VALIDITY_BEFORE_V12 : SIGNER_POW_VALIDITY_V12;
}

/**
 * Is a solution over block `solutionBlockNum` usable to sign block `blockNum` of version
 * `blockVersion`? Reference-network §5.2: strictly below the signed block and
 * `solutionBlockNum + validity ≥ blockNum`.
 */
export function signerPowInWindow(solutionBlockNum: bigint, blockNum: bigint, blockVersion: number): boolean {
  if (typeof solutionBlockNum !== 'bigint' || typeof blockNum !== 'bigint') {
    throw new TypeError('signerPowInWindow: expected bigint block numbers');
  }
  return solutionBlockNum < blockNum && solutionBlockNum + BigInt(signerPowValidityBlocks(blockVersion)) >= blockNum;
}

/**
 * The signer address named by a signature entry's signer field (§7.5): an addressNoChecksum
 * (33/45 bytes) as is, a public key (49–1023 bytes) → its primary address; anything else null.
 */
export function signerAddressOf(signerField: Uint8Array): Uint8Array | null {
  assertBytes(signerField, 'signer');
  const n = signerField.length;
  if ((n === 33 || n === 45) && signerField[0]! <= 2) return signerField.slice();
  if (n >= 49 && n <= 1023) {
    try {
      return primaryAddressFromPublicKey(signerField);
    } catch {
      return null;
    }
  }
  return null;
}

/** Why a solution does not count. */
export type SignerPowRejection = 'window' | 'difficulty' | 'hash';

/** Result of {@link verifySignerPow}. */
export interface SignerPowVerdict {
  ok: boolean;
  /** The solution's difficulty (raw), 0n when it could not be computed. */
  difficulty: bigint;
  /** Its compact bits (0n when not computed). */
  bits: bigint;
  reason?: SignerPowRejection;
}

/** What {@link verifySignerPow} checks a solution against. */
export interface SignerPowCheck {
  solution: SignerPowSolution;
  /** The 64-byte checksum of block `solution.blockNum` (from the local chain). */
  solutionBlockChecksum: Uint8Array;
  /** The signer's addressNoChecksum (the beneficiary named in the signature entry). */
  recipientAddress: Uint8Array;
  /** Number and version of the block being signed (validity window, §5.2). */
  signedBlockNum: bigint;
  signedBlockVersion: number;
  /** Minimum difficulty of one signature (reference-network §5.6 `minSignerPowDifficulty`, rules.ts). */
  minDifficulty: bigint;
}

/**
 * Does a solution count for signing block `signedBlockNum` (§5.2, §12): inside the validity
 * window, and difficulty ≥ the minimum. Never throws on content (an unusable hash is a rejection).
 * @throws TypeError / RangeError for wrong types or sizes of the arguments.
 */
export function verifySignerPow(check: SignerPowCheck, core?: CoreAccess): SignerPowVerdict {
  const { solution, solutionBlockChecksum, recipientAddress, signedBlockNum, signedBlockVersion, minDifficulty } = check;
  checkDifficulty(minDifficulty);
  checkSolutionShape(solution);
  if (!signerPowInWindow(solution.blockNum, signedBlockNum, signedBlockVersion)) return { ok: false, difficulty: 0n, bits: 0n, reason: 'window' };
  const hash = signerPowSolutionHash(solution, solutionBlockChecksum, recipientAddress, core);
  let difficulty: bigint;
  try {
    difficulty = signerPowDifficulty(hash);
  } catch (e) {
    if (e instanceof ConsensusError) return { ok: false, difficulty: 0n, bits: 0n, reason: 'hash' };
    throw e;
  }
  const bits = hashToBits(hash);
  return difficulty >= minDifficulty ? { ok: true, difficulty, bits } : { ok: false, difficulty, bits, reason: 'difficulty' };
}

/**
 * The bytes an RSA block signature covers (v10+, reference-network §5.2):
 * `sha3_512sq(blockChecksum ‖ solution.solution)`; they are then signed with RSA-PKCS1v15-SHA512
 * by the solution's signing key (formats/rsa.ts `signBytes` / `verifySignature`).
 */
export function blockSignatureDigest(blockChecksum: Uint8Array, solution: Uint8Array): Uint8Array {
  assertBytes(blockChecksum, 'blockChecksum');
  assertBytes(solution, 'solution');
  return sha3_512sq(concatBytes(blockChecksum, solution));
}
