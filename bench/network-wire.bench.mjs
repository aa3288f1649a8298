// Peer wire: framing and payload codecs of transaction batches, and transactions per second
// through two peer links over a real loopback WebSocket (ws server ↔ ws dialler, signed hello,
// bounded send queue). This is the transport floor under `npm run bench -- network`; the node
// benchmarks (ingest, propagation, sync) add validation and block import on top.
import { WebSocketServer } from 'ws';
import {
  attachWsLink, decodeFrame, decodePayload, encodeMessage, Dialer, Link, MessageCode, PeerRegistry,
  PeerScores, systemClock, targetKey, DEFAULT_PEER_LIMITS,
} from '../dist/network/index.js';
import { generateWalletKey, signBytes } from '../dist/formats/rsa.js';
import { primaryAddressFromPublicKey } from '../dist/formats/address.js';
import { printTable, runTasks, pseudoRandomBytes } from './lib.mjs';

const TX_BYTES = 1123; // the docs transfer of reference-formats §15.3: RSA-4096 key and signature
const BATCH = 1000;
const txs = Array.from({ length: BATCH }, (_, i) => pseudoRandomBytes(TX_BYTES, i + 1));
const frame = encodeMessage({ code: MessageCode.transactionsChunk3, tag: 0n, transactions: txs });

const rows = await runTasks([
  { name: `encode batch of ${BATCH} tx frame`, fn: () => encodeMessage({ code: MessageCode.transactionsChunk3, tag: 0n, transactions: txs }), opsPerCall: BATCH, bytes: TX_BYTES },
  { name: `decode batch of ${BATCH} tx frame`, fn: () => { const f = decodeFrame(frame); decodePayload(f.code, f.payload); }, opsPerCall: BATCH, bytes: TX_BYTES },
]);
printTable('transaction batch codec (per transaction)', rows, rows[0].name);

// Two links over loopback.
async function node(type) {
  const key = await generateWalletKey();
  const address = primaryAddressFromPublicKey(key.publicKey);
  const received = { count: 0 };
  const local = {
    network: 'reg', genesisChecksum: new Uint8Array(64), nodeType: type, address, publicKey: key.publicKey,
    productVersion: 'bench', endpoint: '', sign: (d) => signBytes(key.privateKeyObject, d),
    tip: () => ({ height: 1n, checksum: new Uint8Array(64) }), networkHeight: () => 1n, acceptingPeers: () => true,
  };
  const ctx = {
    local, clock: systemClock, registry: new PeerRegistry(address, DEFAULT_PEER_LIMITS.M), scores: new PeerScores({ clock: systemClock }),
    handler: { onOpen() {}, onClose() {}, onMessage(_l, m) { if (m.code === MessageCode.transactionsChunk3) received.count += m.transactions.length; } },
  };
  return { ctx, received };
}
const [a, b] = await Promise.all([node('M'), node('M')]);
const server = new WebSocketServer({ host: '127.0.0.1', port: 0, path: '/p2p', perMessageDeflate: false, maxPayload: 32 << 20 });
await new Promise((r) => server.once('listening', r));
server.on('connection', (ws, req) => {
  const link = attachWsLink(ws, (socket) => new Link(b.ctx, socket, { direction: 'inbound', remote: `${req.socket.remoteAddress}:${req.socket.remotePort}` }));
  link.start();
});
let out;
const dialer = new Dialer({ clock: systemClock, createLink: (socket, t) => (out = new Link(a.ctx, socket, { direction: 'outbound', remote: targetKey(t) })) });
dialer.add({ host: '127.0.0.1', port: server.address().port });
dialer.start();
while (!out?.isOpen) await new Promise((r) => setTimeout(r, 5));

const FRAMES = 200;
const t0 = process.hrtime.bigint();
for (let i = 0; i < FRAMES; i++) {
  // Respect backpressure as a bulk producer must: keep at most ~8 MB in flight.
  while (out.pendingBytes > 8e6) await new Promise((r) => setImmediate(r));
  if (!out.sendFrame(frame)) throw new Error(`link closed: ${out.closeInfo?.text}`);
}
while (b.received.count < FRAMES * BATCH) await new Promise((r) => setImmediate(r));
const s = Number(process.hrtime.bigint() - t0) / 1e9;
console.log(`\nloopback link (ws → ws, one process): ${FRAMES} frames × ${BATCH} tx of ${TX_BYTES} B in ${s.toFixed(2)} s = ` +
  `${Math.round((FRAMES * BATCH) / s).toLocaleString('en-US')} tx/s, ${((FRAMES * frame.length) / s / 1e6).toFixed(0)} MB/s (both ends on one event loop)`);
dialer.stop();
server.close();
