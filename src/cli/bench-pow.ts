/**
 * `dltnode bench pow`: the PoW verification benchmark as a product feature (practice P43), for
 * people comparing machines. It verifies random mining claims (reference-formats.md §11 parameters:
 * Argon2id t=2, m=2048 KiB, p=2, 234,236-byte salt) through the same verifier pool the node uses,
 * one claim per request with many requests in flight, and prints the parameters, the WASM build,
 * the threads, verifications per second and per-request latency percentiles (or JSON).
 */
import { randomBytes } from 'node:crypto';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { availableParallelism } from 'node:os';
import { ConfigError, integer } from '../config/options.js';
import { REG_MINING_DIFFICULTY } from '../chain/constants.js';
import { POW_PARAMS, type PowClaim } from '../core/pow.js';
import { SIMD_SUPPORTED, coreFlavour } from '../core/wasm.js';
import { createPowVerifier, defaultPoolThreads } from '../pool/verifier.js';

export const BENCH_POW_HELP = `Usage: dltnode bench pow [--threads N] [--seconds S] [--in-flight K] [--mining] [--json]

Verifies random mining claims (Argon2id t=${POW_PARAMS.timeCost}, m=${POW_PARAMS.memoryCost} KiB, p=${POW_PARAMS.parallelism}, ${POW_PARAMS.saltLength}-byte salt)
through the node's PoW verifier pool and prints verifications/s and request latency.

  --threads N       worker threads (default ${defaultPoolThreads()}; 0 = on the main thread)
  --seconds S       measuring time after a 1 s warm-up (default 5, at most 600)
  --in-flight K     requests kept in flight (default 4 per thread, at least 1)
  --mining          mining mode: nonces searched per second through the built-in miner's pool
                    task, then @node-rs/argon2 in as many worker threads, the same seconds each
  --json            print one JSON object instead of text
DLTNODE_WASM=scalar|simd selects the core build.`;

/** Distinct random claims cycled through (they all fail the difficulty check; the cost is the same). */
const CLAIM_COUNT = 64;

export interface PowBenchResult {
  params: typeof POW_PARAMS;
  wasm: { build: string; simdSupported: boolean };
  threads: number;
  inFlight: number;
  seconds: number;
  verifications: number;
  perSecond: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  cpus: number;
  node: string;
}

/** An optional integer flag: absent → fallback, else the option table's integer rule. */
const intOption = (value: string | undefined, name: string, fallback: number, min: number, max: number): number =>
  value === undefined ? fallback : integer(min, max)(value, `--${name}`);

export function parseBenchPowArgs(argv: string[]): { threads: number; seconds: number; inFlight: number; json: boolean; help: boolean; mining: boolean } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        threads: { type: 'string' },
        seconds: { type: 'string' },
        'in-flight': { type: 'string' },
        json: { type: 'boolean' },
        mining: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (e) {
    throw new ConfigError(`${(e as Error).message}; see dltnode bench pow --help`);
  }
  const v = parsed.values;
  const threads = intOption(v.threads, 'threads', defaultPoolThreads(), 0, 256);
  return {
    threads,
    seconds: intOption(v.seconds, 'seconds', 5, 1, 600),
    inFlight: intOption(v['in-flight'], 'in-flight', Math.max(1, threads) * 4, 1, 4096),
    json: v.json === true,
    help: v.help === true,
    mining: v.mining === true,
  };
}

const percentile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/** Runs the benchmark: `inFlight` single-claim requests kept in flight for `seconds` after a warm-up. */
export async function runPowBench(opts: { threads: number; seconds: number; inFlight: number }): Promise<PowBenchResult> {
  const claims: PowClaim[] = Array.from({ length: CLAIM_COUNT }, () => ({
    blockChecksum: randomBytes(64),
    solverAddress: randomBytes(45),
    nonce: randomBytes(64),
    difficulty: REG_MINING_DIFFICULTY,
  }));
  const verifier = createPowVerifier({ threads: opts.threads, maxQueue: Math.max(opts.inFlight, 1024) });
  const latencies: number[] = [];
  let next = 0;
  let measuring = false;
  let done = 0;
  let stop = false;
  const worker = async (): Promise<void> => {
    while (!stop) {
      const claim = claims[next++ % CLAIM_COUNT]!;
      const t0 = performance.now();
      await verifier.verify([claim]);
      if (measuring && !stop) {
        latencies.push(performance.now() - t0);
        done++;
      }
      // In-process verification resolves at once: let the timers that end the run fire.
      if (opts.threads === 0) await nextMacrotask();
    }
  };
  try {
    const loops = Array.from({ length: opts.inFlight }, worker);
    await new Promise((r) => setTimeout(r, 1000)); // warm-up: workers instantiate WASM, memory reserved
    measuring = true;
    const start = performance.now();
    await new Promise((r) => setTimeout(r, opts.seconds * 1000));
    const elapsed = (performance.now() - start) / 1000;
    measuring = false;
    stop = true;
    await Promise.all(loops);
    latencies.sort((a, b) => a - b);
    return {
      params: POW_PARAMS,
      wasm: { build: coreFlavour(), simdSupported: SIMD_SUPPORTED },
      threads: opts.threads,
      inFlight: opts.inFlight,
      seconds: Number(elapsed.toFixed(3)),
      verifications: done,
      perSecond: Number((done / elapsed).toFixed(1)),
      latencyMs: {
        p50: Number(percentile(latencies, 0.5).toFixed(3)),
        p95: Number(percentile(latencies, 0.95).toFixed(3)),
        p99: Number(percentile(latencies, 0.99).toFixed(3)),
        max: Number((latencies.at(-1) ?? 0).toFixed(3)),
      },
      cpus: availableParallelism(),
      node: process.version,
    };
  } finally {
    stop = true;
    await verifier.close();
  }
}

export function formatPowBench(r: PowBenchResult): string {
  const p = r.params;
  return [
    `PoW verification: Argon2id v1.3, t=${p.timeCost}, m=${p.memoryCost} KiB, p=${p.parallelism}, ${p.hashLength}-byte output, salt ${p.saltLength} B`,
    `WASM core build: ${r.wasm.build} (engine SIMD ${r.wasm.simdSupported ? 'supported' : 'not supported'}); ${r.threads === 0 ? 'main thread' : `${r.threads} worker thread(s)`} of ${r.cpus} CPUs; ${r.inFlight} requests in flight; node ${r.node}`,
    `${r.verifications} verifications in ${r.seconds} s: ${r.perSecond} verifications/s`,
    `request latency: p50 ${r.latencyMs.p50} ms, p95 ${r.latencyMs.p95} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms`,
  ].join('\n');
}
