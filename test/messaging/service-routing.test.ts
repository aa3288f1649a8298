/**
 * How the messaging service routes through the network (reference-network §7.1): a frame goes
 * through a link to the relay the contact's freshest device names; a relay's "not connected"
 * answer (step 6) makes the service ask for a fresh presence and leave that relay alone until a
 * newer presence names it again; a relay it cannot reach makes it ask for a fresh presence too.
 * The network is a stand-in that records what the service sends on each link.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TypedEmitter } from '../../src/events.js';
import { Address } from '../../src/formats/address.js';
import { generateWalletKey, privateKeyFromBytes, publicKeyOf } from '../../src/formats/rsa.js';
import { silentLogger } from '../../src/log/logger.js';
import { MessagingService, type MessagingEvents } from '../../src/messaging/service.js';
import type { Link } from '../../src/network/link.js';
import type { NodeNetwork } from '../../src/network/node-network.js';
import { MessageCode } from '../../src/network/protocol/codes.js';
import { openStore, type Store } from '../../src/state/store.js';
import { settle } from './service-pair.js';

const RELAY_1 = '127.0.0.1:41001';
const RELAY_2 = '127.0.0.1:41002';
const RELAY_GONE = '127.0.0.1:41003';
const T0 = Date.UTC(2026, 0, 1);

let dir: string;
let store: Store;
let svc: MessagingService;
let clockMs = T0;
const nowSeconds = () => Math.floor(clockMs / 1000);
const bob = new Uint8Array(45).fill(7);
bob[0] = 1;
/** The contact's devices as its presence names them. */
const devices = new Map<string, { type: string; host: string; lastSeen: number }>();
const sent: { host: string; frame: Uint8Array }[] = [];
const presenceAsked: string[] = [];
const dialled: string[] = [];

function relayLink(host: string): Link {
  return {
    isOpen: true,
    peer: { endpoint: host },
    remote: host,
    send: (m: { code: number }) => {
      if (m.code === MessageCode.getPresence2) presenceAsked.push(host);
    },
  } as unknown as Link;
}
const links = [relayLink(RELAY_1), relayLink(RELAY_2)];

const network = {
  peers: {
    presence: { get: (a: Uint8Array) => (Buffer.compare(Buffer.from(a), Buffer.from(bob)) === 0 && devices.size > 0 ? { devices } : undefined) },
    links: () => links,
    connect: (host: string) => void dialled.push(host),
  },
  sendStream: (link: Link, _to: Uint8Array, frame: Uint8Array) => {
    sent.push({ host: link.peer!.endpoint, frame });
    return true;
  },
} as unknown as NodeNetwork;

async function forcedPass(): Promise<void> {
  clockMs += 10_000;
  await svc.pass({ force: true });
  await settle();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dltnode-routing-'));
  const key = await generateWalletKey();
  const publicKey = publicKeyOf(key.privateKey);
  const identity = { address: Address.fromPublicKey(publicKey).addressNoChecksum, publicKey, privateKey: privateKeyFromBytes(key.privateKey) };
  store = openStore(join(dir, 'alice'));
  svc = new MessagingService({
    store,
    identity,
    network,
    events: new TypedEmitter<MessagingEvents>(() => undefined),
    log: silentLogger(),
    now: () => clockMs,
    retryIntervalMs: 3_600_000, // passes are driven by the test
  });
  svc.start();
}, 60_000);

afterAll(async () => {
  await svc.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  sent.length = 0;
  presenceAsked.length = 0;
  dialled.length = 0;
});

describe('messaging routes through the relays (§7.1)', () => {
  it('sends through the relay of the freshest device; a "not connected" answer asks for a fresh presence and leaves that relay until a newer presence names it', async () => {
    devices.set('old', { type: 'C', host: RELAY_1, lastSeen: nowSeconds() - 60 });
    await svc.addContact(bob);
    await forcedPass();
    expect(sent.map((s) => s.host)).toContain(RELAY_1);
    const request = sent.find((s) => s.host === RELAY_1)!.frame;

    // relay-1: the contact is not connected here.
    sent.length = 0;
    presenceAsked.length = 0;
    const answer = MessagingService.relayError(request, nowSeconds())!;
    await svc.receive(links[0]!, answer.recipient, answer.message);
    await settle();
    expect(svc.getContact(bob).online).toBe(false);
    expect(presenceAsked.sort()).toEqual([RELAY_1, RELAY_2]);

    // The presence still names only relay-1, seen before its answer: nothing goes there again.
    await forcedPass();
    expect(sent).toEqual([]);

    // A fresh presence names relay-2: the request goes there.
    devices.set('new', { type: 'C', host: RELAY_2, lastSeen: nowSeconds() });
    await forcedPass();
    expect(sent.map((s) => s.host)).toEqual([RELAY_2]);

    // The contact comes back to relay-1 (a keep-alive after the answer): relay-1 is a route again.
    devices.delete('new');
    devices.set('old', { type: 'C', host: RELAY_1, lastSeen: nowSeconds() + 1 });
    sent.length = 0;
    await forcedPass();
    expect(sent.map((s) => s.host)).toEqual([RELAY_1]);
  });

  it('a presence naming a relay it has no link to: dials it and asks for a fresh presence', async () => {
    devices.clear();
    devices.set('elsewhere', { type: 'C', host: RELAY_GONE, lastSeen: nowSeconds() + 2 });
    await forcedPass();
    expect(sent).toEqual([]);
    expect(dialled).toEqual([RELAY_GONE]);
    expect(presenceAsked.sort()).toEqual([RELAY_1, RELAY_2]);
    // Not handed to the dialer on every pass; again after a minute (a relay the dialer never
    // reached is dropped from its targets after a few dials, and may have come back).
    await forcedPass();
    expect(dialled).toEqual([RELAY_GONE]);
    for (let i = 0; i < 6; i++) await forcedPass();
    expect(dialled).toEqual([RELAY_GONE, RELAY_GONE]);
  });

  it('a pass asked for while one runs is run after it (forced if asked), and its promise waits for it', async () => {
    devices.clear();
    devices.set('here', { type: 'C', host: RELAY_1, lastSeen: nowSeconds() + 5 });
    await forcedPass();
    const perPass = sent.length;
    expect(perPass).toBeGreaterThan(0);
    sent.length = 0;
    clockMs += 10_000;
    // The passes the previous test's route questions started (kick: 0.1 s to 2.6 s later, longer
    // under load) must be over: a pass running at the first call below would take both calls
    // into the one queued behind it.
    const st = svc as unknown as { passRunning: unknown; kicking: boolean };
    for (let i = 0; i < 200 && (st.kicking || st.passRunning !== null); i++) await settle();
    expect(st.kicking || st.passRunning !== null).toBe(false);
    // The second call comes while the first runs: it is not dropped, and not run unforced.
    const first = svc.pass({ force: true });
    const second = svc.pass({ force: true });
    await second;
    expect(sent.length).toBe(2 * perPass);
    await first;
  });

  it('forgets relay hosts dialled and presences asked once their interval is over: hosts a contact named once, and removed contacts, do not pile up', async () => {
    const st = svc as unknown as { dialledAt: Map<string, number>; presenceAskedAt: Map<string, number> };
    const rounds = 20;
    for (let i = 0; i < rounds; i++) {
      // The contact moved to a relay not linked yet; another contact is added (no presence known:
      // asked for) and removed again.
      devices.clear();
      devices.set(`moved-${i}`, { type: 'C', host: `127.0.0.1:${42000 + i}`, lastSeen: nowSeconds() + 10 });
      const other = new Uint8Array(45).fill(20 + i);
      other[0] = 1;
      await svc.addContact(other);
      await forcedPass();
      await svc.removeContact(other);
    }
    expect(dialled.length).toBe(rounds);
    // Each pass moves the clock 10 s: only hosts dialled within the last minute (RELAY_REDIAL_MS)
    // and addresses asked for within the last 3 s (PRESENCE_ASK_INTERVAL_MS) are held.
    expect(st.dialledAt.size).toBeLessThanOrEqual(7);
    expect(st.presenceAskedAt.size).toBeLessThanOrEqual(2);
  });
});
