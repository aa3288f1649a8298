/**
 * `dltnode bench pow`: the PoW verification benchmark as a product feature (practice P43), for
 * people comparing machines. It verifies mining claims (reference-formats.md §11 parameters:
 * Argon2id t=2, m=2048 KiB, p=2, 234,236-byte salt), a real solution among random claims, every
 * answer checked, through the same verifier pool the node uses,
 * one claim per request with many requests in flight, and prints the parameters, the WASM build,
 * the threads, verifications per second and per-request latency percentiles (or JSON).
 */
import { randomBytes } from 'node:crypto';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { availableParallelism } from 'node:os';
import { integer } from '../config/options.js';
import { parseCommandArgs } from './args.js';
import { fromHex } from '../formats/bytes.js';
import { POW_PARAMS, type PowClaim } from '../core/pow.js';
import { SIMD_SUPPORTED, coreFlavour } from '../core/wasm.js';
import { createPowVerifier, defaultPoolThreads, type PowVerifier, type PowVerifierOptions } from '../pool/verifier.js';

export const BENCH_POW_HELP = `Usage: dltnode bench pow [--threads N] [--seconds S] [--in-flight K] [--mining] [--json]

Verifies mining claims (Argon2id t=${POW_PARAMS.timeCost}, m=${POW_PARAMS.memoryCost} KiB, p=${POW_PARAMS.parallelism}, ${POW_PARAMS.saltLength}-byte salt),
a real solution among random claims, through the node's PoW verifier pool, checks every answer
and prints verifications/s and request latency.

  --threads N       worker threads (default ${defaultPoolThreads()}; 0 = on the main thread)
  --seconds S       measuring time after a 1 s warm-up (default 5, at most 600)
  --in-flight K     requests kept in flight (default 4 per thread, at least 1)
  --mining          mining mode: nonces searched per second through the built-in miner's pool
                    task, then @node-rs/argon2 in as many worker threads, the same seconds each
  --json            print one JSON object instead of text
DLTNODE_WASM=scalar|simd selects the core build.`;

/** Distinct claims cycled through: the real solution below, then random ones (the cost is the same). */
const CLAIM_COUNT = 64;
/** The random claims' difficulty: the highest, which a random hash meets with odds 2^-80 (§11.2). */
const MAX_DIFFICULTY = (1n << 64n) - 1n;

/**
 * A real mining solution, found by search (reference-formats.md §11, v10+ rule): its hash
 * `0000b8e8…` meets every difficulty up to `edge` and none above (test/core/pow-differential.test.ts).
 * The benchmark verifies it among random claims and checks every answer, so a verifier that
 * answered wrongly (or refused everything at once) stops the run instead of showing as speed.
 */
export const POW_BENCH_SOLUTION = Object.freeze({
  blockChecksum: '9456159980b36552b51544a8c87909e3ca44cc8d55dce27e999a29301cee57f982431e40bf7ca3d915616cd4404bb63fc2565dfabe26d14125b4c98190d936e0',
  solverAddress: 'f75552d04b402656ba5a45a24bf3c2ac7db3680fee8d83a88cd788e1e709c39a5210c3de67393803b0fe3a45d5',
  nonce: 'c5e9b73c7fae33d20d0efbfb4550112d0f65be421ddf3e2ba3bfd18704e4000a9fe2bed8fec3f82265a3c798e166d6503da9d82791a5b613e042c9c30000d958',
  hash: '0000b8e8070e4ce03b4a4cf3985fee71db8d8fb89618e62d2d5b093eddf7b0d0',
  edge: 0x4717f8f1b31fc4b5n,
});

export interface PowBenchResult {
  params: typeof POW_PARAMS;
  wasm: { build: string; simdSupported: boolean };
  threads: number;
  inFlight: number;
  seconds: number;
  verifications: number;
  /** Answers checked while measuring: the real solution accepted, random claims refused (a wrong answer throws). */
  answers: { accepted: number; refused: number };
  perSecond: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  cpus: number;
  node: string;
}

/** An optional integer flag: absent → fallback, else the option table's integer rule. */
const intOption = (value: string | undefined, name: string, fallback: number, min: number, max: number): number =>
  value === undefined ? fallback : integer(min, max)(value, `--${name}`);

export function parseBenchPowArgs(argv: string[]): { threads: number; seconds: number; inFlight: number; json: boolean; help: boolean; mining: boolean } {
  const v = parseCommandArgs(argv, {
    threads: { type: 'string' },
    seconds: { type: 'string' },
    'in-flight': { type: 'string' },
    json: { type: 'boolean' },
    mining: { type: 'boolean' },
  }, 'bench pow').values as { threads?: string; seconds?: string; 'in-flight'?: string; json?: boolean; mining?: boolean; help?: boolean };
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
export async function runPowBench(
  opts: { threads: number; seconds: number; inFlight: number },
  /** The verifier to measure (tests pass a faulty one to see the answers checked). */
  makeVerifier: (o: PowVerifierOptions) => PowVerifier = createPowVerifier,
): Promise<PowBenchResult> {
  const s = POW_BENCH_SOLUTION;
  const claims: PowClaim[] = [
    { blockChecksum: fromHex(s.blockChecksum), solverAddress: fromHex(s.solverAddress), nonce: fromHex(s.nonce), difficulty: s.edge },
    ...Array.from({ length: CLAIM_COUNT - 1 }, () => ({ blockChecksum: randomBytes(64), solverAddress: randomBytes(45), nonce: randomBytes(64), difficulty: MAX_DIFFICULTY })),
  ];
  const answers = { accepted: 0, refused: 0 };
  const verifier = makeVerifier({ threads: opts.threads, maxQueue: Math.max(opts.inFlight, 1024) });
  const latencies: number[] = [];
  let next = 0;
  let measuring = false;
  let done = 0;
  let stop = false;
  const worker = async (): Promise<void> => {
    while (!stop) {
      const index = next++ % CLAIM_COUNT;
      const t0 = performance.now();
      const [ok] = await verifier.verify([claims[index]!]);
      if (ok !== (index === 0)) throw new Error(`wrong PoW answer: ${index === 0 ? 'the real solution was refused' : 'a random claim was accepted'}`);
      if (measuring && !stop) {
        latencies.push(performance.now() - t0);
        done++;
        if (ok) answers.accepted++;
        else answers.refused++;
      }
      // In-process verification resolves at once: let the timers that end the run fire.
      if (opts.threads === 0) await nextMacrotask();
    }
  };
  try {
    // A failed loop (a wrong answer, a refused request) ends the run with its error, after the sleeps.
    let failure: unknown;
    const loops = Array.from({ length: opts.inFlight }, () => worker().catch((e: unknown) => {
      failure ??= e;
      stop = true;
    }));
    await new Promise((r) => setTimeout(r, 1000)); // warm-up: workers instantiate WASM, memory reserved
    measuring = true;
    const start = performance.now();
    await new Promise((r) => setTimeout(r, opts.seconds * 1000));
    const elapsed = (performance.now() - start) / 1000;
    measuring = false;
    stop = true;
    await Promise.all(loops);
    if (failure !== undefined) throw failure;
    latencies.sort((a, b) => a - b);
    return {
      params: POW_PARAMS,
      wasm: { build: coreFlavour(), simdSupported: SIMD_SUPPORTED },
      threads: opts.threads,
      inFlight: opts.inFlight,
      seconds: Number(elapsed.toFixed(3)),
      verifications: done,
      answers,
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
    `${r.verifications} verifications in ${r.seconds} s: ${r.perSecond} verifications/s (answers checked: ${r.answers.accepted} real solutions accepted, ${r.answers.refused} random claims refused)`,
    `request latency: p50 ${r.latencyMs.p50} ms, p95 ${r.latencyMs.p95} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms`,
  ].join('\n');
}
