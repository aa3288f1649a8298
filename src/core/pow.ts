/**
 * The mining proof of work of reference-formats.md §11 (`verifyNonce_v3` and its historical
 * variants §11.1), on the WASM core: password = block checksum ‖ solver address; the
 * 234,236-byte salt is built inside WASM from the nonce, so only ≤ 176 bytes cross per call.
 */
import { assertBytes, describeType } from '../formats/bytes.js';
import { ARGON2_MIN_SALT_LENGTH, reserveArgon2Memory } from './argon2.js';
import { kdf, type CoreAccess } from './blake2b.js';
import { coreInstance } from './instance.js';

/** Argon2id parameters of the current (v3) mining PoW, §11.1 step 4. */
export const POW_PARAMS = Object.freeze({
  timeCost: 2,
  memoryCost: 2048,
  parallelism: 2,
  hashLength: 32,
  /** Length of the expanded salt, §11.1 step 3; padding byte 0x23 ('#'). */
  saltLength: 234_236,
});

/** Parameters of one PoW algorithm generation (§11.1 "Older variants"). */
interface PowVariantParams {
  timeCost: number;
  memoryCost: number;
  parallelism: number;
  /** Salt = nonce padded with 0x23 to this length, or the nonce as is when 0. */
  saltLength: number;
  /**
   * Pass rule: hash ≤ ceiling(difficulty) ('ceiling'); the same but failing when the hash's first
   * 10 bytes equal the ceiling's ('ceilingV1', see powCheckV1); or at least `difficulty` leading
   * zero bits ('leadingZeroBits').
   */
  rule: 'ceiling' | 'ceilingV1' | 'leadingZeroBits';
}

/**
 * The variants by block version: v0 blocks `v0`, v1 `v1`, v2–v4 `v2`, v5+ `v3` (§11.1). For v0 and
 * v1 the nonce is the ASCII text of the nonce (pass its bytes); from v2 on it is binary.
 */
export type PowVariant = 'v0' | 'v1' | 'v2' | 'v3';

export const POW_VARIANTS: Readonly<Record<PowVariant, Readonly<PowVariantParams>>> = Object.freeze({
  v0: { timeCost: 1, memoryCost: 1024, parallelism: 4, saltLength: 0, rule: 'leadingZeroBits' },
  v1: { timeCost: 1, memoryCost: 1024, parallelism: 2, saltLength: 0, rule: 'ceilingV1' },
  v2: { timeCost: 1, memoryCost: 1024, parallelism: 2, saltLength: 0, rule: 'ceiling' },
  v3: { ...POW_PARAMS, rule: 'ceiling' },
});

/** Block checksum lengths: 32 (v0–v2 blocks), 44 (v3–v9), 64 (v10+), §10.2. */
const CHECKSUM_LENGTHS = [32, 44, 64];
/** Solver address lengths: v0 33/36, v1 and v2 45/48 bytes (without/with checksum), §7.1. */
const ADDRESS_LENGTHS = [33, 36, 45, 48];
/** Binary nonce 1..64 bytes (§11.1 step 2); ASCII nonces of v0/v1 blocks up to 128 characters. */
export const POW_MAX_NONCE = 64;
const MAX_ASCII_NONCE = 128;
const CEILING_PREFIX = 2; // two zero bytes before the inverted difficulty, §11.2
const DIFFICULTY_BYTES = 8;
const MAX_U64 = (1n << 64n) - 1n;

/** PoW variant used for a block of the given version (§11.1). */
export function powVariantForBlockVersion(blockVersion: number): PowVariant {
  if (typeof blockVersion !== 'number') {
    throw new TypeError(`block version: expected a number, got ${describeType(blockVersion)}`);
  }
  if (!Number.isInteger(blockVersion) || blockVersion < 0) {
    throw new RangeError(`block version: expected a non-negative integer, got ${String(blockVersion)}`);
  }
  if (blockVersion === 0) return 'v0';
  if (blockVersion === 1) return 'v1';
  return blockVersion <= 4 ? 'v2' : 'v3';
}

function checkLength(what: string, bytes: Uint8Array, allowed: number[]): void {
  if (!allowed.includes(bytes.length)) {
    throw new RangeError(`${what}: expected ${allowed.join(', ')} bytes, got ${bytes.length}`);
  }
}

function checkNonce(nonce: Uint8Array, variant: PowVariant): void {
  assertBytes(nonce, 'nonce');
  const max = variant === 'v0' || variant === 'v1' ? MAX_ASCII_NONCE : POW_MAX_NONCE;
  // The reference Argon2 library rejects salts under 8 bytes; unexpanded nonces are the salt.
  const min = POW_VARIANTS[variant].saltLength === 0 ? ARGON2_MIN_SALT_LENGTH : 1;
  if (nonce.length < min || nonce.length > max) {
    throw new RangeError(`nonce: expected ${min}..${max} bytes, got ${nonce.length}`);
  }
}

/** Is `nonce` a usable nonce for the variant (length 1..64 binary, 8..128 unexpanded ASCII)? */
export function powNonceValid(nonce: Uint8Array, variant: PowVariant): boolean {
  try {
    checkNonce(nonce, variant);
    return true;
  } catch {
    return false;
  }
}

/**
 * The PoW hash of one variant: Argon2id(blockChecksum ‖ solverAddress, salt(nonce)), 32 bytes.
 * @throws TypeError for non-Uint8Array inputs; RangeError for lengths outside §10.2/§7.1/§11.1.
 */
export function powHashVariant(
  variant: PowVariant,
  blockChecksum: Uint8Array,
  solverAddress: Uint8Array,
  nonce: Uint8Array,
  core: CoreAccess = coreInstance(),
): Uint8Array {
  const params = POW_VARIANTS[variant];
  if (!params) throw new RangeError(`PoW variant: expected v0, v1, v2 or v3, got ${String(variant)}`);
  assertBytes(blockChecksum, 'blockChecksum');
  assertBytes(solverAddress, 'solverAddress');
  checkLength('blockChecksum', blockChecksum, CHECKSUM_LENGTHS);
  checkLength('solverAddress', solverAddress, ADDRESS_LENGTHS);
  checkNonce(nonce, variant);
  const { timeCost, memoryCost, parallelism } = params;
  const hashLength = POW_PARAMS.hashLength;
  reserveArgon2Memory(core, memoryCost);
  const e = kdf(core);
  const input = e.powInput();
  const mem = core.bytes();
  mem.set(blockChecksum, input);
  mem.set(solverAddress, input + blockChecksum.length);
  const passwordLength = blockChecksum.length + solverAddress.length;
  mem.set(nonce, input + passwordLength);
  const saltLength = params.saltLength || nonce.length;
  if (!e.powHash(passwordLength, nonce.length, saltLength, timeCost, memoryCost, parallelism, hashLength)) {
    throw new RangeError(`PoW: Argon2 memory for m=${memoryCost} KiB is not reserved`);
  }
  return core.read(e.argon2Output(), hashLength);
}

/**
 * The current mining PoW hash (§11.1, blocks v5+): 32 bytes. Pass the 64-byte checksum and the
 * 45-byte address without checksum for v10+ blocks, the 44-byte checksum and 48-byte address with
 * checksum for v5–v9.
 * @example powHash(checksum, address, nonce) // Uint8Array(32)
 */
export function powHash(blockChecksum: Uint8Array, solverAddress: Uint8Array, nonce: Uint8Array, core?: CoreAccess): Uint8Array {
  return powHashVariant('v3', blockChecksum, solverAddress, nonce, core);
}

function checkDifficulty(difficulty: bigint): void {
  if (typeof difficulty !== 'bigint') {
    throw new TypeError(`difficulty: expected a bigint, got ${describeType(difficulty)}`);
  }
  if (difficulty < 0n || difficulty > MAX_U64) {
    throw new RangeError(`difficulty: expected an unsigned 64-bit integer 0..2^64-1, got ${difficulty}`);
  }
}

/**
 * The 32-byte hash ceiling of §11.2, as a big-endian number: `00 00`, then the bitwise NOT of
 * the u64 difficulty (most significant byte first), then 22 bytes `FF`. A hash passes iff it is
 * ≤ this ceiling. Higher difficulty → lower ceiling.
 * @example powCeiling(0n) // 0000 ffffffffffffffff ff…ff
 */
export function powCeiling(difficulty: bigint): Uint8Array {
  checkDifficulty(difficulty);
  const ceiling = new Uint8Array(POW_PARAMS.hashLength).fill(0xff);
  ceiling[0] = 0;
  ceiling[1] = 0;
  const inverted = ~difficulty & MAX_U64;
  for (let i = 0; i < DIFFICULTY_BYTES; i++) {
    ceiling[CEILING_PREFIX + i] = Number((inverted >> BigInt(8 * (DIFFICULTY_BYTES - 1 - i))) & 0xffn);
  }
  return ceiling;
}

/** Does `hash` pass `difficulty` under the ceiling rule (§11.2)? A hash shorter than 32 bytes fails. */
export function powCheck(hash: Uint8Array, difficulty: bigint): boolean {
  assertBytes(hash, 'hash');
  const ceiling = powCeiling(difficulty);
  if (hash.length < ceiling.length) return false;
  for (let i = 0; i < ceiling.length; i++) {
    if (hash[i] !== ceiling[i]) return ceiling[i]! > hash[i]!;
  }
  return true;
}

/** Bytes of the reference's ceiling array (`getHashCeilFromDifficulty`): 00 00 ‖ ~difficulty. */
const CEILING_ARRAY_BYTES = CEILING_PREFIX + DIFFICULTY_BYTES;

/**
 * The v1-block rule: the ceiling rule as the reference's Miner.validateHashInternal_v1 runs it. It
 * reads the 10-byte ceiling array past its end when the hash's first 10 bytes equal it, and the
 * exception makes the claim fail (TransactionPool.verifyPoWTransaction catches it: false).
 */
export function powCheckV1(hash: Uint8Array, difficulty: bigint): boolean {
  assertBytes(hash, 'hash');
  const ceiling = powCeiling(difficulty);
  if (hash.length < 1) return false;
  for (let i = 0; i < hash.length; i++) {
    if (i >= CEILING_ARRAY_BYTES) return false; // the out-of-range read: an exception, a failed claim
    if (hash[i] !== ceiling[i]) return ceiling[i]! > hash[i]!;
  }
  return true;
}

/**
 * The v0-block rule (§11.1): the hash has at least `bits` leading zero bits (most significant
 * bit of byte 0 first).
 */
export function hasLeadingZeroBits(hash: Uint8Array, bits: bigint): boolean {
  assertBytes(hash, 'hash');
  checkDifficulty(bits);
  if (bits > BigInt(hash.length * 8)) return false;
  let remaining = Number(bits);
  for (let i = 0; remaining > 0; i++, remaining -= 8) {
    const mask = remaining >= 8 ? 0xff : (0xff << (8 - remaining)) & 0xff;
    if ((hash[i]! & mask) !== 0) return false;
  }
  return true;
}

/** Bounds of the v0 rule's required zero bits (the reference's Miner.setDifficulty_v0). */
const V0_MIN_ZERO_BITS = 14n;
const V0_MAX_ZERO_BITS = 256n;

/**
 * Leading zero bits the v0 rule requires at a block difficulty, as the reference computes them
 * (Miner.validateHash_v0 → setDifficulty_v0): the u64 cast to a C# int (unchecked: its low 32
 * bits, signed), then clamped to 14..256. Difficulty 0 thus still asks for 14 zero bits.
 */
export function v0RequiredZeroBits(difficulty: bigint): bigint {
  checkDifficulty(difficulty);
  const bits = BigInt.asIntN(32, difficulty);
  return bits < V0_MIN_ZERO_BITS ? V0_MIN_ZERO_BITS : bits > V0_MAX_ZERO_BITS ? V0_MAX_ZERO_BITS : bits;
}

const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });
const ASCII_REPLACEMENT = 0x3f; // '?'

/**
 * The salt of a v0/v1 claim: the reference reads the claim's nonce bytes as UTF-8 text and hashes
 * that text's ASCII bytes (TransactionPool.verifyPoWTransaction: UTF8.GetString, then
 * verifyNonce_v0/v1: ASCII.GetBytes), so each character above 0x7F (and each U+FFFD standing for
 * a malformed sequence) becomes '?'. A nonce of ASCII bytes is returned as is.
 */
export function asciiNonce(nonce: Uint8Array): Uint8Array {
  assertBytes(nonce, 'nonce');
  if (nonce.every((b) => b < 0x80)) return nonce;
  const out: number[] = [];
  for (const ch of UTF8.decode(nonce)) {
    const code = ch.codePointAt(0)!;
    out.push(code < 0x80 ? code : ASCII_REPLACEMENT);
  }
  return Uint8Array.from(out);
}

/** The nonce a claim's variant hashes: its ASCII form for v0/v1 (`asciiNonce`), else the bytes as given. */
export function hashedNonce(variant: PowVariant, nonce: Uint8Array): Uint8Array {
  return variant === 'v0' || variant === 'v1' ? asciiNonce(nonce) : nonce;
}

/** One PoW claim to verify. `blockVersion` (default: current, v10+) selects the variant. */
export interface PowClaim {
  blockChecksum: Uint8Array;
  solverAddress: Uint8Array;
  nonce: Uint8Array;
  difficulty: bigint;
  blockVersion?: number;
}

/**
 * Checks a claim's types and sizes (the nonce only for type: a nonce of the wrong length is a
 * failed claim, not an error) and returns the PoW variant of its block version.
 * @throws TypeError / RangeError naming the bad field.
 */
export function powClaimVariant(claim: PowClaim): PowVariant {
  if (claim === null || typeof claim !== 'object') {
    throw new TypeError(`PoW claim: expected an object, got ${describeType(claim)}`);
  }
  const variant = claim.blockVersion === undefined ? 'v3' : powVariantForBlockVersion(claim.blockVersion);
  assertBytes(claim.blockChecksum, 'blockChecksum');
  assertBytes(claim.solverAddress, 'solverAddress');
  assertBytes(claim.nonce, 'nonce');
  checkLength('blockChecksum', claim.blockChecksum, CHECKSUM_LENGTHS);
  checkLength('solverAddress', claim.solverAddress, ADDRESS_LENGTHS);
  checkDifficulty(claim.difficulty);
  return variant;
}

/** Verifies a claim (already checked by `powClaimVariant`) under the given variant. */
export function powVerifyVariant(variant: PowVariant, claim: PowClaim, core?: CoreAccess): boolean {
  const nonce = hashedNonce(variant, claim.nonce);
  // rpc-messaging `verifyminingsolution` step 5: a nonce of the wrong length → false.
  if (!powNonceValid(nonce, variant)) return false;
  const hash = powHashVariant(variant, claim.blockChecksum, claim.solverAddress, nonce, core);
  switch (POW_VARIANTS[variant].rule) {
    case 'ceiling': return powCheck(hash, claim.difficulty);
    case 'ceilingV1': return powCheckV1(hash, claim.difficulty);
    case 'leadingZeroBits': return hasLeadingZeroBits(hash, v0RequiredZeroBits(claim.difficulty));
  }
}

/**
 * Verifies a claim as the reference node does: a nonce of the wrong length is a failed claim
 * (false), not an error; wrong types or checksum/address sizes throw.
 * @example powVerify({ blockChecksum, solverAddress, nonce, difficulty: 0xa2cb1211629f6141n })
 */
export function powVerify(claim: PowClaim, core?: CoreAccess): boolean {
  return powVerifyVariant(powClaimVariant(claim), claim, core);
}
