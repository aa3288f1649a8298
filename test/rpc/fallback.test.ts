// node:http as the default transport, uWS refused when its native binary does not load (P31), and
// random requests over the wire that must never crash the server.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';

vi.mock('../../src/rpc/transport-uws.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/rpc/transport-uws.js')>();
  return { ...real, loadUws: () => new Error('uws_linux_x64_115.node: invalid ELF header (simulated)') };
});

const { createRpcServer, ServerConfigError } = await import('../../src/rpc/server.js');
const { createLogger } = await import('../../src/log/logger.js');
const { fakeMethods } = await import('./fake-table.js');

describe('transport fallback', () => {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({ level: 'info', format: 'json', destination: { write: (l: string) => lines.push(JSON.parse(l)) } });
  let server: ReturnType<typeof createRpcServer>;
  let base: string;
  beforeAll(async () => {
    server = createRpcServer({ methods: fakeMethods, context: { height: 5n }, log, port: 0, transport: 'auto' });
    base = await server.listen();
  });
  afterAll(() => server.close());

  it('serves with node:http by default (issue 13: RFC 9112 framing) without loading uWS', async () => {
    expect(server.transportName).toBe('node:http');
    expect(lines.filter((l) => (l.level as number) >= 40)).toEqual([]);
    expect(await (await fetch(`${base}/status?id=1`)).json()).toEqual({ result: { 'Block Height': 5, verbose: false, vv: false }, id: 1, error: null });
  });

  it('refuses to start when uWS is demanded explicitly', () => {
    expect(() => createRpcServer({ methods: fakeMethods, context: {}, log, port: 0, transport: 'uws' })).toThrow(ServerConfigError);
  });
});

describe('random requests never crash the server', () => {
  const log = createLogger({ level: 'silent', format: 'json' });
  it('answers every random GET and POST with a JSON envelope', async () => {
    const server = createRpcServer({ methods: fakeMethods.filter((m) => m.name !== 'slow'), context: { height: 1n }, log, port: 0, transport: 'http' });
    const base = await server.listen();
    try {
      const op = fc.constantFrom('status', 'echo', 'getWallet', 'updateNameRecord', 'fail', 'nope', 'ECHO', '');
      const key = fc.constantFrom('text', 'count', 'big', 'data', 'verbose', 'id', 'records[]', 'kind', 'kb');
      await fc.assert(
        fc.asyncProperty(op, fc.dictionary(key, fc.oneof(fc.string(), fc.jsonValue())), fc.boolean(), fc.string(), async (name, params, usePost, junk) => {
          let r: Response;
          if (usePost) {
            const body = junk.length % 3 === 0 ? junk : JSON.stringify({ method: name, params, id: 1 });
            r = await fetch(`${base}/${encodeURIComponent(name)}`, { method: 'POST', body });
          } else {
            const q = Object.entries(params).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`).join('&');
            r = await fetch(`${base}/${encodeURIComponent(name)}?${q}`);
          }
          expect([200, 405]).toContain(r.status);
          const body = await r.json();
          expect(Object.keys(body)).toEqual(['result', 'id', 'error']);
        }),
        { numRuns: 150 },
      );
      expect((await fetch(`${base}/health`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
