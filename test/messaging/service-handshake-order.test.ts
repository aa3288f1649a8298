/**
 * Handshake frames are never held back by chats waiting for the session keys (reference-rpc-messaging
 * §3.5, §3.7): a chat queued before acceptContact, and a chat pending when the contact re-adds us
 * (our automatic accept), used to block the accept in the outbox for good. Two services on LMDB,
 * frames carried in memory, handshake crypto on this thread.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceParties, settle, until, type Party } from './service-pair.js';

const net = serviceParties('dltnode-msgorder');
const { messages } = net;
const passes = () => net.passes();
let a: Party;
let b: Party;

beforeAll(async () => {
  [a, b] = await Promise.all([net.party('a'), net.party('b')]);
}, 60_000);

afterAll(() => net.close());

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
