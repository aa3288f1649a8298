/**
 * Two (or more) messaging services on LMDB whose frames are carried in memory and whose handshake
 * crypto runs on this thread, for the service-level tests of handshakes and their ordering.
 * Retry passes are driven by the test (`passes`), with a clock it moves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TypedEmitter } from '../../src/events.js';
import { Address } from '../../src/formats/address.js';
import { generateWalletKey, privateKeyFromBytes, publicKeyOf } from '../../src/formats/rsa.js';
import { silentLogger } from '../../src/log/logger.js';
import { MessagingService, type MessagingEvents, type MessagingServiceOptions } from '../../src/messaging/service.js';
import { openStore, type Store } from '../../src/state/store.js';

export interface Party {
  store: Store;
  svc: MessagingService;
  address: Uint8Array;
  seen: { event: string; payload: unknown }[];
  /** Frames this party sent, in order. */
  sent: Uint8Array[];
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** Lets frames in flight (setImmediate hops) and their async handling finish. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  await new Promise((r) => setTimeout(r, 20));
}

/** Waits (bounded: 150 rounds) until `cond`, running `tick` (e.g. retry passes) between rounds. */
export async function until(cond: () => boolean, what: string, tick?: () => Promise<void>): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (cond()) return;
    await tick?.();
    await settle();
  }
  throw new Error(`timed out: ${what}`);
}

/** A set of services in a temporary directory; `close` stops them and removes it. */
export function serviceParties(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const parties: Party[] = [];
  /** Addresses (hex) no frame reaches: the transport answers false, as with no route. */
  const unreachable = new Set<string>();
  let clockMs = Date.UTC(2026, 0, 1);
  return {
    parties,
    /** Cuts (true) or restores (false) every route to `p`. */
    setUnreachable(p: Party, cut: boolean): void {
      if (cut) unreachable.add(hex(p.address));
      else unreachable.delete(hex(p.address));
    },
    async party(name: string, extra: Pick<MessagingServiceOptions, 'nick'> = {}): Promise<Party> {
      const key = await generateWalletKey();
      const publicKey = publicKeyOf(key.privateKey);
      const identity = { address: Address.fromPublicKey(publicKey).addressNoChecksum, publicKey, privateKey: privateKeyFromBytes(key.privateKey) };
      const events = new TypedEmitter<MessagingEvents>(() => undefined);
      const seen: Party['seen'] = [];
      for (const e of ['contactRequest', 'contactAccepted', 'chatMessage', 'messageReceipt', 'spixiMessage'] as const) events.on(e, (payload) => seen.push({ event: e, payload }));
      const sent: Uint8Array[] = [];
      const store = openStore(join(dir, name));
      const svc = new MessagingService({
        store,
        identity,
        network: undefined,
        events,
        log: silentLogger(),
        now: () => clockMs,
        retryIntervalMs: 3_600_000, // passes are driven by the test
        ...extra,
        transport: (to, frame) => {
          if (unreachable.has(hex(to))) return false;
          sent.push(frame);
          const target = parties.find((p) => hex(p.address) === hex(to));
          if (target) setImmediate(() => void target.svc.receive(null, to, frame));
          return true;
        },
      });
      svc.start();
      const p = { store, svc, address: identity.address, seen, sent };
      parties.push(p);
      return p;
    },
    /** Retry passes of every service, as the 5-second timer would run them. */
    async passes(): Promise<void> {
      clockMs += 10_000;
      await Promise.all(parties.map((p) => p.svc.pass()));
    },
    /** The chat texts `p` holds from or to `of`, oldest first. */
    messages: (p: Party, of: Party): string[] => p.svc.lastMessages(of.address, 100, 0).filter((m) => m.type === 0).map((m) => String(m.message)),
    async close(): Promise<void> {
      for (const p of parties) {
        await p.svc.stop();
        await p.store.close();
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
