/**
 * A partition of a 3-master network in Linux network namespaces (issue 9 Tests, slow suite, root
 * only). Two namespaces hold the two halves: masters 1 and 2 in one, master 3 in the other,
 * joined by a veth pair; each master binds its peer listener to its namespace's address on that
 * link. The test process reaches each node's RPC through a second veth per namespace (its own
 * small subnet, no forwarding: the halves can only reach each other over their link).
 *
 *   root ns ── veth ── ns A (masters 1, 2: peers on 198.18.K.1) ══ veth ══ ns B (master 3: 198.18.K.3) ── veth ── root ns
 *
 * Cutting the link (`ip link set … down` in B) is a real network partition: packets are lost, the
 * nodes learn of it only by their own timeouts. With consensus among masters the lone master
 * cannot gather the required signatures and stops; the two others go on. The link comes back, the
 * lone master redials, synchronizes, and all three end on one chain, byte for byte.
 *
 * Addresses come from 198.18.0.0/15 (RFC 2544, benchmarking: never a real network's). Everything
 * made here (namespaces, veths, node processes) is removed in afterAll, failed or not; deleting a
 * namespace deletes its veths and their root ends. Without root, or where `ip netns add` fails,
 * the suite is skipped with the reason in its name.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { prepareDevnet } from '../../src/cli/devnet.js';
import { startNode, type NodeProcess } from './harness.js';

const IP = '/usr/sbin/ip';
const run = (...args: string[]): string => execFileSync(IP, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Null when namespaces can be made here; else why not. */
function netnsUnavailable(): string | null {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  const probe = `dltprobe${process.pid}`;
  try {
    run('netns', 'add', probe);
  } catch (err) {
    return `\`ip netns add\` failed: ${String((err as { stderr?: string }).stderr ?? (err as Error).message).trim()}`;
  }
  try {
    run('netns', 'del', probe);
  } catch {
    /* best effort */
  }
  return null;
}

const UNAVAILABLE = netnsUnavailable();

// Names and subnets of this run (interface names ≤ 15 characters).
const K = (process.pid % 250) + 1;
const NS_A = `dltnsa${process.pid}`;
const NS_B = `dltnsb${process.pid}`;
const LINK = { a: `dab${process.pid}`, b: `dba${process.pid}` };
const RPC_LINK = { rootA: `dra${process.pid}`, a: 'rpc0', rootB: `drb${process.pid}`, b: 'rpc0' };
const PEER_A = `198.18.${K}.1`;
const PEER_B = `198.18.${K}.3`;
const RPC = { rootA: `198.19.${K}.1`, a: `198.19.${K}.2`, rootB: `198.19.${K}.5`, b: `198.19.${K}.6` };
const PORTS = [7001, 7002, 7003];

let dir = '';
const nodes: NodeProcess[] = [];
let made = false;

/** Runs `ip` and ignores its failure (cleanup of what may not exist). */
function tryRun(...args: string[]): void {
  try {
    run(...args);
  } catch {
    /* not there */
  }
}

/**
 * Deletes the root ends of the RPC veths (which deletes their pairs) and the namespaces. A
 * namespace outlives its name while a closing connection in it still retransmits; deleting the
 * root ends first leaves nothing of this run in the root namespace meanwhile.
 */
function removeNamespaces(): void {
  tryRun('link', 'del', RPC_LINK.rootA);
  tryRun('link', 'del', RPC_LINK.rootB);
  tryRun('netns', 'del', NS_A);
  tryRun('netns', 'del', NS_B);
}

function makeNamespaces(): void {
  removeNamespaces(); // a crashed run of the same pid
  made = true;
  run('netns', 'add', NS_A);
  run('netns', 'add', NS_B);
  for (const ns of [NS_A, NS_B]) run('-n', ns, 'link', 'set', 'lo', 'up');
  // The link between the halves.
  run('link', 'add', LINK.a, 'netns', NS_A, 'type', 'veth', 'peer', 'name', LINK.b, 'netns', NS_B);
  run('-n', NS_A, 'addr', 'add', `${PEER_A}/24`, 'dev', LINK.a);
  run('-n', NS_B, 'addr', 'add', `${PEER_B}/24`, 'dev', LINK.b);
  run('-n', NS_A, 'link', 'set', LINK.a, 'up');
  run('-n', NS_B, 'link', 'set', LINK.b, 'up');
  // The test's way to each half's RPC: one /30 per namespace.
  for (const [root, ns, inner, rootIp, innerIp, prefix] of [
    [RPC_LINK.rootA, NS_A, RPC_LINK.a, RPC.rootA, RPC.a, 30],
    [RPC_LINK.rootB, NS_B, RPC_LINK.b, RPC.rootB, RPC.b, 30],
  ] as const) {
    run('link', 'add', root, 'type', 'veth', 'peer', 'name', inner, 'netns', ns);
    run('addr', 'add', `${rootIp}/${prefix}`, 'dev', root);
    run('link', 'set', root, 'up');
    run('-n', ns, 'addr', 'add', `${innerIp}/${prefix}`, 'dev', inner);
    run('-n', ns, 'link', 'set', inner, 'up');
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const checksumAt = async (n: NodeProcess, num: number): Promise<string> => (await n.call('getBlock', { num }))['Block Checksum'];

describe.skipIf(UNAVAILABLE !== null)(`a partition in network namespaces${UNAVAILABLE ? ` (skipped: ${UNAVAILABLE})` : ''}`, () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'dltnode-netns-'));
    makeNamespaces();
  });

  afterAll(async () => {
    // The link up again first, so the nodes' connections close cleanly rather than linger.
    if (made) tryRun('-n', NS_B, 'link', 'set', LINK.b, 'up');
    for (const n of nodes) await Promise.race([n.stop(true), new Promise((r) => setTimeout(r, 20_000))]);
    for (const n of nodes) if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
    if (made) removeNamespaces();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 90_000);

  // A failed run leaves the nodes' logs for the reader.
  afterEach((ctx) => {
    if (ctx.task.result?.state !== 'fail') return;
    const logs = mkdtempSync(join(tmpdir(), 'dltnode-netns-logs-'));
    nodes.forEach((n, i) => writeFileSync(join(logs, `master-${i + 1}.log`), n.output()));
    console.error(`node logs of the failed test: ${logs}`);
  });

  it('the lone master stops, the two others go on, and once the link is back all end on one chain', async () => {
    const { nodes: plan, genesisPath } = await prepareDevnet({ masters: 3, relays: 0, clients: 0, blockInterval: 0.5, dir, json: true, basePort: null });
    const half = [
      { ns: NS_A, peerHost: PEER_A, rpcHost: RPC.a },
      { ns: NS_A, peerHost: PEER_A, rpcHost: RPC.a },
      { ns: NS_B, peerHost: PEER_B, rpcHost: RPC.b },
    ];
    const endpoint = (i: number) => `${half[i]!.peerHost}:${PORTS[i]}`;
    for (let i = 0; i < 3; i++) {
      const h = half[i]!;
      const peers = [0, 1, 2].slice(0, i).flatMap((j) => ['--peer', endpoint(j)]);
      nodes.push(
        await startNode({
          dataDir: plan[i]!.dataDir,
          wrapper: [IP, 'netns', 'exec', h.ns],
          args: ['--genesis', genesisPath, '--p2p-host', h.peerHost, '--p2p-port', String(PORTS[i]), '--rpc-host', h.rpcHost, '--rpc-public', ...peers],
        }),
      );
    }
    const [m1, m2, m3] = nodes as [NodeProcess, NodeProcess, NodeProcess];
    // Master 3 is linked across the link, and all three produce together. One link is enough for
    // the signatures to flow (a master refuses links while it synchronizes: master 2 may be late).
    await m3.waitFor(async () => (await m3.call('status'))['Network Servers'].length >= 1, 'master-3 linked across the link', 60_000);
    await m3.waitForHeight(6, 60_000);

    // Cut the link: master 3 is alone once its links time out (no close reaches either side).
    run('-n', NS_B, 'link', 'set', LINK.b, 'down');
    await m3.waitFor(async () => {
      const s = await m3.call('status');
      return s['Network Servers'].length === 0 && s['Network Clients'].length === 0;
    }, 'master-3 to drop its links', 90_000);
    await sleep(1_000); // a block already on its way settles
    const cut = await m3.height();
    const majority = await m1.height();
    await sleep(5_000);
    expect(await m3.height()).toBe(cut); // the minority cannot reach the required consensus
    await m1.waitForHeight(majority + 4, 60_000); // the majority goes on
    expect(await checksumAt(m2, majority + 4)).toBe(await checksumAt(m1, majority + 4));

    // Heal the link; master 3 redials now (instead of at its backoff) and catches up.
    run('-n', NS_B, 'link', 'set', LINK.b, 'up');
    await m3.call('reconnect');
    await m3.waitFor(async () => (await m3.call('status'))['Network Servers'].length >= 1, 'master-3 linked again', 90_000);
    await m3.waitFor(async () => (await m3.height()) >= (await m1.height()) - 1, 'master-3 to catch up', 90_000);
    await m3.waitForHeight((await m1.height()) + 2, 60_000);

    const h = Math.min(...(await Promise.all(nodes.map((n) => n.height()))));
    for (const at of [cut, h]) {
      const sums = await Promise.all(nodes.map((n) => checksumAt(n, at)));
      expect(new Set(sums).size, `block ${at}: ${sums.join(' ')}`).toBe(1);
    }
  });
});
