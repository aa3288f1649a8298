/**
 * BLAKE2b (RFC 7693) from the WASM core, and the typed view of the core exports that the
 * BLAKE2b, Argon2id and PoW wrappers share.
 *
 * Data crosses the boundary through fixed windows in WASM memory (practice B7); wrappers always
 * go through `core.bytes()`, which survives the memory growth Argon2 may cause (practice B8).
 */
import { assertBytes } from '../formats/bytes.js';
import { coreInstance, type CoreInstance } from './instance.js';

/**
 * What these wrappers need of a core instance: this thread's `coreInstance()`, a `CoreInstance`
 * of a chosen build, or a pool worker's instance of the Module it was handed.
 */
export type CoreAccess = Pick<CoreInstance, 'exports' | 'bytes' | 'read'>;

/** The core exports used by blake2b.ts, argon2.ts and pow.ts (assembly/core/{blake2b,argon2,pow}.ts). */
export interface KdfExports {
  BLAKE2B_WINDOW_SIZE: { value: number };
  blake2bWindow(): number;
  blake2bOutput(): number;
  blake2bInit(outLength: number, keyLength: number): void;
  blake2bUpdate(length: number): void;
  blake2bUpdateLE32(value: number): void;
  blake2bFinal(): void;
  argon2Reserve(blocks: number): number;
  argon2Output(): number;
  argon2Begin(p: number, tagLength: number, m: number, t: number, version: number, type: number): void;
  argon2Finish(p: number, tagLength: number, m: number, t: number, version: number, type: number): number;
  powInput(): number;
  powHash(passwordLength: number, nonceLength: number, saltLength: number, t: number, m: number, p: number, tagLength: number): number;
}

/** The KDF functions of a core instance, typed. */
export function kdf(core: CoreAccess): KdfExports {
  return core.exports as unknown as KdfExports;
}

/** Largest BLAKE2b digest (and key) in bytes (RFC 7693 §2.1). */
export const BLAKE2B_MAX_OUTPUT = 64;

/**
 * Streams `data` into the core's current BLAKE2b state through the input window, in chunks of
 * the window size (also used by the Argon2 pre-hash H0).
 */
export function blake2bAbsorb(core: CoreAccess, data: Uint8Array): void {
  const e = kdf(core);
  const window = e.blake2bWindow();
  const size = e.BLAKE2B_WINDOW_SIZE.value;
  for (let offset = 0; offset < data.length; offset += size) {
    const chunk = data.subarray(offset, offset + size);
    core.bytes().set(chunk, window);
    e.blake2bUpdate(chunk.length);
  }
}

function checkOutLength(outLength: number): void {
  if (!Number.isInteger(outLength) || outLength < 1 || outLength > BLAKE2B_MAX_OUTPUT) {
    throw new RangeError(`BLAKE2b output length: expected an integer 1..${BLAKE2B_MAX_OUTPUT}, got ${outLength}`);
  }
}

/**
 * BLAKE2b of `data` with an `outLength`-byte digest (1..64; RFC 7693), optionally keyed with a
 * key of 1..64 bytes.
 * @throws TypeError when `data` or `key` is not a Uint8Array; RangeError for a bad length.
 * @example blake2b(new TextEncoder().encode('abc'), 32)
 */
export function blake2b(data: Uint8Array, outLength = BLAKE2B_MAX_OUTPUT, key?: Uint8Array, core: CoreAccess = coreInstance()): Uint8Array {
  const e = kdf(core);
  assertBytes(data, 'data');
  checkOutLength(outLength);
  let keyLength = 0;
  if (key !== undefined) {
    assertBytes(key, 'key');
    if (key.length > BLAKE2B_MAX_OUTPUT) {
      throw new RangeError(`BLAKE2b key: expected at most ${BLAKE2B_MAX_OUTPUT} bytes, got ${key.length}`);
    }
    keyLength = key.length;
    core.bytes().set(key, e.blake2bWindow());
  }
  e.blake2bInit(outLength, keyLength);
  blake2bAbsorb(core, data);
  e.blake2bFinal();
  return core.read(e.blake2bOutput(), outLength);
}
