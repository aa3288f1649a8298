/**
 * The node's peer network without the chain: links (accepted and dialled), presence and
 * keep-alives handled in full (reference-network.md §3), role-filtered broadcast and batched
 * inventory (§4.2, §10 keep 2), and the operations behind `status` and the peer RPCs (§9).
 * Messages about transactions, blocks, signatures and stream messages go to the node's handler
 * (`onMessage`), which owns the mempool, chain and consensus.
 */
import { randomBytes } from 'node:crypto';
import { addressFromText, addressToText } from '../formats/address.js';
import { toHex } from '../formats/bytes.js';
import { verifySignature } from '../formats/rsa.js';
import { systemClock, type NetClock, type TimerHandle } from './clock.js';
import { Dialer, parseTarget, targetKey, type DialerOptions, type DialTarget } from './dial.js';
import { InventoryBatcher } from './inventory.js';
import type { PeerBook } from './peer-book.js';
import {
  defaultAcceptedRoles,
  Link,
  type CloseInfo,
  type LinkContext,
  type LinkStats,
  type LocalNode,
  type PeerInfo,
  type PeerSocket,
} from './link.js';
import { KeepAliveProducer, PRESENCE_PURGE_INTERVAL_SECONDS, PresenceList, type MasterPowCheck, type SignatureVerifier } from './presence.js';
import { MessageCode } from './protocol/codes.js';
import { CLOSE_REASONS, CloseReason } from './protocol/close.js';
import type { HelloVerifier } from './protocol/hello.js';
import {
  encodeMessage,
  MAX_KEEPALIVES_PER_CHUNK,
  MAX_SECTOR_NODES,
  type InventoryItem,
  type KeepAlive,
  type Message,
  type NodeType,
  type OutgoingMessage,
} from './protocol/messages.js';
import { DEFAULT_PEER_LIMITS, PeerRegistry, type PeerLimits } from './registry.js';
import { hostOf, PeerScores, walletKey } from './scoring.js';
import { SeenSet } from './seen.js';
import { networkHeight, networkStatusMembers, type NetworkStatusMembers } from './status.js';

/** Presence requests to one wallet are not repeated within this time (§7.1: 30 s). */
const PRESENCE_REQUEST_DEDUP_MS = 30_000;
/** A relay forwards one client's request for a missing presence to the masters at most this often. */
const PRESENCE_FORWARD_DEDUP_MS = 2_000;
/**
 * Inbound sockets still in their hello at once. Each costs a little memory and a timer for up to
 * 10 s; beyond this many, new sockets are refused with `capacity` so a connection flood cannot
 * grow memory (open links are bounded by the registry's limits).
 */
export const MAX_PENDING_HANDSHAKES = 256;
/**
 * Inbound sockets of one host (remote IP) in their hello at once: beyond it that host's new sockets
 * are refused with `capacity`, other hosts still get in, so one host cannot take all
 * MAX_PENDING_HANDSHAKES slots. Loopback is one host and a devnet runs every node there: a dozen
 * nodes dialling one node at once (each redialling a failed link once) stay well below it.
 */
export const MAX_PENDING_HANDSHAKES_PER_HOST = 32;
/**
 * A relay answers a sector query from its own relay tree when a master refreshed that sector
 * within this time; otherwise it asks a master first (§3.5, S2 `handleGetSectorNodes`).
 */
export const SECTOR_FRESH_MS = 30_000;
/** A relay that asked a master for a sector answers its askers from its own tree after this long. */
export const SECTOR_FORWARD_TIMEOUT_MS = 5_000;
/** Sector queries a relay holds for its masters' answer at once (beyond it, it answers at once). */
const MAX_PENDING_SECTORS = 1_000;
/** Keep-alive inventory ids remembered (one per device refresh). */
const KEEPALIVE_SEEN_CAPACITY = 100_000;
/** Peers the `connect` RPC may add (each is dialled and redialled until the node stops, once reached). */
export const MAX_CONNECT_TARGETS = 256;
/** How often a node looks for masters to dial (the reference's 2 s reconnect loop, §2.1). */
export const DISCOVERY_INTERVAL_MS = 2_000;
/** Failed dials in a row before a discovered master is dropped (the reference's 3, §2.1). */
export const DISCOVERED_DIAL_ATTEMPTS = 3;
/**
 * Failed dials in a row before a peer added by `connect` that was never reached is dropped (as a
 * discovered master): an address where no peer listens is not redialled for ever.
 */
export const CONNECT_DIAL_ATTEMPTS = DISCOVERED_DIAL_ATTEMPTS;
/** A peer book that only changed its times is written at most this often. */
const PEER_BOOK_SAVE_MS = 60_000;
/** Masters a relay keeps links to (S2 `maxRelayMasterNodesToConnectTo`); a master aims at its outbound limit (12). */
const RELAY_MASTER_LINKS = 6;

export const MASTER_TYPES: readonly NodeType[] = ['M', 'H'];
export const SERVER_TYPES: readonly NodeType[] = ['M', 'H', 'W', 'R'];

export interface PeerNetworkOptions {
  local: LocalNode;
  clock?: NetClock;
  /** Device id of this node (default {@link defaultDeviceId}). */
  deviceId?: Uint8Array;
  limits?: Partial<PeerLimits>;
  verify?: HelloVerifier & SignatureVerifier;
  /** Peers to keep links to (`--peer`, seeds). */
  peers?: DialTarget[];
  /** Extra endpoints of ours never to dial (besides `local.endpoint`). */
  ownEndpoints?: string[];
  /** Messages the network does not handle itself: transactions, blocks, signatures, s2data, rejected… */
  onMessage?: (link: Link, message: Message) => void | Promise<void>;
  onOpen?: (link: Link) => void;
  onClose?: (link: Link, info: CloseInfo) => void;
  onError?: (link: Link | null, error: unknown) => void;
  /** A dialled target closed with a permanent reason (wrong network, wrong genesis…): it is not dialled again. */
  onGiveUp?: (target: DialTarget, reason: CloseReason) => void;
  /**
   * A peer added by the `connect` operation was not reached: after its first failed dial
   * (`givenUp` false, `detail` says why), and when it is dropped, never reached after
   * CONNECT_DIAL_ATTEMPTS dials (`givenUp` true).
   */
  onConnectFailed?: (target: DialTarget, detail: string, givenUp: boolean) => void;
  /**
   * A configured peer (`--peer`) could not be reached (no peer answered: refused, timed out, not
   * a peer port): its first failed dial since start (or the operator's `reconnect`), with why (the reference logs each failed connection at info, CORE
   * `NetworkClient.connectToServer`); it is dialled again with backoff. One that was linked and
   * went away is told by its disconnection instead.
   */
  onPeerUnreachable?: (target: DialTarget, detail: string) => void;
  /** Options passed to each link (timeouts, queue bounds). */
  linkOptions?: Partial<Pick<LinkContext, 'helloTimeoutMs' | 'idleTimeoutMs' | 'pingIntervalMs' | 'maxSendQueueBytes' | 'socketHighWaterBytes' | 'maxClockSkewSeconds'>>;
  /** Reconnect delays of the dialer (and, in tests, how it opens a socket). */
  dial?: Pick<DialerOptions, 'baseDelayMs' | 'maxDelayMs' | 'path' | 'openSocket'>;
  /** Inbound sockets allowed in their hello at once (default MAX_PENDING_HANDSHAKES). */
  maxPendingHandshakes?: number;
  /** Inbound sockets of one host allowed in their hello at once (default MAX_PENDING_HANDSHAKES_PER_HOST). */
  maxPendingHandshakesPerHost?: number;
  /**
   * The masters heard of (presences, hellos), kept across restarts: masters and relays dial from
   * it until they hold their number of master links (§2.1, §2.2). None = configured peers only.
   */
  peerBook?: PeerBook;
  /**
   * Seeds (`--seed`): master endpoints put in the peer book at start (§2.2, CORE
   * `NetworkClientManager.init`), dialled from it like the masters heard of, not kept linked as
   * `peers` are: a client dials one only while it wants a master link (its relays all gone).
   */
  seeds?: DialTarget[];
  /**
   * A client's master links wanted now (its relay choice's `mastersWanted`: one while it has no
   * relay link, to ask for its sector, §3.5); discovery dials them from the peer book and lets
   * them go when none is wanted. None = 0: a client links to masters only as configured.
   */
  clientMasterLinks?: () => number;
  /**
   * Master signer PoW in presence (§3.3–§3.4): whether M/H keep-alives must carry a solution (ours
   * included: a master without one sends none), the check of received ones, and our own solution
   * and when it expired.
   */
  presence?: {
    requireMasterPow?: boolean;
    checkMasterPow?: MasterPowCheck;
    ownPowSolution?: () => Uint8Array | null;
    ownPowExpired?: (solution: Uint8Array) => boolean;
  };
}

/**
 * A node's device id: fixed for masters (DLT `Meta/Node.cs`: 00) and relays (IxianS2 `Meta/Node.cs`:
 * 01), so a restarted one refreshes its presence's device instead of adding one that others count
 * until it expires (presences count devices, CORE `PresenceList.updateEntry`); a client's is 16
 * random bytes per start (CORE `CoreConfig.device_id`).
 */
export function defaultDeviceId(type: NodeType): Uint8Array {
  if (MASTER_TYPES.includes(type)) return Uint8Array.of(0);
  if (type === 'R') return Uint8Array.of(1);
  return new Uint8Array(randomBytes(16));
}

/** Node types a keep-alive of `own` type goes to (§3.3): clients only to relays. */
const keepAliveTargets = (own: NodeType): readonly NodeType[] => (own === 'C' ? ['R'] : SERVER_TYPES);

export class PeerNetwork {
  readonly clock: NetClock;
  readonly registry: PeerRegistry<Link>;
  readonly scores: PeerScores;
  readonly presence: PresenceList;
  readonly dialer: Dialer;
  readonly stats: LinkStats = { framesIn: new Map(), framesOut: new Map(), bytesIn: 0, bytesOut: 0 };
  readonly ctx: LinkContext;
  private readonly local: LocalNode;
  private readonly producer: KeepAliveProducer;
  private readonly live = new Set<Link>();
  private readonly batchers = new Map<Link, InventoryBatcher>();
  private readonly keepAliveSeen: SeenSet;
  private readonly presenceAsked: SeenSet;
  /** A relay's forwarded presence requests (short dedup: clients retry every few seconds). */
  private readonly presenceForwarded: SeenSet;
  /** Targets given by the operator (`--peer`, seeds): their links are preferred (targetKey). */
  private readonly configured: Set<string>;
  /** A client's primary relay: its endpoint is the client's presence host (§3.1, §3.5). */
  private primary: Link | null = null;
  /** A relay's sectors refreshed from a master (§3.5), and the queries waiting for a master's answer. */
  private readonly sectorsRefreshed: SeenSet;
  private readonly sectorsPending = new Map<string, { prefix: Uint8Array; askers: Map<Link, number>; timer: TimerHandle }>();
  private keepAliveTimer: TimerHandle | null = null;
  private purgeTimer: TimerHandle | null = null;
  private discoveryTimer: TimerHandle | null = null;
  private bookSavedAt = 0;
  /** Masters a client's discovery dialled (targetKey), let go when it wants none. */
  private readonly clientDiscovered = new Set<string>();
  /** Targets the `connect` RPC added (targetKey). */
  private readonly connectTargets = new Set<string>();
  private running = false;
  private lastInboundAt: number | null = null;

  constructor(private readonly o: PeerNetworkOptions) {
    this.clock = o.clock ?? systemClock;
    this.local = o.local;
    const base = o.local.nodeType === 'R' || o.local.nodeType === 'C' ? o.local.nodeType : 'M';
    this.registry = new PeerRegistry<Link>(o.local.address, { ...DEFAULT_PEER_LIMITS[base], ...o.limits });
    this.scores = new PeerScores({ clock: this.clock });
    this.presence = new PresenceList({
      network: o.local.network,
      clock: this.clock,
      verify: o.verify ?? verifySignature,
      ...(o.presence?.requireMasterPow !== undefined ? { requireMasterPow: o.presence.requireMasterPow } : {}),
      ...(o.presence?.checkMasterPow ? { checkMasterPow: o.presence.checkMasterPow } : {}),
    });
    this.keepAliveSeen = new SeenSet({ capacity: KEEPALIVE_SEEN_CAPACITY, ttlMs: 600_000, clock: this.clock });
    this.presenceAsked = new SeenSet({ capacity: 10_000, ttlMs: PRESENCE_REQUEST_DEDUP_MS, clock: this.clock });
    this.presenceForwarded = new SeenSet({ capacity: 10_000, ttlMs: PRESENCE_FORWARD_DEDUP_MS, clock: this.clock });
    this.sectorsRefreshed = new SeenSet({ capacity: 10_000, ttlMs: SECTOR_FRESH_MS, clock: this.clock });
    this.configured = new Set((o.peers ?? []).map(targetKey));
    this.producer = new KeepAliveProducer({
      network: o.local.network,
      clock: this.clock,
      address: o.local.address,
      deviceId: o.deviceId ?? defaultDeviceId(o.local.nodeType),
      type: o.local.nodeType,
      nodeVersion: o.local.productVersion,
      sign: o.local.sign,
      ...(o.presence?.ownPowSolution ? { powSolution: o.presence.ownPowSolution } : {}),
      ...(o.presence?.ownPowExpired ? { powExpired: o.presence.ownPowExpired } : {}),
      requirePow: o.presence?.requireMasterPow === true && MASTER_TYPES.includes(o.local.nodeType),
    });
    const self = this;
    this.ctx = {
      local: o.local,
      clock: this.clock,
      registry: this.registry,
      scores: this.scores,
      stats: this.stats,
      acceptedRoles: defaultAcceptedRoles(o.local.nodeType),
      ...(o.verify ? { verify: o.verify } : {}),
      ...o.linkOptions,
      handler: {
        onOpen: (link) => self.opened(link),
        onMessage: (link, m) => self.message(link, m),
        onClose: (link, info) => self.closed(link, info),
        onRefusedNotReady: (_link, peer) => self.learnMaster(peer),
        onError: (link, e) => o.onError?.(link, e),
      },
    };
    const own = [...(o.ownEndpoints ?? [])];
    if (o.local.endpoint) own.push(o.local.endpoint);
    this.dialer = new Dialer({
      clock: this.clock,
      ownEndpoints: own,
      createLink: (socket, target) => this.track(new Link(this.ctx, socket, { direction: 'outbound', remote: targetKey(target), ...(target.expectedAddress ? { expectedAddress: target.expectedAddress } : {}) })),
      // §2.1: no dialling of a peer already linked in either direction: by the wallet the target
      // must have or answered with last, or by the endpoint a linked peer advertised in its hello.
      canDial: (t, lastAddress) =>
        this.registry.hasOutboundRoom() &&
        !(t.expectedAddress && this.registry.byIdentity(t.expectedAddress)) &&
        !(lastAddress && this.registry.byIdentity(lastAddress)) &&
        !this.linkedEndpoint(targetKey(t)),
      ...(o.onGiveUp ? { onGiveUp: o.onGiveUp } : {}),
      // A discovered master that refused us for good (someone else now, another network): gone from
      // the book until a presence or hello names it again. One merely unreachable stays, tried
      // again after the book's RETRY_AFTER_MS: the reference lowers its rating, it keeps the peer
      // (§2.1), and a node whose masters were all down a while would otherwise have none to dial.
      onDropped: (target, reason) => {
        const key = targetKey(target);
        this.clientDiscovered.delete(key);
        if (this.connectTargets.delete(key)) return this.o.onConnectFailed?.(target, `${CONNECT_DIAL_ATTEMPTS} dials failed`, true);
        if (reason !== null && CLOSE_REASONS[reason].permanent) this.o.peerBook?.forget(key);
      },
      // With no link at all, redial at the pace of the reference's reconnect pass, not the 60 s cap;
      // a client with no relay link counts as isolated (a master link only helps it find relays, §3.5).
      isolation: {
        isolated: () => (this.local.nodeType === 'C' ? this.links(['R']) : this.registry.links()).length === 0,
        maxDelayMs: DISCOVERY_INTERVAL_MS,
      },
      onDialFailed: (target, { reason, detail, failures }) => {
        if (failures !== 1) return;
        const key = targetKey(target);
        if (this.connectTargets.has(key)) this.o.onConnectFailed?.(target, detail, false);
        // A peer that answered and refused (a close reason: one link per identity, not ready…) is logged by the link's close.
        else if (reason === null && this.configured.has(key)) this.o.onPeerUnreachable?.(target, detail);
      },
      ...o.dial,
    });
    for (const p of o.peers ?? []) this.dialer.add(p);
    for (const s of o.seeds ?? []) o.peerBook?.seed(targetKey(s));
  }

  /** Starts dialling, keep-alives and presence purging. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.dialer.start();
    this.schedulePurge();
    this.scheduleKeepAlive(0);
    if (this.o.peerBook) this.scheduleDiscovery(0);
  }

  /**
   * Our chain grew: keep-alives held back because their master PoW was over a block we lacked are
   * checked again (presence.retryDeferred). Not re-announced: the master sent them to its links itself.
   */
  async chainGrew(): Promise<void> {
    if (this.presence.deferredCount === 0) return;
    await this.presence.retryDeferred();
  }

  /** Closes every link and stops all timers. */
  stop(): void {
    this.running = false;
    this.dialer.stop('shutdown');
    this.keepAliveTimer?.cancel();
    this.purgeTimer?.cancel();
    this.discoveryTimer?.cancel();
    this.keepAliveTimer = this.purgeTimer = this.discoveryTimer = null;
    this.o.peerBook?.save();
    for (const p of this.sectorsPending.values()) p.timer.cancel();
    this.sectorsPending.clear();
    for (const l of [...this.live]) l.close(CloseReason.shutdown);
  }

  /** An accepted socket (the uWS route's `open`): returns its link, already started. */
  accept(socket: PeerSocket, remote: string): Link {
    const host = hostOf(remote).toLowerCase();
    let pending = 0;
    let fromHost = 0;
    for (const l of this.live) {
      if (l.direction !== 'inbound' || l.isOpen) continue;
      pending++;
      if (hostOf(l.remote).toLowerCase() === host) fromHost++;
    }
    const link = this.track(new Link(this.ctx, socket, { direction: 'inbound', remote }));
    this.lastInboundAt = this.clock.now();
    if (fromHost >= (this.o.maxPendingHandshakesPerHost ?? MAX_PENDING_HANDSHAKES_PER_HOST)) {
      link.close(CloseReason.capacity, 'too many pending handshakes from this host');
      return link;
    }
    if (pending >= (this.o.maxPendingHandshakes ?? MAX_PENDING_HANDSHAKES)) {
      link.close(CloseReason.capacity, 'too many pending handshakes');
      return link;
    }
    link.start();
    return link;
  }

  /** An outbound link over another transport (tests, a custom dialler): returns it, already started. */
  attachOutbound(socket: PeerSocket, remote: string, expectedAddress?: Uint8Array): Link {
    const link = this.track(new Link(this.ctx, socket, { direction: 'outbound', remote, ...(expectedAddress ? { expectedAddress } : {}) }));
    link.start();
    return link;
  }

  private track(link: Link): Link {
    this.live.add(link);
    return link;
  }

  /** Whether an open link's peer advertised `key` (targetKey form) as its endpoint. */
  private linkedEndpoint(key: string): boolean {
    for (const l of this.registry.links()) {
      const endpoint = l.peer?.endpoint;
      if (!endpoint) continue;
      const t = parseTarget(endpoint);
      if (t && targetKey(t).toLowerCase() === key.toLowerCase()) return true;
    }
    return false;
  }

  /** Whether an outbound link was dialled to a target the operator gave (`--peer`, a seed list). */
  isConfigured(link: Link): boolean {
    return link.direction === 'outbound' && this.configured.has(link.remote);
  }

  /** Whether the operator named peers to keep links to (`--peer`, the config's "peer" list). */
  get hasConfiguredPeers(): boolean {
    return this.configured.size > 0;
  }

  /** Whether anything can be dialled: peers the operator named, or masters in the peer book (seeds, learned ones). */
  get hasPeersToDial(): boolean {
    return this.configured.size > 0 || (this.o.peerBook?.size ?? 0) > 0;
  }

  /** A client's primary relay link (its presence host), or null. */
  get primaryRelay(): Link | null {
    return this.primary?.isOpen ? this.primary : null;
  }

  /** Open links whose peer type is in `types` (all open links without a filter). */
  links(types?: readonly NodeType[]): Link[] {
    const open = this.registry.links();
    return types ? open.filter((l) => types.includes(l.peerType)) : open;
  }

  /** Sends one message to every open link of the given types, except `except`; returns how many got it. */
  broadcast(message: OutgoingMessage, types?: readonly NodeType[], except?: Link): number {
    const targets = this.links(types).filter((l) => l !== except);
    if (targets.length === 0) return 0;
    const frame = encodeMessage(message);
    let n = 0;
    for (const l of targets) if (l.sendFrame(frame)) n++;
    return n;
  }

  /** Queues an inventory item for every open link of the given types except `except` (batched, ≤ 1 message/s/link). */
  announce(item: InventoryItem, types?: readonly NodeType[], except?: Link): void {
    for (const l of this.links(types)) {
      if (l === except) continue;
      this.batcherOf(l).add(item);
    }
  }

  private batcherOf(link: Link): InventoryBatcher {
    let b = this.batchers.get(link);
    if (!b) {
      b = new InventoryBatcher({ clock: this.clock, send: (items) => link.send({ code: MessageCode.inventory2, items }) });
      this.batchers.set(link, b);
    }
    return b;
  }

  // ---- link events -----------------------------------------------------------------------

  /**
   * A master whose hello checked out is a peer worth dialling later (its endpoint is signed in it);
   * `linked` when that hello opened a link.
   */
  private learnMaster(peer: PeerInfo, linked = false): void {
    const book = this.o.peerBook;
    if (!book || !peer.endpoint || !MASTER_TYPES.includes(peer.nodeType)) return;
    book.learn(peer.endpoint, peer.addressText);
    if (linked) book.connected(peer.endpoint);
  }

  private opened(link: Link): void {
    if (link.peer) this.learnMaster(link.peer, true);
    // A client's new primary relay changes its presence host: the other relays hear of it now. A
    // new keep-alive even on the same host (the relay restarted): only a newer timestamp tells a
    // sender that relay answered "not connected" to that the client is back (reference-network
    // §3.3: made anew when forced, e.g. with few links; §7.1 step 6).
    if (this.choosePrimary()) this.announceOwnKeepAlive(link, { fresh: true });
    // Tell the new peer who we are (if our keep-alives go to its type): presence, then keep-alives follow.
    if (keepAliveTargets(this.local.nodeType).includes(link.peerType)) {
      const own = this.ownPresence(link);
      if (own) link.send({ code: MessageCode.updatePresence, presence: own });
    }
    this.o.onOpen?.(link);
  }

  private closed(link: Link, info: CloseInfo): void {
    this.live.delete(link);
    this.batchers.get(link)?.close();
    this.batchers.delete(link);
    if (link === this.primary && this.choosePrimary()) this.announceOwnKeepAlive();
    this.o.onClose?.(link, info);
  }

  private async message(link: Link, m: Message): Promise<void> {
    switch (m.code) {
      case MessageCode.keepAlivePresence:
        return this.keepAlives(link, [m.keepAlive]);
      case MessageCode.keepAlivesChunk:
        return this.keepAlives(link, m.keepAlives);
      case MessageCode.getKeepAlives: {
        const out: Uint8Array[] = [];
        for (const it of m.items) {
          const d = this.presence.get(it.address)?.devices.get(toHex(it.deviceId));
          if (d) out.push(d.keepAlive);
        }
        for (let i = 0; i < out.length; i += MAX_KEEPALIVES_PER_CHUNK) {
          link.send({ code: MessageCode.keepAlivesChunk, keepAlives: out.slice(i, i + MAX_KEEPALIVES_PER_CHUNK) });
        }
        return;
      }
      case MessageCode.getPresence2: {
        const p = this.presence.encodePresenceOf(m.address);
        if (p) link.send({ code: MessageCode.updatePresence, presence: p });
        // A relay asked for a presence it does not hold (a client looking for a contact on
        // another relay) asks the masters; the client asks again on its next retry (issue 11).
        else if (this.local.nodeType === 'R' && link.peerType === 'C' && this.presenceForwarded.add(toHex(m.address))) {
          for (const l of this.links(MASTER_TYPES)) l.send({ code: MessageCode.getPresence2, address: m.address });
        }
        return;
      }
      case MessageCode.updatePresence: {
        const r = await this.presence.receivePresence(m.presence);
        if (r.offence) link.penalize(r.offence, r.reason ?? '');
        if (r.stored > 0) this.relayKeepAlives(link, m.presence.keepAlives);
        return;
      }
      case MessageCode.getRandomPresences: {
        const type = m.type === 'H' ? 'M' : m.type;
        if (type !== 'M' && type !== 'R' && type !== 'C') return;
        for (const w of this.presence.randomPresences(type, Math.random)) {
          const p = this.presence.encodePresenceOf(w);
          if (p) link.send({ code: MessageCode.updatePresence, presence: p });
        }
        return;
      }
      case MessageCode.getSectorNodes: {
        const max = Math.min(m.max, MAX_SECTOR_NODES);
        if (!this.forwardSectorQuery(link, m.prefix, max)) this.answerSector(link, m.prefix, max);
        return;
      }
      case MessageCode.sectorNodes: {
        // Only servers answer sector queries (QUIXI `handleSectorNodes` ignores others).
        if (!SERVER_TYPES.includes(link.peerType)) return;
        for (const p of m.presences) {
          const r = await this.presence.receivePresence(p);
          if (r.offence) link.penalize(r.offence, r.reason ?? '');
        }
        if (this.local.nodeType === 'R' && MASTER_TYPES.includes(link.peerType)) {
          const key = toHex(m.prefix);
          this.sectorsRefreshed.add(key);
          this.answerPendingSector(key);
        }
        break; // the node may act on the sector list too (a client picks its relays)
      }
      case MessageCode.inventory2: {
        const wanted: { address: Uint8Array; deviceId: Uint8Array }[] = [];
        const others: InventoryItem[] = [];
        for (const it of m.items) {
          if (it.type !== 5) {
            others.push(it);
            continue;
          }
          const key = `${toHex(it.address)}/${toHex(it.deviceId)}/${it.lastSeen}`;
          if (!this.keepAliveSeen.add(key)) continue;
          const entry = this.presence.get(it.address);
          if (!entry) this.askPresence(link, it.address);
          else if ((entry.devices.get(toHex(it.deviceId))?.lastSeen ?? -1) < Number(it.lastSeen)) wanted.push({ address: it.address, deviceId: it.deviceId });
        }
        for (let i = 0; i < wanted.length; i += MAX_KEEPALIVES_PER_CHUNK) {
          link.send({ code: MessageCode.getKeepAlives, items: wanted.slice(i, i + MAX_KEEPALIVES_PER_CHUNK) });
        }
        if (others.length === 0) return;
        return this.o.onMessage?.(link, { code: MessageCode.inventory2, items: others });
      }
    }
    return this.o.onMessage?.(link, m);
  }

  /** `sectorNodes`: the presences of the relays of a sector, from our relay tree (§3.5). */
  private answerSector(link: Link, prefix: Uint8Array, max: number): void {
    const presences = this.presence.encodePresencesOf(this.presence.sectorRelays(prefix, max));
    link.send({ code: MessageCode.sectorNodes, prefix, presences });
  }

  /**
   * A relay asked for a sector it has not had from a master within SECTOR_FRESH_MS asks a master
   * and answers when the master's list arrives, or from its own tree after a timeout (§3.5: a
   * relay hears of other relays only through the masters). False when it answers at once.
   */
  private forwardSectorQuery(link: Link, prefix: Uint8Array, max: number): boolean {
    if (this.local.nodeType !== 'R' || MASTER_TYPES.includes(link.peerType)) return false;
    const key = toHex(prefix);
    if (this.sectorsRefreshed.has(key)) return false;
    let pending = this.sectorsPending.get(key);
    if (!pending) {
      const master = this.links(MASTER_TYPES)[0];
      if (!master || this.sectorsPending.size >= MAX_PENDING_SECTORS) return false;
      master.send({ code: MessageCode.getSectorNodes, prefix, max: MAX_SECTOR_NODES });
      pending = { prefix, askers: new Map(), timer: this.clock.setTimer(SECTOR_FORWARD_TIMEOUT_MS, () => this.answerPendingSector(key)) };
      this.sectorsPending.set(key, pending);
    }
    pending.askers.set(link, max);
    return true;
  }

  private answerPendingSector(key: string): void {
    const pending = this.sectorsPending.get(key);
    if (!pending) return;
    this.sectorsPending.delete(key);
    pending.timer.cancel();
    for (const [l, max] of pending.askers) if (l.isOpen) this.answerSector(l, pending.prefix, max);
  }

  private askPresence(link: Link, address: Uint8Array): void {
    if (this.presenceAsked.add(`${toHex(address)}`)) link.send({ code: MessageCode.getPresence2, address });
  }

  /** Asks the masters we are linked to for a wallet's presence (once per dedup period). */
  askPresenceOfMasters(address: Uint8Array): void {
    if (!this.presenceAsked.add(`${toHex(address)}`)) return;
    for (const l of this.links(MASTER_TYPES)) l.send({ code: MessageCode.getPresence2, address });
  }

  private async keepAlives(link: Link, list: KeepAlive[]): Promise<void> {
    const updated: KeepAlive[] = [];
    for (const k of list) {
      const r = await this.presence.receiveKeepAlive(k);
      if (r.status === 'unknownWallet') this.askPresence(link, k.address);
      else if (r.status === 'rejected') link.penalize(r.offence, r.reason);
      else if (r.status === 'added' || r.status === 'updated') updated.push(k);
    }
    this.relayKeepAlives(link, updated);
  }

  /** §3.4 step 5: a master re-announces refreshed keep-alives, M/H ones to M/H/W/R, others to M/H/W; never back. */
  private relayKeepAlives(from: Link, list: readonly KeepAlive[]): void {
    // A relay announces its clients' keep-alives to the masters (reference §3.10: masters hold the
    // client keep-alives propagated to them), so a client on another relay can find them.
    if (this.local.nodeType === 'R') {
      for (const k of list) {
        if (k.type !== 'C') continue;
        this.announce({ type: 5, lastSeen: k.timestamp, address: k.address, deviceId: k.deviceId }, MASTER_TYPES, from);
      }
      return;
    }
    if (!MASTER_TYPES.includes(this.local.nodeType) || !this.local.acceptingPeers()) return;
    for (const k of list) {
      this.keepAliveSeen.add(`${toHex(k.address)}/${toHex(k.deviceId)}/${k.timestamp}`);
      const item: InventoryItem = { type: 5, lastSeen: k.timestamp, address: k.address, deviceId: k.deviceId };
      this.announce(item, MASTER_TYPES.includes(k.type) ? SERVER_TYPES : ['M', 'H', 'W'], from);
    }
  }

  // ---- own presence ----------------------------------------------------------------------

  /** The host of our keep-alive: our endpoint, or for a client the endpoint of its primary relay. */
  private keepAliveHost(): string {
    if (this.local.nodeType !== 'C') return this.local.endpoint;
    const relay = this.primaryRelay;
    return relay?.peer?.endpoint || relay?.remote || '';
  }

  /**
   * A client's primary relay (§3.5, QUIXI `handleHelloData`): a relay the operator named stays
   * preferred while linked; otherwise the current one stays while it lives, and when it is lost
   * another relay link takes its place. True when the primary changed.
   */
  private choosePrimary(): boolean {
    if (this.local.nodeType !== 'C') return false;
    const current = this.primaryRelay;
    const relays = this.links(['R']).filter((l) => l.direction === 'outbound');
    const next = (current && this.isConfigured(current) ? current : relays.find((l) => this.isConfigured(l))) ?? current ?? relays[0] ?? null;
    if (next === this.primary) return false;
    this.primary = next;
    return next !== null;
  }

  /** Sends our keep-alive (a fresh one when the host changed, or `fresh`) to its targets now, except `except`. */
  private announceOwnKeepAlive(except?: Link, options: { fresh?: boolean } = {}): void {
    const host = this.keepAliveHost();
    if (!host) return;
    const current = this.producer.current(host, options.fresh === true);
    if (!current) return; // a master without a signer PoW solution yet
    this.presence.addOwn(this.local.publicKey, current.keepAlive);
    this.broadcast({ code: MessageCode.keepAlivePresence, keepAlive: current.bytes }, keepAliveTargets(this.local.nodeType), except);
  }

  /**
   * Our presence bytes for the newly opened `link` (with a keep-alive refreshed if due), or null
   * when we have nothing to announce yet. A keep-alive made here is new to every link: the others
   * get it now too, since the timer sees it as already sent (a master whose first signer PoW
   * solution came after its first links would otherwise stay unknown to them for 100 s).
   */
  private ownPresence(link: Link): Uint8Array | null {
    const host = this.keepAliveHost();
    if (!host) return null;
    // Not forced: a new keep-alive per opened link would step its timestamp 2 s each time and
    // run ahead of the clock (peers reject keep-alives > 30 s in the future).
    const current = this.producer.current(host);
    if (!current) return null; // a master without a signer PoW solution yet
    this.presence.addOwn(this.local.publicKey, current.keepAlive);
    if (current.fresh) this.broadcast({ code: MessageCode.keepAlivePresence, keepAlive: current.bytes }, keepAliveTargets(this.local.nodeType), link);
    return this.presence.encodePresenceOf(this.local.address);
  }

  private scheduleKeepAlive(ms: number): void {
    this.keepAliveTimer = this.clock.setTimer(ms, () => {
      if (!this.running) return;
      try {
        const host = this.keepAliveHost();
        const current = host ? this.producer.current(host) : null;
        if (current?.fresh) {
          this.presence.addOwn(this.local.publicKey, current.keepAlive);
          this.broadcast({ code: MessageCode.keepAlivePresence, keepAlive: current.bytes }, keepAliveTargets(this.local.nodeType));
        }
      } catch (e) {
        this.o.onError?.(null, e);
      }
      this.scheduleKeepAlive(Math.max(1_000, this.producer.dueInMs()));
    });
  }

  /**
   * The reconnect loop of §2.1 for masters heard of: learns the M/H presences' endpoints, and
   * while this node holds fewer master links than it aims at, dials one more from the peer book
   * (not ourselves, not a wallet already linked in either direction, not one being dialled).
   */
  private scheduleDiscovery(delayMs: number = DISCOVERY_INTERVAL_MS): void {
    this.discoveryTimer = this.clock.setTimer(delayMs, () => {
      if (!this.running) return;
      try {
        this.discover();
      } catch (err) {
        this.o.onError?.(null, err);
      }
      this.scheduleDiscovery();
    });
  }

  private discover(): void {
    const book = this.o.peerBook!;
    const ownAddress = addressToText(this.local.address);
    const before = book.size;
    for (const { wallet, device } of this.presence.byRole('M')) {
      const address = addressToText(wallet);
      if (address !== ownAddress && device.host) book.learn(device.host, address, device.lastSeen * 1000);
    }
    const now = this.clock.now();
    if (book.size !== before || now - this.bookSavedAt >= PEER_BOOK_SAVE_MS) {
      book.save();
      this.bookSavedAt = now;
    }
    const type = this.local.nodeType;
    const aim = type === 'C' ? (this.o.clientMasterLinks?.() ?? 0) : type === 'R' ? Math.min(RELAY_MASTER_LINKS, this.registry.limits.outbound) : this.registry.limits.outbound;
    if (type === 'C' && aim === 0) {
      // Found its relays: the reference's client closes links outside its relay set (CORE
      // `disconnectFromOldClients`, bye 200 "for shuffling purposes").
      for (const key of this.clientDiscovered) this.dialer.remove(key, CloseReason.shuffling);
      this.clientDiscovered.clear();
      return;
    }
    const masterLinks = this.links(MASTER_TYPES).length;
    if (masterLinks + this.dialer.tentativeUnlinked() >= aim || !this.registry.hasOutboundRoom()) return;
    const next = book.pick((e) => {
      // The book holds parseable endpoints only (PeerBook.learn).
      if (e.address === ownAddress || this.dialer.isOwn(parseTarget(e.endpoint)!) || this.dialer.has(e.endpoint)) return true;
      if (e.address === '') return this.linkedEndpoint(e.endpoint); // a seed: its wallet is not known yet
      try {
        return this.registry.byIdentity(addressFromText(e.address)) !== null;
      } catch {
        return true; // not an address: never dialled
      }
    }, Math.random, masterLinks === 0);
    if (!next) return;
    const target = { host: next.host, port: next.port, ...(next.address !== '' ? { expectedAddress: addressFromText(next.address) } : {}) };
    if (this.dialer.add(target, { giveUpAfter: DISCOVERED_DIAL_ATTEMPTS }) && type === 'C') this.clientDiscovered.add(targetKey(target));
  }

  private schedulePurge(): void {
    this.purgeTimer = this.clock.setTimer(PRESENCE_PURGE_INTERVAL_SECONDS * 1000, () => {
      if (!this.running) return;
      this.presence.purge();
      this.schedulePurge();
    });
  }

  // ---- status and RPC operations ----------------------------------------------------------

  /** The §9 members that come from the network. */
  statusMembers(listeningPort: number, publicHost?: string): NetworkStatusMembers {
    return networkStatusMembers({
      links: [...this.live],
      presence: this.presence.counts(),
      lastInboundAtMs: this.lastInboundAt,
      nowMs: this.clock.now(),
      listeningPort,
      ...(publicHost ? { publicHost } : {}),
    });
  }

  /** §6 network height from the peers' reported heights. */
  networkHeight(tip: bigint, tipTimestampSeconds: number, secondsPerBlock?: number, types?: readonly NodeType[], withPeer?: bigint): bigint {
    const heights = this.links(types).map((l) => l.peerHeight);
    if (withPeer !== undefined) heights.push(withPeer);
    return networkHeight(heights, tip, tipTimestampSeconds, Math.floor(this.clock.now() / 1000), secondsPerBlock);
  }

  /**
   * RPC `connect`: dial `host:port` (kept and redialled like a configured peer once a hello
   * completed; dropped after CONNECT_DIAL_ATTEMPTS failed dials while it never did). At most
   * {@link MAX_CONNECT_TARGETS} such peers, so an RPC loop cannot grow the dial list for ever.
   */
  connect(hostPort: string): boolean {
    const target = parseTarget(hostPort);
    if (!target) throw new RangeError(`expected host:port, got ${JSON.stringify(hostPort)}`);
    const key = targetKey(target);
    if (!this.dialer.has(key) && !this.dialer.isOwn(target) && this.connectTargets.size >= MAX_CONNECT_TARGETS) {
      throw new RangeError(`${MAX_CONNECT_TARGETS} peers were added with connect already; a restart forgets them`);
    }
    const known = this.dialer.has(key);
    if (!known && !this.dialer.isOwn(target)) this.connectTargets.add(key);
    const added = this.dialer.add(target, { giveUpUnlinkedAfter: CONNECT_DIAL_ATTEMPTS });
    if (!added) this.connectTargets.delete(key);
    return added;
  }

  /** RPC `isolate`: closes every link (configured peers are redialled by the dialer's backoff). */
  isolate(): void {
    for (const l of [...this.live]) l.close(CloseReason.requested, 'isolate');
  }

  /** RPC `reconnect`: drops and redials every dialled peer now. */
  reconnect(): void {
    this.dialer.reconnectAll();
  }

  /** RPC `blacklistpeer`: blacklists and disconnects a host and/or wallet (Base58). */
  blacklistPeer(peer: { host?: string; wallet?: string }): void {
    this.scores.blacklistPeer(peer);
    for (const l of [...this.live]) {
      const byWallet = peer.wallet && l.peer && l.peer.addressText === peer.wallet;
      const byHost = peer.host && (l.remote === peer.host || hostOf(l.remote) === peer.host);
      if (byWallet || byHost) l.close(CloseReason.requested, 'blacklisted');
    }
  }

  /** RPC `clearpeerblacklist`. */
  clearBlacklist(): void {
    this.scores.clearBlacklist();
  }

  /** Whether a wallet is banned or blacklisted now (for logs and tests). */
  isBlocked(wallet: Uint8Array): boolean {
    return this.scores.blocked({ wallet: addressToText(wallet) }) !== null;
  }

  /** The score of a peer wallet. */
  scoreOf(wallet: Uint8Array): number {
    return this.scores.score(walletKey(addressToText(wallet)));
  }
}

