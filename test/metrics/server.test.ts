import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics/metrics.js';
import { startMetricsServer, type MetricsServer } from '../../src/metrics/server.js';
import { parseExposition } from './prom-text.js';

/** GET `url` with the given Host header (fetch does not let a caller set Host): status and body. */
function getWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host }, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

describe('the separate metrics listener (--metrics-port)', () => {
  const metrics = createMetrics({ version: 'test', wasmFlavour: 'simd', defaultCollectors: false });
  let server: MetricsServer;
  beforeAll(async () => {
    server = await startMetricsServer(metrics, '127.0.0.1', 0);
  });
  afterAll(() => server.close());

  it('serves GET /metrics in the 0.0.4 text format', async () => {
    const r = await fetch(server.url);
    expect([r.status, r.headers.get('content-type')]).toEqual([200, metrics.contentType]);
    expect(parseExposition(await r.text()).has('dltnode_info')).toBe(true);
  });

  it('answers HEAD /metrics as GET, without the body', async () => {
    const r = await fetch(server.url, { method: 'HEAD' });
    expect([r.status, r.headers.get('content-type'), await r.text()]).toEqual([200, metrics.contentType, '']);
  });

  it('refuses other verbs on /metrics with 405 naming GET, HEAD; other paths are 404', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const r = await fetch(server.url, { method, body: method === 'DELETE' ? null : 'x' });
      expect([method, r.status, r.headers.get('allow')]).toEqual([method, 405, 'GET, HEAD']);
    }
    expect((await fetch(server.url.replace('/metrics', '/other'))).status).toBe(404);
  });

  it('refuses a Host that is neither an IP literal, localhost nor a --rpc-vhost name (DNS rebinding), as the RPC does', async () => {
    const port = new URL(server.url).port;
    const evil = await getWithHost(server.url, `evil.test:${port}`);
    expect(evil.status).toBe(403);
    expect(evil.body).toMatch(/^Host 'evil\.test:\d+' is not allowed: metrics answer IP addresses, localhost and --rpc-vhost names only/);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, '[::1]']) expect([host, (await getWithHost(server.url, host)).status]).toEqual([host, 200]);
    const named = await startMetricsServer(metrics, '127.0.0.1', 0, { vhosts: ['node.lan'] });
    try {
      expect((await getWithHost(named.url, 'node.lan')).status).toBe(200);
      expect((await getWithHost(named.url, 'evil.test')).status).toBe(403);
    } finally {
      await named.close();
    }
  });
});
