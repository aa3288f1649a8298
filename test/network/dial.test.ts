import { beforeAll, afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import { systemClock, ManualClock } from '../../src/network/clock.js';
import { attachWsLink, Dialer, targetKey } from '../../src/network/dial.js';
import { MAX_BYTES_BEFORE_HELLO } from '../../src/network/hello-budget.js';
import { Link } from '../../src/network/link.js';
import { MessageCode } from '../../src/network/protocol/codes.js';
import { verifySignature } from '../../src/formats/rsa.js';
import { makeIdentity, TestNode, type TestIdentity } from './helpers.js';

let A: TestIdentity;
let B: TestIdentity;
beforeAll(async () => {
  [A, B] = await Promise.all([makeIdentity(), makeIdentity()]);
});

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A ws server on 127.0.0.1, port 0, whose connections become inbound links of `node`. */
async function listen(node: TestNode): Promise<{ port: number; links: Link[]; server: WebSocketServer }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, path: '/p2p', perMessageDeflate: false });
  await new Promise<void>((r) => server.once('listening', () => r()));
  const links: Link[] = [];
  server.on('connection', (ws: WebSocket, req) => {
    const remote = `${req.socket.remoteAddress}:${req.socket.remotePort}`;
    const link = attachWsLink(ws, (socket) => new Link(node.ctx, socket, { direction: 'inbound', remote }));
    links.push(link);
    link.start();
  });
  cleanups.push(() => {
    for (const c of server.clients) c.terminate();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return { port: (server.address() as AddressInfo).port, links, server };
}

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Dials B's server at `port` from `client` (the dialer stops after the test); `link()` is the outbound link once made. */
function dialB(client: TestNode, port: number): { dialer: Dialer; link: () => Link | null } {
  let out: Link | null = null;
  const dialer = new Dialer({
    clock: systemClock,
    createLink: (socket, target) => (out = new Link(client.ctx, socket, { direction: 'outbound', remote: targetKey(target) })),
  });
  cleanups.push(() => dialer.stop());
  dialer.add({ host: '127.0.0.1', port, expectedAddress: B.address });
  dialer.start();
  return { dialer, link: () => out };
}

describe('dialling a real ws WebSocketServer on 127.0.0.1', () => {
  it('completes the hello, carries messages both ways, and closes cleanly', async () => {
    const server = new TestNode({ identity: B, clock: systemClock });
    const client = new TestNode({ identity: A, clock: systemClock });
    const { port, links } = await listen(server);
    const { dialer, link: out } = dialB(client, port);
    await until(() => out()?.isOpen === true && links[0]?.isOpen === true);
    expect(out()!.peer!.observedOwnAddress).toMatch(/^127\.0\.0\.1:\d+$/);
    out()!.send({ code: MessageCode.transactionsChunk3, tag: 0n, transactions: [new Uint8Array(300_000).fill(3)] });
    links[0]!.send({ code: MessageCode.getUnappliedTransactions });
    await until(() => server.handler.messages.length === 1 && client.handler.messages.length === 1);
    const got = server.handler.messages[0]!.message;
    expect(got.code === MessageCode.transactionsChunk3 && got.transactions[0]!.length).toBe(300_000);
    expect(dialer.list()[0]!.state).toBe('linked');
    dialer.stop();
    await until(() => links[0]!.state === 'closed');
    expect(links[0]!.closeInfo!.code).toBe(4201);
  });

  it('after a link, the wallet that answered is given to canDial (not redialled while it is linked the other way)', async () => {
    const server = new TestNode({ identity: B, clock: systemClock });
    const client = new TestNode({ identity: A, clock: systemClock });
    const { port, links } = await listen(server);
    const asked: (string | null)[] = [];
    let allow = true;
    const dialer = new Dialer({
      clock: systemClock,
      baseDelayMs: 10,
      canDial: (_t, lastAddress) => {
        asked.push(lastAddress ? Buffer.from(lastAddress).toString('hex') : null);
        return allow;
      },
      createLink: (socket, target) => new Link(client.ctx, socket, { direction: 'outbound', remote: targetKey(target) }),
    });
    cleanups.push(() => dialer.stop());
    dialer.add({ host: '127.0.0.1', port }); // a --peer target: no wallet given
    dialer.start();
    await until(() => links[0]?.isOpen === true);
    expect(asked).toEqual([null]);
    allow = false; // as if B were now linked to us inbound
    links[0]!.close('duplicateIdentity');
    await until(() => asked.length >= 3);
    expect(asked.slice(1).every((a) => a === Buffer.from(B.address).toString('hex'))).toBe(true);
    expect(links).toHaveLength(1); // not dialled while canDial says no
    allow = true;
    await until(() => links.length === 2 && links[1]!.isOpen);
  });

  it('a peer that stops reading is dropped as slow over a real socket; memory stays under the bound', async () => {
    const server = new TestNode({ identity: B, clock: systemClock });
    const MAX = 4 * 1024 * 1024;
    const client = new TestNode({ identity: A, clock: systemClock, ctx: { maxSendQueueBytes: MAX, socketHighWaterBytes: 256 * 1024 } });
    const { port, server: wss, links } = await listen(server);
    wss.on('connection', (ws) => {
      // Stop reading once the hello is through: the kernel buffers fill, then ws buffers, then ours.
      const raw = (ws as unknown as { _socket: import('node:net').Socket })._socket;
      const timer = setInterval(() => links[0]?.isOpen && (raw.pause(), clearInterval(timer)), 1);
    });
    let out: Link | null = null;
    const dialer = new Dialer({
      clock: systemClock,
      createLink: (socket, target) => (out = new Link(client.ctx, socket, { direction: 'outbound', remote: targetKey(target) })),
    });
    cleanups.push(() => dialer.stop());
    dialer.add({ host: '127.0.0.1', port });
    dialer.start();
    await until(() => out?.isOpen === true && links[0]?.isOpen === true);
    await new Promise((r) => setTimeout(r, 20));
    const frame = new Uint8Array(1_000_000).fill(7);
    let peak = 0;
    for (let i = 0; i < 10_000 && out!.state === 'open'; i++) {
      out!.send({ code: MessageCode.transactionsChunk3, tag: 0n, transactions: [frame.subarray(0, 500_000), frame.subarray(0, 500_000)] });
      peak = Math.max(peak, out!.pendingBytes);
      if (i % 8 === 0) await new Promise((r) => setImmediate(r));
    }
    expect(out!.closeInfo?.reason).toBe('slowPeer');
    expect(peak).toBeLessThanOrEqual(MAX);
  });

  it('cuts a dialled peer that sends more than a hello before its hello, as the listener cuts an inbound one', async () => {
    const client = new TestNode({ identity: A, clock: systemClock });
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, path: '/p2p', perMessageDeflate: false });
    await new Promise<void>((r) => wss.once('listening', () => r()));
    cleanups.push(() => {
      for (const c of wss.clients) c.terminate();
      return new Promise<void>((r) => wss.close(() => r()));
    });
    let serverSawClose = false;
    wss.on('connection', (ws: WebSocket) => {
      ws.on('close', () => void (serverSawClose = true));
      ws.on('error', () => {});
      // No challenge: an unfinished message a fragment at a time (the dialler held each up to 32 MiB).
      ws.send(Buffer.from([MessageCode.blocks]), { fin: false, binary: true });
      const chunk = Buffer.alloc(256 * 1024, 7);
      const timer = setInterval(() => {
        if (serverSawClose || ws.readyState !== ws.OPEN) return clearInterval(timer);
        ws.send(chunk, { fin: false, binary: true });
      }, 5);
      setTimeout(() => clearInterval(timer), 3000);
    });
    let out: Link | null = null;
    const dialer = new Dialer({
      clock: systemClock,
      createLink: (socket, target) => (out = new Link(client.ctx, socket, { direction: 'outbound', remote: targetKey(target) })),
    });
    cleanups.push(() => dialer.stop());
    dialer.add({ host: '127.0.0.1', port: (wss.address() as AddressInfo).port });
    dialer.start();
    await until(() => out?.closeInfo != null, 3000);
    expect(out!.closeInfo).toMatchObject({ reason: 'malformedFrame', byUs: true });
    expect(out!.closeInfo!.text).toMatch(new RegExp(`bytes before the hello completed, at most ${MAX_BYTES_BEFORE_HELLO}`));
    await until(() => serverSawClose, 3000);
  });

  it('keeps a dialled link whose acceptor sends more than a hello right after its helloData, while we still verify it', async () => {
    // The acceptor's link is open once its helloData is out: its presence, a pushed block or a
    // keep-alives chunk may follow in the same read, before our (pooled, async) signature check
    // completes. That is the link's held bytes (link.ts), not the pre-hello budget.
    const server = new TestNode({ identity: B, clock: systemClock });
    const verifyDelayMs = 100;
    const slowVerify = async (key: Uint8Array, data: Uint8Array, sig: Uint8Array): Promise<boolean> => {
      await new Promise((r) => setTimeout(r, verifyDelayMs));
      return verifySignature(key, data, sig);
    };
    const client = new TestNode({ identity: A, clock: systemClock, ctx: { verify: slowVerify } });
    const { port, links } = await listen(server);
    const afterHello = 4 * MAX_BYTES_BEFORE_HELLO;
    const recordOpen = server.handler.onOpen.bind(server.handler);
    server.handler.onOpen = (link: Link) => {
      recordOpen(link);
      link.send({ code: MessageCode.transactionsChunk3, tag: 0n, transactions: [new Uint8Array(afterHello).fill(5)] });
    };
    const { dialer, link: out } = dialB(client, port);
    await until(() => out()?.isOpen === true || out()?.closeInfo != null, 3000);
    expect(out()!.closeInfo).toBeNull();
    await until(() => client.handler.messages.length === 1, 3000);
    const got = client.handler.messages[0]!.message;
    expect(got.code === MessageCode.transactionsChunk3 && got.transactions[0]!.length).toBe(afterHello);
    expect(links[0]!.isOpen).toBe(true);
  });

  it('a permanent rejection stops redialling; a temporary one is retried', async () => {
    const server = new TestNode({ identity: B, clock: systemClock, network: 'test' });
    const client = new TestNode({ identity: A, clock: systemClock });
    const { port, links } = await listen(server);
    const given: string[] = [];
    const dialer = new Dialer({
      clock: systemClock,
      baseDelayMs: 20,
      createLink: (socket, target) => new Link(client.ctx, socket, { direction: 'outbound', remote: targetKey(target) }),
      onGiveUp: (_t, reason) => given.push(reason),
    });
    cleanups.push(() => dialer.stop());
    dialer.add({ host: '127.0.0.1', port });
    dialer.start();
    await until(() => given.length === 1);
    expect(given).toEqual(['wrongNetwork']);
    expect(dialer.list()[0]!.state).toBe('stopped');
    await new Promise((r) => setTimeout(r, 100));
    expect(links).toHaveLength(1);

    // notReady is temporary: the dialer comes back once the server accepts.
    const busy = new TestNode({ identity: B, clock: systemClock, accepting: false });
    const second = await listen(busy);
    let opened = 0;
    const d2 = new Dialer({
      clock: systemClock,
      baseDelayMs: 20,
      maxDelayMs: 40,
      createLink: (socket, target) => {
        const l = new Link(client.ctx, socket, { direction: 'outbound', remote: targetKey(target) });
        return l;
      },
    });
    cleanups.push(() => d2.stop());
    client.handler.onOpen = () => void opened++;
    d2.add({ host: '127.0.0.1', port: second.port });
    d2.start();
    await until(() => second.links.length >= 2);
    expect(second.links[0]!.closeInfo!.reason).toBe('notReady');
    busy.accepting = true;
    await until(() => opened === 1);
  });

  it('never dials its own endpoint; a refused connection is retried with backoff', async () => {
    const clock = new ManualClock();
    const client = new TestNode({ identity: A, clock });
    const opened: string[] = [];
    const dialer = new Dialer({
      clock,
      ownEndpoints: ['127.0.0.1:10234'],
      random: () => 0.5,
      createLink: (socket, target) => new Link(client.ctx, socket, { direction: 'outbound', remote: targetKey(target) }),
      openSocket: (url) => {
        opened.push(url);
        const fake = Object.assign(new EventEmitter(), { terminate: () => undefined });
        setImmediate(() => fake.emit('close', 1006, Buffer.alloc(0)));
        return fake as unknown as WebSocket;
      },
    });
    expect(dialer.add({ host: '127.0.0.1', port: 10234 })).toBe(false);
    expect(dialer.add({ host: '127.0.0.1', port: 1 })).toBe(true);
    dialer.start();
    expect(opened).toEqual(['ws://127.0.0.1:1/p2p']);
    await new Promise((r) => setImmediate(r));
    expect(dialer.list()[0]).toMatchObject({ state: 'waiting', failures: 1 });
    clock.advance(749);
    expect(opened).toHaveLength(1);
    clock.advance(1); // 1 s · (0.5 + 0.5 · 0.5)
    expect(opened).toHaveLength(2);
    dialer.stop();
  });

  it('a discovered peer (giveUpAfter) is dropped after that many failed dials in a row; a configured one is kept', async () => {
    const clock = new ManualClock();
    const client = new TestNode({ identity: A, clock });
    const opened: string[] = [];
    const dropped: string[] = [];
    const dialer = new Dialer({
      clock,
      random: () => 1,
      createLink: (socket, target) => new Link(client.ctx, socket, { direction: 'outbound', remote: targetKey(target) }),
      onDropped: (target, reason) => dropped.push(`${targetKey(target)} ${reason}`),
      openSocket: (url) => {
        opened.push(url);
        const fake = Object.assign(new EventEmitter(), { terminate: () => undefined });
        setImmediate(() => fake.emit('close', 1006, Buffer.alloc(0)));
        return fake as unknown as WebSocket;
      },
    });
    dialer.add({ host: '127.0.0.1', port: 1 }, { giveUpAfter: 3 });
    dialer.add({ host: '127.0.0.1', port: 2 });
    expect(dialer.tentativeUnlinked()).toBe(1); // the discovered one; a configured one is not tentative
    dialer.start();
    for (let i = 0; i < 6; i++) {
      await new Promise((r) => setImmediate(r));
      clock.advance(60_000);
    }
    await new Promise((r) => setImmediate(r));
    expect(opened.filter((u) => u.includes(':1/'))).toHaveLength(3);
    expect(dropped).toEqual(['127.0.0.1:1 null']);
    expect(dialer.has('127.0.0.1:1')).toBe(false);
    expect(dialer.tentativeUnlinked()).toBe(0);
    expect(dialer.has('127.0.0.1:2')).toBe(true);
    expect(opened.filter((u) => u.includes(':2/')).length).toBeGreaterThan(3);
    dialer.stop();
  });

  it('backoff doubles, is capped, and jitters within [d/2, d]', () => {
    const d = new Dialer({ clock: new ManualClock(), createLink: () => { throw new Error('unused'); }, random: () => 0 });
    expect([1, 2, 3, 4, 7, 8, 50].map((n) => d.backoffMs(n))).toEqual([500, 1000, 2000, 4000, 30000, 30000, 30000]);
    const hi = new Dialer({ clock: new ManualClock(), createLink: () => { throw new Error('unused'); }, random: () => 0.999999 });
    expect(hi.backoffMs(1)).toBe(1000);
    expect(hi.backoffMs(20)).toBe(60000);
  });

  it('while the node has no link, backoff is capped at the isolation cap (the reference redials every 2 s pass)', () => {
    let isolated = true;
    const d = new Dialer({
      clock: new ManualClock(), createLink: () => { throw new Error('unused'); }, random: () => 0.999999,
      isolation: { isolated: () => isolated, maxDelayMs: 2_000 },
    });
    expect([1, 2, 3, 20].map((n) => d.backoffMs(n))).toEqual([1000, 2000, 2000, 2000]);
    isolated = false;
    expect(d.backoffMs(20)).toBe(60000);
  });
});
