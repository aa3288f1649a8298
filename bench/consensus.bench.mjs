// Consensus among masters (reference-formats §12, reference-network §5.2):
//  1. signer-PoW hashes per second on one thread: our WASM search (many solutions per call over one
//     challenge) against the same sha3_512sq challenge through node:crypto (OpenSSL), one run each;
//     and per pool worker: the signer miner's `searchSignerPow` task, jobs of the size it sends;
//  2. verifying the signatures of a block with 100 and 1,000 signers the way the node does
//     (`verifyBlockSignatureEntries`): per signature the signer-PoW check (decode, window, WASM hash,
//     difficulty) on the main thread, then every RSA-2048 PKCS#1 v1.5 SHA-512 signature over
//     sha3_512sq(blockChecksum ‖ solution) in the worker pool's `verifyRsa` task. Time per block,
//     with the node's pool (cores − 1 workers) and, for comparison, all on the main thread.
// Usage: node bench/consensus.bench.mjs [--time=ms] [--rounds=n]   (after `npm run build`)
import { createHash, generateKeyPairSync, sign as cryptoSign, constants } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { CoreInstance } from '../dist/core/instance.js';
import { signerPowChallengePrefix, signerPowSearch } from '../dist/core/signer-pow.js';
import { blockSignatureDigest, encodeSignerPowSolution, signerPowTargetForDifficulty } from '../dist/consensus/signer-pow.js';
import { verifyBlockSignatureEntries } from '../dist/consensus/block-signatures.js';
import { publicKeyToBytes, verifySignature } from '../dist/formats/rsa.js';
import { createWorkerPool, defaultPoolThreads } from '../dist/pool/index.js';
import { countFromArg, printTable, pseudoRandomBytes, runTasks } from './lib.mjs';

const TIME = countFromArg('time', 600, 1);
const ROUNDS = countFromArg('rounds', 3, 1);
/** Solutions per WASM search call: one boundary crossing per batch, as a pool worker would do. */
const BATCH = 4096;
const hex = (b) => Buffer.from(b).toString('hex');

// ---- 1. signer-PoW hashing ----

const blockChecksum = pseudoRandomBytes(64, 11);
const address = new Uint8Array([1, ...pseudoRandomBytes(44, 12)]);
const keys = Array.from({ length: 32 }, () => generateKeyPairSync('rsa', { modulusLength: 2048 }));
const signingPubKey = publicKeyToBytes(keys[0].publicKey);
const prefix = signerPowChallengePrefix({ blockNum: 1_000_000n, blockChecksum, recipientAddress: address, signingPubKey });
const unreachable = new Uint8Array(64); // target 0: no hash passes, every call hashes the whole batch

/** node:crypto: the same challenge, a 32-byte little-endian counter solution, two SHA3-512 passes. */
function nodeSearch(start, count) {
  const challenge = Buffer.alloc(prefix.length + 32);
  challenge.set(prefix);
  challenge.set(start, prefix.length);
  let best = null;
  for (let i = 0; i < count; i++) {
    const h = createHash('sha3-512').update(createHash('sha3-512').update(challenge).digest()).digest();
    if (best === null || Buffer.compare(h.reverse(), best) < 0) best = h; // reversed: big-endian compare of the LE number
    for (let j = prefix.length; j < challenge.length; j++) if (++challenge[j] !== 256 && challenge[j] !== 0) break;
  }
  return best;
}

// both find the same best hash over the same 2,000 solutions
{
  const core = new CoreInstance('simd');
  const ours = signerPowSearch(prefix, new Uint8Array(32), unreachable, 2000, core);
  const theirs = nodeSearch(new Uint8Array(32), 2000);
  // (A null best hash, every hash negative, has odds 2^-2000: it would be a fault too.)
  if (!ours.bestHash || hex(Uint8Array.from(ours.bestHash).reverse()) !== hex(theirs)) throw new Error('WASM and node:crypto disagree on the best hash');
}

const searchers = ['simd', 'scalar'].map((flavour) => {
  const core = new CoreInstance(flavour);
  let start = new Uint8Array(32);
  return {
    name: `dltnode signer-PoW search (WASM ${flavour}, ${BATCH}/call)`,
    fn: () => { start = signerPowSearch(prefix, start, unreachable, BATCH, core).next; },
    opsPerCall: BATCH,
  };
});
const NODE_BATCH = 256;
const tasks = [
  ...searchers,
  { name: 'node:crypto sha3-512 ×2 per solution', fn: () => nodeSearch(pseudoRandomBytes(32, 3), NODE_BATCH), opsPerCall: NODE_BATCH },
];
const best = new Map();
for (let r = 0; r < ROUNDS; r++) {
  for (const row of await runTasks(tasks, { time: TIME, warmupTime: 100 })) {
    if (!best.has(row.name) || row.opsPerSec > best.get(row.name).opsPerSec) best.set(row.name, row);
  }
}
console.log(`challenge ${prefix.length + 32} bytes (v1 address, hashed 2048-bit key, 32-byte solution); best of ${ROUNDS} rounds of ${TIME} ms; one thread`);
printTable('signer-PoW hashes per second, one thread', tasks.map((t) => best.get(t.name)), tasks[0].name);

// per pool worker: the signer miner's jobs (~20 ms each) through the searchSignerPow task, one at a time
{
  const pool = createWorkerPool({ threads: 1 });
  const JOB = 24_576;
  let start = new Uint8Array(32);
  const run = async () => {
    const [r] = await pool.searchSignerPow([{ prefix, start, target: unreachable, count: JOB }]);
    start = r.next;
    return r;
  };
  for (let i = 0; i < 5; i++) await run(); // warm-up: the worker's JIT
  let bestWorker = 0;
  let bestWall = 0;
  for (let r = 0; r < ROUNDS; r++) {
    let hashes = 0;
    let micros = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < TIME) {
      const res = await run();
      hashes += res.tried;
      micros += res.micros;
    }
    bestWorker = Math.max(bestWorker, (hashes * 1e6) / micros);
    bestWall = Math.max(bestWall, (hashes * 1000) / (performance.now() - t0));
  }
  await pool.close();
  console.log(`signer miner in a pool worker (searchSignerPow, ${JOB} solutions per job, one job at a time): ` +
    `${(bestWorker / 1e6).toFixed(2)} M hashes/s of worker time, ${(bestWall / 1e6).toFixed(2)} M hashes/s of wall time`);
}

// ---- 2. block signature verification, the node's path ----

const solutions = [];
{
  // one solution per signer over block 999,990; difficulty 0 so the first nonce counts (the
  // verifier does the same work whatever the difficulty)
  const core = new CoreInstance('simd');
  for (let i = 0; i < 1000; i++) {
    const key = keys[i % keys.length];
    const pub = publicKeyToBytes(key.publicKey);
    const signer = new Uint8Array([1, ...pseudoRandomBytes(44, 1000 + i)]);
    const pre = signerPowChallengePrefix({ blockNum: 999_990n, blockChecksum, recipientAddress: signer, signingPubKey: pub });
    const found = signerPowSearch(pre, pseudoRandomBytes(32, i + 1), signerPowTargetForDifficulty(0n), 64, core); // a negative hash never counts: try a few
    solutions.push({ signer, key, solution: { blockNum: 999_990n, solution: found.solution, signingPubKey: pub } });
  }
}
const signedChecksum = pseudoRandomBytes(64, 99);
/** The stored entries of a block (src/chain/block.ts BlockSignature), as a node receives them. */
const entries = solutions.map((s) => {
  const digest = blockSignatureDigest(signedChecksum, s.solution.solution);
  const signature = new Uint8Array(cryptoSign('sha512', digest, { key: s.key.privateKey, padding: constants.RSA_PKCS1_PADDING }));
  return { signer: s.signer, powSolution: encodeSignerPowSolution(s.solution), signature };
});

async function verifyBlock(n, verifyRsa) {
  const verdicts = await verifyBlockSignatureEntries({
    entries: entries.slice(0, n), blockNum: 1_000_000n, blockVersion: 13, blockChecksum: signedChecksum, minDifficulty: 0n,
    solutionBlockChecksum: (num) => (num === 999_990n ? blockChecksum : null), verifyRsa,
  });
  const ok = verdicts.filter((v) => v.ok).length;
  if (ok !== n) throw new Error(`only ${ok} of ${n} signatures verified`);
}

const inThread = async (items) => items.map((i) => verifySignature(i.publicKey, i.data, i.signature));
const poolThreads = defaultPoolThreads();
const pool = createWorkerPool({ threads: poolThreads });
const variants = [
  { name: `the node's pool (${poolThreads} worker${poolThreads > 1 ? 's' : ''}, verifyRsa) + PoW on the main thread`, verifyRsa: (items) => pool.verifyRsa(items) },
  { name: 'all on the main thread (node:crypto)', verifyRsa: inThread },
  { name: 'the signer-PoW checks alone (main thread; RSA answered at once): the event loop\'s share', verifyRsa: async (items) => items.map(() => true) },
];
console.log(`\nblock signature verification (verifyBlockSignatureEntries: signer-PoW check per signature + RSA-2048 verify;` +
  ` ${keys.length} distinct signing keys, parsed once and cached as a running node would)`);
for (const v of variants) {
  await verifyBlock(1000, v.verifyRsa); // warm-up: parses and caches the signing keys, JIT
  await verifyBlock(1000, v.verifyRsa);
  console.log(v.name);
  for (const [n, reps] of [[100, 10], [1000, 5]]) {
    const times = [];
    for (let r = 0; r < reps; r++) {
      const t0 = performance.now();
      await verifyBlock(n, v.verifyRsa);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    console.log(`  ${String(n).padStart(5)} signers: median ${median.toFixed(1)} ms per block (best ${times[0].toFixed(1)} ms of ${reps}), ` +
      `${((median * 1000) / n).toFixed(1)} µs per signature`);
  }
}
await pool.close();
