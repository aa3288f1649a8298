// PoW verifier pool throughput: verifications/s with one worker thread vs one per core
// (reference-formats.md §11 parameters). Each request holds one real solution at its edge
// difficulty (lib.mjs powSolution: must be accepted) and random nonces at the maximum difficulty
// (must be refused; a random hash meets it with probability 2^-80); every claim does the full work.
// Every answer is checked: a wrong one stops the bench instead of counting as throughput.
// Keeps the pool busy with several requests in flight; each configuration runs BENCH_TIME ms
// after a warm-up, rounds alternate configurations and the table shows the median.
// Beside wall-clock throughput it reports the CPU this process got (all threads) and the
// verifications per CPU-second: when other processes load the machine, 2 workers cannot get
// 2 cores, and the per-CPU-second figure tells pool overhead (it would drop) from CPU share.
// Last, the latency of a batch of RSA checks with and without the built-in miner hashing.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { createWorkerPool } from '../dist/pool/index.js';
import { publicKeyToBytes, signBytes } from '../dist/formats/rsa.js';
import { createPowVerifier } from '../dist/pool/verifier.js';
import { coreFlavour } from '../dist/core/wasm.js';
import { countFromEnv, machineLine, powSolution, pseudoRandomBytes } from './lib.mjs';

const TIME = countFromEnv('BENCH_TIME', 2000, 1);
const ROUNDS = countFromEnv('BENCH_ROUNDS', 3, 1);
const REQUEST_ITEMS = 16; // claims per verify() call
/** Requests that must end in the window per request kept in flight, so that the edges of the window weigh little. */
const MIN_REQUESTS_PER_IN_FLIGHT = 2;
const cores = os.availableParallelism();

const solution = powSolution();
const MAX_DIFFICULTY = 0xffff_ffff_ffff_ffffn;
let seed = 1;
/** One request: the solution first (expected true), then random nonces (expected false). */
const claims = () => [
  { blockChecksum: solution.blockChecksum, solverAddress: solution.solverAddress, nonce: solution.nonce, difficulty: solution.edge },
  ...Array.from({ length: REQUEST_ITEMS - 1 }, () => ({ blockChecksum: solution.blockChecksum, solverAddress: solution.solverAddress, nonce: pseudoRandomBytes(64, seed++), difficulty: MAX_DIFFICULTY })),
];
const answers = { accepted: 0, refused: 0 };
/** Checks one request's answers; a wrong one ends the bench (it would be a verifier fault, not speed). */
function checkAnswers(results) {
  results.forEach((ok, i) => {
    if (ok !== (i === 0)) throw new Error(`wrong PoW answer: claim ${i} of a request gave ${ok}, expected ${i === 0}`);
  });
  answers.accepted += 1;
  answers.refused += results.length - 1;
}

/** Busy and total jiffies of the whole machine (Linux /proc/stat), or undefined elsewhere. */
function machineTicks() {
  try {
    const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    return { busy: total - fields[3] - fields[4], total }; // minus idle and iowait
  } catch {
    return undefined;
  }
}

async function measure(threads) {
  const verifier = createPowVerifier({ threads, maxQueue: 4096 });
  const inFlight = threads * 4; // requests kept outstanding
  let done = 0;
  let stop = false;
  const loop = async () => {
    while (!stop) {
      const results = await verifier.verify(claims()); // (not `done += await …`: that reads `done` before awaiting)
      checkAnswers(results);
      done += results.length;
    }
  };
  const warm = Date.now() + 300;
  const runners = Array.from({ length: inFlight }, loop);
  while (Date.now() < warm) await new Promise((r) => setTimeout(r, 20));
  const start = done;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const ticks0 = machineTicks();
  await new Promise((r) => setTimeout(r, TIME));
  const seconds = (performance.now() - t0) / 1000;
  const verified = done - start;
  const cpu = process.cpuUsage(cpu0);
  const ticks1 = machineTicks();
  stop = true;
  await Promise.all(runners);
  await verifier.close();
  // Requests end whole: with few of them in the window, those straddling its edges decide the rate.
  const requests = verified / REQUEST_ITEMS;
  if (requests < MIN_REQUESTS_PER_IN_FLIGHT * inFlight) {
    throw new Error(`only ${requests} requests of ${REQUEST_ITEMS} claims ended in BENCH_TIME=${TIME} ms with ${threads} worker thread(s) and ${inFlight} in flight ` +
      `(at least ${MIN_REQUESTS_PER_IN_FLIGHT * inFlight} needed for a rate): raise BENCH_TIME`);
  }
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const machineCores = ticks0 && ticks1 ? ((ticks1.busy - ticks0.busy) / (ticks1.total - ticks0.total)) * cores : NaN;
  return { rate: verified / seconds, cores: cpuSeconds / seconds, perCpuSecond: verified / cpuSeconds, others: machineCores - cpuSeconds / seconds };
}

console.log(machineLine());
console.log(`PoW verifier pool: Argon2id t=2 m=2048 p=2, salt 234,236 B; core build '${coreFlavour()}'; ${REQUEST_ITEMS} claims per request; ${ROUNDS} rounds × ${TIME} ms`);
const configs = [...new Set([1, cores])];
const rates = new Map(configs.map((c) => [c, []]));
for (let round = 0; round < ROUNDS; round++) for (const c of configs) rates.get(c).push(await measure(c));
const median = (runs) => [...runs].sort((a, b) => a.rate - b.rate)[Math.floor(runs.length / 2)];
const one = median(rates.get(1));
console.log(`\n${'configuration'.padEnd(22)} ${'verifications/s'.padStart(16)}  vs 1 worker  ${'our CPU'.padStart(9)}  ${'per CPU-s'.padStart(9)}  ${'others'.padStart(7)}`);
for (const c of configs) {
  const m = median(rates.get(c));
  const label = `${c} worker thread${c > 1 ? 's' : ''}`.padEnd(22);
  console.log(`${label} ${Math.round(m.rate).toLocaleString('en-US').padStart(16)}  ${`${(m.rate / one.rate).toFixed(2)}×`.padStart(11)}  ${`${m.cores.toFixed(2)} cores`.padStart(9)}  ${Math.round(m.perCpuSecond).toString().padStart(9)}  ${m.others.toFixed(2).padStart(7)}`);
}
console.log('(our CPU: cores this process used, all threads; per CPU-s: verifications per CPU-second; others: cores busy with other processes)');
console.log(`answers checked: ${answers.accepted.toLocaleString('en-US')} solutions accepted, ${answers.refused.toLocaleString('en-US')} random nonces refused, none wrong`);
if (configs.length > 1) {
  const many = median(rates.get(cores));
  console.log(`\nscaling on ${cores} cores: ${(many.rate / one.rate).toFixed(2)}× one worker (target ≥ 1.8); per CPU-second ${(many.perCpuSecond / one.perCpuSecond).toFixed(2)}× one worker's`);
}

// RSA checks while the built-in miner hashes (`--miner-threads`): its Argon2 jobs run on threads of
// their own at the lowest OS priority (src/pool/index.ts OWN_THREAD_TASKS), so a batch of checks
// should take about as long as with no miner. Latency of 64 RSA-4096 checks, one pool thread.
{
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 4096 });
  const publicKey = publicKeyToBytes(privateKey);
  const items = Array.from({ length: 64 }, (_, i) => {
    const data = new Uint8Array(64).fill(i);
    return { publicKey, data, signature: signBytes(privateKey, data) };
  });
  const SAMPLES = 30;
  const latencies = async (mining) => {
    const pool = createWorkerPool({ threads: 1, minerThreads: 1 });
    await pool.verifyRsa(items);
    let on = mining;
    // A job as the built-in miner sends (48 nonces), at a difficulty nothing meets.
    const job = () => ({ blockChecksum: new Uint8Array(44).fill(9), solverAddress: new Uint8Array(45).fill(1), difficulty: 0xffff_ffff_ffff_ffffn, prefix: randomBytes(28), start: 0, count: 48 });
    const miner = (async () => { while (on) await pool.searchPow([job()]); })();
    await new Promise((r) => setTimeout(r, 300));
    const ms = [];
    for (let i = 0; i < SAMPLES; i++) {
      const t0 = performance.now();
      await pool.verifyRsa(items);
      ms.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 50 + (i % 5) * 20));
    }
    on = false;
    await miner;
    await pool.close();
    ms.sort((a, b) => a - b);
    return { p50: ms[Math.floor(SAMPLES / 2)], p90: ms[Math.floor(SAMPLES * 0.9)], max: ms[SAMPLES - 1] };
  };
  const idle = await latencies(false);
  const mining = await latencies(true);
  const f = (x) => `${x.toFixed(1)} ms`;
  console.log(`\n64 RSA-4096 checks on one pool thread: no miner p50 ${f(idle.p50)} p90 ${f(idle.p90)} max ${f(idle.max)}; ` +
    `built-in miner hashing p50 ${f(mining.p50)} p90 ${f(mining.p90)} max ${f(mining.max)} (${(mining.p50 / idle.p50).toFixed(2)}× at p50; target ≈ 1)`);
}
