import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics/metrics.js';
import { startMetricsServer, type MetricsServer } from '../../src/metrics/server.js';
import { parseExposition } from './prom-text.js';

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
});
