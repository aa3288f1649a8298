// mergeDataRecords (reference-names §5.4) finds records by checksum. It searched the whole list
// for every change (byte comparisons growing with changes × records): one updateNameRecord of
// 50,000 entries held the node's event loop for minutes before failing on capacity. The number of
// byte comparisons is counted here (no timing), and the merge semantics are checked alongside.
import { describe, expect, it, vi } from 'vitest';

const counter = vi.hoisted(() => ({ equalBytes: 0 }));
vi.mock('../../src/formats/bytes.js', async (importOriginal) => {
  const bytes = await importOriginal<typeof import('../../src/formats/bytes.js')>();
  return {
    ...bytes,
    equalBytes: (a: Uint8Array, b: Uint8Array): boolean => {
      counter.equalBytes++;
      return bytes.equalBytes(a, b);
    },
  };
});

const { dataRecordChecksum } = await import('../../src/names/data-record.js');
const { mergeDataRecords } = await import('../../src/names/rules.js');
type DataRecord = import('../../src/names/data-record.js').DataRecord;
type NameRecord = import('../../src/names/name-record.js').NameRecord;

const rec = (n: number, value = `v${n}`): DataRecord => {
  const r: DataRecord = { key: new Uint8Array(64).fill(n % 251), ttl: n, data: new TextEncoder().encode(value), checksum: null };
  return { ...r, checksum: dataRecordChecksum(r) };
};
const name = (records: DataRecord[]): NameRecord => ({
  id: new Uint8Array(65).fill(0x40),
  registrationBlockHeight: 1n,
  capacity: 10,
  nextPkHash: new Uint8Array(45),
  recoveryHash: new Uint8Array(45),
  sequence: 0n,
  allowSubnames: false,
  subnamePrice: 0n,
  subnameFeeRecipient: null,
  dataRecords: records,
  dataMerkleRoot: null,
  signaturePk: null,
  signature: null,
  expirationBlockHeight: 100n,
  updatedBlockHeight: 1n,
});
const added = (r: DataRecord): DataRecord => ({ ...r, checksum: null });

describe('mergeDataRecords cost', () => {
  it('adds n records to m stored ones with no per-record search of the list', () => {
    const stored = Array.from({ length: 2_000 }, (_, i) => rec(i));
    const changes = Array.from({ length: 3_000 }, (_, i) => added(rec(10_000 + i)));
    counter.equalBytes = 0;
    const merged = mergeDataRecords(name(stored), changes);
    expect(merged).toHaveLength(5_000);
    // A list search per change compared at least m + n(n−1)/2 ≈ 4.5 million pairs.
    expect(counter.equalBytes).toBeLessThan(5_000);
  });

  it('keeps §5.4 semantics: replacement in place, deletion, append, identical record and unknown checksum refused', () => {
    const [a, b, c] = [rec(1), rec(2), rec(3)];
    const b2 = rec(2, 'new value');
    const d = rec(4);
    const merged = mergeDataRecords(name([a!, b!, c!]), [
      { ...b2, checksum: b!.checksum },
      { key: a!.key, ttl: 0, data: null, checksum: a!.checksum },
      added(d),
    ]);
    expect(merged.map((r) => r.ttl)).toEqual([2, 3, 4]);
    expect(merged[0]!.data).toEqual(b2.data);
    expect(merged[0]!.checksum).toEqual(dataRecordChecksum(b2));
    // A record deleted earlier in the same update is gone for later changes.
    expect(() => mergeDataRecords(name([a!]), [{ key: a!.key, ttl: 0, data: null, checksum: a!.checksum }, { key: a!.key, ttl: 0, data: null, checksum: a!.checksum }])).toThrow(/no record of this name has the given checksum/);
    // A replaced record's old checksum is gone; its new one is taken.
    expect(() => mergeDataRecords(name([a!, b!]), [{ ...b2, checksum: b!.checksum }, { ...b2, checksum: b!.checksum }])).toThrow(/no record of this name/);
    expect(() => mergeDataRecords(name([a!, b!]), [{ ...b2, checksum: b!.checksum }, added(b2)])).toThrow(/identical record already exists/);
    expect(() => mergeDataRecords(name([a!]), [added(a!)])).toThrow(/identical record already exists/);
    expect(() => mergeDataRecords(name([a!]), [{ ...a!, checksum: a!.checksum }])).toThrow(/identical record already exists/);
    expect(() => mergeDataRecords(name([a!]), [added(d), added(d)])).toThrow(/identical record already exists/);
  });
});
