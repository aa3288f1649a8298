/**
 * A payment lost on its way is not the end of it, end to end on loopback (a master, a relay, a
 * client of one devnet genesis): a relay that took a client's payment while it had no master link
 * (its master blacklisted) pushes it as soon as a master links again (reference-network §4.1: S2
 * tracks its clients' transactions and pushes them again), and the master applies it; the client
 * still lists it as its own pending payment meanwhile, never dropped.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareDevnet, type DevnetNode } from '../../src/cli/devnet.js';
import { freeFixedPort, nodeGroup, startNode, type NodeProcess } from './harness.js';

const { dir, running } = nodeGroup('dltnode-lost-pay');
let plan: DevnetNode[];
let genesisPath: string;
const peerPorts = new Map<string, number>();

const byName = (name: string): DevnetNode => plan.find((n) => n.name === name)!;
const node = (name: string): NodeProcess => running.get(name)!;

/** Starts one node of the plan: the relay dials the master, the client the relay. */
async function start(name: string): Promise<NodeProcess> {
  const n = byName(name);
  const args = ['--genesis', genesisPath, '--role', n.role];
  if (n.role !== 'client') {
    if (!peerPorts.has(name)) peerPorts.set(name, await freeFixedPort());
    args.push('--p2p-port', String(peerPorts.get(name)));
  }
  const peer = n.role === 'relay' ? 'master-1' : n.role === 'client' ? 'relay-1' : null;
  if (peer) args.push('--peer', `127.0.0.1:${peerPorts.get(peer)}`);
  const proc = await startNode({ dataDir: n.dataDir, args });
  running.set(name, proc);
  return proc;
}

beforeAll(async () => {
  const prepared = await prepareDevnet({ masters: 1, relays: 1, clients: 1, blockInterval: 0.5, dir, json: true, basePort: null });
  plan = prepared.nodes;
  genesisPath = prepared.genesisPath;
  for (const name of ['master-1', 'relay-1', 'client-1']) await start(name);
  const client = node('client-1');
  await client.waitFor(async () => (await client.call('getBalance', { address: byName('client-1').address })) !== '0.00000000', 'the client to see its funds', 30_000);
  await client.waitFor(async () => (await client.call('status'))['Network Servers'].length > 0, 'the client linked to its relay', 20_000);
}, 120_000);

describe('a payment lost on its way', () => {
  it('taken by a relay with no master link: pushed when the master links again, and applied', async () => {
    const client = node('client-1');
    const relay = node('relay-1');
    const master = node('master-1');
    // Made while the relay can still ask the master for the client's balance.
    const raw: string = await client.call('createRawTransaction', { to: `${byName('master-1').address}_1`, sign: true });

    await relay.call('blacklistpeer', { wallet: byName('master-1').address });
    await relay.waitFor(async () => (await relay.call('status'))['Network Servers'].length === 0, 'the relay without its master', 10_000);
    const sent = await client.call('sendRawTransaction', { transaction: raw });
    // The relay holds it with nowhere to push it; the master does not know it.
    await new Promise((r) => setTimeout(r, 2_000));
    await expect(master.call('getTransaction', { id: sent.id })).rejects.toThrow(/was not found/);

    // The master comes back: the relay pushes what it holds for its client, and the master applies it.
    await relay.call('clearpeerblacklist');
    await relay.call('reconnect');
    await master.waitApplied(sent.id, { timeoutMs: 30_000, unknownIsPending: true });
    expect(relay.output()).toMatch(/clients' pending transactions pushed to the masters again/);
    expect((await client.call('activity')).find((a: any) => a.txid === sent.id)?.status).not.toBe(3);
  }, 60_000);
});
