/**
 * MQTT driver (reference-quixi-events.md §1.10) on the `mqtt` package: plain TCP, clean session,
 * QoS 0, retain false, MQTT 5 as QuIXI's MQTTnet 5 default, keep-alive 15 s. Unlike QuIXI the
 * client id is unique per node (QuIXI's fixed `Ixian` makes two nodes on one broker evict each
 * other) and the connection is kept up in the background with backoff instead of
 * "reconnect on publish". mqtt.js's own reconnect (a fixed period) is off; ours backs off.
 */
import { randomBytes } from 'node:crypto';
import { connect, type MqttClient } from 'mqtt';
import { Backoff, silentLogger, type MqConnectionOptions, type MqDriver, type MqLogger } from './driver.js';

export const MQTT_DEFAULT_PORT = 1883;
/** QuIXI/MQTTnet keep-alive. */
const KEEPALIVE_S = 15;
/** A connect attempt that hangs longer than this counts as failed. */
const CONNECT_TIMEOUT_MS = 10_000;

export interface MqttDriverOptions extends MqConnectionOptions {
  /** Unique per node; default `dltnode-<16 hex>`. */
  clientId?: string;
  /** 5 (default, as QuIXI) or 4 (3.1.1). */
  protocolVersion?: 4 | 5;
}

/** A fresh unique client id. */
export const uniqueClientId = (prefix = 'dltnode'): string => `${prefix}-${randomBytes(8).toString('hex')}`;

export class MqttDriver implements MqDriver {
  readonly name = 'mqtt' as const;
  readonly clientId: string;
  #client: MqttClient | null = null;
  #closed = false;
  #timer: NodeJS.Timeout | null = null;
  readonly #backoff: Backoff;
  readonly #log: MqLogger;

  constructor(readonly options: MqttDriverOptions) {
    if (typeof options?.host !== 'string' || options.host === '') throw new TypeError('mq host is required');
    this.clientId = options.clientId ?? uniqueClientId();
    this.#backoff = new Backoff(options.reconnectMinMs, options.reconnectMaxMs);
    this.#log = options.logger ?? silentLogger;
  }

  get connected(): boolean {
    return this.#client?.connected === true;
  }

  get url(): string {
    return `mqtt://${this.options.host}:${this.options.port ?? MQTT_DEFAULT_PORT}`;
  }

  start(): Promise<void> {
    return new Promise((resolve) => this.#attempt(resolve));
  }

  #attempt(done?: () => void): void {
    if (this.#closed) return done?.();
    const client = connect(this.url, {
      clientId: this.clientId,
      clean: true,
      keepalive: KEEPALIVE_S,
      protocolVersion: this.options.protocolVersion ?? 5,
      reconnectPeriod: 0,
      connectTimeout: CONNECT_TIMEOUT_MS,
      queueQoSZero: false,
    });
    this.#client = client;
    let settled = false;
    const settle = (): void => {
      if (!settled) {
        settled = true;
        done?.();
      }
    };
    client.on('connect', () => {
      this.#backoff.reset();
      this.#log.info({ broker: this.url, clientId: this.clientId }, 'mq broker connected');
      settle();
    });
    client.on('error', (e) => this.#log.debug({ broker: this.url, err: e.message }, 'mq broker error'));
    client.on('close', () => {
      settle();
      if (this.#closed || this.#client !== client) return;
      client.removeAllListeners();
      client.on('error', () => {});
      client.end(true);
      const delay = this.#backoff.next();
      this.#log.warn({ broker: this.url, retryInMs: delay, attempt: this.#backoff.attempts }, 'mq broker connection down; reconnecting');
      this.#timer = setTimeout(() => this.#attempt(), delay);
      this.#timer.unref();
    });
  }

  publish(topic: string, payload: Buffer): Promise<void> {
    const client = this.#client;
    if (!client || !client.connected) return Promise.reject(new Error('mq broker not connected'));
    return new Promise((resolve, reject) => {
      client.publish(topic, payload, { qos: 0, retain: false }, (e) => (e ? reject(e) : resolve()));
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = null;
    if (client) await new Promise<void>((r) => client.end(true, {}, () => r()));
  }
}
