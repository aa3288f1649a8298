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
import { rsa2Encrypt } from '../../src/messaging/crypto.js';
import { decodeSpixiMessage, encodeSpixiMessage } from '../../src/messaging/spixi-message.js';
import { decodeStreamMessage, EncryptionType, encodeStreamMessage, signStreamMessage, STREAM_MESSAGE_VERSION, streamMessageAad, StreamMessageCode, type StreamMessage } from '../../src/messaging/stream-message.js';
import { serviceParties, until, type Party } from './service-pair.js';

const net = serviceParties('dltnode-msgnick');
const addrText = (p: Party): string => new Address(p.address).base58Address;

/** The frames `p` sent with the one-byte handshake id `id`, decoded; their data stays sealed. */
const framesWithId = (p: Party, id: number) => p.sent.map((f) => decodeStreamMessage(f)).filter((m) => m.id.length === 1 && m.id[0] === id);
/** The nick frames `p` sent (id [5]). */
const nickFrames = (p: Party) => framesWithId(p, HandshakeId.nick);
/** The unencrypted receipts `p` sent, as the acknowledged ids (hex). */
const plainReceipts = (p: Party): string[] =>
  p.sent
    .map((f) => decodeStreamMessage(f))
    .filter((m) => m.encryptionType === EncryptionType.none && m.data !== null)
    .map((m) => decodeSpixiMessage(m.data!))
    .filter((sm) => sm.type === SpixiMessageCode.msgReceived)
    .map((sm) => Buffer.from(sm.data ?? []).toString('hex'));

/** A getNick [3] from `from` to `to` as the reference sends it before session keys: rsa2 to `to`'s key, signed by `from`. */
function rsa2GetNick(from: Party, to: Party, timestamp: number): Uint8Array {
  const m: StreamMessage = {
    version: STREAM_MESSAGE_VERSION,
    id: Uint8Array.of(HandshakeId.getNick),
    type: StreamMessageCode.info,
    encryptionType: EncryptionType.rsa2,
    sender: from.address,
    recipient: to.address,
    data: null,
    timestamp,
    signature: null,
    requireRcvConfirmation: true,
  };
  const plain = encodeSpixiMessage({ type: SpixiMessageCode.getNick, data: Uint8Array.of(0), channel: 0 });
  return encodeStreamMessage(signStreamMessage({ ...m, data: rsa2Encrypt(plain, to.identity.publicKey, streamMessageAad(m)) }, from.identity.privateKey));
}
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
let erin: Party;
let frank: Party;

beforeAll(async () => {
  [alice, bob, carol, dave, erin, frank] = await Promise.all([net.party('alice', { nick: 'Alice' }), net.party('bob', { nick: 'Bob ✓' }), net.party('carol'), net.party('dave'), net.party('erin', { nick: 'Erin' }), net.party('frank', { nick: 'Frank' })]);
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

  it('a pass that runs while the answer is being stored sends it once, not again when the store write ends', async () => {
    const svc = alice.svc as unknown as { persistOutbox(key: string): Promise<void> };
    const persist = svc.persistOutbox;
    // One-shot: the first queue write of alice's answer runs a retry pass before it returns (an
    // ordinary pass, as the timer or a receipt starts one: a forced pass resends whatever is
    // queued by design, and one queued behind a running pass would send the answer twice).
    svc.persistOutbox = async function (this: unknown, key: string) {
      svc.persistOutbox = persist;
      await persist.call(this, key);
      await alice.svc.pass();
    };
    try {
      const before = nickFrames(alice).length;
      const received = nicksReceived(bob).length;
      await bob.svc.sendSpixiMessage(alice.address, SpixiMessageCode.getNick, Uint8Array.of(0), 0, { requireChannel: false });
      await until(() => nicksReceived(bob).length > received, 'the nick answering getNick', net.passes);
      await net.passes();
      expect(nickFrames(alice).length).toBe(before + 1);
    } finally {
      svc.persistOutbox = persist;
    }
  });

  it('without a nick set, sends it empty (as the reference with an empty name); the contact keeps showing the address', async () => {
    await handshake(carol, dave);
    await until(() => nicksReceived(carol).length >= 1 && nicksReceived(dave).length >= 1, 'the empty nicks', net.passes);
    expect(nicksReceived(carol)).toContain('');
    expect(nicksReceived(dave)).toContain('');
    expect(carol.svc.getContact(dave.address).nickname).toBe(addrText(dave));
    expect(dave.svc.getContact(carol.address).nickname).toBe(addrText(carol));
  });

  it("asks a new contact for its nick as soon as its request is stored: getNick [3], info, rsa2, signed; the requester acknowledges it", async () => {
    await erin.svc.addContact(frank.address);
    await until(() => frank.seen.some((e) => e.event === 'contactRequest'), 'the request at frank', net.passes);
    await until(() => framesWithId(frank, HandshakeId.getNick).length > 0, "frank's getNick", net.passes);
    const [ask] = framesWithId(frank, HandshakeId.getNick);
    expect(ask!.type).toBe(StreamMessageCode.info);
    expect(ask!.encryptionType).toBe(EncryptionType.rsa2);
    expect(ask!.signature).not.toBeNull();
    expect(ask!.requireRcvConfirmation).toBe(true);
    // Erin has no key of frank's yet (the accept brings it) and answers all the same (handleGetNick).
    await until(() => plainReceipts(erin).includes('03'), "erin's receipt for [3]", net.passes);
    // Acknowledged: it leaves frank's queue (not sent again).
    const asked = framesWithId(frank, HandshakeId.getNick).length;
    await net.passes();
    await net.passes();
    expect(framesWithId(frank, HandshakeId.getNick).length).toBe(asked);
    // Once frank accepts, erin's nick (queued by the getNick, waiting for the keys) reaches him.
    await frank.svc.acceptContact(erin.address);
    await until(() => frank.svc.getContact(erin.address).nickname === 'Erin' && erin.svc.getContact(frank.address).nickname === 'Frank', 'both nicknames', net.passes);
  });

  it('answers a getNick from a contact it knows but has not approved: our nick at once, rsa2 to its key (no session keys yet)', async () => {
    const [gina, hank] = await Promise.all([net.party('gina', { nick: 'Gina' }), net.party('hank', { nick: 'Hank' })]);
    await gina.svc.addContact(hank.address);
    await until(() => hank.seen.some((e) => e.event === 'contactRequest'), 'the request at hank', net.passes);
    expect(hank.svc.getContact(gina.address).approved).toBe(false);
    const before = nickFrames(hank).length;
    await hank.svc.receive(null, hank.address, rsa2GetNick(gina, hank, 1_767_225_600));
    const frames = nickFrames(hank);
    expect(frames.length).toBe(before + 1);
    expect(frames.at(-1)!.encryptionType).toBe(EncryptionType.rsa2);
    expect(frames.at(-1)!.type).toBe(StreamMessageCode.info);
    expect(frames.at(-1)!.signature).not.toBeNull();
  });
});
