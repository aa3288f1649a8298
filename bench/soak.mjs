// `npm run soak -- --minutes N`: a steady mixed load (reads and payments) against a node this script
// starts (or an existing one with --url), printing per minute the node's resident memory, its
// event-loop lag (from /metrics) and the p50/p99 latency of the calls, so an operator can check a
// release for growth (issue 13 §5). Peer traffic and messages join the mix once the network lands.
//
// Usage: node bench/soak.mjs [--minutes N] [--rate CALLS_PER_S] [--payments FRACTION]
//                            [--block-interval S] [--report-seconds S] [--url http://host:port]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLine, STRANGER } from './lib.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const minutes = Number(arg('minutes', 5));
const rate = Number(arg('rate', 100));
const paymentShare = Number(arg('payments', 0.1));
const blockInterval = Number(arg('block-interval', 1));
const reportSeconds = Number(arg('report-seconds', 60));
const externalUrl = arg('url', undefined);
for (const [k, v] of Object.entries({ minutes, rate, paymentShare, blockInterval, reportSeconds })) {
  if (!Number.isFinite(v) || v <= 0 || (k === 'paymentShare' && v > 1)) {
    console.error(`soak: --${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} must be a positive number${k === 'paymentShare' ? ' ≤ 1' : ''}, got ${v}`);
    process.exit(2);
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function startNode() {
  const dataDir = mkdtempSync(join(tmpdir(), 'dltnode-soak-'));
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [join(root, 'dist/cli/main.js'), 'start', '--data-dir', dataDir, '--rpc-port', String(port), '--block-interval', String(blockInterval), '--metrics', '--log-level', 'warn', '--status-interval', '0'],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 120_000; // the first start generates an RSA-4096 wallet key
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the node exited with code ${child.exitCode} during startup`);
    try {
      if ((await fetch(`${url}/ready`)).status === 200) break;
    } catch {}
    if (Date.now() > until) throw new Error('the node did not become ready within 120 s');
    await sleep(200);
  }
  return { url, child, dataDir };
}

function stopNode(node) {
  return new Promise((resolve) => {
    if (node.child.exitCode !== null) return resolve();
    node.child.once('exit', resolve);
    node.child.kill('SIGTERM');
    setTimeout(() => node.child.kill('SIGKILL'), 15_000).unref();
  });
}

/** Resident memory of a local process (Linux /proc), else the node's own process metric. */
function rssFromProc(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Event-loop lag p99 and RSS from the Prometheus text of /metrics (prom-client default collectors). */
async function scrape(url) {
  try {
    const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
    const metric = (name) => Number(new RegExp(`^\\w*${name}(?:\\{[^}]*\\})? ([\\d.e+-]+)$`, 'm').exec(text)?.[1] ?? NaN);
    return { lagP99: metric('eventloop_lag_p99_seconds'), lagMax: metric('eventloop_lag_max_seconds'), rss: metric('process_resident_memory_bytes') };
  } catch {
    return { lagP99: NaN, lagMax: NaN, rss: NaN };
  }
}

const READS = [
  () => '/status',
  () => '/status?verbose=1',
  () => '/txa?count=50',
  () => '/txu?count=50',
  () => `/getBalance?address=${STRANGER}`,
  () => `/validateAddress?address=${STRANGER}`,
  () => '/getBlock?num=1',
  () => '/myWallet',
];

function quantile(sorted, q) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;
}

const mb = (b) => (Number.isFinite(b) ? `${(b / 1024 / 1024).toFixed(0)} MB` : 'n/a');
const ms = (s) => (Number.isFinite(s) ? `${(s * 1000).toFixed(1)} ms` : 'n/a');

async function main() {
  console.log(machineLine());
  const node = externalUrl ? { url: externalUrl.replace(/\/$/, ''), child: null } : await startNode();
  console.log(
    `soak: ${minutes} min against ${node.url}${node.child ? ` (pid ${node.child.pid}, block interval ${blockInterval} s)` : ''}, ` +
      `${rate} calls/s, ${Math.round(paymentShare * 100)} % payments, a report every ${reportSeconds} s`,
  );
  let window = { latencies: [], calls: 0, errors: 0, payments: 0 };
  let running = true;
  let i = 0;
  const reports = Math.max(1, Math.round((minutes * 60) / reportSeconds));
  const end = Date.now() + reports * reportSeconds * 1000;
  // Open-loop pacing: one call started every 1/rate s, whatever the previous ones are doing, so a
  // slow node shows as latency (and growth), not as a lower offered load.
  const inFlight = new Set();
  const pacer = (async () => {
    const start = performance.now();
    for (let n = 0; running && Date.now() < end; n++) {
      const due = start + (n * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const payment = Math.random() < paymentShare;
      const path = payment ? `/addTransaction?to=${STRANGER}_0.01` : READS[i++ % READS.length]();
      const w = window;
      const t0 = performance.now();
      const p = fetch(node.url + path, { signal: AbortSignal.timeout(30_000) })
        .then(async (res) => {
          const body = await res.text();
          w.latencies.push(performance.now() - t0);
          w.calls++;
          if (payment) w.payments++;
          if (res.status !== 200 || !body.includes('"error":null')) w.errors++;
        })
        .catch(() => {
          w.calls++;
          w.errors++;
        })
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
      if (inFlight.size > rate * 30) await Promise.race(inFlight); // never more than 30 s of calls outstanding
    }
  })();

  const rows = [];
  for (let minute = 1; minute <= reports; minute++) {
    await sleep(Math.max(0, end - (reports - minute) * reportSeconds * 1000 - Date.now()));
    const w = window;
    window = { latencies: [], calls: 0, errors: 0, payments: 0 };
    const m = await scrape(node.url);
    const rss = node.child ? rssFromProc(node.child.pid) : m.rss;
    let height = NaN;
    try {
      height = (await (await fetch(`${node.url}/status`)).json()).result['Block Height'];
    } catch {}
    const sorted = w.latencies.sort((a, b) => a - b);
    const row = { minute, calls: w.calls, errors: w.errors, payments: w.payments, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), rss: Number.isFinite(rss) ? rss : m.rss, lagP99: m.lagP99, lagMax: m.lagMax, height };
    rows.push(row);
    console.log(
      `${reportSeconds === 60 ? "minute " : `${reportSeconds} s #`}${String(minute).padStart(3)}: ${w.calls.toLocaleString('en-US').padStart(8)} calls (${(w.calls / reportSeconds).toFixed(0)}/s, ${w.payments} payments, ${w.errors} errors)  ` +
        `p50 ${row.p50.toFixed(1)} ms  p99 ${row.p99.toFixed(1)} ms  RSS ${mb(row.rss)}  event-loop lag p99 ${ms(row.lagP99)} (max ${ms(row.lagMax)})  height ${height}`,
    );
  }
  running = false;
  await pacer;
  await Promise.allSettled([...inFlight]);
  if (rows.length >= 2) {
    const first = rows[0];
    const last = rows[rows.length - 1];
    console.log(`RSS ${mb(first.rss)} after the first report → ${mb(last.rss)} at the end (${last.rss >= first.rss ? '+' : '−'}${mb(Math.abs(last.rss - first.rss))}); errors in all: ${rows.reduce((a, r) => a + r.errors, 0)}`);
  }
  if (node.child) {
    await stopNode(node);
    rmSync(node.dataDir, { recursive: true, force: true });
  }
}

await main();
