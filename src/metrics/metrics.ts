/**
 * Prometheus metrics of the node (practice P49): prom-client's default Node collectors (event-loop
 * lag, GC, heap) and our own, all prefixed `dltnode_` with unit suffixes. One registry per node so
 * tests and several servers in one process never collide.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CallObserver } from '../rpc/dispatch.js';
import { NODE_TYPE_LIST } from '../network/protocol/messages.js';

export const METRIC_PREFIX = 'dltnode_';

/** The verbs `/metrics` answers (the `Allow` header of its 405). */
export const METRICS_METHODS = 'GET, HEAD';

/** The 405 text for another verb on `/metrics`, on the RPC port and on --metrics-port alike. */
export const metricsMethodRefusal = (method: string | undefined): string => `HTTP method ${method} is not supported on /metrics; use GET`;

/**
 * Buckets of the RPC duration histogram, in seconds: from 50 µs (a cached read on uWS) to 10 s
 * (a PoW verification queued behind a full pool). Revisit when p99 of `status` leaves the low buckets.
 */
export const RPC_DURATION_BUCKETS_SECONDS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

/** Label used for calls to operations the table does not have (bounded cardinality). */
const UNKNOWN_METHOD = 'unknown';

export interface NodeMetrics {
  readonly registry: Registry;
  /** Plugs into the RPC dispatcher. */
  readonly observeCall: CallObserver;
  /** Reads the block height and pending pool size at scrape time (null: not known yet, 0). */
  setChainSource(read: () => ChainMetricsSnapshot | null | Promise<ChainMetricsSnapshot | null>): void;
  /** Reads the number of in-flight RPC requests at scrape time. */
  setInFlightSource(read: () => number): void;
  /** Reads the messaging counters at scrape time (client nodes; issue 11). */
  setMessagingSource(read: () => MessagingCounters | null): void;
  /** Labels the `dltnode_info` gauge with the transport in use (known once the server exists). */
  setTransport(name: string): void;
  /** Reads the peer network's counters at scrape time (a node on a network). */
  setNetworkSource(read: () => NetworkMetricsSnapshot | null): void;
  /** Text exposition format for `GET /metrics`. */
  render(): Promise<string>;
  readonly contentType: string;
}

/** The chain's figures in the metrics (read at scrape time). */
export interface ChainMetricsSnapshot {
  height: number;
  pending: number;
  /** Reads of a stored block refused as damaged since start (src/chain/chain.ts servedBlock). */
  damagedBlockReads?: number;
}

/** What the peer network reports to the metrics (read at scrape time). */
export interface NetworkMetricsSnapshot {
  /** Open links by peer type (M, R, C, …). */
  peersByType: Record<string, number>;
  /** Frames received and sent since start, by message name. */
  framesIn: Record<string, number>;
  framesOut: Record<string, number>;
  /** Gossip dedup hits: transactions announced or sent again, blocks announced again or held. */
  dedupHits: number;
  /** Pushed transactions not taken because too many waited for admission (since start). */
  admissionRefused: number;
  /** Transactions from peers waiting for admission now. */
  admissionWaiting: number;
  /**
   * Light-client questions since start (src/network/light-queries.ts): answered here, passed on to
   * a master, asked by this node, left unanswered, dropped past the asking link's budget, and
   * answers refused because they were read on another chain.
   */
  lightQuestions: { served: number; proxied: number; asked: number; unanswered: number; dropped: number; offChain: number };
  /** Network height − our tip. */
  syncLagBlocks: number;
  /** 1 while the chain is on a fork deeper than the node can revert (block-sync.ts `deepFork`), else 0. */
  syncDeepFork: number;
  /** Bytes queued for peers (our queues and the sockets' buffers). */
  sendQueueBytes: number;
}

/** Totals since start of the messaging service and its message-queue bridge. */
export interface MessagingCounters {
  received: number;
  dropped: number;
  sent: number;
  expired: number;
  mqPublished: number;
  mqDropped: number;
}

export interface MetricsOptions {
  version: string;
  wasmFlavour: string;
  /** Collect prom-client's default process metrics (default true). */
  defaultCollectors?: boolean;
}

export function createMetrics(opts: MetricsOptions): NodeMetrics {
  const registry = new Registry();
  if (opts.defaultCollectors !== false) collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  const info = new Gauge({
    name: `${METRIC_PREFIX}info`,
    help: 'Constant 1, labelled with the node version, the RPC transport and the WASM build flavour',
    labelNames: ['version', 'transport', 'wasm'],
    registers: [registry],
  });
  const requests = new Counter({
    name: `${METRIC_PREFIX}rpc_requests_total`,
    help: 'RPC calls answered, by operation and outcome (ok, error = RPC error, internal = handler failure)',
    labelNames: ['method', 'outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: `${METRIC_PREFIX}rpc_request_duration_seconds`,
    help: 'Time from dispatch to the serialised result, by operation',
    labelNames: ['method'],
    buckets: RPC_DURATION_BUCKETS_SECONDS,
    registers: [registry],
  });
  let readInFlight: () => number = () => 0;
  new Gauge({
    name: `${METRIC_PREFIX}rpc_in_flight_requests`,
    help: 'RPC requests accepted and not yet answered',
    registers: [registry],
    collect() {
      this.set(readInFlight());
    },
  });
  let readMessaging: () => MessagingCounters | null = () => null;
  sourcedCounter(registry, 'messaging_stream_messages_total', 'Stream messages of the messaging service since start: received (authenticated), dropped (failed authentication or decoding), sent, expired (5 days in the outbox)', ['outcome'], () => {
    const c = readMessaging();
    return c ? [[{ outcome: 'received' }, c.received], [{ outcome: 'dropped' }, c.dropped], [{ outcome: 'sent' }, c.sent], [{ outcome: 'expired' }, c.expired]] : [];
  });
  sourcedCounter(registry, 'mq_events_total', 'Events of the message-queue bridge since start: published, dropped (broker unavailable)', ['outcome'], () => {
    const c = readMessaging();
    return c ? [[{ outcome: 'published' }, c.mqPublished], [{ outcome: 'dropped' }, c.mqDropped]] : [];
  });
  // Read when scraped: a value kept by the status line was up to --status-interval old, and
  // stayed 0 with --status-interval 0.
  let readChain: () => ChainMetricsSnapshot | null | Promise<ChainMetricsSnapshot | null> = () => null;
  let chainRead: Promise<ChainMetricsSnapshot | null> | null = null;
  /** One read per scrape, shared by the chain's figures (the first collector starts it). */
  const chainNow = (): Promise<ChainMetricsSnapshot | null> => {
    if (!chainRead) {
      chainRead = Promise.resolve()
        .then(readChain)
        .catch(() => null);
      void chainRead.finally(() => setImmediate(() => (chainRead = null)));
    }
    return chainRead;
  };
  const chainGauge = (name: string, help: string, figure: keyof ChainMetricsSnapshot): void => {
    new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      registers: [registry],
      async collect() {
        this.set((await chainNow())?.[figure] ?? 0);
      },
    });
  };
  chainGauge('block_height', 'Height of the latest local block', 'height');
  chainGauge('pending_transactions', 'Transactions in the pending pool', 'pending');
  new Counter({
    name: `${METRIC_PREFIX}store_damaged_block_reads_total`,
    help: 'Reads of a stored block refused since start because it no longer hashes to what the chain names for it (not served to peers or RPC)',
    registers: [registry],
    async collect() {
      this.reset();
      this.inc((await chainNow())?.damagedBlockReads ?? 0);
    },
  });
  let readNetwork: () => NetworkMetricsSnapshot | null = () => null;
  let snapshot: NetworkMetricsSnapshot | null = null;
  const network = (): NetworkMetricsSnapshot | null => snapshot;
  new Gauge({
    name: `${METRIC_PREFIX}peers`,
    help: 'Open peer links by peer type (M master, H full history, W worker, R relay, C client)',
    labelNames: ['type'],
    registers: [registry],
    collect() {
      // The first collector of a scrape takes the snapshot the others read.
      snapshot = readNetwork();
      this.reset();
      // Every type, 0 when none is linked: an alert on `dltnode_peers{type="M"} == 0` needs the series.
      const byType = network()?.peersByType ?? {};
      for (const type of NODE_TYPE_LIST) this.set({ type }, byType[type] ?? 0);
      for (const [type, n] of Object.entries(byType)) if (!(NODE_TYPE_LIST as readonly string[]).includes(type)) this.set({ type }, n);
    },
  });
  sourcedCounter(registry, 'p2p_frames_total', 'Peer frames since start, by direction (in, out) and message', ['direction', 'message'], () => {
    const n = network();
    return [
      ...Object.entries(n?.framesIn ?? {}).map(([message, v]): Sourced => [{ direction: 'in', message }, v]),
      ...Object.entries(n?.framesOut ?? {}).map(([message, v]): Sourced => [{ direction: 'out', message }, v]),
    ];
  });
  sourcedCounter(registry, 'light_questions_total', 'Light-client questions since start, by outcome (served, proxied, asked, unanswered, dropped past the budget, answers from another chain refused)', ['outcome'], () =>
    Object.entries(network()?.lightQuestions ?? {}).map(([outcome, v]): Sourced => [{ outcome }, v]),
  );
  // Totals since start: counters (0 without a network).
  const networkTotals: [name: string, help: string, read: (n: NetworkMetricsSnapshot) => number][] = [
    ['gossip_dedup_hits_total', 'Announcements or copies of a transaction already seen or being pulled, and announcements of a block held or already announced (since start)', (n) => n.dedupHits],
    ['gossip_admission_refused_total', 'Transactions from peers not taken because too many waited for admission (since start)', (n) => n.admissionRefused],
  ];
  for (const [name, help, read] of networkTotals) {
    sourcedCounter(registry, name, help, [], () => {
      const n = network();
      return [[{}, n ? read(n) : 0]];
    });
  }
  // Figures of now: gauges (0 without a network).
  const networkNumbers: [name: string, help: string, read: (n: NetworkMetricsSnapshot) => number][] = [
    ['gossip_admission_waiting', 'Transactions from peers waiting for admission', (n) => n.admissionWaiting],
    ['sync_lag_blocks', 'Network height minus the local tip', (n) => n.syncLagBlocks],
    ['sync_deep_fork', '1 while this chain is on a fork deeper than the node can revert (see the error log), else 0', (n) => n.syncDeepFork],
    ['p2p_send_queue_bytes', 'Bytes queued for peers', (n) => n.sendQueueBytes],
  ];
  for (const [name, help, read] of networkNumbers) {
    new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      registers: [registry],
      collect() {
        const n = network();
        this.set(n ? read(n) : 0);
      },
    });
  }
  const scrape = new Histogram({
    name: `${METRIC_PREFIX}metrics_scrape_duration_seconds`,
    help: 'Time to render the metrics exposition',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5],
    registers: [registry],
  });

  // Children cached per label set: labels() hashes its arguments on every call otherwise.
  const counterChildren = new Map<string, { inc(): void }>();
  const durationChildren = new Map<string, { observe(v: number): void }>();
  const observeCall: CallObserver = (method, outcome, seconds) => {
    const m = method ?? UNKNOWN_METHOD;
    const key = `${m}\u0000${outcome}`;
    let c = counterChildren.get(key);
    if (!c) counterChildren.set(key, (c = requests.labels(m, outcome)));
    c.inc();
    if (method === null) return;
    let h = durationChildren.get(method);
    if (!h) durationChildren.set(method, (h = duration.labels(method)));
    h.observe(seconds);
  };

  return {
    registry,
    observeCall,
    contentType: registry.contentType,
    setTransport(name) {
      info.reset();
      info.set({ version: opts.version, transport: name, wasm: opts.wasmFlavour }, 1);
    },
    setChainSource(read) {
      readChain = read;
    },
    setInFlightSource(read) {
      readInFlight = read;
    },
    setNetworkSource(read) {
      readNetwork = read;
    },
    setMessagingSource(read) {
      readMessaging = read;
    },
    async render() {
      const end = scrape.startTimer();
      try {
        return await registry.metrics();
      } finally {
        end();
      }
    },
  };
}

/** One series of a counter kept elsewhere: its labels and its total. */
type Sourced = [labels: Record<string, string>, total: number];

/**
 * A counter whose totals the node keeps elsewhere (read at scrape time): typed `counter` and named
 * `*_total` so rate() and counter-reset handling apply (exposition format 0.0.4), not a gauge.
 */
function sourcedCounter(registry: Registry, name: string, help: string, labelNames: string[], read: () => Sourced[]): void {
  new Counter({
    name: `${METRIC_PREFIX}${name}`,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const [labels, total] of read()) this.inc(labels, total);
    },
  });
}
