/**
 * The node's peer listener against a hand-made WebSocket peer (h2's findings): a socket that has not
 * completed its hello cannot make the node buffer more than a hello's worth of bytes, and a message
 * above the largest frame counts against its sender.
 */
import { Server as HttpServer } from 'node:http';
import type { Socket } from 'node:net';
import WebSocket from 'ws';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/network/clock.js';
import type { Link, LocalNode } from '../../src/network/link.js';
import { PeerNetwork } from '../../src/network/peer-network.js';
import { MAX_FRAME_BYTES, MessageCode } from '../../src/network/protocol/codes.js';
import type { NodeType } from '../../src/network/protocol/messages.js';
import { MAX_BYTES_BEFORE_HELLO } from '../../src/network/hello-budget.js';
import { listenForPeers, socketRemote, type PeerListener } from '../../src/node/peer-listener.js';
import { GENESIS, makeIdentity, type TestIdentity } from '../network/helpers.js';

let A: TestIdentity;
let B: TestIdentity;
beforeAll(async () => {
  [A, B] = await Promise.all([makeIdentity(), makeIdentity()]);
});
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function network(id: TestIdentity, type: NodeType, endpoint: string, extra: Partial<ConstructorParameters<typeof PeerNetwork>[0]> = {}) {
  const local: LocalNode = {
    network: 'reg', genesisChecksum: GENESIS, nodeType: type, address: id.address, publicKey: id.publicKey,
    productVersion: 'dltnode-test', endpoint, sign: id.sign,
    tip: () => ({ height: 5n, checksum: new Uint8Array(64) }), networkHeight: () => 5n, acceptingPeers: () => true,
  };
  const n = new PeerNetwork({ local, clock: systemClock, ...extra });
  cleanups.push(() => n.stop());
  return n;
}

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function listen(): Promise<{ peers: PeerNetwork; listener: PeerListener; inbound: Link[] }> {
  const inbound: Link[] = [];
  const peers = network(B, 'M', '');
  const accept = peers.accept.bind(peers);
  peers.accept = (socket, remote) => {
    const l = accept(socket, remote);
    inbound.push(l);
    return l;
  };
  const listener = await listenForPeers(peers, '127.0.0.1', 0);
  cleanups.push(() => listener.close());
  return { peers, listener, inbound };
}

describe('the peer listener', () => {
  it('cuts a socket that sends more than a hello before its hello, without waiting for the message to end', async () => {
    const { listener, inbound } = await listen();
    const ws = new WebSocket(`ws://127.0.0.1:${listener.port}/p2p`, { perMessageDeflate: false });
    cleanups.push(() => ws.terminate());
    let closed: number | null = null;
    ws.on('close', (code) => void (closed = code));
    ws.on('error', () => {});
    await new Promise((r) => ws.once('message', r)); // the challenge
    // h2 t4: an unfinished message, a fragment at a time (the node held each up to 32 MiB).
    ws.send(Buffer.from([MessageCode.hello]), { fin: false, binary: true });
    const chunk = Buffer.alloc(256 * 1024, 7);
    for (let i = 0; i < 8 && closed === null; i++) ws.send(chunk, { fin: false, binary: true });
    await until(() => closed !== null, 3000);
    const link = inbound[0]!;
    expect(link.closeInfo).toMatchObject({ reason: 'malformedFrame', byUs: true });
    expect(link.closeInfo!.text).toMatch(new RegExp(`bytes before the hello completed, at most ${MAX_BYTES_BEFORE_HELLO}`));
  });

  it('completes the hello with a dialler, and scores a linked peer that sends a message above the largest frame', async () => {
    const { peers, listener } = await listen();
    const dialler = network(A, 'M', '', { peers: [{ host: '127.0.0.1', port: listener.port }] });
    dialler.start();
    await until(() => dialler.links().length === 1 && peers.links().length === 1);
    const big = new Uint8Array(MAX_FRAME_BYTES + 1);
    big[0] = MessageCode.blocks;
    dialler.links()[0]!.sendFrame(big);
    await until(() => peers.scoreOf(A.address) > 0, 10_000);
    expect(peers.scoreOf(A.address)).toBeGreaterThan(49);
  }, 20_000);

  it('names an inbound link by the remote address of its socket when accepted, though the socket lost it before the upgrade was handled', async () => {
    // A node resumed after SIGSTOP handles connections whose peers gave up meanwhile: their
    // sockets no longer know the peer's address (it read ":0" in the logs).
    const emit = HttpServer.prototype.emit;
    const spy = vi.spyOn(HttpServer.prototype, 'emit').mockImplementation(function (this: HttpServer, event: string | symbol, ...args: unknown[]) {
      if (event === 'upgrade') {
        const socket = args[1] as Socket;
        Object.defineProperty(socket, 'remoteAddress', { get: () => undefined, configurable: true });
        Object.defineProperty(socket, 'remotePort', { get: () => undefined, configurable: true });
      }
      return Reflect.apply(emit, this, [event, ...args]) as boolean;
    });
    cleanups.push(() => spy.mockRestore());
    const { listener, inbound } = await listen();
    const ws = new WebSocket(`ws://127.0.0.1:${listener.port}/p2p`, { perMessageDeflate: false });
    cleanups.push(() => ws.terminate());
    ws.on('error', () => {});
    let localPort = 0;
    ws.once('upgrade', (res) => void (localPort = res.socket.localPort ?? 0));
    await until(() => inbound.length === 1 && localPort !== 0);
    // The link's remote is what the node logs ('peer connected', refusals) and lists in status.
    expect(inbound[0]!.remote).toBe(`127.0.0.1:${localPort}`);
  });

  it('names remote sockets ip:port, [v6]:port, and IPv4-mapped addresses as IPv4', () => {
    expect(socketRemote('10.1.2.3', 5)).toBe('10.1.2.3:5');
    expect(socketRemote('::ffff:10.1.2.3', 5)).toBe('10.1.2.3:5');
    expect(socketRemote('2001:db8::1', 5)).toBe('[2001:db8::1]:5');
  });
});
