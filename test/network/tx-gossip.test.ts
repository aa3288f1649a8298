import { beforeAll, describe, expect, it } from 'vitest';
import { addressToText } from '../../src/formats/address.js';
import type { Link, LocalNode } from '../../src/network/link.js';
import { PeerNetwork } from '../../src/network/peer-network.js';
import { MessageCode } from '../../src/network/protocol/codes.js';
import type { Message } from '../../src/network/protocol/messages.js';
import { walletKey } from '../../src/network/scoring.js';
import type { AdmissionGateLimits } from '../../src/network/admission-gate.js';
import { repushOwnAfterMs, TxGossip, type AdmitOutcome, type GossipMempool } from '../../src/network/tx-gossip.js';
import { GENESIS, makeIdentity, ManualClock, settle as settleNet, type TestIdentity, wire } from './helpers.js';

let ids: TestIdentity[];
beforeAll(async () => {
  ids = await Promise.all(Array.from({ length: 3 }, () => makeIdentity()));
});

/** A mempool that takes any tx whose first byte is not 0xEE; the txid is the first 4 bytes. */
class FakeMempool implements GossipMempool {
  readonly txs = new Map<string, Uint8Array>();
  admitted = 0;
  async admit(transactions: Uint8Array[]): Promise<AdmitOutcome[]> {
    return transactions.map((tx) => {
      const txid = tx.slice(0, 4);
      if (tx[0] === 0xee) return { action: 'reject', txid, rejectedCode: 0x20 };
      const k = Buffer.from(txid).toString('hex');
      if (this.txs.has(k)) return { action: 'ignore', txid };
      this.txs.set(k, tx);
      this.admitted++;
      return { action: 'accept', txid };
    });
  }
  get(txid: Uint8Array): Uint8Array | null {
    return this.txs.get(Buffer.from(txid).toString('hex')) ?? null;
  }
  all(): Iterable<Uint8Array> {
    return this.txs.values();
  }
}

/** A FakeMempool whose admissions finish only when `open()` is called (a verifier that is behind). */
class SlowMempool extends FakeMempool {
  private waiting: (() => void)[] = [];
  calls = 0;
  override async admit(transactions: Uint8Array[]): Promise<AdmitOutcome[]> {
    this.calls++;
    await new Promise<void>((r) => this.waiting.push(r));
    return super.admit(transactions);
  }
  open(): void {
    const w = this.waiting;
    this.waiting = [];
    w.forEach((r) => r());
  }
}

function master(
  id: TestIdentity,
  port: number,
  clock: ManualClock,
  relaying: () => boolean = () => true,
  extra: { mempool?: FakeMempool; admissionLimits?: AdmissionGateLimits; refused?: number[]; repushAfterMs?: number; pushAccepted?: boolean; nodeType?: 'M' | 'R' | 'C' } = {},
) {
  const mempool = extra.mempool ?? new FakeMempool();
  const rest: { link: Link; message: Message }[] = [];
  let gossip!: TxGossip;
  const local: LocalNode = {
    network: 'reg', genesisChecksum: GENESIS, nodeType: extra.nodeType ?? 'M', address: id.address, publicKey: id.publicKey,
    productVersion: 't', endpoint: `127.0.0.1:${port}`, sign: id.sign,
    tip: () => ({ height: 1n, checksum: new Uint8Array(64) }), networkHeight: () => 1n, acceptingPeers: () => true,
  };
  const network = new PeerNetwork({
    local,
    clock,
    onMessage: async (link, m) => {
      if (!(await gossip.handle(link, m))) rest.push({ link, message: m });
    },
  });
  gossip = new TxGossip({
    network, mempool, clock, relaying,
    ...(extra.admissionLimits ? { admissionLimits: extra.admissionLimits } : {}),
    ...(extra.repushAfterMs !== undefined ? { repushAfterMs: extra.repushAfterMs } : {}),
    ...(extra.pushAccepted ? { pushAccepted: true } : {}),
    onRefused: (_link, count) => extra.refused?.push(count),
  });
  network.start();
  gossip.start();
  return { network, gossip, mempool, rest };
}


describe('TxGossip between three masters (m2 → m1 ← m3)', () => {
  it('a local tx reaches every master once; an invalid one is rejected, scored and not relayed; the mempool is served on request', async () => {
    const clock = new ManualClock();
    const [m1, m2, m3] = [master(ids[0]!, 1, clock), master(ids[1]!, 2, clock), master(ids[2]!, 3, clock)];
    const sockets = [...wire(m2.network, m1.network, '127.0.0.1:1'), ...wire(m3.network, m1.network, '127.0.0.1:1')];
    const settle = () => settleNet(clock, sockets);
    await settle();
    expect(m1.network.links()).toHaveLength(2);

    const tx = Uint8Array.of(1, 2, 3, 4, 9, 9, 9);
    await m2.mempool.admit([tx]);
    expect(m2.gossip.pushLocal(tx, tx.slice(0, 4))).toBe(1);
    await settle();
    expect(m1.mempool.get(tx.slice(0, 4))).not.toBeNull();
    expect(m3.mempool.get(tx.slice(0, 4))).not.toBeNull();
    expect([m1.mempool.admitted, m2.mempool.admitted, m3.mempool.admitted]).toEqual([1, 1, 1]);
    // m3 pulled it after m1's inventory: one getTransactions2 from m3's link.
    expect(m3.network.links()[0]!.stats.framesOut.get(MessageCode.getTransactions2)).toBe(1);

    const bad = Uint8Array.of(0xee, 0, 0, 1);
    m2.gossip.pushLocal(bad, bad.slice(0, 4));
    await settle();
    expect(m1.mempool.get(bad.slice(0, 4))).toBeNull();
    expect(m3.mempool.get(bad.slice(0, 4))).toBeNull();
    expect(m2.rest.map((r) => r.message.code)).toContain(MessageCode.rejected);
    expect(m1.network.scores.score(walletKey(addressToText(ids[1]!.address)))).toBeCloseTo(10, 0);

    // A node that asks for the mempool gets all of it.
    const tx2 = Uint8Array.of(5, 6, 7, 8);
    await m1.mempool.admit([tx2]);
    m3.network.links()[0]!.send({ code: MessageCode.getUnappliedTransactions });
    await settle();
    expect(m3.mempool.get(tx2.slice(0, 4))).not.toBeNull();

    for (const m of [m1, m2, m3]) {
      m.gossip.stop();
      m.network.stop();
    }
  });
});

/** A FakeMempool that ignores each transaction the first time it sees it (a block it has not yet, in the peer's view). */
class LateMempool extends FakeMempool {
  private readonly met = new Set<string>();
  override async admit(transactions: Uint8Array[]): Promise<AdmitOutcome[]> {
    const fresh = transactions.filter((tx) => !this.met.has(Buffer.from(tx.slice(0, 4)).toString('hex')));
    for (const tx of fresh) this.met.add(Buffer.from(tx.slice(0, 4)).toString('hex'));
    const later = await super.admit(transactions.filter((tx) => !fresh.includes(tx)));
    return transactions.map((tx) => (fresh.includes(tx) ? { action: 'ignore' as const, txid: tx.slice(0, 4) } : later.shift()!));
  }
}

describe('TxGossip: own transactions pushed again while pending (reference-network §4.1)', () => {
  it('a master pushes its own pending transaction again after repushAfterMs, until its mempool no longer holds it; without the option, never', async () => {
    const clock = new ManualClock();
    const late = new LateMempool();
    const m1 = master(ids[0]!, 1, clock, () => true, { mempool: late });
    const m2 = master(ids[1]!, 2, clock, () => true, { repushAfterMs: 30_000 });
    const m3 = master(ids[2]!, 3, clock); // no repushAfterMs: a light node's behaviour
    const sockets = [...wire(m2.network, m1.network, '127.0.0.1:1'), ...wire(m3.network, m1.network, '127.0.0.1:1')];
    const settle = () => settleNet(clock, sockets); // 4 s of the clock
    await settle();
    const pushesFrom = (m: typeof m1) => m.network.links()[0]!.stats.framesOut.get(MessageCode.transactionsChunk3) ?? 0;

    const tx = Uint8Array.of(7, 7, 7, 1, 5);
    await m2.mempool.admit([tx]);
    m2.gossip.pushLocal(tx, tx.slice(0, 4));
    const other = Uint8Array.of(7, 7, 7, 3, 5);
    await m3.mempool.admit([other]);
    m3.gossip.pushLocal(other, other.slice(0, 4));
    await settle();
    // m1 ignored both the first time (and marked them seen: no announcement pulls them again).
    expect(late.get(tx.slice(0, 4))).toBeNull();
    expect([pushesFrom(m2), pushesFrom(m3)]).toEqual([1, 1]);
    expect(m2.gossip.ownPending).toBe(1);
    for (let i = 0; i < 6; i++) await settle(); // 28 s since the push: not due yet
    expect(pushesFrom(m2)).toBe(1);
    await settle();
    expect(pushesFrom(m2)).toBe(2);
    expect(late.get(tx.slice(0, 4))).not.toBeNull();
    // m3 has no repushAfterMs: its transaction stays where it was refused.
    expect(pushesFrom(m3)).toBe(1);
    expect(late.get(other.slice(0, 4))).toBeNull();
    // Still pending on m2 30 s later: pushed again (m1 now ignores it as known, without scoring m2).
    for (let i = 0; i < 8; i++) await settle();
    expect(pushesFrom(m2)).toBe(3);
    // Applied (gone from m2's mempool): forgotten, never pushed again.
    m2.mempool.txs.clear();
    for (let i = 0; i < 16; i++) await settle();
    expect(pushesFrom(m2)).toBe(3);
    expect(m2.gossip.ownPending).toBe(0);
    expect(m1.network.scores.score(walletKey(addressToText(ids[1]!.address)))).toBe(0);
    for (const m of [m1, m2, m3]) {
      m.gossip.stop();
      m.network.stop();
    }
  });

  it('scales the reference\'s 60 s with the block interval, never under 30 s', () => {
    expect(repushOwnAfterMs(30)).toBe(60_000);
    expect(repushOwnAfterMs(120)).toBe(240_000);
    expect(repushOwnAfterMs(20)).toBe(40_000);
    expect(repushOwnAfterMs(6)).toBe(30_000);
    expect(repushOwnAfterMs(1)).toBe(30_000);
  });
});

describe('TxGossip on a relay (pushAccepted, reference-network §4.1)', () => {
  it('pushes what its clients hand over in full to its masters, which take it without a pull, and judge it afresh when it comes again', async () => {
    const clock = new ManualClock();
    const late = new LateMempool();
    const m1 = master(ids[0]!, 1, clock, () => true, { mempool: late });
    const m2 = master(ids[1]!, 2, clock);
    const relay = master(ids[2]!, 3, clock, () => true, { pushAccepted: true, nodeType: 'R' });
    const client = master(await makeIdentity(), 4, clock, () => true, { nodeType: 'C' });
    const sockets = [
      ...wire(relay.network, m1.network, '127.0.0.1:1'),
      ...wire(relay.network, m2.network, '127.0.0.1:2'),
      ...wire(client.network, relay.network, '127.0.0.1:3'),
    ];
    const settle = () => settleNet(clock, sockets);
    await settle();
    expect([m1.network.links().length, m2.network.links().length, relay.network.links().length, client.network.links().length]).toEqual([1, 1, 3, 1]);
    const tx = Uint8Array.of(9, 9, 9, 1, 3);
    const toRelay = client.network.links()[0]!;
    toRelay.send({ code: MessageCode.transactionsChunk3, tag: 0n, transactions: [tx] });
    await settle();
    expect(m2.mempool.get(tx.slice(0, 4))).not.toBeNull();
    expect(late.get(tx.slice(0, 4))).toBeNull(); // m1 ignored it the first time
    const pulls = (m: typeof m1) => m.network.links().reduce((n, l) => n + (l.stats.framesOut.get(MessageCode.getTransactions2) ?? 0), 0);
    expect([pulls(m1), pulls(m2)]).toEqual([0, 0]);
    // Not pushed back to the client it came from.
    expect(toRelay.stats.framesIn.get(MessageCode.transactionsChunk3) ?? 0).toBe(0);
    // The client sends it again and the relay takes it again (its pool forgot it): m1, which marked
    // the txid processed, checks the pushed copy all the same; m2 ignores a duplicate.
    relay.mempool.txs.clear();
    toRelay.send({ code: MessageCode.transactionsChunk3, tag: 0n, transactions: [tx] });
    await settle();
    expect(late.get(tx.slice(0, 4))).not.toBeNull();
    expect(m2.mempool.admitted).toBe(1);
    for (const m of [m1, m2, relay, client]) {
      m.gossip.stop();
      m.network.stop();
    }
  });
});

describe('TxGossip while synchronizing', () => {
  it('holds the announcements of what arrives while the node synchronizes, and sends them once in step', async () => {
    const clock = new ManualClock();
    let syncing = true;
    const [m1, m2, m3] = [master(ids[0]!, 1, clock, () => !syncing), master(ids[1]!, 2, clock), master(ids[2]!, 3, clock)];
    const sockets = [...wire(m2.network, m1.network, '127.0.0.1:1'), ...wire(m3.network, m1.network, '127.0.0.1:1')];
    const settle = () => settleNet(clock, sockets);
    await settle();
    const tx = Uint8Array.of(3, 3, 3, 3, 1);
    await m2.mempool.admit([tx]);
    m2.gossip.pushLocal(tx, tx.slice(0, 4));
    await settle();
    // m1 took it but, synchronizing, told nobody.
    expect(m1.mempool.get(tx.slice(0, 4))).not.toBeNull();
    expect(m3.mempool.get(tx.slice(0, 4))).toBeNull();
    syncing = false;
    await settle();
    expect(m3.mempool.get(tx.slice(0, 4))).not.toBeNull();
    for (const m of [m1, m2, m3]) {
      m.gossip.stop();
      m.network.stop();
    }
  });
});

describe('TxGossip under a push faster than the node checks', () => {
  it('checks a bounded number at once, queues a bounded number, does not take (nor score) the rest, and pulls those when announced again, as admission drains', async () => {
    const clock = new ManualClock();
    const slow = new SlowMempool();
    const refused: number[] = [];
    const m1 = master(ids[0]!, 1, clock, () => true, { mempool: slow, admissionLimits: { admitting: 4, waiting: 8, waitingPerSource: 8 }, refused });
    const m2 = master(ids[1]!, 2, clock);
    const sockets = wire(m2.network, m1.network, '127.0.0.1:1');
    const settle = () => settleNet(clock, sockets);
    await settle();
    const batch = (first: number) => Array.from({ length: 4 }, (_, i) => Uint8Array.of(0, 0, first, i, 7));
    const batches = [0, 1, 2, 3, 4].map(batch);
    const link = m2.network.links()[0]!;
    for (const b of batches) link.send({ code: MessageCode.transactionsChunk3, tag: 0n, transactions: b });
    await settle();
    // One batch in admission, two waiting (8), two not taken.
    expect(slow.calls).toBe(1);
    expect(m1.gossip.admission.load).toEqual({ admitting: 4, waiting: 8 });
    expect(refused).toEqual([4, 4]);
    // The batches not taken were not marked seen: announced again, m1 pulls them, but only once
    // admission drains (congested now: announcements are kept, not pulled).
    for (const b of batches.slice(3)) for (const tx of b) m2.mempool.txs.set(Buffer.from(tx.slice(0, 4)).toString('hex'), tx);
    link.send({ code: MessageCode.inventory2, items: batches.slice(3).flat().map((tx) => ({ type: 0 as const, txid: tx.slice(0, 4) })) });
    await settle();
    const pullsOut = () => m1.network.links()[0]!.stats.framesOut.get(MessageCode.getTransactions2) ?? 0;
    expect(pullsOut()).toBe(0);
    for (let i = 0; i < 5 && slow.admitted < 20; i++) {
      slow.open();
      await settle();
    }
    expect(pullsOut()).toBeGreaterThan(0);
    expect(slow.admitted).toBe(20);
    expect(m1.gossip.admission.load).toEqual({ admitting: 0, waiting: 0 });
    // Not taken is not misbehaving.
    expect(m1.network.scores.score(walletKey(addressToText(ids[1]!.address)))).toBe(0);
    for (const m of [m1, m2]) {
      m.gossip.stop();
      m.network.stop();
    }
  });
});

describe('TxGossip: the gossip dedup-hit metric (issue 9 item 9)', () => {
  it('counts announcements and copies of a transaction already seen or being pulled, not the node marking what it takes', async () => {
    const clock = new ManualClock();
    const [m1, m2, m3] = [master(ids[0]!, 1, clock), master(ids[1]!, 2, clock), master(ids[2]!, 3, clock)];
    const sockets = [...wire(m2.network, m1.network, '127.0.0.1:1'), ...wire(m3.network, m1.network, '127.0.0.1:1')];
    const settle = () => settleNet(clock, sockets);
    await settle();

    // m2 pushes its own tx to m1, which announces it to m3, which pulls it: nothing came twice.
    const tx = Uint8Array.of(1, 2, 3, 4, 9);
    await m2.mempool.admit([tx]);
    m2.gossip.pushLocal(tx, tx.slice(0, 4));
    await settle();
    expect(m3.mempool.get(tx.slice(0, 4))).not.toBeNull();
    expect([m1.gossip.dedupHits, m2.gossip.dedupHits, m3.gossip.dedupHits]).toEqual([0, 0, 0]);

    // m2 and m3 both announce a tx m1 lacks, in the same turn: m1 pulls it once, the second
    // announcement (while the pull is outstanding) is one hit.
    const tx2 = Uint8Array.of(5, 6, 7, 8, 1);
    await m2.mempool.admit([tx2]);
    await m3.mempool.admit([tx2]);
    m2.network.links()[0]!.send({ code: MessageCode.inventory2, items: [{ type: 0, txid: tx2.slice(0, 4) }] });
    m3.network.links()[0]!.send({ code: MessageCode.inventory2, items: [{ type: 0, txid: tx2.slice(0, 4) }] });
    await settle();
    expect(m1.mempool.get(tx2.slice(0, 4))).not.toBeNull();
    expect(m1.gossip.dedupHits).toBe(1);
    // Announced again once m1 holds it: another hit.
    m3.network.links()[0]!.send({ code: MessageCode.inventory2, items: [{ type: 0, txid: tx2.slice(0, 4) }] });
    await settle();
    expect(m1.gossip.dedupHits).toBe(2);
    for (const m of [m1, m2, m3]) {
      m.gossip.stop();
      m.network.stop();
    }
  });
});
