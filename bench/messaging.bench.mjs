// The crypto of one contact message (reference-rpc-messaging.md §3.6), ours against the same
// primitives called straight from node:crypto, in one process:
//   - chat (spixi2): seal = per-message keys (SHA3-512² twice) + AES-256-GCM + ChaCha20-Poly1305 +
//     stream-message framing; open = parse + the reverse;
//   - signed rsa2 (handshake-style): encrypt + RSA-4096 PKCS#1 v1.5 SHA-512 signature over the
//     SHA3-512 checksum; verify + decrypt;
//   - and the @noble/ciphers variant of spixi2, for scale.
// Then the end-to-end part (bench/messaging-network.mjs): handshake time, chat messages per second
// and latency, relay forwarding, with real node processes; `--no-network` skips it.
// Usage: node bench/messaging.bench.mjs [--time=ms] [--rounds=n] [--no-network]   (after `npm run build`)
import { createCipheriv, createDecipheriv, createHash, generateKeyPairSync, privateDecrypt, publicEncrypt, randomBytes, sign, verify, constants } from 'node:crypto';
import { Address } from '../dist/formats/address.js';
import { publicKeyToBytes } from '../dist/formats/rsa.js';
import { acceptContact, createContactRequest, receiveFrame, sealMessage } from '../dist/messaging/handshake.js';
import { decodeStreamMessage, encodeStreamMessage, streamMessageAad, signStreamMessage, verifyStreamMessage } from '../dist/messaging/stream-message.js';
import { noble, rsa2Decrypt, rsa2Encrypt, spixi2Decrypt } from '../dist/messaging/crypto.js';
import { printTable, pseudoRandomBytes, runTasks, versionOf } from './lib.mjs';

const arg = (name, fallback) => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? Number(a.slice(name.length + 3)) : fallback;
};
const TIME = arg('time', 300);
// Shared machine: each task runs ROUNDS times interleaved with the others; the best round is kept.
const ROUNDS = arg('rounds', 3);
const CHAT_BYTES = 256;

async function bestOf(tasks) {
  const best = new Map();
  for (let r = 0; r < ROUNDS; r++) {
    for (const row of await runTasks(tasks, { time: TIME, warmupTime: r === 0 ? 100 : 20 })) {
      if (!best.has(row.name) || row.opsPerSec > best.get(row.name).opsPerSec) best.set(row.name, row);
    }
  }
  return tasks.map((t) => best.get(t.name));
}

// Two parties with a completed handshake (wallet-size RSA keys).
function party() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 4096, publicExponent: 65537 });
  const publicKey = publicKeyToBytes(privateKey, { version: 1 });
  return { address: Address.fromPublicKey(publicKey).addressNoChecksum, publicKey, privateKey };
}
const A = party();
const B = party();
let now = 1_762_490_000;
const { contact: aB, request } = createContactRequest(A, B.address, now);
const bA = receiveFrame(B, undefined, request, { now }).contact;
const accept = acceptContact(B, bA, ++now);
const keys2 = receiveFrame(A, aB, accept, { now: ++now }).outgoing.at(-1);
receiveFrame(B, bA, keys2, { now: ++now });
if (bA.handshakeStatus !== 3 || Buffer.compare(aB.aesKey, bA.aesKey) !== 0) throw new Error('handshake did not complete');

const chatText = pseudoRandomBytes(CHAT_BYTES, 3);
const spixi = { type: 0, data: chatText, channel: 0 };
const sealedChat = encodeStreamMessage(sealMessage(A, aB, spixi, now, { requireRcvConfirmation: false }));
const sealedChatRcv = encodeStreamMessage(sealMessage(A, aB, spixi, now));

// ——— node:crypto straight: the same operations written inline ———
const sqsha = (x) => createHash('sha3-512').update(createHash('sha3-512').update(x).digest()).digest();
const lp = (b) => Buffer.concat([Buffer.from(b.length < 0xf8 ? [b.length] : [0xfc, b.length & 0xff, b.length >> 8]), b]);
function rawSeal(plain, aesKey, chachaKey, aad) {
  const nonce = randomBytes(64);
  const ha = sqsha(Buffer.concat([aesKey, nonce]));
  const c1 = createCipheriv('aes-256-gcm', ha.subarray(0, 32), ha.subarray(32, 44));
  const inner = Buffer.concat([c1.update(plain), c1.final(), c1.getAuthTag()]);
  const hc = sqsha(Buffer.concat([chachaKey, nonce]));
  const c2 = createCipheriv('chacha20-poly1305', hc.subarray(0, 32), hc.subarray(32, 44), { authTagLength: 16 });
  c2.setAAD(aad, { plaintextLength: inner.length });
  const outer = Buffer.concat([c2.update(inner), c2.final(), c2.getAuthTag()]);
  return Buffer.concat([lp(nonce), lp(outer)]);
}
function rawOpen(sealed, aesKey, chachaKey, aad) {
  const nonce = sealed.subarray(1, 65);
  const outerLen = sealed[65] < 0xf8 ? sealed[65] : sealed.readUInt16LE(66);
  const outer = sealed.subarray(sealed.length - outerLen);
  const hc = sqsha(Buffer.concat([chachaKey, nonce]));
  const d2 = createDecipheriv('chacha20-poly1305', hc.subarray(0, 32), hc.subarray(32, 44), { authTagLength: 16 });
  d2.setAAD(aad, { plaintextLength: outer.length - 16 });
  d2.setAuthTag(outer.subarray(outer.length - 16));
  const inner = Buffer.concat([d2.update(outer.subarray(0, outer.length - 16)), d2.final()]);
  const ha = sqsha(Buffer.concat([aesKey, nonce]));
  const d1 = createDecipheriv('aes-256-gcm', ha.subarray(0, 32), ha.subarray(32, 44));
  d1.setAuthTag(inner.subarray(inner.length - 16));
  return Buffer.concat([d1.update(inner.subarray(0, inner.length - 16)), d1.final()]);
}
const aadFixed = Buffer.from(streamMessageAad({ id: new Uint8Array(16), type: 2, timestamp: now }));
const spixiBytes = Buffer.concat([Buffer.from([0, 0, 0, 0]), Buffer.from(Uint32Array.of(CHAT_BYTES).buffer), chatText, Buffer.alloc(4)]);
const rawSealed = rawSeal(spixiBytes, aB.aesKey, aB.chachaKey, aadFixed);
if (Buffer.compare(rawOpen(rawSealed, bA.aesKey, bA.chachaKey, aadFixed), spixiBytes) !== 0) throw new Error('raw spixi2 does not round-trip');
if (Buffer.compare(Buffer.from(spixi2Decrypt(rawSealed, bA.aesKey, bA.chachaKey, aadFixed)), spixiBytes) !== 0) throw new Error('ours cannot open the raw spixi2');
const nobleSealed = noble.spixi2Encrypt(spixiBytes, aB.aesKey, aB.chachaKey, aadFixed);

console.log(`peers: node:crypto ${process.version} (OpenSSL ${process.versions.openssl}), @noble/ciphers ${versionOf('@noble/ciphers')}; ` +
  `${CHAT_BYTES}-byte chat text, RSA-4096; tinybench ${TIME} ms per task, best of ${ROUNDS} interleaved rounds`);

const OURS_SEAL = 'dltnode sealMessage + encode (spixi2)';
printTable(`chat message, encrypt (spixi2, ${CHAT_BYTES} B text)`, await bestOf([
  { name: OURS_SEAL, fn: () => encodeStreamMessage(sealMessage(A, aB, spixi, now)) },
  { name: 'node:crypto straight (no framing)', fn: () => rawSeal(spixiBytes, aB.aesKey, aB.chachaKey, aadFixed) },
  { name: '@noble/ciphers spixi2Encrypt', fn: () => noble.spixi2Encrypt(spixiBytes, aB.aesKey, aB.chachaKey, aadFixed) },
]), OURS_SEAL);

const OURS_OPEN = 'dltnode decode + receiveFrame (spixi2)';
const WITH_RECEIPT = 'dltnode … + sealing the automatic receipt';
printTable(`chat message, decrypt (spixi2, ${CHAT_BYTES} B text)`, await bestOf([
  { name: OURS_OPEN, fn: () => receiveFrame(B, bA, decodeStreamMessage(sealedChat), { now }) },
  { name: WITH_RECEIPT, fn: () => receiveFrame(B, bA, decodeStreamMessage(sealedChatRcv), { now }) },
  { name: 'dltnode spixi2Decrypt only', fn: () => spixi2Decrypt(rawSealed, bA.aesKey, bA.chachaKey, aadFixed) },
  { name: 'node:crypto straight (no framing)', fn: () => rawOpen(rawSealed, bA.aesKey, bA.chachaKey, aadFixed) },
  { name: '@noble/ciphers spixi2Decrypt', fn: () => noble.spixi2Decrypt(nobleSealed, bA.aesKey, bA.chachaKey, aadFixed) },
]), OURS_OPEN);

// ——— signed rsa2 message (how handshake frames travel) ———
const base = { version: 1, id: Uint8Array.of(1), type: 1, encryptionType: 3, sender: A.address, recipient: B.address, data: null, timestamp: now, signature: null, requireRcvConfirmation: true };
const aad2 = streamMessageAad(base);
function oursRsa2Sign() {
  return encodeStreamMessage(signStreamMessage({ ...base, data: rsa2Encrypt(spixiBytes, B.publicKey, aad2) }, A.privateKey));
}
const signedFrame = oursRsa2Sign();
function oursVerifyOpen() {
  const m = decodeStreamMessage(signedFrame);
  if (!verifyStreamMessage(m, A.publicKey)) throw new Error('bad signature');
  return rsa2Decrypt(m.data, B.privateKey, aad2);
}
const OAEP = { padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' };
const bPub = B.privateKey; // node accepts the private KeyObject for publicEncrypt
function rawRsa2Sign() {
  const ka = randomBytes(32);
  const kc = randomBytes(32);
  const inner = rawSeal(spixiBytes, ka, kc, aad2);
  const wrapped = publicEncrypt({ key: bPub, ...OAEP }, Buffer.concat([lp(ka), lp(kc)]));
  const data = Buffer.concat([lp(wrapped), lp(inner)]);
  const checksum = createHash('sha3-512').update(data).digest();
  return { data, wrapped, inner, sig: sign('sha512', checksum, { key: A.privateKey, padding: constants.RSA_PKCS1_PADDING }) };
}
const raw = rawRsa2Sign();
function rawVerifyOpen() {
  const checksum = createHash('sha3-512').update(raw.data).digest();
  if (!verify('sha512', checksum, { key: A.privateKey, padding: constants.RSA_PKCS1_PADDING }, raw.sig)) throw new Error('bad raw signature');
  const keys = privateDecrypt({ key: B.privateKey, ...OAEP }, raw.wrapped);
  return rawOpen(raw.inner, keys.subarray(1, 33), keys.subarray(34, 66), aad2);
}
rawVerifyOpen();

const OURS_SIGN = 'dltnode rsa2Encrypt + sign + encode';
printTable('signed rsa2 message, encrypt + sign (RSA-4096)', await bestOf([
  { name: OURS_SIGN, fn: oursRsa2Sign },
  { name: 'node:crypto straight', fn: rawRsa2Sign },
]), OURS_SIGN);
const OURS_VERIFY = 'dltnode decode + verify + rsa2Decrypt';
printTable('signed rsa2 message, verify + decrypt (RSA-4096)', await bestOf([
  { name: OURS_VERIFY, fn: oursVerifyOpen },
  { name: 'node:crypto straight', fn: rawVerifyOpen },
]), OURS_VERIFY);

// ——— end to end: handshake, chat rate and latency, relay forwarding (real node processes) ———
if (!process.argv.includes('--no-network')) {
  const { runMessagingNetworkBench } = await import('./messaging-network.mjs');
  await runMessagingNetworkBench();
}
