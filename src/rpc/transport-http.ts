/**
 * HTTP transport on `node:http`, the default (practice P31; issue 13): its parser (llhttp) frames
 * requests as RFC 9112 asks, which the uWebSockets.js build we ship does not (HTTP/1.0 never
 * answered, duplicate Content-Length honoured, malformed request lines left silent; the evidence is
 * in test/rpc/framing.test.ts). Same discipline as transport-uws.ts, plus:
 *
 * - Framing errors (RFC 9112 §2.2, §3, §6.3): a malformed request line, header, or a
 *   Content-Length that conflicts with another or with Transfer-Encoding gets 400 and the connection
 *   is closed; an unknown method token gets 405 like any method other than GET and POST; an
 *   HTTP/0.9 request line (no version) gets 400 and a major version other than 1 gets 505.
 * - A body over the cap gets its 413 after the body has been read and discarded (up to
 *   {@link DISCARD_LIMIT_BYTES} and {@link LINGER_MS}), so a client that writes its whole body before
 *   reading sees the 413 and not a reset (RFC 9112 §9.6 "lingering close").
 * - Slow readers: a connection whose unsent reply bytes exceed {@link MAX_UNSENT_BYTES} is closed,
 *   node:http stops reading pipelined requests while a reply is unsent, all connections together
 *   hold at most {@link UNSENT_BUDGET_BYTES} unsent (the largest backlogs are closed past it), and a
 *   connection that neither sends nor takes bytes for {@link SOCKET_IDLE_TIMEOUT_MS} is closed.
 * - Slowloris: request heads must be complete within {@link HEADERS_TIMEOUT_MS}.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  InFlightCounter,
  browserHeaders,
  ListenError,
  STATUS_TEXT,
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
/**
 * A request head (line and headers) must arrive within this time (slowloris). Real clients send it
 * in one packet; 10 s leaves room for a slow link. Node checks it every {@link TIMEOUT_CHECK_MS}.
 */
export const HEADERS_TIMEOUT_MS = 10_000;
/**
 * Largest request head (request line and headers). GET carries every parameter in the URL, and
 * QuIXI-style scripts send chat text that way (`curl --get --data-urlencode message=…`): a few
 * thousand non-Latin characters are tens of kB once percent-encoded, past Node's default 16 KiB.
 */
export const MAX_REQUEST_HEAD_BYTES = 64 * 1024;
/** A whole request (head and body) must arrive within this time: 1 MiB at 35 kB/s. */
export const REQUEST_TIMEOUT_MS = 30_000;
const TIMEOUT_CHECK_MS = 1_000;
/** A connection that neither sends nor takes a byte this long (a reader that stopped) is closed. */
export const SOCKET_IDLE_TIMEOUT_MS = 30_000;
/**
 * Reply bytes one connection may leave unsent: the largest reply (a `txa` page of 1,000 at ~1.6 kB
 * each) with room to spare. node:http does not parse a connection's next request while its reply
 * is unsent, so this bounds what a client that never reads can make the node hold.
 */
export const MAX_UNSENT_BYTES = 8 * 1024 * 1024;
/**
 * Reply bytes all connections together may leave unsent. Past it, the connections holding the most
 * unsent bytes (readers that stopped reading) are closed, largest first, so 50 clients that never
 * read their `txa` pages cannot grow the node by their sum.
 */
export const UNSENT_BUDGET_BYTES = 32 * 1024 * 1024;
/** Pipelined requests one connection may have waiting; past it the connection is closed. */
export const MAX_PIPELINED = 64;
/** Body bytes read and dropped after a 413 so the client sees it (lingering close); then we close. */
export const DISCARD_LIMIT_BYTES = 16 * 1024 * 1024;
/** Longest wait for the rest of an over-limit body (or for a client to close after an error reply). */
export const LINGER_MS = 5_000;

/** Per connection: a request being handled, and the pipelined ones waiting for it. */
interface Line {
  busy: boolean;
  waiting: [IncomingMessage, ServerResponse][];
}
const LINE = Symbol('dltnode.line');

/** RFC 9110 §5.6.2 token characters: what a method may be made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export class NodeHttpTransport implements WsCapableTransport {
  readonly name = 'node:http' as const;
  private readonly server: Server;
  private readonly counter = new InFlightCounter();
  private readonly unsent = new UnsentBytes();
  /** Pipelined requests due to run, one per event-loop turn (see `later`). */
  private readonly pipelined: (() => void)[] = [];
  private pumping = false;

  constructor(private readonly opts: TransportOptions) {
    this.server = createServer(
      {
        keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
        headersTimeout: HEADERS_TIMEOUT_MS,
        requestTimeout: REQUEST_TIMEOUT_MS,
        maxHeaderSize: MAX_REQUEST_HEAD_BYTES,
        connectionsCheckingInterval: TIMEOUT_CHECK_MS,
      },
      (req, res) => this.serially(req, res),
    );
    this.server.timeout = SOCKET_IDLE_TIMEOUT_MS;
    this.server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => onClientError(err, socket));
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

  /**
   * Pipelined requests of one connection are handled one after the other, each once the previous
   * reply has left for the kernel: a client that sends many requests and reads none gets one reply
   * built, not one per request (node:http would run them all at once and queue every reply).
   */
  private serially(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket as Socket & { [LINE]?: Line };
    const l = (socket[LINE] ??= { busy: false, waiting: [] });
    const run = (q: IncomingMessage, r: ServerResponse): void => {
      l.busy = true;
      const next = (): void => {
        const resume = (): void => {
          const n = l.waiting.shift();
          if (n === undefined || socket.destroyed) {
            l.busy = false;
            return;
          }
          this.later(() => (socket.destroyed ? undefined : run(n[0], n[1])));
        };
        if (socket.writableNeedDrain && !socket.destroyed) socket.once('drain', resume);
        else resume();
      };
      r.once('close', next); // after the reply is handed over, or when the connection is gone
      this.onRequest(q, r);
    };
    if (!l.busy) {
      run(req, res);
      return;
    }
    if (l.waiting.length >= MAX_PIPELINED) {
      socket.destroy(); // far more requests than any client pipelines, none read
      return;
    }
    l.waiting.push([req, res]);
  }

  /**
   * Pipelined requests run one per event-loop turn, node-wide, after the I/O that arrived meanwhile:
   * connections that pipeline many costly requests (and may never read the replies, which the
   * kernel's socket buffers absorb for a while) cannot queue their builds ahead of other callers.
   */
  private later(task: () => void): void {
    this.pipelined.push(task);
    if (this.pumping) return;
    this.pumping = true;
    const pump = (): void => {
      this.pipelined.shift()?.();
      if (this.pipelined.length > 0) setImmediate(pump);
      else this.pumping = false;
    };
    setImmediate(pump);
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const { handler, maxBodyBytes } = this.opts;
    if (req.httpVersionMajor !== 1) {
      // llhttp reads a request line without a version as HTTP/0.9: malformed for RFC 9112 §3.
      const status = req.httpVersionMajor === 0 ? 400 : 505;
      writeReply(res, plainError(status, status === 400 ? 'Malformed request line: expected METHOD target HTTP/1.x' : 'Only HTTP/1.0 and HTTP/1.1 are served'), true);
      return;
    }
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const head: HttpRequestHead = {
      method: (req.method ?? 'GET').toUpperCase(),
      path: q < 0 ? url : url.slice(0, q),
      query: q < 0 ? '' : url.slice(q + 1),
      authorization: req.headers.authorization ?? '',
      remoteAddress: req.socket.remoteAddress ?? '',
      ...browserHeaders(req.headers),
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
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBodyBytes) {
      this.refuseBody(req, res, declared);
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
        chunks.length = 0;
        this.refuseBody(req, res, Infinity);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!over) this.answer(res, head, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    req.on('error', finish);
  }

  /**
   * 413 for a body over the cap. The rest of the body is read and dropped first (when it is not
   * larger than {@link DISCARD_LIMIT_BYTES} and arrives within {@link LINGER_MS}), so the reply is
   * the next thing the client reads, and closing leaves no unread bytes behind (which would make
   * the kernel reset the connection and drop the reply).
   */
  private refuseBody(req: IncomingMessage, res: ServerResponse, declared: number): void {
    const reply = this.opts.handler.tooLarge(this.opts.maxBodyBytes);
    let sent = false;
    const send = (): void => {
      if (sent) return;
      sent = true;
      clearTimeout(timer);
      writeReply(res, reply, true);
    };
    const timer = setTimeout(send, LINGER_MS);
    let dropped = 0;
    req.removeAllListeners('data');
    req.on('data', (chunk: Buffer) => {
      dropped += chunk.byteLength;
      if (dropped > DISCARD_LIMIT_BYTES) send();
    });
    req.once('end', send);
    req.resume();
    if (declared > DISCARD_LIMIT_BYTES) send();
  }

  private answer(res: ServerResponse, head: HttpRequestHead, body: Buffer | null): void {
    const reply = this.opts.handler.handle(head, body, () => res.destroyed || res.socket?.destroyed === true);
    if (reply instanceof Promise) {
      reply.then(
        (r) => writeReply(res, r, false, this.unsent),
        () => writeReply(res, { status: 500, body: '' }, false),
      );
    } else {
      writeReply(res, reply, false, this.unsent);
    }
  }
}

/** Sockets with reply bytes the kernel has not taken yet (their readers are slow or stopped). */
class UnsentBytes {
  private readonly backlogged = new Set<Socket>();

  /** After a write: track `socket` while it holds unsent bytes; enforce the node-wide budget. */
  track(socket: Socket): void {
    if (socket.writableLength === 0 || this.backlogged.has(socket)) {
      if (socket.writableLength > 0) this.enforce();
      return;
    }
    this.backlogged.add(socket);
    const forget = (): void => {
      this.backlogged.delete(socket);
    };
    socket.once('drain', forget);
    socket.once('close', forget);
    this.enforce();
  }

  private enforce(): void {
    let total = 0;
    for (const s of this.backlogged) total += s.writableLength;
    if (total <= UNSENT_BUDGET_BYTES) return;
    const largestFirst = [...this.backlogged].sort((a, b) => b.writableLength - a.writableLength);
    for (const s of largestFirst) {
      if (total <= UNSENT_BUDGET_BYTES) break;
      total -= s.writableLength;
      this.backlogged.delete(s);
      s.destroy();
    }
  }
}

function writeReply(res: ServerResponse, reply: HttpReply, closeConnection: boolean, unsent?: UnsentBytes): void {
  if (res.destroyed || res.writableEnded) return; // the caller aborted, or a reply was already sent
  const socket = res.socket;
  if (socket && socket.writableLength > MAX_UNSENT_BYTES) {
    socket.destroy(); // its reader stopped reading: do not queue more
    return;
  }
  const headers: Record<string, string | number> = { 'Content-Type': reply.contentType ?? 'application/json', ...reply.headers };
  // A known length rather than chunked encoding: HTTP/1.0 clients and lean clients read it.
  headers['Content-Length'] = typeof reply.body === 'string' ? Buffer.byteLength(reply.body) : reply.body.byteLength;
  if (closeConnection) headers.Connection = 'close';
  res.writeHead(reply.status, headers);
  res.end(reply.body);
  if (socket && unsent) unsent.track(socket);
}

function plainError(status: number, message: string): HttpReply {
  return { status, body: JSON.stringify({ result: null, id: null, error: { code: -32600, message } }) };
}

/**
 * A request node:http could not frame. RFC 9112: a malformed request line or header, or a
 * conflicting Content-Length (§6.3), is answered 400 and the connection closed; an unknown method
 * token is a well-formed request this server does not implement: 405 (RFC 9110 §15.5.6), as for
 * PUT. The reply is written raw (there is no ServerResponse), then the connection lingers.
 */
function onClientError(err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  let status = 400;
  let message = 'Malformed HTTP request';
  let extra = '';
  if (err.code === 'HPE_INVALID_METHOD') {
    // 405 only for a well-formed request line whose method llhttp does not know; anything else is 400.
    const line = /^([^ \r\n]+) [^ \r\n]+ HTTP\/1\.[01]\r\n/.exec((err.rawPacket ?? Buffer.alloc(0)).toString('latin1'));
    const method = line?.[1] ?? '';
    if (TOKEN.test(method)) {
      status = 405;
      message = `HTTP method ${method.slice(0, 32)} is not supported; use GET or POST`;
      extra = 'Allow: GET, POST\r\n';
    }
  } else if (err.code === 'HPE_HEADER_OVERFLOW') {
    status = 431;
    message = `Request line and headers of more than ${MAX_REQUEST_HEAD_BYTES / 1024} KiB: send long parameters in a POST JSON body`;
  } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_HEADERS_TIMEOUT') {
    status = 408;
    message = 'The request did not arrive in time';
  } else if (err.code === 'HPE_INVALID_URL') {
    // Typically a GET parameter typed as is: `curl "$B/getRegName?name=münchen"` sends raw UTF-8.
    message = 'Malformed request target: spaces, control characters and non-ASCII letters must be percent-encoded (curl -G --data-urlencode "name=münchen" …), or sent in a POST JSON body';
  } else if (err.code === 'HPE_UNEXPECTED_CONTENT_LENGTH' || err.code === 'HPE_INVALID_CONTENT_LENGTH' || err.code === 'HPE_INVALID_TRANSFER_ENCODING') {
    message = 'Conflicting or invalid Content-Length / Transfer-Encoding';
  }
  const body = plainError(status, message).body as string;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\n${extra}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  lingerThenDestroy(socket);
}

/** After an error reply: drop what the client still sends (bounded), and close when it does, or later. */
function lingerThenDestroy(socket: Duplex): void {
  let dropped = 0;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.on('data', (chunk: Buffer) => {
    dropped += chunk.byteLength;
    if (dropped > DISCARD_LIMIT_BYTES) socket.destroy();
  });
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
  socket.resume();
}
