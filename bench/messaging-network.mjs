// Contact messaging end to end (issue 11), real node processes on loopback: a master, one relay
// and two clients on that relay (a devnet genesis in a temporary directory).
//   - handshake: addContact at client-1 → the request at client-2 → acceptContact → both approved;
//   - chat: messages per second from client-1 to client-2 (sendChatMessage at client-1 until every
//     chatMessage event at client-2's /events), and p50/p99 latency at a moderate rate;
//   - relay: s2data frames forwarded per second by the relay process, fed by two in-process peer
//     clients (this process's PeerNetwork links, the same code the nodes run) that flood each other.
// Called from messaging.bench.mjs; `node bench/messaging-network.mjs` runs it alone.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { prepareDevnet, devnetNodeArgs } from '../dist/cli/devnet.js';
import { generateWalletKey, signBytes } from '../dist/formats/rsa.js';
import { Address } from '../dist/formats/address.js';
import { PeerNetwork } from '../dist/network/peer-network.js';
import { MessageCode } from '../dist/network/protocol/codes.js';
import { encodeMessage } from '../dist/network/protocol/messages.js';

const here = dirname(fileURLToPath(import.meta.url));
const CLI = join(here, '../dist/cli/main.js');
const arg = (name, fallback) => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? Number(a.slice(name.length + 3)) : fallback;
};
const CHAT_COUNT = arg('chat-count', 400);
const RATE = arg('chat-rate', 20);
const RATE_SECONDS = arg('chat-seconds', 5);
const RELAY_SECONDS = arg('relay-seconds', 3);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function rpc(url, method, params = {}) {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ method, params, id: 1 }) });
  const j = await r.json();
  if (j.error) throw new Error(`${method}: ${j.error.message}`);
  return j.result;
}

async function until(fn, what, timeoutMs = 60_000, everyMs = 20) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await sleep(everyMs);
  }
}

export async function runMessagingNetworkBench() {
  const dir = mkdtempSync(join(tmpdir(), 'dltnode-bench-msg-'));
  const children = [];
  try {
    const { nodes, genesisPath } = await prepareDevnet({ masters: 1, relays: 1, clients: 2, blockInterval: 1, dir, json: true, basePort: null });
    for (const n of nodes) {
      const child = spawn(process.execPath, [CLI, ...devnetNodeArgs(n, nodes, genesisPath)], { stdio: 'ignore' });
      children.push(child);
      await until(() => rpc(n.rpcUrl, 'status'), `${n.name} to start`);
    }
    const [, relay, c1, c2] = nodes;
    // Both clients linked to the relay, and each one's presence there.
    await until(async () => (await rpc(relay.rpcUrl, 'pl')).filter((p) => p.addresses.some((a) => a.type === 'C')).length === 2, 'the clients at the relay');

    // ——— handshake ———
    const t0 = performance.now();
    await rpc(c1.rpcUrl, 'addContact', { address: c2.address });
    await until(async () => (await rpc(c2.rpcUrl, 'contacts')).length === 1, 'the request', 60_000, 5);
    await rpc(c2.rpcUrl, 'acceptContact', { address: c1.address });
    await until(async () => (await rpc(c1.rpcUrl, 'contacts'))[0].approved && (await rpc(c2.rpcUrl, 'contacts'))[0].approved, 'both approved', 60_000, 5);
    const handshakeMs = performance.now() - t0;
    console.log(`\nhandshake on loopback (request → both approved, through one relay, RSA-4096 + secp521r1 + ML-KEM-1024): ${handshakeMs.toFixed(0)} ms`);

    // ——— chat ———
    const ws = new WebSocket(`${c2.rpcUrl.replace('http', 'ws')}/events?topics=chat`);
    const arrived = new Map();
    await new Promise((ok, fail) => {
      ws.once('error', fail);
      ws.on('message', (d) => {
        const m = JSON.parse(String(d));
        if (m.op === 'subscribed') ok();
        else if (m.event === 'chatMessage') arrived.set(m.data.message.data.data, performance.now());
      });
    });
    const sentAt = new Map();
    const t1 = performance.now();
    let next = 0;
    const CONCURRENCY = 8;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < CHAT_COUNT) {
          const text = `flood ${next++}`;
          sentAt.set(text, performance.now());
          await rpc(c1.rpcUrl, 'sendChatMessage', { address: c2.address, message: text, channel: 0 });
        }
      }),
    );
    await until(async () => arrived.size >= CHAT_COUNT, 'every chat message', 120_000, 5);
    const floodS = (Math.max(...arrived.values()) - t1) / 1000;
    console.log(`chat client-1 → relay → client-2, ${CHAT_COUNT} messages, ${CONCURRENCY} concurrent RPC senders: ${(CHAT_COUNT / floodS).toFixed(0)} messages/s end to end`);

    arrived.clear();
    sentAt.clear();
    const total = RATE * RATE_SECONDS;
    const start = performance.now();
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const text = `paced ${i}`;
      sentAt.set(text, performance.now());
      void rpc(c1.rpcUrl, 'sendChatMessage', { address: c2.address, message: text, channel: 0 });
    }
    await until(async () => arrived.size >= total, 'the paced messages', 60_000, 5);
    const lat = [...sentAt].map(([t, s]) => arrived.get(t) - s).sort((a, b) => a - b);
    console.log(`chat latency at ${RATE} messages/s for ${RATE_SECONDS} s (RPC call → chatMessage event at the recipient): p50 ${pct(lat, 50).toFixed(1)} ms, p99 ${pct(lat, 99).toFixed(1)} ms`);
    ws.close();

    // ——— relay forwarding ———
    const genesisChecksum = Buffer.from((await rpc(relay.rpcUrl, 'getBlock', { num: 1 }))['Block Checksum'], 'hex');
    const relayPort = relay.peerPort;
    const feeders = [];
    for (let i = 0; i < 2; i++) {
      const key = await generateWalletKey({ bits: 1024 });
      const address = Address.fromPublicKey(key.publicKey).addressNoChecksum;
      const f = { address, received: 0, net: null };
      f.net = new PeerNetwork({
        local: {
          network: 'reg',
          genesisChecksum,
          nodeType: 'C',
          address,
          publicKey: key.publicKey,
          productVersion: 'bench-feeder',
          endpoint: '',
          sign: (d) => signBytes(key.privateKeyObject, d),
          tip: () => ({ height: 1n, checksum: genesisChecksum }),
          networkHeight: () => 1n,
          acceptingPeers: () => false,
        },
        peers: [{ host: '127.0.0.1', port: relayPort }],
        linkOptions: { maxSendQueueBytes: 64 * 1024 * 1024 },
        onMessage: (_l, m) => {
          if (m.code === MessageCode.s2data) f.received++;
        },
      });
      f.net.start();
      feeders.push(f);
    }
    await until(async () => feeders.every((f) => f.net.links(['R']).length === 1), 'the feeders linked to the relay', 30_000);
    // A 300-byte stream message (a short chat after both encryption layers), as the frame bytes.
    const body = new Uint8Array(300).fill(7);
    const frames = feeders.map((f, i) => encodeMessage({ code: MessageCode.s2data, recipient: feeders[1 - i].address, message: body }));
    let sent = 0;
    const end = performance.now() + RELAY_SECONDS * 1000;
    const tr = performance.now();
    while (performance.now() < end) {
      for (let i = 0; i < 2; i++) {
        const link = feeders[i].net.links(['R'])[0];
        // Keep a bounded amount in flight: what the relay sends back is the measure.
        if (sent - (feeders[0].received + feeders[1].received) > 20_000) continue;
        for (let k = 0; k < 200; k++) if (link.sendFrame(frames[i])) sent++;
      }
      await new Promise((r) => setImmediate(r));
    }
    const forwardedIn = feeders[0].received + feeders[1].received;
    const seconds = (performance.now() - tr) / 1000;
    await sleep(500);
    const forwarded = feeders[0].received + feeders[1].received;
    console.log(`relay forwarding: ${sent} s2data frames sent by two peer clients in ${seconds.toFixed(1)} s, ${forwardedIn} forwarded back within the window → ${(forwardedIn / seconds).toFixed(0)} frames/s (${forwarded} after a 0.5 s drain; target ≥ 20,000/s)`);
    for (const f of feeders) f.net.stop();
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)));
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runMessagingNetworkBench();
