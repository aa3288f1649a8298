/**
 * Crossing contact requests (both sides call addContact at once; reference-rpc-messaging §3.5 leaves
 * the outcome open): both sides used to accept, and each ended with the keys of a different accept,
 * so every chat failed to decrypt. The smaller address keeps its request, the other side accepts.
 * Two services on LMDB, frames carried in memory, handshake crypto on this thread.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceParties, settle, until, type Party } from './service-pair.js';

const net = serviceParties('dltnode-msgcross');
const { messages } = net;
const passes = () => net.passes();
let a: Party;
let b: Party;

beforeAll(async () => {
  [a, b] = await Promise.all([net.party('a'), net.party('b')]);
}, 60_000);

afterAll(() => net.close());

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
