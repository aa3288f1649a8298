import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readU64Key, u64Key, writeU64BE } from '../../src/state/keys.js';

describe('state keys', () => {
  it('sort in numeric order as bytes (chain order)', () => {
    const values = [0n, 1n, 255n, 256n, 65_535n, 2n ** 32n, 2n ** 64n - 1n];
    const keys = values.map(u64Key);
    const sorted = [...keys].sort(Buffer.compare);
    expect(sorted.map(readU64Key)).toEqual(values);
  });

  it('property: writeU64BE is writeBigUInt64BE, for bigints and numbers, on both sides of 2^53', () => {
    const safe = BigInt(Number.MAX_SAFE_INTEGER);
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(0n, 2n ** 32n - 1n, 2n ** 32n, safe, safe + 1n, 2n ** 64n - 1n), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.bigInt({ min: 0n, max: safe })), (n) => {
        const expected = Buffer.alloc(10);
        expected.writeBigUInt64BE(n, 1);
        const out = Buffer.alloc(10);
        writeU64BE(out, 1, n);
        expect(out.toString('hex')).toBe(expected.toString('hex'));
        if (n <= safe) {
          out.fill(0);
          writeU64BE(out, 1, Number(n));
          expect(out.toString('hex')).toBe(expected.toString('hex'));
        }
      }),
    );
    expect(() => writeU64BE(Buffer.alloc(8), 0, -1n)).toThrow(RangeError);
    expect(() => writeU64BE(Buffer.alloc(8), 0, 2n ** 64n)).toThrow(RangeError);
    expect(() => writeU64BE(Buffer.alloc(8), 0, -1)).toThrow(RangeError);
  });

  it('rejects keys of the wrong width', () => {
    expect(() => readU64Key(new Uint8Array(7))).toThrow(RangeError);
  });
});
