/**
 * The masters this node has heard of, and which to dial next (reference-network.md §2.2, CORE
 * `Peer/PeerStorage.cs`; §10 "may simplify" keeps "learning M addresses from presences"): every
 * M/H presence and every master that completes a hello with us becomes an entry (its signed
 * endpoint and wallet), one per endpoint and one per wallet. The book is written to the data
 * directory, so a node that restarts without `--peer` (or whose seeds are gone) still finds the
 * network: a master that fell behind is refused by the masters that dial it (§2.3 tooFarBehind)
 * and can only catch up over links it dials itself.
 *
 * Choice (`getRandomMasterNodeAddress`): first the most recently connected entry, then uniformly
 * among the entries not tried for {@link RETRY_AFTER_MS}. Ratings and the reference's blacklist
 * are left out (§10 may simplify 5): an entry whose dials keep failing stays and is tried again
 * after RETRY_AFTER_MS; one that refused us for good (another wallet there now) is forgotten.
 */
import { dirname } from 'node:path';
import { makeDirectory, readJsonFile, writeFileAtomic } from '../state/files.js';
import type { NetClock } from './clock.js';
import { parseTarget, targetKey, type DialTarget } from './dial.js';

/** The book's file in a node's data directory. */
export const PEER_BOOK_FILE = 'peers.json';
/** Entries kept at most (the reference's 2,000); the least recently seen go first. */
export const PEER_BOOK_CAPACITY = 2_000;
/** An entry is not dialled again within this time of the last try (the reference's 30 s). */
export const RETRY_AFTER_MS = 30_000;
/** Entries not seen (presence, hello) for this long are dropped when the book is saved. */
export const FORGET_AFTER_MS = 30 * 24 * 3600 * 1000;
/** Version of the file layout. */
const FILE_VERSION = 1;

export interface PeerBookEntry {
  /** `host:port` the peer advertises (targetKey form). */
  endpoint: string;
  /** Its wallet address, as text; '' for a seed whose wallet is not known yet ({@link PeerBook.seed}). */
  address: string;
  /** Unix ms of the last presence or hello that named it. */
  lastSeen: number;
  /** Unix ms of the last link to it, 0 = never. */
  lastConnected: number;
  /** Unix ms of the last dial, -Infinity = never (not saved). */
  lastTried: number;
}

export interface PeerBookOptions {
  clock: NetClock;
  /** Where the book is kept; none = in memory only. */
  file?: string;
  capacity?: number;
  /** A file that could not be read or written (the book goes on in memory). */
  onFileError?: (error: unknown, action: 'read' | 'write') => void;
}

export class PeerBook {
  private readonly byEndpoint = new Map<string, PeerBookEntry>();
  private readonly byAddress = new Map<string, PeerBookEntry>();
  private readonly capacity: number;
  private dirty = false;
  /** The first pick prefers the most recently connected entry (later ones too while `pick` is told the node has no master links). */
  private picked = false;

  constructor(private readonly o: PeerBookOptions) {
    this.capacity = o.capacity ?? PEER_BOOK_CAPACITY;
    if (o.file) this.load(o.file);
  }

  get size(): number {
    return this.byEndpoint.size;
  }

  entries(): PeerBookEntry[] {
    return [...this.byEndpoint.values()];
  }

  /**
   * A master named by a presence or a hello at `endpoint` (`host:port`). An entry of the same
   * wallet at another endpoint, or of another wallet at this endpoint, is replaced.
   */
  learn(endpoint: string, address: string, seenAt = this.o.clock.now()): void {
    const target = parseTarget(endpoint);
    if (!target || address === '') return;
    const key = targetKey(target);
    const current = this.byEndpoint.get(key);
    if (current && current.address === address) {
      if (seenAt > current.lastSeen) {
        current.lastSeen = seenAt;
        this.dirty = true;
      }
      return;
    }
    const previous = this.byAddress.get(address);
    if (current) this.drop(current);
    if (previous) this.drop(previous);
    const entry: PeerBookEntry = { endpoint: key, address, lastSeen: seenAt, lastConnected: previous?.lastConnected ?? 0, lastTried: Number.NEGATIVE_INFINITY };
    this.byEndpoint.set(key, entry);
    this.byAddress.set(address, entry);
    this.dirty = true;
    if (this.byEndpoint.size > this.capacity) {
      let oldest: PeerBookEntry | null = null;
      for (const e of this.byEndpoint.values()) if (!oldest || e.lastSeen < oldest.lastSeen) oldest = e;
      if (oldest) this.drop(oldest);
    }
  }

  /**
   * A seed (`--seed`, the reference's seed list that CORE `NetworkClientManager.init` puts in its
   * peer store): a master endpoint to dial when the book offers nothing better, its wallet unknown
   * until a presence or hello names the master there (then `learn` replaces it). Marked as
   * connected once before (the reference's lastConnected 1), so a first pick prefers it over
   * entries never linked; not saved (the reference skips entries without a wallet). An endpoint
   * the book holds already is left as it is.
   */
  seed(endpoint: string): void {
    const target = parseTarget(endpoint);
    if (!target) return;
    const key = targetKey(target);
    if (this.byEndpoint.has(key)) return;
    const now = this.o.clock.now();
    this.byEndpoint.set(key, { endpoint: key, address: '', lastSeen: now, lastConnected: 1, lastTried: Number.NEGATIVE_INFINITY });
  }

  /** A link to the master advertising `endpoint` (`host:port`) completed its hello. */
  connected(endpoint: string): void {
    const target = parseTarget(endpoint);
    const e = target && this.byEndpoint.get(targetKey(target));
    if (!e) return;
    e.lastConnected = e.lastSeen = this.o.clock.now();
    this.dirty = true;
  }

  /** Dials to `endpoint` keep failing: forget it until a presence or hello names it again. */
  forget(endpoint: string): void {
    const e = this.byEndpoint.get(endpoint);
    if (e) this.drop(e);
  }

  /**
   * The next entry to dial, marked as tried, or null (`address` '' for a seed). `skip` leaves out entries already linked or
   * being dialled (by endpoint or wallet) and our own. With `noMasterLinks` (the node lost its
   * last master link) the most recently connected entry comes first again, as on the first pick
   * (the reference resets its initial-connection count when it has no connections).
   */
  pick(skip: (e: PeerBookEntry) => boolean, random: () => number = Math.random, noMasterLinks = false): (DialTarget & { address: string }) | null {
    const now = this.o.clock.now();
    const open = [...this.byEndpoint.values()].filter((e) => now - e.lastTried >= RETRY_AFTER_MS && !skip(e));
    if (open.length === 0) return null;
    let chosen: PeerBookEntry;
    const connected = open.filter((e) => e.lastConnected > 0);
    if ((!this.picked || noMasterLinks) && connected.length > 0) chosen = connected.reduce((a, b) => (b.lastConnected > a.lastConnected ? b : a));
    else chosen = open[Math.min(open.length - 1, Math.floor(random() * open.length))]!;
    this.picked = true;
    chosen.lastTried = now;
    const target = parseTarget(chosen.endpoint)!;
    return { ...target, address: chosen.address };
  }

  /** Writes the book when it changed (whole or not at all: writeFileAtomic). */
  save(): void {
    const file = this.o.file;
    if (!file || !this.dirty) return;
    const now = this.o.clock.now();
    // A seed is the operator's (--seed), kept for the run however long it went undialled.
    for (const e of [...this.byEndpoint.values()]) if (e.address !== '' && now - e.lastSeen > FORGET_AFTER_MS) this.drop(e);
    const peers = [...this.byEndpoint.values()].filter((e) => e.address !== '').map(({ endpoint, address, lastSeen, lastConnected }) => ({ endpoint, address, lastSeen, lastConnected }));
    try {
      makeDirectory(dirname(file));
      writeFileAtomic(file, `${JSON.stringify({ version: FILE_VERSION, peers }, null, 1)}\n`);
      this.dirty = false;
    } catch (err) {
      this.o.onFileError?.(err, 'write');
    }
  }

  private drop(e: PeerBookEntry): void {
    if (this.byEndpoint.get(e.endpoint) === e) this.byEndpoint.delete(e.endpoint);
    if (this.byAddress.get(e.address) === e) this.byAddress.delete(e.address);
    this.dirty = true;
  }

  /** Reads the file; a missing file is an empty book, a damaged one is reported and ignored. */
  private load(file: string): void {
    const parsed = readJsonFile(file, (err) => this.o.onFileError?.(err, 'read')) as { version?: unknown; peers?: unknown } | null | undefined;
    if (parsed === undefined) return;
    try {
      if (parsed?.version !== FILE_VERSION || !Array.isArray(parsed.peers)) throw new Error(`not a version-${FILE_VERSION} peer book`);
      for (const p of parsed.peers.slice(0, this.capacity) as Partial<PeerBookEntry>[]) {
        if (typeof p?.endpoint !== 'string' || typeof p.address !== 'string' || typeof p.lastSeen !== 'number') continue;
        this.learn(p.endpoint, p.address, p.lastSeen);
        const e = this.byAddress.get(p.address);
        if (e && typeof p.lastConnected === 'number' && Number.isFinite(p.lastConnected)) e.lastConnected = p.lastConnected;
      }
      this.dirty = false;
    } catch (err) {
      this.o.onFileError?.(err, 'read');
    }
  }
}
