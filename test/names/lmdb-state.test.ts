// LmdbNameState: the same behaviour as the Map state, persisted, with the expiry index.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/state/store.js';
import { LmdbNameState } from '../../src/names/lmdb-state.js';
import { decodeStoredName, encodeStoredName } from '../../src/names/name-record.js';
import { nameId } from '../../src/names/id.js';
import type { NameRecord } from '../../src/names/name-record.js';

const dir = mkdtempSync(join(tmpdir(), 'names-lmdb-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const rec = (name: string, expiration: bigint): NameRecord => ({
  id: nameId(name, 'IxiReg'),
  registrationBlockHeight: 1n,
  capacity: 10,
  nextPkHash: Uint8Array.from([0, ...new Uint8Array(32).fill(1)]),
  recoveryHash: Uint8Array.from([0, ...new Uint8Array(32).fill(2)]),
  sequence: 3n,
  allowSubnames: false,
  subnamePrice: 0n,
  subnameFeeRecipient: null,
  dataRecords: [{ key: new Uint8Array(64).fill(9), ttl: -1, data: Uint8Array.of(1, 2, 3), checksum: new Uint8Array(64).fill(4) }],
  dataMerkleRoot: new Uint8Array(64).fill(4),
  signaturePk: Uint8Array.of(5),
  signature: Uint8Array.of(6),
  expirationBlockHeight: expiration,
  updatedBlockHeight: 2n,
});

describe('LmdbNameState', () => {
  it('stores, indexes expiry, counts and keeps meta', async () => {
    const store = openStore(dir);
    const state = new LmdbNameState(store);
    const a = rec('alpha', 100n);
    const b = rec('beta', 300n);
    expect(decodeStoredName(encodeStoredName(a))).toEqual(a);
    await store.write(() => {
      state.put(a);
      state.put(b);
      state.put({ ...a, expirationBlockHeight: 200n });
      state.setMeta({ rewardPool: 12345678901234567890n, highestExpiration: 300n });
    });
    expect(state.count()).toBe(2);
    expect(state.get(a.id)!.expirationBlockHeight).toBe(200n);
    expect(state.expiredBefore(201n)).toEqual([a.id]);
    expect(state.expiredBefore(200n)).toEqual([]);
    expect([...state.all()].length).toBe(2);
    expect(state.getMeta().rewardPool).toBe(12345678901234567890n);
    await store.write(() => state.delete(a.id));
    expect(state.get(a.id)).toBeUndefined();
    expect(state.count()).toBe(1);
    expect(state.expiredBefore(1000n)).toEqual([b.id]);
    await store.close();
  });
});
