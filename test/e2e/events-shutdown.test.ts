/**
 * A graceful stop (SIGTERM) closes the /events subscribers with 1001 "going away", so a client
 * tells a clean stop from a crash (1006, no close frame), on both RPC transports.
 */
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { loadUws } from '../../src/rpc/transport-uws.js';
import { startNode, type NodeProcess } from './harness.js';

const nodes: NodeProcess[] = [];
afterAll(async () => {
  for (const n of nodes) await n.stop();
});

const transports = ['http', ...(loadUws() instanceof Error ? [] : ['uws'])];

describe('ws /events on a graceful stop', () => {
  it.each(transports)('--rpc-transport %s: a subscriber is closed with 1001', async (transport) => {
    const node = await startNode({ args: ['--rpc-transport', transport] });
    nodes.push(node);
    const ws = new WebSocket(`${node.url.replace('http', 'ws')}/events?topics=blocks`);
    await new Promise<void>((ok, fail) => {
      ws.once('error', fail);
      ws.on('message', (d) => {
        if (JSON.parse(String(d)).op === 'subscribed') ok();
      });
    });
    const closed = new Promise<[number, string]>((r) => ws.once('close', (code, reason) => r([code, reason.toString()])));
    const started = Date.now();
    expect(await node.kill('SIGTERM')).toBe(0);
    const [code, reason] = await closed;
    expect(code).toBe(1001);
    expect(reason).not.toBe('');
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
