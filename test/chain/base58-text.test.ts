/**
 * The hot-path Base58 (src/chain/base58-text.ts) writes exactly what the formats encoder writes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressToText, encodeBase58 } from '../../src/formats/address.js';
import { addressText, base58Text } from '../../src/chain/base58-text.js';

describe('base58Text', () => {
  it('equals encodeBase58 for any bytes, leading zeros and long keys included', () => {
    fc.assert(
      fc.property(fc.nat(8), fc.uint8Array({ maxLength: 600 }), (zeros, tail) => {
        const bytes = new Uint8Array([...new Uint8Array(zeros), ...tail]);
        expect(base58Text(bytes)).toBe(encodeBase58(bytes));
      }),
      { numRuns: 400 },
    );
    for (const b of [[], [0], [0, 0], [57], [58], [1, 0], [0, 0, 255, 255]]) expect(base58Text(Uint8Array.from(b))).toBe(encodeBase58(Uint8Array.from(b)));
    expect(base58Text(new Uint8Array(1100).fill(255))).toBe(encodeBase58(new Uint8Array(1100).fill(255)));
  });
  it('addressText equals addressToText', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 44, maxLength: 44 }), (rest) => {
        const address = Uint8Array.of(1, ...rest);
        expect(addressText(address)).toBe(addressToText(address));
      }),
      { numRuns: 200 },
    );
  });
});
