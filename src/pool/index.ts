/**
 * The node's one worker pool (design reshape-for-peers §3 P5): one Piscina, named tasks
 * (tasks/types.ts `PoolTaskName`), each with its own bounded queue of items.
 *
 * - Each task's queue is bounded in items (waiting + running): past its bound a call rejects with
 *   PoolBusyError (code 'POOL_BUSY') instead of building a backlog (D25); `canAccept(task, n)`
 *   lets a caller (gossip, admission) ask first.
 * - `verifyPow` packs small requests (items wait at most `batchDelayMs`, 0 = the next macrotask, or
 *   until `batchMaxItems` are buffered, D23) and splits big ones over the threads.
 * - `verifyRsa` and `signRsa` gather the items of every call made in one macrotask into tasks of at
 *   most `batchMaxItems`, with at most `TASKS_PER_WORKER` tasks in flight per worker: items
 *   arriving meanwhile leave together when a task completes, so tasks grow with the load instead
 *   of each call paying a hand-off.
 * - Consensus's RSA work (`signRsa`, `verifyRsa` with `urgent`) runs on a thread of its own
 *   (`CONSENSUS_THREAD_TASKS`), never behind a peer's thousands of transaction checks.
 * - Every task and result is one owned ArrayBuffer, transferred (tasks/codec.ts, D24).
 * - `threads: 0` runs everything in-process on the calling thread (tests, tiny machines) (D26).
 * - `close()` stops accepting, finishes buffered and started work, then stops the workers (D28).
 * - Background tasks (`BACKGROUND_TASKS`: the miners' searches) are not counted by
 *   `foregroundPending()`. The signer miner submits one small job at a time and only while that is
 *   0, so RPC, admission and block import wait at most one of its jobs. The built-in Argon2 miner's
 *   jobs (~0.25 s each, kept in flight all the time) run on threads of their own at the lowest OS
 *   priority (`OWN_THREAD_TASKS`), so nothing waits behind them.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { assertBytes, describeType } from '../formats/bytes.js';
import { hashedNonce, powNonceValid, type PowClaim } from '../core/pow.js';
import { coreFlavour, wasmModule } from '../core/wasm.js';
import { PoolBusyError, PoolClosedError } from './errors.js';
import { packedClaim, verifyPowTask, type PackedClaim } from './tasks/pow.js';
import { signRsaTask, verifyRsaTask, type RsaItem, type RsaSignItem } from './tasks/rsa.js';
import { SEARCH_MAX_PREFIX, searchPowTask, type SearchJob, type SearchResult } from './tasks/search-pow.js';
import { checkSignerSearchJob, searchSignerPowTask, type SignerSearchJob, type SignerSearchResult } from './tasks/search-signer-pow.js';
import { messagingCryptoTask, type MessagingCryptoItem, type MessagingCryptoResult } from './tasks/messaging.js';
import type { PoolTask, PoolTaskName, PoolWorkerData, PoolWorkerInfo } from './tasks/types.js';

export type { PoolTaskName, PoolWorkerInfo } from './tasks/types.js';
export type { RsaItem, RsaSignItem } from './tasks/rsa.js';
export type { SearchJob, SearchResult } from './tasks/search-pow.js';
export type { SignerSearchJob, SignerSearchResult } from './tasks/search-signer-pow.js';
export type { MessagingCryptoItem, MessagingCryptoResult } from './tasks/messaging.js';
export { PoolBusyError, PoolClosedError } from './errors.js';
export { defaultPoolThreads } from './threads.js';

/** Default bound of each task's queue, in items waiting or running. */
export const TASK_MAX_QUEUE: Readonly<Record<PoolTaskName, number>> = Object.freeze({
  /**
   * ~1,000 × ~1–2 ms ≈ 1 s of work on two cores, so a "busy" answer comes before clients time
   * out. Revisit with the queue-wait metric.
   */
  verifyPow: 1024,
  /**
   * ~16,000 × ~80 µs (RSA-4096) ≈ 1.3 s of work on one core: far above admission's bursts (256
   * concurrent submitters × 64 per chunk would fill it) yet below a memory or latency hazard when
   * peers gossip. Verifying a whole block of MAX_TRANSACTIONS_PER_BLOCK needs chunking (canAccept)
   * or a larger bound.
   */
  verifyRsa: 16_384,
  /** ~256 × ~4 ms (RSA-4096 signing) ≈ 1 s on one core; the node signs a block or a message at a time. */
  signRsa: 256,
  /**
   * Miner jobs of ~0.25 s each: the miner keeps at most one per miner thread in flight, so the
   * other tasks never queue more than one job's time behind it (its low priority).
   */
  searchPow: 64,
  /**
   * Signer-miner jobs of ~10–30 ms: the signer miner keeps one in flight, and only while no
   * foreground task waits; a few more leave room for a bench or a test driving it directly.
   */
  searchSignerPow: 16,
  /** ~64 × ~5–10 ms (RSA-4096 sign or decrypt + ML-KEM) ≈ 0.5 s: handshakes are rare; a flood of signed frames is refused past it. */
  messagingCrypto: 64,
});

/** Default items per task. */
export const TASK_BATCH_MAX_ITEMS: Readonly<Record<PoolTaskName, number>> = Object.freeze({
  /** Large enough to amortise the ~50 µs hand-off, small enough to balance cores. */
  verifyPow: 32,
  /**
   * ~70–110 µs each, so a full task is ~4–7 ms of work against a ~50–100 µs hand-off, and results
   * come back often enough for admission to stream (src/chain/mempool.ts).
   */
  verifyRsa: 64,
  /** ~4 ms each: 8 is ~30 ms of work per task, so a burst still spreads over the workers. */
  signRsa: 8,
  /** One job per task: each job is already ~0.25 s of hashing. */
  searchPow: 1,
  /** One job per task: each is already a slice of hashing sized by the miner. */
  searchSignerPow: 1,
  /** One handshake step per task: each is several ms. */
  messagingCrypto: 1,
});

/**
 * The miners' searches, which `foregroundPending()` does not count, so neither miner waits for the
 * other: the signer miner sends its next small job only while that is 0; the built-in Argon2
 * miner's jobs run on threads of their own (`OWN_THREAD_TASKS`).
 */
export const BACKGROUND_TASKS: readonly PoolTaskName[] = Object.freeze(['searchPow', 'searchSignerPow']);

/**
 * Tasks on threads of their own (`minerThreads` of them, started on first use) at the lowest OS
 * priority: the built-in Argon2 miner (`--miner-threads`), opt-in and not consensus-critical, keeps
 * a job in flight per thread. The signer miner stays on the shared threads at normal priority: a
 * master cannot sign a block without its solution, and at nice 19 on a loaded machine it found
 * none in time (e9d89b4).
 */
export const OWN_THREAD_TASKS: readonly PoolTaskName[] = Object.freeze(['searchPow']);

/**
 * Consensus's RSA work runs on a thread of its own (started on first use), so a block is never
 * signed or its signatures checked behind the transaction checks queued on the shared threads: a
 * peer's push keeps thousands of them in flight (`TASKS_PER_WORKER`, the admission gate), ~0.5 s of
 * work, and a 1 s network would miss its interval. `signRsa` is only ever the block's signature
 * (the signer key, a few ms); `verifyRsa` goes there when asked with `{ urgent: true }` (a block's
 * signature entries, src/consensus/acceptance.ts). A handful of checks per block: the thread idles
 * otherwise.
 */
export const CONSENSUS_THREAD_TASKS: readonly PoolTaskName[] = Object.freeze(['signRsa']);

/**
 * How long an idle worker thread is kept: the longest timer Node accepts (~24.8 days). A larger
 * value overflows to 1 ms (harmless while minThreads = maxThreads, but a pool that starts threads
 * on demand would end each one as soon as it idles).
 */
const KEEP_IDLE_THREADS_MS = 2 ** 31 - 1;

/** How long a partial PoW batch waits for more items; 0 = dispatch on the next macrotask. */
export const DEFAULT_BATCH_DELAY_MS = 0;

/**
 * Tasks posted to each worker at once (piscina's `concurrentTasksPerWorker`), and the gathering
 * lane's (RSA) cap on tasks in flight per worker. A worker runs what it was posted back to back,
 * so it stays busy while the event loop is: a block's production and import hold the event loop
 * for a few hundred ms, and a worker with less posted ran dry and idled meanwhile (bench network
 * (a): one task per worker 3,300 tx/s, 8 tasks 4,050, 64 tasks with the deeper admission gate and
 * consensus on its own thread ~+19 %). 64 tasks of 64 RSA checks are ~0.4 s of work: what is
 * posted later waits that long under such a push, which is why consensus's checks and signature
 * do not share these threads (`CONSENSUS_THREAD_TASKS`).
 */
const TASKS_PER_WORKER = 64;
/** Fewest items of a gathering task when more wait: 16 RSA checks are ~1.7 ms against a ~50 µs hand-off. */
const GATHER_MIN_ITEMS = 16;

export interface WorkerPoolOptions {
  /** Worker threads in total (e.g. `defaultPoolThreads()`); 0 = everything in-process. */
  threads: number;
  /** Bound of each task's queue, in items waiting or running (default TASK_MAX_QUEUE). */
  maxQueue?: Partial<Record<PoolTaskName, number>>;
  /** Maximum items packed into one task (default TASK_BATCH_MAX_ITEMS). */
  batchMaxItems?: Partial<Record<PoolTaskName, number>>;
  /**
   * Threads of the built-in miner's own low-priority pool (`OWN_THREAD_TASKS`), started on first
   * use; default `threads`. Ignored when `threads` is 0 (everything in-process).
   */
  minerThreads?: number;
  /** Maximum wait of a partial PoW batch in ms (default DEFAULT_BATCH_DELAY_MS). */
  batchDelayMs?: number;
  /** Called for each task sent to a worker, after the send (for metrics: items per task). */
  onTask?: (task: { name: PoolTaskName; items: number; buffer: ArrayBuffer }) => void;
}

export interface WorkerPool {
  /**
   * One boolean per claim, in order (rpc-messaging `verifyminingsolution`).
   * @throws TypeError/RangeError naming the bad item; PoolBusyError; PoolClosedError.
   */
  verifyPow(claims: readonly PowClaim[]): Promise<boolean[]>;
  /**
   * One boolean per item, in order; an unusable key or signature is `false`. `urgent`: on the
   * consensus thread (`CONSENSUS_THREAD_TASKS`), not behind the transaction checks: for a block's
   * few signatures, never for bulk work. `first`: ahead of the checks still waiting to be posted
   * (this node's own RPC submissions, behind at most what the workers already hold).
   */
  verifyRsa(items: readonly RsaItem[], opts?: { urgent?: boolean; first?: boolean }): Promise<boolean[]>;
  /**
   * One RSASSA-PKCS1-v1_5 SHA-512 signature per item, in order (reference-formats §6.2).
   * @throws RsaKeyError (code ERR_RSA_KEY) naming the item whose key was refused.
   */
  signRsa(items: readonly RsaSignItem[]): Promise<Uint8Array[]>;
  /** The built-in miner's nonce search: one result per job (tasks/search-pow.ts). */
  searchPow(jobs: readonly SearchJob[]): Promise<SearchResult[]>;
  /** The signer miner's search (tasks/search-signer-pow.ts): one result per job. */
  searchSignerPow(jobs: readonly SignerSearchJob[]): Promise<SignerSearchResult[]>;
  /** Handshake steps of contact messaging (tasks/messaging.ts): one result per item, a MessagingError as `{ ok: false }`. */
  messagingCrypto(items: readonly MessagingCryptoItem[]): Promise<MessagingCryptoResult[]>;
  /** Whether `items` more of `task` would be accepted now (open, and within the task's bound). */
  canAccept(task: PoolTaskName, items?: number): boolean;
  /** Items of `task` waiting or running. */
  pending(task: PoolTaskName): number;
  /**
   * Items of the foreground tasks (every task but `BACKGROUND_TASKS`) waiting or running: a
   * background caller submits its next job only at 0. Always 0 in-process (threads: 0).
   */
  foregroundPending(): number;
  readonly threads: number;
  /** Asks one worker to describe itself (thread id, whether it compiled WASM itself). */
  describeWorker(): Promise<PoolWorkerInfo>;
  /** Stops accepting, finishes buffered and running work, stops the workers. Idempotent. */
  close(): Promise<void>;
}

/** The built worker entry: dist/pool/worker.js, also when this module runs from src/ under vitest. */
export function poolWorkerFile(): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts') ? resolve(dirname(here), '../../dist/pool/worker.js') : join(dirname(here), 'worker.js');
}

/** @internal Option check shared with the facades in verifier.ts. */
export function checkCount(where: string, name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`${where} ${name}: expected an integer ≥ ${min}, got ${String(value)}`);
  }
  return value;
}

interface Request<R> {
  results: R[];
  remaining: number;
  resolve(results: R[]): void;
  reject(error: unknown): void;
  failed: boolean;
}

interface Entry<I, R> {
  item: I;
  request: Request<R>;
  index: number;
}

interface LaneConfig<I, R> {
  task: PoolTask<I, R>;
  pool: Piscina;
  threads: number;
  maxQueue: number;
  batchMaxItems: number;
  /** 'split': PoW (timer packing, big requests split); 'gather': RSA (macrotask, in-flight cap). */
  schedule: 'split' | 'gather';
  batchDelayMs: number;
  onTask?: WorkerPoolOptions['onTask'];
}

/** One task's bounded queue and its batching. */
class Lane<I, R> {
  pending = 0;
  private batch: Entry<I, R>[] = [];
  /** Entries at the head of `batch` submitted with `first` (gather lanes), in their own order. */
  private firstCount = 0;
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private tasksInFlight = 0;
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly cfg: LaneConfig<I, R>) {}

  canAccept(items: number): boolean {
    return this.pending + items <= this.cfg.maxQueue;
  }

  /**
   * Queues the items; resolves with one result per item. `first` (gather lanes): ahead of the
   * items still waiting here, behind those already posted to a worker and earlier `first` ones.
   * @throws PoolBusyError past the bound
   */
  submit(items: readonly I[], first = false): Promise<R[]> {
    const { maxQueue, task } = this.cfg;
    if (!this.canAccept(items.length)) return Promise.reject(new PoolBusyError(this.pending, maxQueue, items.length, task.name));
    if (items.length === 0) return Promise.resolve([]);
    return new Promise<R[]>((resolvePromise, rejectPromise) => {
      const request: Request<R> = { results: new Array<R>(items.length), remaining: items.length, resolve: resolvePromise, reject: rejectPromise, failed: false };
      const entries = items.map((item, index) => ({ item, request, index }));
      this.pending += entries.length;
      if (this.cfg.schedule === 'split') this.enqueueSplit(entries);
      else this.enqueueGather(entries, first);
    });
  }

  /** Sends everything buffered, whatever the caps, and waits for every task. */
  async drain(): Promise<void> {
    this.clearTimer();
    while (this.batch.length > 0) this.dispatch(this.take(this.cfg.batchMaxItems));
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private settle(entries: Entry<I, R>[], outcome: R[] | Error): void {
    this.pending -= entries.length;
    for (let i = 0; i < entries.length; i++) {
      const { request, index } = entries[i]!;
      if (request.failed) continue;
      const result = outcome instanceof Error ? outcome : outcome[i]!;
      if (result instanceof Error) {
        request.failed = true;
        if (!(outcome instanceof Error)) result.message = `item ${index}: ${result.message}`;
        request.reject(result);
        continue;
      }
      request.results[index] = result;
      if (--request.remaining === 0) request.resolve(request.results);
    }
  }

  private dispatch(entries: Entry<I, R>[]): void {
    const { task, pool } = this.cfg;
    const buffer = task.pack(entries.map((e) => e.item));
    this.tasksInFlight++;
    const run = pool.run(buffer, { name: task.name, transferList: [buffer] }) as Promise<Uint8Array>;
    this.cfg.onTask?.({ name: task.name, items: entries.length, buffer });
    const done = run
      .then((packed) => task.results(packed, entries.length))
      .then(
        (results) => this.settle(entries, results),
        (error: unknown) => this.settle(entries, error instanceof Error ? error : new Error(String(error))),
      )
      .finally(() => {
        this.running.delete(done);
        this.tasksInFlight--;
        if (this.cfg.schedule === 'gather' && this.batch.length > 0 && this.timer === undefined) this.flushGather();
      });
    this.running.add(done);
  }

  private clearTimer(): void {
    if (this.timer === undefined) return;
    if (this.cfg.schedule === 'split' && this.cfg.batchDelayMs > 0) clearTimeout(this.timer as NodeJS.Timeout);
    else clearImmediate(this.timer as NodeJS.Immediate);
    this.timer = undefined;
  }

  private readonly flushSplit = (): void => {
    this.clearTimer();
    if (this.batch.length === 0) return;
    const entries = this.batch;
    this.batch = [];
    this.dispatch(entries);
  };

  private enqueueSplit(entries: Entry<I, R>[]): void {
    const { batchMaxItems, batchDelayMs, threads } = this.cfg;
    if (entries.length >= batchMaxItems) {
      // Big request: split evenly over the workers, at most batchMaxItems per task.
      const perTask = Math.min(batchMaxItems, Math.ceil(entries.length / threads));
      for (let at = 0; at < entries.length; at += perTask) this.dispatch(entries.slice(at, at + perTask));
      return;
    }
    for (const entry of entries) {
      this.batch.push(entry);
      if (this.batch.length >= batchMaxItems) this.flushSplit();
    }
    if (this.batch.length > 0 && this.timer === undefined) {
      this.timer = batchDelayMs === 0 ? setImmediate(this.flushSplit) : setTimeout(this.flushSplit, batchDelayMs);
    }
  }

  private readonly flushGather = (): void => {
    this.timer = undefined;
    const maxInFlight = Math.max(1, this.cfg.threads) * TASKS_PER_WORKER;
    while (this.batch.length > 0 && this.tasksInFlight < maxInFlight) {
      // Spread what waits over the free task slots, at most batchMaxItems per task and at least
      // GATHER_MIN_ITEMS (a smaller task is mostly hand-off).
      const spread = Math.ceil(this.batch.length / (maxInFlight - this.tasksInFlight));
      const per = Math.min(this.cfg.batchMaxItems, Math.max(spread, GATHER_MIN_ITEMS));
      this.dispatch(this.take(per));
    }
  };

  /** The first `n` waiting entries, taken out of `batch`. */
  private take(n: number): Entry<I, R>[] {
    const taken = this.batch.splice(0, n);
    this.firstCount = Math.max(0, this.firstCount - taken.length);
    return taken;
  }

  private enqueueGather(entries: Entry<I, R>[], first: boolean): void {
    if (first) {
      this.batch.splice(this.firstCount, 0, ...entries);
      this.firstCount += entries.length;
    } else {
      for (const entry of entries) this.batch.push(entry);
    }
    if (this.timer === undefined) this.timer = setImmediate(this.flushGather);
  }
}

/** Runs a task's items on the calling thread (threads: 0); the first refused item throws. */
function runInProcess<I, R>(task: PoolTask<I, R>, items: readonly I[]): R[] {
  return items.map((item, i) => {
    const result = task.runOne(item, {});
    if (result instanceof Error) {
      result.message = `item ${i}: ${result.message}`;
      throw result;
    }
    return result;
  });
}

function checkArray(what: string, items: unknown): void {
  if (!Array.isArray(items)) throw new TypeError(`${what}: expected an array of items, got ${describeType(items)}`);
}

function checkObject(what: string, i: number, item: unknown): void {
  if (item === null || typeof item !== 'object') throw new TypeError(`${what}: item ${i}: expected an object, got ${describeType(item)}`);
}

/**
 * Creates the node's worker pool.
 * @example
 * const pool = createWorkerPool({ threads: defaultPoolThreads() });
 * const [ok] = await pool.verifyRsa([{ publicKey, data, signature }]);
 * await pool.close();
 */
export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const where = 'createWorkerPool';
  const threads = checkCount(where, 'threads', options?.threads, 0);
  const batchDelayMs = checkCount(where, 'batchDelayMs', options.batchDelayMs ?? DEFAULT_BATCH_DELAY_MS, 0);
  const bound = (task: PoolTaskName) => checkCount(where, `maxQueue.${task}`, options.maxQueue?.[task] ?? TASK_MAX_QUEUE[task], 1);
  const batchMax = (task: PoolTaskName) => checkCount(where, `batchMaxItems.${task}`, options.batchMaxItems?.[task] ?? TASK_BATCH_MAX_ITEMS[task], 1);
  const names = Object.keys(TASK_MAX_QUEUE) as PoolTaskName[];
  const limits = Object.fromEntries(names.map((n) => [n, bound(n)])) as Record<PoolTaskName, number>;
  const batches = Object.fromEntries(names.map((n) => [n, batchMax(n)])) as Record<PoolTaskName, number>;

  const workerData: PoolWorkerData = { coreModule: wasmModule('core'), flavour: coreFlavour() };
  /**
   * A Piscina of this pool's worker file (none in-process): threads kept once started (a steady
   * server never churns them), no per-task timing histograms (nothing reads them, and admission
   * posts many tasks), a task bound (tasks ≤ items: the item bounds trip first).
   */
  const piscina = (o: { maxThreads: number; onDemand: boolean; maxQueue: number; data: PoolWorkerData; tasksPerWorker?: number }) =>
    threads === 0 ? undefined : new Piscina({
      filename: poolWorkerFile(),
      minThreads: o.onDemand ? 0 : o.maxThreads,
      maxThreads: o.maxThreads,
      idleTimeout: KEEP_IDLE_THREADS_MS,
      maxQueue: o.maxQueue,
      recordTiming: false,
      ...(o.tasksPerWorker ? { concurrentTasksPerWorker: o.tasksPerWorker } : {}),
      workerData: o.data,
    });
  const pool = piscina({ maxThreads: threads, onDemand: false, maxQueue: names.reduce((sum, n) => sum + limits[n], 0), data: workerData, tasksPerWorker: TASKS_PER_WORKER });
  // The built-in miner's threads: started when it first searches (most nodes never mine); one job
  // posted per thread at a time, so a search spreads over them.
  const minerThreads = threads === 0 ? 0 : checkCount(where, 'minerThreads', options.minerThreads ?? threads, 1);
  const minerPool = piscina({ maxThreads: minerThreads, onDemand: true, maxQueue: OWN_THREAD_TASKS.reduce((sum, n) => sum + limits[n], 0), data: { ...workerData, lowPriority: true } });
  // Consensus's thread (CONSENSUS_THREAD_TASKS): started when a block is first signed or checked.
  const consensusPool = piscina({ maxThreads: 1, onDemand: true, maxQueue: limits.signRsa + limits.verifyRsa, data: workerData, tasksPerWorker: TASKS_PER_WORKER });

  const lane = <I, R>(task: PoolTask<I, R>, schedule: 'split' | 'gather', urgent = CONSENSUS_THREAD_TASKS.includes(task.name)) => {
    const own = OWN_THREAD_TASKS.includes(task.name);
    const piscina = own ? minerPool : urgent ? consensusPool : pool;
    const laneThreads = own ? minerThreads : urgent ? 1 : threads;
    return piscina && new Lane<I, R>({ task, pool: piscina, threads: laneThreads, maxQueue: limits[task.name], batchMaxItems: batches[task.name], schedule, batchDelayMs, onTask: options.onTask });
  };
  const lanes = {
    verifyPow: lane(verifyPowTask, 'split'),
    verifyRsa: lane(verifyRsaTask, 'gather'),
    signRsa: lane(signRsaTask, 'gather'),
    searchPow: lane(searchPowTask, 'split'),
    searchSignerPow: lane(searchSignerPowTask, 'split'),
    messagingCrypto: lane(messagingCryptoTask, 'gather'),
  } satisfies Record<PoolTaskName, unknown>;
  /** `verifyRsa(…, { urgent: true })`: a block's signatures, on the consensus thread. */
  const urgentVerifyRsa = lane(verifyRsaTask, 'gather', true);

  let closed = false;

  async function verifyPow(claims: readonly PowClaim[]): Promise<boolean[]> {
    if (closed) throw new PoolClosedError('verifyPow');
    if (!Array.isArray(claims)) throw new TypeError(`verify: expected an array of PoW claims, got ${describeType(claims)}`);
    const packed: PackedClaim[] = claims.map((claim, i) => {
      try {
        return packedClaim(claim);
      } catch (error) {
        if (error instanceof Error) error.message = `item ${i}: ${error.message}`;
        throw error;
      }
    });
    if (!lanes.verifyPow) return runInProcess(verifyPowTask, packed);
    // A nonce of the wrong length fails without work (and is not sent).
    const work = packed.filter((p) => powNonceValid(hashedNonce(p.variant, p.claim.nonce), p.variant));
    if (work.length === packed.length) return lanes.verifyPow.submit(packed);
    const results = await lanes.verifyPow.submit(work);
    let next = 0;
    return packed.map((p) => work[next] === p && results[next++]!);
  }

  async function verifyRsa(items: readonly RsaItem[], opts?: { urgent?: boolean; first?: boolean }): Promise<boolean[]> {
    if (closed) throw new PoolClosedError('verifyRsa');
    checkArray('verifyRsa', items);
    // Each field read once and its bytes copied at the call, as verifyPow's: the items may wait in
    // the lane, and a caller reusing its buffers meanwhile must still get the answer for these bytes.
    const copies = items.map((item, i): RsaItem => {
      checkObject('verifyRsa', i, item);
      const { publicKey, data, signature } = item;
      assertBytes(publicKey, `verifyRsa: item ${i}: publicKey`);
      assertBytes(data, `verifyRsa: item ${i}: data`);
      assertBytes(signature, `verifyRsa: item ${i}: signature`);
      return { publicKey: new Uint8Array(publicKey), data: new Uint8Array(data), signature: new Uint8Array(signature) };
    });
    const on = opts?.urgent ? urgentVerifyRsa : lanes.verifyRsa;
    return on ? on.submit(copies, opts?.first === true) : runInProcess(verifyRsaTask, copies);
  }

  async function signRsa(items: readonly RsaSignItem[]): Promise<Uint8Array[]> {
    if (closed) throw new PoolClosedError('signRsa');
    checkArray('signRsa', items);
    const copies = items.map((item, i): RsaSignItem => {
      checkObject('signRsa', i, item);
      const { privateKeyDer, data } = item;
      assertBytes(privateKeyDer, `signRsa: item ${i}: privateKeyDer`);
      assertBytes(data, `signRsa: item ${i}: data`);
      return { privateKeyDer: new Uint8Array(privateKeyDer), data: new Uint8Array(data) };
    });
    return (lanes.signRsa ? lanes.signRsa.submit(copies) : runInProcess(signRsaTask, copies)) as Promise<Uint8Array[]> | Uint8Array[];
  }

  async function searchPow(jobs: readonly SearchJob[]): Promise<SearchResult[]> {
    if (closed) throw new PoolClosedError('searchPow');
    checkArray('searchPow', jobs);
    jobs.forEach((job, i) => {
      checkObject('searchPow', i, job);
      assertBytes(job.blockChecksum, `searchPow: item ${i}: blockChecksum`);
      assertBytes(job.solverAddress, `searchPow: item ${i}: solverAddress`);
      assertBytes(job.prefix, `searchPow: item ${i}: prefix`);
      if (job.prefix.length < 1 || job.prefix.length > SEARCH_MAX_PREFIX) throw new RangeError(`searchPow: item ${i}: prefix of ${job.prefix.length} bytes, expected 1–${SEARCH_MAX_PREFIX}`);
      checkCount('searchPow', `item ${i}: count`, job.count, 0);
      checkCount('searchPow', `item ${i}: start`, job.start, 0);
    });
    return lanes.searchPow ? lanes.searchPow.submit(jobs) : runInProcess(searchPowTask, jobs);
  }

  async function searchSignerPow(jobs: readonly SignerSearchJob[]): Promise<SignerSearchResult[]> {
    if (closed) throw new PoolClosedError('searchSignerPow');
    checkArray('searchSignerPow', jobs);
    jobs.forEach((job, i) => {
      checkObject('searchSignerPow', i, job);
      checkSignerSearchJob(job, `searchSignerPow: item ${i}`);
    });
    return lanes.searchSignerPow ? lanes.searchSignerPow.submit(jobs) : runInProcess(searchSignerPowTask, jobs);
  }

  async function messagingCrypto(items: readonly MessagingCryptoItem[]): Promise<MessagingCryptoResult[]> {
    if (closed) throw new PoolClosedError('messagingCrypto');
    checkArray('messagingCrypto', items);
    items.forEach((item, i) => checkObject('messagingCrypto', i, item));
    return lanes.messagingCrypto ? lanes.messagingCrypto.submit(items) : runInProcess(messagingCryptoTask, items);
  }

  let closing: Promise<void> | undefined;
  function close(): Promise<void> {
    closing ??= (async () => {
      closed = true;
      if (!pool) return;
      await Promise.all([...Object.values(lanes), urgentVerifyRsa].map((l) => l!.drain()));
      await Promise.all([pool.close(), minerPool?.close(), consensusPool?.close()]);
    })();
    return closing;
  }

  return {
    verifyPow,
    verifyRsa,
    signRsa,
    searchPow,
    searchSignerPow,
    messagingCrypto,
    canAccept(task, items = 1) {
      if (closed) return false;
      return lanes[task]?.canAccept(items) ?? true;
    },
    pending(task) {
      return (lanes[task]?.pending ?? 0) + (task === 'verifyRsa' ? (urgentVerifyRsa?.pending ?? 0) : 0);
    },
    foregroundPending() {
      let n = urgentVerifyRsa?.pending ?? 0;
      for (const name of names) if (!BACKGROUND_TASKS.includes(name)) n += lanes[name]?.pending ?? 0;
      return n;
    },
    threads,
    async describeWorker() {
      if (!pool) throw new Error('describeWorker: the pool runs in-process (threads: 0)');
      return (await pool.run(null, { name: 'describeWorker' })) as PoolWorkerInfo;
    },
    close,
  };
}
