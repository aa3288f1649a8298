/**
 * Task `searchSignerPow`: the signer miner's search (reference-formats.md §12) on a worker's WASM
 * core (src/core/signer-pow.ts `signerPowSearch`). One item is a job: starting at `start`, try up
 * to `count` solutions (a little-endian counter over the solution bytes) of one challenge prefix
 * against a 64-byte little-endian target; stop at the first hash h with 0 < h ≤ target.
 *
 * Packed with tasks/codec.ts, 4 parts per item: meta (u32 LE count), prefix, start, target.
 * Result, packed with the same codec, 6 parts per item: meta (u32 LE tried, u32 LE microseconds
 * of hashing, u8 found), solution, hash, next, best hash, best solution (an absent value is an
 * empty part).
 */
import { performance } from 'node:perf_hooks';
import {
  signerPowSearch, SIGNER_POW_HASH_LENGTH, SIGNER_POW_MAX_BATCH, SIGNER_POW_MAX_PREFIX, SIGNER_POW_MAX_SOLUTION,
} from '../../core/signer-pow.js';
import { packParts, unpackParts } from './codec.js';
import type { PoolTask, TaskContext } from './types.js';

export interface SignerSearchJob {
  /** `signerPowChallengePrefix(...)`: everything of the challenge before the solution. */
  prefix: Uint8Array;
  /** First solution tried (1–64 bytes; the miner's are 32). */
  start: Uint8Array;
  /** 64-byte little-endian target (`signerPowTargetForDifficulty`). */
  target: Uint8Array;
  /** Solutions to try, 1..SIGNER_POW_MAX_BATCH. */
  count: number;
}

export interface SignerSearchResult {
  /** The solution whose hash meets the target, or null. */
  solution: Uint8Array | null;
  /** Its hash, or null. */
  hash: Uint8Array | null;
  /** Solutions hashed (the hit included). */
  tried: number;
  /** Microseconds the worker spent hashing (its own clock: excludes queueing and hand-off). */
  micros: number;
  /** The solution to start the next job with. */
  next: Uint8Array;
  /** Lowest non-negative hash of the job and its solution (null when every hash was negative). */
  bestHash: Uint8Array | null;
  bestSolution: Uint8Array | null;
}

const WHAT = 'searchSignerPow';
const PARTS = 4;
const RESULT_PARTS = 6;
const META_BYTES = 4;
const RESULT_META_BYTES = 9;
const EMPTY = new Uint8Array(0);

/** Checks one job's shape; the same sentences on both sides of the pool. @throws TypeError/RangeError */
export function checkSignerSearchJob(job: SignerSearchJob, where: string): void {
  if (job === null || typeof job !== 'object') throw new TypeError(`${where}: expected a job object`);
  for (const name of ['prefix', 'start', 'target'] as const) {
    if (!(job[name] instanceof Uint8Array)) throw new TypeError(`${where}: ${name} must be a Uint8Array`);
  }
  if (job.prefix.length < 1 || job.prefix.length > SIGNER_POW_MAX_PREFIX) throw new RangeError(`${where}: prefix of ${job.prefix.length} bytes, expected 1–${SIGNER_POW_MAX_PREFIX}`);
  if (job.start.length < 1 || job.start.length > SIGNER_POW_MAX_SOLUTION) throw new RangeError(`${where}: start solution of ${job.start.length} bytes, expected 1–${SIGNER_POW_MAX_SOLUTION}`);
  if (job.target.length !== SIGNER_POW_HASH_LENGTH) throw new RangeError(`${where}: target of ${job.target.length} bytes, expected ${SIGNER_POW_HASH_LENGTH}`);
  if (!Number.isInteger(job.count) || job.count < 1 || job.count > SIGNER_POW_MAX_BATCH) {
    throw new RangeError(`${where}: count ${String(job.count)}, expected an integer 1–${SIGNER_POW_MAX_BATCH}`);
  }
}

/** Runs one job on this thread's core. */
function search(job: SignerSearchJob, context: TaskContext): SignerSearchResult {
  const t0 = performance.now();
  const r = signerPowSearch(job.prefix, job.start, job.target, job.count, context.core);
  return { ...r, micros: Math.min(0xffff_ffff, Math.round((performance.now() - t0) * 1000)) };
}

const orNull = (b: Uint8Array): Uint8Array | null => (b.length === 0 ? null : b.slice());

export const searchSignerPowTask: PoolTask<SignerSearchJob, SignerSearchResult> = {
  name: 'searchSignerPow',
  pack(items) {
    return packParts(items.map((j) => {
      const meta = new Uint8Array(META_BYTES);
      new DataView(meta.buffer).setUint32(0, j.count, true);
      return [meta, j.prefix, j.start, j.target];
    }), PARTS, WHAT);
  },
  unpack(task) {
    return unpackParts(task, PARTS, WHAT).map(([m, prefix, start, target], i) => {
      if (m!.length !== META_BYTES) throw new RangeError(`${WHAT} task: item ${i} meta has ${m!.length} bytes, expected ${META_BYTES}`);
      const job = { count: new DataView(m!.buffer, m!.byteOffset, META_BYTES).getUint32(0, true), prefix: prefix!, start: start!, target: target! };
      checkSignerSearchJob(job, `${WHAT} task: item ${i}`);
      return job;
    });
  },
  handle(task, context) {
    const results = searchSignerPowTask.unpack(task).map((job) => {
      const r = search(job, context);
      const meta = new Uint8Array(RESULT_META_BYTES);
      const view = new DataView(meta.buffer);
      view.setUint32(0, r.tried, true);
      view.setUint32(4, r.micros, true);
      meta[8] = r.solution ? 1 : 0;
      return [meta, r.solution ?? EMPTY, r.hash ?? EMPTY, r.next, r.bestHash ?? EMPTY, r.bestSolution ?? EMPTY];
    });
    return new Uint8Array(packParts(results, RESULT_PARTS, `${WHAT} result`));
  },
  results(packed, count) {
    const items = unpackParts(packed, RESULT_PARTS, `${WHAT} result`);
    if (items.length !== count) throw new RangeError(`${WHAT} result: expected ${count} items, got ${items.length}`);
    return items.map(([m, solution, hash, next, bestHash, bestSolution]) => {
      if (m!.length !== RESULT_META_BYTES) throw new RangeError(`${WHAT} result: meta of ${m!.length} bytes, expected ${RESULT_META_BYTES}`);
      const view = new DataView(m!.buffer, m!.byteOffset, RESULT_META_BYTES);
      const found = m![8] === 1;
      return {
        solution: found ? solution!.slice() : null,
        hash: found ? hash!.slice() : null,
        tried: view.getUint32(0, true),
        micros: view.getUint32(4, true),
        next: next!.slice(),
        bestHash: orNull(bestHash!),
        bestSolution: orNull(bestSolution!),
      };
    });
  },
  runOne(item, context) {
    return search(item, context);
  },
};
