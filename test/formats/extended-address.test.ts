import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Address } from '../../src/formats/address.js';
import { fromHex, toHex } from '../../src/formats/bytes.js';
import { AddressError, VarintError } from '../../src/formats/errors.js';
import { NAME_REWARD_POOL_ADDRESS } from '../../src/formats/constants.js';
import {
  decodeExtendedAddress,
  encodeExtendedAddress,
  ExtendedAddressFlag,
  formatExtendedAddress,
  parseExtendedAddress,
  validateExtendedAddress,
  type ExtendedAddress,
} from '../../src/formats/extended-address.js';

const BASE = '4iMKArchGjmLsZFsj2tYrBgPjjypvEwquB2pnbEvYAyihSeEi1FN5XBsWru2iKDXK';
const base = Address.fromText(BASE);
const pool = Address.fromText(NAME_REWARD_POOL_ADDRESS);
const TAG = fromHex('0102030405');

// reference-formats.md §15.2 [COMPUTED]
const VECTORS: [string, ExtendedAddress, string][] = [
  ['OfflineTag + tag', { address: base, flag: 2, routingAddress: null, tag: TAG }, `${BASE}_2UopVbwspQoN`],
  ['Primary + tag', { address: base, flag: 0, routingAddress: null, tag: TAG }, `${BASE}_1An6UecKnRM`],
  ['End2End, no tag', { address: base, flag: 1, routingAddress: null, tag: null }, `${BASE}_3ccNi`],
  [
    'OfflineAddress',
    { address: pool, flag: 3, routingAddress: base, tag: null },
    `${NAME_REWARD_POOL_ADDRESS}_VEhU3i9CVscxWVT4aZAs1jjo6AyKKnqKmMWxdeuRDtuDsYn1CpjbFEvP92kcYytiPz`,
  ],
  ['Primary, no tag = plain', { address: base, flag: 0, routingAddress: null, tag: null }, BASE],
];

describe('§7.8 extended addresses', () => {
  it.each(VECTORS)('%s', (_name, ext, text) => {
    expect(formatExtendedAddress(ext)).toBe(text);
    const parsed = parseExtendedAddress(text);
    expect(parsed.address.equals(ext.address)).toBe(true);
    expect(parsed.flag).toBe(ext.flag);
    expect(parsed.routingAddress?.base58Address ?? null).toBe(ext.routingAddress?.base58Address ?? null);
    expect(parsed.tag === null ? null : toHex(parsed.tag)).toBe(ext.tag === null ? null : toHex(ext.tag));
    expect(validateExtendedAddress(text)).toBe(true);
    const binary = encodeExtendedAddress(ext);
    const decoded = decodeExtendedAddress(binary);
    expect(decoded.next).toBe(binary.length);
    expect(formatExtendedAddress(decoded.value)).toBe(text);
  });

  it.each([
    [`${BASE}_2UopVbwspQoM`, /checksum does not match/],
    [`${BASE}_`, /suffix is 0 bytes/],
    [`${BASE}_0`, /not valid Base58/],
    [`${BASE.slice(0, -1)}L_3ccNi`, /checksum does not match/],
    [`${BASE}_3ccNi_3ccNi`, /not valid Base58: character "_"/],
  ])('rejects %s', (text, message) => {
    expect(validateExtendedAddress(text)).toBe(false);
    expect(() => parseExtendedAddress(text)).toThrow(AddressError);
    expect(() => parseExtendedAddress(text)).toThrow(message);
  });

  it('refuses inconsistent parts when formatting', () => {
    expect(() => formatExtendedAddress({ address: base, flag: 3, routingAddress: null, tag: null })).toThrow(/routing address is required/);
    expect(() => formatExtendedAddress({ address: base, flag: 1, routingAddress: base, tag: null })).toThrow(AddressError);
    expect(() => formatExtendedAddress({ address: base, flag: 2, routingAddress: null, tag: new Uint8Array(17) })).toThrow(/at most 16/);
    expect(() => formatExtendedAddress({ address: base, flag: 4 as 1, routingAddress: null, tag: null })).toThrow(/flag must be 0…3/);
  });

  it('property: format → parse round trip; random binary gives only our errors', () => {
    const ext = fc.record({
      flag: fc.constantFrom(0, 1, 2, 3) as fc.Arbitrary<0 | 1 | 2 | 3>,
      tag: fc.option(fc.uint8Array({ minLength: 1, maxLength: 16 }), { nil: null }),
      routingV0: fc.boolean(),
    });
    const v0 = Address.fromText('1JKZFqQs4yiH6Dq4bfom7xcpL6zG53DrjcY6HD9QJ6cRWmXdq');
    fc.assert(
      fc.property(ext, ({ flag, tag, routingV0 }) => {
        const e: ExtendedAddress = { address: base, flag, routingAddress: flag === 3 ? (routingV0 ? v0 : base) : null, tag };
        const back = parseExtendedAddress(formatExtendedAddress(e));
        expect(encodeExtendedAddress(back)).toEqual(encodeExtendedAddress(e));
      }),
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 120 }), (bytes) => {
        try {
          decodeExtendedAddress(bytes);
        } catch (err) {
          expect(err instanceof AddressError || err instanceof VarintError).toBe(true);
        }
      }),
    );
  });

  it('flag constants', () => {
    expect(ExtendedAddressFlag).toEqual({ Primary: 0, End2End: 1, OfflineTag: 2, OfflineAddress: 3 });
  });
});
