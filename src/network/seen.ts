/**
 * The processed-set of announce-then-pull gossip (reference-network.md §4.2, §10 keep 4): ids of
 * transactions, blocks, signatures and keep-alives already handled, so an announcement of one of
 * them is not pulled again. Bounded (oldest entries evicted first, as the reference's FIFO) and
 * with an expiry, so memory stays flat whatever peers announce.
 */
import { latin1Key } from '../formats/bytes.js';
import type { NetClock } from './clock.js';

export interface SeenSetOptions {
  /** Most entries kept; the oldest are evicted beyond it. */
  capacity: number;
  /** Entries older than this are forgotten, milliseconds. */
  ttlMs: number;
  clock: NetClock;
}

export class SeenSet {
  // Map keeps insertion order: the first entry is always the oldest.
  private readonly entries = new Map<string, number>();
  private readonly capacity: number;
  private readonly ttlMs: number;
  private readonly clock: NetClock;
  /** Lookups that found the id already seen (the gossip dedup-hit metric). */
  hits = 0;

  constructor(options: SeenSetOptions) {
    if (!Number.isInteger(options.capacity) || options.capacity < 1) throw new RangeError('capacity must be a positive integer');
    if (!(options.ttlMs > 0)) throw new RangeError('ttlMs must be positive');
    this.capacity = options.capacity;
    this.ttlMs = options.ttlMs;
    this.clock = options.clock;
  }

  get size(): number {
    this.expire();
    return this.entries.size;
  }

  /** True if `key` was seen and has not expired (counts a hit). */
  has(key: string | Uint8Array): boolean {
    this.expire();
    const k = typeof key === 'string' ? key : latin1Key(key);
    const found = this.entries.has(k);
    if (found) this.hits++;
    return found;
  }

  /**
   * Marks `key` seen. Returns true if it was new (the caller should process it), false if it was
   * already seen (a dedup hit; its age is not refreshed, so a flood cannot keep an entry alive).
   */
  add(key: string | Uint8Array): boolean {
    this.expire();
    const k = typeof key === 'string' ? key : latin1Key(key);
    if (this.entries.has(k)) {
      this.hits++;
      return false;
    }
    this.entries.set(k, this.clock.now());
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    return true;
  }

  /**
   * Marks `key` seen without counting a hit: the node recording what it took or made itself (a
   * transaction it admitted, one it created) is no duplicate from a peer.
   */
  mark(key: string | Uint8Array): void {
    const k = typeof key === 'string' ? key : latin1Key(key);
    if (this.entries.has(k)) return;
    this.add(k);
  }

  /** Forgets `key` (e.g. a pull that failed, so another announcer may be asked). */
  delete(key: string | Uint8Array): void {
    this.entries.delete(typeof key === 'string' ? key : latin1Key(key));
  }

  clear(): void {
    this.entries.clear();
  }

  private expire(): void {
    const limit = this.clock.now() - this.ttlMs;
    for (const [k, at] of this.entries) {
      if (at > limit) break;
      this.entries.delete(k);
    }
  }
}
