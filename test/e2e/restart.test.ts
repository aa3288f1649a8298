/**
 * Crash safety: SIGKILL the node while it produces blocks with a full pool, restart it on the same
 * data directory, and check that the chain and the pending pool are intact and consistent — every
 * accepted transaction is pending or applied exactly once, blocks link up, balances add up to the
 * supply, and production resumes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { parseAmount } from '../../src/formats/amount.js';
import { FOUNDATION_ADDRESS } from '../../src/formats/constants.js';
import { startNode, type NodeProcess } from './harness.js';

const STRANGER = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';
let node: NodeProcess | undefined;

afterAll(async () => {
  await node?.stop();
});

/** Checks the invariants; returns how many accepted transactions are still pending. */
async function checkConsistent(n: NodeProcess, accepted: string[]): Promise<number> {
  const pending = await n.call<Record<string, unknown>>('txu', { count: 1000 });
  const applied = await n.call<Record<string, any>>('txa', { count: 1000 });
  for (const id of accepted) {
    const inPool = id in pending;
    const inChain = id in applied;
    expect(inPool !== inChain, `${id}: pending ${inPool}, applied ${inChain}`).toBe(true);
  }
  const status = await n.call('status', { verbose: true });
  expect(status['Unapplied TX Count']).toBe(Object.keys(pending).length);
  expect(status['Applied TX Count']).toBe(Object.keys(applied).length);
  // Blocks link from the tip down to block 1, and every applied transaction sits in its block.
  const height = status['Block Height'] as number;
  let next: any;
  const inBlocks = new Set<string>();
  for (let num = height; num >= 1; num--) {
    const b = await n.call('getBlock', { num });
    if (next) expect(next['Last Block Checksum']).toBe(b['Block Checksum']);
    for (const id of JSON.parse(b['TX IDs']) as string[]) inBlocks.add(id);
    next = b;
  }
  for (const [id, tx] of Object.entries(applied)) {
    expect(inBlocks.has(id), id).toBe(true);
    expect(Number(tx.applied)).toBeGreaterThan(0);
  }
  // The coins are all accounted for, read between two blocks (a block committed between two
  // reads would move coins from one read wallet to another: read again then).
  let sum = 0n;
  let supply = 0n;
  for (let attempt = 0; attempt < 10; attempt++) {
    const before = await n.height();
    sum = 0n;
    for (const id of [n.address, FOUNDATION_ADDRESS, STRANGER]) sum += parseAmount((await n.call('getWallet', { id })).balance);
    supply = parseAmount((await n.call('status', { verbose: true })).Supply);
    if ((await n.height()) === before) break;
  }
  expect(sum).toBe(supply);
  return accepted.filter((id) => id in pending).length;
}

describe('SIGKILL and restart', () => {
  it('keeps the chain and the pending pool intact and consistent', async () => {
    // Slow blocks at first: the first burst is certainly pending when the node is killed.
    node = await startNode({ blockInterval: 5 });
    await node.waitForHeight(1);
    const accepted: string[] = [];
    let pendingAfterRestart = 0;
    for (let round = 0; round < 3; round++) {
      // A burst of payments, then a kill while blocks are being produced from them.
      const burst = await Promise.all(
        Array.from({ length: 25 }, () => node!.rpc('addTransaction', { to: `${STRANGER}_1` })),
      );
      for (const r of burst) {
        expect(r.error).toBeNull();
        accepted.push((r.result as { id: string }).id);
      }
      const heightBefore = await node.height();
      expect(await node.kill('SIGKILL')).toBeNull();
      // The first restart waits 5 s for its first block, so what was pending is seen pending.
      node = await startNode({ dataDir: node.dataDir, blockInterval: round === 0 ? 5 : 0.3 });
      expect(await node.height()).toBeGreaterThanOrEqual(heightBefore);
      pendingAfterRestart += await checkConsistent(node, accepted);
      if (round === 0) {
        await node.kill('SIGKILL');
        node = await startNode({ dataDir: node.dataDir, blockInterval: 0.3 });
      }
    }
    expect(pendingAfterRestart).toBeGreaterThan(0);
    // Production resumes and drains the pool.
    await node.waitFor(async () => Object.keys(await node!.call('txu')).length === 0, 'an empty pool');
    await checkConsistent(node, accepted);
    const applied = await node.call<Record<string, unknown>>('txa', { count: 1000 });
    for (const id of accepted) expect(applied).toHaveProperty(id);
  });
});
