/**
 * `dltnode start`: logger, RPC server, node, status line, and the shutdown sequence of practice
 * P52 — first SIGINT/SIGTERM drains (stop accepting → finish in-flight RPC → node.close(), which
 * finishes the block being written, stops the workers and closes LMDB), a second one forces exit;
 * a signal during startup is honoured once startup completes.
 */
import type { EventEmitter } from 'node:events';
import { toNodeOptions } from '../config/load.js';
import { PACKAGE_VERSION } from '../version.js';
import { ConfigError, type DltnodeConfig } from '../config/options.js';
import { coreFlavour } from '../core/wasm.js';
import { createLogger, type NodeLogger } from '../log/logger.js';
import { createMetrics, type MessagingCounters, type NetworkMetricsSnapshot } from '../metrics/metrics.js';
import { startMetricsServer, type MetricsServer } from '../metrics/server.js';
import { validateParams } from '../rpc/dispatch.js';
import { createRpcServer, ServerConfigError, type RpcServer } from '../rpc/server.js';
import { RpcCode, RpcError, type MethodDef } from '../rpc/types.js';
import type { Logger } from '../log/logger.js';
import type { NodeOptions } from '../node/options.js';
import type { NodeEventBus } from '../node/events.js';

/** What `start` needs of the node core (src/node/node.ts). */
export interface StartableNode<Ctx> {
  /** What the RPC handlers receive (the node's modules). */
  modules: Ctx;
  ready: boolean;
  close(): Promise<void>;
  /** The peer network's counters for the metrics. */
  networkMetrics?(): NetworkMetricsSnapshot | null;
  /** The node's event bus, streamed on `ws /events`. */
  events?: NodeEventBus;
  /** Messaging counters for the metrics (client nodes), null without the service. */
  messagingCounters?(): MessagingCounters | null;
  /** Height, pending pool and DLT status for the status line, read from the modules (src/node). */
  summary?(): { height: number; pending: number; dltStatus: string; damagedBlockReads?: number };
}

export interface StartDeps<Ctx> {
  createNode(options: NodeOptions, log: Logger): Promise<StartableNode<Ctx>>;
  methods: readonly MethodDef<Ctx>[];
  /**
   * Source of SIGINT/SIGTERM and of `disconnect`, the IPC channel to a parent that spawned the
   * node with one (`dltnode devnet`) closing (default: process).
   */
  signals?: EventEmitter;
  /** The log's stream, whose `error` (EPIPE: its reader is gone) stops the node (default: process.stdout). */
  output?: EventEmitter;
  /** Forced exit on a second signal (default: process.exit). */
  exit?: (code: number) => void;
  /** Logger override (tests). */
  log?: NodeLogger;
  /** Clock in ms (default Date.now), for telling a repeated signal from a second one. */
  now?: () => number;
  /** Options given that take no effect (`ResolvedConfig.unused`), logged as warnings at start. */
  unused?: readonly string[];
}

/** Exit code of a run stopped by a second signal (128 + SIGINT). */
export const FORCED_EXIT_CODE = 130;
/**
 * The same signal again within this many ms is the same stop request, not a second one: `timeout`
 * and supervisors that signal both the process and its group deliver it twice at once.
 */
export const REPEATED_SIGNAL_MS = 500;

export interface RunningNode {
  /** Resolves with the exit code once the node has stopped. */
  stopped: Promise<number>;
  /** The RPC URL. */
  url: string;
  /** Starts the graceful shutdown (as a signal would). */
  shutdown(reason: string): Promise<number>;
}

/**
 * Starts everything; resolves once the node serves requests. Startup failures (port in use, LMDB
 * cannot open) reject after whatever was started has been closed again.
 */
export async function runStart<Ctx>(config: DltnodeConfig, deps: StartDeps<Ctx>): Promise<RunningNode> {
  const log = deps.log ?? createLogger({ level: config.logLevel, format: config.logFormat });
  const signals = deps.signals ?? process;
  const exit = deps.exit ?? ((code: number) => process.exit(code));
  const metrics = createMetrics({ version: PACKAGE_VERSION, wasmFlavour: coreFlavour() });
  const metricsWanted = config.metrics || config.metricsPort !== undefined;

  let node: StartableNode<Ctx> | undefined;
  let state: 'starting' | 'running' | 'stopping' = 'starting';
  let pendingSignal: string | undefined;
  let shutdownPromise: Promise<number> | undefined;
  let statusTimer: NodeJS.Timeout | undefined;
  let metricsServer: MetricsServer | undefined;
  let resolveStopped!: (code: number) => void;
  const stopped = new Promise<number>((r) => (resolveStopped = r));

  const server: RpcServer<Ctx> = asConfigError(() => createRpcServer<Ctx>({
    methods: deps.methods,
    context: () => {
      if (!node) throw new RpcError(RpcCode.ServerBusy, 'The node is starting; retry when GET /ready answers 200');
      return node.modules;
    },
    log: log.child({ module: 'rpc' }),
    host: config.rpcHost,
    port: config.rpcPort,
    auth: { users: config.rpcUser, allow: config.rpcAllow },
    browser: { cors: config.rpcCors, vhosts: config.rpcVhost },
    allowPublic: config.rpcPublic,
    maxBodyBytes: config.maxBodyBytes,
    transport: config.rpcTransport,
    ready: () => state === 'running' && node?.ready === true,
    // Per-call observation costs ~20% of a small call's JS time (prom-client label lookups and
    // histogram buckets): observe only when someone can scrape the metrics.
    metrics: metricsWanted ? metrics : undefined,
    serveMetrics: config.metrics && config.metricsPort === undefined,
    drainTimeoutMs: config.shutdownTimeout * 1000,
    events: () => node?.events,
    web: config.noWeb ? undefined : {},
  }));

  const shutdown = (reason: string): Promise<number> => {
    if (shutdownPromise) return shutdownPromise;
    state = 'stopping';
    log.info({ reason }, 'shutting down: draining RPC requests, then closing the node');
    shutdownPromise = (async () => {
      let code = 0;
      clearInterval(statusTimer);
      for (const [what, step] of [
        ['rpc server', () => server.close()],
        ['metrics server', () => metricsServer?.close()],
        ['node', () => node?.close()],
      ] as const) {
        try {
          await step();
        } catch (e) {
          code = 1;
          log.error({ err: e, component: what }, 'error while shutting down');
        }
      }
      removeSignalHandlers();
      log.info({ exitCode: code }, 'stopped');
      log.flush();
      resolveStopped(code);
      return code;
    })();
    return shutdownPromise;
  };

  const now = deps.now ?? Date.now;
  let lastSignal: { signal: string; at: number } | null = null;
  const onSignal = (signal: string): void => {
    const at = now();
    const repeated = lastSignal !== null && lastSignal.signal === signal && at - lastSignal.at < REPEATED_SIGNAL_MS;
    lastSignal = { signal, at };
    if (repeated) {
      log.debug({ signal }, 'the same signal again at once (to the process and its group): one stop request');
      return;
    }
    if (state === 'stopping') {
      log.warn({ signal }, 'second signal: exiting without finishing the shutdown');
      log.flush();
      exit(FORCED_EXIT_CODE);
      return;
    }
    if (state === 'starting') {
      if (pendingSignal) {
        log.warn({ signal }, 'second signal during startup: exiting now');
        log.flush();
        exit(FORCED_EXIT_CODE);
        return;
      }
      pendingSignal = signal;
      log.info({ signal }, 'signal received during startup; shutting down once startup completes');
      return;
    }
    void shutdown(signal);
  };
  // A stop that no operator asked for twice: during a shutdown it is no second signal.
  const requestStop = (reason: string): void => {
    if (state === 'starting') pendingSignal ??= reason;
    else if (state === 'running') void shutdown(reason);
  };
  const handlers = { SIGINT: () => onSignal('SIGINT'), SIGTERM: () => onSignal('SIGTERM'), disconnect: () => requestStop('parent exited') };
  signals.on('SIGINT', handlers.SIGINT);
  signals.on('SIGTERM', handlers.SIGTERM);
  // A devnet's nodes run detached, each in its own session: when the devnet dies, even by SIGKILL,
  // their IPC channel to it closes, and that stops them instead of leaving them running as orphans.
  signals.on('disconnect', handlers.disconnect);
  if (signals === process) process.channel?.unref();
  // The log's reader gone (the devnet killed, `start | head`): an unhandled EPIPE would crash the
  // node at its next log line, mid-work; it stops gracefully instead, its last lines dropped.
  const output = deps.output ?? (deps.log ? undefined : process.stdout);
  const onOutputError = (err: NodeJS.ErrnoException): void => requestStop(err.code ?? 'output error');
  output?.on('error', onOutputError);
  const removeSignalHandlers = (): void => {
    signals.off('SIGINT', handlers.SIGINT);
    signals.off('SIGTERM', handlers.SIGTERM);
    signals.off('disconnect', handlers.disconnect);
  };

  try {
    // Listen first: a taken port fails fast, before LMDB is opened, and probes answer during startup.
    const url = await server.listen();
    log.info({ network: config.network, dataDir: config.dataDir, transport: server.transportName }, 'starting node');
    for (const note of deps.unused ?? []) log.warn(note);
    node = await deps.createNode(toNodeOptions(config), log);
    const started = node;
    if (started.networkMetrics) metrics.setNetworkSource(() => started.networkMetrics!());
    metrics.setMessagingSource(() => started.messagingCounters?.() ?? null);
    metrics.setChainSource(() => chainSummary(started, deps.methods));
    if (config.metricsPort !== undefined) metricsServer = await startMetricsServer(metrics, '127.0.0.1', config.metricsPort, { vhosts: config.rpcVhost });
    state = 'running';
    log.info({ url, transport: server.transportName, metrics: metricsServer?.url ?? (config.metrics ? `${url}/metrics` : undefined) }, `RPC listening on ${url}`);
    if (config.statusInterval > 0) statusTimer = startStatusLine(config.statusInterval, server, deps.methods, () => node, log);
    if (pendingSignal) void shutdown(pendingSignal);
    return { stopped, url, shutdown };
  } catch (e) {
    state = 'stopping';
    await server.close().catch(() => undefined);
    await metricsServer?.close().catch(() => undefined);
    await node?.close().catch(() => undefined);
    removeSignalHandlers();
    throw e;
  }
}

/**
 * A server refusing its options (a public bind without authentication) is a configuration error:
 * the CLI exits with its usage code (2), as for any invalid option, not 1 as for a runtime failure.
 */
function asConfigError<T>(create: () => T): T {
  try {
    return create();
  } catch (e) {
    if (e instanceof ServerConfigError) throw new ConfigError(e.message);
    throw e;
  }
}

/**
 * Block height, pending pool and DLT status of a running node, for the status line and the metrics:
 * the node's `summary`, or (a node without one) its `status` operation.
 */
async function chainSummary<Ctx>(node: StartableNode<Ctx>, methods: readonly MethodDef<Ctx>[]): Promise<{ height: number; pending: number; dltStatus?: unknown; damagedBlockReads?: number } | null> {
  if (node.summary) return node.summary();
  const status = methods.find((m) => m.name.toLowerCase() === 'status');
  if (!status) return null;
  const s = (await status.handler(validateParams(status, { verbose: true }), node.modules)) as Record<string, unknown>;
  return { height: Number(s['Block Height']), pending: Number(s['Unapplied TX Count'] ?? 0), dltStatus: s['DLT Status'] };
}

/**
 * One info line every `seconds` (practice P50): block height, pending pool and DLT status read from
 * the node's modules (`summary`; a node without one is asked through its `status` operation), RPC
 * requests per second from the dispatcher.
 */
function startStatusLine<Ctx>(
  seconds: number,
  server: RpcServer<Ctx>,
  methods: readonly MethodDef<Ctx>[],
  running: () => StartableNode<Ctx> | undefined,
  log: Logger,
): NodeJS.Timeout {
  let lastCalls = server.dispatcher.calls;
  let lastAt = performance.now();
  const timer = setInterval(async () => {
    const now = performance.now();
    const calls = server.dispatcher.calls;
    const rpcPerSecond = Math.round(((calls - lastCalls) * 1000) / (now - lastAt));
    lastCalls = calls;
    lastAt = now;
    const line: Record<string, unknown> = { rpcPerSecond, rpcInFlight: server.transport.inFlight };
    const node = running();
    try {
      if (node) Object.assign(line, await chainSummary(node, methods));
    } catch (e) {
      line.statusError = (e as Error).message;
    }
    log.info(line, 'status');
  }, seconds * 1000);
  timer.unref();
  return timer;
}
