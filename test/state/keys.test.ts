import { describe, expect, it } from 'vitest';
import { readU64Key, u64Key } from '../../src/state/keys.js';

describe('state keys', () => {
  it('sort in numeric order as bytes (chain order)', () => {
    const values = [0n, 1n, 255n, 256n, 65_535n, 2n ** 32n, 2n ** 64n - 1n];
    const keys = values.map(u64Key);
    const sorted = [...keys].sort(Buffer.compare);
    expect(sorted.map(readU64Key)).toEqual(values);
  });

  it('rejects keys of the wrong width', () => {
    expect(() => readU64Key(new Uint8Array(7))).toThrow(RangeError);
  });
});
