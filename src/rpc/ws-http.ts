/**
 * WebSocket routes beside the node:http fallback transport, with the `ws` library in `noServer`
 * mode on the HTTP server's `upgrade` event: the same decisions as ws-uws.ts (access control on the
 * head before the handshake, a bounded unsent backlog per connection, idle timeout).
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { browserHeaders, closeIfTooBig, NO_WS_ROUTE, STATUS_TEXT, WS_SHUTDOWN_CLOSE_MS, WS_SHUTDOWN_REASON, wsReadLimit, type HttpRequestHead, type WsConnection, type WsRouteHandler } from './transport-api.js';

let nextId = 1;

class HttpWsConnection implements WsConnection {
  readonly id = nextId++;
  closed = false;
  constructor(
    private readonly ws: WebSocket,
    readonly remoteAddress: string,
    private readonly maxBackpressure: number,
  ) {}
  send(data: string | Uint8Array): boolean {
    if (this.closed || this.ws.bufferedAmount > this.maxBackpressure) return false;
    this.ws.send(data, { binary: typeof data !== 'string' });
    return true;
  }
  get bufferedAmount(): number {
    return this.ws.bufferedAmount;
  }
  close(code = 1000, reason = ''): void {
    if (this.closed) return;
    this.closed = true;
    this.ws.close(code, reason);
  }
}

/** Routes by path; attach once per server. */
export class HttpWebSocketRoutes {
  private readonly routes = new Map<string, { handler: WsRouteHandler; wss: WebSocketServer }>();
  private readonly sockets = new Set<WebSocket>();

  constructor(server: Server) {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, rest: Buffer) => this.onUpgrade(req, socket, rest));
  }

  add(path: string, handler: WsRouteHandler): void {
    const wss = new WebSocketServer({ noServer: true, maxPayload: wsReadLimit(handler), perMessageDeflate: false });
    this.routes.set(path, { handler, wss });
  }

  /**
   * Closes every WebSocket connection (shutdown) with 1001 "going away", so a client tells a clean
   * stop from a crash (1006); one whose closing handshake has not finished within
   * {@link WS_SHUTDOWN_CLOSE_MS} is cut, so a shutdown never waits on a silent peer.
   */
  closeAll(): void {
    for (const ws of this.sockets) {
      const cut = setTimeout(() => ws.terminate(), WS_SHUTDOWN_CLOSE_MS);
      ws.once('close', () => clearTimeout(cut));
      ws.close(1001, WS_SHUTDOWN_REASON);
    }
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, rest: Buffer): void {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const head: HttpRequestHead = {
      method: 'GET',
      path: q < 0 ? url : url.slice(0, q),
      query: q < 0 ? '' : url.slice(q + 1),
      authorization: req.headers.authorization ?? '',
      remoteAddress: req.socket.remoteAddress ?? '',
      ...browserHeaders(req.headers),
    };
    const route = this.routes.get(head.path);
    const refusal = route ? route.handler.upgrade(head) : NO_WS_ROUTE;
    if (refusal) {
      const headers = Object.entries({ 'Content-Type': refusal.contentType ?? 'application/json', Connection: 'close', ...refusal.headers })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      socket.end(`HTTP/1.1 ${refusal.status} ${STATUS_TEXT[refusal.status] ?? 'Error'}\r\n${headers}\r\n${refusal.body}`);
      return;
    }
    const { handler, wss } = route!;
    wss.handleUpgrade(req, socket, rest, (ws) => {
      this.sockets.add(ws);
      const conn = new HttpWsConnection(ws, head.remoteAddress, handler.maxBackpressureBytes);
      let idle: NodeJS.Timeout | undefined;
      const touch = (): void => {
        if (handler.idleTimeoutSeconds <= 0) return;
        clearTimeout(idle);
        idle = setTimeout(() => conn.close(1001, 'idle timeout'), handler.idleTimeoutSeconds * 1000);
        idle.unref();
      };
      touch();
      ws.on('message', (data: Buffer, isBinary: boolean) => {
        touch();
        if (!conn.closed && !closeIfTooBig(conn, handler, data.byteLength)) handler.message(conn, new Uint8Array(data.buffer, data.byteOffset, data.byteLength), isBinary);
      });
      ws.on('pong', touch);
      ws.on('error', () => conn.close(1002, 'protocol error'));
      ws.on('close', (code: number, reason: Buffer) => {
        clearTimeout(idle);
        this.sockets.delete(ws);
        conn.closed = true;
        handler.close(conn, code, reason.toString('utf8'));
      });
      handler.open(conn, head);
    });
  }
}
