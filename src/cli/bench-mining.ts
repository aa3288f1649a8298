/**
 * `dltnode bench pow --mining`: the built-in miner's search rate (reference-formats.md §11.1
 * parameters). Nonces searched per second through the node's worker pool (task `searchPow`, the
 * jobs the built-in miner sends, one per thread in flight), against @node-rs/argon2 (native
 * Argon2id) hashing the same password and expanded 234 236-byte salt in as many worker threads.
 * One run of each, the same seconds.
 */
import { randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { POW_PARAMS, powHash } from '../core/pow.js';
import { coreFlavour } from '../core/wasm.js';
import { NONCES_PER_JOB } from '../mining/miner.js';
import { createWorkerPool } from '../pool/index.js';

export interface MiningBenchResult {
  params: typeof POW_PARAMS;
  threads: number;
  seconds: number;
  ours: { build: string; nonces: number; perSecond: number };
  nodeRsArgon2: { nonces: number; perSecond: number } | { error: string };
  cpus: number;
  node: string;
}

/** The worker of the @node-rs/argon2 side: hashes expanded salts until told to stop, posts its count. */
const NATIVE_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { hashRawSync } = require('@node-rs/argon2');
const { password, saltLength, seconds, params } = workerData;
const salt = Buffer.alloc(saltLength, 0x23);
let n = 0;
const end = Date.now() + seconds * 1000;
while (Date.now() < end) {
  salt.writeUInt32LE(n >>> 0, 0);
  hashRawSync(password, { salt, timeCost: params.timeCost, memoryCost: params.memoryCost, parallelism: params.parallelism, outputLen: params.hashLength, algorithm: 2, version: 1 });
  n++;
}
parentPort.postMessage(n);
`;

async function nativeRate(threads: number, seconds: number, password: Uint8Array): Promise<{ nonces: number; perSecond: number } | { error: string }> {
  try {
    const counts = await Promise.all(Array.from({ length: Math.max(1, threads) }, () => new Promise<number>((resolve, reject) => {
      const w = new Worker(NATIVE_WORKER, { eval: true, workerData: { password, saltLength: POW_PARAMS.saltLength, seconds, params: POW_PARAMS } });
      w.once('message', (n: number) => resolve(n));
      w.once('error', reject);
    })));
    const nonces = counts.reduce((a, b) => a + b, 0);
    return { nonces, perSecond: Number((nonces / seconds).toFixed(1)) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** Runs both sides, one after the other, `seconds` each. */
export async function runMiningBench(opts: { threads: number; seconds: number }): Promise<MiningBenchResult> {
  const threads = Math.max(1, opts.threads);
  const checksum = randomBytes(64);
  const solver = randomBytes(45);
  // Same work per hash on both sides: the §11.1 password and parameters.
  powHash(checksum, solver, Uint8Array.of(1));
  const pool = createWorkerPool({ threads });
  let nonces = 0;
  try {
    await pool.searchPow([{ blockChecksum: checksum, solverAddress: solver, difficulty: 0xffff_ffff_ffff_ffffn, prefix: randomBytes(28), start: 0, count: 1 }]);
    const end = Date.now() + opts.seconds * 1000;
    const start = performance.now();
    await Promise.all(Array.from({ length: threads }, async () => {
      while (Date.now() < end) {
        const [r] = await pool.searchPow([{ blockChecksum: checksum, solverAddress: solver, difficulty: 0xffff_ffff_ffff_ffffn, prefix: randomBytes(28), start: 0, count: NONCES_PER_JOB }]);
        nonces += r!.tried;
      }
    }));
    const elapsed = (performance.now() - start) / 1000;
    const ours = { build: coreFlavour(), nonces, perSecond: Number((nonces / elapsed).toFixed(1)) };
    await pool.close();
    const password = new Uint8Array([...checksum, ...solver]);
    return {
      params: POW_PARAMS, threads, seconds: opts.seconds, ours, nodeRsArgon2: await nativeRate(threads, opts.seconds, password),
      cpus: availableParallelism(), node: process.version,
    };
  } finally {
    await pool.close();
  }
}

export function formatMiningBench(r: MiningBenchResult): string {
  const p = r.params;
  const native = 'error' in r.nodeRsArgon2 ? `unavailable (${r.nodeRsArgon2.error})` : `${r.nodeRsArgon2.nonces} nonces, ${r.nodeRsArgon2.perSecond} nonces/s`;
  return [
    `Mining search: Argon2id v1.3, t=${p.timeCost}, m=${p.memoryCost} KiB, p=${p.parallelism}, salt ${p.saltLength} B; ${r.threads} worker thread(s) of ${r.cpus} CPUs, ${r.seconds} s each; node ${r.node}`,
    `ours (WASM ${r.ours.build}, pool task searchPow): ${r.ours.nonces} nonces, ${r.ours.perSecond} nonces/s`,
    `@node-rs/argon2 (native, worker threads): ${native}`,
  ].join('\n');
}
