/**
 * Entry of the pool's worker threads. Each named export is a handler Piscina calls by `name`
 * (practice D22): synchronous, per-item results (an invalid proof or signature is a result, not
 * an error), results moved back. This file loads only `tasks/*` and the core WASM: no main-thread
 * pool code runs in a worker. To add a task, see `PoolTaskName` in tasks/types.ts.
 *
 * The worker instantiates the core WASM once, from the compiled Module the pool passes in
 * `workerData.coreModule` (no recompilation per worker), and reserves the PoW's Argon2 memory at
 * start so no task grows memory.
 */
import { platform, setPriority } from 'node:os';
import { threadId } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { reserveArgon2Memory } from '../core/argon2.js';
import type { CoreAccess } from '../core/blake2b.js';
import { adoptCoreModule, coreInstance } from '../core/instance.js';
import { POW_PARAMS } from '../core/pow.js';
import { coreFlavour } from '../core/wasm.js';
import { verifyPowTask } from './tasks/pow.js';
import { signRsaTask, verifyRsaTask } from './tasks/rsa.js';
import { searchPowTask } from './tasks/search-pow.js';
import { searchSignerPowTask } from './tasks/search-signer-pow.js';
import { messagingCryptoTask } from './tasks/messaging.js';
import type { PoolTaskName, PoolWorkerData, PoolWorkerInfo, TaskContext } from './tasks/types.js';

export type { PoolWorkerData, PoolWorkerInfo } from './tasks/types.js';

const data = (Piscina.workerData ?? {}) as PoolWorkerData;
/** The lowest scheduling priority (nice 19). */
const LOWEST_PRIORITY = 19;
// A thread of the built-in miner takes only CPU the node's own work leaves. Linux sets the priority
// of the calling thread alone; elsewhere `setPriority(0, …)` would lower the whole process, so the
// thread keeps its priority there (it still keeps the miner's jobs off the other threads).
if (data.lowPriority && platform() === 'linux') {
  try {
    setPriority(0, LOWEST_PRIORITY);
  } catch {
    // Not permitted here (a sandbox).
  }
}
const compiledInWorker = !(data.coreModule instanceof WebAssembly.Module);
const flavour = compiledInWorker ? coreFlavour() : (data.flavour ?? coreFlavour());
// This thread's core instance (shared by every wrapper in the worker), from the passed Module.
const core: CoreAccess = compiledInWorker ? coreInstance() : adoptCoreModule(data.coreModule!, flavour);
reserveArgon2Memory(core, POW_PARAMS.memoryCost);
const context: TaskContext = { core };

type Handler = (task: ArrayBuffer) => Uint8Array;

/** Verifies a packed batch of PoW claims (tasks/pow.ts). */
export const verifyPow: Handler = (task) => Piscina.move(verifyPowTask.handle(task, context)) as Uint8Array;
/** Verifies a packed batch of RSA signatures (tasks/rsa.ts). */
export const verifyRsa: Handler = (task) => Piscina.move(verifyRsaTask.handle(task, context)) as Uint8Array;
/** Signs a packed batch with RSA private keys (tasks/rsa.ts). */
export const signRsa: Handler = (task) => Piscina.move(signRsaTask.handle(task, context)) as Uint8Array;

/** Searches nonces for the built-in miner (tasks/search-pow.ts). */
export const searchPow: Handler = (task) => Piscina.move(searchPowTask.handle(task, context)) as Uint8Array;

/** Searches signer-PoW solutions for the signer miner (tasks/search-signer-pow.ts). */
export const searchSignerPow: Handler = (task) => Piscina.move(searchSignerPowTask.handle(task, context)) as Uint8Array;

/** Runs handshake steps of contact messaging (tasks/messaging.ts). */
export const messagingCrypto: Handler = (task) => Piscina.move(messagingCryptoTask.handle(task, context)) as Uint8Array;

// Every task name has its handler here (a compile error otherwise).
void ({ verifyPow, verifyRsa, signRsa, searchPow, searchSignerPow, messagingCrypto } satisfies Record<PoolTaskName, Handler>);

/** Describes this worker (used by tests and `--version`-style diagnostics). */
export function describeWorker(): PoolWorkerInfo {
  return { threadId, compiledInWorker, flavour };
}
