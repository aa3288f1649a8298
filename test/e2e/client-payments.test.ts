/**
 * A client's payments end to end, real node processes on loopback (a master, a relay, a client of
 * one devnet genesis): a payment to the relay the client pays anyway is one output, taken and
 * applied; a payment a master would refuse for dust is refused by the client at once with the
 * master's error; a negative amount and a payment to the wallet's own address say what is wrong;
 * a relay and a client restarted log their header height in "node started".
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareDevnet, type DevnetNode } from '../../src/cli/devnet.js';
import { expectRpcError, freeFixedPort, nodeGroup, startNode, type NodeProcess } from './harness.js';

const { dir, running } = nodeGroup('dltnode-client-pay');
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

/** The height of the process's "node started" log line. */
function startedHeight(p: NodeProcess): number | undefined {
  for (const line of p.output().split('\n')) {
    try {
      const l = JSON.parse(line) as { msg?: string; height?: number };
      if (l.msg === 'node started') return l.height;
    } catch {
      // not a log line
    }
  }
  return undefined;
}

beforeAll(async () => {
  const prepared = await prepareDevnet({ masters: 1, relays: 1, clients: 1, blockInterval: 0.5, dir, json: true, basePort: null });
  plan = prepared.nodes;
  genesisPath = prepared.genesisPath;
  for (const name of ['master-1', 'relay-1', 'client-1']) await start(name);
  const client = node('client-1');
  await client.waitFor(async () => (await client.call('getBalance', { address: byName('client-1').address })) !== '0.00000000', 'the client to see its funds', 30_000);
  // The relay it pays is linked (relay outputs go to the relays it is linked to).
  await client.waitFor(async () => (await client.call('status'))['Network Servers'].length > 0, 'the client linked to its relay', 20_000);
}, 120_000);

describe('a client\'s payments', () => {
  it('paying the relay it pays anyway: one output holding the payment and the relay\'s share, applied', async () => {
    const relay = byName('relay-1').address;
    const tx = await node('client-1').call('addTransaction', { to: `${relay}_1` });
    expect(Object.keys(tx.to)).toEqual([relay]);
    const share = Math.max(Number(tx.fee), 0.01);
    expect(Number(tx.to[relay])).toBeCloseTo(1 + share, 8);
    await node('master-1').waitApplied(tx.id, { timeoutMs: 20_000, unknownIsPending: true });
  });

  it('below the dust limit: refused by the client at once with the master\'s error, nothing sent', async () => {
    const client = node('client-1');
    const to = `${byName('master-1').address}_0.001`;
    const message = 'The transaction was rejected: output 0 amount 0.00100000 is below the dust limit 0.01000000';
    const pendingBefore = Object.keys(await client.call('txu'));
    await expectRpcError(node('master-1'), 'addTransaction', { to: `${byName('client-1').address}_0.001` }, -32602, message);
    await expectRpcError(client, 'addTransaction', { to }, -32602, message);
    expect(Object.keys(await client.call('txu'))).toEqual(pendingBefore);
    expect(client.output()).not.toMatch(/dust/);
  });

  it('a negative amount and a payment to the wallet\'s own address say what is wrong (-32602)', async () => {
    for (const [name, own] of [['client-1', byName('client-1').address], ['master-1', byName('master-1').address]] as const) {
      await expectRpcError(node(name), 'addTransaction', { to: `${byName('relay-1').address}_-5` }, -32602, 'Invalid to amount was specified: invalid amount "-5": negative amounts are not allowed', true);
      await expectRpcError(node(name), 'addTransaction', { to: `${own}_1` }, -32602, new RegExp(`^Cannot pay ${own} from the same wallet: a payment cannot spend from an address it pays`));
    }
  });
});

describe('a light node restarted', () => {
  it('logs its header height in "node started", not the 1 of its chain', async () => {
    for (const name of ['relay-1', 'client-1']) {
      const before = node(name);
      await before.waitForHeight(4, 20_000);
      const height = await before.height();
      await before.stop(true);
      running.delete(name);
      const again = await start(name);
      const logged = await again.waitFor(async () => startedHeight(again), `the "node started" line of ${name}`, 10_000);
      expect(logged, name).toBeGreaterThanOrEqual(height);
    }
  });
});
