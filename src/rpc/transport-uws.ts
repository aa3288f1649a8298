/**
 * HTTP transport on uWebSockets.js (DESIGN.md components; practices P31–P32). The native binary of
 * the npm republish is loaded directly, so that when it does not match this Node ABI the caller
 * gets the error and can fall back to `node:http` itself (with a log line) instead of the package's
 * own console-printing fallback.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as UWS from 'uWebSockets.js';
import {
  InFlightCounter,
  ListenError,
  NO_WS_ROUTE,
  STATUS_TEXT,
  addressInUseMessage,
  type HttpReply,
  type HttpRequestHead,
  type TransportOptions,
  type WsCapableTransport,
  type WsRouteHandler,
} from './transport-api.js';
import { addUwsWebSocketRoute } from './ws-uws.js';

type UwsModule = typeof UWS;

/**
 * Responses larger than this are sent with `tryEnd`/`onWritable` so a slow reader cannot make the
 * server buffer the whole body at once (P32); smaller ones fit the socket buffer and use `end`.
 */
export const LARGE_RESPONSE_BYTES = 64 * 1024;

/**
 * Where the uWebSockets.js build we ship frames HTTP/1.1 short of RFC 9112 (issue 13 §2; each is a
 * case of test/rpc/framing.test.ts, which the default node:http transport passes). Named in the
 * warning the server logs when this transport serves a non-loopback address.
 */
export const UWS_FRAMING_DEFECTS = [
  'HTTP/1.0 requests are never answered',
  'a second, different Content-Length is honoured and the leftover bytes run as another request (request smuggling behind a proxy)',
  'Content-Length with Transfer-Encoding, and unknown methods, get a bare close instead of 400/405',
  'a malformed request line gets no answer until the idle timeout',
  'a client that writes an over-limit body before reading sees a reset instead of 413',
] as const;

/** A reply whose reader takes no byte for this long is dropped with its connection. */
const SLOW_READER_TIMEOUT_MS = 30_000;
/** Reply bytes held for slow readers, node-wide; past it, new held replies are dropped (issue 13). */
const UNSENT_BUDGET_BYTES = 32 * 1024 * 1024;

let loaded: UwsModule | Error | undefined;

/** The uWebSockets.js native module, or the Error explaining why it does not load here. Cached. */
export function loadUws(): UwsModule | Error {
  if (loaded === undefined) {
    try {
      const require = createRequire(import.meta.url);
      const main = require.resolve('uWebSockets.js');
      const binary = join(dirname(main), '..', 'binaries', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
      loaded = require(binary) as UwsModule;
    } catch (e) {
      loaded = e instanceof Error ? e : new Error(String(e));
    }
  }
  return loaded;
}

const statusLines = new Map<number, string>();
function statusLine(status: number): string {
  let line = statusLines.get(status);
  if (line === undefined) {
    line = `${status} ${STATUS_TEXT[status] ?? 'Unknown'}`;
    statusLines.set(status, line);
  }
  return line;
}

export class UwsTransport implements WsCapableTransport {
  readonly name = 'uws' as const;
  private readonly app: UWS.TemplatedApp;
  private listenSocket: UWS.us_listen_socket | null = null;
  private readonly counter = new InFlightCounter();
  /** Bytes of replies waiting for their slow readers (see `send`). */
  private unsentBytes = 0;

  constructor(
    private readonly uws: UwsModule,
    private readonly opts: TransportOptions,
  ) {
    this.app = uws.App();
    this.app.any('/*', (res, req) => this.onRequest(res, req));
  }

  get inFlight(): number {
    return this.counter.count;
  }

  private readonly wsRoutes: { closeAll(): void }[] = [];

  addWebSocketRoute(path: string, handler: WsRouteHandler): void {
    this.wsRoutes.push(addUwsWebSocketRoute(this.app, path, handler));
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.app.listen(host, port, (token) => {
        if (!token) {
          reject(new ListenError(addressInUseMessage(host, port), 'EADDRINUSE'));
          return;
        }
        this.listenSocket = token;
        resolve(this.uws.us_socket_local_port(token));
      });
    });
  }

  stopAccepting(): void {
    if (this.listenSocket) {
      this.uws.us_listen_socket_close(this.listenSocket);
      this.listenSocket = null;
    }
  }

  idle(): Promise<void> {
    return this.counter.idle();
  }

  closeConnections(): void {
    this.stopAccepting();
    for (const r of this.wsRoutes) r.closeAll();
    // `close()` exists in this build (20.30) but not in its type declarations.
    (this.app as UWS.TemplatedApp & { close(): void }).close();
  }

  private onRequest(res: UWS.HttpResponse, req: UWS.HttpRequest): void {
    const { handler, maxBodyBytes } = this.opts;
    // The HttpRequest is only valid during this call: read everything from it first.
    const head: HttpRequestHead = {
      method: req.getMethod().toUpperCase(),
      path: req.getUrl(),
      query: req.getQuery() ?? '',
      authorization: req.getHeader('authorization'),
      remoteAddress: handler.needsRemoteAddress ? remoteAddressText(res) : '',
      host: req.getHeader('host'),
      origin: req.getHeader('origin'),
      secFetchSite: req.getHeader('sec-fetch-site'),
    };
    const contentLength = req.getHeader('content-length');
    // uWS hands an upgrade on a path without a WebSocket route to the HTTP routes: answer it as
    // node:http does, not with an RPC reply to an operation named after the path.
    const early = handler.head(head) ?? (req.getHeader('upgrade').toLowerCase() === 'websocket' ? NO_WS_ROUTE : undefined);
    if (early !== undefined) {
      writeReply(res, early, false, head.method === 'HEAD'); // still inside the handler: uWS has corked the socket for us
      return;
    }
    this.counter.enter();
    const state: RequestState = { aborted: false, finished: false };
    const finish = (): void => {
      if (state.finished) return;
      state.finished = true;
      this.counter.leave();
    };
    res.onAborted(() => {
      state.aborted = true;
      finish();
    });
    if (head.method !== 'POST') {
      this.answer(res, state, finish, head, null);
      return;
    }
    if (contentLength !== '' && Number(contentLength) > maxBodyBytes) {
      writeReply(res, handler.tooLarge(maxBodyBytes), true);
      finish();
      return;
    }
    let chunks: Buffer[] | null = [];
    let total = 0;
    res.onData((chunk, isLast) => {
      if (chunks === null || state.aborted) return;
      total += chunk.byteLength;
      if (total > maxBodyBytes) {
        chunks = null;
        res.cork(() => writeReply(res, handler.tooLarge(maxBodyBytes), true));
        finish();
        return;
      }
      // uWS neuters the chunk when this callback returns: copy it (into the Buffer pool when
      // small: no ArrayBuffer of its own per request).
      const copy = Buffer.allocUnsafe(chunk.byteLength);
      copy.set(new Uint8Array(chunk));
      if (!isLast) {
        chunks.push(copy);
        return;
      }
      const body = chunks.length === 0 ? copy : Buffer.concat([...chunks, copy]);
      chunks = null;
      this.answer(res, state, finish, head, body);
    });
  }

  private answer(res: UWS.HttpResponse, state: RequestState, finish: () => void, head: HttpRequestHead, body: Buffer | null): void {
    const reply = this.opts.handler.handle(head, body, () => state.aborted);
    const headOnly = head.method === 'HEAD';
    if (reply instanceof Promise) {
      reply.then(
        (r) => this.send(res, state, finish, r, headOnly),
        () => this.send(res, state, finish, { status: 500, body: '' }, headOnly),
      );
    } else {
      this.send(res, state, finish, reply, headOnly);
    }
  }

  private send(res: UWS.HttpResponse, state: RequestState, finish: () => void, reply: HttpReply, headOnly = false): void {
    if (state.aborted) return; // the response object is dead after onAborted
    if (headOnly) {
      res.cork(() => writeReply(res, reply, false, true));
      finish();
      return;
    }
    const body = reply.body;
    // A string of n UTF-16 units is at most 3n UTF-8 bytes: short strings skip the byte count.
    const small = typeof body === 'string' ? body.length * 3 <= LARGE_RESPONSE_BYTES || Buffer.byteLength(body) <= LARGE_RESPONSE_BYTES : body.byteLength <= LARGE_RESPONSE_BYTES;
    if (small) {
      res.cork(() => writeReply(res, reply, false));
      finish();
      return;
    }
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const size = bytes.byteLength;
    let startOffset = 0;
    let done = false;
    res.cork(() => {
      writeHead(res, reply);
      startOffset = res.getWriteOffset();
      done = res.tryEnd(bytes, size)[1];
    });
    if (done) {
      finish();
      return;
    }
    // Backpressure: resume from where the socket stopped taking bytes. The reply is held until
    // then: counted against the node-wide budget, and dropped with its connection when its reader
    // takes nothing for SLOW_READER_TIMEOUT_MS.
    const held = size;
    this.unsentBytes += held;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.unsentBytes -= held;
      clearTimeout(timer);
    };
    const close = (): void => {
      release();
      if (!state.aborted && !state.finished) res.close(); // fires onAborted, which finishes
    };
    let timer = setTimeout(close, SLOW_READER_TIMEOUT_MS);
    res.onAborted(() => {
      state.aborted = true;
      release();
      finish();
    });
    if (this.unsentBytes > UNSENT_BUDGET_BYTES) {
      close(); // the newest held reply goes first: the node does not grow past the budget
      return;
    }
    res.onWritable((offset) => {
      if (state.aborted) return true;
      const [ok, responded] = res.tryEnd(bytes.subarray(offset - startOffset), size);
      if (responded) {
        release();
        finish();
      } else {
        clearTimeout(timer);
        timer = setTimeout(close, SLOW_READER_TIMEOUT_MS);
      }
      return ok;
    });
  }
}

interface RequestState {
  aborted: boolean;
  finished: boolean;
}

function writeHead(res: UWS.HttpResponse, reply: HttpReply): void {
  res.writeStatus(statusLine(reply.status));
  res.writeHeader('Content-Type', reply.contentType ?? 'application/json');
  if (reply.headers) for (const [k, v] of Object.entries(reply.headers)) res.writeHeader(k, v);
}

/**
 * Writes a whole reply. The answer to HEAD carries no body (RFC 9110 §9.3.2): the client reads none,
 * and bytes after the head would be taken for the next response on the connection. (This build
 * aborts the process when `endWithoutBody` is given a length or the close flag: it is called bare,
 * and sends no Content-Length; a HEAD reply that closes sends an empty body.)
 */
function writeReply(res: UWS.HttpResponse, reply: HttpReply, closeConnection: boolean, headOnly = false): void {
  writeHead(res, reply);
  if (headOnly && !closeConnection) res.endWithoutBody();
  else res.end(headOnly ? '' : reply.body, closeConnection);
}

/** uWS gives IPv6 text in full form and IPv4 callers as IPv4-mapped IPv6; node:net reads both. */
function remoteAddressText(res: UWS.HttpResponse): string {
  return Buffer.from(res.getRemoteAddressAsText()).toString('latin1');
}
