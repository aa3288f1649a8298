/**
 * What the messaging service tells the bus and the MQ bridge (reference-quixi-events §1.6–§1.7,
 * reference-rpc-messaging §3.4, §3.7): FriendStatusUpdate when a contact's `online` flips, read
 * receipts, one messageReceipt per first confirmation, the sender's nickname on received
 * messages. Two services on LMDB, frames carried in memory, a bridge on a recording driver.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settle, until as untilWith } from './service-pair.js';
import { TypedEmitter } from '../../src/events.js';
import { Address } from '../../src/formats/address.js';
import { generateWalletKey, privateKeyFromBytes, publicKeyOf } from '../../src/formats/rsa.js';
import { silentLogger } from '../../src/log/logger.js';
import { MqBridge } from '../../src/messaging/mq/bridge.js';
import type { MqDriver } from '../../src/messaging/mq/driver.js';
import { MessagingService, type MessagingEvents } from '../../src/messaging/service.js';
import { openStore, type Store } from '../../src/state/store.js';

const dir = mkdtempSync(join(tmpdir(), 'dltnode-msgevents-'));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
let clockMs = Date.UTC(2026, 0, 1);

interface Party {
  store: Store;
  svc: MessagingService;
  address: Uint8Array;
  text: string;
  seen: { event: string; payload: unknown }[];
  /** What the bridge published: [topic, payload text]. */
  mq: [string, string][];
}
const parties: Party[] = [];
/** Frames each party sent, in order (for replays). */
const wire: { from: Party; to: Uint8Array; frame: Uint8Array }[] = [];
/** Frames from this party are lost on the way (e.g. its automatic receipts). */
let losing: Party | null = null;
/** Frames sent and not yet fully received (a receipt a receive sends is counted before it ends). */
let inFlight = 0;

function recordingDriver(mq: [string, string][]): MqDriver {
  return {
    name: 'mqtt',
    connected: true,
    start: async () => undefined,
    close: async () => undefined,
    publish: async (topic, payload) => {
      mq.push([topic, payload.toString('utf8')]);
    },
  };
}

async function party(name: string): Promise<Party> {
  const key = await generateWalletKey();
  const publicKey = publicKeyOf(key.privateKey);
  const identity = { address: Address.fromPublicKey(publicKey).addressNoChecksum, publicKey, privateKey: privateKeyFromBytes(key.privateKey) };
  const events = new TypedEmitter<MessagingEvents>(() => undefined);
  const seen: Party['seen'] = [];
  for (const e of ['contactRequest', 'contactAccepted', 'chatMessage', 'messageReceipt', 'spixiMessage'] as const) events.on(e, (payload) => seen.push({ event: e, payload }));
  const mq: [string, string][] = [];
  const store = openStore(join(dir, name));
  const p = { store, address: identity.address, text: new Address(identity.address).base58Address, seen, mq } as Party;
  p.svc = new MessagingService({
    store,
    identity,
    network: undefined,
    events,
    log: silentLogger(),
    now: () => clockMs,
    bridge: new MqBridge(recordingDriver(mq)),
    retryIntervalMs: 3_600_000, // passes are driven by the test
    transport: (to, frame) => {
      wire.push({ from: p, to, frame });
      if (losing === p) return true;
      const target = parties.find((q) => hex(q.address) === hex(to));
      if (target) {
        inFlight++;
        setImmediate(() => void target.svc.receive(null, to, frame).finally(() => inFlight--));
      }
      return true;
    },
  });
  p.svc.start();
  parties.push(p);
  return p;
}

/** Waits for `cond`, with retry passes between rounds as the 5-second timer would run them. */
const until = (cond: () => boolean, what: string): Promise<void> =>
  untilWith(cond, what, async () => {
    clockMs += 10_000;
    await Promise.all(parties.map((p) => p.svc.pass()));
  });

let a: Party;
let b: Party;

beforeAll(async () => {
  [a, b] = await Promise.all([party('a'), party('b')]);
  await a.svc.addContact(b.address);
  await until(() => b.seen.some((e) => e.event === 'contactRequest'), 'the request at b');
  await b.svc.acceptContact(a.address);
  await until(() => a.svc.getContact(b.address).handshakeStatus === 3 && b.svc.getContact(a.address).handshakeStatus === 3, 'both at status 3');
  // The handshake's last frames (the nicks, §3.5 steps 4-5, and their receipts) are over too.
  await until(() => outboxSize(a, b) === 0 && outboxSize(b, a) === 0, 'the nicks acknowledged');
}, 60_000);

afterAll(async () => {
  for (const p of parties) {
    await p.svc.stop();
    await p.store.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

const outboxSize = (p: Party, of: Party): number => (p.svc as unknown as { outbox: { size(c: string): number } }).outbox.size(hex(of.address));
const idOf = (m: Record<string, unknown>): Uint8Array => new Uint8Array(Buffer.from(String(m.id), 'base64'));

const friendUpdates = (p: Party): Record<string, unknown>[] => p.mq.filter(([t]) => t === 'FriendStatusUpdate').map(([, s]) => JSON.parse(s) as Record<string, unknown>);

describe('messaging service events', () => {
  it('publishes FriendStatusUpdate (the contact JSON) when online flips, not on every frame', async () => {
    // The handshake's last receipts may still be on the wire (a loaded machine): one from b arriving
    // between the two relay errors below is b heard from again, a flip this test does not count.
    await until(() => inFlight === 0, 'the wire quiet');
    // a heard from b during the handshake: one flip to online.
    const atA = friendUpdates(a);
    expect(atA).toHaveLength(1);
    expect(atA[0]!.online).toBe(true);
    expect(JSON.stringify(atA[0])).toContain(b.text);
    // b's relay answers "not connected" for a frame a sent: offline, published once.
    const sent = wire.filter((w) => w.from === a).at(-1)!;
    const err = MessagingService.relayError(sent.frame, Math.floor(clockMs / 1000))!;
    await a.svc.receive(null, err.recipient, err.message);
    await a.svc.receive(null, err.recipient, err.message);
    expect(friendUpdates(a).map((f) => f.online)).toEqual([true, false]);
    // b is heard from again: back online.
    await b.svc.sendChatMessage(a.address, 'hello', 0);
    await until(() => friendUpdates(a).length === 3, 'the online flip');
    expect(friendUpdates(a).map((f) => f.online)).toEqual([true, false, true]);
    expect(a.svc.getContact(b.address).online).toBe(true);
  });

  it('a read receipt (msgRead, data = the id) marks our message read and confirmed and dequeues it (§3.7 step 6)', async () => {
    losing = b; // b's automatic msgReceived never reaches a
    await a.svc.sendChatMessage(b.address, 'read me', 0);
    await until(() => b.svc.lastMessages(a.address, 10, 0).some((m) => m.message === 'read me'), 'the chat at b');
    losing = null;
    const mine = () => a.svc.lastMessages(b.address, 10, 0).find((m) => m.message === 'read me')!;
    expect(mine().confirmed).toBe(false);
    expect(outboxSize(a, b)).toBe(1);
    const receipts = a.seen.filter((e) => e.event === 'messageReceipt').length;
    await b.svc.sendSpixiMessage(a.address, 8, idOf(mine()), 0, { requireChannel: true });
    await until(() => mine().read === true, 'read at a');
    expect(mine().confirmed).toBe(true);
    expect(outboxSize(a, b)).toBe(0);
    expect(a.seen.filter((e) => e.event === 'messageReceipt').length).toBe(receipts + 1);
    // The read receipt is a receipt, not a spixiMessage (the nicks of the handshake are).
    expect(a.seen.some((e) => e.event === 'spixiMessage' && (e.payload as { message: { data: { type: number } } }).message.data.type === 8)).toBe(false);
    expect(a.mq.some(([t]) => t === 'MsgRead')).toBe(true);
  });

  it('a receipt repeated for a resent message is no second messageReceipt, but a second MQ MsgReceived (QuIXI publishes every receipt, §1.6)', async () => {
    const receipts = () => a.seen.filter((e) => e.event === 'messageReceipt').length;
    const mqReceipts = () => a.mq.filter(([t]) => t === 'MsgReceived').length;
    const [r0, q0] = [receipts(), mqReceipts()];
    await a.svc.sendChatMessage(b.address, 'twice', 0);
    await until(() => a.svc.lastMessages(b.address, 10, 0).find((m) => m.message === 'twice')?.confirmed === true, 'confirmed at a');
    await settle();
    expect([receipts(), mqReceipts()]).toEqual([r0 + 1, q0 + 1]);
    // The same receipt again (b acknowledging a resent copy).
    const receipt = wire.filter((w) => w.from === b).at(-1)!;
    await a.svc.receive(null, a.address, receipt.frame);
    await settle();
    expect([receipts(), mqReceipts()]).toEqual([r0 + 1, q0 + 2]);
  });

  it('a read receipt for an id we never sent is published on MQ MsgRead (handleMsgRead: any read receipt from a contact), no bus event', async () => {
    const receipts = () => a.seen.filter((e) => e.event === 'messageReceipt').length;
    const mqReads = () => a.mq.filter(([t]) => t === 'MsgRead').length;
    const [r0, q0] = [receipts(), mqReads()];
    await b.svc.sendSpixiMessage(a.address, 8, new Uint8Array(16).fill(7), 0, { requireChannel: true });
    await until(() => mqReads() > q0, 'MsgRead at a');
    expect(mqReads()).toBe(q0 + 1);
    expect(receipts()).toBe(r0);
  });

  it("received messages carry the contact's nickname at receipt as senderNick (interface.md)", async () => {
    await b.svc.sendChatMessage(a.address, 'nick?', 0);
    await until(() => a.svc.lastMessages(b.address, 10, 0).some((m) => m.message === 'nick?'), 'the chat at a');
    const got = a.svc.lastMessages(b.address, 10, 0).find((m) => m.message === 'nick?')!;
    expect(got.senderNick).toBe(a.svc.getContact(b.address).nickname);
    expect(got.senderNick).toBe(b.text);
  });

  it('an empty chat is acknowledged but neither stored nor published, as the reference (Chat: its text from a null payload throws)', async () => {
    const chats = () => a.mq.filter(([t]) => t === 'Chat').length;
    const [q0, e0] = [chats(), a.seen.filter((e) => e.event === 'chatMessage').length];
    await b.svc.sendChatMessage(a.address, '', 0);
    const mine = () => b.svc.lastMessages(a.address, 100, 0).find((m) => m.message === '' && m.type === 0);
    await until(() => mine()?.confirmed === true, 'the empty chat acknowledged at b');
    await b.svc.sendChatMessage(a.address, 'after the empty one', 0);
    await until(() => a.svc.lastMessages(b.address, 100, 0).some((m) => m.message === 'after the empty one'), 'the next chat at a');
    expect(a.svc.lastMessages(b.address, 100, 0).filter((m) => m.type === 0 && m.message === '')).toEqual([]);
    expect(a.mq.filter(([t]) => t === 'Chat').map(([, s]) => (JSON.parse(s) as { data: { data: unknown } }).data.data)).not.toContain('');
    expect(chats()).toBe(q0 + 1);
    expect(a.seen.filter((e) => e.event === 'chatMessage').length).toBe(e0 + 1);
  });

  it('an avatar is published only with a payload under 500 000 bytes, as QuIXI (StreamProcessor: data non-null and < 500000)', async () => {
    const avatars = () => a.mq.filter(([t]) => t === 'Avatar').map(([, s]) => (JSON.parse(s) as { data: { data: string } }).data.data);
    const spixi = () => a.seen.filter((e) => e.event === 'spixiMessage').length;
    const s0 = spixi();
    for (const size of [0, 500_000, 499_999, 3]) await b.svc.sendSpixiMessage(a.address, 24, new Uint8Array(size).fill(1), 0, { requireChannel: true });
    await until(() => spixi() === s0 + 4, 'the four avatars at a');
    await settle();
    expect(avatars().map((d) => Buffer.from(d, 'base64').length)).toEqual([499_999, 3]);
  });

  it('an empty nick is never published on Nick and names the contact by its address again (Core: a nick without payload sets the address text)', async () => {
    const nicks = (p: Party): unknown[] => p.mq.filter(([t]) => t === 'Nick').map(([, s]) => (JSON.parse(s) as { data: { data: unknown } }).data.data);
    // Both parties have no nick: the handshake's nick messages went empty, and nothing was published.
    expect(nicks(a)).toEqual([]);
    expect(nicks(b)).toEqual([]);
    await b.svc.sendSpixiMessage(a.address, 2, new Uint8Array(Buffer.from('Bob ✓')), 0, { requireChannel: true });
    await until(() => a.svc.getContact(b.address).nickname === 'Bob ✓' && nicks(a).length > 0, 'the nick at a, published');
    expect(nicks(a)).toEqual(['Bob ✓']);
    await b.svc.sendSpixiMessage(a.address, 2, new Uint8Array(0), 0, { requireChannel: true });
    await until(() => a.svc.getContact(b.address).nickname === b.text, 'the address as nickname again at a');
    await settle();
    expect(nicks(a)).toEqual(['Bob ✓']);
  });
});

