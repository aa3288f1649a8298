/**
 * A contact's `online` follows its presence, as QuIXI's updateFriendStatuses does every 2.5 s
 * (QuIXI Node.cs mainLoop; reference-quixi-events §1.7 FriendStatusUpdate): online while we hold
 * a presence of it, offline once we hold none and nothing was heard of it for 30 s (Core
 * requestPresenceTimeout); each flip published once. Relays push clients no keep-alives here, so
 * a missing or stale presence is asked for again (at most every 30 s). One service on LMDB, a
 * network stand-in holding the presence list, a recording MQ driver; the test moves the clock and
 * runs the status update itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TypedEmitter } from '../../src/events.js';
import { Address } from '../../src/formats/address.js';
import { generateWalletKey, privateKeyFromBytes, publicKeyOf } from '../../src/formats/rsa.js';
import { silentLogger, type NodeLogger } from '../../src/log/logger.js';
import { MqBridge } from '../../src/messaging/mq/bridge.js';
import type { MqDriver } from '../../src/messaging/mq/driver.js';
import { FRIEND_STATUS_INTERVAL_MS, MessagingService, type MessagingEvents } from '../../src/messaging/service.js';
import type { Link } from '../../src/network/link.js';
import type { NodeNetwork } from '../../src/network/node-network.js';
import type { PresenceAddress, PresenceEntry } from '../../src/network/presence.js';
import { openStore, type Store } from '../../src/state/store.js';

const dir = mkdtempSync(join(tmpdir(), 'dltnode-msgstatus-'));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
let clockMs = Date.UTC(2026, 0, 1);
const nowS = () => Math.floor(clockMs / 1000);

const presences = new Map<string, PresenceEntry>();
/** Addresses of the getPresence2 questions sent on our link, in order (hex). */
const asked: string[] = [];
const link = { isOpen: true, peer: { endpoint: '127.0.0.1:7001', addressText: 'relay' }, remote: '127.0.0.1:7001', send: (m: { address: Uint8Array }) => (asked.push(hex(m.address)), true) };
const network = {
  onStreamMessage: null,
  peers: { presence: { get: (a: Uint8Array) => presences.get(hex(a)) ?? null }, links: () => [link] },
} as unknown as NodeNetwork;

const mq: [string, string][] = [];
const driver: MqDriver = {
  name: 'mqtt',
  connected: true,
  start: async () => undefined,
  close: async () => undefined,
  publish: async (topic, payload) => {
    mq.push([topic, payload.toString('utf8')]);
  },
};
/** Frames the service sent (its contact request). */
const sent: Uint8Array[] = [];

let store: Store;
let svc: MessagingService;
let contact: Uint8Array;
let identity: { address: Uint8Array; publicKey: Uint8Array; privateKey: ReturnType<typeof privateKeyFromBytes> };

function startService(log: NodeLogger = silentLogger()): MessagingService {
  return new MessagingService({
    store,
    identity,
    network,
    events: new TypedEmitter<MessagingEvents>(() => undefined),
    log,
    now: () => clockMs,
    bridge: new MqBridge(driver),
    retryIntervalMs: 3_600_000,
    transport: (_to, frame) => (sent.push(frame), true),
  });
}

async function newAddress(): Promise<Uint8Array> {
  const key = await generateWalletKey();
  return Address.fromPublicKey(publicKeyOf(key.privateKey)).addressNoChecksum;
}

function device(host: string, lastSeen: number): PresenceAddress {
  return { deviceId: new Uint8Array(32).fill(lastSeen & 0xff), host, type: 'C', nodeVersion: 'test', lastSeen, powSolution: null, signature: new Uint8Array(0), keepAlive: new Uint8Array(0) };
}

function setPresence(...devices: PresenceAddress[]): void {
  if (devices.length === 0) presences.delete(hex(contact));
  else presences.set(hex(contact), { address: contact, publicKey: new Uint8Array(0), devices: new Map(devices.map((d) => [hex(d.deviceId), d])) });
}

const updates = (): boolean[] => mq.filter(([t]) => t === 'FriendStatusUpdate').map(([, s]) => (JSON.parse(s) as { online: boolean }).online);
const askedForContact = (): number => asked.filter((a) => a === hex(contact)).length;

beforeAll(async () => {
  const key = await generateWalletKey();
  const publicKey = publicKeyOf(key.privateKey);
  identity = { address: Address.fromPublicKey(publicKey).addressNoChecksum, publicKey, privateKey: privateKeyFromBytes(key.privateKey) };
  contact = await newAddress();
  store = openStore(join(dir, 'node'));
  svc = startService();
  await svc.addContact(contact);
}, 60_000);

afterAll(async () => {
  await svc.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a contact's online follows its presence (QuIXI updateFriendStatuses)", () => {
  it('asks for a missing presence, at most every 30 s', async () => {
    expect(svc.getContact(contact).online).toBe(false);
    await svc.updateFriendStatuses();
    expect(askedForContact()).toBe(1);
    clockMs += 10_000;
    await svc.updateFriendStatuses();
    expect(askedForContact()).toBe(1);
    clockMs += 25_000;
    await svc.updateFriendStatuses();
    expect(askedForContact()).toBe(2);
    expect(updates()).toEqual([]);
  });

  it('goes online when its presence is held, published once', async () => {
    setPresence(device('127.0.0.1:7002', nowS()));
    await svc.updateFriendStatuses();
    await svc.updateFriendStatuses();
    expect(svc.getContact(contact).online).toBe(true);
    expect(updates()).toEqual([true]);
  });

  it('asks again for a presence older than a client keep-alive interval (100 s)', async () => {
    const before = askedForContact();
    clockMs += 60_000;
    await svc.updateFriendStatuses();
    expect(askedForContact()).toBe(before);
    clockMs += 50_000;
    await svc.updateFriendStatuses();
    expect(askedForContact()).toBe(before + 1);
    expect(updates()).toEqual([true]);
  });

  it('goes offline once no presence is held and nothing was heard of it for 30 s', async () => {
    setPresence();
    await svc.updateFriendStatuses();
    expect(svc.getContact(contact).online).toBe(false);
    expect(updates()).toEqual([true, false]);
    await svc.updateFriendStatuses();
    expect(updates()).toEqual([true, false]);
  });

  it('a relay\'s "not connected" answer counts its devices seen before it as gone; a newer keep-alive brings it back', async () => {
    setPresence(device('127.0.0.1:7002', nowS()));
    await svc.updateFriendStatuses();
    expect(updates()).toEqual([true, false, true]);
    clockMs += 5_000;
    const err = MessagingService.relayError(sent[0]!, nowS())!;
    await svc.receive(link as unknown as Link, err.recipient, err.message);
    expect(svc.getContact(contact).online).toBe(false);
    expect(updates()).toEqual([true, false, true, false]);
    // Its old device on another relay is still in the presence list: it stays offline.
    setPresence(device('127.0.0.1:7002', nowS() - 5), device('127.0.0.1:7003', nowS() - 20));
    await svc.updateFriendStatuses();
    expect(svc.getContact(contact).online).toBe(false);
    clockMs += 5_000;
    setPresence(device('127.0.0.1:7003', nowS()));
    await svc.updateFriendStatuses();
    expect(svc.getContact(contact).online).toBe(true);
    expect(updates()).toEqual([true, false, true, false, true]);
  });

  it('after a restart, a contact stored online has 30 s for its presence to arrive before it goes offline (no flap)', async () => {
    await svc.stop();
    setPresence();
    clockMs += 3_600_000;
    svc = startService();
    expect(svc.getContact(contact).online).toBe(true);
    const before = askedForContact();
    await svc.updateFriendStatuses();
    expect(svc.getContact(contact).online).toBe(true);
    // Within its grace a missing presence is asked for as often as a route is (every 3 s), not every 30 s.
    clockMs += 5_000;
    await svc.updateFriendStatuses();
    expect(askedForContact()).toBe(before + 2);
    clockMs += 15_000;
    setPresence(device('127.0.0.1:7003', nowS()));
    await svc.updateFriendStatuses();
    expect(updates()).toEqual([true, false, true, false, true]);
    // Gone again: 30 s after its last keep-alive.
    setPresence();
    clockMs += 31_000;
    await svc.updateFriendStatuses();
    expect(updates()).toEqual([true, false, true, false, true, false]);
  });

  it("the timer's update that fails (the store closing under it) is logged, never an unhandled rejection", async () => {
    const lines: string[] = [];
    const log = pino({ level: 'error' }, { write: (line: string) => void lines.push(line) }) as unknown as NodeLogger;
    const failing = startService(log);
    failing.updateFriendStatuses = () => Promise.reject(new Error('store closed'));
    failing.start();
    try {
      // Bounded: the timer fires every FRIEND_STATUS_INTERVAL_MS; four of them at most.
      for (let i = 0; i < 40 && lines.length === 0; i++) await new Promise((r) => setTimeout(r, FRIEND_STATUS_INTERVAL_MS / 10));
    } finally {
      await failing.stop();
    }
    expect(lines.some((l) => l.includes('contact status update failed') && l.includes('store closed'))).toBe(true);
  });
});
