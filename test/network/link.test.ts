import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { PeerScores } from '../../src/network/scoring.js';
import { addressToText } from '../../src/formats/address.js';
import { CLOSE_REASONS } from '../../src/network/protocol/close.js';
import { MessageCode } from '../../src/network/protocol/codes.js';
import { encodeMessage } from '../../src/network/protocol/messages.js';
import { walletKey } from '../../src/network/scoring.js';
import { connect, makeIdentity, ManualClock, pump, skewedClock, TestNode, type TestIdentity } from './helpers.js';

let A: TestIdentity;
let B: TestIdentity;
let C: TestIdentity;

beforeAll(async () => {
  [A, B, C] = await Promise.all([makeIdentity(), makeIdentity(), makeIdentity()]);
});

const code = (r: keyof typeof CLOSE_REASONS) => CLOSE_REASONS[r].code;

async function handshake(dialler: TestNode, acceptor: TestNode, opts: { expectedAddress?: Uint8Array } = {}) {
  const p = connect(dialler, acceptor, opts);
  p.start();
  await pump(p.a, p.b);
  return p;
}

describe('hello exchange over an in-memory socket pair', () => {
  it('opens both links, registers the identities and reports tips and the observed address', async () => {
    const clock = new ManualClock();
    const m1 = new TestNode({ identity: A, clock, height: 20n });
    const m2 = new TestNode({ identity: B, clock, height: 25n });
    const { out, inb } = await handshake(m1, m2);
    expect(out.state).toBe('open');
    expect(inb.state).toBe('open');
    expect(out.peer!.addressText).toBe(addressToText(B.address));
    expect(inb.peer!.addressText).toBe(addressToText(A.address));
    expect(out.peerHeight).toBe(25n);
    expect(inb.peerHeight).toBe(20n);
    expect(out.peer!.observedOwnAddress).toBe('127.0.0.1:50000');
    expect(m1.registry.byIdentity(B.address)).toBe(out);
    expect(m2.registry.byIdentity(A.address)).toBe(inb);
    expect(m1.handler.opened).toEqual([out]);
    expect(m2.handler.opened).toEqual([inb]);
  });

  it('delivers messages after the hello and answers pings', async () => {
    const clock = new ManualClock();
    const m1 = new TestNode({ identity: A, clock });
    const m2 = new TestNode({ identity: B, clock });
    const { out, inb, a, b } = await handshake(m1, m2);
    expect(out.send({ code: MessageCode.inventory2, items: [{ type: 0, txid: new Uint8Array([1, 2, 3]) }] })).toBe(true);
    a.send(encodeMessage({ code: MessageCode.ping, nonce: new Uint8Array(8).fill(9) }));
    await pump(a, b);
    expect(m2.handler.messages.map((m) => m.message.code)).toEqual([MessageCode.inventory2]);
    expect(inb.stats.framesOut.get(MessageCode.pong)).toBe(1);
    expect(m2.handler.messages[0]!.link).toBe(inb);
  });
});

describe('every rejection reason closes with its code', () => {
  it('wrong network (4502)', async () => {
    const clock = new ManualClock();
    const p = await handshake(new TestNode({ identity: A, clock, network: 'test' }), new TestNode({ identity: B, clock }));
    expect(p.inb.closeInfo!.code).toBe(code('wrongNetwork'));
    expect(p.out.closeInfo!.code).toBe(4502);
    expect(p.out.closeInfo!.text).toMatch(/Wrong network: expected reg, got test/);
  });

  it('wrong genesis (4801)', async () => {
    const clock = new ManualClock();
    const p = await handshake(new TestNode({ identity: A, clock, genesis: new Uint8Array(64) }), new TestNode({ identity: B, clock }));
    expect(p.out.closeInfo!.code).toBe(code('wrongGenesis'));
  });

  it('key/address mismatch (4603)', async () => {
    const clock = new ManualClock();
    const p = await handshake(new TestNode({ identity: A, clock, address: C.address }), new TestNode({ identity: B, clock }));
    expect(p.out.closeInfo!.code).toBe(code('authFailed'));
  });

  it('bad signature (4802), for the dialler and for the acceptor', async () => {
    const clock = new ManualClock();
    const bad = (d: Uint8Array) => A.sign(new Uint8Array([...d, 1]));
    const p = await handshake(new TestNode({ identity: A, clock, sign: bad }), new TestNode({ identity: B, clock }));
    expect(p.out.closeInfo!.code).toBe(code('badSignature'));
    const q = await handshake(new TestNode({ identity: B, clock }), new TestNode({ identity: A, clock, sign: bad }));
    expect(q.out.closeInfo!.code).toBe(code('badSignature'));
    expect(q.out.closeInfo!.byUs).toBe(true);
  });

  it('a hello replayed from another link fails: the challenge differs (4802)', async () => {
    const clock = new ManualClock();
    const m1 = new TestNode({ identity: A, clock });
    const m2 = new TestNode({ identity: B, clock });
    const first = connect(m1, m2);
    first.start();
    first.b.deliver(); // the acceptor's challenge reaches the dialler, which answers with its hello
    const recorded = first.a.buffered.slice(); // that hello, signed over link 1's challenge
    expect(recorded).toHaveLength(1);
    const second = connect(new TestNode({ identity: C, clock }), new TestNode({ identity: B, clock }));
    second.inb.start();
    for (const h of recorded) second.inb.receive(h);
    await pump(second.b);
    expect(second.inb.closeInfo!.code).toBe(code('badSignature'));
  });

  it('clock skew (4803)', async () => {
    const clock = new ManualClock();
    const p = await handshake(new TestNode({ identity: A, clock: skewedClock(clock, 120_000) }), new TestNode({ identity: B, clock }));
    expect(p.out.closeInfo!.code).toBe(code('clockSkew'));
  });

  it('too far behind (4602): the dialler refuses a master 16 blocks behind the network', async () => {
    const clock = new ManualClock();
    const p = await handshake(new TestNode({ identity: A, clock, networkHeight: 41n }), new TestNode({ identity: B, clock, height: 25n }));
    expect(p.out.closeInfo!.code).toBe(code('tooFarBehind'));
    const q = await handshake(new TestNode({ identity: A, clock, networkHeight: 40n }), new TestNode({ identity: B, clock, height: 25n }));
    expect(q.out.state).toBe('open');
  });

  it('capacity (4804)', async () => {
    const clock = new ManualClock();
    const p = await handshake(new TestNode({ identity: A, clock }), new TestNode({ identity: B, clock, limits: { inboundMasters: 0 } }));
    expect(p.out.closeInfo!.code).toBe(code('capacity'));
    const m = new TestNode({ identity: A, clock, limits: { outbound: 0 } });
    const q = await handshake(m, new TestNode({ identity: B, clock }));
    expect(q.out.closeInfo!.code).toBe(code('capacity'));
  });

  it('not a master (4400): a master dialling a peer that answers as a relay', async () => {
    const clock = new ManualClock();
    // A relay that takes masters (the reference's S2 does): the master refuses it.
    const everyone = { inbound: ['M', 'H', 'W', 'R', 'C'] as const, outbound: ['M', 'H', 'R'] as const };
    const p = await handshake(new TestNode({ identity: A, clock }), new TestNode({ identity: B, clock, nodeType: 'R', ctx: { acceptedRoles: everyone } }));
    expect(p.out.closeInfo!.code).toBe(code('expectingMaster'));
    const q = await handshake(new TestNode({ identity: A, clock, nodeType: 'C' }), new TestNode({ identity: B, clock, nodeType: 'R' }));
    expect(q.out.state).toBe('open');
    const r = await handshake(new TestNode({ identity: A, clock, nodeType: 'R' }), new TestNode({ identity: C, clock, nodeType: 'R' }));
    expect(r.out.state).toBe('open');
  });

  it('a relay refuses a peer that dials it as a master (4605): masters dial only masters (§2.1)', async () => {
    const clock = new ManualClock();
    for (const nodeType of ['M', 'H'] as const) {
      const p = await handshake(new TestNode({ identity: A, clock, nodeType }), new TestNode({ identity: B, clock, nodeType: 'R' }));
      expect(p.inb.closeInfo!.code).toBe(code('rejected'));
      expect(p.out.closeInfo!.text).toMatch(`not accepting ${nodeType} peers`);
    }
  });

  it('a client does not accept links (4605)', async () => {
    const clock = new ManualClock();
    const p = await handshake(new TestNode({ identity: A, clock }), new TestNode({ identity: B, clock, nodeType: 'C' }));
    expect(p.out.closeInfo!.code).toBe(code('rejected'));
  });

  it('banned (4805) and blacklisted (4605), by wallet', async () => {
    const clock = new ManualClock();
    const acceptor = new TestNode({ identity: B, clock });
    acceptor.scores.ban(walletKey(addressToText(A.address)), 'test');
    const p = await handshake(new TestNode({ identity: A, clock }), acceptor);
    expect(p.out.closeInfo!.code).toBe(code('banned'));
    const acceptor2 = new TestNode({ identity: B, clock });
    acceptor2.scores.blacklistPeer({ wallet: addressToText(A.address) });
    const q = await handshake(new TestNode({ identity: A, clock }), acceptor2);
    expect(q.out.closeInfo!.code).toBe(code('rejected'));
    acceptor2.scores.clearBlacklist();
    const r = await handshake(new TestNode({ identity: A, clock }), acceptor2);
    expect(r.out.state).toBe('open');
  });

  it('blacklisted host: refused before the hello', async () => {
    const clock = new ManualClock();
    const acceptor = new TestNode({ identity: B, clock });
    acceptor.scores.blacklistPeer({ host: '127.0.0.1' });
    const p = await handshake(new TestNode({ identity: A, clock }), acceptor);
    expect(p.inb.closeInfo!.code).toBe(code('rejected'));
    expect(p.out.closeInfo!.code).toBe(code('rejected'));
  });

  it('duplicate identity (4806): a second link in the same direction', async () => {
    const clock = new ManualClock();
    const m1 = new TestNode({ identity: A, clock });
    const m2 = new TestNode({ identity: B, clock });
    const first = await handshake(m1, m2);
    const second = await handshake(m1, m2);
    expect(first.out.state).toBe('open');
    expect(second.out.closeInfo!.code).toBe(code('duplicateIdentity'));
    expect(m1.registry.links()).toEqual([first.out]);
  });

  it('crossed dials: both nodes keep the same link (dialled by the smaller address)', async () => {
    const clock = new ManualClock();
    const m1 = new TestNode({ identity: A, clock });
    const m2 = new TestNode({ identity: B, clock });
    const ab = await handshake(m1, m2);
    const ba = await handshake(m2, m1);
    const aSmaller = Buffer.compare(Buffer.from(A.address), Buffer.from(B.address)) < 0;
    const kept = aSmaller ? ab : ba;
    const dropped = aSmaller ? ba : ab;
    expect(kept.out.state).toBe('open');
    expect(kept.inb.state).toBe('open');
    expect(dropped.out.state).toBe('closed');
    expect(dropped.inb.state).toBe('closed');
    expect(m1.registry.links()).toHaveLength(1);
    expect(m2.registry.links()).toHaveLength(1);
  });

  it('self-connection (4807)', async () => {
    const clock = new ManualClock();
    const p = await handshake(new TestNode({ identity: A, clock }), new TestNode({ identity: A, clock }));
    expect(p.inb.closeInfo!.code).toBe(code('selfConnection'));
  });

  it('not ready (4700): a syncing master refuses inbound links', async () => {
    const clock = new ManualClock();
    const p = await handshake(new TestNode({ identity: A, clock }), new TestNode({ identity: B, clock, accepting: false }));
    expect(p.out.closeInfo!.code).toBe(code('notReady'));
  });

  it('address mismatch (4604): the dialled peer is not the expected wallet', async () => {
    const clock = new ManualClock();
    const p = await handshake(new TestNode({ identity: A, clock }), new TestNode({ identity: B, clock }), { expectedAddress: C.address });
    expect(p.out.closeInfo!.code).toBe(code('addressMismatch'));
    expect(p.inb.closeInfo!.code).toBe(code('addressMismatch'));
  });

  it('unexpected message before the hello (4813)', async () => {
    const clock = new ManualClock();
    const p = connect(new TestNode({ identity: A, clock }), new TestNode({ identity: B, clock }));
    p.inb.start();
    p.inb.receive(encodeMessage({ code: MessageCode.getUnappliedTransactions }));
    expect(p.inb.closeInfo!.code).toBe(code('unexpectedMessage'));
  });

  it('hello timeout (4808)', async () => {
    const clock = new ManualClock();
    const p = connect(new TestNode({ identity: A, clock }), new TestNode({ identity: B, clock }));
    p.inb.start();
    clock.advance(9_999);
    expect(p.inb.state).toBe('awaitHello');
    clock.advance(1);
    expect(p.inb.closeInfo!.code).toBe(code('helloTimeout'));
  });
});

describe('liveness', () => {
  it('pings keep a quiet link open; a cut wire ends in idle timeout (4809)', async () => {
    const clock = new ManualClock();
    const p = await handshake(new TestNode({ identity: A, clock }), new TestNode({ identity: B, clock }));
    for (let i = 0; i < 10; i++) {
      clock.advance(10_000);
      await pump(p.a, p.b);
    }
    expect(p.out.state).toBe('open');
    expect(p.out.stats.framesOut.get(MessageCode.ping)).toBeGreaterThan(0);
    p.a.cut = p.b.cut = true;
    clock.advance(30_000);
    expect(p.out.closeInfo!.code).toBe(code('idleTimeout'));
    expect(p.inb.closeInfo!.code).toBe(code('idleTimeout'));
  });
});

describe('a slow reader is dropped and memory stays bounded', () => {
  it('closes with slowPeer (4810) once queue + socket buffer pass the bound, never holding more', async () => {
    const clock = new ManualClock();
    const MAX = 256 * 1024;
    const fast = new TestNode({ identity: A, clock, ctx: { maxSendQueueBytes: MAX, socketHighWaterBytes: 32 * 1024 } });
    const slow = new TestNode({ identity: B, clock });
    const p = await handshake(fast, slow);
    p.a.highWater = 32 * 1024;
    p.a.stalled = true; // the acceptor stops reading
    const tx = new Uint8Array(10_000).fill(5);
    let sent = 0;
    let peak = 0;
    while (p.out.send({ code: MessageCode.transactionsChunk3, tag: 0n, transactions: [tx] })) {
      sent++;
      peak = Math.max(peak, p.out.queued + p.a.bufferedAmount());
      expect(sent).toBeLessThan(1000);
    }
    expect(peak).toBeLessThanOrEqual(MAX);
    expect(p.out.closeInfo!.code).toBe(code('slowPeer'));
    expect(p.out.queued).toBe(0);
    expect(fast.registry.links()).toHaveLength(0);
  });

  it('a reader that catches up gets every queued frame in order', async () => {
    const clock = new ManualClock();
    const fast = new TestNode({ identity: A, clock, ctx: { socketHighWaterBytes: 16 * 1024 } });
    const slow = new TestNode({ identity: B, clock });
    const p = await handshake(fast, slow);
    p.a.highWater = 16 * 1024;
    p.a.stalled = true;
    for (let i = 0; i < 20; i++) p.out.send({ code: MessageCode.transactionsChunk3, tag: 0n, transactions: [new Uint8Array(4000).fill(i + 1)] });
    expect(p.out.queued).toBeGreaterThan(0);
    p.a.stalled = false;
    await pump(p.a, p.b);
    const got = slow.handler.messages.map((m) => (m.message.code === MessageCode.transactionsChunk3 ? m.message.transactions[0]![0] : -1));
    expect(got).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(p.out.state).toBe('open');
  });
});

describe('a peer sending garbage is scored, banned and refused', () => {
  it('four malformed frames ban its wallet (4812); its next link is refused (4805)', async () => {
    const clock = new ManualClock();
    const m1 = new TestNode({ identity: A, clock });
    const m2 = new TestNode({ identity: B, clock });
    const p = await handshake(m1, m2);
    const key = walletKey(addressToText(A.address));
    const garbage = [
      Uint8Array.of(MessageCode.inventory2, 0xff),
      Uint8Array.of(MessageCode.getBlock3, 1, 9, 0),
      Uint8Array.of(MessageCode.transactionsChunk3, 0, 5),
      Uint8Array.of(MessageCode.s2data),
    ];
    for (const [i, g] of garbage.entries()) {
      p.a.send(g);
      await pump(p.a, p.b);
      if (i < 3) expect(p.inb.state).toBe('open');
    }
    expect(m2.scores.score(key)).toBeGreaterThanOrEqual(100);
    expect(p.inb.closeInfo!.code).toBe(code('misbehaviour'));
    expect(p.out.closeInfo!.code).toBe(code('misbehaviour'));
    expect(m2.handler.messages).toHaveLength(0);
    const again = await handshake(new TestNode({ identity: A, clock }), m2);
    expect(again.out.closeInfo!.code).toBe(code('banned'));
    clock.advance(10 * 60_000 + 1);
    const later = await handshake(new TestNode({ identity: A, clock }), m2);
    expect(later.out.state).toBe('open');
  });

  it('an oversized frame costs twice a malformed one; an unknown code little', async () => {
    const clock = new ManualClock();
    const m2 = new TestNode({ identity: B, clock });
    const p = await handshake(new TestNode({ identity: A, clock }), m2);
    const key = walletKey(addressToText(A.address));
    const big = new Uint8Array(2000);
    big[0] = MessageCode.ping; // ping frames are ≤ 1 KiB
    p.a.send(big);
    p.a.send(Uint8Array.of(250, 1, 2));
    await pump(p.a, p.b);
    expect(Math.round(m2.scores.score(key))).toBe(55);
    expect(p.inb.state).toBe('open');
  });

  it('a handler that throws is reported, not blamed on the peer', async () => {
    const clock = new ManualClock();
    const m2 = new TestNode({ identity: B, clock });
    m2.handler.onMessage = () => {
      throw new Error('bug');
    };
    const p = await handshake(new TestNode({ identity: A, clock }), m2);
    p.out.send({ code: MessageCode.getUnappliedTransactions });
    await pump(p.a, p.b);
    expect(m2.handler.errors).toHaveLength(1);
    expect(p.inb.state).toBe('open');
    expect(m2.scores.score(walletKey(addressToText(A.address)))).toBe(0);
  });

  it('random bytes at any point never throw out of receive', async () => {
    const clock = new ManualClock();
    for (let round = 0; round < 30; round++) {
      const p = connect(new TestNode({ identity: A, clock }), new TestNode({ identity: B, clock }));
      p.start();
      if (round % 2) await pump(p.a, p.b);
      const len = (round * 7919) % 300;
      const bytes = Uint8Array.from({ length: len }, (_, i) => (i * 131 + round * 17) & 0xff);
      expect(() => p.inb.receive(bytes)).not.toThrow();
      expect(() => p.out.receive(bytes)).not.toThrow();
      await pump(p.a, p.b);
    }
  });
});

describe('an open link under random frames', () => {
  it('never throws, never reports a handler error, scores every bad frame', async () => {
    const clock = new ManualClock();
    const scores = new PeerScores({ clock, banThreshold: Number.POSITIVE_INFINITY });
    const m2 = new TestNode({ identity: B, clock, ctx: { scores } });
    const p = await handshake(new TestNode({ identity: A, clock }), m2);
    const key = walletKey(addressToText(A.address));
    const codes = Object.values(MessageCode);
    fc.assert(
      fc.property(fc.constantFrom(...codes), fc.uint8Array({ maxLength: 200 }), (c, payload) => {
        const before = scores.score(key);
        const delivered = m2.handler.messages.length;
        expect(() => p.inb.receive(Uint8Array.of(c, ...payload))).not.toThrow();
        const scored = scores.score(key) > before;
        const passed = m2.handler.messages.length > delivered;
        const control = c === MessageCode.hello || c === MessageCode.helloData || c === MessageCode.challenge || c === MessageCode.ping || c === MessageCode.pong;
        // Every frame is delivered, scored, or a control frame; never two of the first two.
        expect(scored && passed).toBe(false);
        if (!control) expect(scored || passed).toBe(true);
      }),
      { numRuns: 3000 },
    );
    await pump(p.a, p.b);
    expect(m2.handler.errors).toEqual([]);
    expect(p.inb.state).toBe('open');
  });
});

describe('frames arriving while a hello signature is checked', () => {
  it('the dialler holds what the acceptor sends right after its helloData and delivers it in order after the hello', async () => {
    const clock = new ManualClock();
    const { verifySignature } = await import('../../src/formats/rsa.js');
    const slowVerify = (pk: Uint8Array, d: Uint8Array, s: Uint8Array) =>
      new Promise<boolean>((r) => setTimeout(() => r(verifySignature(pk, d, s)), 20));
    const dialler = new TestNode({ identity: A, clock, ctx: { verify: slowVerify } });
    const acceptor = new TestNode({ identity: B, clock });
    acceptor.handler.onOpen = (link) => {
      for (let i = 0; i < 3; i++) link.send({ code: MessageCode.transactionsChunk3, tag: 0n, transactions: [new Uint8Array(400_000).fill(i + 1)] });
    };
    const p = connect(dialler, acceptor);
    p.start();
    for (let i = 0; i < 20 && p.out.state !== 'open'; i++) {
      await pump(p.a, p.b);
      await new Promise((r) => setTimeout(r, 10));
    }
    await pump(p.a, p.b);
    expect(p.out.state).toBe('open');
    const got = dialler.handler.messages.map((m) => (m.message.code === MessageCode.transactionsChunk3 ? m.message.transactions[0]![0] : 0));
    expect(got).toEqual([1, 2, 3]);
    expect(acceptor.handler.errors).toEqual([]);
  });

  it('an acceptor cuts a dialler that floods while its hello is checked', async () => {
    const clock = new ManualClock();
    const { verifySignature } = await import('../../src/formats/rsa.js');
    const slowVerify = (pk: Uint8Array, d: Uint8Array, s: Uint8Array) =>
      new Promise<boolean>((r) => setTimeout(() => r(verifySignature(pk, d, s)), 20));
    const acceptor = new TestNode({ identity: B, clock, ctx: { verify: slowVerify } });
    const p = connect(new TestNode({ identity: A, clock }), acceptor);
    p.start();
    p.b.deliver(); // challenge → dialler, which sends its hello
    p.a.deliver(); // hello → acceptor, now checking it
    expect(p.inb.state).toBe('awaitHello');
    for (let i = 0; i < 3; i++) p.inb.receive(encodeMessage({ code: MessageCode.transactionsChunk3, tag: 0n, transactions: [new Uint8Array(400_000)] }));
    expect(p.inb.closeInfo!.code).toBe(code('unexpectedMessage'));
  });
});
