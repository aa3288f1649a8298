/**
 * A client's relays by sector (reference-network.md §3.5, §10 keep 7). From its first link (a
 * relay or a master the operator named) the client asks `getSectorNodes` for its own address's
 * sector prefix, and keeps links to the relays nearest that sector, nearest first
 * (`PresenceList.closestRelays`); it asks again every 300 s, and sooner while it is short of
 * relays. A relay link that is lost is replaced by the next nearest relay, and the lost one is
 * avoided for a while, but never so that the client is left with no relay link: with none, the
 * relays it knows are dialled again, nearest first, with a backoff (5 s doubling to 60 s). The
 * relays it chose are remembered with their endpoints after their presences expire here (a client
 * receives no relay keep-alives, §3.3), so it can dial them with no link to ask its sector on, and
 * kept in the data directory (`relays.json`), so a client restarted while its named relay is down
 * dials the others it chose before instead of waiting for that one (the reference's client keeps
 * its peers in a file too, §2.2). It asks every server it links to for random master presences
 * (QUIXI `handleHelloData`), again every 5 s while it holds none (its relay may have known none
 * yet) and before those it holds expire, so its peer book holds masters: left with no relay link for
 * STRANDED_RETRY_BASE_MS it wants a master link (`mastersWanted`, dialled by the peer network from
 * the book, CORE `NetworkClientManagerStatic` falls back on its peer store the same way), and a
 * master that links while it is short of relays is asked for its sector at once (QUIXI
 * `handleHelloData`: fewer than 2 relays); one already linked is asked at once, again after 5 s
 * doubling to 30 s. A
 * link the operator closed (`isolate`, `reconnect`) does not lose its relay: it is dialled again,
 * and `reconnect` ends every avoidance. Relays the operator named (`--peer`, seeds) are kept by the dialer as
 * they are and count toward the links wanted, so a named relay stays the client's relay (the
 * peer network makes it the primary: the client's presence host).
 *
 * Simplified from the reference (QUIXI `handleSectorNodes`, CORE `NetworkClientManagerStatic`,
 * which keeps 3 sector links plus up to 6 random stream links): one or two relay links in all.
 */
import { sectorPrefix } from '../formats/address.js';
import { equalBytes, fromHex, toHex } from '../formats/bytes.js';
import { readJsonFile, writeFileAtomic } from '../state/files.js';
import type { NetClock, TimerHandle } from './clock.js';
import { parseTarget, targetKey } from './dial.js';
import type { CloseInfo, Link } from './link.js';
import { MASTER_TYPES, SERVER_TYPES, type PeerNetwork } from './peer-network.js';
import { nearerRelayKey, relayKey } from './presence.js';
import { MessageCode } from './protocol/codes.js';

/** Relay links a client keeps, the named ones included (issue 9 point 1: one or two). */
export const RELAY_LINKS = 2;
/** Relays asked for in `getSectorNodes` (CORE `maxRelaySectorNodesToRequest` default, §3.5). */
export const SECTOR_NODES_REQUESTED = 6;
/** The sector is asked again this often (§3.5: 300 s)… */
export const SECTOR_REFRESH_MS = 300_000;
/**
 * …or this long before a relay presence it holds expires, whichever comes first: relays'
 * keep-alives never reach a client (§3.3), so each copy from a sector answer lapses 300 s after
 * the keep-alive it carries (up to 200 s old), and asked only every 300 s (as QuIXI does) its
 * status would show fewer relays than there are, down to none, for up to 200 s of every 300.
 * Master presences (asked for with `getRandomPresences`) are asked again as early.
 */
export const PRESENCE_REFRESH_MARGIN_MS = 30_000;
/** …and this often while the client holds fewer relay links than it wants. */
export const SECTOR_RETRY_MS = 30_000;
/** A relay whose link was lost (or that cannot be dialled) is not chosen again for this long… */
export const LOST_RELAY_AVOID_MS = 120_000;
/**
 * …unless the client holds no relay link at all: then a lost relay is tried again this long after
 * its loss, the delay doubling with each loss in a row up to STRANDED_RETRY_MAX_MS.
 */
export const STRANDED_RETRY_BASE_MS = 5_000;
export const STRANDED_RETRY_MAX_MS = 60_000;
/** Chosen relays remembered with their endpoints (their presences expire here), at most. */
export const REMEMBERED_RELAYS = 16;
/** The file in a client's data directory that keeps the relays it chose. */
export const RELAY_MEMORY_FILE = 'relays.json';
/** Version of its layout. */
const MEMORY_VERSION = 1;
/** Failed dials after which a chosen relay counts as lost. */
const FAILED_DIALS = 2;
/** How often dial failures, avoidance ends and refreshes are checked. */
const MAINTENANCE_MS = 5_000;

export interface RelayChoiceOptions {
  peers: PeerNetwork;
  /** The client's wallet address (without checksum): its sector is SHA3-512(address)[0..10]. */
  address: Uint8Array;
  clock: NetClock;
  /** Choices, for the node's log. */
  onChange?: (event: { relay: Uint8Array; host: string; action: 'chosen' | 'dropped' | 'lost' }) => void;
  /** Where the relays chosen are kept across restarts ({@link RELAY_MEMORY_FILE}); none = in memory only. */
  memoryFile?: string;
  /** That file could not be read or written (the choice goes on in memory). */
  onFileError?: (error: unknown, action: 'read' | 'write') => void;
}

interface Avoided {
  /** Chosen again by a client with relay links from then on. */
  until: number;
  /** Chosen again by a client with no relay link from then on. */
  retryAt: number;
  /** Losses in a row (the retry delay doubles with each). */
  losses: number;
}

interface Known {
  wallet: Uint8Array;
  host: string;
  /** Its key in the sector tree (§3.5), to rank it. */
  key: Uint8Array;
}

interface Chosen {
  wallet: Uint8Array;
  host: string;
  key: string;
  /** Whether the chooser added the dial target (else another part dials it: a named peer, messaging). */
  owned: boolean;
}

export class RelayChooser {
  readonly prefix: Uint8Array;
  private readonly chosen = new Map<string, Chosen>();
  private readonly avoided = new Map<string, Avoided>();
  /** Relays chosen once, with their endpoints, kept after their presences expired here. */
  private readonly remembered = new Map<string, Known>();
  private lastAskedAt = -Infinity;
  /** When servers were last asked for random masters. */
  private mastersAskedAt = -Infinity;
  /** Dropping a link closes it, which calls back into linkClosed: one pass at a time, repeated if asked meanwhile. */
  private reconsidering = false;
  private again = false;
  private timer: TimerHandle | null = null;
  private running = false;
  /** Since when the client holds no relay link (null: it holds one). */
  private strandedSince: number | null = null;
  /** Sector asks made since then (their spacing doubles). */
  private strandedAsks = 0;

  constructor(private readonly o: RelayChoiceOptions) {
    this.prefix = sectorPrefix(o.address);
    if (o.memoryFile) this.load(o.memoryFile);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.strandedSince = this.o.clock.now();
    this.strandedAsks = 0;
    this.schedule();
    // The relays remembered from before are dialled now, as the reference's client dials from its
    // peers file at start, not after the first maintenance pass.
    if (this.remembered.size > 0) this.reconsider();
  }

  stop(): void {
    this.running = false;
    this.timer?.cancel();
    this.timer = null;
  }

  /** How many relays are remembered from earlier runs (`relays.json`), to dial at start. */
  get rememberedCount(): number {
    return this.remembered.size;
  }

  /** The relays chosen now (wallet addresses), nearest first. */
  relays(): Uint8Array[] {
    return [...this.chosen.values()].map((c) => c.wallet);
  }

  /**
   * Master links this client wants now: one while it has held no relay link for
   * STRANDED_RETRY_BASE_MS (to ask for its sector), or at once when it has no relay to dial at all
   * (no `--peer`, none remembered: only seeds, as the reference's client starts from its peer
   * store); else none (the peer network drops the ones it dialled for this).
   */
  mastersWanted(): number {
    if (!this.running || this.strandedSince === null) return 0;
    const nothingElse = !this.o.peers.hasConfiguredPeers && this.remembered.size === 0;
    return nothingElse || this.o.clock.now() - this.strandedSince >= STRANDED_RETRY_BASE_MS ? 1 : 0;
  }

  /**
   * A link opened: a server is asked for random masters (to find relays through later); the first
   * server link, or a master while we are short of relays, is asked for our sector; a named relay
   * may make one of ours unneeded.
   */
  linkOpened(link: Link): void {
    if (!this.running || !SERVER_TYPES.includes(link.peerType)) return;
    this.askMasters(link);
    if (MASTER_TYPES.includes(link.peerType) && this.short()) this.ask(link);
    else if (this.lastAskedAt === -Infinity) this.ask();
    if (link.peerType !== 'R') return;
    this.avoided.delete(toHex(link.peerAddress)); // reachable again
    this.reconsider();
  }

  /**
   * A link closed: a chosen relay's loss is replaced by the next nearest relay. A link this node
   * closed by request (the operator's `isolate`, `reconnect`, `blacklistpeer`) does not lose its
   * relay: the dialer dials it again, and one that cannot be dialled is lost by the failed-dial rule.
   */
  linkClosed(link: Link, info: CloseInfo): void {
    if (!this.running || !link.peer || link.peerType !== 'R') return;
    const hex = toHex(link.peer.address);
    const c = this.chosen.get(hex);
    if (c && !(info.byUs && info.reason === 'requested')) this.lose(hex, c);
    this.reconsider();
  }

  /** The operator's `reconnect`: no relay is avoided any more; the nearest are chosen (and dialled) again. */
  reconnect(): void {
    if (!this.running) return;
    this.avoided.clear();
    this.reconsider();
  }

  /** A `sectorNodes` answer (its presences are in the presence list already). */
  sectorNodes(prefix: Uint8Array): void {
    if (this.running && equalBytes(prefix, this.prefix)) this.reconsider();
  }

  private schedule(): void {
    this.timer = this.o.clock.setTimer(MAINTENANCE_MS, () => {
      if (!this.running) return;
      this.maintain();
      this.schedule();
    });
  }

  private maintain(): void {
    const now = this.o.clock.now();
    for (const [hex, a] of this.avoided) if (a.until <= now) this.avoided.delete(hex);
    // A chosen relay that cannot be dialled is lost too.
    const states = new Map(this.o.peers.dialer.list().map((t) => [t.key, t]));
    for (const [hex, c] of this.chosen) {
      const t = states.get(c.key);
      if (c.owned && t && t.state !== 'linked' && t.failures >= FAILED_DIALS) this.lose(hex, c);
    }
    const relaysExpire = this.firstExpiry('R');
    const expiring = relaysExpire !== null && relaysExpire - PRESENCE_REFRESH_MARGIN_MS <= now && now - this.lastAskedAt >= SECTOR_RETRY_MS;
    if (expiring || now - this.lastAskedAt >= SECTOR_REFRESH_MS) this.ask();
    // Masters to find relays through, should ours all go: asked again while none is held (the
    // relay we linked to may have known none yet), and before the ones held expire.
    const mastersExpire = this.firstExpiry('M');
    if ((mastersExpire === null || mastersExpire - PRESENCE_REFRESH_MARGIN_MS <= now) && now - this.mastersAskedAt >= MAINTENANCE_MS) {
      const link = this.o.peers.primaryRelay ?? this.o.peers.links(SERVER_TYPES)[0];
      if (link) this.askMasters(link);
    }
    this.reconsider();
  }

  /** When the first presence of this role held here expires (ms), or null when none is held. */
  private firstExpiry(role: 'R' | 'M'): number | null {
    const at = this.o.peers.presence.firstExpiry(role);
    return at === null ? null : at * 1000;
  }

  /** Asks a server for random master presences (QUIXI `handleHelloData`); they go into the peer book. */
  private askMasters(link: Link): void {
    this.mastersAskedAt = this.o.clock.now();
    link.send({ code: MessageCode.getRandomPresences, type: 'M' });
  }

  /** Fewer relays linked or chosen than wanted. */
  private short(): boolean {
    const peers = this.o.peers;
    const named = peers.links(['R']).filter((l) => peers.isConfigured(l)).length;
    return named + this.chosen.size < RELAY_LINKS;
  }

  /** Asks one server link for our sector: `to`, else a master if linked (it holds every relay), else a relay. */
  private ask(to?: Link): void {
    const links = this.o.peers.links(SERVER_TYPES);
    const link = to ?? links.find((l) => MASTER_TYPES.includes(l.peerType)) ?? this.o.peers.primaryRelay ?? links[0];
    if (!link) return;
    this.lastAskedAt = this.o.clock.now();
    if (this.strandedSince !== null) this.strandedAsks++;
    link.send({ code: MessageCode.getSectorNodes, prefix: this.prefix, max: SECTOR_NODES_REQUESTED });
  }

  /** Chooses the relays to link to now and adds or drops dial targets to match. */
  private reconsider(): void {
    if (this.reconsidering) {
      this.again = true;
      return;
    }
    this.reconsidering = true;
    try {
      do {
        this.again = false;
        this.choose();
      } while (this.again);
    } finally {
      this.reconsidering = false;
    }
  }

  private choose(): void {
    const peers = this.o.peers;
    const now = this.o.clock.now();
    const relayLinks = peers.links(['R']);
    const named = relayLinks.filter((l) => peers.isConfigured(l));
    const want = Math.max(0, RELAY_LINKS - named.length);
    const taken = new Set(named.map((l) => toHex(l.peerAddress)));
    // Avoidance never strands the client: with no relay link, a lost relay is tried again when its retry is due.
    const stranded = relayLinks.length === 0;
    if (!stranded) this.strandedSince = null;
    else if (this.strandedSince === null) {
      this.strandedSince = now;
      this.strandedAsks = 0;
    }
    const next = new Map<string, { wallet: Uint8Array; host: string }>();
    for (const [hex, r] of this.known(SECTOR_NODES_REQUESTED + taken.size + this.avoided.size)) {
      if (next.size >= want) break;
      const a = this.avoided.get(hex);
      if (taken.has(hex) || (a && !(stranded && a.retryAt <= now))) continue;
      next.set(hex, r);
    }
    // A linked relay of ours stays while we know too few others (its presence may have expired here).
    for (const [hex, c] of this.chosen) {
      if (next.size >= want) break;
      if (!next.has(hex) && !taken.has(hex) && peers.registry.byIdentity(c.wallet)?.isOpen) next.set(hex, c);
    }
    for (const [hex, c] of [...this.chosen]) if (!next.has(hex)) this.release(hex, c, 'dropped');
    for (const [hex, r] of next) if (!this.chosen.has(hex)) this.adopt(hex, r.wallet, r.host);
    // Short of relays: asked again after 30 s; with none linked (the relays it dials may all be gone), at once, then 5 s doubling to 30 s.
    const retryMs = stranded ? Math.min(SECTOR_RETRY_MS, STRANDED_RETRY_BASE_MS * 2 ** Math.max(0, this.strandedAsks - 1)) : SECTOR_RETRY_MS;
    if ((next.size < want || stranded) && (now - this.lastAskedAt >= retryMs || (stranded && this.strandedAsks === 0))) this.ask();
  }

  /**
   * The relays we know, nearest our sector first: from their presences (the endpoint they sign
   * now), and the ones we chose before whose presences expired here.
   */
  private known(max: number): [string, Known][] {
    const out = new Map<string, Known>();
    for (const r of this.o.peers.presence.closestRelays(this.prefix, max)) {
      const host = r.devices.find((d) => parseTarget(d.host))?.host;
      if (host) out.set(toHex(r.wallet), { wallet: r.wallet, host, key: relayKey(r.wallet) });
    }
    for (const [hex, k] of this.remembered) if (!out.has(hex)) out.set(hex, k);
    const nearer = nearerRelayKey(this.prefix);
    return [...out].sort((a, b) => nearer(a[1].key, b[1].key));
  }

  /** Remembers a chosen relay's endpoint; past REMEMBERED_RELAYS the farthest is forgotten. */
  private remember(hex: string, wallet: Uint8Array, host: string): void {
    if (this.remembered.get(hex)?.host === host) return;
    this.remembered.set(hex, { wallet, host, key: relayKey(wallet) });
    if (this.remembered.size > REMEMBERED_RELAYS) {
      const nearer = nearerRelayKey(this.prefix);
      const farthest = [...this.remembered].sort((a, b) => nearer(b[1].key, a[1].key))[0]!;
      this.remembered.delete(farthest[0]);
    }
    this.save();
  }

  private save(): void {
    if (!this.o.memoryFile) return;
    const relays = [...this.remembered.values()].map((k) => ({ wallet: toHex(k.wallet), host: k.host }));
    try {
      writeFileAtomic(this.o.memoryFile, `${JSON.stringify({ version: MEMORY_VERSION, relays })}\n`);
    } catch (err) {
      this.o.onFileError?.(err, 'write');
    }
  }

  /** Reads the file; a missing one remembers nothing, a damaged one is reported and ignored. */
  private load(file: string): void {
    const parsed = readJsonFile(file, (err) => this.o.onFileError?.(err, 'read')) as { version?: unknown; relays?: unknown } | null | undefined;
    if (parsed === undefined) return;
    try {
      if (parsed?.version !== MEMORY_VERSION || !Array.isArray(parsed.relays)) throw new Error(`not a version-${MEMORY_VERSION} relay list`);
      for (const r of parsed.relays.slice(0, REMEMBERED_RELAYS) as { wallet?: unknown; host?: unknown }[]) {
        if (typeof r?.wallet !== 'string' || typeof r.host !== 'string' || !parseTarget(r.host)) continue;
        const wallet = fromHex(r.wallet, 'relay wallet');
        this.remembered.set(toHex(wallet), { wallet, host: r.host, key: relayKey(wallet) });
      }
    } catch (err) {
      this.o.onFileError?.(err, 'read');
    }
  }

  private adopt(hex: string, wallet: Uint8Array, host: string): void {
    const target = { ...parseTarget(host)!, expectedAddress: wallet };
    const key = targetKey(target);
    const dialer = this.o.peers.dialer;
    // Already dialled by someone else (a named peer, the messaging service) or linked: nothing to add.
    const owned = !dialer.has(key) && !this.o.peers.registry.byIdentity(wallet)?.isOpen;
    if (owned) dialer.add(target);
    this.chosen.set(hex, { wallet, host, key, owned });
    this.remember(hex, wallet, host);
    this.o.onChange?.({ relay: wallet, host, action: 'chosen' });
  }

  private release(hex: string, c: Chosen, action: 'dropped' | 'lost'): void {
    this.chosen.delete(hex);
    if (c.owned) this.o.peers.dialer.remove(c.key);
    this.o.onChange?.({ relay: c.wallet, host: c.host, action });
  }

  private lose(hex: string, c: Chosen): void {
    const now = this.o.clock.now();
    const losses = (this.avoided.get(hex)?.losses ?? 0) + 1;
    const retryMs = Math.min(STRANDED_RETRY_MAX_MS, STRANDED_RETRY_BASE_MS * 2 ** Math.min(losses - 1, 10));
    this.avoided.set(hex, { until: now + LOST_RELAY_AVOID_MS, retryAt: now + retryMs, losses });
    this.release(hex, c, 'lost');
  }
}
