/**
 * The outbox's retry pass per contact (reference-rpc-messaging §3.7 steps 4 and 6): an entry sent
 * recently is not sent again within the retry interval, and "recently" belongs to that contact's
 * entry. The handshake's and the nick's fixed ids ([0]–[2], [5]) are the same for every contact,
 * so a request delivered to one contact must not hold back the same request to another that no
 * route reached yet. Services on LMDB, frames carried in memory (service-pair.ts); the retry
 * interval is an hour there, and each pass moves the clock 10 s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceParties, until, type Party } from './service-pair.js';

const net = serviceParties('dltnode-msgretry');

let alice: Party;
let bob: Party;
let carol: Party;

beforeAll(async () => {
  [alice, bob, carol] = await Promise.all([net.party('alice'), net.party('bob'), net.party('carol')]);
}, 60_000);

afterAll(() => net.close());

describe('retry passes per contact', () => {
  it("a request delivered to one contact does not hold back the same-id request to another that was not reached", async () => {
    net.setUnreachable(carol, true);
    await alice.svc.addContact(bob.address);
    await alice.svc.addContact(carol.address);
    await until(() => bob.seen.some((e) => e.event === 'contactRequest'), 'the request at bob', net.passes);
    expect(carol.seen.some((e) => e.event === 'contactRequest')).toBe(false);

    // Carol's route comes back: the next passes send her request, never sent before.
    net.setUnreachable(carol, false);
    await until(() => carol.seen.some((e) => e.event === 'contactRequest'), 'the request at carol', net.passes);
  });
});
