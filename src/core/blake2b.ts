/**
 * BLAKE2b (RFC 7693) from the WASM core, plus the per-thread access to that core's exports that
 * the Argon2id and PoW wrappers share (`CoreView`).
 *
 * Data crosses the boundary through fixed windows in WASM memory (practice B7). Argon2 may grow
 * that memory, which detaches every `ArrayBuffer` view on it, so `CoreView.bytes()` rebuilds its
 * view whenever the memory's buffer changed (practice B8).
 */
import { assertBytes } from '../formats/bytes.js';
import { instantiate, wasmModule } from './wasm.js';

/** The exports of the core program used by blake2b.ts, argon2.ts and pow.ts. */
export interface CoreExports {
  memory: WebAssembly.Memory;
  BLAKE2B_WINDOW_SIZE: WebAssembly.Global;
  blake2bWindow(): number;
  blake2bOutput(): number;
  blake2bInit(outLength: number, keyLength: number): void;
  blake2bUpdate(length: number): void;
  blake2bUpdateLE32(value: number): void;
  blake2bFinal(): void;
  argon2Reserve(blocks: number): number;
  argon2ReservedBlocks(): number;
  argon2Output(): number;
  argon2Begin(p: number, tagLength: number, m: number, t: number, version: number, type: number): void;
  argon2Finish(p: number, tagLength: number, m: number, t: number, version: number, type: number): number;
  POW_INPUT_SIZE: WebAssembly.Global;
  powInput(): number;
  powHash(passwordLength: number, nonceLength: number, saltLength: number, t: number, m: number, p: number, tagLength: number): number;
}

/** One instance of the core program with a byte view that survives memory growth. */
export class CoreView {
  readonly exports: CoreExports;
  private view: Uint8Array;

  constructor(instance: WebAssembly.Instance) {
    this.exports = instance.exports as unknown as CoreExports;
    this.view = new Uint8Array(this.exports.memory.buffer);
  }

  /** The whole WASM memory as bytes (a fresh view after the memory grew). */
  bytes(): Uint8Array {
    const buffer = this.exports.memory.buffer;
    if (this.view.buffer !== buffer) this.view = new Uint8Array(buffer);
    return this.view;
  }

  /** A copy of `length` bytes at `ptr`. */
  read(ptr: number, length: number): Uint8Array {
    return this.bytes().slice(ptr, ptr + length);
  }
}

let threadCore: CoreView | undefined;

/** This thread's core instance (created on first use: one instance per thread, practice B10). */
export function defaultCore(): CoreView {
  threadCore ??= new CoreView(instantiate(wasmModule('core')));
  return threadCore;
}

/** Largest BLAKE2b digest (and key) in bytes (RFC 7693 §2.1). */
export const BLAKE2B_MAX_OUTPUT = 64;

/**
 * Streams `data` into the core's current BLAKE2b state through the input window, in chunks of
 * the window size (also used by the Argon2 pre-hash H0).
 */
export function blake2bAbsorb(core: CoreView, data: Uint8Array): void {
  const e = core.exports;
  const window = e.blake2bWindow();
  const size = e.BLAKE2B_WINDOW_SIZE.value as number;
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
export function blake2b(data: Uint8Array, outLength = BLAKE2B_MAX_OUTPUT, key?: Uint8Array, core = defaultCore()): Uint8Array {
  assertBytes(data, 'data');
  checkOutLength(outLength);
  let keyLength = 0;
  if (key !== undefined) {
    assertBytes(key, 'key');
    if (key.length > BLAKE2B_MAX_OUTPUT) {
      throw new RangeError(`BLAKE2b key: expected at most ${BLAKE2B_MAX_OUTPUT} bytes, got ${key.length}`);
    }
    keyLength = key.length;
    core.bytes().set(key, core.exports.blake2bWindow());
  }
  core.exports.blake2bInit(outLength, keyLength);
  blake2bAbsorb(core, data);
  core.exports.blake2bFinal();
  return core.read(core.exports.blake2bOutput(), outLength);
}
