/**
 * What the pool's two sides share (and nothing else): the task names, the task interface each
 * `tasks/*.ts` module implements, and what the pool hands every worker. Types only: loading this
 * file loads no code, so the worker (worker.ts) and the main side (index.ts) stay independent.
 */
import type { CoreAccess } from '../../core/blake2b.js';
import type { WasmFlavour } from '../../core/wasm.js';

/**
 * Names of the queued tasks, each a named export of worker.ts and a bounded queue in index.ts.
 * Room for the next ones (design reshape-for-peers §3 P5): `decodeBatch` (wire decoding of a
 * peer's block off the event loop) and the messaging crypto (`kem`: secp521r1 ECDH, ML-KEM-1024).
 * Adding one: a `tasks/<name>.ts` implementing `PoolTask`, one export line in worker.ts, one
 * bound (with its reason) in index.ts's DEFAULT_MAX_QUEUES.
 */
export type PoolTaskName = 'verifyPow' | 'verifyRsa' | 'signRsa' | 'searchPow' | 'searchSignerPow' | 'messagingCrypto';

/** What a task handler may use in its thread: the thread's core WASM instance. */
export interface TaskContext {
  core?: CoreAccess;
}

/**
 * One named task: how its items cross to a worker and back. Packed tasks and results are one
 * owned ArrayBuffer each (transferred, never cloned), written with tasks/codec.ts.
 */
export interface PoolTask<Item, Result> {
  readonly name: PoolTaskName;
  /** Main side: items → one fresh ArrayBuffer (safe to transfer). */
  pack(items: readonly Item[]): ArrayBuffer;
  /** Worker side: a packed task → its items (views into the task, no copies). @throws RangeError */
  unpack(task: ArrayBuffer | Uint8Array): Item[];
  /** Worker side: a packed task → its packed results (the worker moves them back). */
  handle(task: ArrayBuffer, context: TaskContext): Uint8Array;
  /** Main side: packed results → one result per item. @throws RangeError on a malformed result */
  results(packed: Uint8Array, count: number): Result[];
  /** In-process mode (threads: 0): one item on the calling thread. */
  runOne(item: Item, context: TaskContext): Result;
}

/** What the pool hands every worker (`workerData`). */
export interface PoolWorkerData {
  coreModule?: WebAssembly.Module;
  flavour?: WasmFlavour;
  /** A thread of the built-in miner's own pool: it lowers its own OS priority (worker.ts). */
  lowPriority?: boolean;
}

/** A worker's description (tests and diagnostics). */
export interface PoolWorkerInfo {
  threadId: number;
  compiledInWorker: boolean;
  flavour: string;
}
