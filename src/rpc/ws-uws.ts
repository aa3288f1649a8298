/**
 * WebSocket routes on the uWebSockets.js App that serves the RPC (one listener, DESIGN.md decision
 * 9): the upgrade is decided from the request head (access control) before any frame, backpressure
 * is bounded per connection (`maxBackpressure`; a `send` past it is refused, never buffered), and a
 * uWS socket object is never touched after its close.
 */
import type * as UWS from 'uWebSockets.js';
import { closeIfTooBig, STATUS_TEXT, WS_SHUTDOWN_REASON, wsReadLimit, type HttpRequestHead, type WsConnection, type WsRouteHandler } from './transport-api.js';

interface UserData {
  head: HttpRequestHead;
  conn?: UwsConnection;
}

let nextId = 1;

class UwsConnection implements WsConnection {
  readonly id = nextId++;
  closed = false;
  constructor(
    private readonly ws: UWS.WebSocket<UserData>,
    readonly remoteAddress: string,
    private readonly maxBackpressure: number,
  ) {}
  send(data: string | Uint8Array): boolean {
    if (this.closed || this.ws.getBufferedAmount() > this.maxBackpressure) return false;
    return this.ws.send(data, typeof data !== 'string') !== 2; // 2 = dropped
  }
  get bufferedAmount(): number {
    return this.closed ? 0 : this.ws.getBufferedAmount();
  }
  close(code = 1000, reason = ''): void {
    if (this.closed) return;
    this.closed = true;
    this.ws.end(code, reason);
  }
}

/**
 * Adds the route; returns what closes its open connections at shutdown: each is sent 1001 "going
 * away" (a crash gives a client 1006). The transport's app close, right after, cuts the sockets
 * without waiting for the peers' replies: the frame is written by then (one queued behind an unsent
 * backlog is lost with it), and a shutdown never waits on a peer.
 */
export function addUwsWebSocketRoute(app: UWS.TemplatedApp, path: string, handler: WsRouteHandler): { closeAll(): void } {
  const open = new Set<UwsConnection>();
  app.ws<UserData>(path, {
    compression: 0,
    maxPayloadLength: wsReadLimit(handler),
    maxBackpressure: handler.maxBackpressureBytes,
    closeOnBackpressureLimit: 0,
    idleTimeout: handler.idleTimeoutSeconds,
    sendPingsAutomatically: true,
    upgrade: (res, req, context) => {
      const head: HttpRequestHead = {
        method: 'GET',
        path: req.getUrl(),
        query: req.getQuery() ?? '',
        authorization: req.getHeader('authorization'),
        remoteAddress: Buffer.from(res.getRemoteAddressAsText()).toString('latin1'),
        host: req.getHeader('host'),
        origin: req.getHeader('origin'),
        secFetchSite: req.getHeader('sec-fetch-site'),
      };
      const key = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      const refusal = handler.upgrade(head);
      if (refusal) {
        res.cork(() => {
          res.writeStatus(`${refusal.status} ${STATUS_TEXT[refusal.status] ?? 'Error'}`);
          res.writeHeader('Content-Type', refusal.contentType ?? 'application/json');
          if (refusal.headers) for (const [k, v] of Object.entries(refusal.headers)) res.writeHeader(k, v);
          res.end(refusal.body, true);
        });
        return;
      }
      res.upgrade<UserData>({ head }, key, protocol, extensions, context);
    },
    open: (ws) => {
      const data = ws.getUserData();
      data.conn = new UwsConnection(ws, data.head.remoteAddress, handler.maxBackpressureBytes);
      open.add(data.conn);
      handler.open(data.conn, data.head);
    },
    message: (ws, message, isBinary) => {
      const conn = ws.getUserData().conn;
      // uWS neuters the message buffer when this callback returns: the handler must copy what it keeps.
      if (conn && !conn.closed && !closeIfTooBig(conn, handler, message.byteLength)) handler.message(conn, new Uint8Array(message), isBinary);
    },
    close: (ws, code, message) => {
      const conn = ws.getUserData().conn;
      if (!conn) return;
      open.delete(conn);
      conn.closed = true;
      handler.close(conn, code, Buffer.from(message).toString('utf8'));
    },
  });
  return {
    closeAll: () => {
      for (const conn of [...open]) conn.close(1001, WS_SHUTDOWN_REASON);
    },
  };
}
