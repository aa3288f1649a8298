/**
 * Loading of the WebAssembly programs built from `assembly/` by `npm run build:wasm`.
 *
 * Each program is compiled once per thread (module cache below) and instantiated by its wrapper
 * module, which builds its typed-array views once (practice B7). Two programs exist:
 *   - `core`  (assembly/core):  SHA3, SHA-512, BLAKE2b, Argon2id, mining PoW; SIMD and scalar builds
 *   - `codec` (assembly/codec): varints and the v7 transaction codec with its checksum
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

/** Directory holding the built `.wasm` files: `<package root>/build`. */
export const WASM_BUILD_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'build');

export type WasmProgram = 'core' | 'codec';
export type WasmFlavour = 'simd' | 'scalar';

/** Error raised when WASM code calls `abort` (an assertion or an `unreachable` with a message). */
export class WasmAbortError extends Error {
  override name = 'WasmAbortError';
}

/** Does this engine validate WebAssembly SIMD (v128)? Decided once. */
export const SIMD_SUPPORTED: boolean = WebAssembly.validate(
  // (module (func (result v128) v128.const i64x2 0 0))
  new Uint8Array([
    0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 22, 1, 20, 0, 253, 12, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11,
  ]),
);

/**
 * Which core build to use: `DLTNODE_WASM=scalar|simd` overrides (for benchmarks and the scalar test
 * run); unset or empty: SIMD when the engine supports it.
 * @throws RangeError for any other value (a typo such as `Scalar` would otherwise measure or test
 *   the SIMD build while the user believes it is the scalar one)
 */
export function coreFlavour(): WasmFlavour {
  const forced = process.env.DLTNODE_WASM;
  if (forced === 'scalar' || forced === 'simd') return forced;
  if (forced !== undefined && forced !== '') throw new RangeError(`DLTNODE_WASM: expected 'scalar' or 'simd' (or unset), got ${JSON.stringify(forced)}`);
  return SIMD_SUPPORTED ? 'simd' : 'scalar';
}

function fileFor(program: WasmProgram, flavour: WasmFlavour): string {
  return program === 'core' ? `core.${flavour}.wasm` : 'codec.wasm';
}

const moduleCache = new Map<string, WebAssembly.Module>();

/** The compiled module of a program (compiled once per thread, then cached). */
export function wasmModule(program: WasmProgram, flavour: WasmFlavour = coreFlavour()): WebAssembly.Module {
  const file = fileFor(program, flavour);
  let mod = moduleCache.get(file);
  if (!mod) {
    const path = join(WASM_BUILD_DIR, file);
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch {
      throw new Error(`WASM build ${path} is missing: run \`npm run build\` first`);
    }
    mod = new WebAssembly.Module(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) as Uint8Array<ArrayBuffer>);
    moduleCache.set(file, mod);
  }
  return mod;
}

/**
 * A fresh instance of a compiled module. The `env.abort` import turns an AssemblyScript abort into
 * a {@link WasmAbortError} carrying the message and location (practice B12).
 */
export function instantiate(mod: WebAssembly.Module): WebAssembly.Instance {
  let memory: WebAssembly.Memory | undefined;
  const readString = (ptr: number): string => {
    if (!memory || ptr === 0) return '';
    // AssemblyScript strings: UTF-16, byte length stored in the 4 bytes before the pointer.
    const len = new Uint32Array(memory.buffer, ptr - 4, 1)[0]! >>> 1;
    return String.fromCharCode(...new Uint16Array(memory.buffer, ptr, len));
  };
  const instance = new WebAssembly.Instance(mod, {
    env: {
      abort(msg: number, file: number, line: number, col: number): never {
        throw new WasmAbortError(`${readString(msg)} at ${readString(file)}:${line}:${col}`);
      },
      seed: () => Date.now(),
    },
  });
  memory = instance.exports.memory as WebAssembly.Memory;
  return instance;
}
