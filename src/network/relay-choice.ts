/**
 * A client's relays by sector (reference-network.md §3.5, §10 keep 7). From its first link (a
 * relay or a master the operator named) the client asks `getSectorNodes` for its own address's
 * sector prefix, and keeps links to the relays nearest that sector, nearest first
 * (`PresenceList.closestRelays`); it asks again every 300 s, and sooner while it is short of
 * relays. A relay link that is lost is replaced by the next nearest relay, and the lost one is
 * avoided for a while. Relays the operator named (`--peer`, seeds) are kept by the dialer as
 * they are and count toward the links wanted, so a named relay stays the client's relay (the
 * peer network makes it the primary: the client's presence host).
 *
 * Simplified from the reference (QUIXI `handleSectorNodes`, CORE `NetworkClientManagerStatic`,
 * which keeps 3 sector links plus up to 6 random stream links): one or two relay links in all.
 */
import { sectorPrefix } from '../formats/address.js';
import { equalBytes, toHex } from '../formats/bytes.js';
import type { NetClock, TimerHandle } from './clock.js';
import { parseTarget, targetKey } from './dial.js';
import type { CloseInfo, Link } from './link.js';
import { MASTER_TYPES, SERVER_TYPES, type PeerNetwork } from './peer-network.js';
import { MessageCode } from './protocol/codes.js';

/** Relay links a client keeps, the named ones included (issue 9 point 1: one or two). */
export const RELAY_LINKS = 2;
/** Relays asked for in `getSectorNodes` (CORE `maxRelaySectorNodesToRequest` default, §3.5). */
export const SECTOR_NODES_REQUESTED = 6;
/** The sector is asked again this often (§3.5: 300 s). */
export const SECTOR_REFRESH_MS = 300_000;
/** …and this often while the client holds fewer relay links than it wants. */
export const SECTOR_RETRY_MS = 30_000;
/** A relay whose link was lost (or that cannot be dialled) is not chosen again for this long. */
export const LOST_RELAY_AVOID_MS = 120_000;
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
  private readonly avoided = new Map<string, number>();
  private lastAskedAt = -Infinity;
  /** Dropping a link closes it, which calls back into linkClosed: one pass at a time, repeated if asked meanwhile. */
  private reconsidering = false;
  private again = false;
  private timer: TimerHandle | null = null;
  private running = false;

  constructor(private readonly o: RelayChoiceOptions) {
    this.prefix = sectorPrefix(o.address);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    this.timer?.cancel();
    this.timer = null;
  }

  /** The relays chosen now (wallet addresses), nearest first. */
  relays(): Uint8Array[] {
    return [...this.chosen.values()].map((c) => c.wallet);
  }

  /** A link opened: the first server link is asked for our sector; a named relay may make one of ours unneeded. */
  linkOpened(link: Link): void {
    if (!this.running || !SERVER_TYPES.includes(link.peerType)) return;
    if (this.lastAskedAt === -Infinity) this.ask();
    if (link.peerType === 'R') this.reconsider();
  }

  /** A link closed: a chosen relay's loss is replaced by the next nearest relay. */
  linkClosed(link: Link, _info: CloseInfo): void {
    if (!this.running || !link.peer || link.peerType !== 'R') return;
    const hex = toHex(link.peer.address);
    const c = this.chosen.get(hex);
    if (c) this.lose(hex, c);
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
    for (const [hex, until] of this.avoided) if (until <= now) this.avoided.delete(hex);
    // A chosen relay that cannot be dialled is lost too.
    const states = new Map(this.o.peers.dialer.list().map((t) => [t.key, t]));
    for (const [hex, c] of this.chosen) {
      const t = states.get(c.key);
      if (c.owned && t && t.state !== 'linked' && t.failures >= FAILED_DIALS) this.lose(hex, c);
    }
    if (now - this.lastAskedAt >= SECTOR_REFRESH_MS) this.ask();
    this.reconsider();
  }

  /** Asks one server link for our sector: a master if linked (it holds every relay), else a relay. */
  private ask(): void {
    const links = this.o.peers.links(SERVER_TYPES);
    const link = links.find((l) => MASTER_TYPES.includes(l.peerType)) ?? this.o.peers.primaryRelay ?? links[0];
    if (!link) return;
    this.lastAskedAt = this.o.clock.now();
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
    const named = peers.links(['R']).filter((l) => peers.isConfigured(l));
    const want = Math.max(0, RELAY_LINKS - named.length);
    const taken = new Set(named.map((l) => toHex(l.peerAddress)));
    const next = new Map<string, { wallet: Uint8Array; host: string }>();
    for (const r of peers.presence.closestRelays(this.prefix, SECTOR_NODES_REQUESTED + taken.size + this.avoided.size)) {
      if (next.size >= want) break;
      const hex = toHex(r.wallet);
      const host = r.devices.find((d) => parseTarget(d.host))?.host;
      if (!host || taken.has(hex) || this.avoided.has(hex)) continue;
      next.set(hex, { wallet: r.wallet, host });
    }
    // A linked relay of ours stays while we know too few others (its presence may have expired here).
    for (const [hex, c] of this.chosen) {
      if (next.size >= want) break;
      if (!next.has(hex) && !taken.has(hex) && peers.registry.byIdentity(c.wallet)?.isOpen) next.set(hex, c);
    }
    for (const [hex, c] of [...this.chosen]) if (!next.has(hex)) this.release(hex, c, 'dropped');
    for (const [hex, r] of next) if (!this.chosen.has(hex)) this.adopt(hex, r.wallet, r.host);
    if (next.size < want && this.o.clock.now() - this.lastAskedAt >= SECTOR_RETRY_MS) this.ask();
  }

  private adopt(hex: string, wallet: Uint8Array, host: string): void {
    const target = { ...parseTarget(host)!, expectedAddress: wallet };
    const key = targetKey(target);
    const dialer = this.o.peers.dialer;
    // Already dialled by someone else (a named peer, the messaging service) or linked: nothing to add.
    const owned = !dialer.has(key) && !this.o.peers.registry.byIdentity(wallet)?.isOpen;
    if (owned) dialer.add(target);
    this.chosen.set(hex, { wallet, host, key, owned });
    this.o.onChange?.({ relay: wallet, host, action: 'chosen' });
  }

  private release(hex: string, c: Chosen, action: 'dropped' | 'lost'): void {
    this.chosen.delete(hex);
    if (c.owned) this.o.peers.dialer.remove(c.key);
    this.o.onChange?.({ relay: c.wallet, host: c.host, action });
  }

  private lose(hex: string, c: Chosen): void {
    this.avoided.set(hex, this.o.clock.now() + LOST_RELAY_AVOID_MS);
    this.release(hex, c, 'lost');
  }
}
