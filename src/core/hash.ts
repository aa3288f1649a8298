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
  // The 3-argument exports are typed with the ignored 4th argument `digest()` passes to all.
  sha3_256_into(inPtr: number, length: number, outPtr: number, outLength?: number): void;
  sha3_512_into(inPtr: number, length: number, outPtr: number, outLength?: number): void;
  sha3_512sqTrunc_into(inPtr: number, length: number, outPtr: number, outLength: number): void;
  sha3_init(digestLength: number): void;
  sha3_update(inPtr: number, length: number): void;
  sha3_final(outPtr: number): void;
  sha512_into(inPtr: number, length: number, outPtr: number, outLength?: number): void;
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
  // Larger-than-window inputs: the digest (of the double hash for the *Sq variants) is left in
  // the output window.
  const streamSha3 = (digestLength: number) => (data: Uint8Array): void => {
    e.sha3_init(digestLength);
    absorb(data, e.sha3_update);
    e.sha3_final(output);
  };
  const streamSha3_256 = streamSha3(SHA3_256_BYTES);
  const streamSha3_512 = streamSha3(DIGEST_512_BYTES);
  const streamSha3_512Sq = (data: Uint8Array): void => {
    streamSha3_512(data);
    e.sha3_512_into(output, DIGEST_512_BYTES, output);
  };
  const streamSha512 = (data: Uint8Array): void => {
    e.sha512_init();
    absorb(data, e.sha512_update);
    e.sha512_final(output);
  };
  const streamSha512Sq = (data: Uint8Array): void => {
    streamSha512(data);
    e.sha512_into(output, DIGEST_512_BYTES, output);
  };

  /**
   * Hashes `data` in one call when it fits the input window (`oneShot` gets the output length as
   * a 4th argument; the exports that do not truncate ignore it), else streams it; returns a copy
   * of the first `length` bytes of the output window.
   */
  function digest(
    data: Uint8Array,
    length: number,
    oneShot: (inPtr: number, length: number, outPtr: number, outLength: number) => void,
    stream: (data: Uint8Array) => void,
  ): Uint8Array {
    if (data.length <= window) {
      core.bytes().set(data, input);
      oneShot(input, data.length, output, length);
    } else stream(data);
    return outputCopy(length);
  }

  // Views of the output window by length, so that the copy out is `new Uint8Array(view)` (the
  // fastest copy V8 offers for small arrays); rebuilt when the memory grew.
  let outputViews: Uint8Array[] = [];
  let outputViewsOf: Uint8Array | undefined;
  function outputCopy(length: number): Uint8Array {
    const mem = core.bytes();
    if (mem !== outputViewsOf) {
      outputViews = [];
      outputViewsOf = mem;
    }
    return new Uint8Array((outputViews[length] ??= mem.subarray(output, output + length)));
  }

  return {
    sha3_256(data) {
      if (!(data instanceof Uint8Array)) throw notBytes('sha3_256', data);
      return digest(data, SHA3_256_BYTES, e.sha3_256_into, streamSha3_256);
    },
    sha3_512(data) {
      if (!(data instanceof Uint8Array)) throw notBytes('sha3_512', data);
      return digest(data, DIGEST_512_BYTES, e.sha3_512_into, streamSha3_512);
    },
    sha3_512sq(data) {
      if (!(data instanceof Uint8Array)) throw notBytes('sha3_512sq', data);
      return digest(data, DIGEST_512_BYTES, e.sha3_512sqTrunc_into, streamSha3_512Sq);
    },
    sha3_512sqTrunc(data, length = SQ_TRUNC_DEFAULT_LENGTH) {
      if (!(data instanceof Uint8Array)) throw notBytes('sha3_512sqTrunc', data);
      const n = checkTruncLength('sha3_512sqTrunc', length);
      return digest(data, n, e.sha3_512sqTrunc_into, streamSha3_512Sq);
    },
    sha512(data) {
      if (!(data instanceof Uint8Array)) throw notBytes('sha512', data);
      return digest(data, DIGEST_512_BYTES, e.sha512_into, streamSha512);
    },
    sha512sqTrunc(data, length = SQ_TRUNC_DEFAULT_LENGTH) {
      if (!(data instanceof Uint8Array)) throw notBytes('sha512sqTrunc', data);
      const n = checkTruncLength('sha512sqTrunc', length);
      return digest(data, n, e.sha512sqTrunc_into, streamSha512Sq);
    },
  };
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
