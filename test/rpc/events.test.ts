/**
 * The event stream's fan-out without a network: one serialisation per event, topic filtering, and a
 * subscriber whose backlog passes the bound is closed (1013) and forgotten, never buffered further.
 */
import { describe, expect, it } from 'vitest';
import { createNodeEvents } from '../../src/node/events.js';
import { EventStream, SLOW_SUBSCRIBER_CLOSE } from '../../src/rpc/events.js';
import type { HttpRequestHead, WsConnection } from '../../src/rpc/transport-api.js';
import type { Block } from '../../src/chain/block.js';
import { silentLog } from '../chain/fixture.js';

const head = (query: string): HttpRequestHead => ({ method: 'GET', path: '/events', query, authorization: '', remoteAddress: '127.0.0.1', host: '127.0.0.1', origin: '', secFetchSite: '' });

let ids = 1;
function fakeConn(accept: () => boolean = () => true): WsConnection & { sent: string[]; closed?: [number, string] } {
  const conn = {
    id: ids++,
    remoteAddress: '127.0.0.1',
    sent: [] as string[],
    closed: undefined as [number, string] | undefined,
    bufferedAmount: 0,
    send(data: string | Uint8Array) {
      if (!accept()) return false;
      conn.sent.push(String(data));
      return true;
    },
    close(code = 1000, reason = '') {
      conn.closed = [code, reason];
    },
  };
  return conn;
}

const block = (num: bigint): Block => ({
  version: 13, num, lastBlockChecksum: null, signatureFreezeChecksum: null, pitRoot: null, timestamp: 1n, difficulty: 0n,
  walletStateChecksum: null, regNameStateChecksum: null, totalFee: 0n, signatures: [], txIds: [],
});

describe('EventStream', () => {
  it('refuses the names of Object.prototype as topics, and acknowledges each topic once', () => {
    // `t in TOPICS` took constructor, toString, __proto__… for topics: subscribed, never sent.
    const bus = createNodeEvents(silentLog);
    const route = new EventStream({ bus: () => bus, log: silentLog }).route();
    for (const t of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(route.upgrade(head(`topics=${t}`))?.status, t).toBe(400);
    }
    const conn = fakeConn();
    route.open(conn, head('topics=blocks,blocks&topics=blocks'));
    route.message(conn, Buffer.from('{"op":"subscribe","topics":["constructor"]}'), false);
    expect(conn.sent.map((m) => JSON.parse(m))).toEqual([
      { op: 'subscribed', topics: ['blocks'] },
      { error: expect.stringMatching(/^Unknown topic "constructor"/) },
    ]);
  });

  it('sends each subscriber the topics it asked for, and disconnects one that does not read', async () => {
    const bus = createNodeEvents(silentLog);
    const stream = new EventStream({ bus: () => bus, log: silentLog });
    const route = stream.route();
    expect(route.upgrade(head('topics=blocks'))).toBeUndefined();
    expect(route.upgrade(head('topics=nope'))?.status).toBe(400);

    const blocks = fakeConn();
    const txs = fakeConn();
    let room = 2;
    const slow = fakeConn(() => room-- > 0);
    route.open(blocks, head('topics=blocks'));
    route.open(txs, head('topics=transactions'));
    route.open(slow, head('topics=blocks'));
    expect(stream.subscriberCount).toBe(3);

    for (let n = 1n; n <= 3n; n++) bus.emit('blockImported', { block: block(n), checksum: new Uint8Array(64), txs: [], source: 'local' });
    expect(blocks.sent.slice(1).map((m) => JSON.parse(m).data.num)).toEqual([1, 2, 3]);
    expect(txs.sent).toHaveLength(1); // only the subscription acknowledgement
    expect(slow.closed?.[0]).toBe(SLOW_SUBSCRIBER_CLOSE);
    expect(slow.closed?.[1]).toMatch(/backlog/);
    expect(stream.subscriberCount).toBe(2);

    route.message(txs, new TextEncoder().encode(JSON.stringify({ op: 'subscribe', topics: ['blocks'] })), false);
    bus.emit('blockImported', { block: block(4n), checksum: new Uint8Array(64), txs: [], source: 'peer' });
    expect(JSON.parse(txs.sent.at(-1)!).data).toMatchObject({ num: 4, source: 'peer' });
    // Amounts are CoinNumber strings, as getBlock's 'Total fees', never raw 10⁻⁸ units.
    bus.emit('blockImported', { block: { ...block(5n), totalFee: 16_896_676n }, checksum: new Uint8Array(64), txs: [], source: 'local' });
    expect(JSON.parse(txs.sent.at(-1)!).data.totalFee).toBe('0.16896676');
    route.close(blocks, 1000, '');
    expect(stream.subscriberCount).toBe(1);
  });

  it('refuses subscriptions while the node starts', () => {
    const stream = new EventStream({ bus: () => undefined, log: silentLog });
    expect(stream.route().upgrade(head('topics=blocks'))?.status).toBe(503);
  });
});
