import { beforeAll, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { sectorPrefix } from '../../src/formats/address.js';
import { toHex } from '../../src/formats/bytes.js';
import { verifySignature } from '../../src/formats/rsa.js';
import { sha3_512 } from '../../src/core/hash.js';
import { ManualClock } from '../../src/network/clock.js';
import {
  buildKeepAlive,
  KeepAliveProducer,
  MAX_DEFERRED_ATTEMPTS,
  MAX_DEFERRED_KEEPALIVES,
  PresenceList,
  verifyKeepAlive,
} from '../../src/network/presence.js';
import {
  decodePayload,
  encodeMessage,
  encodePresence,
  MAX_PRESENCE_BYTES,
  MAX_PRESENCE_DEVICES,
  MAX_SECTOR_NODES,
  MAX_SECTOR_PRESENCES_BYTES,
  type NodeType,
} from '../../src/network/protocol/messages.js';
import { MAX_FRAME_BYTES_BY_CODE, MessageCode } from '../../src/network/protocol/codes.js';
import { makeIdentity, type TestIdentity } from './helpers.js';

let ids: TestIdentity[];
beforeAll(async () => {
  ids = await Promise.all(Array.from({ length: 8 }, () => makeIdentity()));
});

const nowS = (clock: ManualClock) => Math.floor(clock.now() / 1000);

function ka(
  id: TestIdentity,
  clock: ManualClock,
  o: { type?: NodeType; device?: number; dt?: number; host?: string; network?: 'reg' | 'test'; powSolution?: Uint8Array } = {},
) {
  return buildKeepAlive(
    o.network ?? 'reg',
    {
      address: id.address,
      deviceId: Uint8Array.of(o.device ?? 0),
      timestamp: BigInt(nowS(clock) + (o.dt ?? 0)),
      host: o.host ?? '127.0.0.1:10234',
      type: o.type ?? 'M',
      nodeVersion: 'dltnode-0.1.0',
      powSolution: o.powSolution ?? null,
    },
    id.sign,
  );
}

function presenceOf(id: TestIdentity, ...kas: { bytes: Uint8Array }[]) {
  const m = decodePayload(MessageCode.updatePresence, encodePresence({ address: id.address, publicKey: id.publicKey, keepAlives: kas.map((k) => k.bytes) }));
  if (m.code !== MessageCode.updatePresence) throw new Error('unreachable');
  return m.presence;
}

const list = (clock: ManualClock, o = {}) => new PresenceList({ network: 'reg', clock, verify: verifySignature, ...o });

describe('keep-alives', () => {
  it('sign and verify with the lock of the network', async () => {
    const clock = new ManualClock();
    const k = ka(ids[0]!, clock).keepAlive;
    expect(await verifyKeepAlive('reg', k, ids[0]!.publicKey, verifySignature)).toBe(true);
    expect(await verifyKeepAlive('test', k, ids[0]!.publicKey, verifySignature)).toBe(false);
    expect(await verifyKeepAlive('reg', k, ids[1]!.publicKey, verifySignature)).toBe(false);
  });
});

describe('PresenceList', () => {
  it('unknown wallet → ask for the presence; then keep-alives update it; stale ones are ignored', async () => {
    const clock = new ManualClock();
    const pl = list(clock);
    const first = ka(ids[0]!, clock);
    expect(await pl.receiveKeepAlive(first.keepAlive)).toEqual({ status: 'unknownWallet' });
    expect((await pl.receivePresence(presenceOf(ids[0]!, first))).stored).toBe(1);
    clock.advance(5_000);
    expect(await pl.receiveKeepAlive(first.keepAlive)).toEqual({ status: 'stale' });
    expect(await pl.receiveKeepAlive(ka(ids[0]!, clock).keepAlive)).toEqual({ status: 'updated' });
    expect(await pl.receiveKeepAlive(ka(ids[0]!, clock, { device: 2, type: 'C' }).keepAlive)).toEqual({ status: 'added' });
    expect(pl.counts()).toEqual({ presences: 1, masters: 1, relays: 0, clients: 1 });
  });

  it('rejects future (> 30 s), expired (> 300 s), worker and badly signed keep-alives', async () => {
    const clock = new ManualClock();
    const pl = list(clock);
    await pl.receivePresence(presenceOf(ids[0]!, ka(ids[0]!, clock)));
    clock.advance(1000);
    const r = async (k: ReturnType<typeof ka>) => pl.receiveKeepAlive(k.keepAlive);
    expect(await r(ka(ids[0]!, clock, { dt: 31 }))).toMatchObject({ status: 'rejected', reason: 'timestamp in the future' });
    expect(await r(ka(ids[0]!, clock, { dt: 30, device: 3 }))).toMatchObject({ status: 'added' });
    expect(await r(ka(ids[0]!, clock, { dt: -301, device: 4 }))).toMatchObject({ status: 'rejected', reason: 'expired' });
    expect(await r(ka(ids[0]!, clock, { type: 'W', device: 5 }))).toMatchObject({ status: 'rejected' });
    const forged = ka(ids[0]!, clock, { device: 6, network: 'test' });
    expect(await r(forged)).toMatchObject({ status: 'rejected', offence: 'badSignature' });
  });

  it('a master keep-alive needs a PoW solution when required, checked by the hook', async () => {
    const clock = new ManualClock();
    const pl = list(clock, { requireMasterPow: true });
    const res = await pl.receivePresence(presenceOf(ids[0]!, ka(ids[0]!, clock)));
    expect(res.stored).toBe(0);
    const withPow = buildKeepAlive('reg', { address: ids[0]!.address, deviceId: Uint8Array.of(0), timestamp: BigInt(nowS(clock)), host: 'h:1', type: 'M', nodeVersion: 'x', powSolution: Uint8Array.of(1) }, ids[0]!.sign);
    expect((await pl.receivePresence(presenceOf(ids[0]!, withPow))).stored).toBe(1);
    const strict = list(clock, { checkMasterPow: () => false });
    expect((await strict.receivePresence(presenceOf(ids[0]!, withPow))).stored).toBe(0);
  });

  it('a master PoW the hook cannot check yet is ignored, not held against the sender; a bad one is', async () => {
    const clock = new ManualClock();
    const kaPow = (dt: number) => buildKeepAlive('reg', { address: ids[0]!.address, deviceId: Uint8Array.of(0), timestamp: BigInt(nowS(clock) + dt), host: 'h:1', type: 'M', nodeVersion: 'x', powSolution: Uint8Array.of(1) }, ids[0]!.sign);
    let verdict: boolean | 'ignore' = true;
    const pl = list(clock, { requireMasterPow: true, checkMasterPow: () => verdict });
    expect((await pl.receivePresence(presenceOf(ids[0]!, kaPow(0)))).stored).toBe(1);
    verdict = 'ignore';
    expect(await pl.receiveKeepAlive(kaPow(5).keepAlive)).toEqual({ status: 'ignored', reason: expect.stringMatching(/block we do not hold/) });
    verdict = false;
    expect(await pl.receiveKeepAlive(kaPow(6).keepAlive)).toMatchObject({ status: 'rejected', offence: 'invalidPresence' });
    expect(pl.get(ids[0]!.address)!.devices.get('00')!.lastSeen).toBe(nowS(clock));
    // the ignored one waits for our chain: still unverifiable → waits again; then valid → stored
    expect(pl.deferredCount).toBe(1);
    verdict = 'ignore';
    expect(await pl.retryDeferred()).toBe(0);
    expect(pl.deferredCount).toBe(1);
    verdict = true;
    expect(await pl.retryDeferred()).toBe(1);
    expect(pl.deferredCount).toBe(0);
    expect(pl.get(ids[0]!.address)!.devices.get('00')!.lastSeen).toBe(nowS(clock) + 5);
  });

  it('a new master whose first keep-alive cannot be checked yet is stored once our chain reaches its PoW block', async () => {
    const clock = new ManualClock();
    let verdict: boolean | 'ignore' = 'ignore';
    const pl = list(clock, { requireMasterPow: true, checkMasterPow: () => verdict });
    const k = buildKeepAlive('reg', { address: ids[1]!.address, deviceId: Uint8Array.of(0), timestamp: BigInt(nowS(clock)), host: 'h:1', type: 'M', nodeVersion: 'x', powSolution: Uint8Array.of(1) }, ids[1]!.sign);
    expect(await pl.receivePresence(presenceOf(ids[1]!, k))).toMatchObject({ stored: 0, dropped: 1 });
    expect(pl.get(ids[1]!.address)).toBeNull();
    verdict = true;
    expect(await pl.retryDeferred()).toBe(1);
    expect(pl.counts().masters).toBe(1);
  });

  it('defers a bounded number of keep-alives, the oldest dropped first', async () => {
    const clock = new ManualClock();
    let verdict: boolean | 'ignore' = 'ignore';
    const pl = list(clock, { requireMasterPow: true, checkMasterPow: () => verdict, maxDeferred: 2 });
    for (let d = 0; d < 3; d++) {
      const k = buildKeepAlive('reg', { address: ids[2]!.address, deviceId: Uint8Array.of(d), timestamp: BigInt(nowS(clock)), host: 'h:1', type: 'M', nodeVersion: 'x', powSolution: Uint8Array.of(1) }, ids[2]!.sign);
      await pl.receivePresence(presenceOf(ids[2]!, k));
    }
    expect(pl.deferredCount).toBe(2);
    verdict = true;
    expect(await pl.retryDeferred()).toBe(2);
    expect([...pl.get(ids[2]!.address)!.devices.keys()].sort()).toEqual(['01', '02']);
    expect(MAX_DEFERRED_KEEPALIVES).toBe(256);
  });

  it('holds only signed keep-alives, and each for MAX_DEFERRED_ATTEMPTS retries', async () => {
    const clock = new ManualClock();
    const pl = list(clock, { requireMasterPow: true, checkMasterPow: () => 'ignore' as const });
    const forged = buildKeepAlive('reg', { address: ids[3]!.address, deviceId: Uint8Array.of(0), timestamp: BigInt(nowS(clock)), host: 'h:1', type: 'M', nodeVersion: 'x', powSolution: Uint8Array.of(1) }, ids[4]!.sign);
    expect(await pl.receivePresence(presenceOf(ids[3]!, forged))).toMatchObject({ stored: 0, offence: 'badSignature' });
    expect(pl.deferredCount).toBe(0);
    const k = buildKeepAlive('reg', { address: ids[3]!.address, deviceId: Uint8Array.of(0), timestamp: BigInt(nowS(clock)), host: 'h:1', type: 'M', nodeVersion: 'x', powSolution: Uint8Array.of(1) }, ids[3]!.sign);
    await pl.receivePresence(presenceOf(ids[3]!, k));
    for (let i = 1; i < MAX_DEFERRED_ATTEMPTS; i++) {
      await pl.retryDeferred();
      expect(pl.deferredCount).toBe(1);
    }
    await pl.retryDeferred();
    expect(pl.deferredCount).toBe(0);
  });

  it('refuses a presence whose address is not its key, and keep-alives of another wallet', async () => {
    const clock = new ManualClock();
    const pl = list(clock);
    const p = presenceOf(ids[0]!, ka(ids[0]!, clock));
    expect(await pl.receivePresence({ ...p, publicKey: ids[1]!.publicKey })).toMatchObject({ stored: 0, offence: 'badSignature' });
    const mixed = { ...p, keepAlives: [...p.keepAlives, ka(ids[1]!, clock).keepAlive] };
    expect(await pl.receivePresence(mixed)).toMatchObject({ stored: 1, dropped: 1, offence: 'invalidPresence' });
  });

  it('addresses expire after 300 s; counters follow; the presence can be re-encoded', async () => {
    const clock = new ManualClock();
    const pl = list(clock);
    await pl.receivePresence(presenceOf(ids[0]!, ka(ids[0]!, clock, { type: 'M' })));
    await pl.receivePresence(presenceOf(ids[1]!, ka(ids[1]!, clock, { type: 'R' })));
    clock.advance(200_000);
    await pl.receivePresence(presenceOf(ids[2]!, ka(ids[2]!, clock, { type: 'C' }), ka(ids[2]!, clock, { type: 'C', device: 1 })));
    expect(pl.counts()).toEqual({ presences: 3, masters: 1, relays: 1, clients: 2 });
    expect(pl.nodeVersions()).toEqual({ 'dltnode-0.1.0': 4 });
    expect(pl.byRole('M').map((r) => toHex(r.wallet))).toEqual([toHex(ids[0]!.address)]);
    const again = pl.encodePresenceOf(ids[2]!.address)!;
    const m = decodePayload(MessageCode.updatePresence, again);
    expect(m.code === MessageCode.updatePresence && m.presence.keepAlives.length).toBe(2);
    clock.advance(101_000);
    expect(pl.counts()).toEqual({ presences: 1, masters: 0, relays: 0, clients: 2 });
    expect(pl.get(ids[0]!.address)).toBeNull();
    expect(pl.sectorRelays(new Uint8Array(10), 5)).toEqual([]);
  });

  it('random presences come from the 20 most recent of a type', async () => {
    const clock = new ManualClock();
    const pl = list(clock);
    for (const id of ids) await pl.receivePresence(presenceOf(id, ka(id, clock, { type: 'M' })));
    let seed = 1;
    const r = pl.randomPresences('M', () => ((seed = (seed * 16807) % 2147483647) / 2147483647), 5);
    expect(r).toHaveLength(5);
    expect(new Set(r.map(toHex)).size).toBe(5);
  });

  it('sector relay choice: nearest keys to the prefix, about half on each side', async () => {
    const clock = new ManualClock();
    const pl = list(clock);
    for (const id of ids) await pl.receivePresence(presenceOf(id, ka(id, clock, { type: 'R' })));
    const sorted = ids.map((id) => ({ key: sha3_512(id.address), hex: toHex(id.address) })).sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
    // The exact key of the 5th relay as prefix: the anchor is that relay.
    const anchor = sorted[4]!;
    const got = pl.sectorRelays(anchor.key.slice(0, 10), 4).map(toHex);
    expect(got).toEqual(sorted.slice(2, 6).map((s) => s.hex));
    // Near the start: fill from after.
    expect(pl.sectorRelays(new Uint8Array(10), 3).map(toHex)).toEqual(sorted.slice(0, 3).map((s) => s.hex));
    // Near the end: fill from before.
    expect(pl.sectorRelays(new Uint8Array(10).fill(255), 3).map(toHex)).toEqual(sorted.slice(5, 8).map((s) => s.hex));
    // More asked than exist: all of them.
    expect(pl.sectorRelays(anchor.key.slice(0, 10), 50)).toHaveLength(8);
    // A client's own sector.
    expect(pl.relaysForAddress(ids[0]!.address, 2)).toHaveLength(2);
    expect(sectorPrefix(ids[0]!.address)).toHaveLength(10);
    // A relay that becomes a client leaves the tree.
    clock.advance(1000);
    await pl.receiveKeepAlive(ka(ids[0]!, clock, { type: 'C' }).keepAlive);
    expect(pl.sectorRelays(new Uint8Array(10), 50)).toHaveLength(7);
  });
});

describe('devices per wallet: every stored presence can be sent', () => {
  const decoded = (bytes: Uint8Array) => {
    const m = decodePayload(MessageCode.updatePresence, bytes);
    if (m.code !== MessageCode.updatePresence) throw new Error('unreachable');
    return m.presence;
  };
  const devicesOf = (bytes: Uint8Array) => decoded(bytes).keepAlives.map((k) => k.deviceId[0]!).sort((a, b) => a - b);
  /** A relay keep-alive of the largest kind a peer can make: a long host and 4,096 bytes of PoW solution (unchecked for R). */
  const fat = (id: TestIdentity, clock: ManualClock, device: number, dt = 0) =>
    ka(id, clock, { type: 'R', device, dt, host: 'h'.repeat(255), powSolution: new Uint8Array(4096).fill(device) });

  it('a wallet announcing 70 devices keeps the 64 seen last, and its presence, sector and random answers encode', async () => {
    const clock = new ManualClock();
    clock.advance(1_000_000);
    const pl = list(clock);
    const id = ids[0]!;
    // As a peer sends them: presences of 10 devices each, 70 devices in all, device i seen at now − 70 + i.
    for (let i = 0; i < 70; i += 10) {
      const kas = Array.from({ length: 10 }, (_, j) => ka(id, clock, { type: 'R', device: i + j, dt: i + j - 70 }));
      expect((await pl.receivePresence(presenceOf(id, ...kas))).stored).toBe(10);
    }
    expect(pl.get(id.address)!.devices.size).toBe(MAX_PRESENCE_DEVICES);
    const newest = Array.from({ length: 64 }, (_, i) => i + 6);
    expect(devicesOf(pl.encodePresenceOf(id.address)!)).toEqual(newest);
    // A new device older than all 64 is stale; a newer one replaces the one seen longest ago.
    expect(await pl.receiveKeepAlive(ka(id, clock, { type: 'R', device: 200, dt: -65 }).keepAlive)).toEqual({ status: 'stale' });
    expect(await pl.receiveKeepAlive(ka(id, clock, { type: 'R', device: 201 }).keepAlive)).toEqual({ status: 'added' });
    expect(devicesOf(pl.encodePresenceOf(id.address)!)).toEqual([...newest.slice(1), 201]);
    // Known devices still refresh.
    clock.advance(5_000);
    expect(await pl.receiveKeepAlive(ka(id, clock, { type: 'R', device: 7 }).keepAlive)).toEqual({ status: 'updated' });
    expect(pl.counts()).toMatchObject({ presences: 1, relays: 64 });
    // Every answer that carries this wallet encodes.
    const sector = pl.encodePresencesOf(pl.sectorRelays(sectorPrefix(id.address), MAX_SECTOR_NODES));
    expect(() => encodeMessage({ code: MessageCode.sectorNodes, prefix: sectorPrefix(id.address), presences: sector })).not.toThrow();
    expect(sector.map((p) => decoded(p).keepAlives.length)).toEqual([64]);
    for (const w of pl.randomPresences('R', Math.random)) {
      expect(() => encodeMessage({ code: MessageCode.updatePresence, presence: pl.encodePresenceOf(w)! })).not.toThrow();
    }
  });

  it('a master keeps its one device; the cap is per wallet', async () => {
    const clock = new ManualClock();
    const pl = list(clock);
    for (let i = 0; i < 70; i++) pl.addOwn(ids[1]!.publicKey, ka(ids[1]!, clock, { type: 'C', device: i, dt: i - 70 }).keepAlive);
    await pl.receivePresence(presenceOf(ids[0]!, ka(ids[0]!, clock, { type: 'M', device: 0 })));
    expect(pl.get(ids[1]!.address)!.devices.size).toBe(MAX_PRESENCE_DEVICES);
    expect(devicesOf(pl.encodePresenceOf(ids[0]!.address)!)).toEqual([0]);
  });

  it('64 devices of the largest keep-alives: the presence carries the newest that fit one updatePresence frame', async () => {
    const clock = new ManualClock();
    clock.advance(1_000_000);
    const pl = list(clock);
    const id = ids[0]!;
    for (let i = 0; i < 64; i += 8) {
      await pl.receivePresence(presenceOf(id, ...Array.from({ length: 8 }, (_, j) => fat(id, clock, i + j, i + j - 64))));
    }
    expect(pl.get(id.address)!.devices.size).toBe(64);
    const bytes = pl.encodePresenceOf(id.address)!;
    expect(bytes.length).toBeLessThanOrEqual(MAX_PRESENCE_BYTES);
    expect(() => encodeMessage({ code: MessageCode.updatePresence, presence: bytes })).not.toThrow();
    const kept = devicesOf(bytes);
    expect(kept.length).toBeGreaterThan(40);
    expect(kept.length).toBeLessThan(64);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => 64 - kept.length + i));
  });

  it('a sector answer of large presences stops at its byte budget', async () => {
    const clock = new ManualClock();
    const pl = list(clock);
    const wallets = ids.slice(0, 3);
    for (const id of wallets) {
      await pl.receivePresence(presenceOf(id, ...Array.from({ length: 10 }, (_, j) => fat(id, clock, j))));
    }
    const one = pl.encodePresenceOf(wallets[0]!.address)!.length;
    expect(decoded(pl.encodePresenceOf(wallets[0]!.address)!).keepAlives).toHaveLength(10);
    // Room for two whole presences and half of the third.
    const budget = 2 * (one + 3) + Math.floor(one / 2);
    const got = pl.encodePresencesOf(wallets.map((w) => w.address), budget);
    const counts = got.map((p) => decoded(p).keepAlives.length);
    expect(counts.slice(0, 2)).toEqual([10, 10]);
    expect(counts[2]).toBeGreaterThan(0);
    expect(counts[2]).toBeLessThan(10);
    expect(got.reduce((n, p) => n + 3 + p.length, 0)).toBeLessThanOrEqual(budget);
    expect(pl.encodePresencesOf(wallets.map((w) => w.address), 100)).toEqual([]);
  });

  it('the byte budgets are exactly what one updatePresence and one sectorNodes frame hold', () => {
    expect(() => encodeMessage({ code: MessageCode.updatePresence, presence: new Uint8Array(MAX_PRESENCE_BYTES) })).not.toThrow();
    expect(() => encodeMessage({ code: MessageCode.updatePresence, presence: new Uint8Array(MAX_PRESENCE_BYTES + 1) })).toThrow(RangeError);
    // Twenty items, each a 5-byte length (they are > 0xffff bytes) and its bytes, filling the budget to the byte.
    const size = Math.floor(MAX_SECTOR_PRESENCES_BYTES / MAX_SECTOR_NODES) - 5;
    expect(size).toBeGreaterThan(0xffff);
    const presences = Array.from({ length: MAX_SECTOR_NODES }, () => new Uint8Array(size));
    presences[0] = new Uint8Array(MAX_SECTOR_PRESENCES_BYTES - (MAX_SECTOR_NODES - 1) * (size + 5) - 5);
    const frame = encodeMessage({ code: MessageCode.sectorNodes, prefix: new Uint8Array(10), presences });
    expect(frame.length).toBe(MAX_FRAME_BYTES_BY_CODE[MessageCode.sectorNodes]);
    presences[0] = new Uint8Array(presences[0].length + 1);
    expect(() => encodeMessage({ code: MessageCode.sectorNodes, prefix: new Uint8Array(10), presences })).toThrow(RangeError);
  });

  it('purge re-checks the relay tree only for wallets that lost a device', async () => {
    const clock = new ManualClock();
    const pl = list(clock);
    await pl.receivePresence(presenceOf(ids[0]!, ka(ids[0]!, clock, { type: 'R' })));
    clock.advance(200_000);
    for (const id of ids.slice(1)) await pl.receivePresence(presenceOf(id, ka(id, clock, { type: 'R' })));
    clock.advance(101_000);
    const sync = vi.spyOn(PresenceList.prototype as unknown as { syncRelay: (e: unknown) => void }, 'syncRelay');
    try {
      expect(pl.purge()).toBe(1);
      expect(sync).toHaveBeenCalledTimes(1);
    } finally {
      sync.mockRestore();
    }
    expect(pl.sectorRelays(new Uint8Array(10), 50)).toHaveLength(ids.length - 1);
  });
});

describe('closest relays of a sector (a client\'s relay choice, §3.5)', () => {
  /** A tree of relays `of` (added as trusted presences). */
  function tree(clock: ManualClock, of: TestIdentity[]): PresenceList {
    const pl = list(clock);
    for (const id of of) pl.addOwn(id.publicKey, ka(id, clock, { type: 'R' }).keepAlive);
    return pl;
  }

  it('ranks every relay; each is the anchor of the tree without the nearer ones (property)', () => {
    const clock = new ManualClock();
    const full = tree(clock, ids);
    const byHex = new Map(ids.map((id) => [toHex(id.address), id]));
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 10, maxLength: 10 }), (prefix) => {
        const ranked = full.closestRelays(prefix, 50).map((r) => toHex(r.wallet));
        expect(new Set(ranked).size).toBe(ids.length);
        // The descent of getSectorNodes anchors on the nearest relay; without it, on the next one.
        const left = [...ids];
        for (const hex of ranked) {
          expect(toHex(tree(clock, left).sectorRelays(prefix, 1)[0]!)).toBe(hex);
          left.splice(left.indexOf(byHex.get(hex)!), 1);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('the exact key of a relay ranks it first; max bounds the answer; only R devices are returned', () => {
    const clock = new ManualClock();
    const pl = tree(clock, ids);
    pl.addOwn(ids[3]!.publicKey, ka(ids[3]!, clock, { type: 'C', device: 9, host: '10.0.0.1:1' }).keepAlive);
    for (const id of ids) {
      const first = pl.closestRelays(sha3_512(id.address).slice(0, 10), 3);
      expect(first).toHaveLength(3);
      expect(toHex(first[0]!.wallet)).toBe(toHex(id.address));
      expect(first[0]!.devices.map((d) => d.type)).toEqual(['R']);
    }
    expect(list(clock).closestRelays(new Uint8Array(10), 3)).toEqual([]);
  });
});

describe('KeepAliveProducer', () => {
  it('re-sends within the interval, signs anew after it or on a host change, with stepping timestamps', () => {
    const clock = new ManualClock();
    const id = ids[0]!;
    const p = new KeepAliveProducer({ network: 'reg', clock, address: id.address, deviceId: Uint8Array.of(0), type: 'R', nodeVersion: 'dltnode-0.1.0', sign: id.sign });
    const a = p.current('1.2.3.4:5')!;
    expect(a.fresh).toBe(true);
    clock.advance(199_000);
    expect(p.current('1.2.3.4:5')!.fresh).toBe(false);
    expect(p.dueInMs()).toBe(1_000);
    clock.advance(1_000);
    const b = p.current('1.2.3.4:5')!;
    expect(b.fresh).toBe(true);
    const c = p.current('5.6.7.8:9')!;
    expect(c.fresh).toBe(true);
    expect(c.keepAlive.timestamp).toBe(b.keepAlive.timestamp + 2n);
  });

  it('a master that must prove work sends nothing without a solution, attaches it, and renews once it expired', () => {
    const clock = new ManualClock();
    const id = ids[0]!;
    let solution: Uint8Array | null = null;
    const expired = new Set<string>();
    const p = new KeepAliveProducer({
      network: 'reg', clock, address: id.address, deviceId: Uint8Array.of(0), type: 'M', nodeVersion: 'dltnode-0.1.0', sign: id.sign,
      powSolution: () => solution, powExpired: (s) => expired.has(toHex(s)), requirePow: true,
    });
    expect(p.current('1.2.3.4:5')).toBeNull();
    expect(p.dueInMs()).toBe(0);
    solution = Uint8Array.of(7);
    const a = p.current('1.2.3.4:5')!;
    expect(a.keepAlive.powSolution).toEqual(Uint8Array.of(7));
    expect(p.dueInMs()).toBe(100_000);
    clock.advance(10_000);
    expect(p.current('1.2.3.4:5')!.fresh).toBe(false);
    expect(p.dueInMs()).toBe(90_000);
    expired.add(toHex(Uint8Array.of(7)));
    expect(p.dueInMs()).toBe(0);
    solution = Uint8Array.of(8);
    const b = p.current('1.2.3.4:5')!;
    expect(b.fresh).toBe(true);
    expect(b.keepAlive.powSolution).toEqual(Uint8Array.of(8));
    solution = null; // the newer one expired too and the miner has none: no keep-alive
    expired.add(toHex(Uint8Array.of(8)));
    expect(p.current('1.2.3.4:5')).toBeNull();
  });
});
