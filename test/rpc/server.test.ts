// Server lifecycle and envelope over loopback, for both transports (uWS and the node:http fallback).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { createRpcServer, RpcServer, ServerConfigError, type TransportChoice } from '../../src/rpc/server.js';
import { ListenError } from '../../src/rpc/transport-api.js';
import { MAX_REQUEST_HEAD_BYTES } from '../../src/rpc/transport-http.js';
import { firstStatus, rawExchange } from './raw-http.js';
import { INTERNAL_ERROR_MESSAGE } from '../../src/rpc/dispatch.js';
import { createLogger } from '../../src/log/logger.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { fakeMethods, type FakeContext } from './fake-table.js';
import { createNodeEvents } from '../../src/node/events.js';

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({ level: 'debug', format: 'json', destination: { write: (l: string) => lines.push(JSON.parse(l)) } });
  return { log, lines };
}

async function call(base: string, path: string, init?: RequestInit) {
  const r = await fetch(base + path, init);
  const text = await r.text();
  return { status: r.status, text, json: r.headers.get('content-type') === 'application/json' && text ? JSON.parse(text) : undefined, headers: r.headers };
}
const post = (base: string, path: string, body: unknown) =>
  call(base, path, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } });

/** Raw POST with chunked encoding (no Content-Length), so the body cap is hit while accumulating. */
function chunkedPost(port: number, path: string, chunks: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'transfer-encoding': 'chunked' } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

describe.each<TransportChoice>(['uws', 'http'])('RPC server over %s', (transport) => {
  let server: RpcServer<FakeContext>;
  let base: string;
  let release!: () => void;
  const ctx: FakeContext = { height: 2n ** 63n - 1n };
  const { log, lines } = capturingLogger();
  const metrics = createMetrics({ version: 'test', wasmFlavour: 'simd', defaultCollectors: false });

  beforeAll(async () => {
    ctx.gate = new Promise<void>((r) => (release = r));
    server = createRpcServer({ methods: fakeMethods, context: ctx, log, port: 0, transport, maxBodyBytes: 1024, metrics, serveMetrics: true });
    base = await server.listen();
    expect(server.transportName).toBe(transport === 'uws' ? 'uws' : 'node:http');
  });
  afterAll(async () => {
    release();
    await server.close();
  });

  it('answers GET with query parameters, bigint results unrounded, id null', async () => {
    const r = await call(base, '/status?verbose');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.text).toBe('{"result":{"Block Height":9223372036854775807,"verbose":true,"vv":false},"id":null,"error":null}');
  });

  it('answers HEAD without a body, so the next response on a kept-alive connection is read as sent', async () => {
    // uWS wrote the 405's JSON after the head of a HEAD response: a client, which reads no body
    // after HEAD (RFC 9110 §9.3.2), then took those bytes for the start of the next response.
    const port = Number(new URL(base).port);
    const r = await rawExchange(port, 'HEAD /status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', { responses: 2 });
    expect(firstStatus(r.text)).toBe(405);
    const second = r.text.indexOf('\r\n\r\n') + 4;
    expect(firstStatus(r.text.slice(second))).toBe(200);
  });

  it('matches operation names case-insensitively and echoes the GET id', async () => {
    const r = await call(base, '/STATUS?vv=1&id=7');
    expect(r.json).toEqual({ result: { 'Block Height': 9223372036854775807, verbose: false, vv: true }, id: 7, error: null });
    expect(Object.keys(r.json)).toEqual(['result', 'id', 'error']);
  });

  it('keeps a GET id that is an operation parameter as the parameter', async () => {
    const r = await call(base, '/getWallet?id=1ABC');
    expect(r.json).toEqual({ result: { id: '1ABC' }, id: null, error: null });
  });

  it('answers POST /<op>, POST / with method in the body, and echoes the id', async () => {
    expect((await post(base, '/echo', { method: 'echo', params: { text: 'hi', count: '5' }, id: 3 })).json).toEqual({
      result: { text: 'hi', count: 5, dataLength: null },
      id: 3,
      error: null,
    });
    expect((await post(base, '/', { method: 'ECHO', params: { text: 'a b', big: '18446744073709551615', data: '00ff' }, id: 'x' })).text).toBe(
      '{"result":{"text":"a b","count":50,"big":18446744073709551615,"dataLength":2},"id":"x","error":null}',
    );
  });

  it('reads an empty-bodied POST like a GET (URL mode)', async () => {
    const r = await call(base, '/echo?text=q%20r&count=2', { method: 'POST' });
    expect(r.json.result).toMatchObject({ text: 'q r', count: 2 });
  });

  it('maps malformed JSON to -32700 with id null', async () => {
    const r = await post(base, '/echo', '{"method": "echo", ');
    expect(r.status).toBe(200);
    expect(r.json.result).toBeNull();
    expect(r.json.id).toBeNull();
    expect(r.json.error.code).toBe(-32700);
  });

  it('maps an unknown operation to -32601 naming it', async () => {
    const r = await call(base, '/nope?id=4');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ result: null, id: 4, error: { code: -32601, message: "Unknown operation 'nope'; rpc.discover lists the operations" } });
  });

  it('refuses a POST-only operation over GET with 405 and -32600', async () => {
    const r = await call(base, '/updateNameRecord?records[]=a,b,c');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
    expect(r.json.error.code).toBe(-32600);
    const ok = await post(base, '/updateNameRecord', { params: { 'records[]': ['k,1,v', 'k2,2,null'] }, id: 1 });
    expect(ok.json.result).toEqual(['k,1,v', 'k2,2,null']);
  });

  it('uses the exact missing-parameter messages of the table', async () => {
    expect((await call(base, '/echo')).json.error).toEqual({ code: -32602, message: 'text parameter is missing' });
    expect((await post(base, '/updateNameRecord', { params: {} })).json.error).toEqual({ code: -32602, message: "Missing parameter 'records[]'" });
  });

  it('answers RPC errors in HTTP 200 and hides internal errors (logged)', async () => {
    const rpc = await call(base, '/fail?kind=rpc');
    expect(rpc.status).toBe(200);
    expect(rpc.json.error).toEqual({ code: -32602, message: "contact doesn't exist" });
    const crash = await call(base, '/fail?kind=crash&id=9');
    expect(crash.json).toEqual({ result: null, id: 9, error: { code: -32603, message: INTERNAL_ERROR_MESSAGE } });
    expect(crash.text).not.toContain('secret');
    expect(lines.some((l) => l.msg === 'RPC handler failed' && l.method === 'fail')).toBe(true);
  });

  it('answers 413 when the declared body exceeds the cap', async () => {
    const r = await post(base, '/echo', { method: 'echo', params: { text: 'x'.repeat(4096) } });
    expect(r.status).toBe(413);
    expect(r.json.error.message).toContain('1024 bytes');
  });

  it('answers 413 when a chunked body grows past the cap while accumulating', async () => {
    const r = await chunkedPost(server.port, '/echo', ['{"method":"echo","params":{"text":"', 'y'.repeat(700), 'z'.repeat(700), '"}}']);
    expect(r.status).toBe(413);
  });

  it('accepts a chunked body under the cap', async () => {
    const r = await chunkedPost(server.port, '/echo', ['{"method":"echo",', '"params":{"text":"ok"},"id":2}']);
    expect(JSON.parse(r.body)).toMatchObject({ result: { text: 'ok' }, id: 2 });
  });

  it('sends large results completely (backpressure path)', async () => {
    const r = await call(base, '/large?kb=4096');
    expect(r.json.result.length).toBe(4096 * 1024);
  });

  it('serves many concurrent requests', async () => {
    const results = await Promise.all(Array.from({ length: 64 }, (_, i) => call(base, `/echo?text=t${i}&id=${i}`)));
    results.forEach((r, i) => expect(r.json).toMatchObject({ result: { text: `t${i}` }, id: i }));
  });

  it('survives a client that aborts while its request is in flight', async () => {
    const aborted = new Promise<void>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port: server.port, path: '/slow' });
      req.on('error', () => resolve());
      req.end();
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
    await aborted;
    await new Promise((r) => setTimeout(r, 20));
    release(); // the handler now finishes and must not write to the dead response
    await new Promise((r) => setTimeout(r, 20));
    expect(server.transport.inFlight).toBe(0);
    expect((await call(base, '/slow')).json.result).toBe('done');
  });

  it('serves /health, /ready and /metrics', async () => {
    expect((await call(base, '/health')).status).toBe(200);
    expect((await call(base, '/ready')).status).toBe(200);
    const m = await call(base, '/metrics');
    expect(m.status).toBe(200);
    expect(m.text).toContain('dltnode_rpc_requests_total{method="status",outcome="ok"}');
    expect(m.text).toContain(`dltnode_info{version="test",transport="${server.transportName}",wasm="simd"} 1`);
  });

  it.runIf(transport === 'http')('takes a long GET query (a chat script sends the text in the URL) up to the head limit; past it 431 says to POST', async () => {
    // 4000 non-Latin characters: 36 KB once percent-encoded, past Node's default 16 KiB head.
    const text = 'ü中'.repeat(2000);
    const r = await call(base, `/echo?text=${encodeURIComponent(text)}`);
    expect(r.status).toBe(200);
    expect(r.json.result.text).toBe(text);
    const over = await call(base, `/echo?text=${'a'.repeat(MAX_REQUEST_HEAD_BYTES)}`);
    expect(over.status).toBe(431);
    expect(over.json.error.message).toMatch(/more than 64 KiB.*POST/);
  });

  it('answers HEAD on /metrics and the probes as GET without the body; other verbs on /metrics get 405 naming GET, HEAD', async () => {
    const port = Number(new URL(base).port);
    for (const path of ['/metrics', '/health', '/ready']) {
      const r = await rawExchange(port, `HEAD ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, { responses: 2 });
      expect([path, firstStatus(r.text)]).toEqual([path, 200]);
      const headEnd = r.text.indexOf('\r\n\r\n') + 4;
      if (path === '/metrics') expect(r.text.slice(0, headEnd).toLowerCase()).toContain('content-type: text/plain; version=0.0.4');
      // No body after the head: the next bytes are the second response.
      expect(r.text.slice(headEnd)).toMatch(/^HTTP\/1\.1 200 /);
    }
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const r = await call(base, '/metrics', { method, body: '{}' });
      expect([method, r.status, r.headers.get('allow')]).toEqual([method, 405, 'GET, HEAD']);
    }
  });

  it('refuses other HTTP verbs with 405', async () => {
    const r = await call(base, '/status', { method: 'PUT', body: '{}' });
    expect(r.status).toBe(405);
  });

  it('reports a port in use clearly', async () => {
    const second = createRpcServer({ methods: fakeMethods, context: ctx, log, port: server.port, transport });
    const err = await second.listen().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ListenError);
    expect((err as Error).message).toContain(`127.0.0.1:${server.port}`);
    expect((err as Error).message).toContain('already in use');
    await second.close();
  });

  it('refuses to listen twice', async () => {
    await expect(server.listen()).rejects.toThrow(/already listens/);
  });
});

describe('RPC server access control', () => {
  const { log } = capturingLogger();
  const ctx: FakeContext = { height: 1n };

  it('requires HTTP Basic credentials of a configured user (401 otherwise)', async () => {
    const server = createRpcServer({ methods: fakeMethods, context: ctx, log, port: 0, auth: { users: [{ user: 'alice', password: 'p:w' }] } });
    const base = await server.listen();
    try {
      const none = await call(base, '/status');
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Basic/);
      const wrong = await call(base, '/status', { headers: { authorization: 'Basic ' + Buffer.from('alice:nope').toString('base64') } });
      expect(wrong.status).toBe(401);
      const good = await call(base, '/status', { headers: { authorization: 'Basic ' + Buffer.from('alice:p:w').toString('base64') } });
      expect(good.status).toBe(200);
      expect((await call(base, '/health')).status).toBe(200); // probes need no credentials
    } finally {
      await server.close();
    }
  });

  it('puts /metrics behind the credentials, for GET and HEAD alike', async () => {
    const metrics = createMetrics({ version: 'test', wasmFlavour: 'simd', defaultCollectors: false });
    const server = createRpcServer({ methods: fakeMethods, context: ctx, log, port: 0, metrics, serveMetrics: true, auth: { users: [{ user: 'alice', password: 'p:w' }] } });
    const base = await server.listen();
    const good = { authorization: 'Basic ' + Buffer.from('alice:p:w').toString('base64') };
    try {
      expect((await call(base, '/metrics')).status).toBe(401);
      expect((await call(base, '/metrics', { method: 'HEAD' })).status).toBe(401);
      expect((await call(base, '/metrics', { headers: { authorization: 'Basic ' + Buffer.from('alice:nope').toString('base64') } })).status).toBe(401);
      const ok = await call(base, '/metrics', { headers: good });
      expect([ok.status, ok.headers.get('content-type')]).toEqual([200, metrics.contentType]);
      const head = await call(base, '/metrics', { method: 'HEAD', headers: good });
      expect([head.status, head.headers.get('content-type'), head.text]).toEqual([200, metrics.contentType, '']);
    } finally {
      await server.close();
    }
  });

  it('drops callers outside the allow-list with 403', async () => {
    for (const [allow, expected] of [
      [['10.0.0.0/8'], 403],
      [['127.0.0.0/8'], 200],
      [['::1', '127.0.0.1'], 200],
    ] as const) {
      const server = createRpcServer({ methods: fakeMethods, context: ctx, log, port: 0, auth: { allow: [...allow] } });
      const base = await server.listen();
      try {
        expect((await call(base, '/status')).status).toBe(expected);
      } finally {
        await server.close();
      }
    }
  });

  it('refuses a public bind without authentication unless --rpc-public', () => {
    expect(() => createRpcServer({ methods: fakeMethods, context: ctx, log, host: '0.0.0.0', port: 0 })).toThrow(ServerConfigError);
    expect(() => createRpcServer({ methods: fakeMethods, context: ctx, log, host: '0.0.0.0', port: 0, allowPublic: true })).not.toThrow();
  });

  it('reports not-ready with 503 until the node is ready, and while draining', async () => {
    let ready = false;
    const server = createRpcServer({ methods: fakeMethods, context: ctx, log, port: 0, ready: () => ready });
    const base = await server.listen();
    expect((await call(base, '/ready')).status).toBe(503);
    ready = true;
    expect((await call(base, '/ready')).status).toBe(200);
    await server.close();
    await server.close(); // twice is fine
  });

  it('finishes in-flight requests on close before closing connections', async () => {
    let release!: () => void;
    const gated: FakeContext = { height: 1n, gate: new Promise<void>((r) => (release = r)) };
    const server = createRpcServer({ methods: fakeMethods, context: gated, log, port: 0 });
    const base = await server.listen();
    const pending = call(base, '/slow');
    await new Promise((r) => setTimeout(r, 30));
    const closed = server.close();
    setTimeout(release, 30);
    expect((await pending).json.result).toBe('done');
    await closed;
    await expect(fetch(base + '/status')).rejects.toThrow();
  });
});

describe('--rpc-transport uws on a non-loopback host', () => {
  // Constructed, never bound: the warning is logged when the server is made, at the node's start.
  const made = (transport: TransportChoice, host: string) => {
    const { log, lines } = capturingLogger();
    createRpcServer({ methods: fakeMethods, context: { height: 1n }, log, host, port: 0, transport, allowPublic: true });
    return lines.filter((l) => l.level === 40 && /RFC 9112/.test(String(l.msg)));
  };

  it('warns at start, naming each HTTP framing defect of the uWS build', () => {
    const [warning, ...more] = made('uws', '0.0.0.0');
    expect(more).toEqual([]);
    expect(warning).toMatchObject({ host: '0.0.0.0', transport: 'uws' });
    expect(warning!.msg).toMatch(/HTTP\/1\.0 requests are never answered/);
    expect(warning!.msg).toMatch(/Content-Length is honoured .*request smuggling/);
    expect(warning!.msg).toMatch(/malformed request line/);
    expect(warning!.msg).toMatch(/over-limit body .* reset instead of 413/);
    expect(warning!.msg).toMatch(/node:http/);
    expect(warning!.defects).toHaveLength(5);
  });

  it('says nothing on loopback or with the default transport', () => {
    expect(made('uws', '127.0.0.1')).toEqual([]);
    expect(made('auto', '0.0.0.0')).toEqual([]);
    expect(made('http', '0.0.0.0')).toEqual([]);
  });
});

describe.each<TransportChoice>(['uws', 'http'])('the /events WebSocket route over %s, asked without the upgrade', (transport) => {
  it('answers 426 naming the route, not -32601 "Unknown operation \'events\'"', async () => {
    const { log } = capturingLogger();
    const events = createNodeEvents(log);
    const server = createRpcServer({ methods: fakeMethods, context: { height: 1n }, log, port: 0, transport, events: () => events });
    const base = await server.listen();
    try {
      for (const init of [undefined, { method: 'POST', body: '{"method":"status"}' }]) {
        const r = await call(base, '/events?topics=blocks', init);
        expect(r.status).toBe(426);
        expect(r.headers.get('upgrade')).toBe('websocket');
        expect(r.json.error).toMatchObject({ code: -32600, message: expect.stringMatching(/^\/events is a WebSocket route: connect to it with a WebSocket client/) });
      }
      expect((await call(base, '/status')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe.each<TransportChoice>(['uws', 'http'])('a WebSocket upgrade on a path without a WebSocket route over %s', (transport) => {
  it('gets 404 "no WebSocket route at this path", not an RPC answer for an operation named after the path', async () => {
    const { log } = capturingLogger();
    const events = createNodeEvents(log);
    const server = createRpcServer({ methods: fakeMethods, context: { height: 1n }, log, port: 0, transport, events: () => events });
    const base = await server.listen();
    try {
      const upgrade = (path: string) =>
        rawExchange(Number(new URL(base).port), `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`, { responses: 1 });
      for (const path of ['/event', '/events/', '/status']) {
        const r = await upgrade(path);
        expect(firstStatus(r.text), path).toBe(404);
        expect(r.text).toContain('{"error":"no WebSocket route at this path"}');
      }
      expect(firstStatus((await upgrade('/events')).text)).toBe(101);
    } finally {
      await server.close();
    }
  });
});

describe.each<TransportChoice>(['uws', 'http'])('an oversized client message on /events over %s', (transport) => {
  it('is closed with 1009 and a reason naming the limit, not cut off (1006); a message within the limit is answered', async () => {
    const { WebSocket } = await import('ws');
    const { log } = capturingLogger();
    const events = createNodeEvents(log);
    const server = createRpcServer({ methods: fakeMethods, context: { height: 1n }, log, port: 0, transport, events: () => events });
    const base = await server.listen();
    try {
      const ws = new WebSocket(`${base.replace('http', 'ws')}/events`);
      const messages: string[] = [];
      const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
      ws.on('error', () => {});
      ws.on('message', (m) => messages.push(m.toString()));
      await new Promise((resolve) => ws.once('open', resolve));
      ws.send(JSON.stringify({ op: 'subscribe', topics: ['blocks'] }));
      ws.send('x'.repeat(64 * 1024));
      const { code, reason } = await closed;
      expect(code).toBe(1009);
      expect(reason).toMatch(/at most 4096 bytes/);
      expect(messages.map((m) => JSON.parse(m).op)).toEqual(['subscribed', 'subscribed']);
    } finally {
      await server.close();
    }
  });
});

/** One request with the headers a browser would send (node:http lets Host and Origin be set). */
function browserLike(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe.each<TransportChoice>(['uws', 'http'])('the browser guard over %s (src/rpc/origin.ts)', (transport) => {
  let server: RpcServer<FakeContext>;
  let port: number;
  let paid = 0;
  const APP = 'https://wallet.example';
  const methods = [
    ...fakeMethods,
    { name: 'pay', group: 'Test', summary: 'Counts its calls (stands for a payment)', params: [], result: { description: 'calls' }, handler: () => ++paid },
  ] as typeof fakeMethods;

  beforeAll(async () => {
    const { log } = capturingLogger();
    const events = createNodeEvents(log);
    server = createRpcServer({ methods, context: { height: 1n }, log, port: 0, transport, events: () => events, browser: { cors: [APP], vhosts: ['node.lan'] } });
    port = Number(new URL(await server.listen()).port);
  });
  afterAll(() => server.close());

  const own = () => `127.0.0.1:${port}`;

  it('refuses, without executing, a call from another origin or marked cross-site, and a foreign Host (403, JSON-RPC error)', async () => {
    const refused = [
      browserLike(port, 'POST', '/', { host: own(), origin: 'http://127.0.0.1:31000', 'content-type': 'text/plain' }, '{"method":"pay"}'),
      browserLike(port, 'GET', '/pay', { host: own(), 'sec-fetch-site': 'same-site' }),
      browserLike(port, 'GET', '/pay', { host: own(), 'sec-fetch-site': 'cross-site' }),
      browserLike(port, 'POST', '/pay', { host: `evil.test:${port}`, origin: `http://evil.test:${port}` }, ''),
      browserLike(port, 'GET', '/pay', { host: 'evil.test' }),
    ];
    for (const r of await Promise.all(refused)) {
      expect(r.status).toBe(403);
      expect(JSON.parse(r.body)).toMatchObject({ result: null, error: { code: -32600, message: expect.stringMatching(/is not allowed/) } });
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
    }
    expect(paid).toBe(0);
    // The probes answer any Host (a load balancer may use a name); they reveal liveness only.
    expect((await browserLike(port, 'GET', '/health', { host: 'lb-target.example', origin: 'http://evil.test' })).status).toBe(200);
  });

  it('answers clients without Origin, its own origin, IP literals, localhost and --rpc-vhost names as before, without CORS headers', async () => {
    const before = paid;
    for (const headers of <Record<string, string>[]>[{ host: own() }, { host: `localhost:${port}` }, { host: 'node.lan' }, { host: own(), origin: `http://${own()}` }, { host: own(), 'sec-fetch-site': 'same-origin' }]) {
      const r = await browserLike(port, 'GET', '/pay', headers);
      expect(r.status, JSON.stringify(headers)).toBe(200);
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
    }
    expect(paid).toBe(before + 5);
    // A preflight without an allowed Origin stays the 405 of an unsupported verb.
    expect((await browserLike(port, 'OPTIONS', '/pay', { host: own() })).status).toBe(405);
  });

  it('answers an --rpc-cors origin with CORS headers, and its preflight with 204', async () => {
    const pre = await browserLike(port, 'OPTIONS', '/', { host: own(), origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' });
    expect(pre.status).toBe(204);
    expect(pre.headers).toMatchObject({ 'access-control-allow-origin': APP, 'access-control-allow-methods': 'GET, POST', 'access-control-allow-headers': 'Content-Type, Authorization', vary: 'Origin' });
    const r = await browserLike(port, 'POST', '/', { host: own(), origin: APP, 'content-type': 'application/json' }, '{"method":"status"}');
    expect(r.status).toBe(200);
    expect(r.headers['access-control-allow-origin']).toBe(APP);
    expect(JSON.parse(r.body)).toMatchObject({ result: { 'Block Height': 1 }, error: null });
    const unknown = await browserLike(port, 'GET', '/nosuch', { host: own(), origin: APP });
    expect(unknown.headers['access-control-allow-origin']).toBe(APP); // errors are readable by the allowed page too
    const refusedPre = await browserLike(port, 'OPTIONS', '/', { host: own(), origin: 'https://other.example', 'access-control-request-method': 'POST' });
    expect(refusedPre.status).toBe(403);
    expect(refusedPre.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses a WebSocket upgrade on /events from another origin or Host, and opens one without Origin or from its own', async () => {
    const upgrade = (extra: string) =>
      rawExchange(port, `GET /events?topics=blocks HTTP/1.1\r\n${extra}Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`, { responses: 1 });
    const foreign = await upgrade(`Host: ${own()}\r\nOrigin: http://127.0.0.1:31000\r\n`);
    expect(firstStatus(foreign.text)).toBe(403);
    expect(foreign.text).toContain("Origin 'http://127.0.0.1:31000' is not allowed");
    expect(firstStatus((await upgrade(`Host: evil.test:${port}\r\nOrigin: http://evil.test:${port}\r\n`)).text)).toBe(403);
    expect(firstStatus((await upgrade(`Host: ${own()}\r\n`)).text)).toBe(101);
    expect(firstStatus((await upgrade(`Host: ${own()}\r\nOrigin: http://${own()}\r\n`)).text)).toBe(101);
  });
});
