/**
 * The contract between the RPC server and its HTTP transports: uWebSockets.js when its native
 * binary loads (transport-uws.ts), `node:http` otherwise (transport-http.ts). Both implement the
 * same discipline (practice P32): the request head is read and judged before any body is read, the
 * body is capped while it accumulates (413 past the cap), aborted requests are never written to,
 * and in-flight requests are counted so shutdown can drain them.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** What a transport knows about a request before reading its body. */
export interface HttpRequestHead {
  /** Upper-case HTTP verb. */
  method: string;
  /** URL path without the query string, e.g. `/status`. */
  path: string;
  /** Raw query string without `?` ('' when none). */
  query: string;
  /** `Authorization` header, '' when absent. */
  authorization: string;
  /** Remote IP as text ('' unless the handler asked for it with `needsRemoteAddress`). */
  remoteAddress: string;
  /** `Host`, `Origin` and `Sec-Fetch-Site` headers, '' when absent (the browser guard, src/rpc/origin.ts). */
  host: string;
  origin: string;
  secFetchSite: string;
}

/** The browser guard's headers of a node:http request ('' when absent; `ws` and node:http transports). */
export function browserHeaders(headers: IncomingHttpHeaders): Pick<HttpRequestHead, 'host' | 'origin' | 'secFetchSite'> {
  const site = headers['sec-fetch-site'];
  return { host: headers.host ?? '', origin: headers.origin ?? '', secFetchSite: typeof site === 'string' ? site : '' };
}

export interface HttpReply {
  status: number;
  body: string | Uint8Array;
  /** Defaults to `application/json`. */
  contentType?: string;
  headers?: Record<string, string>;
}

export interface HttpHandler {
  /**
   * Judges the head. A reply ends the request at once without reading a body (access control,
   * GET routes, 405); `undefined` means: read the body (POST) and call `handle`.
   */
  head(req: HttpRequestHead): HttpReply | undefined;
  /**
   * Answers the request; `body` is null for requests without one (GET). `gone` tells whether the
   * caller has gone away meanwhile (a queued heavy reply is then not built). Must not throw.
   */
  handle(req: HttpRequestHead, body: Buffer | null, gone: () => boolean): HttpReply | Promise<HttpReply>;
  /** Reply for a body over the cap (413). */
  tooLarge(maxBodyBytes: number): HttpReply;
  /** Fill `remoteAddress` (costs a little per request; only needed for an allow-list). */
  needsRemoteAddress: boolean;
}

export interface TransportOptions {
  handler: HttpHandler;
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: number;
}

export type TransportName = 'uws' | 'node:http';

export interface Transport {
  readonly name: TransportName;
  /** Binds and listens; resolves with the bound port (useful with port 0). */
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting new connections; open connections keep being served. */
  stopAccepting(): void;
  /** Requests accepted and not yet answered (or aborted). */
  readonly inFlight: number;
  /** Resolves when no request is in flight. */
  idle(): Promise<void>;
  /** Closes every connection, idle or not. */
  closeConnections(): void;
}

/** Status lines of the codes the server answers with. */
export const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
  505: 'HTTP Version Not Supported',
};

/** Error of `listen` when the port cannot be bound. */
export class ListenError extends Error {
  override name = 'ListenError';
  constructor(
    message: string,
    readonly code: 'EADDRINUSE' | 'EACCES' | 'EADDRNOTAVAIL' | 'ELISTEN',
  ) {
    super(message);
  }
}

/** Counts in-flight requests and wakes `idle()` waiters when the count returns to zero. */
export class InFlightCounter {
  count = 0;
  private waiters: (() => void)[] = [];

  enter(): void {
    this.count++;
  }

  leave(): void {
    if (--this.count === 0 && this.waiters.length > 0) {
      const w = this.waiters;
      this.waiters = [];
      for (const resolve of w) resolve();
    }
  }

  idle(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

/** The clear message for a port that cannot be bound. */
export function addressInUseMessage(host: string, port: number): string {
  return `Cannot listen on ${host}:${port}: the address is already in use or cannot be bound; choose another port with --rpc-port (or stop the other process)`;
}

/** One accepted WebSocket connection, whatever the transport. */
export interface WsConnection {
  /** Unique per transport, for logs and maps. */
  readonly id: number;
  readonly remoteAddress: string;
  /**
   * Queues a message (text for a string, binary for bytes). False when the connection's unsent
   * backlog is past the route's `maxBackpressureBytes` (the message was not queued) or it is closed.
   */
  send(data: string | Uint8Array): boolean;
  /** Bytes queued and not yet written to the socket. */
  readonly bufferedAmount: number;
  close(code?: number, reason?: string): void;
}

/**
 * A graceful shutdown closes each WebSocket with 1001 "going away" and this reason (a crash gives a
 * client 1006); a socket whose closing handshake has not finished within WS_SHUTDOWN_CLOSE_MS is cut.
 */
export const WS_SHUTDOWN_REASON = 'server shutting down';

/** The answer to a WebSocket upgrade on a path that has no WebSocket route (both transports). */
export const NO_WS_ROUTE: HttpReply = { status: 404, body: '{"error":"no WebSocket route at this path"}' };
export const WS_SHUTDOWN_CLOSE_MS = 1000;

/** RFC 6455 close code for a message larger than the endpoint takes. */
export const WS_MESSAGE_TOO_BIG = 1009;

/**
 * Largest message a transport reads whole before a route's own limit is applied. uWS answers a
 * message past its `maxPayloadLength` by cutting the TCP connection (the client sees 1006, no reason)
 * and ws with 1009 without a reason, so each reads up to this and {@link closeIfTooBig} closes with
 * 1009 and a reason naming the route's limit; only a message past this still gets the library's cut.
 */
export const WS_MAX_READ_BYTES = 1024 * 1024;

/** The message size the transport's library is told to read whole for a route. */
export const wsReadLimit = (handler: WsRouteHandler): number => Math.max(handler.maxPayloadBytes, WS_MAX_READ_BYTES);

/**
 * A message past the route's `maxPayloadBytes`: closes the connection with 1009 and a reason naming
 * the limit and returns true (the message is not passed on); false for a message within it.
 */
export function closeIfTooBig(conn: WsConnection, handler: WsRouteHandler, length: number): boolean {
  if (length <= handler.maxPayloadBytes) return false;
  conn.close(WS_MESSAGE_TOO_BIG, `message of ${length} bytes: at most ${handler.maxPayloadBytes} bytes`);
  return true;
}

/** A WebSocket route on the listener (`/events` today, peers later). */
export interface WsRouteHandler {
  /** Largest incoming message; a larger one closes the connection (1009, {@link closeIfTooBig}). */
  maxPayloadBytes: number;
  /** Largest unsent backlog per connection: past it `send` refuses, so a slow reader never grows memory. */
  maxBackpressureBytes: number;
  /** A connection silent this long is closed (0 = never). */
  idleTimeoutSeconds: number;
  /** Decides on the upgrade from the request head (access control): undefined accepts, a reply refuses. */
  upgrade(head: HttpRequestHead): HttpReply | undefined;
  open(conn: WsConnection, head: HttpRequestHead): void;
  message(conn: WsConnection, data: Uint8Array, isBinary: boolean): void;
  close(conn: WsConnection, code: number, reason: string): void;
}

/** A transport that can serve WebSocket routes beside HTTP on the same port. */
export interface WsCapableTransport extends Transport {
  /** Adds a WebSocket route; call before `listen`. */
  addWebSocketRoute(path: string, handler: WsRouteHandler): void;
}
