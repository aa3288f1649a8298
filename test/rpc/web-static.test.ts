// The web wallet's static route (issue 12 point 6): `GET /` and `GET /web/<file>` from the
// allow-list of web/, content types and headers, 404 for everything else (traversal included),
// behind the RPC's access control; POST / stays an RPC call; without `web` GET / is unchanged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRpcServer, type RpcServer, type TransportChoice } from '../../src/rpc/server.js';
import { DEFAULT_WEB_DIR, WEB_FILES } from '../../src/rpc/web-static.js';
import { createLogger } from '../../src/log/logger.js';
import { fakeMethods, type FakeContext } from './fake-table.js';

const log = createLogger({ level: 'silent', format: 'json' });
const ctx: FakeContext = { height: 5n };

/** Raw GET: `fetch` normalises `..` and `%2e%2e` in URLs, the traversal attempts must reach the server as written. */
function rawGet(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe.each<TransportChoice>(['uws', 'http'])('web wallet files over %s', (transport) => {
  let server: RpcServer<FakeContext>;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dltnode-web-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title>');
    writeFileSync(join(dir, 'app.js'), 'export {};');
    // style.css left out: an allow-listed file missing on disk is a 404, not a crash.
    writeFileSync(join(dir, 'secret.txt'), 'not served');
    server = createRpcServer({ methods: fakeMethods, context: ctx, log, port: 0, transport, web: { dir } });
    await server.listen();
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves GET / as index.html with its type and the security and cache headers', async () => {
    const r = await rawGet(server.port, '/');
    expect(r.status).toBe(200);
    expect(r.body).toBe('<!doctype html><title>t</title>');
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(r.headers['cache-control']).toBe('no-cache');
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['x-frame-options']).toBe('DENY');
    expect(String(r.headers['content-security-policy'])).toContain("script-src 'self'");
    expect((await rawGet(server.port, '/?x=1')).status).toBe(200);
  });

  it('serves /web/<file> from the allow-list with its content type', async () => {
    const js = await rawGet(server.port, '/web/app.js');
    expect(js.status).toBe(200);
    expect(js.body).toBe('export {};');
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await rawGet(server.port, '/web/index.html')).headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('answers 404 for files outside the allow-list, missing files and traversal attempts', async () => {
    for (const path of [
      '/web/secret.txt',
      '/web/style.css',
      '/web/',
      '/web',
      '/web/../package.json',
      '/web/..%2fpackage.json',
      '/web/%2e%2e/package.json',
      '/web/%2e%2e%2fpackage.json',
      '/web//etc/passwd',
      '/web/app.js/',
      '/web/APP.JS',
      '/web/app.js%00',
      '/web/constructor',
      '/web/__proto__',
      '/web/toString',
    ]) {
      const r = await rawGet(server.port, path);
      // `/web` (no slash) is not a web path: it is an RPC call to an unknown operation 'web'.
      if (path === '/web') {
        expect(r.status, path).toBe(200);
        expect(JSON.parse(r.body).error.code, path).toBe(-32601);
        continue;
      }
      expect(r.status, path).toBe(404);
      expect(r.body, path).not.toContain('not served');
      expect(r.body, path).not.toContain('"name"');
    }
  });

  it('keeps POST / an RPC call (method in the body)', async () => {
    const r = await fetch(server.url + '/', { method: 'POST', body: JSON.stringify({ method: 'status', params: {}, id: 1 }) });
    expect(await r.json()).toEqual({ result: { 'Block Height': 5, verbose: false, vv: false }, id: 1, error: null });
  });

  it('keeps the RPC operations beside the files', async () => {
    const r = await rawGet(server.port, '/status');
    expect(JSON.parse(r.body).result['Block Height']).toBe(5);
  });
});

describe('web wallet files behind access control', () => {
  let server: RpcServer<FakeContext>;
  const auth = 'Basic ' + Buffer.from('alice:pw').toString('base64');

  beforeAll(async () => {
    server = createRpcServer({ methods: fakeMethods, context: ctx, log, port: 0, auth: { users: [{ user: 'alice', password: 'pw' }] }, web: {} });
    await server.listen();
  });
  afterAll(() => server.close());

  it('asks for Basic credentials (the browser prompt) before serving any file', async () => {
    for (const path of ['/', '/web/app.js', '/web/nothing']) {
      const r = await rawGet(server.port, path);
      expect(r.status, path).toBe(401);
      expect(r.headers['www-authenticate'], path).toBe('Basic realm="dltnode", charset="UTF-8"');
      expect(r.body, path).not.toContain('<!doctype');
    }
    expect((await rawGet(server.port, '/', { authorization: 'Basic ' + Buffer.from('alice:no').toString('base64') })).status).toBe(401);
  });

  it('serves the repository web/ files with the right credentials', async () => {
    for (const name of Object.keys(WEB_FILES)) {
      const r = await rawGet(server.port, `/web/${name}`, { authorization: auth });
      expect(r.status, name).toBe(200);
      expect(r.body, name).toBe(readFileSync(join(DEFAULT_WEB_DIR, name), 'utf8'));
      expect(r.headers['content-type'], name).toBe(WEB_FILES[name]);
    }
    const index = await rawGet(server.port, '/', { authorization: auth });
    expect(index.status).toBe(200);
    expect(index.body).toContain('<script type="module" src="/web/app.js">');
  });
});

describe('web wallet files with an address allow-list', () => {
  it('refuses callers outside the list (403)', async () => {
    const server = createRpcServer({ methods: fakeMethods, context: ctx, log, port: 0, auth: { allow: ['10.0.0.0/8'] }, web: {} });
    await server.listen();
    try {
      const r = await rawGet(server.port, '/');
      expect(r.status).toBe(403);
      expect(r.body).not.toContain('<!doctype');
    } finally {
      await server.close();
    }
  });
});

describe('without web (--no-web)', () => {
  it('keeps GET / an RPC error envelope and /web/ paths unknown operations', async () => {
    const server = createRpcServer({ methods: fakeMethods, context: ctx, log, port: 0 });
    await server.listen();
    try {
      const root = await rawGet(server.port, '/');
      expect(root.status).toBe(200);
      expect(root.headers['content-type']).toBe('application/json');
      expect(JSON.parse(root.body).error.code).toBe(-32600);
      const file = await rawGet(server.port, '/web/app.js');
      expect(file.body).not.toContain('export');
      expect(JSON.parse(file.body).error).not.toBeNull();
    } finally {
      await server.close();
    }
  });
});
