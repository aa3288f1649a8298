/**
 * The network part of `status` (reference-network.md §9) and the network block height of sync
 * (§6), as pure functions of link and presence state, so the RPC handler and the notifier read
 * the same numbers.
 */
import type { PresenceCounts } from './presence.js';
import { hostOf } from './scoring.js';

/** Blocks are 30 s apart: the network height cannot be ahead of tip + elapsed / 30 (§6). */
const SECONDS_PER_BLOCK = 30;
/** A node is `Connectable` if an inbound link arrived in the last 300 s (§9). */
export const CONNECTABLE_WINDOW_MS = 300_000;

/**
 * The network height of §6: the heights reported by handshaken peers, sorted; with 3 or more
 * the maximum of the middle third, else the maximum; capped at tip + (now − tip time) / 30.
 * The middle third is `sorted[⌊n/3⌋ … n − ⌊n/3⌋)` (UNSURE: the reference's exact bounds).
 * `Network Block Height` is max(tip, this).
 */
export function networkHeight(peerHeights: readonly bigint[], tip: bigint, tipTimestampSeconds: number, nowSeconds: number, secondsPerBlock = SECONDS_PER_BLOCK): bigint {
  if (peerHeights.length === 0) return tip;
  const sorted = [...peerHeights].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const n = sorted.length;
  const third = n >= 3 ? Math.floor(n / 3) : 0;
  const best = sorted[n - third - 1]!;
  const elapsed = Math.max(0, Math.floor((nowSeconds - tipTimestampSeconds) / secondsPerBlock));
  const cap = tip + BigInt(elapsed);
  const h = best < cap ? best : cap;
  return h > tip ? h : tip;
}

/** What status needs to know of one link. */
export interface LinkView {
  direction: 'inbound' | 'outbound';
  /** `host:port` seen on the socket (inbound) or dialled (outbound). */
  remote: string;
  /** Hello completed. */
  isOpen: boolean;
  /** Closed links are not listed. */
  state: string;
  /** Outbound: our address as the acceptor saw it (helloData). */
  peer: { observedOwnAddress: string } | null;
}

export interface NetworkStatusInput {
  /** Every live link, handshaken or not. */
  links: readonly LinkView[];
  presence: PresenceCounts;
  /** When the last inbound link arrived (ms), or null. */
  lastInboundAtMs: number | null;
  nowMs: number;
  /** Our listening port (0 when not listening). */
  listeningPort: number;
  /** Configured public host, if any (else learnt from peers). */
  publicHost?: string;
}

/** The §9 members that come from the network. */
export interface NetworkStatusMembers {
  'Network Clients': string[];
  'Network Servers': string[];
  'My External IP': string;
  'My Listening Port': number;
  Connectable: boolean;
  Presences: number;
  Masters: number;
  Relays: number;
  Clients: number;
}

/**
 * `Network Clients`: every live inbound socket (handshake not required) as seen on the socket;
 * `Network Servers`: outbound links that completed the hello, as dialled; `My External IP`: the
 * configured public host, else the address most acceptors saw us at; `Connectable`: an inbound
 * link exists or arrived in the last 300 s.
 */
export function networkStatusMembers(s: NetworkStatusInput): NetworkStatusMembers {
  const live = s.links.filter((l) => l.state !== 'closed');
  const inbound = live.filter((l) => l.direction === 'inbound');
  const votes = new Map<string, number>();
  for (const l of live) {
    const seen = l.direction === 'outbound' ? l.peer?.observedOwnAddress : '';
    if (seen) votes.set(hostOf(seen), (votes.get(hostOf(seen)) ?? 0) + 1);
  }
  let external = s.publicHost ?? '';
  if (!external) {
    let best = 0;
    for (const [host, n] of votes) if (n > best) [external, best] = [host, n];
  }
  return {
    'Network Clients': inbound.map((l) => l.remote),
    'Network Servers': live.filter((l) => l.direction === 'outbound' && l.isOpen).map((l) => l.remote),
    'My External IP': external,
    'My Listening Port': s.listeningPort,
    Connectable: inbound.length > 0 || (s.lastInboundAtMs !== null && s.nowMs - s.lastInboundAtMs <= CONNECTABLE_WINDOW_MS),
    Presences: s.presence.presences,
    Masters: s.presence.masters,
    Relays: s.presence.relays,
    Clients: s.presence.clients,
  };
}
