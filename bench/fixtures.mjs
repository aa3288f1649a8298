// Shared by the benches that replay signed payments against real nodes (chain, network): the
// signed fixtures (RSA-4096, ~6 ms per signature) made once by worker threads and cached in the OS
// temp directory with the wallet that signed them, and CPU figures of a node process by thread.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');
/** The cache of the fixtures and of the wallet that signed them (a genesis may fund it). */
export const CACHE = join(os.tmpdir(), 'dltnode-bench-chain-v1');
const DUST = 1_000_000n; // 0.01: the smallest output the pool accepts (reference-formats §8.9)

if (!isMainThread && workerData?.fixtureSigner) {
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
const { readKeystore } = await import(join(dist, 'wallet/keystore.js'));

const hex = (b) => Buffer.from(b).toString('hex');

/** The cached wallet and N signed payments from it (blockHeight 1, distinct nonces and recipients). */
export async function fixtures(FIXTURE_COUNT) {
  mkdirSync(CACHE, { recursive: true });
  const file = join(CACHE, `payments-${FIXTURE_COUNT}.hex`);
  const wallet = await NodeWallet.open(CACHE); // created on first use
  // Any cached set at least as large serves (its first FIXTURE_COUNT transactions).
  const cached = readdirSync(CACHE)
    .map((name) => ({ name, count: Number(/^payments-(\d+)\.hex$/.exec(name)?.[1] ?? 0) }))
    .filter((c) => c.count >= FIXTURE_COUNT)
    .sort((a, b) => a.count - b.count)[0];
  if (cached) return { wallet, raw: readFileSync(join(CACHE, cached.name), 'utf8').trim().split('\n').slice(0, FIXTURE_COUNT) };
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
        workerData: { fixtureSigner: true, privateKey, checksums: checksums.slice(w * per, (w + 1) * per) },
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

/**
 * CPU seconds (user + system) used so far by a process and its threads, or with `mainThread` by its
 * main (JavaScript event-loop) thread alone (Linux /proc).
 */
export function cpuSeconds(pid, mainThread = false) {
  try {
    const fields = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

/** CPU seconds per thread of a process (Linux /proc): the event loop, pool workers, V8 GC/compile helpers, LMDB's writer. */
export function threadCpu(pid) {
  const out = new Map();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      // Node names its helper threads all "node": each is listed by its id.
      const name = tid === String(pid) ? 'main' : `${readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()}#${tid}`;
      out.set(name, cpuSeconds(`${pid}/task/${tid}`));
    }
  } catch {
    // the process is gone: no figures
  }
  return out;
}

