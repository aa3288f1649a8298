/**
 * Sync at length (issue 9, slow suite): a master of a one-master genesis network produces a few
 * hundred blocks of 0.1 s with payments in them; a relay started from the genesis afterwards
 * fetches them in ranges, imports them in order, reports Synchronizing then Active, and ends on
 * the same chain. The log shows the progress (height / network height, blocks per second).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareDevnet } from '../../src/cli/devnet.js';
import { freeFixedPort, startNode, type NodeProcess } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'dltnode-sync-'));
const nodes: NodeProcess[] = [];
afterAll(async () => {
  for (const n of nodes) await n.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

describe('block sync', () => {
  it('a node started later syncs hundreds of blocks from the genesis', async () => {
    const { nodes: plan, genesisPath } = await prepareDevnet({ masters: 1, relays: 1, clients: 0, blockInterval: 0.1, dir, json: true, basePort: null });
    const port = await freeFixedPort();
    const master = await startNode({ dataDir: plan[0]!.dataDir, args: ['--genesis', genesisPath, '--p2p-port', String(port)] });
    nodes.push(master);
    const stranger = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';
    for (let i = 0; i < 20; i++) await master.call('addTransaction', { to: `${stranger}_${i + 1}` });
    // A hang guard, not a pace: 300 blocks of 0.1 s took 50 s on a shared 2-core machine (each
    // waits for a signer PoW solution); the suite's timeout is 600 s.
    await master.waitForHeight(300, 450_000);
    const target = await master.height();
    const started = Date.now();
    const relay = await startNode({ dataDir: plan[1]!.dataDir, args: ['--genesis', genesisPath, '--role', 'relay', '--peer', `127.0.0.1:${port}`] });
    nodes.push(relay);
    await relay.waitFor(async () => (await relay.call('status'))['DLT Status'] === 'Synchronizing' || (await relay.height()) >= target, 'sync to start', 30_000);
    await relay.waitForHeight(target, 180_000);
    const seconds = (Date.now() - started) / 1000;
    await relay.waitFor(async () => (await relay.call('status'))['DLT Status'] === 'Active', 'Active', 30_000);
    expect(relay.output()).toMatch(/synchronizing: \d+ \/ \d+/);
    const a = await master.call('getBlock', { num: target });
    const b = await relay.call('getBlock', { num: target });
    expect(b['Block Checksum']).toBe(a['Block Checksum']);
    expect(await relay.call('getBalance', { address: stranger })).toBe(await master.call('getBalance', { address: stranger }));
    console.log(`synced ${target} blocks in ${seconds.toFixed(1)} s (${Math.round(target / seconds)} blocks/s)`);
  });
});
