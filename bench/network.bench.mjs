// The network (issue 9), with real node processes on loopback:
//  (a) ingest: a master of a 1 s genesis network fed 30,000 pre-signed transactions by a peer in
//      batched frames (transactionsChunk3 of 1,000, at most PUSH_WINDOW ahead of it), validating
//      them (RSA-4096 in the pool) and applying them in blocks; target ≥ 10,000 tx/s on 2 cores
//      (the floor is the RSA verification, ~80–110 µs per signature per core); the node's CPU per
//      transaction by thread, the blocks' cadence under the push (from the master's event stream),
//      and that floor as measured in the same run;
//  (b) propagation: a 10,000-transaction block from its proposer to the two other masters of a
//      3-master network (the transactions already gossiped, as in the network): time until all
//      have imported it;
//  (c) sync: a node catching up 1,000 blocks (with 13,000 of the fixtures' transactions in them)
//      from a master; the source chain is made once (about two minutes) and cached.
// NETWORK_BENCH_ONLY=ingest|propagation|sync runs one part; NETWORK_BENCH_TXS sets (a)'s count.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { CACHE, cpuSeconds, fixtures, threadCpu } from './fixtures.mjs';
import { countFromEnv, STRANGER } from './lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');
const INGEST_TXS = countFromEnv('NETWORK_BENCH_TXS', 30_000, 1);
/**
 * Transactions (a) pushes through the same path before it measures (not counted): a master runs
 * for days, and the first seconds of one are the JIT compiler's (in a cold 30,000-transaction run
 * V8's helper threads spent about twice as much on compiling as on collecting). 0 = a cold start.
 */
const INGEST_WARMUP = countFromEnv('NETWORK_BENCH_WARMUP', 10_000, 0);
const BATCH = 1_000;
/**
 * Transactions the pushing peer keeps ahead of the master (sent, neither applied nor pending
 * there): a relay pushing its clients' transactions at the rate the master takes them. The master
 * bounds what waits for admission per link (src/network/admission-gate.ts) and does not take a
 * batch past it, so a peer that pushes blindly faster than the master verifies loses batches.
 */
const PUSH_WINDOW = countFromEnv('NETWORK_BENCH_PUSH_WINDOW', 8_000, 1);
const SYNC_BLOCKS = 1_000;
/** Block interval of the sync source (s): short, so it makes its 1,000 blocks in a few minutes. */
const SYNC_BLOCK_INTERVAL = 0.25;

const { KEYSTORE_FILE } = await import(join(dist, 'wallet/keystore.js'));
const { writeGenesisFile } = await import(join(dist, 'config/genesis-file.js'));
const { DEVNET_MIN_SIGNER_DIFFICULTY } = await import(join(dist, 'cli/devnet.js'));
const { PeerNetwork, encodeTransactionBatches, systemClock, PEER_WS_PATH } = await import(join(dist, 'network/index.js'));
const { attachWsLink } = await import(join(dist, 'network/dial.js'));
const { generateWalletKey, signBytes, publicKeyOf, verifySignature } = await import(join(dist, 'formats/rsa.js'));
const { knownTxFromBytes } = await import(join(dist, 'chain/tx-codec.js'));
const { readKeystore } = await import(join(dist, 'wallet/keystore.js'));
const { primaryAddressFromPublicKey } = await import(join(dist, 'formats/address.js'));
const { NodeWallet } = await import(join(dist, 'wallet/wallet.js'));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const fmt = (n) => Math.round(n).toLocaleString('en-US');

function freePort() {
  return new Promise((ok) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });
}

/** A data directory holding the fixtures' wallet (the one the genesis funds). */
function walletDir(root, name) {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(CACHE, KEYSTORE_FILE), join(dir, KEYSTORE_FILE));
  return dir;
}

/** NETWORK_BENCH_PROF=<dir>: CPU profiles of every node process the bench starts, written there. */
const PROF = process.env.NETWORK_BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.NETWORK_BENCH_PROF}`] : [];

/** NETWORK_BENCH_NODE_FLAGS="--v8-pool-size=1 …": Node/V8 flags for the node processes (e.g. to see which thread does what). */
const NODE_FLAGS = process.env.NETWORK_BENCH_NODE_FLAGS ? process.env.NETWORK_BENCH_NODE_FLAGS.split(/\s+/).filter(Boolean) : [];

function startProcess(args) {
  const child = spawn(process.execPath, [...PROF, ...NODE_FLAGS, join(dist, 'cli/main.js'), 'start', '--rpc-port', '0', '--status-interval', '0', '--pool-threads', process.env.NETWORK_BENCH_POOL_THREADS ?? '1', '--log-format', 'json', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (c) => {
      out += c;
      const m = /RPC listening on (http:\/\/[^"\s]+)/.exec(out);
      if (m) resolve({ child, url: m[1], output: () => out });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`node exited (${code}):\n${out}`)));
  });
}

const call = async (node, method, params = {}) => {
  const res = await fetch(`${node.url}/${method}`, { method: 'POST', body: JSON.stringify({ method, params, id: 1 }) });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
};
const status = (node) => call(node, 'status', { verbose: true });
/**
 * The node's block imports as they happen (its `/events` stream): block number → when this process
 * heard of it and how many transactions it held. Resolves once subscribed.
 */
async function watchBlockImports(node) {
  const imported = new Map();
  const ws = new WebSocket(`${node.url.replace('http', 'ws')}/events?topics=blocks`);
  ws.on('message', (d) => {
    const e = JSON.parse(d.toString());
    if (e.event === 'blockImported') imported.set(e.data.num, { at: performance.now(), txs: e.data.transactions });
  });
  await new Promise((r, f) => ws.once('open', r).once('error', f));
  return { imported, close: () => ws.close() };
}
async function stop(...nodes) {
  for (const n of nodes) {
    n.child.kill('SIGTERM');
    await new Promise((r) => (n.child.exitCode !== null ? r() : n.child.once('exit', r)));
  }
}

/** A genesis funding the fixtures' wallet, with it as the one proposer. */
async function genesisFile(root, interval) {
  const wallet = await NodeWallet.open(CACHE);
  const path = join(root, 'genesis.json');
  writeGenesisFile(path, {
    name: 'bench', network: 'reg', timestamp: BigInt(Math.floor(Date.now() / 1000) - 10), blockIntervalSeconds: interval,
    allocations: [{ address: wallet.primary.primary, amount: 1_000_000n * 100_000_000n }], masters: [wallet.primary.primary],
    minSignerDifficulty: DEVNET_MIN_SIGNER_DIFFICULTY,
  });
  return path;
}

/** This process as a relay peer of `port`: pushes transaction batches over one link. */
async function peerOf(port, genesisChecksum) {
  const key = await generateWalletKey();
  const publicKey = publicKeyOf(key.privateKey);
  const peers = new PeerNetwork({
    local: {
      network: 'reg', genesisChecksum, nodeType: 'R', address: primaryAddressFromPublicKey(publicKey), publicKey,
      productVersion: 'bench', endpoint: '', sign: (d) => signBytes(key.privateKey, d),
      tip: () => ({ height: 1n, checksum: genesisChecksum }), networkHeight: () => 1n, acceptingPeers: () => true,
    },
    clock: systemClock,
  });
  const ws = new WebSocket(`ws://127.0.0.1:${port}${PEER_WS_PATH}`);
  // Attached before 'open': the acceptor's challenge may arrive in the same read as the upgrade.
  let link;
  await new Promise((r, f) => {
    ws.once('open', () => {
      r();
    }).once('error', f);
    link = attachWsLink(ws, (socket) => peers.attachOutbound(socket, `127.0.0.1:${port}`));
  });
  for (let i = 0; i < 200 && !link.isOpen; i++) await sleep(25);
  if (!link.isOpen) throw new Error(`the bench peer could not link to the master: ${JSON.stringify(link.closeInfo)} state ${link.state}`);
  return { link, close: () => link.close('shutdown') };
}

async function ingest(raw, root) {
  const genesis = await genesisFile(root, 1);
  const port = await freePort();
  const master = await startProcess(['--genesis', genesis, '--data-dir', walletDir(root, 'ingest'), '--p2p-port', String(port)]);
  try {
    const checksum = Buffer.from((await call(master, 'getBlock', { num: 1 }))['Block Checksum'], 'hex');
    const peer = await peerOf(port, new Uint8Array(checksum));
    /** Pushes `txs` and waits until the master has applied them all; seconds taken. */
    const pushAll = async (txs) => {
      const batches = [];
      for (let i = 0; i < txs.length; i += BATCH) batches.push(...encodeTransactionBatches(0n, txs.slice(i, i + BATCH)));
      const applied0 = (await status(master))['Applied TX Count'];
      const t0 = performance.now();
      let sent = 0;
      let s = await status(master);
      for (const f of batches) {
        while (sent - (s['Applied TX Count'] - applied0) - s['Unapplied TX Count'] >= PUSH_WINDOW) {
          await sleep(50);
          s = await status(master);
        }
        while (peer.link.pendingBytes > 8 * 1024 * 1024) await sleep(2);
        peer.link.sendFrame(f);
        sent += BATCH;
      }
      for (let polls = 0; (s = await status(master))['Applied TX Count'] < applied0 + txs.length; polls++) {
        if (polls > 12_000) throw new Error(`ingest stalled at ${s['Applied TX Count'] - applied0} of ${txs.length} applied`);
        await sleep(25);
      }
      return (performance.now() - t0) / 1000;
    };
    const hex = (from, to) => raw.slice(from, to).map((h) => Buffer.from(h, 'hex'));
    if (INGEST_WARMUP > 0) {
      const seconds = await pushAll(hex(0, INGEST_WARMUP));
      console.log(`(a) warm-up: ${fmt(INGEST_WARMUP)} transactions through the same path first (the compiler's and caches' start), ${fmt(INGEST_WARMUP / seconds)} tx/s; not counted`);
    }
    const txs = hex(INGEST_WARMUP, INGEST_WARMUP + INGEST_TXS);
    // The master's block imports as they happen: the cadence under the push.
    const blockImports = await watchBlockImports(master);
    const pushStart = performance.now();
    const blocks0 = (await status(master))['Block Height'];
    const cpu0 = cpuSeconds(master.child.pid);
    // The pushing peer is this process: it shares the two cores with the master.
    const pusher0 = process.cpuUsage();
    const main0 = cpuSeconds(master.child.pid, true);
    const threads0 = threadCpu(master.child.pid);
    // A wallet's payment through the master's RPC every 0.5 s meanwhile: its answer waits for its
    // RSA check, which goes ahead of the peer's queued checks (the user's view of a busy master).
    let pushing = true;
    const rpcMs = [];
    const probe = (async () => {
      while (pushing) {
        const t = performance.now();
        await call(master, 'addTransaction', { to: `${STRANGER}_0.01` });
        rpcMs.push(performance.now() - t);
        await sleep(500);
      }
    })();
    const seconds = await pushAll(txs).finally(() => (pushing = false));
    await probe;
    const blocks = (await status(master))['Block Height'] - blocks0;
    const pusher = process.cpuUsage(pusher0);
    const perTx = (sec) => Math.round((sec / txs.length) * 1e6);
    const threads = [...threadCpu(master.child.pid)].map(([n, sec]) => [n, sec - (threads0.get(n) ?? 0)]).filter(([, sec]) => sec >= 0.01);
    console.log(`(a) ingest: ${fmt(txs.length)} pre-signed transactions pushed by a peer in frames of ${BATCH}, validated and applied in ~${blocks} blocks: ` +
      `${seconds.toFixed(2)} s — ${fmt(txs.length / seconds)} tx/s (target ≥ 10,000 on 2 cores)${INGEST_WARMUP > 0 ? '' : ', from a cold start'}`);
    console.log(`    master CPU per transaction: ${perTx(cpuSeconds(master.child.pid) - cpu0)} µs (all threads), ${perTx(cpuSeconds(master.child.pid, true) - main0)} µs (main thread); load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`);
    console.log(`    the pushing peer (this process, same cores): ${perTx((pusher.user + pusher.system) / 1e6)} µs per transaction`);
    blockImports.close();
    if (rpcMs.length > 0) {
      rpcMs.sort((a, b) => a - b);
      console.log(`    an RPC payment (addTransaction) every 0.5 s meanwhile: ${rpcMs.length} answered, median ${fmt(rpcMs[rpcMs.length >> 1])} ms, the slowest ${fmt(rpcMs[rpcMs.length - 1])} ms`);
    }
    // Gaps from the push's start: a block that waits on the verifier shows as a gap past the 1 s interval.
    const during = [...blockImports.imported.values()].filter((b) => b.at >= pushStart);
    const gaps = during.map((b, i) => b.at - (i === 0 ? pushStart : during[i - 1].at));
    if (during.length > 0) {
      console.log(`    blocks imported during the push: ${during.length}, of up to ${fmt(Math.max(...during.map((b) => b.txs)))} transactions; ` +
        `${(gaps.reduce((a, b) => a + b, 0) / gaps.length / 1000).toFixed(2)} s apart on average, the longest gap ${(Math.max(...gaps) / 1000).toFixed(2)} s (the network's interval: 1 s)`);
    }
    console.log(`    by thread: ${threads.sort((a, b) => b[1] - a[1]).slice(0, 6).map(([n, sec]) => `${n} ${perTx(sec)} µs`).join(', ')}`);
    peer.close();
  } finally {
    await stop(master);
  }
}

/**
 * µs per RSA-4096 check (OpenSSL through node:crypto, the call the pool's workers make) on this
 * process's thread: the fixtures' first 1,000 signatures, twice, the faster run.
 */
function rsaVerifyMicros(raw) {
  const key = publicKeyOf(readKeystore(CACHE)[0].privateKey); // serialized, parsed once by the cache, as in the pool
  const txs = raw.slice(0, 1_000).map((h) => knownTxFromBytes(Buffer.from(h, 'hex'), 'reg'));
  let best = Infinity;
  for (let run = 0; run < 2; run++) {
    const t0 = performance.now();
    for (const k of txs) if (!verifySignature(key, k.checksum, k.tx.signature)) throw new Error('a fixture signature does not verify');
    best = Math.min(best, ((performance.now() - t0) * 1000) / txs.length);
  }
  return best;
}

async function propagation(raw, root) {
  const genesis = await genesisFile(root, 4);
  const ports = [await freePort(), await freePort(), await freePort()];
  const dirs = ['m1', 'm2', 'm3'].map((n) => join(root, `prop-${n}`));
  dirs.forEach((d) => mkdirSync(d, { recursive: true }));
  copyFileSync(join(CACHE, KEYSTORE_FILE), join(dirs[0], KEYSTORE_FILE));
  const m1 = await startProcess(['--genesis', genesis, '--data-dir', dirs[0], '--p2p-port', String(ports[0])]);
  // The other two are masters that follow (not in the genesis's proposer list): they import and relay.
  const m2 = await startProcess(['--genesis', genesis, '--data-dir', dirs[1], '--p2p-port', String(ports[1]), '--peer', `127.0.0.1:${ports[0]}`]);
  const m3 = await startProcess(['--genesis', genesis, '--data-dir', dirs[2], '--p2p-port', String(ports[2]), '--peer', `127.0.0.1:${ports[0]}`, '--peer', `127.0.0.1:${ports[1]}`]);
  const masters = [m1, m2, m3];
  try {
    const checksum = Buffer.from((await call(m1, 'getBlock', { num: 1 }))['Block Checksum'], 'hex');
    const watchers = await Promise.all(masters.map(watchBlockImports));
    const imported = watchers.map((w) => w.imported);
    const peer = await peerOf(ports[0], new Uint8Array(checksum));
    const txs = raw.slice(0, 10_000).map((h) => Buffer.from(h, 'hex'));
    for (const f of encodeTransactionBatches(0n, txs)) peer.link.sendFrame(f);
    // The block that holds them all, then the time the last master imported it.
    let big;
    for (let i = 0; i < 600 && !big; i++) {
      await sleep(100);
      big = [...imported[0]].find(([, v]) => v.txs >= 5_000);
    }
    if (!big) throw new Error('no large block was produced');
    const [num, made] = big;
    for (let i = 0; i < 600 && !(imported[1].has(num) && imported[2].has(num)); i++) await sleep(20);
    const last = Math.max(imported[1].get(num)?.at ?? NaN, imported[2].get(num)?.at ?? NaN);
    console.log(`(b) propagation: block ${num} of ${fmt(made.txs)} transactions, from its proposer's import to the last of the 2 other masters' imports: ${fmt(last - made.at)} ms`);
    watchers.forEach((w) => w.close());
    peer.close();
  } finally {
    await stop(...masters);
  }
}

/**
 * The source chain of (c): a master of a short-interval genesis network fed the fixtures a few at a time
 * by a peer until it made SYNC_BLOCKS blocks (about two minutes), then cached with its genesis.
 */
async function syncSource(raw) {
  const dir = join(CACHE, `sync-chain-${SYNC_BLOCKS}`);
  const done = join(dir, 'complete.json');
  if (existsSync(done)) return { genesisPath: join(dir, 'genesis.json'), sourceDir: join(dir, 'source'), ...JSON.parse(readFileSync(done, 'utf8')) };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  const genesisPath = await genesisFile(dir, SYNC_BLOCK_INTERVAL);
  const sourceDir = walletDir(dir, 'source');
  const port = await freePort();
  const master = await startProcess(['--genesis', genesisPath, '--data-dir', sourceDir, '--p2p-port', String(port)]);
  try {
    const checksum = Buffer.from((await call(master, 'getBlock', { num: 1 }))['Block Checksum'], 'hex');
    const peer = await peerOf(port, new Uint8Array(checksum));
    const per = Math.ceil(raw.length / SYNC_BLOCKS);
    let s = await status(master);
    for (let b = 0; s['Block Height'] < SYNC_BLOCKS; b++) {
      if (b * per < raw.length) for (const f of encodeTransactionBatches(0n, raw.slice(b * per, (b + 1) * per).map((h) => Buffer.from(h, 'hex')))) peer.link.sendFrame(f);
      const height = s['Block Height'];
      for (let i = 0; i < 1_000 && (s = await status(master))['Block Height'] === height; i++) await sleep(10);
      if (s['Block Height'] === height) throw new Error(`the sync source made no block after ${height} in 10 s`);
    }
    peer.close();
    const txCount = s['Applied TX Count'] - 1;
    const target = s['Block Height'];
    await stop(master);
    writeFileSync(done, JSON.stringify({ target, txCount }));
    console.log(`built the sync source: ${fmt(target)} blocks with ${fmt(txCount)} transactions in ${((performance.now() - started) / 1000).toFixed(0)} s (cached in ${dir})`);
    return { genesisPath, sourceDir, target, txCount };
  } finally {
    await stop(master);
  }
}

async function sync(raw, root) {
  const { genesisPath, sourceDir, target, txCount } = await syncSource(raw);
  const port = await freePort();
  const source = await startProcess(['--genesis', genesisPath, '--data-dir', sourceDir, '--p2p-port', String(port)]);
  const dir = join(root, 'sync-follower');
  mkdirSync(dir, { recursive: true });
  try {
    // A master follower imports every block (the full sync); a relay follows the headers only (light nodes).
    for (const [label, role] of [['(c) sync', 'master'], ['(c) header sync (relay)', 'relay']]) {
      const t0 = performance.now();
      const followerDir = join(dir, role);
      mkdirSync(followerDir, { recursive: true });
      const follower = await startProcess(['--genesis', genesisPath, '--data-dir', followerDir, '--role', role, '--peer', `127.0.0.1:${port}`]);
      try {
        for (let polls = 0; (await status(follower))['Block Height'] < target; polls++) {
          if (polls > 15_000) throw new Error(`the ${role} follower did not catch up in 5 minutes`);
          await sleep(20);
        }
        const seconds = (performance.now() - t0) / 1000;
        const txs = role === 'master' ? `with ${fmt(txCount)} transactions ` : '';
        const txRate = role === 'master' ? `, ${fmt(txCount / seconds)} tx/s` : '';
        console.log(`${label}: ${fmt(target)} blocks ${txs}caught up from one master in ${seconds.toFixed(2)} s (process start included) — ${fmt(target / seconds)} blocks/s${txRate}`);
      } finally {
        await stop(follower);
      }
    }
  } finally {
    await stop(source);
  }
}

const root = mkdtempSync(join(os.tmpdir(), 'dltnode-bench-net-'));
try {
  // Signed once (about 2 minutes on 2 cores), then cached.
  const { raw } = await fixtures(Math.max(13_000, INGEST_WARMUP + INGEST_TXS + 1_000));
  const only = process.env.NETWORK_BENCH_ONLY; // ingest | propagation | sync: one part alone
  if (!only || only === 'ingest') {
    await ingest(raw, root);
    const rsa = rsaVerifyMicros(raw); // the master stopped: this process alone
    console.log(`    the floor: one RSA-4096 check of these transactions takes ${rsa.toFixed(0)} µs on one core of this machine (measured here, alone), ` +
      `so the checks alone of 10,000 tx/s would take ${((rsa * 10_000) / 1e6 / os.availableParallelism() * 100).toFixed(0)} % of its ${os.availableParallelism()} cores`);
  }
  if (!only || only === 'propagation') await propagation(raw, root);
  if (!only || only === 'sync') await sync(raw.slice(0, 13_000), root);
} finally {
  rmSync(root, { recursive: true, force: true });
}
