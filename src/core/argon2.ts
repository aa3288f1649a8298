/**
 * Argon2id v1.3 (RFC 9106) from the WASM core.
 *
 * Memory for the block matrix is reserved once per core instance, grown only when a larger `m`
 * first arrives, and capped by `ARGON2_LIMITS` (practice B8); every parameter is range-checked
 * before any work, with the accepted range in the message.
 */
import { assertBytes } from '../formats/bytes.js';
import { blake2bAbsorb, kdf, type CoreAccess } from './blake2b.js';
import { coreInstance } from './instance.js';

/** Argon2 type ids (RFC 9106 §3.1, the `y` input of H0). */
export const ARGON2_TYPE_ID = 2;
/** Argon2 version 1.3 (RFC 9106 §3.1, the `v` input of H0). */
export const ARGON2_VERSION = 0x13;

export interface Argon2Options {
  /** Passes over memory, t. */
  timeCost: number;
  /** Memory in KiB, m (at least 8·parallelism). */
  memoryCost: number;
  /** Lanes, p. */
  parallelism: number;
  /** Tag length in bytes, T. */
  hashLength: number;
  /** Optional secret value K. */
  secret?: Uint8Array;
  /** Optional associated data X. */
  associatedData?: Uint8Array;
}

/**
 * Accepted ranges. The RFC allows more (m up to 2^32−1 KiB, t up to 2^32−1); these caps keep one
 * call bounded in memory and time. Raise `maxMemoryKiB` with `setArgon2Limits` if you need it
 * (stay well below the ~2 GiB practical WASM ceiling).
 */
export interface Argon2Limits {
  maxMemoryKiB: number;
  maxTimeCost: number;
  maxParallelism: number;
  maxHashLength: number;
}

/** Default 64 MiB / 32 passes / 64 lanes / 1024-byte tags; the PoW needs 2 MiB, 2, 2, 32. */
export const ARGON2_LIMITS: Readonly<Argon2Limits> = Object.freeze({
  maxMemoryKiB: 64 * 1024,
  maxTimeCost: 32,
  maxParallelism: 64,
  maxHashLength: 1024,
});
/** RFC 9106 §3.1 minimums; the salt minimum is the reference implementation's (ARGON2_MIN_SALT_LENGTH). */
const MIN_HASH_LENGTH = 4;
export const ARGON2_MIN_SALT_LENGTH = 8;
/** Largest memory cap accepted by setArgon2Limits: 1 GiB. */
const MAX_MEMORY_CAP_KIB = 1024 * 1024;

let limits: Argon2Limits = { ...ARGON2_LIMITS };

/** Changes the accepted ranges for this thread (partial update). Returns the new limits. */
export function setArgon2Limits(update: Partial<Argon2Limits>): Readonly<Argon2Limits> {
  const next = { ...limits, ...update };
  checkInt('maxMemoryKiB', next.maxMemoryKiB, 8, MAX_MEMORY_CAP_KIB);
  checkInt('maxTimeCost', next.maxTimeCost, 1, 0xffffffff);
  checkInt('maxParallelism', next.maxParallelism, 1, 0xffffff);
  checkInt('maxHashLength', next.maxHashLength, MIN_HASH_LENGTH, 1024 * 1024);
  limits = next;
  return { ...limits };
}

/** The ranges currently accepted on this thread. */
export function argon2Limits(): Readonly<Argon2Limits> {
  return { ...limits };
}

function checkInt(name: string, value: number, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`Argon2 ${name}: expected an integer ${min}..${max}, got ${String(value)}`);
  }
}

/** Validates t, m, p and T against RFC 9106 and the configured limits (no work done). */
export function checkArgon2Params(o: Pick<Argon2Options, 'timeCost' | 'memoryCost' | 'parallelism' | 'hashLength'>): void {
  if (o === null || typeof o !== 'object') throw new TypeError(`Argon2 options: expected an object, got ${o === null ? 'null' : typeof o}`);
  checkInt('parallelism', o.parallelism, 1, limits.maxParallelism);
  checkInt('timeCost', o.timeCost, 1, limits.maxTimeCost);
  checkInt('memoryCost (KiB)', o.memoryCost, 8 * o.parallelism, limits.maxMemoryKiB);
  checkInt('hashLength', o.hashLength, MIN_HASH_LENGTH, limits.maxHashLength);
}

/** Makes sure the instance has room for `memoryKiB` blocks (and the tag); grows memory at most once. */
export function reserveArgon2Memory(core: CoreAccess, memoryKiB: number, hashLength = 0): void {
  const blocks = Math.max(memoryKiB, Math.ceil(hashLength / 1024));
  if (!kdf(core).argon2Reserve(blocks)) {
    throw new RangeError(`Argon2: could not reserve ${blocks} KiB of WebAssembly memory`);
  }
}

/**
 * Argon2id v1.3 of `password` and `salt` (RFC 9106).
 * @throws TypeError for non-Uint8Array inputs; RangeError for parameters out of range (the
 *   message names the range), checked before any work.
 * @example argon2id(pw, salt, { timeCost: 2, memoryCost: 19456, parallelism: 1, hashLength: 32 })
 */
export function argon2id(password: Uint8Array, salt: Uint8Array, options: Argon2Options, core: CoreAccess = coreInstance()): Uint8Array {
  assertBytes(password, 'password');
  assertBytes(salt, 'salt');
  checkArgon2Params(options);
  const secret = options.secret ?? new Uint8Array(0);
  const ad = options.associatedData ?? new Uint8Array(0);
  assertBytes(secret, 'secret');
  assertBytes(ad, 'associatedData');
  if (salt.length < ARGON2_MIN_SALT_LENGTH) {
    throw new RangeError(`Argon2 salt: expected at least ${ARGON2_MIN_SALT_LENGTH} bytes, got ${salt.length}`);
  }
  const { timeCost: t, memoryCost: m, parallelism: p, hashLength: tag } = options;
  reserveArgon2Memory(core, m, tag);
  const e = kdf(core);
  // H0 (RFC 9106 §3.2 step 1): the six LE32 parameters, then LE32(len) ‖ bytes per input.
  e.argon2Begin(p, tag, m, t, ARGON2_VERSION, ARGON2_TYPE_ID);
  for (const field of [password, salt, secret, ad]) {
    e.blake2bUpdateLE32(field.length);
    blake2bAbsorb(core, field);
  }
  if (!e.argon2Finish(p, tag, m, t, ARGON2_VERSION, ARGON2_TYPE_ID)) {
    throw new RangeError(`Argon2: memory for m=${m} KiB is not reserved`);
  }
  return core.read(e.argon2Output(), tag);
}
