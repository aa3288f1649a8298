/**
 * The RPC server: one HTTP listener (uWebSockets.js, or node:http as a fallback) serving the method
 * table through the envelope of DESIGN.md decisions 1–2, with access control (decision 8), health
 * and readiness probes, optional Prometheus metrics, and a draining shutdown (practice P52).
 *
 * Routes: `GET|POST /<operation>` and `POST /` (method in the body) → the method table;
 * `GET /health` → 200 while the process runs; `GET /ready` → 200 once the node is ready, 503 while
 * starting or draining; `GET /metrics` → Prometheus text when metrics are served on this port;
 * `ws /events` → the node's event stream (src/rpc/events.ts), behind the same access control;
 * with `web`: `GET /` and `GET /web/<file>` → the web wallet's static files (src/rpc/web-static.ts),
 * behind the same access control (without `web`, `GET /` stays an error envelope).
 *
 * The server owns the one listener (reshape-for-peers §3 P7, option a): HTTP routes and WebSocket
 * routes share its port, on uWS and on the node:http fallback alike.
 */
import { AccessControl, isLoopbackHost, type AuthOptions } from './auth.js';
import { Dispatcher, rpcErrorReply, type RpcReply } from './dispatch.js';
import { EnvelopeError, errorBody, operationFromPath, requestFromBody, requestFromQuery, type RpcRequest } from './envelope.js';
import { NodeHttpTransport } from './transport-http.js';
import { loadUws, UWS_FRAMING_DEFECTS, UwsTransport } from './transport-uws.js';
import { RpcCode, RpcError, type MethodDef } from './types.js';
import type { HttpHandler, HttpReply, HttpRequestHead, TransportName, WsCapableTransport, WsRouteHandler } from './transport-api.js';
import type { Logger } from '../log/logger.js';
import type { NodeEventBus } from '../node/events.js';
import { EVENTS_PATH, EventStream } from './events.js';
import { METRICS_METHODS, metricsMethodRefusal, type NodeMetrics } from '../metrics/metrics.js';
import { WebFiles, type WebOptions } from './web-static.js';
import { BrowserGuard } from './origin.js';

export const DEFAULT_RPC_HOST = '127.0.0.1';
export const DEFAULT_RPC_PORT = 8081;
/**
 * Largest request body: 1 MiB holds a raw transaction with the largest payload several times over;
 * names' `records[]` stay far below it. Raise with --max-body-bytes for bulk `sendRawTransaction`.
 */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** How long shutdown waits for in-flight requests before closing their connections anyway. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

export type TransportChoice = 'auto' | 'uws' | 'http';

export interface RpcServerOptions<Ctx> {
  methods: readonly MethodDef<Ctx>[];
  /** What handlers receive; a function is read per call (the node may be created after the server). */
  context: Ctx | (() => Ctx);
  log: Logger;
  host?: string;
  /** 0 picks a free port (see `port` after listen). */
  port?: number;
  auth?: AuthOptions;
  /** Foreign web origins (--rpc-cors) and host names (--rpc-vhost) allowed; src/rpc/origin.ts. */
  browser?: { cors?: readonly string[]; vhosts?: readonly string[] };
  /** Allow a non-loopback bind without users or an allow-list (DESIGN.md decision 8). */
  allowPublic?: boolean;
  maxBodyBytes?: number;
  transport?: TransportChoice;
  /** Readiness of the node for `GET /ready` (default: always ready). */
  ready?: () => boolean;
  /** Metrics observed by the dispatcher; served at `GET /metrics` when `serveMetrics` is true. */
  metrics?: NodeMetrics;
  serveMetrics?: boolean;
  drainTimeoutMs?: number;
  /** The node's event bus for `ws /events` (read per connection: the node may start after the server). */
  events?: () => NodeEventBus | undefined;
  /** Serve the web wallet at `GET /` and `GET /web/<file>` (off when absent; `--no-web`). */
  web?: WebOptions;
}

/** Thrown before listening when the options are unsafe or inconsistent. */
export class ServerConfigError extends Error {
  override name = 'ServerConfigError';
}

const JSON_OK_HEALTH = '{"status":"ok"}';

export class RpcServer<Ctx = unknown> {
  readonly dispatcher: Dispatcher<Ctx>;
  readonly transport: WsCapableTransport;
  /** `ws /events` subscribers, when the server serves the node's events. */
  readonly eventStream: EventStream | undefined;
  readonly host: string;
  private requestedPort: number;
  private boundPort = -1;
  private readonly access: AccessControl;
  private readonly guard: BrowserGuard;
  private readonly log: Logger;
  private readonly web: WebFiles | undefined;
  private draining = false;
  /** Paths of the WebSocket routes: a plain request there is answered 426 (src/rpc/events.ts). */
  private readonly wsPaths = new Set<string>();
  private closing: Promise<void> | null = null;

  constructor(private readonly opts: RpcServerOptions<Ctx>) {
    this.log = opts.log;
    this.host = opts.host ?? DEFAULT_RPC_HOST;
    this.requestedPort = opts.port ?? DEFAULT_RPC_PORT;
    this.access = new AccessControl(opts.auth);
    try {
      this.guard = new BrowserGuard({ ...opts.browser, listenHost: this.host });
    } catch (e) {
      throw new ServerConfigError((e as Error).message);
    }
    this.web = opts.web ? new WebFiles(opts.web) : undefined;
    if (this.web && this.web.missing.length > 0) this.log.warn({ missing: this.web.missing }, 'web wallet files missing; they are answered 404');
    if (!isLoopbackHost(this.host) && !this.access.restricted && !opts.allowPublic) {
      throw new ServerConfigError(
        `Refusing to serve RPC on ${this.host} without authentication: add --rpc-user user:password or --rpc-allow <CIDR>, ` +
          'or pass --rpc-public to accept every caller',
      );
    }
    const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) throw new ServerConfigError(`maxBodyBytes must be a positive integer, got ${maxBodyBytes}`);
    this.dispatcher = new Dispatcher({ methods: opts.methods, context: opts.context, log: opts.log, observe: opts.metrics?.observeCall });
    this.transport = this.createTransport(opts.transport ?? 'auto', { handler: this.httpHandler(), maxBodyBytes });
    if (this.transport.name === 'uws' && !isLoopbackHost(this.host)) {
      this.log.warn(
        { host: this.host, transport: 'uws', defects: UWS_FRAMING_DEFECTS },
        `--rpc-transport uws serves ${this.host}, a non-loopback address, with HTTP framing short of RFC 9112: ${UWS_FRAMING_DEFECTS.join('; ')}. ` +
          'Put it behind a proxy that normalises requests, or use the default transport (node:http)',
      );
    }
    if (opts.events) {
      this.eventStream = new EventStream({ bus: opts.events, log: opts.log.child({ module: 'events' }) });
      this.addWebSocketRoute(EVENTS_PATH, this.eventStream.route());
    }
    opts.metrics?.setInFlightSource(() => this.transport.inFlight);
    opts.metrics?.setTransport(this.transport.name);
  }

  /** Port the server listens on (the bound one after `listen`, useful with port 0). */
  get port(): number {
    return this.boundPort >= 0 ? this.boundPort : this.requestedPort;
  }

  get url(): string {
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `http://${host}:${this.port}`;
  }

  get transportName(): TransportName {
    return this.transport.name;
  }

  /**
   * Adds a WebSocket route on the RPC's port, behind the RPC's access control (allow-list, Basic
   * users) and refused while draining. Call before `listen`.
   */
  addWebSocketRoute(path: string, handler: WsRouteHandler): void {
    this.wsPaths.add(path);
    this.transport.addWebSocketRoute(path, {
      ...handler,
      upgrade: (head) => {
        if (this.draining) return jsonError(503, 'The node is shutting down');
        // WebSocket has no CORS: a page of any origin may open one, so the Origin is checked here.
        const verdict = this.guard.judge(head);
        if (!verdict.ok) return jsonError(403, verdict.message);
        if (this.access.restricted) {
          const decision = this.access.check(head.remoteAddress, head.authorization);
          if (decision === 'forbidden') return jsonError(403, `Address ${head.remoteAddress} is not allowed to call this node (--rpc-allow)`);
          if (decision === 'unauthorized') {
            return { ...jsonError(401, 'Authentication required: send HTTP Basic credentials of an --rpc-user'), headers: { 'WWW-Authenticate': 'Basic realm="dltnode", charset="UTF-8"' } };
          }
        }
        return handler.upgrade(head);
      },
    });
  }

  /** Binds; rejects with a ListenError whose message names the port when it is taken. */
  async listen(): Promise<string> {
    if (this.boundPort >= 0) throw new ServerConfigError(`The RPC server already listens on ${this.url}`);
    if (this.closing) throw new ServerConfigError('The RPC server was closed; create a new one');
    this.boundPort = await this.transport.listen(this.host, this.requestedPort);
    if (!isLoopbackHost(this.host) && !this.access.restricted) {
      this.log.warn({ host: this.host, port: this.boundPort }, 'RPC listens on a non-loopback address without authentication (--rpc-public)');
    }
    return this.url;
  }

  /**
   * Graceful close (P52): stop accepting, report not-ready, let in-flight requests finish (up to the
   * drain timeout), then close every connection. Safe to call twice (same promise).
   */
  close(): Promise<void> {
    this.closing ??= this.drain();
    return this.closing;
  }

  private async drain(): Promise<void> {
    this.draining = true;
    this.transport.stopAccepting();
    const timeoutMs = this.opts.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), timeoutMs);
    });
    const expired = await Promise.race([this.transport.idle().then(() => false), timedOut]);
    clearTimeout(timer);
    if (expired) this.log.warn({ inFlight: this.transport.inFlight, timeoutMs }, 'RPC drain timed out; closing connections with requests in flight');
    this.transport.closeConnections();
  }

  private createTransport(choice: TransportChoice, topts: ConstructorParameters<typeof NodeHttpTransport>[0]): WsCapableTransport {
    // node:http by default: the uWS build frames HTTP/1.1 short of RFC 9112 (no HTTP/1.0, duplicate
    // Content-Length honoured, silence on malformed request lines; issue 13, test/rpc/framing.test.ts).
    if (choice === 'http' || choice === 'auto') return new NodeHttpTransport(topts);
    const uws = loadUws();
    if (!(uws instanceof Error)) return new UwsTransport(uws, topts);
    throw new ServerConfigError(`uWebSockets.js does not load on this Node build: ${uws.message}`);
  }

  private httpHandler(): HttpHandler {
    return {
      needsRemoteAddress: this.access.restricted,
      head: (req) => {
        // Probes reveal only liveness and skip credentials already: any Host or Origin gets them
        // (a load balancer's health check may name the node by a host name).
        if (isProbe(req)) return this.judgeHead(req, undefined);
        const verdict = this.guard.judge(req);
        if (!verdict.ok) return jsonError(403, verdict.message);
        const reply = this.judgeHead(req, verdict.cors);
        return reply && verdict.cors ? withHeaders(reply, verdict.cors) : reply;
      },
      handle: (req, body, gone) => {
        const reply = this.handle(req, body, gone);
        // Only a request with an allowed foreign Origin gets here with CORS headers to add.
        const verdict = req.origin === '' ? undefined : this.guard.judge(req);
        const cors = verdict?.ok ? verdict.cors : undefined;
        if (!cors) return reply;
        return reply instanceof Promise ? reply.then((r) => withHeaders(r, cors)) : withHeaders(reply, cors);
      },
      tooLarge: (max) => ({
        status: 413,
        body: errorBody({ code: RpcCode.InvalidRequest, message: `Request body exceeds the limit of ${max} bytes (--max-body-bytes)` }, null),
      }),
    };
  }

  /** Synchronous checks before any body is read: access control, verbs, probes. */
  private judgeHead(req: HttpRequestHead, cors: Record<string, string> | undefined): HttpReply | undefined {
    // HEAD is GET without the body (RFC 9110 §9.3.2) on the read-only endpoints; the transports leave the body out.
    const getLike = req.method === 'GET' || req.method === 'HEAD';
    const probe = isProbe(req);
    const metrics = this.servesMetrics(req.path);
    // The CORS preflight of an allowed foreign origin carries no credentials (Fetch standard): it is
    // answered before them, behind the address allow-list. Without CORS it stays a 405 below.
    if (req.method === 'OPTIONS' && cors) {
      if (this.access.restricted && this.access.check(req.remoteAddress, '') === 'forbidden') {
        return jsonError(403, `Address ${req.remoteAddress} is not allowed to call this node (--rpc-allow)`);
      }
      return { status: 204, body: '', headers: BrowserGuard.preflightHeaders(cors) };
    }
    if (this.access.restricted) {
      const decision = this.access.check(req.remoteAddress, probe ? '' : req.authorization);
      if (decision === 'forbidden') {
        return jsonError(403, `Address ${req.remoteAddress} is not allowed to call this node (--rpc-allow)`);
      }
      // Probes carry no credentials (load balancers); they reveal nothing but liveness.
      if (decision === 'unauthorized' && !probe) {
        return { ...jsonError(401, 'Authentication required: send HTTP Basic credentials of an --rpc-user'), headers: { 'WWW-Authenticate': 'Basic realm="dltnode", charset="UTF-8"' } };
      }
    }
    if (metrics && !getLike) {
      return { ...jsonError(405, metricsMethodRefusal(req.method)), headers: { Allow: METRICS_METHODS } };
    }
    if (req.method !== 'GET' && req.method !== 'POST' && !((probe || metrics) && req.method === 'HEAD')) {
      return { ...jsonError(405, `HTTP method ${req.method} is not supported; use GET or POST`), headers: { Allow: 'GET, POST' } };
    }
    // The web wallet's files: GET only (a POST / stays an RPC call), after access control.
    if (this.web && req.method === 'GET' && WebFiles.handles(req.path)) return this.web.reply(req.path);
    // A WebSocket route reached without the upgrade (a plain fetch, a proxy that drops the Upgrade
    // header) is no operation: say what the path is rather than 'Unknown operation'.
    if (this.wsPaths.has(req.path)) {
      return {
        ...jsonError(426, `${req.path} is a WebSocket route: connect to it with a WebSocket client (ws://host:port${req.path}), not a plain HTTP ${req.method}`),
        headers: { Upgrade: 'websocket' },
      };
    }
    if (probe) {
      if (req.path === '/health') return { status: 200, body: JSON_OK_HEALTH };
      const ready = !this.draining && (this.opts.ready?.() ?? true);
      return ready ? { status: 200, body: '{"status":"ready"}' } : { status: 503, body: `{"status":"${this.draining ? 'draining' : 'starting'}"}` };
    }
    return undefined;
  }

  /** `/metrics` on this port (`--metrics` without `--metrics-port`). */
  private servesMetrics(path: string): boolean {
    return path === '/metrics' && this.opts.serveMetrics === true && this.opts.metrics !== undefined;
  }

  private handle(req: HttpRequestHead, body: Buffer | null, gone: () => boolean): RpcReply | Promise<HttpReply> {
    if (this.servesMetrics(req.path)) {
      const metrics = this.opts.metrics!;
      return metrics.render().then(
        (text) => ({ status: 200, body: text, contentType: metrics.contentType }),
        (e: unknown) => {
          this.log.error({ err: e }, 'metrics rendering failed');
          return { status: 500, body: '' };
        },
      );
    }
    let call: RpcRequest;
    try {
      const operation = operationFromPath(req.path);
      call = body === null || isBlank(body) ? requestFromQuery(operation, req.query, req.method === 'POST' ? 'POST' : 'GET') : requestFromBody(operation, body.toString('utf8'));
    } catch (e) {
      if (e instanceof EnvelopeError) return rpcErrorReply(e, e.id);
      if (e instanceof RpcError) return rpcErrorReply(e, null);
      this.log.error({ err: e }, 'envelope parsing failed');
      return { status: 200, body: errorBody({ code: RpcCode.InternalError, message: 'Internal error while reading the request' }, null) };
    }
    if (call.method.length === 0) {
      return rpcErrorReply(new RpcError(RpcCode.InvalidRequest, 'Invalid request: name the operation in the path (GET /status) or the body ("method")'), call.id);
    }
    return this.dispatcher.dispatch(call, gone);
  }
}

/** `GET|HEAD /health` and `/ready`: liveness and readiness, nothing else. */
function isProbe(req: HttpRequestHead): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && (req.path === '/health' || req.path === '/ready');
}

function withHeaders(reply: HttpReply, headers: Record<string, string>): HttpReply {
  return { ...reply, headers: { ...reply.headers, ...headers } };
}

function jsonError(status: number, message: string): HttpReply {
  return { status, body: errorBody({ code: RpcCode.InvalidRequest, message }, null) };
}

/** An empty or whitespace-only body means URL mode (reference-rpc-messaging.md §1.2). */
function isBlank(body: Buffer): boolean {
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return false;
  }
  return true;
}

/** Creates a server (does not listen yet). */
export function createRpcServer<Ctx>(opts: RpcServerOptions<Ctx>): RpcServer<Ctx> {
  return new RpcServer(opts);
}
