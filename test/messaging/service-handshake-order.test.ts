/**
 * Handshake frames are never held back by chats waiting for the session keys (reference-rpc-messaging
 * §3.5, §3.7): a chat queued before acceptContact, and a chat pending when the contact re-adds us
 * (our automatic accept), used to block the accept in the outbox for good. Two services on LMDB,
 * frames carried in memory, handshake crypto on this thread.
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

const dir = mkdtempSync(join(tmpdir(), 'dltnode-msgorder-'));
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

describe('handshake frames jump chats waiting for keys', () => {
  it('a chat queued before acceptContact does not hold back the accept; it goes once the keys exist', async () => {
    await a.svc.addContact(b.address);
    await until(() => b.seen.some((e) => e.event === 'contactRequest'), 'the request at b');
    await b.svc.sendChatMessage(a.address, 'before-accept', 0);
    await b.svc.acceptContact(a.address);
    await until(() => a.svc.getContact(b.address).handshakeStatus === 3 && b.svc.getContact(a.address).handshakeStatus === 3, 'both at status 3', passes);
    await until(() => messages(a, b).includes('before-accept'), 'the early chat at a', passes);
    await until(() => b.svc.lastMessages(a.address, 10, 0).find((m) => m.message === 'before-accept')?.confirmed === true, 'confirmed at b', passes);
  });

  it("a chat pending when the contact re-adds us does not hold back our automatic accept", async () => {
    await b.svc.removeContact(a.address);
    await a.svc.sendChatMessage(b.address, 'while-removed', 0); // b drops it: not a contact any more
    await settle();
    await b.svc.addContact(a.address);
    await until(() => a.svc.getContact(b.address).handshakeStatus === 3 && b.svc.getContact(a.address).handshakeStatus === 3, 'both at status 3 again', passes);
    await until(() => messages(b, a).includes('while-removed'), 'the pending chat at b', passes);
    await a.svc.sendChatMessage(b.address, 'after', 0);
    await until(() => messages(b, a).join(',') === 'while-removed,after', 'order kept at b', passes);
  });
});
