/**
 * A contact request from a contact whose accept of ours still waits for its keys2 (reference-rpc-messaging
 * §3.5 step 3, Core `handleRequestAdd2` → `sendAcceptAdd2`, which refuses while the accept's ECDH
 * secret is held): nothing is sent and nothing published; the accept already in flight completes the
 * handshake. Two services on LMDB, frames carried in memory, handshake crypto on this thread.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeStreamMessage } from '../../src/messaging/stream-message.js';
import { serviceParties, settle, until, type Party } from './service-pair.js';

const net = serviceParties('dltnode-msgpending');
const passes = () => net.passes();
let a: Party;
let b: Party;

beforeAll(async () => {
  [a, b] = await Promise.all([net.party('a'), net.party('b')]);
}, 60_000);

afterAll(() => net.close());

const acceptsSent = (p: Party): string[] => p.sent.filter((f) => Buffer.from(decodeStreamMessage(f).id).toString('hex') === '01').map((f) => Buffer.from(f).toString('hex'));

describe('a contact request while our accept waits for keys2', () => {
  it('sends no fresh accept: the one in flight completes the handshake, and chats go both ways', async () => {
    await a.svc.addContact(b.address);
    await until(() => b.seen.some((e) => e.event === 'contactRequest'), 'the request at b');
    // b accepts while a cannot be reached: the accept waits in b's outbox for a's keys2.
    net.setUnreachable(a, true);
    await b.svc.acceptContact(a.address);
    await settle();
    // a re-adds b (a newer request) before the accept reached it.
    await a.svc.removeContact(b.address);
    await passes();
    await a.svc.addContact(b.address);
    await until(() => b.svc.getContact(a.address).handshakeStatus === 1 && a.sent.length >= 2, 'the second request at b');
    await settle();
    expect(b.seen.filter((e) => e.event === 'contactRequest')).toHaveLength(1);
    net.setUnreachable(a, false);
    await until(() => a.svc.getContact(b.address).handshakeStatus === 3 && b.svc.getContact(a.address).handshakeStatus === 3, 'both at status 3', passes);
    // One accept (its re-sends are the same frame): the keys b holds are those of the accept a answered.
    expect(new Set(acceptsSent(b)).size).toBe(1);
    await a.svc.sendChatMessage(b.address, 'to-b', 0);
    await b.svc.sendChatMessage(a.address, 'to-a', 0);
    await until(() => net.messages(b, a).includes('to-b') && net.messages(a, b).includes('to-a'), 'chats both ways', passes);
  });
});
