/**
 * Entry of the pool's worker threads. Each named export is a handler Piscina calls by `name`
 * (practice D22): synchronous, per-item results, an invalid PoW is a result (0), not an error.
 * To add work (e.g. RSA verification), export another handler here and add its name to
 * `PoolTaskName` in verifier.ts.
 *
 * The worker instantiates the core WASM once, from the compiled Module the pool passes in
 * `workerData.coreModule` (no recompilation per worker), and reserves the PoW's Argon2 memory at
 * start so no task grows memory.
 */
import { threadId } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { reserveArgon2Memory } from '../core/argon2.js';
import type { CoreAccess } from '../core/blake2b.js';
import { adoptCoreModule, coreInstance } from '../core/instance.js';
import { POW_PARAMS, powVerifyVariant } from '../core/pow.js';
import { coreFlavour, type WasmFlavour } from '../core/wasm.js';
import { unpackPowClaims } from './pack.js';

/** RSA signature verification for transaction admission (handler `verifyRsa`). */
export { verifyRsa } from './rsa-handlers.js';

/** What the pool hands every worker. */
export interface PoolWorkerData {
  coreModule?: WebAssembly.Module;
  flavour?: WasmFlavour;
}

const data = (Piscina.workerData ?? {}) as PoolWorkerData;
const compiledInWorker = !(data.coreModule instanceof WebAssembly.Module);
const flavour = compiledInWorker ? coreFlavour() : (data.flavour ?? coreFlavour());
// This thread's core instance (shared by every wrapper in the worker), from the passed Module.
const core: CoreAccess = compiledInWorker ? coreInstance() : adoptCoreModule(data.coreModule!, flavour);
reserveArgon2Memory(core, POW_PARAMS.memoryCost);

/** Verifies a packed batch of PoW claims; returns one byte per claim (1 = valid), moved back. */
export function verifyPow(task: ArrayBuffer): Uint8Array {
  const items = unpackPowClaims(task);
  const results = new Uint8Array(items.length);
  for (let i = 0; i < items.length; i++) {
    results[i] = powVerifyVariant(items[i]!.variant, items[i]!.claim, core) ? 1 : 0;
  }
  return Piscina.move(results) as Uint8Array;
}

export interface PoolWorkerInfo {
  threadId: number;
  compiledInWorker: boolean;
  flavour: string;
}

/** Describes this worker (used by tests and `--version`-style diagnostics). */
export function describeWorker(): PoolWorkerInfo {
  return { threadId, compiledInWorker, flavour };
}
