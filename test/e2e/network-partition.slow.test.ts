/**
 * A partition of a 3-master network and its healing (issue 9, slow suite). The partition is made
 * by the nodes' own operators' tools (`blacklistpeer` on both sides, which closes the links at
 * once), on loopback: master-3 is cut off from masters 1 and 2. A master proposes only while
 * linked to a majority of the masters, so the lone side stops and the two-master side goes on;
 * joined again (`clearpeerblacklist`, `connect`), master-3 synchronizes and all three end on one
 * chain, byte for byte.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareDevnet } from '../../src/cli/devnet.js';
import { freeFixedPort, startNode, type NodeProcess } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'dltnode-partition-'));
const nodes: NodeProcess[] = [];
afterAll(async () => {
  for (const n of nodes) await n.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a partition of the masters', () => {
  it('the minority stops, the majority goes on, and the healed network ends on one chain', async () => {
    const { nodes: plan, genesisPath } = await prepareDevnet({ masters: 3, relays: 0, clients: 0, blockInterval: 0.5, dir, json: true, basePort: null });
    const ports = [await freeFixedPort(), await freeFixedPort(), await freeFixedPort()];
    for (let i = 0; i < 3; i++) {
      const peers = ports.slice(0, i).flatMap((p) => ['--peer', `127.0.0.1:${p}`]);
      nodes.push(await startNode({ dataDir: plan[i]!.dataDir, args: ['--genesis', genesisPath, '--p2p-port', String(ports[i]), ...peers] }));
    }
    const [m1, m2, m3] = nodes as [NodeProcess, NodeProcess, NodeProcess];
    await m3.waitForHeight(6, 30_000);

    // Cut master-3 off, from both sides.
    for (const n of [m1, m2]) await n.call('blacklistpeer', { wallet: plan[2]!.address });
    await m3.call('blacklistpeer', { wallet: plan[0]!.address });
    await m3.call('blacklistpeer', { wallet: plan[1]!.address });
    await m3.waitFor(async () => (await m3.call('status'))['Network Servers'].length === 0 && (await m3.call('status'))['Network Clients'].length === 0, 'master-3 alone', 20_000);
    await sleep(1_000); // a block already on its way settles
    const cut = await m3.height();
    const majority = await m1.height();
    await sleep(4_000);
    expect(await m3.height()).toBe(cut); // the minority proposes nothing
    await m1.waitForHeight(majority + 4, 20_000); // the majority goes on

    // Heal: lift the blacklists and redial.
    for (const n of nodes) await n.call('clearpeerblacklist');
    await m3.call('connect', { to: `127.0.0.1:${ports[0]}` });
    await m3.call('connect', { to: `127.0.0.1:${ports[1]}` });
    await m3.waitFor(async () => (await m3.height()) >= (await m1.height()) - 1, 'master-3 to catch up', 30_000);
    await m3.waitForHeight((await m1.height()) + 2, 20_000);
    const h = Math.min(...(await Promise.all(nodes.map((n) => n.height()))));
    const checksums = await Promise.all(nodes.map(async (n) => (await n.call('getBlock', { num: h }))['Block Checksum']));
    expect(new Set(checksums).size).toBe(1);
    const before = await Promise.all(nodes.map(async (n) => (await n.call('getBlock', { num: cut }))['Block Checksum']));
    expect(new Set(before).size).toBe(1);
  });
});
