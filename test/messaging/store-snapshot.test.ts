/**
 * The messaging store writes what it was given when it was called (store.ts): LMDB runs a write's
 * callback later, in its next transaction, so a record serialized then would carry changes made
 * after the call — e.g. acceptContact's `acceptSent` committed by an earlier, unrelated putContact
 * without the accept frame that belongs with it, which a kill -9 would then leave unsent for good.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MessagingStore, type StoredContact } from '../../src/messaging/store.js';
import { openStore } from '../../src/state/store.js';

const dir = mkdtempSync(join(tmpdir(), 'dltnode-msgstore-'));
const store = openStore(join(dir, 'db'));
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function contact(first: number): StoredContact {
  const address = new Uint8Array(45).fill(first);
  address[0] = 1;
  return {
    record: {
      address,
      publicKey: null,
      approved: false,
      handshakeStatus: 1,
      state: 1,
      protocolVersion: 1,
      streamCapabilities: 15,
      addedTimestamp: 1,
      lastReceivedHandshakeMessageTimestamp: 1,
      lastSentHandshakeTimestamp: 0,
      acceptSent: false,
      aesKey: null,
      chachaKey: null,
      ecdhPrivateKey: null,
      mlkemPrivateKey: null,
      aesSalt: null,
    },
    extras: { online: true },
  };
}

describe('messaging store writes', () => {
  it('putContact and putContactWithOutbox commit the record as it was at the call, not as changed before the commit', async () => {
    const db = new MessagingStore(store);
    const a = contact(2);
    const b = contact(3);
    const writes = [db.putContact(a), db.putContactWithOutbox(b, [])];
    // Changed in memory right after the calls (as acceptContact does on the same object).
    for (const c of [a, b]) {
      c.record.acceptSent = true;
      c.record.approved = true;
      c.extras.online = false;
    }
    await Promise.all(writes);
    for (const c of [a, b]) {
      const stored = db.getContact(c.record.address)!;
      expect([stored.record.acceptSent, stored.record.approved, stored.extras.online]).toEqual([false, false, true]);
    }
  });
});
