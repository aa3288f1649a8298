/**
 * Concurrent payments from one wallet (interface.md addTransaction; reference-rpc-messaging.md §2.1
 * "Input selection": available = balance − what pending local transactions withdraw). With a
 * derived address holding 1 coin beside the primary's 999,999, every payment picks the small
 * address first; payments built while earlier ones are still being admitted must see those spends,
 * or they pick the same coins and are refused "Balance is too low" although the wallet covers them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAmount } from '../../src/formats/amount.js';
import { startNode, type NodeProcess } from './harness.js';

let node: NodeProcess;
const STRANGER = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';
const PAYMENTS = 200;

beforeAll(async () => {
  node = await startNode();
  await node.waitForHeight(2);
});
afterAll(async () => {
  await node?.stop();
});

describe('concurrent payments the wallet covers', () => {
  it(`${PAYMENTS} concurrent addTransaction calls all succeed while a derived address holds 1 coin`, async () => {
    const small = await node.call<string>('generateNewAddress');
    const funding = await node.call('addTransaction', { to: `${small}_1` });
    await node.waitApplied(funding.id);
    expect(parseAmount((await node.call('getWallet', { id: small })).balance)).toBe(100_000_000n);

    const replies = await Promise.all(Array.from({ length: PAYMENTS }, () => node.rpc('addTransaction', { to: `${STRANGER}_0.01` })));
    const errors = replies.filter((r) => r.error).map((r) => `${r.error!.code} ${r.error!.message}`);
    expect(errors).toEqual([]);
    // The small address paid first (smallest balance first) and never more than it holds.
    const fromSmall = replies.filter((r) => Object.keys((r.result as { from: Record<string, string> }).from).length > 1 || !('1' in (r.result as { from: Record<string, string> }).from));
    expect(fromSmall.length).toBeGreaterThan(0);
    const ids = replies.map((r) => (r.result as { id: string }).id);
    await node.waitFor(async () => {
      const pending = await node.call<Record<string, unknown>>('txu', { count: 1000 });
      return ids.every((id) => !(id in pending)) || undefined;
    }, 'every payment applied', 60_000);
    for (const id of ids.slice(0, 20)) expect(await node.appliedAt(id)).toBeGreaterThan(0);
    expect(parseAmount((await node.call('getWallet', { id: small })).balance)).toBeGreaterThanOrEqual(0n);
  }, 120_000);
});
