/**
 * This thread's instance of the core WASM program (SHA3, SHA-512, BLAKE2b, Argon2id, PoW), shared
 * by every wrapper in `src/core/` (practice B10: one instance per thread, created on first use).
 *
 * Data crosses the boundary through fixed windows in WASM memory (practice B7). Argon2id may grow
 * that memory, which detaches every view on the old buffer; `bytes()` notices (a detached view has
 * length 0) and rebuilds its view, so wrappers always call `bytes()` instead of keeping a view.
 */
import { coreFlavour, instantiate, wasmModule, type WasmFlavour } from './wasm.js';

/**
 * The core program's exports: its memory plus the functions each wrapper types for itself.
 * (Typed structurally: the project's TS lib set has no `WebAssembly` declarations.)
 */
export type CoreExports = Record<string, unknown> & {
  readonly memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
};

/** A compiled core program, as `wasmModule('core', flavour)` returns it. */
export type CoreModule = ReturnType<typeof wasmModule>;

/** One instance of the core program with a byte view that survives memory growth. */
export class CoreInstance {
  readonly flavour: WasmFlavour;
  readonly exports: CoreExports;
  private view: Uint8Array;

  /**
   * A fresh instance of the given build (tests and benchmarks pick one; the node uses
   * {@link coreInstance}), from `mod` when the caller already has that build compiled.
   */
  constructor(flavour: WasmFlavour = coreFlavour(), mod: CoreModule = wasmModule('core', flavour)) {
    this.flavour = flavour;
    this.exports = instantiate(mod).exports as unknown as CoreExports;
    this.view = new Uint8Array(this.exports.memory.buffer);
  }

  /** The whole WASM memory as bytes (a fresh view after the memory grew). */
  bytes(): Uint8Array {
    if (this.view.byteLength === 0) this.view = new Uint8Array(this.exports.memory.buffer);
    return this.view;
  }

  /** A copy of `length` bytes at `ptr`. */
  read(ptr: number, length: number): Uint8Array {
    return this.bytes().slice(ptr, ptr + length);
  }
}

let threadCore: CoreInstance | undefined;

/** This thread's core instance, of the build chosen by `coreFlavour()` (created on first use). */
export function coreInstance(): CoreInstance {
  return (threadCore ??= new CoreInstance());
}

/**
 * Makes this thread's core instance from an already compiled Module of the given build (a pool
 * worker receives it in `workerData`, so it does not compile the program again). Call it before
 * anything in the thread uses {@link coreInstance}.
 * @throws Error when this thread's core instance already exists.
 */
export function adoptCoreModule(mod: CoreModule, flavour: WasmFlavour): CoreInstance {
  if (threadCore) throw new Error('adoptCoreModule: this thread already has its core instance; call it before any hashing');
  threadCore = new CoreInstance(flavour, mod);
  return threadCore;
}
