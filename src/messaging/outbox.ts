/**
 * The sending pipeline's storage-independent rules (reference-rpc-messaging.md §3.7): per-message
 * flags, the retry pass, receipts that dequeue, and the 5-day expiry. Entries hold whatever the
 * caller needs to (re)send — typically the plain SpixiMessage, sealed at send time, because
 * messages queued before the session keys exist are sent once they do. The caller persists the
 * queue (e.g. `entries()` into LMDB after each change) and performs the sends.
 */
import { SpixiMessageCode as C } from './spixi-message.js';

/** Retry pass period (§3.7 step 4). */
export const PENDING_RETRY_INTERVAL_S = 5;
/** A queued message expires 5 days after its StreamMessage timestamp (§3.7 step 6). */
export const PENDING_EXPIRY_S = 5 * 24 * 60 * 60;

export interface SendFlags {
  /** Kept in the pending queue until a receipt arrives (persisted). */
  addToPending: boolean;
  /** May go to the offline push server (we have none; kept for the pass rule). */
  sendToServer: boolean;
  pushNotification: boolean;
  /** Dropped after the first successful send. */
  removeAfterSending: boolean;
}

/** Per-code flags of §3.7 step 3. */
export function sendFlagsFor(spixiCode: number): SendFlags {
  switch (spixiCode) {
    case C.appData:
    case C.appProtocolData:
      return { addToPending: false, sendToServer: false, pushNotification: false, removeAfterSending: true };
    // No receipt ever comes back for these (the receiver acknowledges neither, handshake.ts
    // NO_RECEIPT): kept pending they would be sent again every 5 s for the 5 days of expiry.
    case C.msgReceived:
    case C.msgTyping:
      return { addToPending: false, sendToServer: false, pushNotification: false, removeAfterSending: true };
    case C.nick:
    case C.avatar:
    case C.getNick:
      return { addToPending: true, sendToServer: true, pushNotification: false, removeAfterSending: false };
    default:
      return { addToPending: true, sendToServer: true, pushNotification: true, removeAfterSending: false };
  }
}

export const isExpired = (messageTimestamp: number, now: number): boolean => now - messageTimestamp >= PENDING_EXPIRY_S;

export interface OutboxEntry<T> {
  /** Hex of the StreamMessage id (receipts name it). */
  id: string;
  /** StreamMessage timestamp (network seconds). */
  timestamp: number;
  flags: SendFlags;
  payload: T;
}

export interface PassResult<T> {
  sent: OutboxEntry<T>[];
  expired: OutboxEntry<T>[];
}

/** Pending messages per contact, in order. */
export class Outbox<T> {
  readonly #queues = new Map<string, OutboxEntry<T>[]>();

  /**
   * @param jumpsQueue entries that go ahead of the others (handshake frames): a chat waiting for
   *   the session keys must not hold back the accept or keys2 that create them (§3.5, §3.7).
   */
  constructor(private readonly jumpsQueue: (e: OutboxEntry<T>) => boolean = () => false) {}

  /**
   * Queues a message (or not, for fire-and-forget flags) and says whether to try sending it now:
   * only when it is the only queued message of that contact, so order is kept (§3.7 step 4).
   * A queue-jumping entry goes after the other queue-jumping ones, before the rest, and is sent now.
   */
  enqueue(contact: string, entry: OutboxEntry<T>): { sendNow: boolean } {
    if (!entry.flags.addToPending) return { sendNow: true };
    const q = this.#queues.get(contact) ?? [];
    if (q.some((e) => e.id === entry.id)) return { sendNow: false };
    this.#queues.set(contact, q);
    if (this.jumpsQueue(entry)) {
      const at = q.findIndex((e) => !this.jumpsQueue(e));
      q.splice(at < 0 ? q.length : at, 0, entry);
      return { sendNow: true };
    }
    q.push(entry);
    return { sendNow: q.length === 1 };
  }

  /** A receipt (msgReceived/msgRead) for `id`: removes and returns the entry, if queued. */
  acknowledge(contact: string, id: string): OutboxEntry<T> | null {
    const q = this.#queues.get(contact);
    const i = q?.findIndex((e) => e.id === id) ?? -1;
    if (!q || i < 0) return null;
    const [e] = q.splice(i, 1);
    if (q.length === 0) this.#queues.delete(contact);
    return e!;
  }

  /**
   * One retry pass (§3.7 steps 4 and 6): drops expired entries; for each contact sends all entries
   * when online, only server-eligible ones when offline, stopping that contact's pass at the first
   * server-eligible entry that fails. `send` resolves true on success; entries with
   * removeAfterSending leave the queue once sent. A throwing `send` counts as a failure.
   */
  async pass(now: number, online: (contact: string) => boolean, send: (contact: string, e: OutboxEntry<T>) => Promise<boolean>): Promise<PassResult<T>> {
    const result: PassResult<T> = { sent: [], expired: [] };
    for (const [contact, q] of [...this.#queues]) {
      for (const e of q.filter((x) => isExpired(x.timestamp, now))) {
        q.splice(q.indexOf(e), 1);
        result.expired.push(e);
      }
      const isOnline = online(contact);
      // Queue-jumping entries first, also in a queue persisted before they jumped (stable order).
      const order = [...q.filter((e) => this.jumpsQueue(e)), ...q.filter((e) => !this.jumpsQueue(e))];
      for (const e of order) {
        if (!isOnline && !e.flags.sendToServer) continue;
        let ok = false;
        try {
          ok = await send(contact, e);
        } catch {
          ok = false;
        }
        if (ok) {
          result.sent.push(e);
          if (e.flags.removeAfterSending) q.splice(q.indexOf(e), 1);
        } else if (e.flags.sendToServer) break;
      }
      if (q.length === 0) this.#queues.delete(contact);
    }
    return result;
  }

  /** Drops a contact's queue (removeContact). */
  clear(contact: string): void {
    this.#queues.delete(contact);
  }

  size(contact?: string): number {
    if (contact !== undefined) return this.#queues.get(contact)?.length ?? 0;
    let n = 0;
    for (const q of this.#queues.values()) n += q.length;
    return n;
  }

  /** One contact's queued entries, in order (a copy). */
  queue(contact: string): OutboxEntry<T>[] {
    return [...(this.#queues.get(contact) ?? [])];
  }

  /** Snapshot for persistence: [contact, entries in order]. */
  entries(): [string, OutboxEntry<T>[]][] {
    return [...this.#queues].map(([c, q]) => [c, [...q]]);
  }

  /** Restores a persisted snapshot (replaces the current content). */
  load(snapshot: [string, OutboxEntry<T>[]][]): void {
    this.#queues.clear();
    for (const [c, q] of snapshot) if (q.length) this.#queues.set(c, [...q]);
  }
}
