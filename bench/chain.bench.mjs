// Chain throughput (built code, dist/):
//  1. a 10,000-transaction block applied and committed into LMDB (target < 1 s);
//  2. end to end: pre-signed transactions sent with sendRawTransaction to a real node process
//     (dist/cli/main.js, one pool thread), admitted and applied in blocks (target ≥ 5,000 tx/s).
// The signed fixtures (RSA-4096, ~6 ms per signature) are made once, by worker threads, and cached
// in the OS temp directory with the wallet that signed them; later runs reuse them.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');
const FIXTURE_COUNT = Number(process.env.CHAIN_BENCH_TXS ?? 20_000);
const BLOCK_TXS = 10_000;
const CACHE = join(os.tmpdir(), 'dltnode-bench-chain-v1');
const CONCURRENCY = 256;

if (!isMainThread) {
  // Fixture signer: signs the checksums it is given with the wallet's private key.
  const { signBytes, privateKeyFromBytes } = await import(join(dist, 'formats/rsa.js'));
  const key = privateKeyFromBytes(new Uint8Array(workerData.privateKey));
  parentPort.postMessage(workerData.checksums.map((c) => signBytes(key, new Uint8Array(c))));
  process.exit(0);
}

const { encodeTransaction, transactionChecksum } = await import(join(dist, 'codec/transaction.js'));
const { deriveAddress } = await import(join(dist, 'formats/address.js'));
const { estimateFee } = await import(join(dist, 'formats/fees.js'));
const { NodeWallet } = await import(join(dist, 'wallet/wallet.js'));
const { readKeystore, KEYSTORE_FILE } = await import(join(dist, 'wallet/keystore.js'));

const hex = (b) => Buffer.from(b).toString('hex');
const DUST = 1_000_000n; // 0.01: the smallest output the pool accepts (reference-formats §8.9)

/** The cached wallet and N signed payments from it (blockHeight 1, distinct nonces and recipients). */
async function fixtures() {
  mkdirSync(CACHE, { recursive: true });
  const file = join(CACHE, `payments-${FIXTURE_COUNT}.hex`);
  const wallet = await NodeWallet.open(CACHE); // created on first use
  if (existsSync(file)) return { wallet, raw: readFileSync(file, 'utf8').trim().split('\n') };
  const started = performance.now();
  const key = wallet.primary;
  const txs = [];
  for (let i = 0; i < FIXTURE_COUNT; i++) {
    const nonce = new Uint8Array(16);
    new DataView(nonce.buffer).setUint32(0, i + 1);
    const tx = {
      version: 7, type: 0, blockHeight: 1n, nonce: i, pubKey: key.publicKey, signature: null, applied: 0n, timestamp: 0n,
      inputs: [{ key: Uint8Array.of(0), amount: DUST }],
      outputs: [{ address: deriveAddress(key.primary, nonce), amount: DUST }],
    };
    tx.inputs[0].amount = DUST + estimateFee(encodeTransaction(tx).length);
    txs.push(tx);
  }
  const checksums = txs.map((tx) => transactionChecksum(tx, 'reg'));
  const workers = Math.max(1, os.availableParallelism());
  const per = Math.ceil(txs.length / workers);
  const privateKey = readKeystore(CACHE)[0].privateKey;
  const parts = await Promise.all(
    Array.from({ length: workers }, (_, w) => new Promise((resolve, reject) => {
      const worker = new Worker(fileURLToPath(import.meta.url), {
        workerData: { privateKey, checksums: checksums.slice(w * per, (w + 1) * per) },
      });
      worker.once('message', resolve);
      worker.once('error', reject);
    })),
  );
  const signatures = parts.flat();
  const raw = txs.map((tx, i) => hex(encodeTransaction({ ...tx, signature: signatures[i] })));
  writeFileSync(file, raw.join('\n'));
  console.log(`signed ${FIXTURE_COUNT} fixture transactions in ${((performance.now() - started) / 1000).toFixed(1)} s (cached in ${CACHE})`);
  return { wallet, raw };
}

/** A data directory holding the fixtures' wallet. */
function dataDirWithWallet() {
  const dir = mkdtempSync(join(os.tmpdir(), 'dltnode-bench-'));
  copyFileSync(join(CACHE, KEYSTORE_FILE), join(dir, KEYSTORE_FILE));
  return dir;
}

async function blockApplication(raw) {
  const { openStore } = await import(join(dist, 'state/store.js'));
  const { Chain } = await import(join(dist, 'chain/chain.js'));
  const { ChainExtensions } = await import(join(dist, 'chain/extensions.js'));
  const { Mempool } = await import(join(dist, 'chain/mempool.js'));
  const { BlockProducer } = await import(join(dist, 'chain/producer.js'));
  const { knownTxFromBytes } = await import(join(dist, 'chain/tx-codec.js'));
  const log = { info() {}, warn() {}, error() {}, debug() {}, child: () => log };
  const dir = dataDirWithWallet();
  const store = openStore(dir);
  try {
    const wallet = await NodeWallet.open(dir);
    const chain = new Chain(store, 'reg', new ChainExtensions([]), log);
    const key = wallet.primary;
    const signer = { address: key.primary, sign: (d) => key.sign(d) };
    const producer = new BlockProducer(chain, new Mempool(chain, async (items) => items.map(() => true)), signer, 'reg', 60_000, log);
    await producer.genesis(1_000_000n * 100_000_000n);
    const candidates = raw.slice(0, BLOCK_TXS).map((h) => knownTxFromBytes(Buffer.from(h, 'hex'), 'reg'));
    const t0 = performance.now();
    const r = await chain.commitBlock(candidates, [], signer);
    const ms = performance.now() - t0;
    if (r.applied.length !== BLOCK_TXS) throw new Error(`only ${r.applied.length} of ${BLOCK_TXS} applied: ${r.rejected[0]?.reason}`);
    console.log(`block of ${BLOCK_TXS} transactions applied and committed: ${ms.toFixed(0)} ms (target < 1000 ms) — ${Math.round(BLOCK_TXS / (ms / 1000)).toLocaleString('en-US')} tx/s`);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function startNode(dataDir) {
  // CHAIN_BENCH_PROF=<dir>: write a CPU profile of the node process there.
  const prof = process.env.CHAIN_BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CHAIN_BENCH_PROF}`] : [];
  const child = spawn(process.execPath, [
    ...prof, join(dist, 'cli/main.js'), 'start', '--network', 'reg', '--data-dir', dataDir, '--rpc-port', '0',
    '--block-interval', '1', '--pool-threads', '1', '--status-interval', '0',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (c) => {
      out += c;
      const m = /RPC listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`node exited (${code}):\n${out}`)));
  });
}

/** CPU seconds (user + system) used so far by a process and its threads (Linux /proc). */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

function post(agent, port, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ port, host: '127.0.0.1', path: '/', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
    });
    req.once('error', reject);
    req.end(body);
  });
}

async function endToEnd(raw) {
  const dataDir = dataDirWithWallet();
  const { child, port } = await startNode(dataDir);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const status = async () => (await post(agent, port, '{"method":"status","params":{"verbose":true},"id":0}')).result;
  try {
    while ((await status())['Block Height'] < 1) await new Promise((r) => setTimeout(r, 50));
    const bodies = raw.map((h, i) => JSON.stringify({ method: 'sendRawTransaction', params: { transaction: h }, id: i }));
    let next = 0;
    let rejected = 0;
    let firstError;
    const cpu0 = cpuSeconds(child.pid);
    const t0 = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) {
        const r = await post(agent, port, bodies[next++]);
        if (r.error) {
          rejected++;
          firstError ??= r.error.message;
        }
      }
    }));
    const admitted = performance.now() - t0;
    const goal = raw.length - rejected + 1; // + the genesis transaction
    while ((await status())['Applied TX Count'] < goal) await new Promise((r) => setTimeout(r, 20));
    const total = performance.now() - t0;
    const cpu = cpuSeconds(child.pid) - cpu0;
    const s = await status();
    if (rejected) console.log(`${rejected} rejected, first: ${firstError}`);
    console.log(`sendRawTransaction admission (${CONCURRENCY} connections): ${Math.round(raw.length / (admitted / 1000)).toLocaleString('en-US')} tx/s`);
    console.log(`end to end, ${raw.length - rejected} transactions sent, admitted and applied in ${s['Block Height'] - 1} blocks: ` +
      `${(total / 1000).toFixed(2)} s — ${Math.round((raw.length - rejected) / (total / 1000)).toLocaleString('en-US')} tx/s (target ≥ 5,000)`);
    console.log(`node process CPU (all threads) per transaction: ${Math.round((cpu / (raw.length - rejected)) * 1e6)} µs; ` +
      `load average during the run ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores (other processes share them)`);
  } finally {
    agent.destroy();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const { raw } = await fixtures();
await blockApplication(raw);
await endToEnd(raw);
