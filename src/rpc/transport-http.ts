/**
 * HTTP transport on `node:http`: the fallback when the uWebSockets.js binary does not load on this
 * Node build (practice P31), with the same discipline as transport-uws.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  InFlightCounter,
  ListenError,
  addressInUseMessage,
  type HttpReply,
  type HttpRequestHead,
  type TransportOptions,
  type WsCapableTransport,
  type WsRouteHandler,
} from './transport-api.js';
import { HttpWebSocketRoutes } from './ws-http.js';

/** Keep-alive idle timeout: long enough for benchmark and client reuse, short enough to free sockets. */
const KEEP_ALIVE_TIMEOUT_MS = 10_000;

export class NodeHttpTransport implements WsCapableTransport {
  readonly name = 'node:http' as const;
  private readonly server: Server;
  private readonly counter = new InFlightCounter();

  constructor(private readonly opts: TransportOptions) {
    this.server = createServer({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS }, (req, res) => this.onRequest(req, res));
  }

  get inFlight(): number {
    return this.counter.count;
  }

  private wsRoutes: HttpWebSocketRoutes | undefined;

  addWebSocketRoute(path: string, handler: WsRouteHandler): void {
    (this.wsRoutes ??= new HttpWebSocketRoutes(this.server)).add(path, handler);
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const onError = (e: NodeJS.ErrnoException): void => {
        const code = e.code === 'EACCES' || e.code === 'EADDRNOTAVAIL' ? e.code : 'EADDRINUSE';
        reject(new ListenError(e.code === 'EADDRINUSE' ? addressInUseMessage(host, port) : `Cannot listen on ${host}:${port}: ${e.message}`, code));
      };
      this.server.once('error', onError);
      this.server.listen(port, host, () => {
        this.server.off('error', onError);
        const addr = this.server.address();
        resolve(typeof addr === 'object' && addr !== null ? addr.port : port);
      });
    });
  }

  stopAccepting(): void {
    if (this.server.listening) this.server.close();
    this.server.closeIdleConnections();
  }

  idle(): Promise<void> {
    return this.counter.idle();
  }

  closeConnections(): void {
    this.stopAccepting();
    this.wsRoutes?.closeAll();
    this.server.closeAllConnections();
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const { handler, maxBodyBytes } = this.opts;
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const head: HttpRequestHead = {
      method: (req.method ?? 'GET').toUpperCase(),
      path: q < 0 ? url : url.slice(0, q),
      query: q < 0 ? '' : url.slice(q + 1),
      authorization: req.headers.authorization ?? '',
      remoteAddress: req.socket.remoteAddress ?? '',
    };
    const early = handler.head(head);
    if (early !== undefined) {
      writeReply(res, early, false);
      req.resume();
      return;
    }
    this.counter.enter();
    let finished = false;
    const finish = (): void => {
      if (!finished) {
        finished = true;
        this.counter.leave();
      }
    };
    res.once('close', finish); // answered, or the client went away
    if (head.method !== 'POST') {
      req.resume();
      this.answer(res, head, null);
      return;
    }
    if (Number(req.headers['content-length'] ?? 0) > maxBodyBytes) {
      writeReply(res, handler.tooLarge(maxBodyBytes), true);
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let total = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      total += chunk.byteLength;
      if (total > maxBodyBytes) {
        over = true;
        writeReply(res, handler.tooLarge(maxBodyBytes), true);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!over) this.answer(res, head, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    req.on('error', finish);
  }

  private answer(res: ServerResponse, head: HttpRequestHead, body: Buffer | null): void {
    const reply = this.opts.handler.handle(head, body);
    if (reply instanceof Promise) {
      reply.then(
        (r) => writeReply(res, r, false),
        () => writeReply(res, { status: 500, body: '' }, false),
      );
    } else {
      writeReply(res, reply, false);
    }
  }
}

function writeReply(res: ServerResponse, reply: HttpReply, closeConnection: boolean): void {
  if (res.destroyed || res.writableEnded) return; // the caller aborted, or a reply was already sent
  const headers: Record<string, string | number> = { 'Content-Type': reply.contentType ?? 'application/json', ...reply.headers };
  if (closeConnection) headers.Connection = 'close';
  res.writeHead(reply.status, headers);
  res.end(reply.body);
}
