/**
 * A client's relay choice by sector (reference-network §3.5, §10 keep 7) over in-memory links: a
 * master, four relays and a client, each a PeerNetwork; the client's RelayChooser is wired as the
 * node wires it (node-network.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sectorPrefix } from '../../src/formats/address.js';
import { toHex } from '../../src/formats/bytes.js';
import { targetKey, type DialTarget } from '../../src/network/dial.js';
import type { LocalNode } from '../../src/network/link.js';
import { PeerBook } from '../../src/network/peer-book.js';
import { MASTER_TYPES, PeerNetwork } from '../../src/network/peer-network.js';
import { MessageCode } from '../../src/network/protocol/codes.js';
import type { Message, NodeType } from '../../src/network/protocol/messages.js';
import { LOST_RELAY_AVOID_MS, RELAY_LINKS, RelayChooser, STRANDED_RETRY_MAX_MS } from '../../src/network/relay-choice.js';
import { GENESIS, makeIdentity, ManualClock, MemoryNet, type TestIdentity } from './helpers.js';

let ids: TestIdentity[];
beforeAll(async () => {
  ids = await Promise.all(Array.from({ length: 6 }, () => makeIdentity()));
});

const MASTER: DialTarget = { host: '10.0.0.100', port: 7000 };
const relayTarget = (i: number): DialTarget => ({ host: `10.0.0.${i + 1}`, port: 7000 });

/** One node of the test network; a client gets its RelayChooser. */
function node(world: { clock: ManualClock; mem: MemoryNet }, id: TestIdentity, type: NodeType, endpoint: string, peers: DialTarget[], memoryFile?: string, seeds?: DialTarget[]) {
  const got: Message[] = [];
  /** Links that closed: the peer's type and the close reason. */
  const closed: { type: NodeType; reason: string | null; byUs: boolean }[] = [];
  const local: LocalNode = {
    network: 'reg', genesisChecksum: GENESIS, nodeType: type, address: id.address, publicKey: id.publicKey,
    productVersion: 'dltnode-test', endpoint, sign: id.sign,
    tip: () => ({ height: 5n, checksum: new Uint8Array(64) }), networkHeight: () => 5n, acceptingPeers: () => true,
  };
  let chooser: RelayChooser | null = null;
  const net = new PeerNetwork({
    local,
    clock: world.clock,
    peers,
    ...(seeds ? { seeds } : {}),
    dial: { openSocket: world.mem.openSocket },
    // As node-network.ts wires a client: its peer book, and the master links its relay choice wants.
    ...(type === 'C' ? { peerBook: new PeerBook({ clock: world.clock }), clientMasterLinks: () => chooser?.mastersWanted() ?? 0 } : {}),
    onOpen: (l) => chooser?.linkOpened(l),
    onClose: (l, info) => {
      closed.push({ type: l.peerType, reason: info.reason, byUs: info.byUs });
      chooser?.linkClosed(l, info);
    },
    onMessage: (_l, m) => {
      got.push(m);
      if (m.code === MessageCode.sectorNodes) chooser?.sectorNodes(m.prefix);
    },
  });
  if (type === 'C') chooser = new RelayChooser({ peers: net, address: id.address, clock: world.clock, ...(memoryFile ? { memoryFile } : {}) });
  if (endpoint) world.mem.listen(endpoint, net);
  net.start();
  chooser?.start();
  return {
    net,
    chooser,
    got,
    closed,
    stop() {
      world.mem.unlisten(endpoint);
      chooser?.stop();
      net.stop();
    },
  };
}

const turns = async (n = 30) => {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
};

/** An in-memory network on a manual clock, and `run(ms)`: that much time in 500 ms steps, letting frames flow. */
function memoryWorld() {
  const w = { clock: new ManualClock(), mem: new MemoryNet() };
  const run = async (ms: number) => {
    for (let t = 0; t < ms; t += 500) {
      await turns();
      w.clock.advance(500);
    }
    await turns();
  };
  return { w, run };
}

/** A master, four relays dialling it; returns them and the relays ranked by closeness to the client's sector. */
async function world(client: TestIdentity) {
  const { w, run } = memoryWorld();
  const master = node(w, ids[0]!, 'M', targetKey(MASTER), []);
  const relays = [1, 2, 3, 4].map((i) => node(w, ids[i]!, 'R', targetKey(relayTarget(i)), [MASTER]));
  await run(3_000);
  // The master's relay tree ranks the relays for the client's sector (presence.test.ts checks the ranking).
  const ranked = master.net.presence.closestRelays(sectorPrefix(client.address), 10).map((r) => {
    const i = relays.findIndex((x) => toHex(x.net.ctx.local.address) === toHex(r.wallet));
    return { i, relay: relays[i]!, target: relayTarget(i + 1), hex: toHex(r.wallet) };
  });
  expect(ranked).toHaveLength(4);
  return { ...w, run, master, relays, ranked };
}

const relayLinks = (n: PeerNetwork) => n.links(['R']).map((l) => toHex(l.peerAddress)).sort();
const hostAt = (at: PeerNetwork, who: TestIdentity) => [...(at.presence.get(who.address)?.devices.values() ?? [])].map((d) => d.host);

describe('a client chooses its relays by sector', () => {
  it('seeded with a master: asks its sector, links to the two nearest relays, replaces a lost one and returns to it later', async () => {
    const me = ids[5]!;
    const w = await world(me);
    const client = node(w, me, 'C', '', [MASTER]);
    await w.run(5_000);

    // It asked the master for its own sector, and links to the two relays nearest it.
    expect(w.master.net.stats.framesIn.get(MessageCode.getSectorNodes)).toBe(1);
    expect(client.got.some((m) => m.code === MessageCode.sectorNodes && toHex(m.prefix) === toHex(sectorPrefix(me.address)))).toBe(true);
    const [first, second, third] = w.ranked as [(typeof w.ranked)[0], (typeof w.ranked)[0], (typeof w.ranked)[0]];
    expect(relayLinks(client.net)).toEqual([first.hex, second.hex].sort());
    expect(RELAY_LINKS).toBe(2);
    // Its presence host is its primary relay, at the relays and (through them) at the master.
    const primary = client.net.primaryRelay!;
    const primaryEndpoint = targetKey(w.ranked.find((r) => r.hex === toHex(primary.peerAddress))!.target);
    expect(hostAt(first.relay.net, me)).toEqual([primaryEndpoint]);
    await w.run(2_000);
    expect(hostAt(w.master.net, me)).toEqual([primaryEndpoint]);

    // The nearest relay goes away: the client links to the third instead, and dials the lost one no more.
    first.relay.stop();
    await w.run(12_000);
    expect(relayLinks(client.net)).toEqual([second.hex, third.hex].sort());
    expect(client.net.dialer.list().map((t) => t.key)).not.toContain(targetKey(first.target));
    // The presence host follows the primary: the remaining relay it was linked to before.
    expect(toHex(client.net.primaryRelay!.peerAddress)).toBe(second.hex);
    expect(hostAt(second.relay.net, me)).toEqual([targetKey(second.target)]);

    // The nearest relay comes back; once it is no longer avoided the client returns to it.
    const back = node(w, ids[first.i + 1]!, 'R', targetKey(first.target), [MASTER]);
    await w.run(LOST_RELAY_AVOID_MS + 15_000);
    expect(relayLinks(client.net)).toEqual([first.hex, second.hex].sort());
    expect(client.chooser!.relays().map(toHex).sort()).toEqual([first.hex, second.hex].sort());

    for (const n of [client, back, w.master, ...w.relays]) n.stop();
  }, 30_000);

  it('given a relay by --peer: keeps it as its primary relay and adds the nearest one (asked through the relay)', async () => {
    const me = ids[5]!;
    const w = await world(me);
    const farthest = w.ranked[3]!;
    const client = node(w, me, 'C', '', [farthest.target]);
    await w.run(10_000);

    // The named relay had no sector list of its own: it asked the master, then answered.
    expect(farthest.relay.net.stats.framesIn.get(MessageCode.getSectorNodes)).toBe(1);
    expect(w.master.net.stats.framesIn.get(MessageCode.getSectorNodes)).toBe(1);
    expect(farthest.relay.got.filter((m) => m.code === MessageCode.sectorNodes)).toHaveLength(1);
    expect(relayLinks(client.net)).toEqual([farthest.hex, w.ranked[0]!.hex].sort());
    // The named relay stays the primary: the client's presence names it, at both relays.
    expect(toHex(client.net.primaryRelay!.peerAddress)).toBe(farthest.hex);
    expect(hostAt(farthest.relay.net, me)).toEqual([targetKey(farthest.target)]);
    expect(hostAt(w.ranked[0]!.relay.net, me)).toEqual([targetKey(farthest.target)]);

    // The named relay restarts: meanwhile the sector relay is the primary; back, the named one is again.
    farthest.relay.stop();
    await w.run(3_000);
    expect(toHex(client.net.primaryRelay!.peerAddress)).toBe(w.ranked[0]!.hex);
    expect(hostAt(w.ranked[0]!.relay.net, me)).toEqual([targetKey(w.ranked[0]!.target)]);
    const back = node(w, ids[farthest.i + 1]!, 'R', targetKey(farthest.target), [MASTER]);
    await w.run(70_000);
    expect(toHex(client.net.primaryRelay!.peerAddress)).toBe(farthest.hex);
    expect(hostAt(w.ranked[0]!.relay.net, me)).toEqual([targetKey(farthest.target)]);
    // Two relay links in all: the named one and the nearest (the one added while it was away is dropped).
    expect(relayLinks(client.net)).toEqual([farthest.hex, w.ranked[0]!.hex].sort());

    for (const n of [client, back, w.master, ...w.relays]) n.stop();
  }, 30_000);

  it('given two relays by --peer, one dead from the start: links to the live one and the nearest, and takes the named one back when it comes up', async () => {
    const me = ids[5]!;
    const w = await world(me);
    const [nearest, , dead, named] = w.ranked as [(typeof w.ranked)[0], (typeof w.ranked)[0], (typeof w.ranked)[0], (typeof w.ranked)[0]];
    dead.relay.stop();
    await w.run(1_000);
    const client = node(w, me, 'C', '', [named.target, dead.target]);
    await w.run(10_000);
    expect(relayLinks(client.net)).toEqual([named.hex, nearest.hex].sort());
    expect(toHex(client.net.primaryRelay!.peerAddress)).toBe(named.hex);
    // The dead one comes up: both named relays are the client's two, the chosen one is let go.
    const back = node(w, ids[dead.i + 1]!, 'R', targetKey(dead.target), [MASTER]);
    await w.run(70_000);
    expect(relayLinks(client.net)).toEqual([named.hex, dead.hex].sort());
    expect(toHex(client.net.primaryRelay!.peerAddress)).toBe(named.hex);

    for (const n of [client, back, w.master, ...w.relays.filter((r) => r !== dead.relay)]) n.stop();
  }, 30_000);

  it("the operator's isolate loses no relay: the client links to the same two again", async () => {
    const me = ids[5]!;
    const w = await world(me);
    const client = node(w, me, 'C', '', [MASTER]);
    await w.run(5_000);
    const nearest = [w.ranked[0]!.hex, w.ranked[1]!.hex].sort();
    expect(relayLinks(client.net)).toEqual(nearest);

    client.net.isolate();
    await w.run(10_000);
    expect(relayLinks(client.net)).toEqual(nearest);
    expect(client.chooser!.relays().map(toHex).sort()).toEqual(nearest);

    for (const n of [client, w.master, ...w.relays]) n.stop();
  }, 30_000);

  it('left with no relay link, retries the relays it chose (their presences expired) until one is back', async () => {
    const me = ids[5]!;
    const w = await world(me);
    const farthest = w.ranked[3]!;
    const nearest = w.ranked[0]!;
    const client = node(w, me, 'C', '', [farthest.target]);
    await w.run(10_000);
    expect(relayLinks(client.net)).toEqual([farthest.hex, nearest.hex].sort());

    // Every relay and the master go away; the relays' presences expire at the client (no keep-alives reach it).
    for (const n of [w.master, ...w.relays]) n.stop();
    await w.run(LOST_RELAY_AVOID_MS + 300_000);
    expect(relayLinks(client.net)).toEqual([]);
    expect(client.net.presence.closestRelays(sectorPrefix(me.address), 10)).toEqual([]);

    // The nearest relay comes back (the named one does not): the client dials it again on its own.
    const back = node(w, ids[nearest.i + 1]!, 'R', targetKey(nearest.target), [MASTER]);
    await w.run(STRANDED_RETRY_MAX_MS + 15_000);
    expect(relayLinks(client.net)).toEqual([nearest.hex]);

    for (const n of [client, back]) n.stop();
  }, 60_000);

  it('restarted while its named relay is down: dials the relays it chose before (kept in its data directory), not only the dead one', async () => {
    // Seen in a devnet: relay-1 killed, client-1 (--peer relay-1) restarted: no link for minutes
    // while relay-2, which it had used, and the masters ran on.
    const me = ids[5]!;
    const w = await world(me);
    const farthest = w.ranked[3]!;
    const nearest = w.ranked[0]!;
    const dir = mkdtempSync(join(tmpdir(), 'dltnode-relays-'));
    try {
      const file = join(dir, 'relays.json');
      const before = node(w, me, 'C', '', [farthest.target], file);
      await w.run(10_000);
      expect(relayLinks(before.net)).toEqual([farthest.hex, nearest.hex].sort());
      before.stop();
      farthest.relay.stop();
      await w.run(1_000);

      const after = node(w, me, 'C', '', [farthest.target], file);
      await w.run(15_000);
      // Linked to the nearest again, and through it to the next nearest (two relay links, §10 keep 7).
      expect(relayLinks(after.net)).toEqual([nearest.hex, w.ranked[1]!.hex].sort());
      for (const n of [after, w.master, ...w.relays]) n.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('restarted with no --peer: dials the relays it chose before at once, not after its first 5 s maintenance pass', async () => {
    // Seen in a devnet: a client started with only --seed, restarted, had no link for 5 s.
    const me = ids[5]!;
    const w = await world(me);
    const dir = mkdtempSync(join(tmpdir(), 'dltnode-relays-'));
    try {
      const file = join(dir, 'relays.json');
      const before = node(w, me, 'C', '', [], file, [MASTER]);
      await w.run(5_000);
      const chosen = [w.ranked[0]!.hex, w.ranked[1]!.hex].sort();
      expect(relayLinks(before.net)).toEqual(chosen);
      before.stop();
      await w.run(1_000);

      const after = node(w, me, 'C', '', [], file, [MASTER]);
      await w.run(1_000);
      expect(relayLinks(after.net)).toEqual(chosen);
      expect(after.net.links(MASTER_TYPES)).toEqual([]);
      for (const n of [after, w.master, ...w.relays]) n.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('back on its only relay after it restarted, announces a fresh keep-alive (a sender told "not connected" there learns it is back)', async () => {
    const me = ids[5]!;
    // One relay: the client has no other to switch to (a switch changes the host, and so the keep-alive, anyway).
    const { w, run } = memoryWorld();
    const master = node(w, ids[0]!, 'M', targetKey(MASTER), []);
    const relay = node(w, ids[1]!, 'R', targetKey(relayTarget(1)), [MASTER]);
    await run(3_000);
    const client = node(w, me, 'C', '', [relayTarget(1)]);
    await run(10_000);
    const lastSeenAt = (at: PeerNetwork) => Math.max(...[...(at.presence.get(me.address)?.devices.values() ?? [])].map((d) => d.lastSeen));
    expect(hostAt(relay.net, me)).toEqual([targetKey(relayTarget(1))]);
    // The client's own latest keep-alive (its own presence entry).
    const before = lastSeenAt(client.net);

    relay.stop();
    await run(3_000);
    expect(relayLinks(client.net)).toEqual([]);
    const back = node(w, ids[1]!, 'R', targetKey(relayTarget(1)), [MASTER]);
    await run(10_000);
    expect(relayLinks(client.net)).toHaveLength(1);
    // Same host as before: only a newer timestamp tells it reconnected (reference-network §3.3:
    // a keep-alive is made anew when forced, e.g. with few links), well inside the 100 s interval.
    expect(hostAt(back.net, me)).toEqual([targetKey(relayTarget(1))]);
    expect(lastSeenAt(back.net)).toBeGreaterThan(before);

    for (const n of [client, back, master]) n.stop();
  }, 30_000);

  it('its named relay dies before it learned any other relay: it finds one through a master it heard of, soon', async () => {
    // Seen in a devnet: client-2 (--peer relay-2) asked its sector before the masters knew relay-1;
    // relay-2 killed in the next 30 s left it with no link at all until relay-2 came back.
    const me = ids[5]!;
    const { w, run } = memoryWorld();
    const master = node(w, ids[0]!, 'M', targetKey(MASTER), []);
    const first = node(w, ids[1]!, 'R', targetKey(relayTarget(1)), [MASTER]);
    await run(3_000);
    const client = node(w, me, 'C', '', [relayTarget(1)]);
    await run(5_000);
    expect(relayLinks(client.net)).toEqual([toHex(ids[1]!.address)]);
    // Its sector held only its own relay; another relay starts now, and the first dies.
    const second = node(w, ids[2]!, 'R', targetKey(relayTarget(2)), [MASTER]);
    await run(3_000);
    expect(client.net.presence.closestRelays(sectorPrefix(me.address), 10).map((r) => toHex(r.wallet))).toEqual([toHex(ids[1]!.address)]);
    first.stop();
    await run(STRANDED_RETRY_MAX_MS);
    expect(relayLinks(client.net)).toEqual([toHex(ids[2]!.address)]);
    // The master served only to find relays: its link is let go once a relay link is open, as the
    // reference's client lets go of links outside its relay set (bye 200, shuffling).
    await run(5_000);
    expect(client.net.links(MASTER_TYPES)).toEqual([]);
    expect(master.closed.filter((c) => c.type === 'C')).toEqual([{ type: 'C', reason: 'shuffling', byUs: false }]);
    expect(relayLinks(client.net)).toEqual([toHex(ids[2]!.address)]);

    for (const n of [client, second, master]) n.stop();
  }, 30_000);

  it('its named relay knew no master yet when it linked: the client asks again until it knows one, so the relay may die later', async () => {
    // Seen in a devnet: relay-2 killed 2 s after client-2 linked to it, before relay-2 held any
    // master presence: client-2 knew no master to find relays through and had no link for minutes.
    const me = ids[5]!;
    const { w, run } = memoryWorld();
    const first = node(w, ids[1]!, 'R', targetKey(relayTarget(1)), [MASTER]);
    const client = node(w, me, 'C', '', [relayTarget(1)]);
    await run(3_000);
    expect(relayLinks(client.net)).toEqual([toHex(ids[1]!.address)]);
    expect(client.net.presence.byRole('M')).toEqual([]);
    // The master comes up, then a second relay; the first relay dies before the client's sector retry.
    const master = node(w, ids[0]!, 'M', targetKey(MASTER), []);
    await run(4_000);
    const second = node(w, ids[2]!, 'R', targetKey(relayTarget(2)), [MASTER]);
    await run(3_000);
    first.stop();
    await run(STRANDED_RETRY_MAX_MS);
    expect(relayLinks(client.net)).toEqual([toHex(ids[2]!.address)]);

    for (const n of [client, second, master]) n.stop();
  }, 30_000);

  it('its named relay dies the moment the client links, before it told the client of any master: the client finds relays through a seed', async () => {
    // Seen in a devnet: relay-2 killed as client-2 linked to it; the client knew no master and had
    // no link until relay-2 came back. The reference's client dials its seeds (CORE
    // `NetworkClientManager.init` puts them in its peer store) while it has no sector relays.
    const me = ids[5]!;
    const { w, run } = memoryWorld();
    const master = node(w, ids[0]!, 'M', targetKey(MASTER), []);
    const other = node(w, ids[2]!, 'R', targetKey(relayTarget(2)), [MASTER]);
    // The client's relay links to no master: it has none to tell the client of.
    const first = node(w, ids[1]!, 'R', targetKey(relayTarget(1)), []);
    await run(3_000);
    const client = node(w, me, 'C', '', [relayTarget(1)], undefined, [MASTER]);
    await turns();
    expect(relayLinks(client.net)).toEqual([toHex(ids[1]!.address)]);
    first.stop();
    expect(client.net.presence.byRole('M')).toEqual([]);
    await run(STRANDED_RETRY_MAX_MS);
    expect(relayLinks(client.net)).toEqual([toHex(ids[2]!.address)]);
    // The seed served only to find relays: no permanent link to it.
    await run(5_000);
    expect(client.net.links(MASTER_TYPES)).toEqual([]);
    expect(relayLinks(client.net)).toEqual([toHex(ids[2]!.address)]);

    for (const n of [client, other, master]) n.stop();
  }, 30_000);

  it('given only a seed (no --peer, no relay remembered): dials the seed at once, links to its sector relays, and lets the seed go', async () => {
    const me = ids[5]!;
    const { w, run } = memoryWorld();
    const master = node(w, ids[0]!, 'M', targetKey(MASTER), []);
    const relays = [1, 2].map((i) => node(w, ids[i]!, 'R', targetKey(relayTarget(i)), [MASTER]));
    await run(3_000);
    const client = node(w, me, 'C', '', [], undefined, [MASTER]);
    // Nothing else to wait for: not the 5 s a client whose relays are gone waits before it wants a master.
    await run(2_000);
    expect(relayLinks(client.net)).toEqual(relays.map((r) => toHex(r.net.ctx.local.address)).sort());
    await run(5_000);
    expect(client.net.links(MASTER_TYPES)).toEqual([]);

    for (const n of [client, ...relays, master]) n.stop();
  }, 30_000);

  it('holding only the master it found relays through, redials its named relay at the isolated pace: back, it is linked within seconds', async () => {
    // Seen in a devnet: both relays killed, client-2 linked to a master; relay-2 (its --peer) back,
    // and the client linked to it 33 s later: with a link, the backoff ran up to the 60 s cap.
    const me = ids[5]!;
    const { w, run } = memoryWorld();
    const master = node(w, ids[0]!, 'M', targetKey(MASTER), []);
    const relay = node(w, ids[1]!, 'R', targetKey(relayTarget(1)), [MASTER]);
    await run(3_000);
    const client = node(w, me, 'C', '', [relayTarget(1)]);
    await run(5_000);
    expect(relayLinks(client.net)).toEqual([toHex(ids[1]!.address)]);
    relay.stop();
    await run(120_000);
    expect(relayLinks(client.net)).toEqual([]);
    expect(client.net.links(MASTER_TYPES)).toHaveLength(1);
    const back = node(w, ids[1]!, 'R', targetKey(relayTarget(1)), [MASTER]);
    await run(3_000);
    expect(relayLinks(client.net)).toEqual([toHex(ids[1]!.address)]);

    for (const n of [client, back, master]) n.stop();
  }, 30_000);

  it("keeps the relays' presences it holds from expiring: its status counts them all along", async () => {
    // Seen in a devnet: both clients' status showed Relays 0 for a while, 300 s after start and
    // again later: relays' keep-alives never reach a client (§3.3), so each copy from a sector
    // answer expires 300 s after the keep-alive it carries, before the next 300 s ask.
    const me = ids[5]!;
    const { w, run } = memoryWorld();
    const master = node(w, ids[0]!, 'M', targetKey(MASTER), []);
    const relays = [1, 2].map((i) => node(w, ids[i]!, 'R', targetKey(relayTarget(i)), [MASTER]));
    await run(3_000);
    const client = node(w, me, 'C', '', [relayTarget(1)]);
    await run(10_000);
    expect(relayLinks(client.net)).toHaveLength(2);
    const seen = new Set<number>();
    for (let s = 0; s < 700; s++) {
      await run(1_000);
      seen.add(client.net.presence.counts().relays);
    }
    expect([...seen]).toEqual([2]);
    expect(relayLinks(client.net)).toHaveLength(2);

    for (const n of [client, ...relays, master]) n.stop();
  }, 60_000);

  it("the operator's reconnect ends the avoidance of lost relays", async () => {
    const me = ids[5]!;
    const w = await world(me);
    const client = node(w, me, 'C', '', [MASTER]);
    await w.run(5_000);
    const [first, second, third, fourth] = w.ranked as [(typeof w.ranked)[0], (typeof w.ranked)[0], (typeof w.ranked)[0], (typeof w.ranked)[0]];
    // The two nearest go away: the client takes the two others and avoids the lost ones.
    first.relay.stop();
    second.relay.stop();
    await w.run(12_000);
    expect(relayLinks(client.net)).toEqual([third.hex, fourth.hex].sort());
    const back = [first, second].map((r) => node(w, ids[r.i + 1]!, 'R', targetKey(r.target), [MASTER]));
    await w.run(5_000);
    expect(relayLinks(client.net)).toEqual([third.hex, fourth.hex].sort());

    client.chooser!.reconnect();
    client.net.reconnect();
    await w.run(10_000);
    expect(relayLinks(client.net)).toEqual([first.hex, second.hex].sort());

    for (const n of [client, ...back, w.master, ...w.relays]) n.stop();
  }, 30_000);
});
