// PoW verifier pool throughput: verifications/s with one worker thread vs one per core
// (reference-formats.md §11 parameters, random nonces, so every claim does the full work).
// Keeps the pool busy with several requests in flight; each configuration runs BENCH_TIME ms
// after a warm-up, rounds alternate configurations and the table shows the median.
import os from 'node:os';
import { createPowVerifier } from '../dist/pool/verifier.js';
import { coreFlavour } from '../dist/core/wasm.js';
import { machineLine, pseudoRandomBytes } from './lib.mjs';

const TIME = Number(process.env.BENCH_TIME ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const REQUEST_ITEMS = 16; // claims per verify() call
const cores = os.availableParallelism();

const checksum = pseudoRandomBytes(64, 21);
const address = pseudoRandomBytes(45, 22);
let seed = 1;
const claims = () => Array.from({ length: REQUEST_ITEMS }, () => ({ blockChecksum: checksum, solverAddress: address, nonce: pseudoRandomBytes(64, seed++), difficulty: 0xa2cb1211629f6141n }));

async function measure(threads) {
  const verifier = createPowVerifier({ threads, maxQueue: 4096 });
  const inFlight = threads * 4; // requests kept outstanding
  let done = 0;
  let stop = false;
  const loop = async () => {
    while (!stop) {
      const results = await verifier.verify(claims()); // (not `done += await …`: that reads `done` before awaiting)
      done += results.length;
    }
  };
  const warm = Date.now() + 300;
  const runners = Array.from({ length: inFlight }, loop);
  while (Date.now() < warm) await new Promise((r) => setTimeout(r, 20));
  const start = done;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, TIME));
  const rate = ((done - start) * 1000) / (performance.now() - t0);
  stop = true;
  await Promise.all(runners);
  await verifier.close();
  return rate;
}

console.log(machineLine());
console.log(`PoW verifier pool: Argon2id t=2 m=2048 p=2, salt 234,236 B; core build '${coreFlavour()}'; ${REQUEST_ITEMS} claims per request; ${ROUNDS} rounds × ${TIME} ms`);
const configs = [...new Set([1, cores])];
const rates = new Map(configs.map((c) => [c, []]));
for (let round = 0; round < ROUNDS; round++) for (const c of configs) rates.get(c).push(await measure(c));
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const one = median(rates.get(1));
console.log(`\n${'configuration'.padEnd(28)} ${'verifications/s'.padStart(16)}  vs 1 worker`);
for (const c of configs) {
  const r = median(rates.get(c));
  console.log(`${`${c} worker thread${c > 1 ? 's' : ''}`.padEnd(28)} ${Math.round(r).toLocaleString('en-US').padStart(16)}  ${(r / one).toFixed(2)}×`);
}
if (configs.length > 1) console.log(`\nscaling on ${cores} cores: ${(median(rates.get(cores)) / one).toFixed(2)}× one worker (target ≥ 1.8)`);
