/**
 * The PoW verifier pool: Argon2id mining-proof checks on Piscina worker threads.
 *
 * - Small requests are packed: items wait at most `batchDelayMs` (0 = the next macrotask, so a
 *   synchronous burst becomes one task) or until `batchMaxItems` are buffered (practice D23).
 * - Big requests are split into up to `threads` tasks of at most `batchMaxItems` items.
 * - Every task is one owned ArrayBuffer in the transferList; results come back moved (D24).
 * - The queue is bounded in items (waiting + running): past `maxQueue`, `verify` rejects with
 *   PoolBusyError (code 'POOL_BUSY') instead of building a backlog (D25).
 * - `threads: 0` runs in-process on the calling thread (tests, tiny machines) (D26).
 * - `close()` stops accepting, finishes buffered and started work, then stops the workers (D28).
 */
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { describeType } from '../formats/bytes.js';
import { powClaimVariant, powNonceValid, powVerifyVariant, type PowClaim } from '../core/pow.js';
import { coreFlavour, wasmModule } from '../core/wasm.js';
import { PoolBusyError, PoolClosedError } from './errors.js';
import { packPowClaims, type PackedClaim } from './pack.js';
import type { PoolWorkerData, PoolWorkerInfo } from './worker.js';

/** Default worker threads: one per core, less one for the event loop (at least one). */
export function defaultPoolThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

/** Names of the worker's handlers (named exports of worker.ts). */
export type PoolTaskName = 'verifyPow' | 'describeWorker';

/**
 * Default bound on verifications waiting or running: ~1,000 × ~1–2 ms ≈ 1 s of work on two
 * cores, so a "busy" answer comes before clients time out. Revisit with the queue-wait metric.
 */
export const DEFAULT_MAX_QUEUE = 1024;
/** Items per task: large enough to amortise the ~50 µs hand-off, small enough to balance cores. */
export const DEFAULT_BATCH_MAX_ITEMS = 32;
/** How long a partial batch waits for more items; 0 = dispatch on the next macrotask. */
export const DEFAULT_BATCH_DELAY_MS = 0;

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

/** The built worker entry: dist/pool/worker.js, also when this module runs from src/ under vitest. */
export function poolWorkerFile(): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts') ? resolve(dirname(here), '../../dist/pool/worker.js') : join(dirname(here), 'worker.js');
}

interface Request {
  results: boolean[];
  remaining: number;
  resolve(results: boolean[]): void;
  reject(error: unknown): void;
  failed: boolean;
}

interface Entry extends PackedClaim {
  request: Request;
  index: number;
}

function checkCount(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`createPowVerifier ${name}: expected an integer ≥ ${min}, got ${String(value)}`);
  }
  return value;
}

/**
 * Creates a PoW verifier.
 * @example
 * const verifier = createPowVerifier({ threads: 2 });
 * const [ok] = await verifier.verify([{ blockChecksum, solverAddress, nonce, difficulty }]);
 * await verifier.close();
 */
export function createPowVerifier(options: PowVerifierOptions): PowVerifier {
  const threads = checkCount('threads', options?.threads, 0);
  const maxQueue = checkCount('maxQueue', options.maxQueue ?? DEFAULT_MAX_QUEUE, 1);
  const batchMaxItems = checkCount('batchMaxItems', options.batchMaxItems ?? DEFAULT_BATCH_MAX_ITEMS, 1);
  const batchDelayMs = checkCount('batchDelayMs', options.batchDelayMs ?? DEFAULT_BATCH_DELAY_MS, 0);

  const workerData: PoolWorkerData = { coreModule: wasmModule('core'), flavour: coreFlavour() };
  const pool = threads === 0 ? undefined : new Piscina({
    filename: poolWorkerFile(),
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Number.MAX_SAFE_INTEGER, // a steady server: never churn threads
    maxQueue, // tasks ≤ items, so our item bound always trips first
    workerData,
  });

  let pending = 0;
  let closed = false;
  let batch: Entry[] = [];
  let flushTimer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  const inFlight = new Set<Promise<void>>();

  function settle(entries: Entry[], outcome: Uint8Array | Error): void {
    pending -= entries.length;
    for (let i = 0; i < entries.length; i++) {
      const { request, index } = entries[i]!;
      if (request.failed) continue;
      if (outcome instanceof Error) {
        request.failed = true;
        request.reject(outcome);
        continue;
      }
      request.results[index] = outcome[i] === 1;
      if (--request.remaining === 0) request.resolve(request.results);
    }
  }

  function dispatch(entries: Entry[]): void {
    const buffer = packPowClaims(entries);
    const run = pool!.run(buffer, { name: 'verifyPow' satisfies PoolTaskName, transferList: [buffer] }) as Promise<Uint8Array>;
    options.onTask?.({ items: entries.length, buffer });
    const done = run.then(
      (results) => settle(entries, results),
      (error: unknown) => settle(entries, error instanceof Error ? error : new Error(String(error))),
    ).finally(() => inFlight.delete(done));
    inFlight.add(done);
  }

  function flush(): void {
    if (flushTimer !== undefined) {
      if (batchDelayMs === 0) clearImmediate(flushTimer as NodeJS.Immediate);
      else clearTimeout(flushTimer as NodeJS.Timeout);
      flushTimer = undefined;
    }
    if (batch.length === 0) return;
    const entries = batch;
    batch = [];
    dispatch(entries);
  }

  function enqueue(entries: Entry[]): void {
    if (entries.length >= batchMaxItems) {
      // Big request: split evenly over the workers, at most batchMaxItems per task.
      const perTask = Math.min(batchMaxItems, Math.ceil(entries.length / threads));
      for (let at = 0; at < entries.length; at += perTask) dispatch(entries.slice(at, at + perTask));
      return;
    }
    for (const entry of entries) {
      batch.push(entry);
      if (batch.length >= batchMaxItems) flush();
    }
    if (batch.length > 0 && flushTimer === undefined) {
      flushTimer = batchDelayMs === 0 ? setImmediate(flush) : setTimeout(flush, batchDelayMs);
    }
  }

  async function verify(items: readonly PowClaim[]): Promise<boolean[]> {
    if (closed) throw new PoolClosedError();
    if (!Array.isArray(items)) throw new TypeError(`verify: expected an array of PoW claims, got ${describeType(items)}`);
    const variants = items.map((item, i) => {
      try {
        return powClaimVariant(item);
      } catch (error) {
        if (error instanceof Error) error.message = `item ${i}: ${error.message}`;
        throw error;
      }
    });
    if (!pool) return items.map((item, i) => powVerifyVariant(variants[i]!, item));
    if (pending + items.length > maxQueue) throw new PoolBusyError(pending, maxQueue, items.length);

    return new Promise<boolean[]>((resolvePromise, rejectPromise) => {
      const request: Request = { results: new Array<boolean>(items.length).fill(false), remaining: 0, resolve: resolvePromise, reject: rejectPromise, failed: false };
      const entries: Entry[] = [];
      items.forEach((claim, index) => {
        // A nonce of the wrong length fails without work (and would not fit the task format).
        if (powNonceValid(claim.nonce, variants[index]!)) entries.push({ claim, variant: variants[index]!, request, index });
      });
      request.remaining = entries.length;
      if (entries.length === 0) {
        resolvePromise(request.results);
        return;
      }
      pending += entries.length;
      enqueue(entries);
    });
  }

  let closing: Promise<void> | undefined;
  function close(): Promise<void> {
    closing ??= (async () => {
      closed = true;
      if (!pool) return;
      flush();
      await Promise.allSettled([...inFlight]);
      await pool.close();
    })();
    return closing;
  }

  return {
    verify,
    close,
    get pending() {
      return pending;
    },
    threads,
    async describeWorker() {
      if (!pool) throw new Error('describeWorker: the verifier runs in-process (threads: 0)');
      return (await pool.run(null, { name: 'describeWorker' satisfies PoolTaskName })) as PoolWorkerInfo;
    },
  };
}
