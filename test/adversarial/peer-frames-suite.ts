/**
 * Peer-side attacks (issue 13 §4 d), against a real master of a genesis network with a relay
 * linked to it: connections that send garbage frames, oversized frames, data before the hello, a
 * replayed hello, and peers that ask for blocks and never read. Each bad connection must be closed
 * by the master (a close code, never a crash); the master keeps producing, its link to the relay
 * stays up, and its memory stays bounded.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import WebSocket from 'ws';
import { prepareDevnet } from '../../src/cli/devnet.js';
import { primaryAddressFromPublicKey } from '../../src/formats/address.js';
import { generateWalletKey, signBytes } from '../../src/formats/rsa.js';
import { attachWsLink, PEER_WS_PATH } from '../../src/network/dial.js';
import { PeerNetwork } from '../../src/network/peer-network.js';
import { MessageCode } from '../../src/network/protocol/codes.js';
import { encodeMessage } from '../../src/network/protocol/messages.js';
import { freeFixedPort, startNode, type NodeProcess } from '../e2e/harness.js';
import { prng } from './lib.js';

export interface PeerAttackCounts {
  garbage: number;
  oversized: number;
  beforeHello: number;
  replays: number;
  nonReaders: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


/** Opens a raw WebSocket to the peer route; resolves with the close code the master gave (or 0 on timeout). */
function rawPeer(port: number, act: (ws: WebSocket) => void, timeoutMs = 20_000): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${PEER_WS_PATH}`, { maxPayload: 64 * 1024 * 1024 });
    const timer = setTimeout(() => {
      ws.terminate();
      resolve(0);
    }, timeoutMs);
    ws.on('open', () => act(ws));
    ws.on('error', () => undefined);
    ws.on('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

const rssMb = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

export async function runPeerAttacks(counts: PeerAttackCounts, seed = 7): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'dltnode-peer-attacks-'));
  const nodes: NodeProcess[] = [];
  try {
    const { nodes: plan, genesisPath } = await prepareDevnet({ masters: 1, relays: 1, clients: 0, blockInterval: 0.3, dir, json: true, basePort: null });
    const port = await freeFixedPort();
    const master = await startNode({ dataDir: plan[0]!.dataDir, args: ['--genesis', genesisPath, '--p2p-port', String(port)] });
    nodes.push(master);
    const relay = await startNode({ dataDir: plan[1]!.dataDir, args: ['--genesis', genesisPath, '--role', 'relay', '--peer', `127.0.0.1:${port}`] });
    nodes.push(relay);
    await relay.waitFor(async () => (await relay.call('status'))['Network Servers'].length === 1, 'the relay linked', 20_000);
    await master.waitForHeight(3, 20_000);
    const rand = prng(seed);
    const closes: number[] = [];

    // (a) Garbage frames: random bytes, unknown codes, truncated payloads.
    for (let i = 0; i < counts.garbage; i++) {
      closes.push(await rawPeer(port, (ws) => {
        const n = 1 + Math.floor(rand() * 64);
        ws.send(Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256))));
      }));
    }
    // (b) Oversized: one frame past the largest the protocol allows.
    for (let i = 0; i < counts.oversized; i++) closes.push(await rawPeer(port, (ws) => ws.send(Buffer.alloc(33 * 1024 * 1024, 0x3b))));
    // (c) Out of order: well-formed data frames before any hello.
    for (let i = 0; i < counts.beforeHello; i++) {
      closes.push(await rawPeer(port, (ws) => ws.send(encodeMessage({ code: MessageCode.getBlocks, from: 1n, count: 100, txMode: 1 }))));
    }
    // (d) A replayed hello: a genuine hello, recorded from a real link, sent again on a new connection.
    // Attackers have identities of their own (the relay's is taken: one link per identity).
    const attackerNetwork = async (): Promise<PeerNetwork> => {
      const k = await generateWalletKey();
      const address = primaryAddressFromPublicKey(k.publicKey);
      return new PeerNetwork({
        local: {
          network: 'reg', genesisChecksum: new Uint8Array(genesis), nodeType: 'R', address, publicKey: k.publicKey,
          productVersion: 'attacker', endpoint: '', sign: (d) => signBytes(k.privateKeyObject, d),
          tip: () => ({ height: 1n, checksum: new Uint8Array(genesis) }), networkHeight: () => 1n, acceptingPeers: () => true,
        },
      });
    };
    const genesis = Buffer.from((await master.call('getBlock', { num: 1 }))['Block Checksum'], 'hex');
    const recorded: Uint8Array[] = [];
    const peers = await attackerNetwork();
    await new Promise<void>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}${PEER_WS_PATH}`);
      const link = attachWsLink(ws, (socket) => peers.attachOutbound({ ...socket, send: (b) => (recorded.push(Uint8Array.from(b)), socket.send(b)) }, `127.0.0.1:${port}`));
      const check = setInterval(() => {
        if (link.isOpen || link.state === 'closed') {
          clearInterval(check);
          link.close('requested');
          resolve();
        }
      }, 20);
    });
    expect(recorded.length).toBeGreaterThan(0);
    for (let i = 0; i < counts.replays; i++) closes.push(await rawPeer(port, (ws) => ws.once('message', () => ws.send(recorded[0]!))));

    // (e) Peers that ask for the whole chain again and again and never read.
    const nonReaders: WebSocket[] = [];
    for (let i = 0; i < counts.nonReaders; i++) {
      const own = await attackerNetwork();
      // Attached at once: the master's challenge may come in the same read as the upgrade.
      const ws = new WebSocket(`ws://127.0.0.1:${port}${PEER_WS_PATH}`);
      const link = attachWsLink(ws, (socket) => own.attachOutbound(socket, `127.0.0.1:${port}`));
      for (let t = 0; t < 200 && !link.isOpen && link.state !== 'closed'; t++) await sleep(25);
      if (!link.isOpen) throw new Error(`the non-reading peer could not link: ${JSON.stringify(link.closeInfo)}`);
      for (let r = 0; r < 50; r++) link.send({ code: MessageCode.getBlocks, from: 1n, count: 500, txMode: 1 });
      (ws as unknown as { _socket: { pause(): void } })._socket.pause();
      nonReaders.push(ws);
    }
    // (f) A linked peer that sends invalid transactions, then an invalid block: scored, cut and
    // banned (its wallet is refused when it comes back), while the relay's link stays.
    const cheat = await attackerNetwork();
    const linkOf = async (net: PeerNetwork): Promise<{ link: ReturnType<PeerNetwork['attachOutbound']>; closed: Promise<number> }> => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}${PEER_WS_PATH}`);
      const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
      const link = attachWsLink(ws, (socket) => net.attachOutbound(socket, `127.0.0.1:${port}`));
      for (let t = 0; t < 200 && !link.isOpen && link.state !== 'closed'; t++) await sleep(25);
      return { link, closed };
    };
    const first = await linkOf(cheat);
    expect(first.link.isOpen).toBe(true);
    for (let i = 0; i < 12 && first.link.isOpen; i++) {
      first.link.send({ code: MessageCode.transactionsChunk3, tag: 0n, transactions: [Uint8Array.from({ length: 200 }, () => Math.floor(rand() * 256))] });
      await sleep(50);
    }
    first.link.send({ code: MessageCode.blocks, from: BigInt(await master.height()) + 1n, tip: 10_000n, blocks: [{ block: Uint8Array.from([13, 1, 2, 3]), transactions: [] }] });
    expect(await first.closed).toBeGreaterThanOrEqual(4000);
    const again = await linkOf(cheat);
    expect(again.link.isOpen).toBe(false);
    expect(await again.closed).toBe(4805); // banned
    closes.push(4805);

    const rssBefore = rssMb(master.child.pid!);
    await sleep(3_000);

    // Every bad connection was closed by the master, with a WebSocket close code.
    const unanswered = closes.filter((c) => c === 0).length;
    expect(unanswered, `connections the master never closed (of ${closes.length})`).toBe(0);
    expect(closes.every((c) => c >= 1000)).toBe(true);
    // The master is alive, producing, and still linked to the relay, which still follows.
    const h = await master.height();
    await master.waitForHeight(h + 3, 30_000);
    expect((await relay.call('status'))['Network Servers']).toHaveLength(1);
    await relay.waitForHeight(h + 2, 30_000);
    expect(master.child.exitCode).toBeNull();
    const rssAfter = rssMb(master.child.pid!);
    console.log(`peer attacks: ${closes.length} bad connections closed (codes ${[...new Set(closes)].sort().join(', ')}), ${nonReaders.length} non-readers; master RSS ${rssBefore.toFixed(0)} → ${rssAfter.toFixed(0)} MB`);
    expect(rssAfter).toBeLessThan(rssBefore + 256);
    for (const ws of nonReaders) ws.terminate();
    peers.stop();
  } finally {
    for (const n of nodes) await n.stop(true);
    rmSync(dir, { recursive: true, force: true });
  }
}
