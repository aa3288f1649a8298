/**
 * The message-queue driver interface of the QuIXI bridge (reference-quixi-events.md §1.1, §1.10,
 * §1.11), a reconnect backoff shared by the drivers, and the minimal logger they take.
 * Drivers are publish-only, as QuIXI's bridge; `connected` is what the bridge checks before a
 * publish, so an event that arrives while the broker is down is counted, never queued.
 */

/** The structural subset of the node's logger the bridge uses (no dependency on src/node). */
export interface MqLogger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  debug(obj: object | string, msg?: string): void;
}

export const silentLogger: MqLogger = { info() {}, warn() {}, debug() {} };

export type MqDriverName = 'mqtt' | 'rabbitmq';

export interface MqDriver {
  readonly name: MqDriverName;
  /** True while the broker connection is up and publishing is possible. */
  readonly connected: boolean;
  /**
   * Starts connecting and keeps reconnecting with backoff until `close`. Resolves after the first
   * attempt, whether it succeeded or not; never rejects for broker trouble.
   */
  start(): Promise<void>;
  /** Publishes one payload; rejects when the broker refuses or the connection drops meanwhile. */
  publish(topic: string, payload: Buffer): Promise<void>;
  /** Stops reconnecting and closes the connection. */
  close(): Promise<void>;
}

export interface MqConnectionOptions {
  host: string;
  /** Default 1883 (MQTT) / 5672 (AMQP). */
  port?: number;
  logger?: MqLogger;
  /** Backoff bounds, ms. */
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
}

/**
 * Reconnect delays: 0.5 s doubling to 30 s, ±20 % jitter so that nodes sharing a broker do not
 * reconnect in lockstep after it restarts. 30 s bounds how long events keep being dropped after
 * the broker is back.
 */
export const RECONNECT_MIN_MS = 500;
export const RECONNECT_MAX_MS = 30_000;
const JITTER = 0.2;

export class Backoff {
  #attempt = 0;
  constructor(
    readonly minMs = RECONNECT_MIN_MS,
    readonly maxMs = RECONNECT_MAX_MS,
  ) {}

  /** The next delay (grows until `reset`). */
  next(): number {
    const base = Math.min(this.maxMs, this.minMs * 2 ** Math.min(this.#attempt, 30));
    this.#attempt++;
    return Math.round(base * (1 - JITTER + 2 * JITTER * Math.random()));
  }

  reset(): void {
    this.#attempt = 0;
  }

  get attempts(): number {
    return this.#attempt;
  }
}
