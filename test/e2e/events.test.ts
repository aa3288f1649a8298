/**
 * The node's event stream, `ws://host:port/events` (issue 8 point 8; DESIGN.md decision 9), on a
 * real node process: a subscriber receives the transaction and block events of a payment; topics
 * change with subscribe/unsubscribe messages; bad topics and messages get clear errors; with
 * users configured an unauthenticated subscription is refused like an RPC call.
 */
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startNode, type NodeProcess } from './harness.js';

const STRANGER = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';
const nodes: NodeProcess[] = [];
afterAll(async () => {
  for (const n of nodes) await n.stop();
});

interface Received {
  ws: WebSocket;
  messages: any[];
  /** Resolves with the first message (already received or coming) that `match` accepts. */
  next(match: (m: any) => boolean, what: string, timeoutMs?: number): Promise<any>;
}

function connect(url: string, headers: Record<string, string> = {}): Promise<Received> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const messages: any[] = [];
    const waiters: { match: (m: any) => boolean; done: (m: any) => void }[] = [];
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString());
      messages.push(m);
      for (const w of [...waiters]) if (w.match(m)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.done(m);
      }
    });
    ws.on('unexpected-response', (_req, res) => reject(Object.assign(new Error(`refused with HTTP ${res.statusCode}`), { status: res.statusCode })));
    ws.on('error', reject);
    ws.on('open', () =>
      resolve({
        ws,
        messages,
        next: (match, what, timeoutMs = 15_000) => {
          const seen = messages.find(match);
          if (seen) return Promise.resolve(seen);
          return new Promise((done, fail) => {
            const timer = setTimeout(() => fail(new Error(`no ${what} within ${timeoutMs} ms; got ${JSON.stringify(messages).slice(0, 500)}`)), timeoutMs);
            waiters.push({ match, done: (m) => (clearTimeout(timer), done(m)) });
          });
        },
      }),
    );
  });
}

const wsUrl = (node: NodeProcess, query = '') => `${node.url.replace('http', 'ws')}/events${query}`;

describe('ws /events', () => {
  it('streams the transaction and block events of a payment to a subscriber', async () => {
    const node = await startNode({ blockInterval: 0.5 });
    nodes.push(node);
    await node.waitForHeight(1);
    const sub = await connect(wsUrl(node, '?topics=blocks,transactions'));
    expect(await sub.next((m) => m.op === 'subscribed', 'subscription')).toEqual({ op: 'subscribed', topics: ['blocks', 'transactions'] });

    const tx = await node.call('addTransaction', { to: `${STRANGER}_2.5` });
    const admitted = await sub.next((m) => m.event === 'txAdmitted' && m.data.transactions.some((t: any) => t.id === tx.id), 'txAdmitted');
    expect(admitted.topic).toBe('transactions');
    expect(admitted.data.source).toBe('rpc');
    const applied = await sub.next((m) => m.event === 'txApplied' && m.data.ids.includes(tx.id), 'txApplied');
    const block = await sub.next((m) => m.event === 'blockImported' && m.data.num === applied.data.height, 'blockImported');
    expect(block.topic).toBe('blocks');
    expect(block.data.source).toBe('local');
    expect(block.data.transactions).toBeGreaterThanOrEqual(1);
    const stored = await node.call('getBlock', { num: block.data.num });
    expect(JSON.parse(stored['TX IDs'])).toContain(tx.id);
    expect(block.data.checksum).toBe(stored['Block Checksum']);

    // Unsubscribing from blocks: only transaction events arrive afterwards.
    sub.ws.send(JSON.stringify({ op: 'unsubscribe', topics: ['blocks'] }));
    await sub.next((m) => m.op === 'subscribed' && m.topics.length === 1 && m.topics[0] === 'transactions', 'unsubscribe acknowledgement');
    const count = sub.messages.length;
    const second = await node.call('addTransaction', { to: `${STRANGER}_1` });
    await sub.next((m) => m.event === 'txApplied' && m.data.ids.includes(second.id), 'second txApplied');
    expect(sub.messages.slice(count).filter((m) => m.topic === 'blocks')).toEqual([]);

    // Bad messages get an error and keep the connection.
    sub.ws.send('not json');
    expect((await sub.next((m) => /not JSON/.test(m.error ?? ''), 'error for bad JSON')).error).toMatch(/subscribe/);
    sub.ws.send(JSON.stringify({ op: 'subscribe', topics: ['weather'] }));
    expect((await sub.next((m) => /weather/.test(m.error ?? ''), 'error for an unknown topic')).error).toMatch(/topics are blocks, transactions/);
    expect(sub.ws.readyState).toBe(WebSocket.OPEN);
    sub.ws.close();

    // An unknown topic in the URL refuses the upgrade.
    await expect(connect(wsUrl(node, '?topics=weather'))).rejects.toMatchObject({ status: 400 });
  });

  it('refuses an unauthenticated subscription when users are configured', async () => {
    const node = await startNode({ blockInterval: 0.5, args: ['--rpc-user', 'alice:s3cret'] });
    nodes.push(node);
    await expect(connect(wsUrl(node, '?topics=blocks'))).rejects.toMatchObject({ status: 401 });
    await expect(connect(wsUrl(node, '?topics=blocks'), { Authorization: `Basic ${Buffer.from('alice:wrong').toString('base64')}` })).rejects.toMatchObject({ status: 401 });
    const sub = await connect(wsUrl(node, '?topics=blocks'), { Authorization: `Basic ${Buffer.from('alice:s3cret').toString('base64')}` });
    await sub.next((m) => m.event === 'blockImported', 'a block event');
    sub.ws.close();
  });

  it('serves the same stream on the node:http transport', async () => {
    const node = await startNode({ blockInterval: 0.5, args: ['--rpc-transport', 'http'] });
    nodes.push(node);
    const sub = await connect(wsUrl(node, '?topics=blocks'));
    const block = await sub.next((m) => m.event === 'blockImported', 'a block event');
    expect(block.data.num).toBeGreaterThanOrEqual(1);
    await expect(connect(`${node.url.replace('http', 'ws')}/nowhere`)).rejects.toMatchObject({ status: 404 });
    sub.ws.close();
  });
});
