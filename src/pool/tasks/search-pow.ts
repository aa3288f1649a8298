/**
 * Task `searchPow`: the built-in miner's nonce search (reference-formats.md §11.1–§11.2, the v3
 * Argon2id rule of v5+ blocks). One item is a search job: try `count` nonces `prefix ‖ u32 LE i`
 * (i from `start`) for a block checksum and solver address, stop at the first whose hash is below
 * the difficulty's ceiling.
 *
 * Packed with tasks/codec.ts, 4 parts per item: meta (u64 LE difficulty, u32 LE start, u32 LE
 * count), block checksum, solver address, nonce prefix (1–60 bytes). Result per item: u32 LE
 * nonces tried, u8 found, then the 64-byte slot of the found nonce's length-prefixed bytes.
 */
import { POW_MAX_NONCE, powCheck, powHashVariant } from '../../core/pow.js';
import { packParts, unpackParts } from './codec.js';
import type { PoolTask, TaskContext } from './types.js';

export interface SearchJob {
  blockChecksum: Uint8Array;
  solverAddress: Uint8Array;
  difficulty: bigint;
  /** Random prefix of every nonce of the job; the counter takes the last 4 bytes. */
  prefix: Uint8Array;
  start: number;
  count: number;
}

export interface SearchResult {
  tried: number;
  /** The nonce that solves the block, or null. */
  nonce: Uint8Array | null;
}

const WHAT = 'searchPow';
const PARTS = 4;
const META_BYTES = 16;
const COUNTER_BYTES = 4;
/** Longest nonce prefix: the nonce (≤ 64 bytes, §11.1) keeps 4 bytes for the counter. */
export const SEARCH_MAX_PREFIX = POW_MAX_NONCE - COUNTER_BYTES;
/** Result bytes per item: tried (4), found (1), nonce length (1), nonce slot (64). */
const RESULT_BYTES = 4 + 1 + 1 + POW_MAX_NONCE;

function meta(job: SearchJob): Uint8Array {
  const out = new Uint8Array(META_BYTES);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, job.difficulty, true);
  view.setUint32(8, job.start, true);
  view.setUint32(12, job.count, true);
  return out;
}

/** Runs one job on this thread's core. */
function search(job: SearchJob, context: TaskContext): SearchResult {
  const nonce = new Uint8Array(job.prefix.length + COUNTER_BYTES);
  nonce.set(job.prefix);
  const counter = new DataView(nonce.buffer, job.prefix.length, COUNTER_BYTES);
  for (let i = 0; i < job.count; i++) {
    counter.setUint32(0, (job.start + i) >>> 0, true);
    const hash = powHashVariant('v3', job.blockChecksum, job.solverAddress, nonce, context.core);
    if (powCheck(hash, job.difficulty)) return { tried: i + 1, nonce: nonce.slice() };
  }
  return { tried: job.count, nonce: null };
}

export const searchPowTask: PoolTask<SearchJob, SearchResult> = {
  name: 'searchPow',
  pack(items) {
    return packParts(items.map((j) => [meta(j), j.blockChecksum, j.solverAddress, j.prefix]), PARTS, WHAT);
  },
  unpack(task) {
    return unpackParts(task, PARTS, WHAT).map(([m, blockChecksum, solverAddress, prefix], i) => {
      if (m!.length !== META_BYTES) throw new RangeError(`${WHAT} task: item ${i} meta has ${m!.length} bytes, expected ${META_BYTES}`);
      if (prefix!.length < 1 || prefix!.length > SEARCH_MAX_PREFIX) throw new RangeError(`${WHAT} task: item ${i} prefix of ${prefix!.length} bytes, expected 1–${SEARCH_MAX_PREFIX}`);
      const view = new DataView(m!.buffer, m!.byteOffset, META_BYTES);
      return { difficulty: view.getBigUint64(0, true), start: view.getUint32(8, true), count: view.getUint32(12, true), blockChecksum: blockChecksum!, solverAddress: solverAddress!, prefix: prefix! };
    });
  },
  handle(task, context) {
    const items = searchPowTask.unpack(task);
    const out = new Uint8Array(items.length * RESULT_BYTES);
    const view = new DataView(out.buffer);
    items.forEach((job, i) => {
      const r = search(job, context);
      const at = i * RESULT_BYTES;
      view.setUint32(at, r.tried, true);
      if (r.nonce) {
        out[at + 4] = 1;
        out[at + 5] = r.nonce.length;
        out.set(r.nonce, at + 6);
      }
    });
    return out;
  },
  results(packed, count) {
    if (packed.length !== count * RESULT_BYTES) throw new RangeError(`${WHAT} result: ${packed.length} bytes for ${count} items`);
    const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
    return Array.from({ length: count }, (_, i) => {
      const at = i * RESULT_BYTES;
      const found = packed[at + 4] === 1;
      return { tried: view.getUint32(at, true), nonce: found ? packed.slice(at + 6, at + 6 + packed[at + 5]!) : null };
    });
  },
  runOne(item, context) {
    return search(item, context);
  },
};
