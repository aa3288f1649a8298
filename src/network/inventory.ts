/**
 * Announce-then-pull gossip helpers (reference-network.md §4.1–4.2, §5.2, §10 keep 4 and
 * simplify 3): a per-link inventory batcher (at most one inventory message per second per peer,
 * or at once at 10,000 items) and a pull tracker that asks one announcer for an unseen item,
 * asks the next announcer when the answer does not come, and gives up after the reference's
 * retry counts.
 */
import type { NetClock, TimerHandle } from './clock.js';
import { MAX_INVENTORY_ITEMS, type InventoryItem } from './protocol/messages.js';
import type { SeenSet } from './seen.js';

/** Inventory is flushed at most this often per link (§4.2). */
export const INVENTORY_FLUSH_MS = 1_000;

/** Collects inventory items for one link and sends them in batches. */
export class InventoryBatcher {
  private items: InventoryItem[] = [];
  private timer: TimerHandle | null = null;

  constructor(
    private readonly o: {
      clock: NetClock;
      /** Sends one inventory2 message (e.g. `items => link.send({ code: 59, items })`). */
      send: (items: InventoryItem[]) => boolean;
      flushMs?: number;
      maxItems?: number;
    },
  ) {}

  get pending(): number {
    return this.items.length;
  }

  add(item: InventoryItem): void {
    this.items.push(item);
    if (this.items.length >= (this.o.maxItems ?? MAX_INVENTORY_ITEMS)) this.flush();
    else this.timer ??= this.o.clock.setTimer(this.o.flushMs ?? INVENTORY_FLUSH_MS, () => this.flush());
  }

  flush(): void {
    this.timer?.cancel();
    this.timer = null;
    if (this.items.length === 0) return;
    const batch = this.items;
    this.items = [];
    this.o.send(batch);
  }

  /** Drops pending items (the link closed). */
  close(): void {
    this.timer?.cancel();
    this.timer = null;
    this.items = [];
  }
}

export type PullKind = 'transaction' | 'block' | 'blockSignature' | 'keepAlive';

/** Retries and re-request delay per kind (DLT inventory retry policy, §8). */
export const PULL_POLICY: Readonly<Record<PullKind, { retries: number; retryMs: number }>> = Object.freeze({
  transaction: { retries: 5, retryMs: 200_000 },
  block: { retries: 10, retryMs: 15_000 },
  blockSignature: { retries: 15, retryMs: 10_000 },
  keepAlive: { retries: 2, retryMs: 30_000 },
});

/** Announcers remembered per item: enough to retry elsewhere, bounded against floods. */
const MAX_ANNOUNCERS = 8;
/** Items tracked at once; beyond it new announcements are not pulled until some resolve. */
export const MAX_PENDING_PULLS = 200_000;

interface Pending<P> {
  kind: PullKind;
  announcers: P[];
  asked: P;
  askedAt: number;
  tries: number;
}

export class PullTracker<P> {
  private readonly pending = new Map<string, Pending<P>>();

  constructor(
    private readonly o: {
      clock: NetClock;
      /** The processed set: items in it are never pulled again. */
      seen: SeenSet;
      maxPending?: number;
      policy?: Partial<Record<PullKind, { retries: number; retryMs: number }>>;
    },
  ) {}

  /** Announcements of an item already being pulled (a second announcer: a gossip dedup hit). */
  announcedAgain = 0;

  get size(): number {
    return this.pending.size;
  }

  /** `peer` announced `key`. True: ask that peer for it now (it is the first announcer). */
  announced(kind: PullKind, key: string, peer: P): boolean {
    if (this.o.seen.has(key)) return false;
    const p = this.pending.get(key);
    if (p) {
      this.announcedAgain++;
      if (p.announcers.length < MAX_ANNOUNCERS && !p.announcers.includes(peer)) p.announcers.push(peer);
      return false;
    }
    if (this.pending.size >= (this.o.maxPending ?? MAX_PENDING_PULLS)) return false;
    this.pending.set(key, { kind, announcers: [peer], asked: peer, askedAt: this.o.clock.now(), tries: 1 });
    return true;
  }

  /** The item arrived (valid or not): stop tracking it and mark it processed (§4.2: processed first, even if it then fails). */
  received(key: string): void {
    this.pending.delete(key);
    this.o.seen.add(key);
  }

  /** True while `key` is being pulled. */
  isPending(key: string): boolean {
    return this.pending.has(key);
  }

  /**
   * Requests that timed out, each with the next announcer to ask; items out of retries or
   * announcers are dropped (a later announcement starts over). Call about once a second.
   */
  due(): { key: string; kind: PullKind; peer: P }[] {
    const now = this.o.clock.now();
    const out: { key: string; kind: PullKind; peer: P }[] = [];
    for (const [key, p] of this.pending) {
      const policy = this.o.policy?.[p.kind] ?? PULL_POLICY[p.kind];
      if (now - p.askedAt < policy.retryMs) continue;
      const i = p.announcers.indexOf(p.asked);
      const others = p.announcers.length - (i >= 0 ? 1 : 0);
      if (p.tries >= policy.retries || others === 0) {
        this.pending.delete(key);
        continue;
      }
      const next = p.announcers[(i + 1) % p.announcers.length]!;
      p.asked = next;
      p.askedAt = now;
      p.tries++;
      out.push({ key, kind: p.kind, peer: next });
    }
    return out;
  }

  /** A peer went away: it is no longer asked; items only it announced are re-asked of nobody and dropped at their deadline. */
  peerGone(peer: P): void {
    for (const p of this.pending.values()) {
      const i = p.announcers.indexOf(peer);
      if (i >= 0 && p.announcers.length > 1) p.announcers.splice(i, 1);
      if (p.asked === peer) p.askedAt = -Infinity; // re-ask another announcer at the next `due`
    }
  }
}
