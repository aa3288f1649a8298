// Chain throughput (built code, dist/):
//  1. a 10,000-transaction block applied and committed into LMDB (target < 1 s);
//  2. end to end: pre-signed transactions sent with sendRawTransaction to a real node process
//     (dist/cli/main.js, one pool thread), admitted and applied in blocks (target ≥ 5,000 tx/s),
//     after a warm-up of 3,000 (so the figure is a running node's, not a cold start's). The
//     node's CPU per transaction (all threads, and its event-loop thread alone) and the bench
//     client's are printed beside it: on 2 cores they share the machine.
// The signed fixtures come from bench/fixtures.mjs (made once, cached with the wallet that signed them).
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CACHE, cpuSeconds, fixtures, threadCpu } from './fixtures.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');
/** Measured transactions: enough for a sustained figure (several blocks), and the 10,000-tx block. */
const MEASURED_TXS = Number(process.env.CHAIN_BENCH_TXS ?? 10_000);
/**
 * Transactions sent (and applied) before the measured ones, so the node's hot code is compiled
 * (V8 optimizes in background threads, which on 2 cores compete with the node) as in a node that
 * has been running; a cold node spends ~80 µs more per transaction.
 */
const WARMUP_TXS = 3_000;
const FIXTURE_COUNT = WARMUP_TXS + MEASURED_TXS;
const BLOCK_TXS = 10_000;
const CONCURRENCY = 256;
/** Block interval of the node under test: short, so the last block's wait is a small part of the run. */
const BLOCK_INTERVAL_S = 0.25;

const { NodeWallet } = await import(join(dist, 'wallet/wallet.js'));
const { KEYSTORE_FILE } = await import(join(dist, 'wallet/keystore.js'));

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
  const { REG_MINING_DIFFICULTY, REG_SIGNER_BITS } = await import(join(dist, 'chain/constants.js'));
  const { Mempool } = await import(join(dist, 'mempool/mempool.js'));
  const { createConsensus } = await import(join(dist, 'consensus/index.js'));
  const { createNodeEvents } = await import(join(dist, 'node/events.js'));
  const { systemClock } = await import(join(dist, 'clock.js'));
  const { sha3_512sq } = await import(join(dist, 'core/hash.js'));
  const { knownTxFromBytes } = await import(join(dist, 'chain/tx-codec.js'));
  const log = { info() {}, warn() {}, error() {}, debug() {}, child: () => log };
  const dir = dataDirWithWallet();
  const store = openStore(dir);
  try {
    const wallet = await NodeWallet.open(dir);
    const events = createNodeEvents(log);
    const trustAll = async (items) => items.map(() => true);
    // The fixtures' signatures were verified on admission: the import trusts them, as it trusts the mempool's.
    const chain = new Chain({ store, network: 'reg', extensions: new ChainExtensions([]), log, clock: systemClock, events, verifySignatures: trustAll, isVerified: () => true });
    const mempool = new Mempool({ chain, verify: trustAll, events, log });
    const key = wallet.primary;
    const signer = { address: key.primary, publicKey: key.publicKey, sign: (d) => key.sign(d) };
    const consensus = createConsensus({ chain, mempool, signer, network: 'reg', clock: systemClock, log, opts: { blockIntervalSeconds: 60, genesisBalance: 1_000_000n * 100_000_000n } });
    await consensus.producer.genesis(1_000_000n * 100_000_000n);
    const candidates = raw.slice(0, BLOCK_TXS).map((h) => knownTxFromBytes(Buffer.from(h, 'hex'), 'reg'));
    const t0 = performance.now();
    const produced = await chain.produceBlock({
      candidates, timestamp: BigInt(Math.floor(Date.now() / 1000)), proposer: signer.address, difficulty: REG_MINING_DIFFICULTY, signerBits: REG_SIGNER_BITS,
    });
    const t1 = performance.now();
    produced.block.signatures = [{ signer: signer.address, powSolution: null, signature: signer.sign(sha3_512sq(produced.checksum)) }];
    await chain.importBlock(produced.block, produced.txs, { source: 'local' });
    const t2 = performance.now();
    const ms = t2 - t0;
    if (produced.txs.length !== BLOCK_TXS) throw new Error(`only ${produced.txs.length} of ${BLOCK_TXS} applied: ${produced.rejected[0]?.error.message}`);
    console.log(
      `block of ${BLOCK_TXS} transactions produced, signed, imported and committed: ${ms.toFixed(0)} ms (produce ${(t1 - t0).toFixed(0)} ms, import ${(t2 - t1).toFixed(0)} ms; target < 1000 ms) — ${Math.round(BLOCK_TXS / (ms / 1000)).toLocaleString('en-US')} tx/s`,
    );
    mempool.close();
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function startNode(dataDir) {
  // CHAIN_BENCH_PROF=<dir>: write a CPU profile of the node process there.
  const prof = process.env.CHAIN_BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CHAIN_BENCH_PROF}`] : [];
  // CHAIN_BENCH_NODE_FLAGS="--flag …": V8/Node flags for the node process (e.g. GC settings to compare).
  const flags = process.env.CHAIN_BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [
    ...prof, ...flags, join(dist, 'cli/main.js'), 'start', '--network', 'reg', '--data-dir', dataDir, '--rpc-port', '0',
    '--block-interval', String(BLOCK_INTERVAL_S), '--pool-threads', '1', '--status-interval', '0',
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

/**
 * A lean keep-alive HTTP/1.1 client over one socket, one request in flight: the bench's own CPU
 * per request (node:http costs ~200 µs) would otherwise take a large share of the 2 cores it
 * measures the node on. Requests are pre-built bytes; a response is read by its Content-Length.
 */
class Connection {
  constructor(port) {
    this.socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
    this.buffered = Buffer.alloc(0);
    this.waiting = null;
    this.socket.on('data', (chunk) => this.onData(chunk));
    this.socket.on('error', (err) => this.waiting?.reject(err));
    this.socket.on('close', () => this.waiting?.reject(new Error('the node closed the connection')));
  }

  static frame(body) {
    const bytes = Buffer.from(body);
    return Buffer.concat([Buffer.from(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\n\r\n`), bytes]);
  }

  /** Sends one framed request; resolves with the response body text. */
  request(frame) {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(frame);
    });
  }

  onData(chunk) {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const headEnd = this.buffered.indexOf('\r\n\r\n');
    if (headEnd < 0) return;
    const head = this.buffered.toString('latin1', 0, headEnd);
    const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
    if (Number.isNaN(length)) throw new Error(`response without Content-Length: ${head}`);
    const end = headEnd + 4 + length;
    if (this.buffered.length < end) return;
    const body = this.buffered.toString('utf8', headEnd + 4, end);
    this.buffered = this.buffered.subarray(end);
    const { resolve } = this.waiting;
    this.waiting = null;
    resolve(body);
  }

  close() {
    this.socket.destroy();
  }
}

/** Sends `frames` over `senders` (one request in flight each); counts the rejected. */
async function sendAll(senders, frames) {
  let next = 0;
  const out = { rejected: 0, firstError: undefined };
  await Promise.all(senders.map(async (c) => {
    while (next < frames.length) {
      const body = await c.request(frames[next++]);
      if (!body.endsWith('"error":null}')) {
        out.rejected++;
        out.firstError ??= JSON.parse(body).error?.message ?? body;
      }
    }
  }));
  return out;
}

async function endToEnd(fixtures) {
  const dataDir = dataDirWithWallet();
  const { child, port } = await startNode(dataDir);
  const connections = [];
  const connect = () => connections[connections.push(new Connection(port)) - 1];
  const control = connect();
  const status = async () => JSON.parse(await control.request(Connection.frame('{"method":"status","params":{"verbose":true},"id":0}'))).result;
  const appliedCount = async (goal) => {
    while ((await status())['Applied TX Count'] < goal) await new Promise((r) => setTimeout(r, 20));
  };
  try {
    while ((await status())['Block Height'] < 1) await new Promise((r) => setTimeout(r, 50));
    const frames = fixtures.map((h, i) => Connection.frame(JSON.stringify({ method: 'sendRawTransaction', params: { transaction: h }, id: i })));
    const senders = Array.from({ length: CONCURRENCY }, connect);
    // Warm-up (not measured): the node's code paths get compiled, as in a node that has been running.
    const warm = await sendAll(senders, frames.slice(0, WARMUP_TXS));
    if (warm.rejected) throw new Error(`warm-up: ${warm.rejected} rejected, first: ${warm.firstError}`);
    await appliedCount(WARMUP_TXS + 1); // + the genesis transaction
    const raw = fixtures.slice(WARMUP_TXS);
    const height0 = (await status())['Block Height'];
    const cpu0 = cpuSeconds(child.pid);
    const main0 = cpuSeconds(child.pid, true);
    const threads0 = threadCpu(child.pid);
    const client0 = process.cpuUsage();
    const t0 = performance.now();
    const { rejected, firstError } = await sendAll(senders, frames.slice(WARMUP_TXS));
    const admitted = performance.now() - t0;
    await appliedCount(fixtures.length - rejected + 1);
    const total = performance.now() - t0;
    const cpu = cpuSeconds(child.pid) - cpu0;
    const mainCpu = cpuSeconds(child.pid, true) - main0;
    const client = process.cpuUsage(client0);
    const threads = [...threadCpu(child.pid)].map(([name, sec]) => [name, sec - (threads0.get(name) ?? 0)]).filter(([, sec]) => sec >= 0.01);
    const s = await status();
    if (rejected) console.log(`${rejected} rejected, first: ${firstError}`);
    console.log(`sendRawTransaction admission (${CONCURRENCY} connections): ${Math.round(raw.length / (admitted / 1000)).toLocaleString('en-US')} tx/s`);
    console.log(`end to end, ${raw.length - rejected} transactions sent, admitted and applied in ${s['Block Height'] - height0} blocks: ` +
      `${(total / 1000).toFixed(2)} s — ${Math.round((raw.length - rejected) / (total / 1000)).toLocaleString('en-US')} tx/s (target ≥ 5,000)`);
    const perTx = (seconds) => Math.round((seconds / (raw.length - rejected)) * 1e6);
    console.log(`node process CPU per transaction: ${perTx(cpu)} µs (all threads), ${perTx(mainCpu)} µs (main thread); ` +
      `bench client ${perTx((client.user + client.system) / 1e6)} µs; load average during the run ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores (other processes share them)`);
    console.log(`  by thread: ${threads.sort((a, b) => b[1] - a[1]).map(([name, sec]) => `${name} ${perTx(sec)} µs`).join(', ')}`);
  } finally {
    for (const c of connections) c.close();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const { raw } = await fixtures(FIXTURE_COUNT);
await blockApplication(raw);
await endToEnd(raw);
