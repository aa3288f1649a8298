/**
 * The hash primitives of reference-formats §2 from the WASM core (assembly/core/sha3.ts, sha512.ts):
 * SHA3-256 and SHA3-512 (FIPS 202, not Keccak), SHA-512 (FIPS 180-4), and the reference network's
 * double hashes `sha3_512sq`, `sha3_512sqTrunc` and `sha512sqTrunc`.
 *
 * Each call copies the input into the core's input window and hashes it in one WASM call; inputs
 * larger than the window stream through it in window-sized chunks. Every call returns a fresh
 * Uint8Array.
 */
import { describeType } from '../formats/bytes.js';
import { CoreInstance, coreInstance } from './instance.js';

/** Default output length of the truncated double hashes (reference-formats §2). */
export const SQ_TRUNC_DEFAULT_LENGTH = 44;
const SHA3_256_BYTES = 32;
const DIGEST_512_BYTES = 64;

/** The hash exports of the core program (assembly/core/sha3.ts and sha512.ts). */
interface HashExports {
  hash_input_window(): number;
  hash_input_window_size(): number;
  hash_output_window(): number;
  sha3_256_into(inPtr: number, length: number, outPtr: number): void;
  sha3_512_into(inPtr: number, length: number, outPtr: number): void;
  sha3_512sqTrunc_into(inPtr: number, length: number, outPtr: number, outLength: number): void;
  sha3_init(digestLength: number): void;
  sha3_update(inPtr: number, length: number): void;
  sha3_final(outPtr: number): void;
  sha512_into(inPtr: number, length: number, outPtr: number): void;
  sha512sqTrunc_into(inPtr: number, length: number, outPtr: number, outLength: number): void;
  sha512_init(): void;
  sha512_update(inPtr: number, length: number): void;
  sha512_final(outPtr: number): void;
}

/** The six hash functions, bound to one core instance. */
export interface HashFunctions {
  sha3_256(data: Uint8Array): Uint8Array;
  sha3_512(data: Uint8Array): Uint8Array;
  sha3_512sq(data: Uint8Array): Uint8Array;
  sha3_512sqTrunc(data: Uint8Array, length?: number): Uint8Array;
  sha512(data: Uint8Array): Uint8Array;
  sha512sqTrunc(data: Uint8Array, length?: number): Uint8Array;
}

function notBytes(fn: string, data: unknown): TypeError {
  return new TypeError(`${fn}: expected data as a Uint8Array, got ${describeType(data)}`);
}

/** Checks a truncation length: an integer from 1 to 64. */
function checkTruncLength(fn: string, length: unknown): number {
  if (typeof length !== 'number') {
    throw new TypeError(`${fn}: expected length as a number, got ${describeType(length)}`);
  }
  if (!Number.isInteger(length) || length < 1 || length > DIGEST_512_BYTES) {
    throw new RangeError(`${fn}: expected length to be an integer from 1 to ${DIGEST_512_BYTES}, got ${length}`);
  }
  return length;
}

/**
 * The hash functions of one core instance. The node uses the thread's instance through the
 * module-level functions below; tests and benchmarks bind a specific build (SIMD or scalar).
 */
export function createHashFunctions(core: CoreInstance): HashFunctions {
  const e = core.exports as unknown as HashExports;
  const input = e.hash_input_window();
  const window = e.hash_input_window_size();
  const output = e.hash_output_window();

  /** Streams `data` through the input window into the core's streaming state. */
  function absorb(data: Uint8Array, update: (inPtr: number, length: number) => void): void {
    for (let offset = 0; offset < data.length; offset += window) {
      const chunk = data.subarray(offset, offset + window);
      core.bytes().set(chunk, input);
      update(input, chunk.length);
    }
  }
  /** SHA3 of a larger-than-window input, digest left in the output window. */
  function streamSha3(data: Uint8Array, digestLength: number): void {
    e.sha3_init(digestLength);
    absorb(data, e.sha3_update);
    e.sha3_final(output);
  }
  function streamSha512(data: Uint8Array): void {
    e.sha512_init();
    absorb(data, e.sha512_update);
    e.sha512_final(output);
  }

  return {
    sha3_256(data) {
      if (!(data instanceof Uint8Array)) throw notBytes('sha3_256', data);
      const mem = core.bytes();
      if (data.length <= window) {
        mem.set(data, input);
        e.sha3_256_into(input, data.length, output);
      } else streamSha3(data, SHA3_256_BYTES);
      return core.bytes().slice(output, output + SHA3_256_BYTES);
    },
    sha3_512(data) {
      if (!(data instanceof Uint8Array)) throw notBytes('sha3_512', data);
      const mem = core.bytes();
      if (data.length <= window) {
        mem.set(data, input);
        e.sha3_512_into(input, data.length, output);
      } else streamSha3(data, DIGEST_512_BYTES);
      return core.bytes().slice(output, output + DIGEST_512_BYTES);
    },
    sha3_512sq(data) {
      if (!(data instanceof Uint8Array)) throw notBytes('sha3_512sq', data);
      return sha3SqTrunc(data, DIGEST_512_BYTES);
    },
    sha3_512sqTrunc(data, length = SQ_TRUNC_DEFAULT_LENGTH) {
      if (!(data instanceof Uint8Array)) throw notBytes('sha3_512sqTrunc', data);
      return sha3SqTrunc(data, checkTruncLength('sha3_512sqTrunc', length));
    },
    sha512(data) {
      if (!(data instanceof Uint8Array)) throw notBytes('sha512', data);
      const mem = core.bytes();
      if (data.length <= window) {
        mem.set(data, input);
        e.sha512_into(input, data.length, output);
      } else streamSha512(data);
      return core.bytes().slice(output, output + DIGEST_512_BYTES);
    },
    sha512sqTrunc(data, length = SQ_TRUNC_DEFAULT_LENGTH) {
      if (!(data instanceof Uint8Array)) throw notBytes('sha512sqTrunc', data);
      const n = checkTruncLength('sha512sqTrunc', length);
      const mem = core.bytes();
      if (data.length <= window) {
        mem.set(data, input);
        e.sha512sqTrunc_into(input, data.length, output, n);
      } else {
        streamSha512(data);
        e.sha512_into(output, DIGEST_512_BYTES, output);
      }
      return core.bytes().slice(output, output + n);
    },
  };

  function sha3SqTrunc(data: Uint8Array, length: number): Uint8Array {
    const mem = core.bytes();
    if (data.length <= window) {
      mem.set(data, input);
      e.sha3_512sqTrunc_into(input, data.length, output, length);
    } else {
      streamSha3(data, DIGEST_512_BYTES);
      e.sha3_512_into(output, DIGEST_512_BYTES, output);
    }
    return core.bytes().slice(output, output + length);
  }
}

let threadHashes: HashFunctions | undefined;
/** The hash functions of this thread's core instance (instantiated on first use). */
const hashes = (): HashFunctions => (threadHashes ??= createHashFunctions(coreInstance()));

/**
 * SHA3-256 (FIPS 202) of `data`: 32 bytes.
 * @throws TypeError when `data` is not a Uint8Array.
 * @example sha3_256(new TextEncoder().encode('ixian')) // b0eca25a…
 */
export function sha3_256(data: Uint8Array): Uint8Array {
  return hashes().sha3_256(data);
}

/**
 * SHA3-512 (FIPS 202) of `data`: 64 bytes.
 * @throws TypeError when `data` is not a Uint8Array.
 */
export function sha3_512(data: Uint8Array): Uint8Array {
  return hashes().sha3_512(data);
}

/**
 * `sha3_512sq` = SHA3-512(SHA3-512(data)): 64 bytes (block checksums, name hashes).
 * @throws TypeError when `data` is not a Uint8Array.
 */
export function sha3_512sq(data: Uint8Array): Uint8Array {
  return hashes().sha3_512sq(data);
}

/**
 * `sha3_512sqTrunc` = the first `length` bytes of SHA3-512(SHA3-512(data)) (v7 transaction checksum,
 * v2 addresses, `sign`/`verify` messages).
 * @param length 1 to 64, default 44.
 * @throws TypeError when `data` is not a Uint8Array or `length` not a number; RangeError when
 *   `length` is not an integer from 1 to 64.
 */
export function sha3_512sqTrunc(data: Uint8Array, length = SQ_TRUNC_DEFAULT_LENGTH): Uint8Array {
  return hashes().sha3_512sqTrunc(data, length);
}

/**
 * SHA-512 (FIPS 180-4) of `data`: 64 bytes.
 * @throws TypeError when `data` is not a Uint8Array.
 */
export function sha512(data: Uint8Array): Uint8Array {
  return hashes().sha512(data);
}

/**
 * `sha512sqTrunc` = the first `length` bytes of SHA-512(SHA-512(data)) (address checksums, legacy
 * transaction checksums).
 * @param length 1 to 64, default 44.
 * @throws TypeError when `data` is not a Uint8Array or `length` not a number; RangeError when
 *   `length` is not an integer from 1 to 64.
 */
export function sha512sqTrunc(data: Uint8Array, length = SQ_TRUNC_DEFAULT_LENGTH): Uint8Array {
  return hashes().sha512sqTrunc(data, length);
}
