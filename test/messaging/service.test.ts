/**
 * The messaging service in process (issue 11): two services on real LMDB stores, their frames
 * carried by a switchable in-memory transport. Handshake, chat both ways with receipts, the
 * outbox surviving a restart and expiring after 5 days, duplicates, tampered, replayed and
 * wrongly signed frames dropped and never stored. a and b run the handshake crypto in the worker
 * pool's `messagingCrypto` task, c on the calling thread.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TypedEmitter } from '../../src/events.js';
import { Address } from '../../src/formats/address.js';
import { generateWalletKey, privateKeyFromBytes, publicKeyOf } from '../../src/formats/rsa.js';
import { createLogger, silentLogger } from '../../src/log/logger.js';
import { createContactRequest } from '../../src/messaging/handshake.js';
import { MessagingRequestError, MessagingService, NOT_ESTABLISHED, type MessagingEvents } from '../../src/messaging/service.js';
import { decodeStreamMessage, encodeStreamMessage } from '../../src/messaging/stream-message.js';
import { openStore, type Store } from '../../src/state/store.js';
import { createWorkerPool, type WorkerPool } from '../../src/pool/index.js';

// a and b run their handshake crypto in a real worker pool (the node's path); c on this thread.
const pool: WorkerPool = createWorkerPool({ threads: 1 });

const dir = mkdtempSync(join(tmpdir(), 'dltnode-msgsvc-'));
const DAY = 86_400_000;

interface Party {
  name: string;
  store: Store;
  svc: MessagingService;
  events: TypedEmitter<MessagingEvents>;
  seen: { event: string; payload: unknown }[];
  identity: MessagingService['identity'];
  address: Uint8Array;
  text: string;
}

let clockMs = Date.UTC(2026, 0, 1);
let online = true;
/** Frames on the wire (recipient hex → frames), for tamper and replay tests. */
const wire: { to: Uint8Array; frame: Uint8Array }[] = [];
const parties = new Map<string, Party>();
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

function build(name: string, store: Store, identity: MessagingService['identity']): Party {
  const crypto = name === 'c' ? undefined : (items: Parameters<WorkerPool['messagingCrypto']>[0]) => pool.messagingCrypto(items);
  const events = new TypedEmitter<MessagingEvents>(() => undefined);
  const seen: Party['seen'] = [];
  for (const e of ['contactRequest', 'contactAccepted', 'chatMessage', 'messageReceipt', 'appData', 'appProtocolData', 'spixiMessage'] as const) {
    events.on(e, (payload) => seen.push({ event: e, payload }));
  }
  const svc = new MessagingService({
    store,
    identity,
    network: undefined,
    events,
    log: process.env.DBG ? createLogger({ level: "debug", format: "json" } as never) : silentLogger(),
    now: () => clockMs,
    retryIntervalMs: 3_600_000, // passes are driven by the test
    ...(crypto ? { crypto } : {}),
    transport: (to, frame) => {
      if (!online) return false;
      wire.push({ to, frame });
      const target = [...parties.values()].find((p) => hex(p.address) === hex(to));
      if (target) setImmediate(() => void target.svc.receive(null, to, frame));
      return true;
    },
  });
  svc.start();
  const address = identity.address;
  return { name, store, svc, events, seen, identity, address, text: new Address(address).base58Address };
}

async function party(name: string): Promise<Party> {
  const key = await generateWalletKey();
  const publicKey = publicKeyOf(key.privateKey);
  const identity = { address: Address.fromPublicKey(publicKey).addressNoChecksum, publicKey, privateKey: privateKeyFromBytes(key.privateKey) };
  const p = build(name, openStore(join(dir, name)), identity);
  parties.set(name, p);
  return p;
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  await new Promise((r) => setTimeout(r, 20));
}

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (cond()) return;
    await settle();
  }
  throw new Error(`timed out: ${what}`);
}

let a: Party;
let b: Party;
let c: Party;

beforeAll(async () => {
  [a, b, c] = await Promise.all([party('a'), party('b'), party('c')]);
}, 60_000);

afterAll(async () => {
  for (const p of parties.values()) {
    await p.svc.stop();
    await p.store.close();
  }
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('messaging service', () => {
  it('completes the handshake: request, accept, keys; both approved, statuses as §3.5', async () => {
    const added = await a.svc.addContact(b.address);
    expect(added.approved).toBe(false);
    expect(added.handshakeStatus).toBe(0);
    await expect(a.svc.addContact(b.address)).rejects.toThrow("contact already added");
    await until(() => b.seen.some((e) => e.event === 'contactRequest'), 'the request at b');
    const atB = b.svc.getContact(a.address);
    expect(atB.approved).toBe(false);
    expect(atB.state).toBe(1); // RequestReceived
    // Before the accept, app messages are refused (DESIGN decision 6).
    await expect(b.svc.sendSpixiMessage(a.address, 21, new Uint8Array([1]), 0, { requireChannel: true })).rejects.toThrow(NOT_ESTABLISHED);
    // The first request is not acknowledged (receipts go to known contacts); the retry pass sends it
    // again and that one is: status 0 → 1.
    expect(a.svc.getContact(b.address).handshakeStatus).toBe(0);
    await a.svc.pass({ force: true });
    await until(() => a.svc.getContact(b.address).handshakeStatus === 1, 'the receipt of the request');
    await b.svc.acceptContact(a.address);
    await until(() => a.svc.getContact(b.address).approved === true && b.svc.getContact(a.address).approved === true, 'both approved');
    await until(() => a.svc.getContact(b.address).handshakeStatus === 3 && b.svc.getContact(a.address).handshakeStatus === 3, 'both at status 3');
    expect(a.seen.some((e) => e.event === 'contactAccepted')).toBe(true);
    expect(b.seen.some((e) => e.event === 'contactAccepted')).toBe(true);
  });

  it('chats both ways: histories in order, confirmed after the receipt', async () => {
    await a.svc.sendChatMessage(b.address, 'one', 0);
    await until(() => b.svc.lastMessages(a.address, 10, 0).length === 1, 'the first message at b');
    await a.svc.sendChatMessage(b.address, 'two', 0);
    await until(() => b.svc.lastMessages(a.address, 10, 0).length === 2, 'the second message at b');
    await b.svc.sendChatMessage(a.address, 'back', 0);
    await until(() => b.svc.lastMessages(a.address, 10, 0).length === 3 && a.svc.lastMessages(b.address, 10, 0).length === 4, 'all messages');
    await until(() => a.svc.lastMessages(b.address, 10, 0).filter((m) => m.localSender && m.type === 0).every((m) => m.confirmed), 'confirmed');
    const atA = a.svc.lastMessages(b.address, 10, 0);
    expect(atA.map((m) => m.message)).toEqual(['', 'one', 'two', 'back']);
    expect(atA[0]!.type).toBe(11);
    expect(b.svc.lastMessages(a.address, 10, 0).map((m) => [m.message, m.localSender])).toEqual([
      ['one', false],
      ['two', false],
      ['back', true],
    ]);
    expect(a.svc.lastMessages(b.address, 2, 0).map((m) => m.message)).toEqual(['two', 'back']);
    expect(a.seen.filter((e) => e.event === 'messageReceipt').length).toBeGreaterThan(0);
  });

  it('app messages arrive as events and are stored nowhere', async () => {
    const before = [a.svc.lastMessages(b.address, 100, 3).length, b.svc.lastMessages(a.address, 100, 3).length];
    await a.svc.sendSpixiMessage(b.address, 21, new Uint8Array([0xde, 0xad]), 3, { requireChannel: true });
    await until(() => b.seen.some((e) => e.event === 'appData'), 'app data at b');
    expect([a.svc.lastMessages(b.address, 100, 3).length, b.svc.lastMessages(a.address, 100, 3).length]).toEqual(before);
  });

  it('a nick received names the contact (reference-rpc-messaging §3.3: the received nick, else the address text): contacts and the senderNick of later chats', async () => {
    expect(b.svc.getContact(a.address).nickname).toBe(a.text);
    await a.svc.sendSpixiMessage(b.address, 2, new TextEncoder().encode('Alice ünï'), 0, { requireChannel: false });
    await until(() => b.svc.getContact(a.address).nickname === 'Alice ünï', 'the nick at b');
    await a.svc.sendChatMessage(b.address, 'signed, Alice', 0);
    await until(() => b.svc.lastMessages(a.address, 1, 0)[0]?.message === 'signed, Alice', 'the chat at b');
    expect(b.svc.lastMessages(a.address, 1, 0)[0]!.senderNick).toBe('Alice ünï');
    expect(b.svc.listContacts().find((x) => x.walletAddress && (x.walletAddress as { base58Address: string }).base58Address === a.text)!.nickname).toBe('Alice ünï');
    // An empty nick names the contact by its address again (Core: a nick without payload sets the address text).
    await a.svc.sendSpixiMessage(b.address, 2, new Uint8Array(0), 0, { requireChannel: false });
    await until(() => b.svc.getContact(a.address).nickname === a.text, 'the address as nickname again');
  });

  it('drops duplicates, tampered, replayed and wrongly signed frames; nothing stored', async () => {
    const chatFrames = wire.filter((w) => hex(w.to) === hex(b.address) && decodeStreamMessage(w.frame).type === 2);
    const last = chatFrames.at(-1)!;
    const historyBefore = b.svc.lastMessages(a.address, 100, 0).length;
    const dropped = b.svc.stats.dropped;
    // Replayed (a duplicate id): acknowledged again, not stored twice.
    await b.svc.receive(null, b.address, last.frame);
    // Tampered: one ciphertext byte flipped.
    const t = decodeStreamMessage(last.frame);
    const data = t.data!.slice();
    data[data.length - 5]! ^= 1;
    await b.svc.receive(null, b.address, encodeStreamMessage({ ...t, data }));
    // Random bytes.
    await b.svc.receive(null, b.address, new Uint8Array([1, 2, 3, 4, 5]));
    // A contact request claiming a's address, signed by c's key.
    const forged = createContactRequest({ ...c.identity, address: a.address }, b.address, Math.floor(clockMs / 1000) + 5).request;
    await b.svc.receive(null, b.address, encodeStreamMessage(forged));
    // A contact request of c, replayed with a changed timestamp (the signature no longer matches).
    const req = createContactRequest(c.identity, b.address, Math.floor(clockMs / 1000)).request;
    await b.svc.receive(null, b.address, encodeStreamMessage({ ...req, timestamp: req.timestamp + 1 }));
    expect(b.svc.stats.dropped - dropped).toBe(4);
    expect(b.svc.lastMessages(a.address, 100, 0)).toHaveLength(historyBefore);
    expect(() => b.svc.getContact(c.address)).toThrow("contact doesn't exist");
  });

  it('keeps the outbox across a restart and delivers when the route comes back', async () => {
    online = false;
    await a.svc.sendChatMessage(b.address, 'while offline', 0);
    await a.svc.stop();
    // Restart a on the same store.
    const again = build('a', a.store, a.identity);
    parties.set('a', again);
    a = again;
    online = true;
    await a.svc.pass({ force: true });
    await until(() => b.svc.lastMessages(a.address, 1, 0)[0]?.message === 'while offline', 'delivery after the restart');
    await until(() => a.svc.lastMessages(b.address, 1, 0)[0]?.confirmed === true, 'confirmed after the restart');
  });

  it('expires a pending message after 5 days with errorSending', async () => {
    online = false;
    await a.svc.sendChatMessage(b.address, 'never delivered', 0);
    clockMs += 5 * DAY + 1000;
    await a.svc.pass({ force: true });
    const last = a.svc.lastMessages(b.address, 1, 0)[0]!;
    expect(last.message).toBe('never delivered');
    expect(last.errorSending).toBe(true);
    expect(a.svc.stats.expired).toBe(1);
    online = true;
  });

  it('refuses bad requests with clear reasons', async () => {
    expect(() => MessagingService.parseAddress('nope')).toThrow(MessagingRequestError);
    await expect(a.svc.sendChatMessage(c.address, 'x', 0)).rejects.toThrow("contact doesn't exist");
    await expect(a.svc.sendChatMessage(b.address, 'x'.repeat(600_000), 0)).rejects.toThrow(/Payload too large/);
    await expect(a.svc.sendChatMessage(b.address, 'x', -5)).rejects.toThrow(/Invalid channel/);
    const removed = await a.svc.removeContact(b.address);
    expect(removed.approved).toBe(true);
    expect(() => a.svc.lastMessages(b.address, 10, 0)).toThrow("contact doesn't exist");
    expect(a.svc.listContacts()).toHaveLength(0);
  });
});
