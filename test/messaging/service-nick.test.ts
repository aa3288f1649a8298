/**
 * Our own nickname to contacts (Ixian-Core CoreStreamProcessor.sendNickname / handleGetNick,
 * reference-rpc-messaging §3.5 steps 4–5, §3.6): the requester sends it after keys2, the acceptor
 * once keys2 arrived, and either answers a contact's getNick. The nick message has id [5], type
 * info, and goes under the session keys (spixi2). With no nick set the message goes empty, as the
 * reference does with an empty name, and the contact keeps showing our address. Two services on
 * LMDB, frames carried in memory (service-pair.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Address } from '../../src/formats/address.js';
import { HandshakeId } from '../../src/messaging/handshake.js';
import { SpixiMessageCode } from '../../src/messaging/spixi-message.js';
import { decodeStreamMessage, EncryptionType, StreamMessageCode } from '../../src/messaging/stream-message.js';
import { serviceParties, until, type Party } from './service-pair.js';

const net = serviceParties('dltnode-msgnick');
const addrText = (p: Party): string => new Address(p.address).base58Address;

/** The nick frames `p` sent (id [5]), decoded; their data stays sealed. */
const nickFrames = (p: Party) => p.sent.map((f) => decodeStreamMessage(f)).filter((m) => m.id.length === 1 && m.id[0] === HandshakeId.nick);
/** The nick texts `p` received as bus events, in order. */
const nicksReceived = (p: Party): unknown[] =>
  p.seen
    .filter((e) => e.event === 'spixiMessage')
    .map((e) => (e.payload as { message: { data: { type: number; data: unknown } } }).message.data)
    .filter((d) => d.type === SpixiMessageCode.nick)
    .map((d) => d.data);

async function handshake(requester: Party, acceptor: Party): Promise<void> {
  await requester.svc.addContact(acceptor.address);
  await until(() => acceptor.seen.some((e) => e.event === 'contactRequest'), 'the request at the acceptor', net.passes);
  await acceptor.svc.acceptContact(requester.address);
  await until(
    () => requester.svc.getContact(acceptor.address).handshakeStatus === 3 && acceptor.svc.getContact(requester.address).handshakeStatus === 3,
    'both at status 3',
    net.passes,
  );
}

let alice: Party;
let bob: Party;
let carol: Party;
let dave: Party;

beforeAll(async () => {
  [alice, bob, carol, dave] = await Promise.all([net.party('alice', { nick: 'Alice' }), net.party('bob', { nick: 'Bob ✓' }), net.party('carol'), net.party('dave')]);
}, 60_000);

afterAll(() => net.close());

describe('our nickname to contacts', () => {
  it('each side sends its nick once the handshake completes (requester after keys2, acceptor on keys2), id [5], info, spixi2', async () => {
    await handshake(alice, bob);
    await until(() => alice.svc.getContact(bob.address).nickname === 'Bob ✓' && bob.svc.getContact(alice.address).nickname === 'Alice', 'both nicknames', net.passes);
    for (const p of [alice, bob]) {
      const frames = nickFrames(p);
      expect(frames.length).toBeGreaterThanOrEqual(1);
      for (const m of frames) {
        expect(m.type).toBe(StreamMessageCode.info);
        expect(m.encryptionType).toBe(EncryptionType.spixi2);
        expect(m.requireRcvConfirmation).toBe(true);
      }
    }
    // The receipt for [5] dequeues it: no resending on later passes.
    const sent = nickFrames(alice).length;
    await net.passes();
    await net.passes();
    expect(nickFrames(alice).length).toBe(sent);
  });

  it("answers a contact's getNick with its nick", async () => {
    const before = nickFrames(alice).length;
    const received = nicksReceived(bob).length;
    // getNick's payload is one zero byte (§3.6; a bot user's address otherwise).
    await bob.svc.sendSpixiMessage(alice.address, SpixiMessageCode.getNick, Uint8Array.of(0), 0, { requireChannel: false });
    await until(() => nicksReceived(bob).length > received, 'the nick answering getNick', net.passes);
    expect(nickFrames(alice).length).toBe(before + 1);
    expect(nicksReceived(bob).at(-1)).toBe('Alice');
    expect(bob.svc.getContact(alice.address).nickname).toBe('Alice');
  });

  it('without a nick set, sends it empty (as the reference with an empty name); the contact keeps showing the address', async () => {
    await handshake(carol, dave);
    await until(() => nicksReceived(carol).length >= 1 && nicksReceived(dave).length >= 1, 'the empty nicks', net.passes);
    expect(nicksReceived(carol)).toContain('');
    expect(nicksReceived(dave)).toContain('');
    expect(carol.svc.getContact(dave.address).nickname).toBe(addrText(dave));
    expect(dave.svc.getContact(carol.address).nickname).toBe(addrText(carol));
  });
});
