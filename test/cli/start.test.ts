// `dltnode start` lifecycle with a fake node: readiness, status line, graceful and forced shutdown,
// signals during startup, port in use.
import { describe, expect, it } from 'vitest';
import { EventEmitter } from 'node:events';
import { createServer } from 'node:net';
import { parseArgs, resolveConfig } from '../../src/config/load.js';
import { runStart, FORCED_EXIT_CODE, REPEATED_SIGNAL_MS, type StartableNode } from '../../src/cli/start.js';
import { createLogger } from '../../src/log/logger.js';
import { ListenError } from '../../src/rpc/transport-api.js';
import { fakeMethods, type FakeContext } from '../rpc/fake-table.js';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function setup(argv: string[] = []) {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({ level: 'info', format: 'json', destination: { write: (l: string) => lines.push(JSON.parse(l)) } });
  const defaults = ['--rpc-port', '0', '--status-interval', '0'].filter((_, i, a) => !argv.includes(a[i - (i % 2)]!));
  const { config } = resolveConfig({ args: parseArgs([...defaults, ...argv]), env: {} });
  const signals = new EventEmitter();
  const exits: number[] = [];
  const events: string[] = [];
  let release!: () => void;
  const ctx: FakeContext = { height: 42n, gate: new Promise<void>((r) => (release = r)) };
  let startNode!: () => void;
  const nodeStarted = new Promise<void>((r) => (startNode = r));
  const node: StartableNode<FakeContext> = {
    modules: ctx,
    ready: true,
    close: async () => {
      events.push('node closed');
    },
  };
  const deps = {
    createNode: async () => {
      events.push('node created');
      await nodeStarted;
      return node;
    },
    methods: fakeMethods,
    signals,
    exit: (code: number) => exits.push(code),
    log,
  };
  return { config, deps, signals, exits, events, lines, release, startNode, node };
}

describe('dltnode start', () => {
  it('serves probes during startup, then the RPC; drains in-flight requests on SIGTERM', async () => {
    const s = setup();
    const starting = runStart(s.config, s.deps);
    // The server listens before the node exists: find its URL from the log once it is up.
    await new Promise((r) => setTimeout(r, 50));
    s.startNode();
    const running = await starting;
    expect((await fetch(`${running.url}/ready`)).status).toBe(200);
    const status = await (await fetch(`${running.url}/status`)).json();
    expect(status.result['Block Height']).toBe(42);
    expect(s.lines.some((l) => typeof l.msg === 'string' && l.msg === `RPC listening on ${running.url}`)).toBe(true);

    const slow = fetch(`${running.url}/slow`).then((r) => r.json());
    await new Promise((r) => setTimeout(r, 30));
    s.signals.emit('SIGTERM');
    await new Promise((r) => setTimeout(r, 30));
    expect(s.events).not.toContain('node closed'); // still draining the slow request
    s.release();
    expect((await slow).result).toBe('done');
    expect(await running.stopped).toBe(0);
    expect(s.events).toEqual(['node created', 'node closed']);
    expect(s.exits).toEqual([]);
  });

  it('counts RPC calls in /metrics with --metrics; without it /metrics is an unknown operation', async () => {
    for (const withMetrics of [true, false]) {
      const s = setup(withMetrics ? ['--metrics'] : []);
      const starting = runStart(s.config, s.deps);
      s.startNode();
      const running = await starting;
      expect((await (await fetch(`${running.url}/status`)).json()).result['Block Height']).toBe(42);
      const metrics = await fetch(`${running.url}/metrics`);
      if (withMetrics) {
        expect(metrics.status).toBe(200);
        expect(await metrics.text()).toContain('dltnode_rpc_requests_total{method="status",outcome="ok"} 1');
      } else {
        // Not served: the path is just an unknown operation.
        expect((await metrics.json()).error.code).toBe(-32601);
      }
      s.signals.emit('SIGTERM');
      expect(await running.stopped).toBe(0);
    }
  });

  it('reports the block height and pending pool in /metrics when scraped, on the RPC port and on --metrics-port', async () => {
    // --status-interval 0 (setup's default): no status line, so nothing but the scrape reads the chain.
    for (const extra of [['--metrics'], ['--metrics-port', '0']]) {
      const s = setup(extra);
      let height = 42;
      s.node.summary = () => ({ height, pending: 7, dltStatus: 'Active' });
      const starting = runStart(s.config, s.deps);
      s.startNode();
      const running = await starting;
      const metricsUrl = extra[0] === '--metrics' ? `${running.url}/metrics` : (s.lines.find((l) => l.msg === `RPC listening on ${running.url}`)!.metrics as string);
      const scrape = async (): Promise<string> => (await fetch(metricsUrl)).text();
      let text = await scrape();
      expect(text).toMatch(/^dltnode_block_height 42$/m);
      expect(text).toMatch(/^dltnode_pending_transactions 7$/m);
      height = 43;
      text = await scrape();
      expect(text).toMatch(/^dltnode_block_height 43$/m);
      s.signals.emit('SIGTERM');
      expect(await running.stopped).toBe(0);
    }
  });

  it('serves the web wallet at GET / unless --no-web (then GET / is the RPC error envelope)', async () => {
    for (const noWeb of [false, true]) {
      const s = setup(noWeb ? ['--no-web'] : []);
      const starting = runStart(s.config, s.deps);
      s.startNode();
      const running = await starting;
      const page = await fetch(`${running.url}/`);
      const text = await page.text();
      if (noWeb) {
        expect(page.headers.get('content-type')).toBe('application/json');
        expect(JSON.parse(text).error.code).toBe(-32600);
      } else {
        expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(text).toContain('<script type="module" src="/web/app.js">');
      }
      // POST / is an RPC call either way.
      const call = await fetch(`${running.url}/`, { method: 'POST', body: JSON.stringify({ method: 'status', params: {}, id: 1 }) });
      expect((await call.json()).result['Block Height']).toBe(42);
      s.signals.emit('SIGTERM');
      expect(await running.stopped).toBe(0);
    }
  });

  it('answers RPC calls during startup with a retry error and /ready 503', async () => {
    const port = await freePort();
    const s = setup(['--rpc-port', String(port)]);
    const starting = runStart(s.config, s.deps);
    await new Promise((r) => setTimeout(r, 50));
    expect((await fetch(`http://127.0.0.1:${port}/ready`)).status).toBe(503);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    const early = await (await fetch(`http://127.0.0.1:${port}/status`)).json();
    expect(early.error).toEqual({ code: -32005, message: 'The node is starting; retry when GET /ready answers 200' });
    s.startNode();
    const running = await starting;
    await running.shutdown('test');
    expect(await running.stopped).toBe(0);
  });

  it('honours a signal received during startup once startup completes', async () => {
    const s = setup();
    const starting = runStart(s.config, s.deps);
    await new Promise((r) => setTimeout(r, 20));
    s.signals.emit('SIGINT');
    s.startNode();
    const running = await starting;
    expect(await running.stopped).toBe(0);
    expect(s.events).toEqual(['node created', 'node closed']);
  });

  /** A node draining a slow request gets SIGTERM, then SIGTERM again `gapMs` later (its clock). */
  async function twoSigterms(gapMs: number) {
    const s = setup();
    let clock = 1_000_000;
    s.startNode();
    const running = await runStart(s.config, { ...s.deps, now: () => clock });
    void fetch(`${running.url}/slow`).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 30));
    s.signals.emit('SIGTERM');
    clock += gapMs;
    s.signals.emit('SIGTERM');
    return { s, running };
  }

  it('forces exit on a second signal while draining', async () => {
    const { s, running } = await twoSigterms(REPEATED_SIGNAL_MS);
    expect(s.exits).toEqual([FORCED_EXIT_CODE]);
    s.release();
    await running.stopped;
  });

  it('the same signal twice at once (timeout, a supervisor signalling the process and its group) is one stop request: a clean shutdown', async () => {
    const { s, running } = await twoSigterms(1);
    expect(s.exits).toEqual([]);
    s.release();
    expect(await running.stopped).toBe(0);
  });

  it('stops gracefully when its parent\'s IPC channel closes (devnet killed) or its log\'s reader goes (EPIPE); neither is a second signal', async () => {
    for (const cause of ['disconnect', 'EPIPE'] as const) {
      const s = setup();
      const output = new EventEmitter();
      const starting = runStart(s.config, { ...s.deps, output });
      s.startNode();
      const running = await starting;
      const slow = fetch(`${running.url}/slow`).then((r) => r.json());
      await new Promise((r) => setTimeout(r, 30));
      const stop = () => (cause === 'disconnect' ? s.signals.emit('disconnect') : output.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })));
      stop();
      // While draining: the other cause, and the same again, do not force the exit.
      s.signals.emit('disconnect');
      output.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      s.release();
      expect((await slow).result).toBe('done');
      expect(await running.stopped, cause).toBe(0);
      expect(s.events).toEqual(['node created', 'node closed']);
      expect(s.exits).toEqual([]);
      expect(s.lines.find((l) => l.msg === 'shutting down: draining RPC requests, then closing the node')?.reason).toBe(cause === 'disconnect' ? 'parent exited' : 'EPIPE');
    }
  });

  it('fails fast when the RPC port is taken, before creating the node', async () => {
    const a = setup();
    a.startNode();
    const first = await runStart(a.config, a.deps);
    const port = Number(new URL(first.url).port);
    const b = setup(['--rpc-port', String(port)]);
    const err = await runStart(b.config, b.deps).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ListenError);
    expect((err as Error).message).toMatch(/already in use.*--rpc-port/);
    expect(b.events).toEqual([]);
    await first.shutdown('test');
  });

  it('logs a status line with height, pending pool and req/s', async () => {
    const s = setup(['--status-interval', '1']);
    s.startNode();
    const running = await runStart(s.config, s.deps);
    await fetch(`${running.url}/status`);
    await new Promise((r) => setTimeout(r, 1100));
    await running.shutdown('test');
    const line = s.lines.find((l) => l.msg === 'status');
    expect(line).toMatchObject({ height: 42 });
    expect(typeof line!.rpcPerSecond).toBe('number');
  });
});
