/**
 * Differential: our limb-wise Base58 encoder (src/formats/base58.ts) writes exactly what the
 * reference library `bs58` writes, and decodes back.
 */
import bs58 from 'bs58';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase58, encodeBase58 } from '../../src/formats/base58.js';

const base58Text = encodeBase58;

describe('encodeBase58', () => {
  it('equals bs58.encode for any bytes, leading zeros and long keys included', () => {
    fc.assert(
      fc.property(fc.nat(8), fc.uint8Array({ maxLength: 600 }), (zeros, tail) => {
        const bytes = new Uint8Array([...new Uint8Array(zeros), ...tail]);
        expect(base58Text(bytes)).toBe(bs58.encode(bytes));
        expect(decodeBase58(base58Text(bytes), 'text')).toEqual(bytes);
      }),
      { numRuns: 400 },
    );
    for (const b of [[], [0], [0, 0], [57], [58], [1, 0], [0, 0, 255, 255]]) expect(base58Text(Uint8Array.from(b))).toBe(bs58.encode(Uint8Array.from(b)));
    expect(base58Text(new Uint8Array(1100).fill(255))).toBe(bs58.encode(new Uint8Array(1100).fill(255)));
  });
  it('rejects text outside the alphabet, naming the character', () => {
    expect(() => decodeBase58('abc0def', 'id')).toThrow(/character "0" at position 3/);
    expect(() => decodeBase58('1'.repeat(300), 'id')).toThrow(/at most 256/);
  });
});
