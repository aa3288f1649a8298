/**
 * Presence and keep-alives (reference-network.md §3, §10 keep 3): signed keep-alives with the
 * checksum lock, the reference intervals (M/H 100 s, R 200 s, C 100 s) and expiry (300 s), 30 s
 * future skew, monotonic timestamps; a presence list answering `Presences`, `Masters`/`Relays`/
 * `Clients` (§9), queries by role, random presences (§2.2) and the relay choice of a client by
 * sector prefix (§3.5).
 *
 * Keep-alive signature (§3.1): RSA with the wallet key over
 * `sha3_512sqTrunc(checksumLock ‖ keep-alive bytes without signature, 44)`.
 */
import type { Network } from '../codec/types.js';
import { primaryAddressFromPublicKey, sectorPrefix } from '../formats/address.js';
import { concatBytes, equalBytes, toHex } from '../formats/bytes.js';
import { checksumLockBytes } from '../formats/constants.js';
import { sha3_512, sha3_512sqTrunc } from '../core/hash.js';
import { varUintLength } from '../formats/varint.js';
import type { NetClock } from './clock.js';
import {
  decodeKeepAlive,
  encodeKeepAlive,
  encodePresenceWithin,
  encodeUnsignedKeepAlive,
  MAX_PRESENCE_BYTES,
  MAX_PRESENCE_DEVICES,
  MAX_SECTOR_PRESENCES_BYTES,
  type KeepAlive,
  type NodeType,
  type PresenceMessage,
  type UnsignedKeepAlive,
} from './protocol/messages.js';
import type { Offence } from './scoring.js';

/** Keep-alive interval by type, seconds (CORE CoreConfig 2025, §3.2). */
export const KEEPALIVE_INTERVAL_SECONDS: Readonly<Record<NodeType, number>> = Object.freeze({ M: 100, H: 100, W: 100, R: 200, C: 100 });
/** Expiry of a presence address, seconds, every type (§3.2). */
export const PRESENCE_EXPIRY_SECONDS = 300;
/** Accepted future skew of a keep-alive timestamp, seconds (§3.2). */
export const PRESENCE_MAX_FUTURE_SECONDS = 30;
/** Expired addresses are purged this often, seconds (§3.2). */
export const PRESENCE_PURGE_INTERVAL_SECONDS = 10;
/** A new keep-alive's timestamp is at least this much after the previous one, seconds (§3.3). */
export const KEEPALIVE_MIN_STEP_SECONDS = 2;
/** `getRandomPresences` draws up to 10 of the 20 most recently seen (§2.2). */
export const RANDOM_PRESENCES_POOL = 20;
export const RANDOM_PRESENCES_MAX = 10;
/** Wallets kept; beyond it new wallets are refused (not stored) so a flood cannot grow memory. */
export const MAX_PRESENCES = 100_000;
/**
 * Keep-alives held back because their master PoW is over a block we do not hold yet (a master one
 * block ahead of us): retried as our chain grows (`retryDeferred`), so the master's presence is not
 * missing until its next keep-alive. Only signed ones are held; at most this many (the oldest go
 * first), each retried at most MAX_DEFERRED_ATTEMPTS times: a retry costs an RSA verification and
 * a PoW hash, so a flood of unreachable solutions costs a bounded ~256 × 150 µs per block.
 */
export const MAX_DEFERRED_KEEPALIVES = 256;
/** Retries of one deferred keep-alive: a master is a block or two ahead, not more. */
export const MAX_DEFERRED_ATTEMPTS = 8;
/** Depth of the relay sector tree (§3.5: 4 levels). */
const SECTOR_TREE_LEVELS = 4;

export type SignatureVerifier = (publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array) => boolean | Promise<boolean>;

/** A master keep-alive's PoW check: valid, invalid, or not checkable here ('ignore'). */
export type MasterPowCheck = (solution: Uint8Array, address: Uint8Array) => boolean | 'ignore' | Promise<boolean | 'ignore'>;

/** The 44 bytes a keep-alive signature covers. */
export function keepAliveChecksum(network: Network, unsigned: Uint8Array): Uint8Array {
  return sha3_512sqTrunc(concatBytes(checksumLockBytes(network), unsigned), 44);
}

/** Builds and signs a keep-alive; returns its bytes and decoded form. */
export function buildKeepAlive(
  network: Network,
  fields: UnsignedKeepAlive,
  sign: (data: Uint8Array) => Uint8Array,
): { bytes: Uint8Array; keepAlive: KeepAlive } {
  const unsigned = encodeUnsignedKeepAlive(fields);
  const bytes = encodeKeepAlive(unsigned, sign(keepAliveChecksum(network, unsigned)));
  return { bytes, keepAlive: decodeKeepAlive(bytes, 0) };
}

/** True if the keep-alive's signature verifies under `publicKey` (never throws). */
export async function verifyKeepAlive(network: Network, k: KeepAlive, publicKey: Uint8Array, verify: SignatureVerifier): Promise<boolean> {
  try {
    return await verify(publicKey, keepAliveChecksum(network, k.unsigned), k.signature);
  } catch {
    return false;
  }
}

/** One device of a wallet, as stored. */
export interface PresenceAddress {
  deviceId: Uint8Array;
  host: string;
  type: NodeType;
  nodeVersion: string;
  /** Keep-alive timestamp, unix seconds. */
  lastSeen: number;
  powSolution: Uint8Array | null;
  signature: Uint8Array;
  /** The keep-alive bytes, re-sent as they are. */
  keepAlive: Uint8Array;
}

export interface PresenceEntry {
  address: Uint8Array;
  publicKey: Uint8Array;
  /** By device id (hex). */
  devices: Map<string, PresenceAddress>;
}

export type KeepAliveOutcome =
  | { status: 'added' | 'updated' }
  | { status: 'stale' }
  | { status: 'unknownWallet' }
  /** Not stored, and not the sender's fault (a master PoW our chain cannot check yet). */
  | { status: 'ignored'; reason: string }
  | { status: 'rejected'; reason: string; offence: Offence };

export interface PresenceCounts {
  presences: number;
  masters: number;
  relays: number;
  clients: number;
}

export interface PresenceListOptions {
  network: Network;
  clock: NetClock;
  verify: SignatureVerifier;
  /**
   * Checks a master's signer PoW solution (§3.4 step 3). The network layer does not know
   * difficulties; consensus plugs its check in here (src/consensus/keep-alive-pow.ts). `'ignore'`:
   * the solution cannot be checked here yet (over a block we do not hold): the keep-alive is not
   * stored, and the sender is not blamed. Without it a master keep-alive needs a solution only if
   * `requireMasterPow`.
   */
  checkMasterPow?: MasterPowCheck;
  /** Whether an M/H keep-alive must carry a PoW solution (the reference's rule: on for a genesis network's nodes). */
  requireMasterPow?: boolean;
  expirySeconds?: number;
  maxPresences?: number;
  /** Keep-alives held for a later PoW check (default MAX_DEFERRED_KEEPALIVES). */
  maxDeferred?: number;
}

interface RelayKey {
  key: Uint8Array;
  wallet: string;
}

/**
 * The sector tree's choice at one level (§3.5, CORE `PrefixIndexedTree`): the byte nearer to the
 * wanted one, the lower on a tie. Negative when `a` is the better choice, 0 when equal.
 */
function nearerByte(a: number, b: number, want: number): number {
  return Math.abs(a - want) - Math.abs(b - want) || a - b;
}

/** A relay's key in the sector tree (§3.5): SHA3-512 of its wallet address (the randomizer is never set). */
export function relayKey(wallet: Uint8Array): Uint8Array {
  return sha3_512(wallet);
}

/**
 * Orders relay keys nearest `prefix` first, as the tree's descent ranks them (§3.5): level by
 * level the nearer key byte wins (the lower on a tie), then key order.
 */
export function nearerRelayKey(prefix: Uint8Array): (a: Uint8Array, b: Uint8Array) => number {
  const levels = Math.min(SECTOR_TREE_LEVELS, prefix.length);
  return (a, b) => {
    for (let level = 0; level < levels; level++) {
      const d = nearerByte(a[level]!, b[level]!, prefix[level]!);
      if (d !== 0) return d;
    }
    return compareBytes(a, b);
  };
}

/** Lexicographic byte comparison. */
function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

export class PresenceList {
  private readonly wallets = new Map<string, PresenceEntry>();
  private readonly relays: RelayKey[] = []; // sorted by key
  /** Keep-alives whose master PoW we could not check yet, by wallet/device (see MAX_DEFERRED_KEEPALIVES). */
  private readonly deferred = new Map<string, { presence: PresenceMessage; attempts: number }>();
  private readonly o: Required<Omit<PresenceListOptions, 'checkMasterPow'>> & Pick<PresenceListOptions, 'checkMasterPow'>;

  constructor(options: PresenceListOptions) {
    this.o = {
      requireMasterPow: false,
      expirySeconds: PRESENCE_EXPIRY_SECONDS,
      maxPresences: MAX_PRESENCES,
      maxDeferred: MAX_DEFERRED_KEEPALIVES,
      ...options,
    };
  }

  private nowSeconds(): number {
    return Math.floor(this.o.clock.now() / 1000);
  }

  /** Checks type, timing, PoW and signature of a keep-alive of a known wallet. */
  /** @param attempts times this keep-alive was deferred already (retryDeferred). */
  private async check(k: KeepAlive, publicKey: Uint8Array, attempts = 0): Promise<KeepAliveOutcome | null> {
    if (k.type === 'W') return { status: 'rejected', reason: 'worker keep-alives are not accepted', offence: 'invalidPresence' };
    const ts = Number(k.timestamp);
    const now = this.nowSeconds();
    if (ts > now + PRESENCE_MAX_FUTURE_SECONDS) return { status: 'rejected', reason: 'timestamp in the future', offence: 'invalidPresence' };
    if (ts < now - this.o.expirySeconds) return { status: 'rejected', reason: 'expired', offence: 'invalidPresence' };
    if (k.type === 'M' || k.type === 'H') {
      if (k.powSolution === null) {
        if (this.o.requireMasterPow) return { status: 'rejected', reason: 'master keep-alive without PoW solution', offence: 'invalidPresence' };
      } else if (this.o.checkMasterPow) {
        let ok: boolean | 'ignore' = false;
        try {
          ok = await this.o.checkMasterPow(k.powSolution, k.address);
        } catch {
          ok = false;
        }
        if (ok === 'ignore') {
          // Held for later only when signed: unsigned junk costs nothing to send and must cost nothing to keep.
          if (!(await verifyKeepAlive(this.o.network, k, publicKey, this.o.verify))) {
            return { status: 'rejected', reason: 'bad signature', offence: 'badSignature' };
          }
          this.defer(k, publicKey, attempts + 1);
          return { status: 'ignored', reason: 'master PoW solution over a block we do not hold' };
        }
        if (ok !== true) return { status: 'rejected', reason: 'invalid master PoW solution', offence: 'invalidPresence' };
      }
    }
    if (!(await verifyKeepAlive(this.o.network, k, publicKey, this.o.verify))) {
      return { status: 'rejected', reason: 'bad signature', offence: 'badSignature' };
    }
    return null;
  }

  /**
   * A keep-alive received from a peer (§3.4). `unknownWallet`: ask the sender for the presence
   * (getPresence2). A keep-alive of a new device of a known wallet is added (it is signed by the
   * wallet's key; the reference asks for the presence instead).
   */
  async receiveKeepAlive(k: KeepAlive): Promise<KeepAliveOutcome> {
    const entry = this.wallets.get(toHex(k.address));
    if (!entry) return { status: 'unknownWallet' };
    const device = entry.devices.get(toHex(k.deviceId));
    if (device && Number(k.timestamp) <= device.lastSeen) return { status: 'stale' };
    const bad = await this.check(k, entry.publicKey);
    if (bad) return bad;
    // The entry may have changed while the signature was checked.
    const current = this.wallets.get(toHex(k.address));
    if (!current) return { status: 'unknownWallet' };
    return this.store(current, k);
  }

  /**
   * A presence received from a peer (§3.4 updatePresence): the address must be the key's, each
   * keep-alive is checked and invalid ones dropped; the presence is refused if none remain.
   */
  receivePresence(p: PresenceMessage): Promise<{ stored: number; dropped: number; offence?: Offence; reason?: string }> {
    return this.takePresence(p, 0);
  }

  private async takePresence(p: PresenceMessage, attempts: number): Promise<{ stored: number; dropped: number; offence?: Offence; reason?: string }> {
    let derived: Uint8Array | null = null;
    try {
      derived = primaryAddressFromPublicKey(p.publicKey);
    } catch {
      derived = null;
    }
    if (!derived || !equalBytes(derived, p.address)) {
      return { stored: 0, dropped: p.keepAlives.length, offence: 'badSignature', reason: 'address does not match the public key' };
    }
    const valid: KeepAlive[] = [];
    let offence: Offence | undefined;
    let reason: string | undefined;
    for (const k of p.keepAlives) {
      if (!equalBytes(k.address, p.address)) {
        offence ??= 'invalidPresence';
        reason ??= 'keep-alive of another wallet';
        continue;
      }
      const bad = await this.check(k, p.publicKey, attempts);
      if (bad) {
        if (bad.status === 'rejected') {
          // Expired addresses are normal in a presence a peer holds; only bad signatures score.
          if (bad.offence === 'badSignature') offence = 'badSignature';
          reason ??= bad.reason;
        }
        continue;
      }
      valid.push(k);
    }
    if (valid.length === 0) return { stored: 0, dropped: p.keepAlives.length, ...(offence ? { offence } : {}), ...(reason ? { reason } : {}) };
    const hex = toHex(p.address);
    let entry = this.wallets.get(hex);
    if (!entry) {
      if (this.wallets.size >= this.o.maxPresences) this.purge();
      if (this.wallets.size >= this.o.maxPresences) return { stored: 0, dropped: p.keepAlives.length, reason: 'presence list full' };
      entry = { address: p.address.slice(), publicKey: p.publicKey.slice(), devices: new Map() };
      this.wallets.set(hex, entry);
    }
    let stored = 0;
    for (const k of valid) {
      const r = this.store(entry, k);
      if (r.status === 'added' || r.status === 'updated') stored++;
    }
    return { stored, dropped: p.keepAlives.length - valid.length, ...(offence ? { offence } : {}) };
  }

  private defer(k: KeepAlive, publicKey: Uint8Array, attempts: number): void {
    const key = `${toHex(k.address)}/${toHex(k.deviceId)}`;
    if (attempts > MAX_DEFERRED_ATTEMPTS) return;
    this.deferred.delete(key); // the newest last
    if (this.deferred.size >= this.o.maxDeferred) this.deferred.delete(this.deferred.keys().next().value!);
    this.deferred.set(key, { presence: { address: k.address, publicKey, keepAlives: [k] }, attempts });
  }

  /** Keep-alives waiting for our chain to reach their master PoW's block. */
  get deferredCount(): number {
    return this.deferred.size;
  }

  /**
   * Checks the deferred keep-alives again (call when our chain grew): those now valid are stored,
   * those still over a block we lack wait again, the rest are dropped. Returns how many were stored.
   */
  async retryDeferred(): Promise<number> {
    const waiting = [...this.deferred.values()];
    this.deferred.clear();
    let stored = 0;
    for (const { presence, attempts } of waiting) stored += (await this.takePresence(presence, attempts)).stored;
    return stored;
  }

  /** Adds our own presence (or a trusted one) without checks, e.g. the node's own keep-alive. */
  addOwn(publicKey: Uint8Array, k: KeepAlive): void {
    const hex = toHex(k.address);
    let entry = this.wallets.get(hex);
    if (!entry) {
      entry = { address: k.address.slice(), publicKey: publicKey.slice(), devices: new Map() };
      this.wallets.set(hex, entry);
    }
    this.store(entry, k);
  }

  /**
   * Stores a device's keep-alive. A wallet keeps at most MAX_PRESENCE_DEVICES devices, as many as
   * one presence message carries: a new device of a full wallet replaces the one seen longest ago
   * (it would expire first), or is stale when it is older than all of them. The reference keeps
   * any number (only expiry bounds them); without the cap a peer could grow one wallet until its
   * presence no longer encodes, and every answer naming it (getPresence2, sectorNodes) failed.
   */
  private store(entry: PresenceEntry, k: KeepAlive): KeepAliveOutcome {
    const id = toHex(k.deviceId);
    const old = entry.devices.get(id);
    const ts = Number(k.timestamp);
    if (old && ts <= old.lastSeen) return { status: 'stale' };
    if (!old && entry.devices.size >= MAX_PRESENCE_DEVICES) {
      let oldest: [string, PresenceAddress] | null = null;
      for (const d of entry.devices) if (!oldest || d[1].lastSeen < oldest[1].lastSeen) oldest = d;
      if (ts <= oldest![1].lastSeen) return { status: 'stale' };
      entry.devices.delete(oldest![0]);
    }
    entry.devices.set(id, {
      deviceId: k.deviceId.slice(),
      host: k.host,
      type: k.type,
      nodeVersion: k.nodeVersion,
      lastSeen: ts,
      powSolution: k.powSolution,
      signature: k.signature,
      keepAlive: encodeKeepAlive(k.unsigned, k.signature),
    });
    this.syncRelay(entry);
    return { status: old ? 'updated' : 'added' };
  }

  /** Removes expired addresses and wallets left without one (§3.2). Returns how many addresses went. */
  purge(): number {
    const limit = this.nowSeconds() - this.o.expirySeconds;
    let removed = 0;
    for (const [hex, entry] of this.wallets) {
      const before = entry.devices.size;
      for (const [id, d] of entry.devices) if (d.lastSeen < limit) entry.devices.delete(id);
      // Only a wallet that lost a device changes (the count was once kept across wallets).
      if (entry.devices.size !== before) {
        removed += before - entry.devices.size;
        this.syncRelay(entry);
      }
      if (entry.devices.size === 0) this.wallets.delete(hex);
    }
    return removed;
  }

  /** Keeps the relay sector tree in step with a wallet's R addresses (§3.5). */
  private syncRelay(entry: PresenceEntry): void {
    const wallet = toHex(entry.address);
    const isRelay = [...entry.devices.values()].some((d) => d.type === 'R');
    const i = this.relays.findIndex((r) => r.wallet === wallet);
    if (isRelay && i < 0) {
      const key = relayKey(entry.address);
      let at = 0;
      while (at < this.relays.length && compareBytes(this.relays[at]!.key, key) < 0) at++;
      this.relays.splice(at, 0, { key, wallet });
    } else if (!isRelay && i >= 0) {
      this.relays.splice(i, 1);
    }
  }

  /** Counters of §9: wallets, and addresses (devices) of type M, R and C. */
  counts(): PresenceCounts {
    this.purge();
    const c: PresenceCounts = { presences: this.wallets.size, masters: 0, relays: 0, clients: 0 };
    for (const e of this.wallets.values()) {
      for (const d of e.devices.values()) {
        if (d.type === 'M') c.masters++;
        else if (d.type === 'R') c.relays++;
        else if (d.type === 'C') c.clients++;
      }
    }
    return c;
  }

  /** The presence of a wallet (address without checksum), or null. */
  get(address: Uint8Array): PresenceEntry | null {
    this.purge();
    return this.wallets.get(toHex(address)) ?? null;
  }

  /** Every presence (for `pl`). */
  all(): PresenceEntry[] {
    this.purge();
    return [...this.wallets.values()];
  }

  /** When the first address of one role held here expires (unix seconds, §3.2), or null when none is held. */
  firstExpiry(type: 'M' | 'R' | 'C'): number | null {
    let oldest: number | null = null;
    for (const { device } of this.byRole(type)) if (oldest === null || device.lastSeen < oldest) oldest = device.lastSeen;
    return oldest === null ? null : oldest + this.o.expirySeconds;
  }

  /** Addresses of one role, most recently seen first. M also matches H (the reference's ['M','H'] filter). */
  byRole(type: 'M' | 'R' | 'C'): { wallet: Uint8Array; publicKey: Uint8Array; device: PresenceAddress }[] {
    this.purge();
    const out: { wallet: Uint8Array; publicKey: Uint8Array; device: PresenceAddress }[] = [];
    for (const e of this.wallets.values()) {
      for (const d of e.devices.values()) {
        if (d.type === type || (type === 'M' && d.type === 'H')) out.push({ wallet: e.address, publicKey: e.publicKey, device: d });
      }
    }
    return out.sort((a, b) => b.device.lastSeen - a.device.lastSeen);
  }

  /** `countnodeversions`: node version → number of presence addresses. */
  nodeVersions(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const e of this.all()) for (const d of e.devices.values()) out[d.nodeVersion] = (out[d.nodeVersion] ?? 0) + 1;
    return out;
  }

  /**
   * The updatePresence payload of a wallet (its live devices, the most recently seen first, as
   * many as fit `maxBytes`), or null. Never throws: every answer carrying a presence is built here.
   */
  encodePresenceOf(address: Uint8Array, maxBytes = MAX_PRESENCE_BYTES): Uint8Array | null {
    const e = this.get(address);
    if (!e || e.devices.size === 0) return null;
    const newest = [...e.devices.values()].sort((a, b) => b.lastSeen - a.lastSeen);
    return encodePresenceWithin({ address: e.address, publicKey: e.publicKey, keepAlives: newest.map((d) => d.keepAlive) }, maxBytes);
  }

  /**
   * The presences of `wallets` for one message (a sectorNodes answer): in order, each as a
   * length-prefixed item, as many as fit `maxBytes` in all; wallets we do not hold are left out.
   */
  encodePresencesOf(wallets: readonly Uint8Array[], maxBytes = MAX_SECTOR_PRESENCES_BYTES): Uint8Array[] {
    const out: Uint8Array[] = [];
    let room = maxBytes;
    for (const w of wallets) {
      const p = this.encodePresenceOf(w, Math.min(MAX_PRESENCE_BYTES, room - varUintLength(MAX_PRESENCE_BYTES)));
      if (!p) continue;
      room -= varUintLength(p.length) + p.length;
      out.push(p);
    }
    return out;
  }

  /**
   * `getRandomPresences` (§2.2): up to 10 wallets drawn from the 20 most recently seen of a type.
   * @param random returns a float in [0, 1) (injectable for tests).
   */
  randomPresences(type: 'M' | 'R' | 'C', random: () => number, max = RANDOM_PRESENCES_MAX): Uint8Array[] {
    const seen = new Set<string>();
    const pool: Uint8Array[] = [];
    for (const r of this.byRole(type)) {
      const hex = toHex(r.wallet);
      if (seen.has(hex)) continue;
      seen.add(hex);
      pool.push(r.wallet);
      if (pool.length === RANDOM_PRESENCES_POOL) break;
    }
    for (let i = pool.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    }
    return pool.slice(0, max);
  }

  /**
   * Relays of a sector (§3.5 `getSectorNodes`): relay keys SHA3-512(relay address) in key order;
   * descend 4 levels toward the prefix byte by byte, taking the nearest existing byte when the
   * exact one is missing (ties: the lower byte); then take about half of the results before that
   * point and half from it on, filling from the other side when one side runs out.
   * @returns relay wallet addresses, in key order.
   */
  sectorRelays(prefix: Uint8Array, max: number): Uint8Array[] {
    this.purge();
    const n = this.relays.length;
    if (n === 0 || max <= 0) return [];
    let lo = 0;
    let hi = n; // candidates: relays[lo, hi), all sharing the bytes chosen so far
    for (let level = 0; level < SECTOR_TREE_LEVELS && level < prefix.length && hi - lo > 1; level++) {
      const want = prefix[level]!;
      let best = -1;
      for (let i = lo; i < hi; i++) {
        const b = this.relays[i]!.key[level]!;
        if (best < 0 || nearerByte(b, best, want) < 0) best = b;
      }
      let a = lo;
      while (this.relays[a]!.key[level] !== best) a++;
      let z = a;
      while (z < hi && this.relays[z]!.key[level] === best) z++;
      lo = a;
      hi = z;
    }
    const anchor = lo;
    const take = Math.min(max, n);
    let before = Math.min(Math.floor(take / 2), anchor);
    let after = take - before;
    if (anchor + after > n) {
      after = n - anchor;
      before = take - after;
    }
    const out: Uint8Array[] = [];
    for (let i = anchor - before; i < anchor + after; i++) {
      const e = this.wallets.get(this.relays[i]!.wallet);
      if (e) out.push(e.address);
    }
    return out;
  }

  /** A client's relay choice (§3.5): the relays of its own sector. */
  relaysForAddress(address: Uint8Array, max: number): Uint8Array[] {
    return this.sectorRelays(sectorPrefix(address), max);
  }

  /**
   * The relays nearest a sector prefix, nearest first, as the tree's descent ranks them (§3.5):
   * level by level the nearer key byte wins (the lower on a tie), then key order. The first is
   * the relay `sectorRelays` anchors on. A client links to the first few (relay-choice.ts).
   * @returns relay wallet addresses with their presence, at most `max`.
   */
  closestRelays(prefix: Uint8Array, max: number): { wallet: Uint8Array; devices: PresenceAddress[] }[] {
    this.purge();
    const nearer = nearerRelayKey(prefix);
    const ranked = [...this.relays].sort((a, b) => nearer(a.key, b.key));
    const out: { wallet: Uint8Array; devices: PresenceAddress[] }[] = [];
    for (const r of ranked) {
      if (out.length >= max) break;
      const e = this.wallets.get(r.wallet);
      if (e) out.push({ wallet: e.address, devices: [...e.devices.values()].filter((d) => d.type === 'R') });
    }
    return out;
  }
}

/**
 * Produces this node's keep-alives (§3.3): a new signed one when the interval has elapsed, when
 * forced, when the host changed, or when its PoW solution expired (`powExpired`); otherwise the
 * last one again. Timestamps never repeat and step at least 2 s. With `requirePow` (a master of a
 * network whose masters prove work) no keep-alive exists without a solution: `current` is null.
 */
export class KeepAliveProducer {
  private last: { bytes: Uint8Array; keepAlive: KeepAlive; at: number } | null = null;

  constructor(
    private readonly o: {
      network: Network;
      clock: NetClock;
      address: Uint8Array;
      deviceId: Uint8Array;
      type: NodeType;
      nodeVersion: string;
      sign: (data: Uint8Array) => Uint8Array;
      /** The signer PoW solution to attach now (a master's miner), or null. */
      powSolution?: () => Uint8Array | null;
      /** Whether the solution of the last keep-alive has expired (then a new keep-alive is due). */
      powExpired?: (solution: Uint8Array) => boolean;
      /** No keep-alive without a solution (§3.3: M/H must attach one). */
      requirePow?: boolean;
    },
  ) {}

  private lastPowExpired(): boolean {
    const pow = this.last?.keepAlive.powSolution ?? null;
    return pow !== null && this.o.powExpired?.(pow) === true;
  }

  /** The keep-alive to send now for `host` (our public `ip:port`, or a client's relay); null when `requirePow` and no solution. */
  current(host: string, force = false): { bytes: Uint8Array; keepAlive: KeepAlive; fresh: boolean } | null {
    const now = Math.floor(this.o.clock.now() / 1000);
    const interval = KEEPALIVE_INTERVAL_SECONDS[this.o.type];
    if (!force && this.last && this.last.keepAlive.host === host && now - this.last.at < interval && !this.lastPowExpired()) {
      return { ...this.last, fresh: false };
    }
    const powSolution = this.o.powSolution?.() ?? null;
    if (powSolution === null && this.o.requirePow) return null;
    const prev = this.last ? Number(this.last.keepAlive.timestamp) : -Infinity;
    const ts = Math.max(now, prev + KEEPALIVE_MIN_STEP_SECONDS);
    const built = buildKeepAlive(
      this.o.network,
      { address: this.o.address, deviceId: this.o.deviceId, timestamp: BigInt(ts), host, type: this.o.type, nodeVersion: this.o.nodeVersion, powSolution },
      this.o.sign,
    );
    this.last = { ...built, at: now };
    return { ...built, fresh: true };
  }

  /** Milliseconds until the next keep-alive is due (0 also while its PoW solution has expired). */
  dueInMs(): number {
    if (!this.last || this.lastPowExpired()) return 0;
    const due = (this.last.at + KEEPALIVE_INTERVAL_SECONDS[this.o.type]) * 1000;
    return Math.max(0, due - this.o.clock.now());
  }
}
