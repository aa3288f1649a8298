// Shared helpers of the benchmark suites: machine/version header, tinybench runs, ratio tables.
import os from 'node:os';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Bench } from 'tinybench';
import { POW_BENCH_SOLUTION } from '../dist/cli/bench-pow.js';

const require = createRequire(import.meta.url);

/** A valid address no bench holds the key of (the reference's test vector of §6.3): where payments the benches make go. */
export const STRANGER = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';

/** Installed version of a package (peers are dev dependencies). */
export function versionOf(pkg) {
  try {
    return JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')).version;
  } catch {
    // Some packages do not export package.json; walk from the main entry.
    const main = require.resolve(pkg);
    let dir = main;
    for (let i = 0; i < 6; i++) {
      dir = dir.slice(0, dir.lastIndexOf('/'));
      try {
        const p = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8'));
        if (p.name === pkg) return p.version;
      } catch {}
    }
    return 'unknown';
  }
}

/** One line describing the machine and runtime, printed once by bench/run.mjs. */
export function machineLine() {
  const cpus = os.cpus();
  return `machine: ${cpus[0]?.model ?? 'unknown CPU'} × ${cpus.length} (available parallelism ${os.availableParallelism()}), ` +
    `${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()}; node ${process.version} (V8 ${process.versions.v8}, OpenSSL ${process.versions.openssl})`;
}

/** A setting that must be a whole number ≥ `min` (absent: `fallback`): a typo stops the bench with its name, not odd figures. */
function count(name, raw, fallback, min) {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be a whole number ≥ ${min}, got ${JSON.stringify(raw)}`);
  return n;
}

/** An environment setting that must be a whole number ≥ `min`. */
export function countFromEnv(name, fallback, min) {
  return count(name, process.env[name], fallback, min);
}

/** A `--name=value` argument that must be a whole number ≥ `min`. */
export function countFromArg(name, fallback, min) {
  const arg = process.argv.find((x) => x.startsWith(`--${name}=`));
  return count(`--${name}`, arg?.slice(name.length + 3), fallback, min);
}

/** Deterministic pseudo-random bytes (xorshift32), so inputs are the same in every run. */
export function pseudoRandomBytes(length, seed = 1) {
  const out = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

/**
 * The real mining solution of `dltnode bench pow` (src/cli/bench-pow.ts POW_BENCH_SOLUTION: v10+
 * rule, 64-byte checksum, 45-byte address; accepted at difficulties up to `edge`), as bytes. The PoW
 * benches time it, so what they time is a claim the verifier accepts. Fresh arrays per call.
 */
export function powSolution() {
  const s = POW_BENCH_SOLUTION;
  const bytes = (h) => new Uint8Array(Buffer.from(h, 'hex'));
  return { blockChecksum: bytes(s.blockChecksum), solverAddress: bytes(s.solverAddress), nonce: bytes(s.nonce), hash: s.hash, edge: s.edge };
}

/**
 * Runs each task in its own tinybench Bench (so timings do not interfere) and returns
 * [{ name, opsPerSec, meanMs, p99Ms, samples }]. `opsPerCall` scales a batched task to per-op figures.
 */
export async function runTasks(tasks, { time = 1000, warmupTime = 200 } = {}) {
  const rows = [];
  for (const t of tasks) {
    const bench = new Bench({ time, warmupTime });
    bench.add(t.name, t.fn);
    await bench.run();
    const r = bench.tasks[0].result;
    if (!r || r.error) throw r?.error ?? new Error(`task ${t.name} produced no result`);
    const per = t.opsPerCall ?? 1;
    const lat = r.latency ?? r;
    const meanMs = (lat.mean ?? r.mean);
    rows.push({
      name: t.name,
      opsPerSec: (1000 / meanMs) * per,
      meanMs: meanMs / per,
      p99Ms: (lat.p99 ?? r.p99 ?? meanMs) / per,
      samples: (lat.samples?.length ?? lat.samplesCount ?? r.samples?.length ?? 0),
      bytes: t.bytes,
    });
  }
  return rows;
}

const fmt = (n) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toPrecision(3));

/**
 * Prints a table: each row's figure and its ratio to the row named `ours` (ours/peer ≥ 1 means we
 * are faster). Rows with `bytes` also print MB/s.
 */
export function printTable(title, rows, ours) {
  const base = rows.find((r) => r.name === ours);
  console.log(`\n${title}`);
  console.log(`${'implementation'.padEnd(44)} ${'ops/s'.padStart(14)} ${'MB/s'.padStart(9)} ${'mean'.padStart(11)}  ours ÷ this`);
  for (const r of rows) {
    const mbs = r.bytes ? fmt((r.opsPerSec * r.bytes) / 1e6) : '';
    const ratio = base ? (base.opsPerSec / r.opsPerSec).toFixed(2) + '×' : '';
    const mean = r.meanMs >= 1 ? `${r.meanMs.toFixed(2)} ms` : `${(r.meanMs * 1000).toFixed(2)} µs`;
    console.log(`${r.name.padEnd(44)} ${fmt(r.opsPerSec).padStart(14)} ${mbs.padStart(9)} ${mean.padStart(11)}  ${r.name === ours ? '(ours)' : ratio}`);
  }
}
