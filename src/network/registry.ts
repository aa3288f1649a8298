/**
 * The open links of a node: peer limits per role and direction (reference-network.md §2.1) and
 * one link per identity (§2.1 QUIRK: the reference's per-IP check never fires; §10 keep "one
 * link per identity").
 *
 * When two nodes dial each other at the same moment, each ends with an inbound and an outbound
 * link to the other. Both sides keep the link dialled by the node with the smaller address
 * (byte order), so they agree without a message.
 */
import { toHex } from '../formats/bytes.js';
import type { NodeType } from './protocol/messages.js';

/** What the registry needs of a link. */
export interface RegisteredLink {
  readonly direction: 'inbound' | 'outbound';
  /** The peer's wallet address without checksum (known after the hello). */
  readonly peerAddress: Uint8Array;
  readonly peerType: NodeType;
}

export interface PeerLimits {
  /** Incoming links from masters (M, H, W). Reference DLT: 500. */
  inboundMasters: number;
  /** Incoming links from relays. Reference S2: 1000 streams in all. */
  inboundRelays: number;
  /** Incoming links from clients. Reference DLT: 5000. */
  inboundClients: number;
  /** Outgoing links (all roles). Reference DLT master: 12; client: 3 sector links plus up to 6 stream links to relays (§3.5). */
  outbound: number;
}

/**
 * Defaults by own role: the reference's numbers (§2.1), except that a devnet's relays need far
 * fewer. A client keeps its named peers and one or two sector relays (relay-choice.ts) and links
 * to the relays of the contacts it writes to: 6 in all.
 */
export const DEFAULT_PEER_LIMITS: Readonly<Record<'M' | 'R' | 'C', PeerLimits>> = Object.freeze({
  M: Object.freeze({ inboundMasters: 500, inboundRelays: 1000, inboundClients: 5000, outbound: 12 }),
  R: Object.freeze({ inboundMasters: 1000, inboundRelays: 1000, inboundClients: 1000, outbound: 12 }),
  C: Object.freeze({ inboundMasters: 0, inboundRelays: 0, inboundClients: 0, outbound: 6 }),
});

export type AdmitResult<L> = { ok: true; replaced: L | null } | { ok: false; reason: 'capacity' | 'duplicateIdentity'; detail: string };

const roleOf = (t: NodeType): 'masters' | 'relays' | 'clients' => (t === 'R' ? 'relays' : t === 'C' ? 'clients' : 'masters');

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

export class PeerRegistry<L extends RegisteredLink = RegisteredLink> {
  private readonly byId = new Map<string, L>();
  private readonly open = new Set<L>();

  constructor(
    private readonly ownAddress: Uint8Array,
    public limits: PeerLimits,
  ) {}

  /** Open (handshaken) links. */
  links(): L[] {
    return [...this.open];
  }

  /** The open link of an identity, or null. */
  byIdentity(address: Uint8Array): L | null {
    return this.byId.get(toHex(address)) ?? null;
  }

  /** Open links counted by direction and remote role. */
  counts(): { inbound: Record<'masters' | 'relays' | 'clients', number>; outbound: number } {
    const c = { inbound: { masters: 0, relays: 0, clients: 0 }, outbound: 0 };
    for (const l of this.open) {
      if (l.direction === 'outbound') c.outbound++;
      else c.inbound[roleOf(l.peerType)]++;
    }
    return c;
  }

  /** True when one more outgoing link fits (the dialer asks before dialling). */
  hasOutboundRoom(): boolean {
    return this.counts().outbound < this.limits.outbound;
  }

  /**
   * Admits a link whose hello just passed. On a duplicate identity either the new link is refused
   * or it replaces the old one (returned in `replaced`; the caller closes it), by the
   * smaller-dialler rule above.
   */
  admit(link: L): AdmitResult<L> {
    const id = toHex(link.peerAddress);
    const old = this.byId.get(id);
    let replaced: L | null = null;
    if (old && old !== link) {
      if (old.direction === link.direction) return { ok: false, reason: 'duplicateIdentity', detail: 'an open link exists' };
      const newDialler = link.direction === 'outbound' ? this.ownAddress : link.peerAddress;
      const oldDialler = old.direction === 'outbound' ? this.ownAddress : old.peerAddress;
      if (compareBytes(newDialler, oldDialler) < 0) replaced = old;
      else return { ok: false, reason: 'duplicateIdentity', detail: 'keeping the link dialled by the smaller address' };
    }
    if (!replaced) {
      const c = this.counts();
      if (link.direction === 'outbound') {
        if (c.outbound >= this.limits.outbound) return { ok: false, reason: 'capacity', detail: `${c.outbound} outgoing links` };
      } else {
        const role = roleOf(link.peerType);
        const limit = role === 'masters' ? this.limits.inboundMasters : role === 'relays' ? this.limits.inboundRelays : this.limits.inboundClients;
        if (c.inbound[role] >= limit) return { ok: false, reason: 'capacity', detail: `too many ${role}` };
      }
    }
    if (replaced) this.remove(replaced);
    this.byId.set(id, link);
    this.open.add(link);
    return { ok: true, replaced };
  }

  /** Forgets a link (idempotent). */
  remove(link: L): void {
    if (!this.open.delete(link)) return;
    const id = toHex(link.peerAddress);
    if (this.byId.get(id) === link) this.byId.delete(id);
  }
}
