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
import type { Identity } from '../../src/messaging/handshake.js';
import { MessagingService, type MessagingEvents, type MessagingServiceOptions } from '../../src/messaging/service.js';
import { openStore, type Store } from '../../src/state/store.js';

export interface Party {
  store: Store;
  svc: MessagingService;
  address: Uint8Array;
  seen: { event: string; payload: unknown }[];
  /** Frames this party sent, in order. */
  sent: Uint8Array[];
  /** The messaging identity (kept for a restart on the same store). */
  identity: Identity;
  /** Options the party was made with (kept for a restart). */
  extra: Pick<MessagingServiceOptions, 'nick'>;
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
  /** Service instances killed by `crashAfterWrites`: nothing they send leaves. */
  const crashed = new Set<MessagingService>();
  const originalWrite = new Map<Party, Store['write']>();
  function startService(p: Party): MessagingService {
    const events = new TypedEmitter<MessagingEvents>(() => undefined);
    for (const e of ['contactRequest', 'contactAccepted', 'chatMessage', 'messageReceipt', 'spixiMessage'] as const) events.on(e, (payload) => p.seen.push({ event: e, payload }));
    const svc: MessagingService = new MessagingService({
      store: p.store,
      identity: p.identity,
      network: undefined,
      events,
      log: silentLogger(),
      now: () => clockMs,
      retryIntervalMs: 3_600_000, // passes are driven by the test
      ...p.extra,
      transport: (to, frame) => {
        if (unreachable.has(hex(to)) || crashed.has(svc)) return false;
        p.sent.push(frame);
        const target = parties.find((x) => hex(x.address) === hex(to));
        if (target) setImmediate(() => void (crashed.has(target.svc) ? undefined : target.svc.receive(null, to, frame)));
        return true;
      },
    });
    svc.start();
    return svc;
  }
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
      const store = openStore(join(dir, name));
      const p: Party = { store, svc: undefined as unknown as MessagingService, address: identity.address, seen: [], sent: [], identity, extra };
      p.svc = startService(p);
      parties.push(p);
      return p;
    },
    /**
     * A kill -9 of `p` once `writesLeft` more of its store writes have committed: the next write
     * and every later one never commit (their promises never settle, so the code after them never
     * runs) and nothing more leaves `p`. `restart` brings it back on what was committed.
     */
    crashAfterWrites(p: Party, writesLeft: number): void {
      const write = p.store.write;
      let left = writesLeft;
      p.store.write = (<T>(fn: () => T): Promise<T> => {
        if (left-- > 0) return write(fn);
        crashed.add(p.svc);
        return new Promise<T>(() => undefined);
      }) as Store['write'];
      originalWrite.set(p, write);
    },
    /** Whether `p` has crashed (a write after `crashAfterWrites`' budget was attempted). */
    hasCrashed: (p: Party): boolean => crashed.has(p.svc),
    /** Starts `p` again on its store (the same data dir), as a restarted process. */
    restart(p: Party): void {
      const write = originalWrite.get(p);
      if (write) p.store.write = write;
      originalWrite.delete(p);
      crashed.add(p.svc);
      // The dead instance's writes never settle: its stop() would wait for them; its timer goes now.
      void p.svc.stop();
      p.svc = startService(p);
    },
    /** Retry passes of every service, as the 5-second timer would run them. */
    async passes(): Promise<void> {
      clockMs += 10_000;
      await Promise.all(parties.filter((p) => !crashed.has(p.svc)).map((p) => p.svc.pass()));
    },
    /** The chat texts `p` holds from or to `of`, oldest first. */
    messages: (p: Party, of: Party): string[] => p.svc.lastMessages(of.address, 100, 0).filter((m) => m.type === 0).map((m) => String(m.message)),
    async close(): Promise<void> {
      for (const p of parties) {
        if (originalWrite.has(p)) p.store.write = originalWrite.get(p)!;
        if (!crashed.has(p.svc)) await p.svc.stop();
        await p.store.close();
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
