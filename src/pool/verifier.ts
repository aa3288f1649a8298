/**
 * Library facades over the one worker pool (index.ts): `createPowVerifier` and
 * `createRsaVerifier`, with the signatures and behaviour they had as separate pools. Each starts
 * its own `createWorkerPool`; a node should create one pool and use its tasks instead.
 */
import type { PowClaim } from '../core/pow.js';
import {
  checkCount,
  createWorkerPool,
  DEFAULT_BATCH_DELAY_MS,
  poolWorkerFile,
  TASK_BATCH_MAX_ITEMS,
  TASK_MAX_QUEUE,
  type PoolTaskName,
  type PoolWorkerInfo,
  type RsaItem,
} from './index.js';
import { defaultPoolThreads } from './threads.js';

export { defaultPoolThreads, poolWorkerFile, DEFAULT_BATCH_DELAY_MS, type PoolTaskName, type RsaItem };

/** Default bound on PoW verifications waiting or running (see TASK_MAX_QUEUE.verifyPow). */
export const DEFAULT_MAX_QUEUE = TASK_MAX_QUEUE.verifyPow;
/** Default PoW claims per task (see TASK_BATCH_MAX_ITEMS.verifyPow). */
export const DEFAULT_BATCH_MAX_ITEMS = TASK_BATCH_MAX_ITEMS.verifyPow;

export interface PowVerifierOptions {
  /** Worker threads; 0 = verify in-process on the calling thread. */
  threads: number;
  /** Maximum verifications waiting or running (default DEFAULT_MAX_QUEUE). */
  maxQueue?: number;
  /** Maximum items packed into one task (default DEFAULT_BATCH_MAX_ITEMS). */
  batchMaxItems?: number;
  /** Maximum wait of a partial batch in ms (default DEFAULT_BATCH_DELAY_MS). */
  batchDelayMs?: number;
  /** Called for each task sent to a worker, after the send (for metrics: items per task). */
  onTask?: (task: { items: number; buffer: ArrayBuffer }) => void;
}

export interface PowVerifier {
  /** One boolean per claim, in order. Rejects with PoolBusyError when the queue is full. */
  verify(items: readonly PowClaim[]): Promise<boolean[]>;
  /** Stops accepting, finishes buffered and running work, stops the workers. Idempotent. */
  close(): Promise<void>;
  /** Verifications waiting or running. */
  readonly pending: number;
  readonly threads: number;
  /** Asks one worker to describe itself (thread id, whether it compiled WASM itself). */
  describeWorker(): Promise<PoolWorkerInfo>;
}

/**
 * Creates a PoW verifier (a worker pool used for its `verifyPow` task only).
 * @example
 * const verifier = createPowVerifier({ threads: 2 });
 * const [ok] = await verifier.verify([{ blockChecksum, solverAddress, nonce, difficulty }]);
 * await verifier.close();
 */
export function createPowVerifier(options: PowVerifierOptions): PowVerifier {
  const where = 'createPowVerifier';
  const threads = checkCount(where, 'threads', options?.threads, 0);
  const pool = createWorkerPool({
    threads,
    maxQueue: { verifyPow: checkCount(where, 'maxQueue', options.maxQueue ?? DEFAULT_MAX_QUEUE, 1) },
    batchMaxItems: { verifyPow: checkCount(where, 'batchMaxItems', options.batchMaxItems ?? DEFAULT_BATCH_MAX_ITEMS, 1) },
    batchDelayMs: checkCount(where, 'batchDelayMs', options.batchDelayMs ?? DEFAULT_BATCH_DELAY_MS, 0),
    onTask: options.onTask && (({ items, buffer }) => options.onTask!({ items, buffer })),
  });
  return {
    verify: pool.verifyPow,
    close: pool.close,
    get pending() {
      return pool.pending('verifyPow');
    },
    threads,
    describeWorker: pool.describeWorker,
  };
}

export interface RsaVerifier {
  /** One boolean per item, in order. Rejects with PoolBusyError when the queue is full. */
  verify(items: readonly RsaItem[]): Promise<boolean[]>;
  /** Finishes running work and stops the workers. Idempotent. */
  close(): Promise<void>;
}

export interface RsaVerifierOptions {
  /** Worker threads; 0 = verify on the calling thread. */
  threads: number;
  batchMaxItems?: number;
  /** Maximum verifications waiting or running (default TASK_MAX_QUEUE.verifyRsa). */
  maxQueue?: number;
}

/** Creates an RSA signature verifier (a worker pool used for its `verifyRsa` task only). */
export function createRsaVerifier(options: RsaVerifierOptions): RsaVerifier {
  const where = 'createRsaVerifier';
  const pool = createWorkerPool({
    threads: checkCount(where, 'threads', options?.threads, 0),
    maxQueue: { verifyRsa: checkCount(where, 'maxQueue', options.maxQueue ?? TASK_MAX_QUEUE.verifyRsa, 1) },
    batchMaxItems: { verifyRsa: checkCount(where, 'batchMaxItems', options.batchMaxItems ?? TASK_BATCH_MAX_ITEMS.verifyRsa, 1) },
  });
  return { verify: pool.verifyRsa, close: pool.close };
}
