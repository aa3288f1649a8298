/**
 * The node's event stream on the RPC listener (DESIGN.md decision 9): `ws://host:port/events`.
 * A client picks topics in the URL (`/events?topics=blocks,transactions`) or with JSON messages
 * (`{"op":"subscribe","topics":["blocks"]}`, `{"op":"unsubscribe",…}`), and receives each event as
 * one JSON text message `{"topic","event","data"}`. Each event is serialised once, whatever the
 * number of subscribers. A subscriber that does not read is disconnected (1013) once its backlog
 * passes the bound, so it never grows the node's memory. Authentication and the allow-list are the
 * RPC's (the server applies them to the upgrade).
 */
import { toStringForm } from '../chain/tx-json.js';
import { formatAmount } from '../formats/amount.js';
import { toHex } from '../formats/bytes.js';
import type { Logger } from '../log/logger.js';
import type { NodeEventBus, NodeEvents } from '../node/events.js';
import type { HttpReply, HttpRequestHead, WsConnection, WsRouteHandler } from './transport-api.js';

export const EVENTS_PATH = '/events';

/** Topics and the node events each carries, with the JSON each event becomes. */
const TOPICS = {
  blocks: {
    blockImported: (e: NodeEvents['blockImported']) => ({
      num: Number(e.block.num),
      checksum: toHex(e.checksum),
      version: e.block.version,
      timestamp: Number(e.block.timestamp),
      transactions: e.block.txIds.length,
      signatures: e.block.signatures.length,
      // A CoinNumber string, as getBlock's 'Total fees' and every amount of the RPC (interface.md).
      totalFee: formatAmount(e.block.totalFee),
      source: e.source,
    }),
    blockSignaturesAdded: (e: NodeEvents['blockSignaturesAdded']) => ({ num: Number(e.num), added: e.added.length }),
    // Relays and clients follow headers only: each header taken, with what its header says of the block.
    headerImported: ({ header: h }: NodeEvents['headerImported']) => ({
      num: Number(h.num),
      checksum: toHex(h.checksum),
      version: h.block.version,
      timestamp: Number(h.block.timestamp),
      transactions: h.txCount,
      totalFee: formatAmount(h.block.totalFee),
    }),
  },
  transactions: {
    txAdmitted: (e: NodeEvents['txAdmitted']) => ({ source: e.source === 'rpc' ? 'rpc' : 'peer', transactions: e.txs.map(toStringForm) }),
    txApplied: (e: NodeEvents['txApplied']) => ({ height: Number(e.height), ids: e.txs.map((k) => k.textId) }),
    txDropped: (e: NodeEvents['txDropped']) => ({ reason: e.reason, ids: e.txs.map((k) => k.textId) }),
  },
  /** Contact messaging (issue 11): each event carries the decrypted message (QuIXI's shape B object). */
  contacts: {
    contactRequest: (e: NodeEvents['contactRequest']) => e,
    contactAccepted: (e: NodeEvents['contactAccepted']) => e,
  },
  chat: { chatMessage: (e: NodeEvents['chatMessage']) => e },
  receipts: { messageReceipt: (e: NodeEvents['messageReceipt']) => e },
  appData: { appData: (e: NodeEvents['appData']) => e, spixiMessage: (e: NodeEvents['spixiMessage']) => e },
  appProtocolData: { appProtocolData: (e: NodeEvents['appProtocolData']) => e },
} as const;

export type EventTopic = keyof typeof TOPICS;
export const EVENT_TOPICS = Object.keys(TOPICS) as EventTopic[];
/** The event names each topic carries (the README's topic table lists them). */
export const TOPIC_EVENTS = Object.fromEntries(EVENT_TOPICS.map((t) => [t, Object.keys(TOPICS[t])])) as Record<EventTopic, string[]>;

/** Largest unsent backlog of one subscriber: a few large blocks' worth of transaction events. */
export const EVENTS_MAX_BACKLOG_BYTES = 16 * 1024 * 1024;
/** Subscription messages are tiny; anything larger is not one. */
const MAX_CLIENT_MESSAGE_BYTES = 4096;
/** Close code for a subscriber that does not keep up (RFC 6455 1013: try again later). */
export const SLOW_SUBSCRIBER_CLOSE = 1013;

interface Subscriber {
  conn: WsConnection;
  topics: Set<EventTopic>;
}

export interface EventStreamOptions {
  /** The node's bus, or undefined while the node starts (subscriptions are refused then). */
  bus: () => NodeEventBus | undefined;
  log: Logger;
  maxBacklogBytes?: number;
}

/** Parses a comma-separated topic list; throws with the known topics named. */
function parseTopics(list: readonly string[]): EventTopic[] {
  const out: EventTopic[] = [];
  for (const raw of list) {
    const t = raw.trim();
    if (t === '') continue;
    // Own keys only: `in` also found Object.prototype's (constructor, toString, __proto__…).
    if (!Object.hasOwn(TOPICS, t)) throw new Error(`Unknown topic ${JSON.stringify(t)}; topics are ${EVENT_TOPICS.join(', ')}`);
    out.push(t as EventTopic);
  }
  return out;
}

export class EventStream {
  private readonly subscribers = new Map<number, Subscriber>();
  private attachedTo: NodeEventBus | undefined;
  private readonly maxBacklog: number;

  constructor(private readonly opts: EventStreamOptions) {
    this.maxBacklog = opts.maxBacklogBytes ?? EVENTS_MAX_BACKLOG_BYTES;
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /** The route handler; `upgrade` is wrapped by the server with its access control. */
  route(): WsRouteHandler {
    return {
      maxPayloadBytes: MAX_CLIENT_MESSAGE_BYTES,
      maxBackpressureBytes: this.maxBacklog,
      idleTimeoutSeconds: 0,
      upgrade: (head) => this.judge(head),
      open: (conn, head) => this.open(conn, head),
      message: (conn, data, isBinary) => this.message(conn, data, isBinary),
      close: (conn) => {
        this.subscribers.delete(conn.id);
      },
    };
  }

  private judge(head: HttpRequestHead): HttpReply | undefined {
    if (!this.opts.bus()) return { status: 503, body: '{"error":"the node is starting; retry when GET /ready answers 200"}' };
    try {
      parseTopics(new URLSearchParams(head.query).getAll('topics').flatMap((v) => v.split(',')));
    } catch (err) {
      return { status: 400, body: JSON.stringify({ error: (err as Error).message }) };
    }
    return undefined;
  }

  private open(conn: WsConnection, head: HttpRequestHead): void {
    this.attach();
    const topics = parseTopics(new URLSearchParams(head.query).getAll('topics').flatMap((v) => v.split(',')));
    const set = new Set(topics);
    this.subscribers.set(conn.id, { conn, topics: set });
    conn.send(JSON.stringify({ op: 'subscribed', topics: [...set] }));
  }

  private message(conn: WsConnection, data: Uint8Array, isBinary: boolean): void {
    const sub = this.subscribers.get(conn.id);
    if (!sub) return;
    const reply = (body: object): void => void conn.send(JSON.stringify(body));
    if (isBinary) return reply({ error: 'send JSON text: {"op":"subscribe","topics":["blocks"]}' });
    let msg: { op?: unknown; topics?: unknown };
    try {
      msg = JSON.parse(Buffer.from(data).toString('utf8')) as typeof msg;
    } catch {
      return reply({ error: 'message is not JSON; send {"op":"subscribe","topics":["blocks"]}' });
    }
    if (msg === null || typeof msg !== 'object' || (msg.op !== 'subscribe' && msg.op !== 'unsubscribe') || !Array.isArray(msg.topics) || !msg.topics.every((t) => typeof t === 'string')) {
      return reply({ error: 'expected {"op":"subscribe"|"unsubscribe","topics":[...]} with topics among ' + EVENT_TOPICS.join(', ') });
    }
    let topics: EventTopic[];
    try {
      topics = parseTopics(msg.topics as string[]);
    } catch (err) {
      return reply({ error: (err as Error).message });
    }
    for (const t of topics) {
      if (msg.op === 'subscribe') sub.topics.add(t);
      else sub.topics.delete(t);
    }
    reply({ op: 'subscribed', topics: [...sub.topics] });
  }

  /** Subscribes to the node's bus once (the node may be created after the server). */
  private attach(): void {
    const bus = this.opts.bus();
    if (!bus || bus === this.attachedTo) return;
    this.attachedTo = bus;
    for (const [topic, events] of Object.entries(TOPICS) as [EventTopic, Record<string, (e: never) => unknown>][]) {
      for (const [event, toJson] of Object.entries(events)) {
        bus.on(event as keyof NodeEvents, (payload) => {
          if (this.subscribers.size === 0) return;
          let text: string | undefined;
          for (const sub of this.subscribers.values()) {
            if (!sub.topics.has(topic)) continue;
            text ??= JSON.stringify({ topic, event, data: toJson(payload as never) });
            if (!sub.conn.send(text)) {
              this.subscribers.delete(sub.conn.id);
              this.opts.log.warn({ subscriber: sub.conn.id, backlog: sub.conn.bufferedAmount }, 'event subscriber does not read; disconnected');
              sub.conn.close(SLOW_SUBSCRIBER_CLOSE, `event backlog over ${this.maxBacklog} bytes: read faster or subscribe to fewer topics`);
            }
          }
        });
      }
    }
  }
}
