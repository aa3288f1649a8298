// RPC throughput on loopback: our node (`dist/cli/main.js start`, uWS transport, full envelope,
// validation, metrics) vs a bare uWebSockets.js handler and a Fastify 5 server doing the same work
// (`validateAddress` calls the same dist/formats/address.js function; `status` serialises the object
// our node returned, as a cached answer). Load generator: wrk when on PATH, else autocannon, which
// shares the 2 cores with the server. Each figure: fresh server, 1 s warm-up, 5 s measured.
// Targets: ours ≥ 0.7× bare uWS and ≥ 1.5× Fastify.
//
// Usage: node bench/rpc.bench.mjs [--duration S] [--connections N]
//        (internal) node bench/rpc.bench.mjs --serve uws|fastify PORT
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLine, versionOf } from './lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};

// ---- peer servers (run in their own process) ------------------------------------------------
async function serve(kind, port) {
  const { validateAddress } = await import('../dist/formats/address.js');
  const status = JSON.parse(process.env.BENCH_STATUS ?? '{}');
  const rpc = (body) => {
    let req;
    try {
      req = JSON.parse(body);
    } catch {
      return '{"result":null,"id":null,"error":{"code":-32700,"message":"Parse error"}}';
    }
    const id = req.id ?? null;
    if (String(req.method).toLowerCase() === 'validateaddress') {
      return validateAddress(String(req.params?.address))
        ? JSON.stringify({ result: 'OK', id, error: null })
        : JSON.stringify({ result: null, id, error: { code: -32602, message: 'Invalid address was specified' } });
    }
    return JSON.stringify({ result: null, id, error: { code: -32601, message: 'Unknown operation' } });
  };
  const statusBody = () => JSON.stringify({ result: status, id: null, error: null });
  if (kind === 'uws') {
    const { default: uWS } = await import('uWebSockets.js');
    const app = uWS.App();
    app.get('/status', (res) => {
      const out = statusBody();
      res.cork(() => res.writeHeader('Content-Type', 'application/json').end(out));
    });
    app.post('/*', (res) => {
      let aborted = false;
      let chunks = [];
      res.onAborted(() => (aborted = true));
      res.onData((ab, isLast) => {
        chunks.push(Buffer.from(ab.slice(0)));
        if (!isLast || aborted) return;
        const out = rpc(Buffer.concat(chunks).toString());
        chunks = [];
        res.cork(() => res.writeHeader('Content-Type', 'application/json').end(out));
      });
    });
    app.listen('127.0.0.1', port, (t) => {
      if (!t) process.exit(1);
      console.log('ready');
    });
  } else {
    const { default: Fastify } = await import('fastify');
    const app = Fastify({ logger: false });
    app.get('/status', async (_req, reply) => reply.type('application/json').send(statusBody()));
    app.post('/', async (req, reply) => reply.type('application/json').send(rpc(JSON.stringify(req.body))));
    await app.listen({ port, host: '127.0.0.1' });
    console.log('ready');
  }
}

// ---- harness --------------------------------------------------------------------------------
function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(url, ms = 60_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not become ready`);
}

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}

const hasWrk = spawnSync('wrk', ['--version']).error === undefined;

async function load(url, { method = 'GET', body, duration, connections }) {
  if (hasWrk) {
    const lua = join(tmpdir(), `rpc-bench-${process.pid}.lua`);
    writeFileSync(lua, body ? `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = "application/json"\n` : '');
    const r = spawnSync('wrk', ['-t1', `-c${connections}`, `-d${duration}s`, '--latency', '-s', lua, url], { encoding: 'utf8' });
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(r.stdout)?.[1] ?? 0);
    const lat = (p) => /(\d+\.?\d*)(us|ms|s)/.exec(new RegExp(`${p}%\\s+(\\S+)`).exec(r.stdout)?.[1] ?? '');
    const ms = (m) => (m ? Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1) : NaN);
    const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(r.stdout)?.[1] ?? 0);
    return { rps, p50: ms(lat(50)), p99: ms(lat(99)), errors: non2xx };
  }
  const { default: autocannon } = await import('autocannon');
  const r = await autocannon({ url, method, body, headers: body ? { 'content-type': 'application/json' } : {}, duration, connections });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx + r.timeouts };
}

async function main() {
  const duration = Number(arg('duration', 5));
  const connections = Number(arg('connections', 50));
  console.log(machineLine());
  console.log(
    `load generator: ${hasWrk ? 'wrk -t1' : `autocannon ${versionOf('autocannon')} (in this process; it competes with the server for the 2 cores)`}, ` +
      `${connections} connections, 1 s warm-up + ${duration} s per figure; uWebSockets.js ${versionOf('uWebSockets.js')}, fastify ${versionOf('fastify')}`,
  );

  const dataDir = mkdtempSync(join(tmpdir(), 'dltnode-rpc-bench-'));
  const nodePort = await freePort();
  const startNode = (dir, port, extra = []) =>
    spawn(process.execPath, [join(root, 'dist/cli/main.js'), 'start', '--data-dir', dir, '--rpc-port', String(port), '--pool-threads', '1', '--block-interval', '5', '--log-level', 'warn', '--status-interval', '0', ...extra], { stdio: ['ignore', 'ignore', 'inherit'] });
  const node = startNode(dataDir, nodePort);
  // The same node on the uWS transport (--rpc-transport uws): the default is node:http since issue 13.
  const uwsDataDir = mkdtempSync(join(tmpdir(), 'dltnode-rpc-bench-'));
  const uwsNodePort = await freePort();
  const uwsNode = startNode(uwsDataDir, uwsNodePort, ['--rpc-transport', 'uws']);
  const results = [];
  try {
    const nodeUrl = `http://127.0.0.1:${nodePort}`;
    await waitFor(`${nodeUrl}/ready`);
    const status = (await (await fetch(`${nodeUrl}/status`)).json()).result;
    const address = (await (await fetch(`${nodeUrl}/myWallet`)).json()).result;
    const addr = typeof address === 'string' ? address : JSON.stringify(address).match(/"([1-9A-HJ-NP-Za-km-z]{40,80})"/)?.[1];
    if (!addr) throw new Error('could not read an address of the node wallet (myWallet)');
    const postBody = JSON.stringify({ method: 'validateAddress', params: { address: addr }, id: 1 });
    const check = await (await fetch(`${nodeUrl}/`, { method: 'POST', body: postBody })).json();
    if (check.result !== 'OK') throw new Error(`validateAddress of the node's own address failed: ${JSON.stringify(check)}`);
    const endpoints = [
      { name: 'GET /status', path: '/status' },
      { name: 'POST validateAddress', path: '/', method: 'POST', body: postBody },
    ];

    const targets = [{ name: 'dltnode (ours)', url: nodeUrl }, { name: 'dltnode on uWS', url: `http://127.0.0.1:${uwsNodePort}` }];
    await waitFor(`${targets[1].url}/ready`);
    for (const kind of ['uws', 'fastify']) {
      const port = await freePort();
      const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', kind, String(port)], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BENCH_STATUS: JSON.stringify(status) } });
      targets.push({ name: kind === 'uws' ? 'bare uWebSockets.js' : 'fastify', url: `http://127.0.0.1:${port}`, child });
    }
    for (const t of targets.slice(2)) await waitFor(`${t.url}/status`);

    for (const ep of endpoints) {
      for (const t of targets) {
        const opts = { method: ep.method, body: ep.body, connections };
        await load(t.url + ep.path, { ...opts, duration: 1 });
        const r = await load(t.url + ep.path, { ...opts, duration });
        results.push({ endpoint: ep.name, server: t.name, ...r });
      }
    }
    for (const t of targets.slice(2)) await stop(t.child);
  } finally {
    await stop(node);
    await stop(uwsNode);
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(uwsDataDir, { recursive: true, force: true });
  }

  console.log(`\n${'endpoint'.padEnd(22)} ${'server'.padEnd(22)} ${'req/s'.padStart(10)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(7)}  ours ÷ this`);
  for (const r of results) {
    const ours = results.find((x) => x.endpoint === r.endpoint && x.server === 'dltnode (ours)');
    const ratio = r === ours ? '(ours)' : `${(ours.rps / r.rps).toFixed(2)}×`;
    console.log(`${r.endpoint.padEnd(22)} ${r.server.padEnd(22)} ${Math.round(r.rps).toLocaleString('en-US').padStart(10)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)} ${String(r.errors).padStart(7)}  ${ratio}`);
  }
  for (const ep of new Set(results.map((r) => r.endpoint))) {
    const get = (s) => results.find((r) => r.endpoint === ep && r.server === s).rps;
    const vsUws = get('dltnode (ours)') / get('bare uWebSockets.js');
    const vsFastify = get('dltnode (ours)') / get('fastify');
    console.log(`${ep}: ${vsUws.toFixed(2)}× bare uWS (target ≥ 0.7) ${vsUws >= 0.7 ? 'met' : 'MISSED'}; ${vsFastify.toFixed(2)}× fastify (target ≥ 1.5) ${vsFastify >= 1.5 ? 'met' : 'MISSED'}`);
  }
}

if (process.argv[2] === '--serve') await serve(process.argv[3], Number(process.argv[4]));
else await main();
