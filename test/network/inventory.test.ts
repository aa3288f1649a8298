import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/network/clock.js';
import { InventoryBatcher, PullTracker } from '../../src/network/inventory.js';
import type { InventoryItem } from '../../src/network/protocol/messages.js';
import { SeenSet } from '../../src/network/seen.js';

const tx = (n: number): InventoryItem => ({ type: 0, txid: Uint8Array.of(n) });

describe('InventoryBatcher', () => {
  it('sends at most one batch per second, at once when full', () => {
    const clock = new ManualClock();
    const sent: number[] = [];
    const b = new InventoryBatcher({ clock, send: (items) => (sent.push(items.length), true), maxItems: 5 });
    b.add(tx(1));
    b.add(tx(2));
    clock.advance(999);
    expect(sent).toEqual([]);
    clock.advance(1);
    expect(sent).toEqual([2]);
    for (let i = 0; i < 7; i++) b.add(tx(i));
    expect(sent).toEqual([2, 5]);
    clock.advance(1000);
    expect(sent).toEqual([2, 5, 2]);
    b.add(tx(9));
    b.close();
    clock.advance(5000);
    expect(sent).toEqual([2, 5, 2]);
  });
});

describe('PullTracker', () => {
  it('asks the first announcer, retries another after the deadline, and gives up after the retries', () => {
    const clock = new ManualClock();
    const seen = new SeenSet({ capacity: 100, ttlMs: 1e9, clock });
    const t = new PullTracker<string>({ clock, seen, policy: { block: { retries: 3, retryMs: 1000 } } });
    expect(t.announced('block', 'b1', 'p1')).toBe(true);
    expect(t.announced('block', 'b1', 'p2')).toBe(false);
    expect(t.announced('block', 'b1', 'p3')).toBe(false);
    clock.advance(999);
    expect(t.due()).toEqual([]);
    clock.advance(1);
    expect(t.due()).toEqual([{ key: 'b1', kind: 'block', peer: 'p2' }]);
    clock.advance(1000);
    expect(t.due()).toEqual([{ key: 'b1', kind: 'block', peer: 'p3' }]);
    clock.advance(1000);
    expect(t.due()).toEqual([]);
    expect(t.size).toBe(0);
  });

  it('never pulls a processed item again; a gone peer is skipped', () => {
    const clock = new ManualClock();
    const seen = new SeenSet({ capacity: 100, ttlMs: 1e9, clock });
    const t = new PullTracker<string>({ clock, seen });
    expect(t.announced('transaction', 'x', 'p1')).toBe(true);
    t.announced('transaction', 'x', 'p2');
    t.peerGone('p1');
    expect(t.due()).toEqual([{ key: 'x', kind: 'transaction', peer: 'p2' }]);
    t.received('x');
    expect(t.announced('transaction', 'x', 'p3')).toBe(false);
    expect(seen.hits).toBeGreaterThan(0);
  });

  it('stays bounded', () => {
    const clock = new ManualClock();
    const seen = new SeenSet({ capacity: 10, ttlMs: 1e9, clock });
    const t = new PullTracker<string>({ clock, seen, maxPending: 50 });
    for (let i = 0; i < 1000; i++) t.announced('transaction', `k${i}`, 'p');
    expect(t.size).toBe(50);
  });
});
