/**
 * The network end to end (issue 9), with real node processes on loopback: three masters, a relay
 * and two clients of one genesis. A payment made at a client reaches every master and is applied
 * with byte-identical blocks everywhere; a master killed with SIGKILL does not stop the others, and
 * after a restart it synchronizes and ends on the same chain; a node started later catches up from
 * the genesis; a node of another genesis or network is refused, the code and reason logged on both
 * sides; a peer that sends garbage is disconnected while the network goes on.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { prepareDevnet, type DevnetNode } from '../../src/cli/devnet.js';
import { readGenesisFile, writeGenesisFile } from '../../src/config/genesis-file.js';
import { expectRpcError, freeFixedPort, nodeGroup, startNode, subscribe, type NodeProcess } from './harness.js';

const { dir, running } = nodeGroup('dltnode-net');
const BLOCK_INTERVAL = 0.5;
let plan: DevnetNode[];
let genesisPath: string;
const peerPorts = new Map<string, number>();

const byName = (name: string): DevnetNode => plan.find((n) => n.name === name)!;

/** Starts one node of the plan, dialling the peers the devnet topology gives it. */
async function start(name: string, extra: string[] = []): Promise<NodeProcess> {
  const node = byName(name);
  const masters = plan.filter((n) => n.role === 'master');
  let peers: string[];
  if (node.role === 'master') peers = masters.slice(0, masters.indexOf(node)).map((m) => m.name);
  else if (node.role === 'relay') peers = masters.map((m) => m.name);
  else peers = ['relay-1'];
  const args = ['--genesis', genesisPath, '--role', node.role, ...extra];
  if (node.role !== 'client' && !peerPorts.has(name)) peerPorts.set(name, await freeFixedPort());
  if (node.role !== 'client') args.push('--p2p-port', String(peerPorts.get(name)));
  for (const p of peers) if (peerPorts.has(p)) args.push('--peer', `127.0.0.1:${peerPorts.get(p)}`);
  const proc = await startNode({ dataDir: node.dataDir, args });
  running.set(name, proc);
  return proc;
}

const status = (n: NodeProcess) => n.call('status', { verbose: true });

/** pino's level numbers. */
const WARN = 40;
interface LogLine {
  level: number;
  msg: string;
  code?: number;
  reason?: string;
  direction?: string;
}
/** The JSON lines of a node's log. */
const logLines = (output: string): LogLine[] =>
  output.split('\n').flatMap((l) => {
    try {
      return [JSON.parse(l) as LogLine];
    } catch {
      return [];
    }
  });
/** The log line of a refused peer link with this close code and reason (at `level` or above), if any. */
const refusalLine = (output: string, code: number, reason: RegExp, level = 0): LogLine | undefined =>
  logLines(output).find((l) => l.code === code && reason.test(l.reason ?? '') && l.level >= level && l.direction !== undefined);
const checksumAt = async (n: NodeProcess, num: number): Promise<string> => (await n.call('getBlock', { num }))['Block Checksum'];

beforeAll(async () => {
  // relay-2 only for the seed test (a relay that knows no master).
  const prepared = await prepareDevnet({ masters: 3, relays: 2, clients: 2, blockInterval: BLOCK_INTERVAL, dir, json: true, basePort: null });
  plan = prepared.nodes;
  genesisPath = prepared.genesisPath;
  for (const name of ['master-1', 'master-2', 'master-3', 'relay-1', 'client-1']) await start(name, name === 'relay-1' ? ['--metrics'] : []);
}, 120_000);

/** The payment of the client test (a later test finds it at the recipient). */
let payment = '';

describe('a network of masters, a relay and clients', () => {
  it('links up with the roles of each node in status', async () => {
    const m1 = running.get('master-1')!;
    await m1.waitFor(async () => (await status(m1))['Network Clients'].length >= 3, 'links to master-1', 20_000);
    const s = await status(m1);
    expect(s['Node Type']).toBe('M');
    expect(s['My Listening Port']).toBe(peerPorts.get('master-1'));
    const relay = await status(running.get('relay-1')!);
    expect(relay['Node Type']).toBe('R');
    expect(relay['Network Servers']).toHaveLength(3);
    const client = running.get('client-1')!;
    expect((await status(client))['Node Type']).toBe('C');
    // A client holds the presences it needs (its own; others when it looks them up), not the masters' (reference-network §3.4).
    expect((await status(client)).Presences).toBeGreaterThanOrEqual(1);
    const metrics = (await running.get('relay-1')!.http('/metrics')).text;
    expect(metrics).toMatch(/dltnode_peers\{type="M"\} 3/);
    expect(metrics).toMatch(/dltnode_p2p_frames_total\{direction="in",message="[a-zA-Z0-9]+"\} \d+/);
    expect(metrics).toMatch(/dltnode_sync_lag_blocks \d+/);
    // No link asked past its budget of light questions.
    expect(metrics).toMatch(/dltnode_light_questions_total\{outcome="dropped"\} 0\n/);
    // Relays announce their clients' keep-alives to the masters (reference-rpc-messaging §4.3).
    await m1.waitFor(async () => (await m1.call('pl')).length === 5, 'the client presence at master-1', 20_000);
    expect((await m1.call('pl')).map((p: any) => p.addresses[0].type).sort()).toEqual(['C', 'M', 'M', 'M', 'R']);
    const relayPl = await running.get('relay-1')!.call('pl');
    expect(relayPl.map((p: any) => p.addresses[0].type).sort()).toEqual(['C', 'M', 'M', 'M', 'R']);
  });

  it('a payment at a client reaches every master, then is applied in byte-identical blocks', async () => {
    const client = running.get('client-1')!;
    const to = byName('client-2').address;
    await client.waitFor(async () => (await client.call('getBalance', { address: byName('client-1').address })) !== '0.00000000', 'the client to see its funds', 20_000);
    const events = await subscribe(client, 'blocks,transactions');
    const tx = await client.call('addTransaction', { to: `${to}_12.5` });
    // A client pays its relay an output equal to the fee (interface.md addTransaction rule 5).
    expect(tx.to[byName('relay-1').address]).toBe(tx.fee);
    expect(tx.to[to]).toBe('12.50000000');
    const masters = ['master-1', 'master-2', 'master-3'].map((n) => running.get(n)!);
    // Pending or already applied on every master, within a few seconds.
    for (const m of masters) await m.waitFor(async () => (await m.rpc('getTransaction', { id: tx.id })).error === null, `the payment at ${m.url}`, 5_000);
    for (const m of masters) await m.waitApplied(tx.id, { timeoutMs: 15_000 });
    const height = await masters[0]!.appliedAt(tx.id);
    for (const m of masters) await m.waitForHeight(height + 1, 10_000);
    const all = [...running.values()];
    for (const n of all) await n.waitForHeight(height, 15_000);
    const checksums = await Promise.all(all.map((n) => checksumAt(n, height)));
    expect(new Set(checksums).size).toBe(1);
    for (const n of all) expect(await n.call('getBalance', { address: to })).toBe('100012.50000000');
    payment = tx.id;
    // The client learnt it was applied from the header of its block (the txids came with it): no longer pending, listed applied at that height.
    await client.waitFor(async () => Object.keys(await client.call('txu')).length === 0, 'the payment off the client txu', 10_000);
    expect((await client.call('txa'))[tx.id].applied).toBe(String(height));
    expect((await client.call('getTransaction', { id: tx.id })).applied).toBe(String(height));
    // Its /events stream: the headers it took, the payment sent, then applied at its block.
    const named = (event: string) => events.events.filter((e) => e.event === event);
    expect(named('headerImported').some((e) => e.data.num === height)).toBe(true);
    expect(named('txAdmitted').flatMap((e) => e.data.transactions.map((t: any) => t.id))).toContain(tx.id);
    expect(named('txApplied').find((e) => e.data.ids.includes(tx.id))?.data.height).toBe(height);
    events.close();
    // The web wallet's reads: activity from its own transactions, the total from a master's balances.
    const sent = (await client.call('activity')).find((a: any) => a.txid === tx.id);
    expect([sent.type, sent.status, sent.blockHeight, sent.toList[to]]).toEqual([101, 2, height, '12.50000000']);
    expect(await client.call('getTotalBalance')).toBe(await masters[0]!.call('getBalance', { address: byName('client-1').address }));
  });

  it('a transaction a master refuses comes back through the relay: the client drops it at once, with the reason', async () => {
    const client = running.get('client-1')!;
    // Its second payment names its key by address (stored by the first): under 1 kB, fee 0.005, and
    // the relay's output is raised to the 0.01 dust limit, or no master would take the payment.
    const raw: string = await client.call('createRawTransaction', { to: `${byName('client-2').address}_1`, sign: true });
    const decoded = await client.call('decodeRawTransaction', { transaction: raw });
    expect([decoded.fee, decoded.to[byName('relay-1').address]]).toEqual(['0.00500000', '0.01000000']);
    const signature: string = decoded.signature;
    // One changed signature byte: the transaction decodes, but no master takes it (REJECT, §4.3).
    const at = raw.indexOf(signature) + 20;
    const tampered = raw.slice(0, at) + (raw[at] === '0' ? '1' : '0') + raw.slice(at + 1);
    const sent = await client.call('sendRawTransaction', { transaction: tampered });
    await client.waitFor(async () => !(sent.id in (await client.call('txu'))), 'the refused transaction off txu', 15_000);
    const record = (await client.call('activity')).find((a: any) => a.txid === sent.id);
    expect(record.status).toBe(3);
    await client.waitFor(async () => /refused by a master: invalid/.test(client.output()), 'the reason in the client log', 5_000);
    // Such a payment, untampered, is taken and applied: its relay output is not dust. (The same
    // txid cannot travel again for a while: nodes remember the ids they processed, §4.)
    const good = await client.call('addTransaction', { to: `${byName('client-2').address}_1` });
    expect([good.fee, good.to[byName('relay-1').address]]).toEqual(['0.00500000', '0.01000000']);
    await running.get('master-1')!.waitApplied(good.id, { timeoutMs: 15_000, unknownIsPending: true });
  });

  it('relays and clients follow headers only: state questions go to masters, the rest is refused with the reason', async () => {
    const client = running.get('client-1')!;
    const relay = running.get('relay-1')!;
    const m1 = running.get('master-1')!;
    const h = Math.min(await client.height(), await relay.height());
    const full = await m1.call('getBlock', { num: h });
    for (const light of [client, relay]) {
      const header = await light.call('getBlock', { num: h });
      expect(header['Block Checksum']).toBe(full['Block Checksum']);
      expect(header['Transaction count']).toBe(full['Transaction count']);
      expect(header['TX IDs']).toBeUndefined();
      await expectRpcError(light, 'getFullBlock', { num: h }, -32601, /needs the chain state.*call it on a master/);
      await expectRpcError(light, 'getWallet', { id: byName('client-1').address }, -32601, /follow block headers only/);
    }
    // A transaction that is not the client's comes from a master (getTransaction3 through the relay).
    const block = await m1.call('getFullBlock', { num: h });
    const foreign = JSON.parse(block.Transactions)[0];
    if (foreign) expect((await client.call('getTransaction', { id: foreign.id })).id).toBe(foreign.id);
    // Balances of any address come from a master too.
    expect(await relay.call('getBalance', { address: byName('client-1').address })).toBe(await m1.call('getBalance', { address: byName('client-1').address }));
    // Name lookups too (getNameRecord): a name registered at a master, and one that does not exist.
    const reg = await m1.call('registerName', { name: 'light-node', registrationTime: 518_400, capacity: 10 });
    await m1.waitApplied(reg.id, { timeoutMs: 15_000 });
    const record = await client.waitFor(async () => {
      try {
        return await client.call('getRegName', { name: 'light-node' });
      } catch {
        return undefined;
      }
    }, 'the name at the client', 10_000);
    expect(record).toEqual(await m1.call('getRegName', { name: 'light-node' }));
    await expectRpcError(client, 'getRegName', { name: 'nobody-here' }, -32602, /does not exist/);
    // Its data records too: the answer carries them, not only the header's Merkle root.
    const update = await m1.call('updateNameRecord', { name: 'light-node', 'records[]': ['www,1,hello', 'mail,2,me'] });
    await m1.waitApplied(update.id, { timeoutMs: 15_000 });
    // Waited for, not read once: under load two masters may both make that height, and the block
    // taken back may be the one that held the update, applied again in a later block.
    const atMaster = await m1.waitFor(async () => {
      const records = await m1.call('getRegNameDataRecords', { name: 'light-node' });
      return records.length === 2 ? records : undefined;
    }, 'the records at the master', 15_000);
    expect(atMaster).toHaveLength(2);
    const atClient = await client.waitFor(async () => {
      const records = await client.call('getRegNameDataRecords', { name: 'light-node' }).catch(() => []);
      return records.length === 2 ? records : undefined;
    }, 'the records at the client', 10_000);
    expect(atClient).toEqual(atMaster);
  });

  it('a client whose relay dies the moment it links, before telling it of any master, finds a relay through its --seed master', async () => {
    // A relay that knows no master (none given) has none to tell its client of; killed, it left
    // the client with no link at all. With the masters as seeds (as devnet gives its clients), the
    // client dials one and links to a relay of its sector, here relay-1 (the only one left).
    const lonely = await startNode({ dataDir: byName('relay-2').dataDir, args: ['--genesis', genesisPath, '--role', 'relay', '--p2p-port', String(await freeFixedPort())] });
    running.set('relay-lonely', lonely);
    const lonelyPort = (await status(lonely))['My Listening Port'];
    const client = await startNode({ args: ['--genesis', genesisPath, '--role', 'client', '--peer', `127.0.0.1:${lonelyPort}`, '--seed', `127.0.0.1:${peerPorts.get('master-3')}`] });
    running.set('client-seeded', client);
    await client.waitFor(async () => (await status(client))['Network Servers'].includes(`127.0.0.1:${lonelyPort}`), 'the client linked to its relay', 10_000);
    expect(await lonely.kill('SIGKILL')).toBeNull();
    running.delete('relay-lonely');
    const relay1 = `127.0.0.1:${peerPorts.get('relay-1')}`;
    await client.waitFor(async () => (await status(client))['Network Servers'].includes(relay1), 'the client linked to relay-1 through its seed', 20_000);
    await client.stop();
    running.delete('client-seeded');
  }, 60_000);

  it('keeps producing when a master is killed; the master restarts, synchronizes and ends on the same chain', async () => {
    const m2 = running.get('master-2')!;
    const m1 = running.get('master-1')!;
    const before = await m1.height();
    expect(await m2.kill('SIGKILL')).toBeNull();
    running.delete('master-2');
    await m1.waitForHeight(before + 4, 30_000);
    const again = await start('master-2');
    await again.waitFor(async () => (await again.height()) >= (await m1.height()) - 1, 'master-2 to catch up', 30_000);
    const s = await status(again);
    expect(['Active', 'Synchronizing']).toContain(s['DLT Status']);
    await again.waitFor(async () => (await status(again))['DLT Status'] === 'Active', 'Active', 20_000);
    const h = Math.min(await again.height(), await m1.height());
    expect(await checksumAt(again, h)).toBe(await checksumAt(m1, h));
    expect(await checksumAt(again, before + 2)).toBe(await checksumAt(m1, before + 2));
  });

  it('a master with no --peer, killed and restarted far behind, dials the masters it knew (its peer book) and catches up', async () => {
    // master-1 is started without --peer: the others dial it. Once it is more than 15 blocks
    // behind they refuse it (tooFarBehind, §2.3), so only a link it dials itself can bring it back.
    const m1 = running.get('master-1')!;
    const m2 = running.get('master-2')!;
    const before = await m2.height();
    expect(await m1.kill('SIGKILL')).toBeNull();
    running.delete('master-1');
    await m2.waitForHeight(before + 20, 60_000);
    const again = await start('master-1');
    await again.waitFor(async () => (await again.height()) >= (await m2.height()) - 1, 'master-1 to catch up', 60_000);
    await again.waitFor(async () => (await status(again))['DLT Status'] === 'Active', 'Active', 20_000);
    const h = Math.min(await again.height(), await m2.height());
    expect(await checksumAt(again, h)).toBe(await checksumAt(m2, h));
    expect(again.output()).toMatch(/synchronizing/);
  }, 150_000);

  it('a node started later synchronizes the chain from the genesis', async () => {
    const m1 = running.get('master-1')!;
    const target = await m1.height();
    expect(target).toBeGreaterThan(10);
    const late = await start('client-2');
    await late.waitForHeight(target, 30_000);
    expect(late.output()).toMatch(/synchroniz/);
    expect(await checksumAt(late, target)).toBe(await checksumAt(m1, target));
    // The payment it received while away came with the headers of its block.
    expect(payment).toBeTruthy();
    expect(Object.keys(await late.call('txa'))).toContain(payment);
    const received = (await late.call('activity', { type: 100 })).find((a: any) => a.txid === payment);
    expect([received.status, received.value, received.from]).toEqual([2, '12.50000000', byName('client-1').address]);
  });

  it('refuses a node of another genesis, with the reason logged on both sides', async () => {
    const other = readGenesisFile(genesisPath);
    const otherPath = join(dir, 'other-genesis.json');
    writeGenesisFile(otherPath, { ...other, timestamp: other.timestamp + 1n });
    const m1 = running.get('master-1')!;
    const m1From = m1.output().length;
    const stranger = await startNode({ args: ['--genesis', otherPath, '--role', 'client', '--peer', `127.0.0.1:${peerPorts.get('master-1')}`] });
    try {
      // The dialler warns with the close code and reason, and stops dialling; the master logs it too.
      const refusal = await stranger.waitFor(async () => refusalLine(stranger.output(), 4801, /^Wrong genesis/, WARN), 'the refusal in the stranger log', 15_000);
      expect(refusal.direction).toBe('outbound');
      await stranger.waitFor(async () => logLines(stranger.output()).some((l) => l.level === WARN && l.code === 4801 && /not dialling this peer again/.test(l.msg)), 'the give-up line', 15_000);
      const seen = await m1.waitFor(async () => refusalLine(m1.output().slice(m1From), 4801, /^Wrong genesis/), 'the refusal in master-1 log', 15_000);
      expect(seen.direction).toBe('inbound');
      expect((await status(stranger))['Network Servers']).toEqual([]);
    } finally {
      await stranger.stop();
    }
  });

  it('refuses a node of another network (checksum lock), with code 4502 logged on both sides', async () => {
    const m1 = running.get('master-1')!;
    const m1From = m1.output().length;
    const stranger = await startNode({ args: ['--network', 'test', '--role', 'client', '--peer', `127.0.0.1:${peerPorts.get('master-1')}`] });
    try {
      const refusal = await stranger.waitFor(async () => refusalLine(stranger.output(), 4502, /^Wrong network/, WARN), 'the refusal in the stranger log', 15_000);
      expect(refusal.direction).toBe('outbound');
      await m1.waitFor(async () => refusalLine(m1.output().slice(m1From), 4502, /^Wrong network/), 'the refusal in master-1 log', 15_000);
      expect((await status(stranger))['Network Servers']).toEqual([]);
    } finally {
      await stranger.stop();
    }
  });

  it('shows --public-host as My External IP, with no link needed to learn it', async () => {
    const lone = await startNode({ args: ['--p2p-port', '0', '--public-host', '10.1.2.3'] });
    try {
      const s = await status(lone);
      expect([s['My External IP'], s['My Listening Port'] > 0]).toEqual(['10.1.2.3', true]);
    } finally {
      await lone.stop();
    }
  });

  it('disconnects a peer that sends garbage; the others are unaffected', async () => {
    const m1 = running.get('master-1')!;
    const ws = new WebSocket(`ws://127.0.0.1:${peerPorts.get('master-1')}/p2p`);
    await new Promise((r, f) => ws.once('open', r).once('error', f));
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    for (let i = 0; i < 5 && ws.readyState === WebSocket.OPEN; i++) ws.send(Buffer.from([0xff, 1, 2, 3, i]));
    const code = await closed;
    expect(code).toBeGreaterThanOrEqual(4000);
    // A text frame is refused with a reason that says so.
    const text = new WebSocket(`ws://127.0.0.1:${peerPorts.get('master-1')}/p2p`);
    await new Promise((r, f) => text.once('open', r).once('error', f));
    const textClosed = new Promise<[number, string]>((r) => text.once('close', (c, why) => r([c, why.toString()])));
    text.send('hello');
    expect(await textClosed).toEqual([4811, 'Malformed frame: an empty or text frame (peer frames are binary)']);
    const before = await m1.height();
    await m1.waitForHeight(before + 2, 15_000);
    // The relay lost master-2 when it was killed above and redials it with backoff.
    const relay = running.get('relay-1')!;
    await relay.waitFor(async () => (await status(relay))['Network Servers'].length === 3, 'the relay linked to the three masters', 45_000);
  });
});

