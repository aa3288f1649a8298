/**
 * The adversarial suites' shared parts (issue 13 §4): a seeded generator of malformed calls over
 * every operation of the method table (read from the built dist/rpc/methods/index.js, as a client
 * reading rpc.discover would), raw-socket framing attacks, and the tally that judges each answer.
 * Everything talks HTTP or raw TCP to a real node process on loopback (test/e2e/harness.ts).
 */
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { NodeProcess } from '../e2e/harness.js';
import { firstStatus, rawExchange } from '../rpc/raw-http.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface TableParam {
  name: string;
  kind: string;
}
export interface TableMethod {
  name: string;
  postOnly?: boolean;
  params: TableParam[];
}

/** The method table of the built node (`npm run build` first). */
export async function methodTable(): Promise<TableMethod[]> {
  const mod = (await import(pathToFileURL(join(ROOT, 'dist', 'rpc', 'methods', 'index.js')).href)) as { METHODS: TableMethod[] };
  return mod.METHODS.map((m) => ({ name: m.name, postOnly: m.postOnly, params: m.params.map((p) => ({ name: p.name, kind: p.kind })) }));
}

/** mulberry32: a small seeded PRNG, so a failing campaign can be replayed from its printed seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** Text values an attacker tries on any parameter. */
const NASTY_TEXT: readonly string[] = [
  '', ' ', '-1', '0', '-0', '1e309', 'NaN', 'Infinity', 'null', 'true', 'undefined', '0x10', '1.5', '9007199254740993',
  '18446744073709551616', '-18446744073709551617', '１２３', 'a.b.c.d', 'a.b.c.d.e.f', 'ü.ü.ü.ü', '..', '.', '-a-', 'xn--',
  '\u0000', '%00', '%', '%zz', '../../../../etc/passwd', '{"a":1}', '[]', '[1,2]', 'zz', 'abc', '0'.repeat(1001), 'f'.repeat(513),
  '😀'.repeat(50), '\ud800', 'A'.repeat(10_000), '<script>', "'; DROP TABLE x; --", '__proto__', 'constructor', 'toString',
  '1_1', '_', '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr_-1',
  '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr_1e9', '1-' + '1'.repeat(60), 'stk-1-2-3', '@', '*',
  'AAAA', '====', 'ab'.repeat(300), '-'.repeat(100), '1'.repeat(100), 'false', 'true', '1', 'yes', 'FALSE',
];

/** JSON values beyond strings (POST bodies only). */
const NASTY_JSON: readonly unknown[] = [
  null, true, false, 0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 2, [], [1], {}, { a: { b: { c: [] } } }, ['a', 'b'], [[[[[[[[]]]]]]]],
  { __proto__: { polluted: 1 } }, Array.from({ length: 200 }, (_, i) => i),
];

function randomText(r: Rand): string {
  const n = Math.floor(r() * 40);
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(r() < 0.9 ? 32 + Math.floor(r() * 95) : Math.floor(r() * 0xffff));
  return s;
}

function value(r: Rand, json: boolean): unknown {
  const x = r();
  if (json && x < 0.3) return pick(r, NASTY_JSON);
  if (x < 0.8) return pick(r, NASTY_TEXT);
  return randomText(r);
}

/** Values that pass a parameter's kind check, so a call gets past validation into the handler. */
const PLAUSIBLE: Record<string, readonly unknown[]> = {
  integer: ['0', '1', '2', '50', '1000', '86400', '1036800', '2102400'],
  boolean: ['true', 'false', '1', '0'],
  hex: ['', '00', 'deadbeef', '40'.repeat(65), '00'.repeat(32), 'ff'.repeat(600)],
  string: ['test', 'a.b.c.d', '１２３', 'ab.１２３', 'ü.test', 'x', '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr',
    '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr_0.01', '1-' + '1'.repeat(60), 'aGVsbG8=', '@', 'hello'],
  'string[]': [['a:b'], ['@:QUJD'], [], ['x'.repeat(300)]],
};
/** The name a parameter is most likely to need, by its name. */
const PLAUSIBLE_BY_NAME: Record<string, readonly unknown[]> = {
  name: ['test', 'a.b.c.d', 'a.b.c.d.e', '１２３', 'ab.１２３', '０', 'sub.test', 'bücher', 'x'.repeat(63), 'xn--'],
  useAbsoluteId: ['false', 'true', false],
};

function plausible(r: Rand, p: TableParam): unknown {
  return pick(r, PLAUSIBLE_BY_NAME[p.name] ?? PLAUSIBLE[p.kind] ?? PLAUSIBLE.string!);
}

/**
 * A set of parameters for `m`: half the time every parameter hostile or absent, half the time
 * every parameter plausible for its kind (so the call reaches the handler) but one hostile.
 */
function params(r: Rand, m: TableMethod, json: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (r() < 0.5 && m.params.length > 0) {
    for (const p of m.params) if (r() < 0.8) out[p.name] = plausible(r, p);
    if (r() < 0.5) out[pick(r, m.params).name] = value(r, json);
    return out;
  }
  for (const p of m.params) if (r() < 0.6) out[p.name] = value(r, json);
  if (r() < 0.15) out[pick(r, ['x', 'ID', 'Count', 'params', 'method', '', 'id[]', 'a'.repeat(300)])] = value(r, json);
  return out;
}

export interface Call {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

/** Percent-encoding of the UTF-8 bytes of `s` (lone surrogates become U+FFFD, as a client would send). */
function enc(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${b.toString(16).padStart(2, '0').toUpperCase()}`;
  }
  return out;
}

/** One malformed call: GET with a query, POST with a JSON-RPC body, or POST with a broken body. */
export function malformedCall(r: Rand, methods: readonly TableMethod[]): Call {
  const m = pick(r, methods);
  const name = r() < 0.05 ? pick(r, [m.name.toUpperCase(), `${m.name}/x`, `${m.name}%00`, 'rpc.discover/..', '../etc', '']) : m.name;
  const path = `/${enc(name).replace(/%2F/g, '/')}`;
  const kind = r();
  if (kind < 0.45 && !m.postOnly) {
    const q = Object.entries(params(r, m, false))
      .map(([k, v]) => `${enc(k)}=${r() < 0.05 ? '%' : enc(String(v))}`)
      .join('&');
    return { method: 'GET', path: q ? `${path}?${q}` : path };
  }
  if (kind < 0.9) {
    const envelope: Record<string, unknown> = { method: r() < 0.9 ? m.name : value(r, true), params: r() < 0.9 ? params(r, m, true) : value(r, true) };
    if (r() < 0.9) envelope.id = r() < 0.8 ? Math.floor(r() * 1000) : value(r, true);
    if (r() < 0.05) envelope.jsonrpc = value(r, true);
    return { method: 'POST', path: r() < 0.5 ? path : '/', body: JSON.stringify(envelope) };
  }
  const broken = pick(r, [
    '{', '}', '[]', '[{"method":"status"}]', 'null', '"status"', '{"method":', '{"method":"status","params":[1,2]}', '\u0000',
    '{"method":"status","id":{}}', '{"method":"status","params":{"verbose":"yes"}}', randomText(r), '{"a":'.repeat(500),
    '[' .repeat(5000), `{"method":"${m.name}","params":${'['.repeat(100)}`,
  ]);
  return { method: 'POST', path, body: broken };
}

/** What went wrong with an answer (or nothing). */
export type Verdict = 'ok' | '5xx' | 'invalid-envelope' | 'hang' | 'leak' | 'internal' | 'transport';

/** Paths, stack frames and module names must never reach a caller. */
const LEAK = /(\/work\/|\/home\/|\/root\/|\/tmp\/|node_modules|file:\/\/|\bat [\w.<>]+ \(|\.(ts|js):\d+:\d+)/;

/** Judges one HTTP answer of an RPC route. */
export function judge(status: number, text: string): Verdict {
  if (status >= 500) return '5xx';
  if (LEAK.test(text)) return 'leak';
  // Every answer of an RPC route carries the envelope, error statuses of the transport (400, 404,
  // 405, 413) included.
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'invalid-envelope';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'invalid-envelope';
  const keys = Object.keys(body).sort().join(',');
  if (keys !== 'error,id,result') return 'invalid-envelope';
  const e = (body as { error: unknown; result: unknown }).error;
  if (e !== null) {
    if (typeof e !== 'object' || typeof (e as { code: unknown }).code !== 'number' || typeof (e as { message: unknown }).message !== 'string') return 'invalid-envelope';
    if ((body as { result: unknown }).result !== null) return 'invalid-envelope';
    if ((e as { code: number }).code === -32603) return 'internal';
  }
  return 'ok';
}

export type Tally = Record<Verdict, number> & { calls: number; examples: string[] };

export const newTally = (): Tally => ({ calls: 0, ok: 0, '5xx': 0, 'invalid-envelope': 0, hang: 0, leak: 0, internal: 0, transport: 0, examples: [] });

function record(t: Tally, v: Verdict, what: string): void {
  t.calls++;
  t[v]++;
  if (v !== 'ok' && t.examples.length < 20) t.examples.push(`${v}: ${what.slice(0, 300)}`);
}

const CALL_TIMEOUT_MS = 10_000;

/** Runs `count` malformed calls with `concurrency` keep-alive connections; returns the tally. */
export async function runCampaign(node: NodeProcess, methods: readonly TableMethod[], count: number, seed: number, concurrency = 16): Promise<Tally> {
  const r = prng(seed);
  const tally = newTally();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next++;
      const c = malformedCall(r, methods);
      const what = `${c.method} ${c.path}${c.body ? ` ${c.body}` : ''}`;
      try {
        // fetch keeps connections alive (Node's global dispatcher): `concurrency` connections in all.
        const res = await fetch(node.url + c.path, {
          method: c.method,
          body: c.body,
          headers: c.body ? { 'content-type': 'application/json' } : {},
          signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
        });
        // GET / (also reached as /x/.. once the URL is normalised) is the web wallet's page
        // (issue 12): an HTML answer there is the page, not a broken envelope.
        const page = c.method === 'GET' && new URL(node.url + c.path).pathname === '/' && (res.headers.get('content-type') ?? '').startsWith('text/html');
        const text = await res.text();
        record(tally, page ? (res.status === 200 && !LEAK.test(text) ? 'ok' : judge(res.status, text)) : judge(res.status, text), `${res.status} ${what}`);
      } catch (e) {
        const name = (e as Error).name;
        record(tally, name === 'TimeoutError' ? 'hang' : 'transport', `${name} ${(e as Error).message} ${what}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return tally;
}

/** Raw framing attacks: complete but malformed messages, then a half-close. */
export function framingAttack(r: Rand): Buffer {
  const target = pick(r, ['/status', '/', '/txa?count=1', '/health', '/%00', '/' + 'a'.repeat(9000), '*', 'http://x/status', '//status']);
  const method = pick(r, ['GET', 'POST', 'FOO', 'get', 'G ET', '', 'CONNECT', 'OPTIONS', 'TRACE', 'DELETE', 'PATCH', 'HEAD', 'PRI']);
  const version = pick(r, ['HTTP/1.1', 'HTTP/1.0', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/0.9', 'HTTP/2.0', 'HTTP/1.1 x', 'http/1.1', 'HTTP/1.', '']);
  const headers: string[] = [];
  if (r() < 0.9) headers.push('Host: 127.0.0.1');
  const n = Math.floor(r() * 4);
  for (let i = 0; i < n; i++) {
    headers.push(
      pick(r, [
        'Content-Length: 5', 'Content-Length: -1', 'Content-Length: 1e3', 'Content-Length: 99999999999999999999', 'Content-Length: 5, 6',
        'Content-Length:', 'Transfer-Encoding: chunked', 'Transfer-Encoding: gzip, chunked', 'Transfer-Encoding: chunked, gzip',
        'Transfer-Encoding : chunked', ' Content-Length: 3', 'X: \x00', 'X\x01: y', 'Expect: 100-continue', 'Connection: close',
        'Connection: upgrade', 'Upgrade: websocket', `X-Big: ${'b'.repeat(20_000)}`, 'Authorization: Basic !!!', 'Content-Type: text/plain',
        'Content-Length: 0\r\nContent-Length: 0', 'Content-Length: 3\r\nContent-Length: 4',
      ]),
    );
  }
  const eol = r() < 0.9 ? '\r\n' : pick(r, ['\n', '\r', '\r\r\n']);
  const body = pick(r, ['', 'abc', '{"method":"status"}', '0\r\n\r\n', '5\r\nabc\r\n0\r\n\r\n', 'zz\r\nab\r\n', 'ffffffffffffffff\r\n', '\x00\x01\x02']);
  const tail = r() < 0.3 ? 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' : '';
  let text = `${method} ${target} ${version}`.replace(/ +$/, '') + eol + headers.join(eol) + eol + eol + body + tail;
  if (r() < 0.1) {
    const bytes = Buffer.from(text, 'latin1');
    bytes[Math.floor(r() * bytes.length)] = Math.floor(r() * 256);
    return bytes;
  }
  if (r() < 0.05) text = randomText(r) + '\r\n\r\n';
  return Buffer.from(text, 'latin1');
}

export interface FramingTally {
  attacks: number;
  hangs: number;
  fiveXx: number;
  leaks: number;
  statuses: Record<string, number>;
  examples: string[];
}

/** Sends `count` framing attacks, `concurrency` at a time; each must be answered or closed in time. */
export async function runFramingAttacks(port: number, count: number, seed: number, concurrency = 20): Promise<FramingTally> {
  const r = prng(seed);
  const t: FramingTally = { attacks: 0, hangs: 0, fiveXx: 0, leaks: 0, statuses: {}, examples: [] };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next++;
      const payload = framingAttack(r);
      // The head is complete, so the server answers or closes at once. A body it still waits for
      // (a declared length not sent) is bounded by its request timeout, beyond this deadline, so an
      // open connection without a status line counts as a hang only when nothing is pending.
      const res = await rawExchange(port, payload, { timeoutMs: 3_000, responses: 1 });
      t.attacks++;
      const status = firstStatus(res.text);
      t.statuses[status] = (t.statuses[status] ?? 0) + 1;
      const text = payload.toString('latin1');
      const waitsForBody = /content-length: *[1-9]/i.test(text) || /transfer-encoding/i.test(text);
      // Empty lines before a request line are skipped (RFC 9112 §2.2): the server still awaits one.
      const noRequestYet = /^[\r\n]*$/.test(text);
      if (!res.closed && status === 0 && !waitsForBody && !noRequestYet) {
        t.hangs++;
        if (t.examples.length < 20) t.examples.push(`hang: ${JSON.stringify(text.slice(0, 200))}`);
      }
      if (status >= 500 && status !== 505) {
        t.fiveXx++;
        if (t.examples.length < 20) t.examples.push(`${status}: ${JSON.stringify(text.slice(0, 200))}`);
      }
      if (LEAK.test(res.text)) t.leaks++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return t;
}

/** Whether the process is still running. */
export const alive = (node: NodeProcess): boolean => node.child.exitCode === null && node.child.signalCode === null;

/** Lines of the node's log that carry a stack trace or an internal failure. */
export const internalLogLines = (node: NodeProcess): string[] =>
  node.output().split('\n').filter((l) => /RPC handler failed|"stack"|uncaught|unhandled/i.test(l));

/** Resident set size of a process in bytes (Linux /proc), or NaN elsewhere. */
export async function rssOf(pid: number): Promise<number> {
  try {
    const { readFileSync } = await import('node:fs');
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Milliseconds `GET /status` takes now (on a fresh connection), or Infinity past `timeoutMs`. */
export async function statusLatency(url: string, timeoutMs = 10_000): Promise<number> {
  const t0 = performance.now();
  try {
    const res = await fetch(`${url}/status`, { signal: AbortSignal.timeout(timeoutMs), headers: { connection: 'close' } });
    await res.text();
    return res.status === 200 ? performance.now() - t0 : Infinity;
  } catch {
    return Infinity;
  }
}

/** Node options that let {@link openMemoryProbe} reach the node (the inspector, on a loopback port the kernel picks). */
export const INSPECT_ARGS = ['--inspect=127.0.0.1:0'];

/** The node's memory in bytes, from `process.memoryUsage()` inside it. */
export interface MemoryFigures {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/** What the node holds after a full garbage collection: its JS heap in use and the buffers outside it. */
export const retainedBytes = (m: MemoryFigures): number => m.heapUsed + m.external;

export interface MemoryProbe {
  /** Collects all garbage in the node, then reads its memory figures. */
  afterGc(): Promise<MemoryFigures>;
  close(): void;
}

/**
 * Reads the memory a node keeps, as opposed to its RSS: RSS also counts garbage not collected yet
 * and heap pages V8 has not given back, so it rises and falls with when the collector ran. Talks
 * to the node's inspector (started with {@link INSPECT_ARGS}): HeapProfiler.collectGarbage, then
 * `process.memoryUsage()`. Each call waits at most `timeoutMs`.
 */
export async function openMemoryProbe(node: NodeProcess, timeoutMs = 30_000): Promise<MemoryProbe> {
  const m = /Debugger listening on (ws:\/\/\S+)/.exec(node.output());
  if (!m) throw new Error('the node was not started with INSPECT_ARGS (no "Debugger listening" line)');
  const { default: WebSocket } = await import('ws');
  const ws = new WebSocket(m[1]!);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let nextId = 1;
  const waiting = new Map<number, (msg: { result?: any; error?: { message: string } }) => void>();
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
    if (msg.id !== undefined) waiting.get(msg.id)?.(msg);
  });
  const send = (method: string, params: object = {}): Promise<any> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`inspector ${method}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      waiting.set(id, (msg) => {
        clearTimeout(timer);
        waiting.delete(id);
        if (msg.error) reject(new Error(`inspector ${method}: ${msg.error.message}`));
        else resolve(msg.result);
      });
      ws.send(JSON.stringify({ id, method, params }));
    });
  return {
    async afterGc() {
      await send('HeapProfiler.collectGarbage');
      const r = await send('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true });
      return JSON.parse(r.result.value as string) as MemoryFigures;
    },
    close: () => ws.close(),
  };
}
