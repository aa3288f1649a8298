/** A separate loopback listener serving only `GET /metrics` (practice P49: metrics on their own port). */
import { createServer, type Server } from 'node:http';
import { BrowserGuard } from '../rpc/origin.js';
import { METRICS_METHODS, metricsMethodRefusal, type NodeMetrics } from './metrics.js';

export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The RPC listener's Host rule applies (IP literals, localhost, `vhosts`: the --rpc-vhost names): a
 * web page rebinding its DNS name to 127.0.0.1 must not read the metrics either (src/rpc/origin.ts).
 */
export function startMetricsServer(metrics: NodeMetrics, host: string, port: number, opts: { vhosts?: readonly string[] } = {}): Promise<MetricsServer> {
  const guard = new BrowserGuard({ vhosts: opts.vhosts, listenHost: host });
  const server: Server = createServer((req, res) => {
    const hostHeader = req.headers.host ?? '';
    if (!guard.hostAllowed(hostHeader)) {
      res.writeHead(403, { 'Content-Type': 'text/plain' }).end(`${BrowserGuard.hostRefusal(hostHeader, 'metrics answer')}\n`);
      return;
    }
    if ((req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found: metrics are served at GET /metrics\n');
      return;
    }
    // HEAD as GET without the body (RFC 9110 §9.3.2; node:http leaves the body out); other verbs 405.
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'Content-Type': 'text/plain', Allow: METRICS_METHODS }).end(`${metricsMethodRefusal(req.method)}\n`);
      return;
    }
    metrics.render().then(
      (body) => res.writeHead(200, { 'Content-Type': metrics.contentType, 'Content-Length': Buffer.byteLength(body) }).end(body),
      () => res.writeHead(500).end(),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(new Error(`Cannot serve metrics on ${host}:${port}: ${e.code === 'EADDRINUSE' ? 'the port is in use; choose another with --metrics-port' : e.message}`)),
    );
    server.listen(port, host, () => {
      const addr = server.address();
      const bound = typeof addr === 'object' && addr ? addr.port : port;
      resolve({
        url: `http://${host}:${bound}/metrics`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
