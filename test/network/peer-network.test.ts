import { beforeAll, describe, expect, it, vi } from 'vitest';
import { addressToText } from '../../src/formats/address.js';
import { toHex } from '../../src/formats/bytes.js';
import type { Link, LocalNode } from '../../src/network/link.js';
import { EventEmitter } from 'node:events';
import { targetKey } from '../../src/network/dial.js';
import { CONNECT_DIAL_ATTEMPTS, DISCOVERED_DIAL_ATTEMPTS, DISCOVERY_INTERVAL_MS, MAX_CONNECT_TARGETS, MAX_PENDING_HANDSHAKES, PeerNetwork } from '../../src/network/peer-network.js';
import { PeerBook, RETRY_AFTER_MS } from '../../src/network/peer-book.js';
import { MessageCode } from '../../src/network/protocol/codes.js';
import { encodePresence, MAX_PRESENCE_DEVICES, type Message, type NodeType } from '../../src/network/protocol/messages.js';
import { buildKeepAlive } from '../../src/network/presence.js';
import { sectorPrefix } from '../../src/formats/address.js';
import { GENESIS, makeIdentity, ManualClock, MemorySocket, pump, settle as settleNet, type TestIdentity, wire } from './helpers.js';

let ids: TestIdentity[];
beforeAll(async () => {
  ids = await Promise.all(Array.from({ length: 4 }, () => makeIdentity()));
});

function net(id: TestIdentity, type: NodeType, endpoint: string, clock: ManualClock, extra: Partial<ConstructorParameters<typeof PeerNetwork>[0]> = {}) {
  const got: { link: Link; message: Message }[] = [];
  const local: LocalNode = {
    network: 'reg', genesisChecksum: GENESIS, nodeType: type, address: id.address, publicKey: id.publicKey,
    productVersion: 'dltnode-test', endpoint, sign: id.sign,
    tip: () => ({ height: 5n, checksum: new Uint8Array(64) }), networkHeight: () => 5n, acceptingPeers: () => true,
  };
  const n = new PeerNetwork({ local, clock, onMessage: (link, message) => void got.push({ link, message }), ...extra });
  return { n, got };
}

/**
 * A dialler's socket factory whose every socket fails: `onOpen` hears each URL dialled; the socket
 * then emits `error` (when given) and closes 1006, as a refused or unanswered dial does.
 */
function failingSockets(onOpen: (url: string) => void, error?: string, code = 1006): never {
  return ((url: string) => {
    onOpen(url);
    const fake = Object.assign(new EventEmitter(), { terminate: () => undefined });
    setImmediate(() => {
      if (error !== undefined) fake.emit('error', new Error(error));
      fake.emit('close', code, Buffer.alloc(0));
    });
    return fake;
  }) as never;
}

/** Links `dialler` to `acceptor` over an in-memory pair; returns the sockets to pump. */

describe('PeerNetwork: presence over links between masters, a relay and a client', () => {
  it('spreads presences by role, answers sector queries, keeps keep-alives fresh and reports status', async () => {
    const clock = new ManualClock();
    const m1 = net(ids[0]!, 'M', '127.0.0.1:10001', clock);
    const m2 = net(ids[1]!, 'M', '127.0.0.1:10002', clock);
    const r = net(ids[2]!, 'R', '127.0.0.1:10003', clock);
    const c = net(ids[3]!, 'C', '', clock);
    for (const x of [m1, m2, r, c]) x.n.start();
    const sockets = [
      ...wire(m2.n, m1.n, '127.0.0.1:10001'),
      ...wire(r.n, m1.n, '127.0.0.1:10001'),
      ...wire(c.n, r.n, '127.0.0.1:10003'),
    ];
    const settle = (ms = 1_000) => settleNet(clock, sockets, 4, ms);
    await settle();

    // m1 knows itself, m2, the relay, and the relay's client (the relay announces its clients'
    // keep-alives to the masters: reference-rpc-messaging §3.10/§4.3, baseline masters hold the
    // client keep-alives propagated to them; issue 11 finds a contact's relay that way); the
    // relay's presence reached m2 through m1 (inventory → getPresence2).
    expect(m1.n.presence.counts()).toEqual({ presences: 4, masters: 2, relays: 1, clients: 1 });
    expect(m2.n.presence.get(ids[2]!.address)).not.toBeNull();
    // The relay holds the client (whose host is the relay's endpoint) and the master.
    expect(r.n.presence.counts()).toMatchObject({ relays: 1, clients: 1 });
    expect([...r.n.presence.get(ids[3]!.address)!.devices.values()][0]!.host).toBe('127.0.0.1:10003');
    // The client's presence at the master names the relay as its host.
    expect([...m1.n.presence.get(ids[3]!.address)!.devices.values()][0]!.host).toBe('127.0.0.1:10003');

    // Sector query: the client asks its relay for the relays of its sector.
    c.n.links(['R'])[0]!.send({ code: MessageCode.getSectorNodes, prefix: sectorPrefix(ids[3]!.address), max: 3 });
    await pump(...sockets);
    const answer = c.got.find((g) => g.message.code === MessageCode.sectorNodes)!.message;
    expect(answer.code === MessageCode.sectorNodes && answer.presences.map((p) => toHex(p.address))).toEqual([toHex(ids[2]!.address)]);

    // Ten minutes later every presence is still there: keep-alives were re-sent and relayed.
    await settle(30_000);
    for (let i = 0; i < 20; i++) await settle(30_000);
    expect(m1.n.presence.counts()).toEqual({ presences: 4, masters: 2, relays: 1, clients: 1 });
    expect(m2.n.presence.counts()).toMatchObject({ masters: 2, relays: 1 });
    expect(r.n.presence.counts()).toMatchObject({ clients: 1 });

    const s = m1.n.statusMembers(10001);
    expect(s['Network Clients']).toHaveLength(2);
    expect(s['Network Servers']).toEqual([]);
    expect(s.Connectable).toBe(true);
    expect(m2.n.statusMembers(10002)['Network Servers']).toEqual(['127.0.0.1:10001']);
    expect(m2.n.statusMembers(10002)['My External IP']).toBe('127.0.0.1');
    expect(m1.n.networkHeight(5n, Math.floor(clock.now() / 1000))).toBe(5n);

    // Operator blacklist closes the link of that wallet.
    m1.n.blacklistPeer({ wallet: addressToText(ids[1]!.address) });
    await pump(...sockets);
    expect(m1.n.links().map((l) => l.peer!.addressText)).toEqual([addressToText(ids[2]!.address)]);
    expect(m1.n.isBlocked(ids[1]!.address)).toBe(true);
    m1.n.clearBlacklist();
    expect(m1.n.isBlocked(ids[1]!.address)).toBe(false);

    // Node messages reach the node's handler; broadcast follows role filters.
    expect(m1.n.broadcast({ code: MessageCode.getUnappliedTransactions }, ['M', 'H'])).toBe(0);
    expect(m1.n.broadcast({ code: MessageCode.getUnappliedTransactions }, ['R'])).toBe(1);
    await pump(...sockets);
    expect(r.got.some((g) => g.message.code === MessageCode.getUnappliedTransactions)).toBe(true);

    for (const x of [m1, m2, r, c]) x.n.stop();
    await pump(...sockets);
    expect(r.n.links()).toHaveLength(0);
  });
});

describe('PeerNetwork: a relay restarted on the same wallet', () => {
  it('keeps its device id (S2 uses device 01), so the master counts one relay, not one per start', async () => {
    // Seen: a relay restarted with its data directory was a new device each time, and the
    // masters' Relays count read 2 until the old device expired (300 s). The reference's
    // presence list keys devices by id within a wallet and counts devices (CORE
    // PresenceList.updateEntry); S2 sets its device id to 01 (IxianS2 Meta/Node.cs), as DLT masters use 00.
    const clock = new ManualClock();
    const m = net(ids[0]!, 'M', '127.0.0.1:10001', clock);
    m.n.start();
    const first = net(ids[2]!, 'R', '127.0.0.1:10003', clock);
    first.n.start();
    const sockets = wire(first.n, m.n, '127.0.0.1:10001');
    await settleNet(clock, sockets);
    expect(m.n.presence.counts()).toMatchObject({ relays: 1 });
    first.n.stop();
    await pump(...sockets);
    clock.advance(5_000);
    const again = net(ids[2]!, 'R', '127.0.0.1:10003', clock);
    again.n.start();
    const more = wire(again.n, m.n, '127.0.0.1:10001');
    await settleNet(clock, more);
    expect(m.n.presence.counts()).toMatchObject({ presences: 2, relays: 1 });
    expect([...m.n.presence.get(ids[2]!.address)!.devices.keys()]).toEqual(['01']);
    for (const x of [m, again]) x.n.stop();
    await pump(...more);
  });
});

describe('PeerNetwork: a relay wallet announced with more devices than one presence carries', () => {
  it('the master keeps 64 of them and still answers presence, random-presence and sector queries', async () => {
    const clock = new ManualClock();
    clock.advance(1_000_000);
    const errors: unknown[] = [];
    const m = net(ids[0]!, 'M', '127.0.0.1:10001', clock, { onError: (_l, e) => void errors.push(e) });
    const r = net(ids[1]!, 'R', '127.0.0.1:10002', clock);
    const c = net(ids[2]!, 'C', '', clock);
    for (const x of [m, r, c]) x.n.start();
    const sockets = [...wire(r.n, m.n, '127.0.0.1:10001'), ...wire(c.n, m.n, '127.0.0.1:10001')];
    await settleNet(clock, sockets, 2);
    // A peer sends the master a relay wallet of 70 devices, in presences of 10 (device i seen at now − 70 + i).
    const fake = ids[3]!;
    const now = Math.floor(clock.now() / 1000);
    const ka = (i: number) =>
      buildKeepAlive('reg', { address: fake.address, deviceId: Uint8Array.of(i), timestamp: BigInt(now - 70 + i), host: '127.0.0.1:10236', type: 'R', nodeVersion: 'x', powSolution: null }, fake.sign).bytes;
    const toMaster = r.n.links(['M'])[0]!;
    for (let i = 0; i < 70; i += 10) {
      const presence = encodePresence({ address: fake.address, publicKey: fake.publicKey, keepAlives: Array.from({ length: 10 }, (_, j) => ka(i + j)) });
      toMaster.send({ code: MessageCode.updatePresence, presence });
    }
    await pump(...sockets);
    expect(m.n.presence.get(fake.address)!.devices.size).toBe(MAX_PRESENCE_DEVICES);

    // A new client asks the master for its sector, a presence and random relays: every answer comes.
    const toM = c.n.links(['M'])[0]!;
    const presencesIn = () => toM.stats.framesIn.get(MessageCode.updatePresence) ?? 0;
    const before = presencesIn();
    toM.send({ code: MessageCode.getSectorNodes, prefix: sectorPrefix(fake.address), max: 20 });
    toM.send({ code: MessageCode.getPresence2, address: fake.address });
    toM.send({ code: MessageCode.getRandomPresences, type: 'R' });
    await pump(...sockets);
    expect(errors).toEqual([]);
    const sector = c.got.find((g) => g.message.code === MessageCode.sectorNodes)?.message;
    expect(sector?.code === MessageCode.sectorNodes && sector.presences.map((p) => [toHex(p.address), p.keepAlives.length])).toEqual(
      expect.arrayContaining([[toHex(fake.address), MAX_PRESENCE_DEVICES], [toHex(ids[1]!.address), 1]]),
    );
    // getPresence2, and getRandomPresences('R') of two relay wallets: three updatePresence.
    expect(presencesIn() - before).toBe(3);
    expect(c.n.presence.get(fake.address)!.devices.size).toBe(MAX_PRESENCE_DEVICES);
    for (const x of [m, r, c]) x.n.stop();
    await pump(...sockets);
  });
});

describe('PeerNetwork: a master whose signer PoW solution comes after its first links', () => {
  it('announces its first keep-alive to the links it already had when a new link opens before the keep-alive timer', async () => {
    const clock = new ManualClock();
    // Masters that require and (here trivially) check the signer PoW in keep-alives (§3.3–§3.4).
    const master = (id: TestIdentity, endpoint: string, solution: () => Uint8Array | null) => {
      const local: LocalNode = {
        network: 'reg', genesisChecksum: GENESIS, nodeType: 'M', address: id.address, publicKey: id.publicKey,
        productVersion: 'dltnode-test', endpoint, sign: id.sign,
        tip: () => ({ height: 5n, checksum: new Uint8Array(64) }), networkHeight: () => 5n, acceptingPeers: () => true,
      };
      return new PeerNetwork({ local, clock, presence: { requireMasterPow: true, checkMasterPow: () => true, ownPowSolution: solution } });
    };
    const pow = Uint8Array.of(1, 2, 3);
    const m1 = master(ids[0]!, '127.0.0.1:10001', () => pow);
    let late: Uint8Array | null = null;
    const m3 = master(ids[1]!, '127.0.0.1:10003', () => late);
    const r = net(ids[2]!, 'R', '127.0.0.1:10004', clock).n;
    for (const x of [m1, m3, r]) x.start();
    const sockets = wire(m3, m1, '127.0.0.1:10001');
    await pump(...sockets);
    // No solution yet: m3 announces nothing, m1 does not know it.
    expect(m1.presence.get(ids[1]!.address)).toBeNull();
    // The solution arrives, and a relay links to m3 before m3's keep-alive timer runs: the
    // keep-alive made for the relay's presence is the first one, and m1 must hear of it too.
    late = pow;
    sockets.push(...wire(r, m3, '127.0.0.1:10003'));
    await settleNet(clock, sockets, 5);
    expect(r.presence.get(ids[1]!.address)).not.toBeNull();
    // Well before the 100 s master keep-alive interval.
    expect(m1.presence.get(ids[1]!.address)).not.toBeNull();
    for (const x of [m1, m3, r]) x.stop();
    await pump(...sockets);
  });
});

describe('PeerNetwork: a flood of sockets that never say hello', () => {
  it('refuses inbound sockets beyond the pending-handshake cap, and frees them at the hello deadline', async () => {
    const clock = new ManualClock();
    const m = net(ids[0]!, 'M', '127.0.0.1:10001', clock);
    const n = new PeerNetwork({ local: (m.n as unknown as { local: LocalNode }).local, clock, maxPendingHandshakes: 3 });
    const socks = Array.from({ length: 6 }, () => new MemorySocket());
    const links = socks.map((s) => n.accept(s, '10.1.1.1:5'));
    expect(links.map((l) => l.state === 'closed')).toEqual([false, false, false, true, true, true]);
    expect(socks[5]!.closeCode).toBe(4804);
    clock.advance(10_000);
    expect(links.every((l) => l.state === 'closed')).toBe(true);
    expect(n.accept(new MemorySocket(), '10.1.1.1:6').state).not.toBe('closed');
  });
});

describe('PeerNetwork: one host holding pending handshakes (h2 finding: one process locked every peer out)', () => {
  it('refuses a host past its own pending-handshake cap while other hosts still get in', () => {
    const clock = new ManualClock();
    const m = net(ids[0]!, 'M', '127.0.0.1:10001', clock);
    const n = new PeerNetwork({ local: (m.n as unknown as { local: LocalNode }).local, clock, maxPendingHandshakes: 10, maxPendingHandshakesPerHost: 4 });
    const hog = Array.from({ length: 12 }, (_, i) => n.accept(new MemorySocket(), `10.1.1.1:${1000 + i}`));
    expect(hog.filter((l) => l.state !== 'closed')).toHaveLength(4);
    const refused = new MemorySocket();
    n.accept(refused, '10.1.1.1:2000');
    expect(refused.closeCode).toBe(4804);
    // Another host, the same host over IPv6 brackets, and loopback (one host of its own) still get in.
    expect(n.accept(new MemorySocket(), '10.2.2.2:5').state).not.toBe('closed');
    expect(n.accept(new MemorySocket(), '[2001:db8::1]:5').state).not.toBe('closed');
    expect(n.accept(new MemorySocket(), '127.0.0.1:5').state).not.toBe('closed');
  });

  it('lets a devnet of a dozen loopback nodes dial one node at once with the default caps', () => {
    const clock = new ManualClock();
    const m = net(ids[0]!, 'M', '127.0.0.1:10001', clock);
    const links = Array.from({ length: 24 }, (_, i) => m.n.accept(new MemorySocket(), `127.0.0.1:${20000 + i}`));
    expect(links.every((l) => l.state !== 'closed')).toBe(true);
    m.n.stop();
  });

  it(`keeps one host below MAX_PENDING_HANDSHAKES with the default caps`, () => {
    const clock = new ManualClock();
    const m = net(ids[0]!, 'M', '127.0.0.1:10001', clock);
    const hog = Array.from({ length: MAX_PENDING_HANDSHAKES }, (_, i) => m.n.accept(new MemorySocket(), `127.0.0.1:${20000 + i}`));
    expect(hog.filter((l) => l.state !== 'closed').length).toBeLessThan(MAX_PENDING_HANDSHAKES / 4);
    const other = new MemorySocket();
    expect(m.n.accept(other, '127.0.0.2:5').state).not.toBe('closed');
    m.n.stop();
  });
});

describe('PeerNetwork: oversized messages before the hello count against the host', () => {
  it('scores by IP, so reconnecting from new source ports does not reset the score', () => {
    const clock = new ManualClock();
    const m = net(ids[0]!, 'M', '127.0.0.1:10001', clock);
    for (const port of [5, 6]) {
      const sock = new MemorySocket();
      m.n.accept(sock, `10.1.1.1:${port}`).oversized('33 MiB');
      expect(sock.closeCode).toBe(4811);
    }
    expect(m.n.scores.score('h:10.1.1.1')).toBe(100);
    const third = new MemorySocket();
    m.n.accept(third, '10.1.1.1:7');
    expect(third.closeCode).toBe(4805); // banned
    const loopback = new MemorySocket(); // never banned by host: a devnet shares it
    m.n.accept(loopback, '127.0.0.1:7').oversized('33 MiB');
    expect(loopback.closeCode).toBe(4811);
    expect(m.n.scores.score('h:127.0.0.1')).toBe(0);
    m.n.stop();
  });
});

describe('PeerNetwork: the connect operation', () => {
  it(`keeps at most MAX_CONNECT_TARGETS peers added by connect; one already kept is no new one`, () => {
    const clock = new ManualClock();
    const m = net(ids[0]!, 'M', '127.0.0.1:10001', clock);
    for (let i = 0; i < MAX_CONNECT_TARGETS; i++) expect(m.n.connect(`10.0.${i >> 8}.${i & 255}:4000`)).toBe(true);
    expect(() => m.n.connect('10.9.9.9:4000')).toThrow(/256 peers were added with connect already/);
    expect(m.n.connect('10.0.0.0:4000')).toBe(true); // already kept
    expect(m.n.connect('127.0.0.1:10001')).toBe(false); // our own endpoint is never dialled
    expect(() => m.n.connect('nope')).toThrow(/expected host:port/);
    m.n.stop();
  });
});

describe('PeerNetwork: connect to an address where no peer listens (h2: an RPC port was redialled for ever, silently)', () => {
  it('tells the first failure with its reason, and drops the target after CONNECT_DIAL_ATTEMPTS failed dials', async () => {
    const clock = new ManualClock();
    const opened: string[] = [];
    const failed: string[] = [];
    const openSocket = failingSockets((url) => opened.push(url), 'Unexpected server response: 404');
    const m = net(ids[0]!, 'M', '127.0.0.1:10001', clock, {
      dial: { openSocket },
      onConnectFailed: (t, detail, givenUp) => void failed.push(`${targetKey(t)} ${detail} ${givenUp}`),
    });
    m.n.start();
    expect(m.n.connect('127.0.0.1:18000')).toBe(true);
    for (let i = 0; i < 8; i++) {
      await new Promise((r) => setImmediate(r));
      clock.advance(60_000);
    }
    expect(opened).toHaveLength(CONNECT_DIAL_ATTEMPTS);
    expect(failed).toEqual(['127.0.0.1:18000 Unexpected server response: 404 false', `127.0.0.1:18000 ${CONNECT_DIAL_ATTEMPTS} dials failed true`]);
    expect(m.n.dialer.has('127.0.0.1:18000')).toBe(false);
    m.n.stop();
  });
});

describe('PeerNetwork: a configured peer where no peer listens (a --peer dead from the start was silent)', () => {
  it('tells its first failure with the reason, once, and keeps dialling it', async () => {
    const clock = new ManualClock();
    const opened: string[] = [];
    const told: string[] = [];
    const openSocket = failingSockets((url) => opened.push(url), 'connect ECONNREFUSED 127.0.0.1:18001');
    const m = net(ids[0]!, 'C', '', clock, {
      peers: [{ host: '127.0.0.1', port: 18001 }],
      dial: { openSocket },
      onPeerUnreachable: (t, detail) => void told.push(`${targetKey(t)} ${detail}`),
    });
    m.n.start();
    for (let i = 0; i < 8; i++) {
      await new Promise((r) => setImmediate(r));
      clock.advance(60_000);
    }
    expect(opened.length).toBeGreaterThan(3);
    expect(told).toEqual(['127.0.0.1:18001 connect ECONNREFUSED 127.0.0.1:18001']);
    expect(m.n.dialer.has('127.0.0.1:18001')).toBe(true);
    m.n.stop();

    // A peer that answers and refuses (4806, linked already the other way) is no unreachable one:
    // the link's close is logged with its reason instead.
    const refusedTold: string[] = [];
    const r = net(ids[0]!, 'C', '', clock, {
      peers: [{ host: '127.0.0.1', port: 18002 }],
      dial: { openSocket: failingSockets(() => undefined, undefined, 4806) },
      onPeerUnreachable: (t) => void refusedTold.push(targetKey(t)),
    });
    r.n.start();
    for (let i = 0; i < 3; i++) {
      await new Promise((res) => setImmediate(res));
      clock.advance(60_000);
    }
    expect(refusedTold).toEqual([]);
    r.n.stop();
  });
});

describe('PeerNetwork: a node with no link at all and a configured peer that is down', () => {
  it('redials it every reconnect pass (2 s, as the reference), not on a backoff growing to 60 s', async () => {
    // Tester: a syncing master whose only --peer came back took up to 60 s to dial it again.
    const clock = new ManualClock();
    let dials = 0;
    const openSocket = (() => {
      dials++;
      const fake = Object.assign(new EventEmitter(), { terminate: () => undefined });
      setImmediate(() => {
        fake.emit('error', new Error('connect ECONNREFUSED'));
        fake.emit('close', 1006, Buffer.alloc(0));
      });
      return fake;
    }) as never;
    const m = net(ids[0]!, 'M', '127.0.0.1:10001', clock, { dial: { openSocket }, peers: [{ host: '127.0.0.1', port: 18001 }] });
    m.n.start();
    const passes = 20;
    for (let i = 0; i < passes; i++) {
      await new Promise((r) => setImmediate(r));
      clock.advance(DISCOVERY_INTERVAL_MS);
    }
    expect(dials).toBe(passes + 1);
    m.n.stop();
  });
});

describe('PeerNetwork: a node with no master links and masters it cannot reach for a while', () => {
  it('keeps them in its peer book and dials them again every RETRY_AFTER_MS (the reference lowers a rating, it does not forget)', async () => {
    const clock = new ManualClock();
    const dialled = new Map<string, number>();
    const openSocket = failingSockets((url) => dialled.set(url, (dialled.get(url) ?? 0) + 1), 'connect ECONNREFUSED');
    const book = new PeerBook({ clock });
    book.learn('127.0.0.1:18001', addressToText(ids[1]!.address));
    book.learn('127.0.0.1:18002', addressToText(ids[2]!.address));
    const m = net(ids[0]!, 'M', '127.0.0.1:10001', clock, { dial: { openSocket }, peerBook: book });
    m.n.start();
    const rounds = 4;
    for (let i = 0; i < (rounds * RETRY_AFTER_MS) / 1_000 + 10; i++) {
      await new Promise((r) => setImmediate(r));
      clock.advance(1_000);
    }
    expect(m.n.links()).toHaveLength(0);
    expect(book.entries().map((e) => e.endpoint).sort()).toEqual(['127.0.0.1:18001', '127.0.0.1:18002']);
    for (const url of ['ws://127.0.0.1:18001/p2p', 'ws://127.0.0.1:18002/p2p']) expect(dialled.get(url)).toBeGreaterThanOrEqual(rounds * DISCOVERED_DIAL_ATTEMPTS);
    m.n.stop();
  });
});

describe('PeerNetwork: a node that loses its last master link', () => {
  it('dials the master it was linked to most recently first, as the reference does with no connections (§2.2)', async () => {
    const clock = new ManualClock();
    const dialled: string[] = [];
    const openSocket = failingSockets((url) => dialled.push(url));
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.99); // a uniform pick takes the last entry
    try {
      const book = new PeerBook({ clock });
      book.learn('127.0.0.1:18000', addressToText(ids[1]!.address));
      book.learn('127.0.0.1:18002', addressToText(ids[2]!.address));
      book.learn('127.0.0.1:18003', addressToText(ids[3]!.address));
      // One outbound link at most: while linked to a, the book is not picked from.
      const s = net(ids[0]!, 'M', '127.0.0.1:10001', clock, { dial: { openSocket }, peerBook: book, limits: { outbound: 1 } });
      const a = net(ids[1]!, 'M', '127.0.0.1:18000', clock);
      s.n.start(); // its first pick, with no master ever linked, is a uniform one
      clock.advance(0);
      expect(dialled).toEqual(['ws://127.0.0.1:18003/p2p']);
      const sockets = wire(s.n, a.n, '127.0.0.1:18000');
      for (let i = 0; i < (RETRY_AFTER_MS + 10_000) / 1_000; i++) {
        await pump(...sockets);
        clock.advance(1_000);
      }
      expect(s.n.links()).toHaveLength(1);
      const before = dialled.length;
      a.n.stop();
      await pump(...sockets);
      expect(s.n.links()).toHaveLength(0);
      for (let i = 0; i < 3 && dialled.length === before; i++) {
        await new Promise((r) => setImmediate(r));
        clock.advance(1_000);
      }
      expect(dialled[before]).toBe('ws://127.0.0.1:18000/p2p');
      s.n.stop();
    } finally {
      random.mockRestore();
    }
  });
});

describe('PeerNetwork: a syncing master refusing a master that dials it (§2.3 acceptor step 6)', () => {
  it('refuses it with notReady after its hello, and keeps it in its peer book to dial it', async () => {
    // A master that synchronizes refuses links, so it catches up only over links it dials. One
    // that knows no reachable master (its book lost, its --peer down) would never learn the
    // masters that dial it if it refused them before their hello.
    const clock = new ManualClock();
    const book = new PeerBook({ clock });
    const local: LocalNode = {
      network: 'reg', genesisChecksum: GENESIS, nodeType: 'M', address: ids[0]!.address, publicKey: ids[0]!.publicKey,
      productVersion: 'dltnode-test', endpoint: '127.0.0.1:10001', sign: ids[0]!.sign,
      tip: () => ({ height: 5n, checksum: new Uint8Array(64) }), networkHeight: () => 50n, acceptingPeers: () => false,
    };
    const syncing = net(ids[0]!, 'M', '127.0.0.1:10001', clock, { local, peerBook: book });
    const other = net(ids[1]!, 'M', '127.0.0.1:18000', clock);
    syncing.n.start();
    other.n.start();
    const sockets = wire(other.n, syncing.n, '127.0.0.1:10001');
    for (let i = 0; i < 5; i++) await pump(...sockets);
    expect(sockets[0]!.link.closeInfo?.reason).toBe('notReady');
    expect(syncing.n.links()).toHaveLength(0);
    expect(book.entries().map((e) => [e.endpoint, e.address])).toEqual([['127.0.0.1:18000', addressToText(ids[1]!.address)]]);
    syncing.n.stop();
    other.n.stop();
  });
});

describe('PeerNetwork: no dialling of a peer linked the other way (§2.1)', () => {
  it('a target whose endpoint a linked peer advertised in its hello is not dialled while that link lasts', async () => {
    const clock = new ManualClock();
    const dialled: string[] = [];
    const openSocket = ((url: string) => {
      dialled.push(url);
      throw new Error('no network in this test');
    }) as never;
    const m1 = net(ids[0]!, 'M', '127.0.0.1:10001', clock, { dial: { openSocket } });
    const m2 = net(ids[1]!, 'M', '127.0.0.1:10002', clock);
    for (const x of [m1, m2]) x.n.start();
    const sockets = wire(m2.n, m1.n, '127.0.0.1:10001'); // m2 dials m1
    await settleNet(clock, sockets, 4, 1_000);
    expect(m1.n.links(['M'])).toHaveLength(1);
    m1.n.connect('127.0.0.1:10002'); // m2's advertised endpoint
    m1.n.connect('127.0.0.1:10003'); // someone else
    await settleNet(clock, sockets, 4, 3_000);
    expect(dialled.some((u) => u.includes(':10003/'))).toBe(true);
    expect(dialled.some((u) => u.includes(':10002/'))).toBe(false);
    for (const x of [m1, m2]) x.n.stop();
  });
});
