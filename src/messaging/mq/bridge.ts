/**
 * The QuIXI-compatible message-queue bridge (reference-quixi-events.md §1): turns received
 * messages and node events into QuIXI topics and payloads and hands them to a driver. Publishing
 * never throws and never blocks the caller: an event that arrives while the broker is down is
 * dropped, counted (`stats.dropped`) and logged — once per outage at warn, with the total when the
 * broker is back — as QuIXI drops them (it has no buffer), but visibly.
 */
import { MqttDriver, type MqttDriverOptions } from './mqtt.js';
import { RabbitMqDriver, type RabbitMqDriverOptions } from './rabbitmq.js';
import { silentLogger, type MqDriver, type MqDriverName, type MqLogger } from './driver.js';
import { topicOfCode, type MqTopic } from './topics.js';
import { messageIdPayload, serializePayload, streamEventObject, transactionStatusPayload, type PayloadShape, type ReceivedForMq } from './payload.js';

export interface MqBridgeStats {
  /** Payloads handed to the broker. */
  published: number;
  /** Events dropped because the broker was down (or refused the publish). */
  dropped: number;
  /** Received messages of codes QuIXI never publishes (keys2, getNick…). */
  skipped: number;
}

export interface MqBridgeOptions {
  /** Payload shape: 'A' (QuIXI v0.9.1b, default) or 'B' (Core ≥ 2025-11-21, §1.9). */
  shape?: PayloadShape;
  logger?: MqLogger;
}

export class MqBridge {
  readonly stats: MqBridgeStats = { published: 0, dropped: 0, skipped: 0 };
  readonly shape: PayloadShape;
  readonly #log: MqLogger;
  /** Drops since the last successful publish (for the once-per-outage log lines). */
  #outageDrops = 0;

  constructor(
    readonly driver: MqDriver,
    options: MqBridgeOptions = {},
  ) {
    this.shape = options.shape ?? 'A';
    if (this.shape !== 'A' && this.shape !== 'B') throw new TypeError(`payload shape must be 'A' or 'B', got ${String(this.shape)}`);
    this.#log = options.logger ?? silentLogger;
  }

  start(): Promise<void> {
    return this.driver.start();
  }

  close(): Promise<void> {
    return this.driver.close();
  }

  /**
   * Publishes a received message on its topic (§1.6). Returns the topic, or null when the code is
   * never published. Resolves when the broker took it or the event was dropped; never rejects.
   */
  async publishReceived(r: ReceivedForMq): Promise<MqTopic | null> {
    const topic = topicOfCode(r.spixi.type);
    if (topic === null) {
      this.stats.skipped++;
      return null;
    }
    let payload: string;
    try {
      payload = serializePayload(streamEventObject(r, this.shape));
    } catch (e) {
      this.#log.warn({ topic, err: (e as Error).message }, 'mq event could not be serialized; dropped');
      this.stats.dropped++;
      return topic;
    }
    await this.publishRaw(topic, payload);
    return topic;
  }

  /** `FriendStatusUpdate` with the contact JSON (the same object `contacts` returns). */
  publishFriendStatus(contactJson: unknown): Promise<void> {
    return this.publishRaw('FriendStatusUpdate', serializePayload(contactJson));
  }

  publishMessageSent(id: Uint8Array): Promise<void> {
    return this.publishRaw('MessageSent', messageIdPayload(id));
  }

  publishMessageExpired(id: Uint8Array): Promise<void> {
    return this.publishRaw('MessageExpired', messageIdPayload(id));
  }

  publishTransactionStatus(txid: Uint8Array, verified: boolean): Promise<void> {
    return this.publishRaw('TransactionStatusUpdate', transactionStatusPayload(txid, verified));
  }

  /** Publishes a serialized payload on a topic; counts and logs a drop instead of failing. */
  async publishRaw(topic: MqTopic, payload: string): Promise<void> {
    if (!this.driver.connected) return this.#drop(topic, 'broker down');
    try {
      await this.driver.publish(topic, Buffer.from(payload, 'utf8'));
    } catch (e) {
      return this.#drop(topic, (e as Error).message);
    }
    this.stats.published++;
    if (this.#outageDrops > 0) {
      this.#log.info({ dropped: this.#outageDrops, droppedTotal: this.stats.dropped }, 'mq broker back; events were dropped while it was down');
      this.#outageDrops = 0;
    }
  }

  #drop(topic: string, reason: string): void {
    this.stats.dropped++;
    if (this.#outageDrops++ === 0) this.#log.warn({ topic, reason, droppedTotal: this.stats.dropped }, 'mq event dropped: broker unavailable (further drops logged at debug until it is back)');
    else this.#log.debug({ topic, reason, droppedTotal: this.stats.dropped }, 'mq event dropped');
  }
}

export interface CreateMqBridgeOptions extends MqBridgeOptions {
  driver: MqDriverName | 'none';
  host?: string;
  port?: number;
  /** MQTT client id (unique per node; default random). */
  clientId?: string;
  mqtt?: Partial<MqttDriverOptions>;
  rabbitmq?: Partial<RabbitMqDriverOptions>;
}

/** `--mq-driver mqtt|rabbitmq --mq-host --mq-port` → a bridge (null for `none`). */
export function createMqBridge(o: CreateMqBridgeOptions): MqBridge | null {
  if (o.driver === 'none') return null;
  if (typeof o.host !== 'string' || o.host === '') throw new TypeError('--mq-host is required with an mq driver');
  const common = { host: o.host, port: o.port, logger: o.logger };
  let driver: MqDriver;
  if (o.driver === 'mqtt') driver = new MqttDriver({ ...o.mqtt, ...common, clientId: o.clientId ?? o.mqtt?.clientId });
  else if (o.driver === 'rabbitmq') driver = new RabbitMqDriver({ ...o.rabbitmq, ...common, connectionName: o.clientId });
  else throw new TypeError(`mq driver must be none, mqtt or rabbitmq, got ${String(o.driver)}`);
  return new MqBridge(driver, o);
}
