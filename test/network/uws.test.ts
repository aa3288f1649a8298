/**
 * The accepting side on a real uWebSockets.js listener, wired as uws-socket.ts documents, dialled
 * by our ws Dialer: the hello completes and frames flow both ways.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type * as UWS from 'uWebSockets.js';
import { systemClock } from '../../src/network/clock.js';
import { Dialer, PEER_WS_PATH, targetKey } from '../../src/network/dial.js';
import { Link, MAX_SEND_QUEUE_BYTES } from '../../src/network/link.js';
import { MAX_FRAME_BYTES, MessageCode } from '../../src/network/protocol/codes.js';
import { uwsMessageBytes, uwsPeerSocket, uwsRemote } from '../../src/network/uws-socket.js';
import { makeIdentity, TestNode, type TestIdentity } from './helpers.js';

function loadUws(): typeof UWS | null {
  try {
    const require = createRequire(import.meta.url);
    const main = require.resolve('uWebSockets.js');
    return require(join(dirname(main), '..', 'binaries', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`)) as typeof UWS;
  } catch {
    return null;
  }
}

const uws = loadUws();
let A: TestIdentity;
let B: TestIdentity;
beforeAll(async () => {
  [A, B] = await Promise.all([makeIdentity(), makeIdentity()]);
});
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe.skipIf(!uws)('a uWS listener accepting peer links', () => {
  it('completes the hello with a ws dialler and carries frames both ways', async () => {
    const server = new TestNode({ identity: B, clock: systemClock });
    const client = new TestNode({ identity: A, clock: systemClock });
    const inbound: Link[] = [];
    interface Data { link?: Link; socket?: ReturnType<typeof uwsPeerSocket> }
    const app = uws!.App().ws<Data>(PEER_WS_PATH, {
      maxPayloadLength: MAX_FRAME_BYTES,
      maxBackpressure: MAX_SEND_QUEUE_BYTES + MAX_FRAME_BYTES,
      idleTimeout: 0,
      sendPingsAutomatically: false,
      open: (ws) => {
        const socket = uwsPeerSocket(ws);
        const link = new Link(server.ctx, socket, { direction: 'inbound', remote: uwsRemote(ws) });
        Object.assign(ws.getUserData(), { link, socket });
        inbound.push(link);
        link.start();
      },
      message: (ws, data, isBinary) => ws.getUserData().link!.receive(isBinary ? uwsMessageBytes(data) : new Uint8Array(0)),
      drain: (ws) => ws.getUserData().link!.drained(),
      close: (ws, code, msg) => {
        const d = ws.getUserData();
        d.socket!.markClosed();
        d.link!.socketClosed(code, Buffer.from(msg).toString('utf8'));
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      app.listen('127.0.0.1', 0, (token) => {
        if (!token) return reject(new Error('listen failed'));
        cleanups.push(() => uws!.us_listen_socket_close(token));
        resolve(uws!.us_socket_local_port(token));
      }),
    );
    let out: Link | null = null;
    const dialer = new Dialer({
      clock: systemClock,
      createLink: (socket, target) => (out = new Link(client.ctx, socket, { direction: 'outbound', remote: targetKey(target) })),
    });
    cleanups.push(() => dialer.stop());
    dialer.add({ host: '127.0.0.1', port });
    dialer.start();
    await until(() => out?.isOpen === true && inbound[0]?.isOpen === true);
    expect(inbound[0]!.remote).toMatch(/127\.0\.0\.1/);
    out!.send({ code: MessageCode.transactionsChunk3, tag: 0n, transactions: [new Uint8Array(200_000).fill(1), new Uint8Array(10).fill(2)] });
    inbound[0]!.send({ code: MessageCode.getUnappliedTransactions });
    await until(() => server.handler.messages.length === 1 && client.handler.messages.length === 1);
    const m = server.handler.messages[0]!.message;
    expect(m.code === MessageCode.transactionsChunk3 && m.transactions.map((t) => t.length)).toEqual([200_000, 10]);
    inbound[0]!.close('shuffling');
    await until(() => out!.state === 'closed');
    expect(out!.closeInfo!.reason).toBe('shuffling');
  });
});

describe('uwsPeerSocket with a fake uWS socket', () => {
  it('maps send results to backpressure, a dropped send to a slow peer, and cuts a slow peer without a close frame', () => {
    let result = 1;
    let buffered = 0;
    const calls: string[] = [];
    const fake = {
      send: () => result,
      getBufferedAmount: () => buffered,
      end: (code?: number) => void calls.push(`end ${code}`),
      close: () => void calls.push('close'),
    };
    const s = uwsPeerSocket(fake);
    expect(s.send(new Uint8Array(1))).toBe(true);
    result = 0;
    expect(s.send(new Uint8Array(1))).toBe(false);
    result = 2;
    expect(s.send(new Uint8Array(1))).toBe(false);
    expect(s.bufferedAmount()).toBe(Number.MAX_SAFE_INTEGER);
    s.close(4810, 'slow');
    expect(calls).toEqual(['close']);
    s.close(4810, 'again');
    expect(calls).toEqual(['close']);
    const t = uwsPeerSocket({ ...fake, send: () => 1 });
    t.close(4200, 'bye');
    expect(calls).toEqual(['close', 'end 4200']);
    const u = uwsPeerSocket(fake);
    u.markClosed();
    expect(u.send(new Uint8Array(1))).toBe(false);
  });
});
