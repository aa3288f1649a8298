/**
 * End-to-end harness: runs a REAL node process (`node dist/cli/main.js start`, the built code) on
 * a free port with a temporary data directory and a fast block interval, and talks to it over
 * HTTP as a client would (GET with query parameters, or POST with a JSON-RPC body).
 *
 * The node's RSA-4096 wallet key is generated once per test run and copied into every data
 * directory (keygen takes seconds; the keystore format is the node's own, src/wallet/keystore.ts).
 *
 * Usage (one node per test file):
 *   const node = await startNode();
 *   const status = await node.call('status');            // result, throws RpcCallError on error
 *   const reply = await node.rpc('getWallet', {}, { get: true }); // whole envelope
 *   await node.waitForHeight(node.height + 1);
 *   await node.stop();
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer as createNetServer } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, expect } from 'vitest';
import WebSocket from 'ws';
import { generateWalletKey } from '../../src/formats/rsa.js';
import { addressToText, primaryAddressFromPublicKey } from '../../src/formats/address.js';
import { publicKeyOf } from '../../src/formats/rsa.js';
import { KEYSTORE_FILE, writeKeystore } from '../../src/wallet/keystore.js';
import { prepareDevnet, type DevnetNode } from '../../src/cli/devnet.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
/** One cached keystore per machine and day of builds: reused by every e2e file. */
const KEY_CACHE_DIR = join(tmpdir(), 'dltnode-e2e-key');
const START_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 15_000;

export interface RpcEnvelope {
  result: unknown;
  error: { code: number; message: string } | null;
  id: unknown;
  /** HTTP status of the response. */
  status: number;
}

export class RpcCallError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${code} ${message}`);
  }
}

export interface RpcOptions {
  /** Send as GET with query parameters (default POST with a JSON body). */
  get?: boolean;
  id?: unknown;
}

export interface StartOptions {
  /** Reuse a data directory (restart); default a new temporary one. */
  dataDir?: string;
  /** Seconds between blocks; default 0.5. */
  blockInterval?: number;
  args?: string[];
  /** Log level of the node (default info, or DLTNODE_E2E_LOG_LEVEL). */
  logLevel?: string;
  /**
   * A command that runs the node, e.g. `['ip', 'netns', 'exec', NAME]` (it must exec the node,
   * so the child's pid is the node's). Default: none.
   */
  wrapper?: string[];
  /** Options for node itself, before the script (e.g. `--inspect=127.0.0.1:0`). */
  nodeArgs?: string[];
}

export interface NodeProcess {
  readonly url: string;
  readonly dataDir: string;
  /** The node wallet's primary address (Base58). */
  readonly address: string;
  readonly child: ChildProcess;
  /** The whole response envelope. */
  rpc(method: string, params?: Record<string, unknown>, options?: RpcOptions): Promise<RpcEnvelope>;
  /** The result, or throws RpcCallError with the error's code and message. */
  call<T = any>(method: string, params?: Record<string, unknown>, options?: RpcOptions): Promise<T>;
  /** Raw HTTP (for malformed requests). */
  http(path: string, init?: RequestInit): Promise<{ status: number; text: string }>;
  height(): Promise<number>;
  /** Resolves once the chain reaches `height` (default: the next block). */
  waitForHeight(height?: number, timeoutMs?: number): Promise<number>;
  /** Polls `check` until it returns a truthy value. */
  waitFor<T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs?: number): Promise<T>;
  /** The block that applied transaction `id`, 0 while it is pending (getTransaction's `applied`). */
  appliedAt(id: string): Promise<number>;
  /**
   * Resolves with the block that applied `id`. With `unknownIsPending`, "was not found" counts as
   * pending (a transaction made on another node that has not arrived here yet).
   */
  waitApplied(id: string, options?: { timeoutMs?: number; unknownIsPending?: boolean }): Promise<number>;
  /** Sends `signal` and waits for the process to exit; returns its exit code (null when killed). */
  kill(signal?: NodeJS.Signals): Promise<number | null>;
  /** Graceful stop (SIGTERM) and removal of the data directory unless `keepData`. */
  stop(keepData?: boolean): Promise<void>;
  /** Everything the process printed so far. */
  output(): string;
}

/** The cached keystore directory (created on first use), with the primary address of its key. */
async function cachedKeystore(): Promise<{ file: string; address: string }> {
  const file = join(KEY_CACHE_DIR, KEYSTORE_FILE);
  const addressFile = join(KEY_CACHE_DIR, 'address');
  if (!existsSync(file) || !existsSync(addressFile)) {
    mkdirSync(KEY_CACHE_DIR, { recursive: true });
    const key = await generateWalletKey();
    const staging = mkdtempSync(join(KEY_CACHE_DIR, 'gen-'));
    writeKeystore(staging, [{ privateKey: key.privateKey, nonces: [] }]);
    writeFileSync(addressFile, addressToText(primaryAddressFromPublicKey(publicKeyOf(key.privateKey))));
    writeFileSync(file, readFileSync(join(staging, KEYSTORE_FILE)));
    rmSync(staging, { recursive: true, force: true });
  }
  return { file, address: readFileSync(addressFile, 'utf8').trim() };
}

/** A new temporary data directory holding the cached wallet. */
export async function newDataDir(): Promise<{ dataDir: string; address: string }> {
  const { file, address } = await cachedKeystore();
  const dataDir = mkdtempSync(join(tmpdir(), 'dltnode-e2e-'));
  writeFileSync(join(dataDir, KEYSTORE_FILE), readFileSync(file), { mode: 0o600 });
  return { dataDir, address };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A free loopback port below the kernel's ephemeral range (32768–60999): a node restarted on its
 * peer port must not find it taken by another process's outgoing connection, as a port the kernel
 * handed out (port 0) can be once its listener is gone.
 */
export async function freeFixedPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    const free = await new Promise<boolean>((ok) => {
      const srv = createNetServer().once('error', () => ok(false)).listen(port, '127.0.0.1', () => srv.close(() => ok(true)));
    });
    if (free) return port;
  }
  throw new Error('no free port between 20000 and 30000');
}

export async function startNode(options: StartOptions = {}): Promise<NodeProcess> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` before the e2e tests`);
  let dataDir = options.dataDir;
  let address: string;
  if (dataDir) {
    address = (await cachedKeystore()).address;
  } else {
    ({ dataDir, address } = await newDataDir());
  }
  // `reg` unless the caller names another network.
  const network = options.args?.includes('--network') ? [] : ['--network', 'reg'];
  const args = [
    ...(options.nodeArgs ?? []), CLI, 'start', ...network, '--data-dir', dataDir, '--rpc-port', '0',
    '--block-interval', String(options.blockInterval ?? 0.5), '--pool-threads', '1',
    '--log-level', options.logLevel ?? process.env.DLTNODE_E2E_LOG_LEVEL ?? 'info', '--status-interval', '0', ...(options.args ?? []),
  ];
  const [command, ...prefix] = [...(options.wrapper ?? []), process.execPath];
  const child = spawn(command!, [...prefix, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const starting = new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`node did not start within ${START_TIMEOUT_MS} ms:\n${out}`)), START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /RPC listening on (http:\/\/[^"\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`node exited with code ${code} during startup:\n${out}`));
    });
  });
  let url: string;
  try {
    url = await starting;
  } catch (err) {
    // A node that did not come up is not left running behind the test.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    throw err;
  }

  const http: NodeProcess['http'] = async (path, init) => {
    const res = await fetch(url + path, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    return { status: res.status, text: await res.text() };
  };

  const rpc: NodeProcess['rpc'] = async (method, params = {}, opts = {}) => {
    let res: { status: number; text: string };
    if (opts.get) {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
      if (opts.id !== undefined) q.set('id', String(opts.id));
      const qs = q.toString();
      res = await http(`/${method}${qs ? `?${qs}` : ''}`);
    } else {
      res = await http(`/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ method, params, id: opts.id ?? 1 }),
      });
    }
    let body: Omit<RpcEnvelope, 'status'>;
    try {
      body = JSON.parse(res.text) as Omit<RpcEnvelope, 'status'>;
    } catch {
      throw new Error(`${method}: HTTP ${res.status} with a body that is not JSON: ${res.text.slice(0, 200)}`);
    }
    return { ...body, status: res.status };
  };

  const call: NodeProcess['call'] = async (method, params, opts) => {
    const r = await rpc(method, params, opts);
    if (r.error) throw new RpcCallError(method, r.error.code, r.error.message);
    return r.result as any;
  };

  const waitFor: NodeProcess['waitFor'] = async (check, what, timeoutMs = 20_000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const v = await check();
      if (v) return v;
      if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await sleep(50);
    }
  };

  const height = async () => (await call<Record<string, number>>('status'))['Block Height']!;
  const appliedAt = async (id: string) => Number((await call('getTransaction', { id })).applied);

  const node: NodeProcess = {
    url,
    dataDir,
    address,
    child,
    rpc,
    call,
    http,
    height,
    waitFor,
    appliedAt,
    waitApplied(id, { timeoutMs, unknownIsPending = false } = {}) {
      return waitFor(async () => {
        try {
          return (await appliedAt(id)) || undefined;
        } catch (err) {
          if (unknownIsPending && err instanceof RpcCallError && err.message.endsWith(`Transaction ${id} was not found`)) return undefined;
          throw err;
        }
      }, `${id} applied`, timeoutMs);
    },
    async waitForHeight(target, timeoutMs) {
      const goal = target ?? (await height()) + 1;
      return waitFor(async () => {
        const h = await height();
        return h >= goal ? h : undefined;
      }, `block ${goal}`, timeoutMs);
    },
    async kill(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
    async stop(keepData = false) {
      await node.kill('SIGTERM');
      if (!keepData) rmSync(dataDir!, { recursive: true, force: true });
    },
    output: () => out,
  };
  return node;
}

/** Asserts that `method` answers with an error of this code and message (exact text, or a pattern). */
export async function expectRpcError(
  node: NodeProcess,
  method: string,
  params: Record<string, unknown>,
  code: number,
  message: string | RegExp,
  get = false,
): Promise<void> {
  const r = await node.rpc(method, params, { get });
  expect(r.result, `${method} ${JSON.stringify(params)}`).toBeNull();
  expect(r.error?.code, `${method} ${JSON.stringify(params)}: ${r.error?.message}`).toBe(code);
  if (typeof message === 'string') expect(r.error?.message).toBe(message);
  else expect(r.error?.message).toMatch(message);
}

/**
 * After a failed test, every running node's log is written beside the test's temporary files
 * (`<prefix>-logs-…/<name>.log`) and the folder named on stderr. Call it at the top level of a test file.
 */
export function keepLogsOnFailure(running: ReadonlyMap<string, NodeProcess>, prefix: string): void {
  afterEach((ctx) => {
    if (ctx.task.result?.state !== 'fail') return;
    const logs = mkdtempSync(join(tmpdir(), `${prefix}-logs-`));
    for (const [name, n] of running) writeFileSync(join(logs, `${name}.log`), n.output());
    console.error(`node logs of the failed test: ${logs}`);
  });
}

/**
 * The nodes of a multi-node test file: a temporary folder for their data, the running processes by
 * name, all stopped (and the folder removed) after the file, and their logs kept on a failure
 * (`keepLogsOnFailure`). Call it at the top level of a test file.
 */
export function nodeGroup(prefix: string): { dir: string; running: Map<string, NodeProcess> } {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const running = new Map<string, NodeProcess>();
  afterAll(async () => {
    for (const n of running.values()) await n.stop(true);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
  keepLogsOnFailure(running, prefix);
  return { dir, running };
}

/**
 * A devnet of one master, one relay and one client of one genesis, for the light-node e2e tests:
 * `start(name)` starts a node of the plan (the relay dials the master, the client the relay; a
 * restarted node keeps its ports); `startAll()` prepares the genesis and starts all three, then
 * waits until the client sees its funds and is linked to its relay. Call it at the top level.
 */
export function masterRelayClient(prefix: string) {
  const { dir, running } = nodeGroup(prefix);
  const peerPorts = new Map<string, number>();
  let plan: DevnetNode[] = [];
  let genesisPath = '';
  const byName = (name: string): DevnetNode => plan.find((n) => n.name === name)!;
  const node = (name: string): NodeProcess => running.get(name)!;
  async function start(name: string): Promise<NodeProcess> {
    const n = byName(name);
    const args = ['--genesis', genesisPath, '--role', n.role];
    if (n.role !== 'client') {
      if (!peerPorts.has(name)) peerPorts.set(name, await freeFixedPort());
      args.push('--p2p-port', String(peerPorts.get(name)));
    }
    const peer = n.role === 'relay' ? 'master-1' : n.role === 'client' ? 'relay-1' : null;
    if (peer) args.push('--peer', `127.0.0.1:${peerPorts.get(peer)}`);
    const proc = await startNode({ dataDir: n.dataDir, args });
    running.set(name, proc);
    return proc;
  }
  async function startAll(): Promise<void> {
    const prepared = await prepareDevnet({ masters: 1, relays: 1, clients: 1, blockInterval: 0.5, dir, json: true, basePort: null });
    plan = prepared.nodes;
    genesisPath = prepared.genesisPath;
    for (const name of ['master-1', 'relay-1', 'client-1']) await start(name);
    const client = node('client-1');
    // Linked to its relay (relay outputs go to the relays a client is linked to); a client asks
    // its balance over that link, and answers -32005 (try again) before it has one.
    await client.waitFor(async () => (await client.call('status'))['Network Servers'].length > 0, 'the client linked to its relay', 20_000);
    const funded = async () => {
      try {
        return (await client.call('getBalance', { address: byName('client-1').address })) !== '0.00000000';
      } catch (err) {
        if (err instanceof RpcCallError && err.code === -32005) return false;
        throw err;
      }
    };
    await client.waitFor(funded, 'the client to see its funds', 30_000);
  }
  return { running, byName, node, start, startAll };
}

/** Collects every event of a node's /events stream on the given topics (resolves once subscribed). */
export async function subscribe(n: NodeProcess, topics: string): Promise<{ events: any[]; close(): void }> {
  const ws = new WebSocket(`${n.url.replace('http', 'ws')}/events?topics=${topics}`);
  const events: any[] = [];
  await new Promise<void>((ok, fail) => {
    ws.once('error', fail);
    ws.on('message', (d) => {
      const m = JSON.parse(String(d));
      if (m.op === 'subscribed') ok();
      else events.push(m);
    });
  });
  return { events, close: () => ws.close() };
}
