/**
 * Crossing contact requests (both sides call addContact at once; reference-rpc-messaging §3.5 leaves
 * the outcome open): both sides used to accept, and each ended with the keys of a different accept,
 * so every chat failed to decrypt. The smaller address keeps its request, the other side accepts.
 * Two services on LMDB, frames carried in memory, handshake crypto on this thread.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TypedEmitter } from '../../src/events.js';
import { Address } from '../../src/formats/address.js';
import { generateWalletKey, privateKeyFromBytes, publicKeyOf } from '../../src/formats/rsa.js';
import { silentLogger } from '../../src/log/logger.js';
import { MessagingService, type MessagingEvents } from '../../src/messaging/service.js';
import { openStore, type Store } from '../../src/state/store.js';

const dir = mkdtempSync(join(tmpdir(), 'dltnode-msgcross-'));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
let clockMs = Date.UTC(2026, 0, 1);

interface Party {
  store: Store;
  svc: MessagingService;
  address: Uint8Array;
  seen: { event: string; payload: unknown }[];
}
const parties: Party[] = [];

async function party(name: string): Promise<Party> {
  const key = await generateWalletKey();
  const publicKey = publicKeyOf(key.privateKey);
  const identity = { address: Address.fromPublicKey(publicKey).addressNoChecksum, publicKey, privateKey: privateKeyFromBytes(key.privateKey) };
  const events = new TypedEmitter<MessagingEvents>(() => undefined);
  const seen: Party['seen'] = [];
  for (const e of ['contactRequest', 'contactAccepted', 'chatMessage', 'messageReceipt'] as const) events.on(e, (payload) => seen.push({ event: e, payload }));
  const store = openStore(join(dir, name));
  const svc = new MessagingService({
    store,
    identity,
    network: undefined,
    events,
    log: silentLogger(),
    now: () => clockMs,
    retryIntervalMs: 3_600_000, // passes are driven by the test
    transport: (to, frame) => {
      const target = parties.find((p) => hex(p.address) === hex(to));
      if (target) setImmediate(() => void target.svc.receive(null, to, frame));
      return true;
    },
  });
  svc.start();
  const p = { store, svc, address: identity.address, seen };
  parties.push(p);
  return p;
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  await new Promise((r) => setTimeout(r, 20));
}

async function until(cond: () => boolean, what: string, tick?: () => Promise<void>): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (cond()) return;
    await tick?.();
    await settle();
  }
  throw new Error(`timed out: ${what}`);
}

let a: Party;
let b: Party;

beforeAll(async () => {
  [a, b] = await Promise.all([party('a'), party('b')]);
}, 60_000);

afterAll(async () => {
  for (const p of parties) {
    await p.svc.stop();
    await p.store.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Retry passes as the 5-second timer would run them. */
const passes = async (): Promise<void> => {
  clockMs += 10_000;
  await Promise.all([a.svc.pass(), b.svc.pass()]);
};

const messages = (p: Party, of: Party): string[] => p.svc.lastMessages(of.address, 100, 0).filter((m) => m.type === 0).map((m) => String(m.message));

describe('crossing contact requests', () => {
  it('both addContact at once: one key set, chats both ways', async () => {
    await Promise.all([a.svc.addContact(b.address), b.svc.addContact(a.address)]);
    await until(() => a.svc.getContact(b.address).handshakeStatus === 3 && b.svc.getContact(a.address).handshakeStatus === 3, 'both at status 3', passes);
    expect([a.svc.getContact(b.address).approved, b.svc.getContact(a.address).approved]).toEqual([true, true]);
    await a.svc.sendChatMessage(b.address, 'from a', 0);
    await b.svc.sendChatMessage(a.address, 'from b', 0);
    await until(() => messages(b, a).includes('from a') && messages(a, b).includes('from b'), 'chats both ways', passes);
    expect(a.svc.stats.dropped + b.svc.stats.dropped).toBe(0);
  });

  it('the smaller address re-sends its request when it no longer holds it (the other side re-added us)', async () => {
    const [small, large] = Buffer.compare(Buffer.from(a.address), Buffer.from(b.address)) < 0 ? [a, b] : [b, a];
    await small.svc.removeContact(large.address);
    await large.svc.removeContact(small.address);
    // small adds large; large learns of it (a contact request), then forgets it and adds small itself.
    await small.svc.addContact(large.address);
    await until(() => large.svc.listContacts().length === 1, 'the request at large');
    await small.svc.pass({ force: true }); // the re-sent request is acknowledged: small dequeues it
    await settle();
    await large.svc.removeContact(small.address);
    await large.svc.addContact(small.address);
    await until(() => a.svc.getContact(b.address).handshakeStatus === 3 && b.svc.getContact(a.address).handshakeStatus === 3, 'both at status 3 again', passes);
    await small.svc.sendChatMessage(large.address, 'again', 0);
    await until(() => messages(large, small).includes('again'), 'a chat', passes);
  });
});
