/**
 * Messaging across a kill -9 (reference-rpc-messaging §3.5 handshake, §3.7 pending messages and
 * receipts): a party is killed at its n-th store write from some point (service-pair.ts
 * `crashAfterWrites`: that write and everything after it never happen), restarted on what was
 * committed, and the handshake must still complete, each chat be stored exactly once by the
 * receiver and end confirmed at the sender. Each loop runs a few crash points, bounded.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { serviceParties, settle, until, type Party } from './service-pair.js';

const net = serviceParties('dltnode-msgcrash');

afterAll(() => net.close());

/** Crash points tried per scenario: every write of the step under test (at most 3) and one past them. */
const CRASH_POINTS = [0, 1, 2, 3];

/**
 * Retry passes that resend everything still pending: the pair's retry interval is an hour (its
 * passes resend nothing sent within it), a real node's 5 s, and a restart resends at once.
 */
async function resend(): Promise<void> {
  await net.passes();
  await Promise.all(net.parties.filter((p) => !net.hasCrashed(p)).map((p) => p.svc.pass({ force: true })));
}

const bothEstablished = (a: Party, b: Party): boolean => a.svc.getContact(b.address).handshakeStatus === 3 && b.svc.getContact(a.address).handshakeStatus === 3;

async function established(a: Party, b: Party): Promise<void> {
  await a.svc.addContact(b.address);
  await until(() => b.seen.some((e) => e.event === 'contactRequest'), 'the request at b', resend);
  await b.svc.acceptContact(a.address);
  await until(() => bothEstablished(a, b), 'both at status 3', resend);
}

/**
 * `victim` is killed at its `n`-th write from now while `step` runs, then restarted. With
 * `armAfter`, the count starts once `step`'s promise resolved (what it set off is then killed).
 */
async function killDuring(victim: Party, n: number, step: () => Promise<unknown>, options: { armAfter?: boolean } = {}): Promise<void> {
  if (!options.armAfter) net.crashAfterWrites(victim, n);
  // The step may never finish when the victim is the party running it.
  let done = false;
  void step()
    .then(() => {
      if (options.armAfter) net.crashAfterWrites(victim, n);
    })
    .catch(() => undefined)
    .finally(() => (done = true));
  // Until the kill, or the step and what it set off (frames, receipts) are over without one.
  for (let i = 0; i < 100 && !net.hasCrashed(victim); i++) {
    const wasDone = done;
    await settle();
    if (wasDone && i >= 5) break;
  }
  net.restart(victim);
}

/** After the kills: a chat each way arrives once and ends confirmed. */
async function chatsFlow(a: Party, b: Party, tag: string): Promise<void> {
  await a.svc.sendChatMessage(b.address, `${tag} a→b`, 0);
  await b.svc.sendChatMessage(a.address, `${tag} b→a`, 0);
  const confirmed = (p: Party, of: Party, text: string) => p.svc.lastMessages(of.address, 100, 0).some((m) => m.message === text && m.confirmed === true);
  await until(() => confirmed(a, b, `${tag} a→b`) && confirmed(b, a, `${tag} b→a`), 'both chats confirmed', resend);
  expect(net.messages(b, a).filter((t) => t === `${tag} a→b`)).toHaveLength(1);
  expect(net.messages(a, b).filter((t) => t === `${tag} b→a`)).toHaveLength(1);
}

describe('a client killed -9 and restarted', () => {
  it('completes the handshake when the requester is killed while the accept arrives', async () => {
    const pairs = await Promise.all(CRASH_POINTS.map((n) => Promise.all([net.party(`req-accept-a${n}`), net.party(`req-accept-b${n}`)])));
    for (const [i, [a, b]] of pairs.entries()) {
      const n = CRASH_POINTS[i]!;
      await a.svc.addContact(b.address);
      await until(() => b.seen.some((e) => e.event === 'contactRequest'), 'the request at b', resend);
      await killDuring(a, n, () => b.svc.acceptContact(a.address));
      await until(() => bothEstablished(a, b), `both at status 3 (requester killed at write ${n})`, resend);
      expect(a.svc.getContact(b.address).approved).toBe(true);
      await chatsFlow(a, b, `accept${n}`);
    }
  }, 120_000);

  it('completes the handshake when the requester is killed in addContact or the acceptor in acceptContact', async () => {
    const pairs = await Promise.all(CRASH_POINTS.map((n) => Promise.all([net.party(`add-a${n}`), net.party(`add-b${n}`)])));
    for (const [i, [a, b]] of pairs.entries()) {
      const n = CRASH_POINTS[i]!;
      await killDuring(a, n, () => a.svc.addContact(b.address));
      // The restarted requester knows the contact it committed, or nothing: then it adds it again.
      if (a.svc.listContacts().length === 0) await a.svc.addContact(b.address);
      await until(() => b.seen.some((e) => e.event === 'contactRequest'), `the request at b (requester killed at write ${n})`, resend);
      await killDuring(b, n, () => b.svc.acceptContact(a.address));
      // Killed before the acceptance was committed: the user accepts again.
      if (b.svc.getContact(a.address).approved !== true) await b.svc.acceptContact(a.address);
      await until(() => bothEstablished(a, b), `both at status 3 (acceptor killed at write ${n})`, resend);
      await chatsFlow(a, b, `add${n}`);
    }
  }, 120_000);

  it("keeps addContact's request-sent history entry (type 11) with the contact across a kill in addContact", async () => {
    const pairs = await Promise.all([0, 1].map((n) => Promise.all([net.party(`hist-a${n}`), net.party(`hist-b${n}`)])));
    for (const [n, [a, b]] of pairs.entries()) {
      await killDuring(a, n, () => a.svc.addContact(b.address));
      // Either nothing of the contact was committed, or the contact with its history entry.
      if (a.svc.listContacts().length === 0) continue;
      const history = a.svc.lastMessages(b.address, 100, 0);
      expect(history.map((m) => m.type), `killed at write ${n}`).toEqual([11]);
    }
  }, 60_000);

  it('sends its nick when the acceptor is killed while the handshake completes', async () => {
    const pairs = await Promise.all(CRASH_POINTS.map((n) => Promise.all([net.party(`nick-a${n}`, { nick: `Alice${n}` }), net.party(`nick-b${n}`, { nick: `Bob${n}` })])));
    for (const [i, [a, b]] of pairs.entries()) {
      const n = CRASH_POINTS[i]!;
      await a.svc.addContact(b.address);
      await until(() => b.seen.some((e) => e.event === 'contactRequest'), 'the request at b', resend);
      // keys2 reaches b after its acceptContact returned: b is killed at its n-th write from there.
      await killDuring(b, n, () => b.svc.acceptContact(a.address), { armAfter: true });
      const nicknames = () => a.svc.getContact(b.address).nickname === `Bob${n}` && b.svc.getContact(a.address).nickname === `Alice${n}`;
      await until(() => bothEstablished(a, b) && nicknames(), `both at status 3 with both nicks (acceptor killed at write ${n})`, resend);
    }
  }, 120_000);

  it('stores a chat exactly once when the receiver is killed while it arrives', async () => {
    const [a, b] = await Promise.all([net.party('recv-a'), net.party('recv-b')]);
    await established(a, b);
    for (const n of CRASH_POINTS) {
      await killDuring(b, n, () => a.svc.sendChatMessage(b.address, `to the killed receiver ${n}`, 0));
      const text = `to the killed receiver ${n}`;
      await until(() => a.svc.lastMessages(b.address, 100, 0).some((m) => m.message === text && m.confirmed === true), `confirmed at the sender (receiver killed at write ${n})`, resend);
      // Confirmed means stored: the receipt may not leave before the message is kept.
      expect(net.messages(b, a).filter((t) => t === text)).toHaveLength(1);
    }
  }, 60_000);

  it('a chat the sender keeps in its history after a kill in sendChatMessage is also sent', async () => {
    const [a, b] = await Promise.all([net.party('send-a'), net.party('send-b')]);
    await established(a, b);
    for (const n of CRASH_POINTS) {
      const text = `sent by the killed sender ${n}`;
      net.setUnreachable(b, true);
      await killDuring(a, n, () => a.svc.sendChatMessage(b.address, text, 0));
      net.setUnreachable(b, false);
      // Killed before the message was kept: it is gone on both sides (the call never answered).
      if (!a.svc.lastMessages(b.address, 100, 0).some((m) => m.message === text)) continue;
      await until(() => a.svc.lastMessages(b.address, 100, 0).some((m) => m.message === text && m.confirmed === true), `confirmed at the sender (killed at write ${n})`, resend);
      expect(net.messages(b, a).filter((t) => t === text)).toHaveLength(1);
    }
  }, 60_000);

  it('ends a chat confirmed when the sender is killed while the receipt arrives', async () => {
    const [a, b] = await Promise.all([net.party('rcpt-a'), net.party('rcpt-b')]);
    await established(a, b);
    for (const n of CRASH_POINTS) {
      const text = `receipt to the killed sender ${n}`;
      net.setUnreachable(b, true);
      await a.svc.sendChatMessage(b.address, text, 0);
      net.setUnreachable(b, false);
      await killDuring(a, n, () => a.svc.pass({ force: true }));
      await until(() => a.svc.lastMessages(b.address, 100, 0).some((m) => m.message === text && m.confirmed === true), `confirmed at the sender (killed at write ${n})`, resend);
      expect(net.messages(b, a).filter((t) => t === text)).toHaveLength(1);
    }
  }, 60_000);
});
