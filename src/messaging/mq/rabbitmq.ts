/**
 * RabbitMQ driver (reference-quixi-events.md §1.11) on `amqplib`: library-default credentials and
 * vhost (guest/guest, /), exchange `app_exchange` of type fanout declared non-durable, not
 * auto-delete; every event published with routing key = topic name, no properties. Reconnects
 * with backoff (QuIXI has none).
 */
import { connect, type Channel, type ChannelModel } from 'amqplib';
import { Backoff, silentLogger, type MqConnectionOptions, type MqDriver, type MqLogger } from './driver.js';

export const AMQP_DEFAULT_PORT = 5672;
export const RABBITMQ_EXCHANGE = 'app_exchange';

export interface RabbitMqDriverOptions extends MqConnectionOptions {
  /** Default guest/guest (RabbitMQ.Client's defaults). */
  username?: string;
  password?: string;
  vhost?: string;
  /** Sent as the AMQP connection name, unique per node. */
  connectionName?: string;
}

export class RabbitMqDriver implements MqDriver {
  readonly name = 'rabbitmq' as const;
  #conn: ChannelModel | null = null;
  #channel: Channel | null = null;
  #closed = false;
  #timer: NodeJS.Timeout | null = null;
  readonly #backoff: Backoff;
  readonly #log: MqLogger;

  constructor(readonly options: RabbitMqDriverOptions) {
    if (typeof options?.host !== 'string' || options.host === '') throw new TypeError('mq host is required');
    this.#backoff = new Backoff(options.reconnectMinMs, options.reconnectMaxMs);
    this.#log = options.logger ?? silentLogger;
  }

  get connected(): boolean {
    return this.#channel !== null;
  }

  get url(): string {
    const o = this.options;
    const user = encodeURIComponent(o.username ?? 'guest');
    const pass = encodeURIComponent(o.password ?? 'guest');
    const vhost = encodeURIComponent(o.vhost ?? '/');
    return `amqp://${user}:${pass}@${o.host}:${o.port ?? AMQP_DEFAULT_PORT}/${vhost}`;
  }

  async start(): Promise<void> {
    await this.#attempt();
  }

  async #attempt(): Promise<void> {
    if (this.#closed) return;
    const where = `${this.options.host}:${this.options.port ?? AMQP_DEFAULT_PORT}`;
    try {
      const conn = await connect(this.url, { clientProperties: { connection_name: this.options.connectionName ?? 'dltnode' } });
      if (this.#closed) {
        await conn.close().catch(() => {});
        return;
      }
      conn.on('error', (e: Error) => this.#log.debug({ broker: where, err: e.message }, 'mq broker error'));
      conn.on('close', () => this.#down(conn, where));
      const ch = await conn.createChannel();
      ch.on('error', (e: Error) => this.#log.debug({ broker: where, err: e.message }, 'mq channel error'));
      await ch.assertExchange(RABBITMQ_EXCHANGE, 'fanout', { durable: false, autoDelete: false });
      this.#conn = conn;
      this.#channel = ch;
      this.#backoff.reset();
      this.#log.info({ broker: where }, 'mq broker connected');
    } catch (e) {
      this.#log.debug({ broker: where, err: (e as Error).message }, 'mq broker connect failed');
      this.#schedule(where);
    }
  }

  #down(conn: ChannelModel, where: string): void {
    if (this.#conn !== conn) return;
    this.#conn = null;
    this.#channel = null;
    if (!this.#closed) this.#schedule(where);
  }

  #schedule(where: string): void {
    if (this.#closed) return;
    const delay = this.#backoff.next();
    this.#log.warn({ broker: where, retryInMs: delay, attempt: this.#backoff.attempts }, 'mq broker connection down; reconnecting');
    this.#timer = setTimeout(() => void this.#attempt(), delay);
    this.#timer.unref();
  }

  publish(topic: string, payload: Buffer): Promise<void> {
    const ch = this.#channel;
    if (!ch) return Promise.reject(new Error('mq broker not connected'));
    try {
      ch.publish(RABBITMQ_EXCHANGE, topic, payload);
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(e as Error);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    const conn = this.#conn;
    this.#conn = null;
    this.#channel = null;
    if (conn) await conn.close().catch(() => {});
  }
}
