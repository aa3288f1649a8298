import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  Address,
  addressChecksum,
  addressFromText,
  addressToText,
  addressWithChecksum,
  decodeBase58,
  deriveAddress,
  isValidAddressBytes,
  parseAddress,
  primaryAddressFromPublicKey,
  sectorPrefix,
  validateAddress,
  validateChecksum,
} from '../../src/formats/address.js';
import { concatBytes, fromHex, toHex } from '../../src/formats/bytes.js';
import { AddressError } from '../../src/formats/errors.js';
import {
  FOUNDATION_ADDRESS,
  INFINIMINE_ADDRESS,
  NAME_REWARD_POOL_ADDRESS,
} from '../../src/formats/constants.js';
import { DOCS_VERIFY_PUBLIC_KEY_HEX } from './docs-vectors.js';

const docsKey = fromHex(DOCS_VERIFY_PUBLIC_KEY_HEX);
const NONCE = fromHex('000102030405060708090a0b0c0d0e0f');

describe('§7.9 documented addresses', () => {
  const VALID: [string, number][] = [
    [FOUNDATION_ADDRESS, 0],
    ['4qX7Uot9BbweZh56gVeXWRwoe2Wb6vesNJtZJzm672uHUqucsHENe1849Vy5V4mHg', 1],
    ['1JKZFqQs4yiH6Dq4bfom7xcpL6zG53DrjcY6HD9QJ6cRWmXdq', 0],
    ['5EVv1FqciHzJtPQbA8kBTaPzdSCzLVJ2X6oBTFA198au1qjoML6TjYz75h8w2QUv1', 1],
    ['3zzdr4iT48AbaVudpGjZQi22fGiz4XupTfweGiiFjGNVVqfx6h4M2CF9H6bKjqTjj', 1],
    ['4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr', 1],
    ['16LUmwUnU9M4Wn92nrvCStj83LDCRwvAaSio6Xtb3yvqqqCCz', 0],
    ['13fiCRZHPqcCFvQvuggKEjDvFsVLmwoavaBw1ng5PdSKvCUGp', 0],
    ['4uuXowvxs3pWUKtGuBd9sypn2UmnLpygXHnCJ22X8YYdtry7NqFyZxm3otzJyHgVP', 1],
    ['3oCdu1pZxPBFKqnAXAec2D9WqFX7RPDwNF8bWS7KUqmGnXRm7tKWkVUEVJvYhXiZM', 1],
  ];

  it.each(VALID)('%s is a valid v%i address', (text, version) => {
    expect(validateAddress(text)).toBe(true);
    const a = parseAddress(text);
    expect(a.version).toBe(version);
    expect(a.addressNoChecksum.length).toBe(version === 0 ? 33 : 45);
    expect(a.base58Address).toBe(text);
    expect(validateChecksum(decodeBase58(text))).toBe(true);
  });

  it('name reward pool address: bytes, checksum and its source form', () => {
    const bytes = decodeBase58(NAME_REWARD_POOL_ADDRESS);
    expect(toHex(bytes)).toBe('000abfd0012f36c973bc10b9405f7e1c388a6b57bb5517f32d2f641cfd08ba0293' + 'f12d02');
    // the constant is written in source as the no-checksum Base58 string
    const noChecksum = decodeBase58('1ixiannames234234234234234234234234234234234');
    expect(noChecksum.length).toBe(33);
    expect(addressToText(noChecksum)).toBe(NAME_REWARD_POOL_ADDRESS);
  });

  it('InfiniMine address', () => {
    expect(toHex(decodeBase58(INFINIMINE_ADDRESS))).toBe(
      '000740240c553b53e3798d9c805630064ed5fa0da51e6ff2a82f3f185c6181f6ac' + '4cb742',
    );
    expect(validateAddress(INFINIMINE_ADDRESS)).toBe(true);
  });

  it('the docs address with a hand-edited checksum is invalid', () => {
    const text = '1PC5kubyLvTmsf16CugqHpBG8B8PK4YjcfSjjLMqbUi8YvkQ';
    expect(decodeBase58(text).length).toBe(36);
    expect(decodeBase58(text)[0]).toBe(0);
    expect(validateAddress(text)).toBe(false);
    expect(() => parseAddress(text)).toThrow(AddressError);
    expect(() => parseAddress(text)).toThrow(/checksum does not match/);
  });
});

describe('§15.2 addresses of the docs key', () => {
  const primaryHex = '01bec1923ea08fa066e56ba46557a9b5ecf3da82c484b7010d77a1650e7cdda12e4dd6fe9fbf004331aa46a645';
  const primaryText = '4iMKArchGjmLsZFsj2tYrBgPjjypvEwquB2pnbEvYAyihSeEi1FN5XBsWru2iKDXK';

  it('v1 primary: body, checksum, text [VERIFIED]', () => {
    const primary = primaryAddressFromPublicKey(docsKey);
    expect(toHex(primary)).toBe(primaryHex);
    expect(toHex(addressChecksum(primary))).toBe('61990e');
    expect(addressToText(primary)).toBe(primaryText);
    const a = Address.fromPublicKey(docsKey);
    expect(a.version).toBe(1);
    expect(a.base58Address).toBe(primaryText);
    expect(toHex(a.addressWithChecksum)).toBe(primaryHex + '61990e');
    expect(Buffer.from(a.addressWithChecksum).toString('base64')).toMatch(/^Ab7Bkj6g.*RqZFYZkO$/);
  });

  it('v1 derived with a nonce [COMPUTED]', () => {
    const derived = Address.fromPublicKey(docsKey, NONCE);
    expect(toHex(derived.addressNoChecksum)).toBe(
      '01965e309027a5fd1ebeb045cd1bc70a0eafe1833f63feefe540509b52fb70699d678d3174c145fed994438755',
    );
    expect(derived.base58Address).toBe('4Nt9brhFRqSxd1LwzUSZQ2zYiq2eAALBfVnseHnhqp8fMtcL7Gtog3HbpgwgFTwrm');
    expect(Address.fromText(primaryText).derive(NONCE).equals(derived)).toBe(true);
  });

  it('v2 primary and derived [COMPUTED]', () => {
    const key2 = docsKey.slice();
    key2[0] = 2;
    const primary = Address.fromPublicKey(key2);
    expect(toHex(primary.addressNoChecksum)).toBe(
      '0297219c17e44b1f78d5f9653d8e3ed742ee74581c91a6dcbf89c37e18f181063556aa5d69563cd04f101a551f',
    );
    expect(primary.base58Address).toBe('6WegfJYu5worZecU7HrPhePhuQHeGJEc9RCeJ187AGkRhm1D3G4gkjXvw7PfKY4sp');
    const derived = Address.fromPublicKey(key2, NONCE);
    expect(toHex(derived.addressNoChecksum)).toBe(
      '0208a03c0db9dbaaac720ed332579f9da7c5bc79aa09b416046037a036e5fa33a22c7f9b25b4a019d13522ec46',
    );
    expect(derived.base58Address).toBe('5KxYqP9JKkeey65UTpMNoobKtnAKs8zvBX4H8m9HmrYDJ9Yw2UeneKSi5y7ENr4kn');
  });

  it('v0 primary from the headerless key and derived [COMPUTED]', () => {
    const headerless = docsKey.slice(5);
    expect(headerless.length).toBe(523);
    const primary = Address.fromPublicKey(headerless);
    expect(toHex(primary.addressNoChecksum)).toBe('000bf94e9c3afc0fc95f11070ed62e8972e8f0629602798ea2c7d005f6d3f10702');
    expect(primary.base58Address).toBe('12CJ97tUMM84AsAdnKZG1bBr84Fjp3K8TUQJadKJDpTGZ4Lmf');
    const derived = Address.fromPublicKey(headerless, NONCE);
    expect(toHex(derived.addressNoChecksum)).toBe('008c28a0c9e9cfa2e9ba4e7228c977f1352def5e679b47771725432368516a15ce');
    expect(derived.base58Address).toBe('1Ez8csK2hLRGiD93V2BBDfYeEgTR58Wz9KgDJQxebqogyoxJQ');
    // a headered version-0 key hashes the same raw key (without its 5-byte header)
    const headered0 = docsKey.slice();
    headered0[0] = 0;
    expect(Address.fromPublicKey(headered0).equals(primary)).toBe(true);
  });

  it('sectorPrefix [COMPUTED]', () => {
    const a = Address.fromText(primaryText);
    expect(toHex(a.sectorPrefix)).toBe('26de8f316fff74138bd2');
    expect(Buffer.from(sectorPrefix(a.addressNoChecksum)).toString('base64')).toBe('Jt6PMW//dBOL0g==');
  });

  it('[0x00] and absent nonces mean the primary address', () => {
    const primary = primaryAddressFromPublicKey(docsKey);
    expect(deriveAddress(primary, Uint8Array.of(0))).toEqual(primary);
    expect(deriveAddress(primary, null)).toEqual(primary);
    expect(Address.fromPublicKey(docsKey, Uint8Array.of(0)).base58Address).toBe(primaryText);
  });
});

describe('construction from bytes (§7.5)', () => {
  const primary = primaryAddressFromPublicKey(docsKey);
  it('accepts 33/45, 36/48 (checksum verified) and public keys', () => {
    expect(Address.fromBytes(primary).addressNoChecksum).toEqual(primary);
    expect(Address.fromBytes(addressWithChecksum(primary)).addressNoChecksum).toEqual(primary);
    expect(Address.fromBytes(docsKey).addressNoChecksum).toEqual(primary);
    const derived = Address.fromPublicKey(docsKey, NONCE);
    expect(Address.fromBytes(docsKey, NONCE).equals(derived)).toBe(true);
    // §8.3: the source of a fromList entry is Address(primary addressNoChecksum, nonce key)
    expect(Address.fromBytes(primary, NONCE).equals(derived)).toBe(true);
    expect(Address.fromBytes(addressWithChecksum(primary), NONCE).equals(derived)).toBe(true);
    expect(Address.fromBytes(primary, Uint8Array.of(0)).addressNoChecksum).toEqual(primary);
  });
  it.each([
    [new Uint8Array(10), /got 10 bytes/],
    [concatBytes(Uint8Array.of(3), new Uint8Array(44)), /unknown address version 3/],
    [concatBytes(Uint8Array.of(0), new Uint8Array(44)), /version 0 address without checksum has 33 bytes, got 45/],
    [concatBytes(primary, Uint8Array.of(0, 0, 0)), /checksum does not match/],
    [concatBytes(Uint8Array.of(7), new Uint8Array(99)), /address version byte 7/],
  ])('rejects %#', (bytes, message) => {
    expect(() => Address.fromBytes(bytes)).toThrow(AddressError);
    expect(() => Address.fromBytes(bytes)).toThrow(message);
  });
  it('rejects bad nonces', () => {
    expect(() => deriveAddress(primary, new Uint8Array(15))).toThrow(/\[0x00\] or 16 bytes, got 15/);
    expect(() => deriveAddress(primary, Uint8Array.of(1))).toThrow(AddressError);
  });
  it('type errors', () => {
    expect(() => Address.fromBytes('x' as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => validateAddress(5 as unknown as string)).toThrow(TypeError);
  });
});

describe('text parsing', () => {
  it.each([
    ['', /unknown address version \(empty\)/],
    ['0OIl', /not valid Base58: character "0" at position 0/],
    ['4iMKArch_x', /character "_" at position 8/],
    ['1'.repeat(300), /at most 256/],
    ['111', /version 0 address has 36 bytes with its checksum, got 3/],
  ])('rejects %j', (text, message) => {
    expect(validateAddress(text)).toBe(false);
    expect(() => addressFromText(text)).toThrow(message);
  });

  it('the reference quirk (any length 36..48 with a right checksum) is not a valid address here', () => {
    const body = concatBytes(Uint8Array.of(1), new Uint8Array(39).fill(9));
    const odd = concatBytes(body, addressChecksum(body));
    expect(validateChecksum(odd)).toBe(true); // reference `validateChecksum`
    expect(isValidAddressBytes(body)).toBe(true); // reference v7 output rule
    expect(validateAddress(encodeText(odd))).toBe(false);
  });
});

const encodeText = (bytes: Uint8Array) => {
  // independent Base58 encoder (§3) for the test: big-endian number, leading zeros → '1'
  const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  let n = BigInt('0x' + (toHex(bytes) || '0'));
  let s = '';
  while (n > 0n) {
    s = ALPHABET[Number(n % 58n)] + s;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    s = '1' + s;
  }
  return s;
};

describe('properties', () => {
  const key = fc
    .tuple(fc.constantFrom(0, 1, 2), fc.integer({ min: 49, max: 1023 }).filter((n) => n !== 523))
    .chain(([version, length]) =>
      fc.uint8Array({ minLength: length - 1, maxLength: length - 1 }).map((rest) => concatBytes(Uint8Array.of(version), rest)),
    );
  const nonce = fc.option(fc.uint8Array({ minLength: 16, maxLength: 16 }), { nil: undefined });

  it('random keys and nonces: text and bytes round trip, the independent encoder agrees', () => {
    fc.assert(
      fc.property(key, nonce, (k, n) => {
        const a = Address.fromPublicKey(k, n);
        expect(a.version).toBe(k[0]);
        const text = a.base58Address;
        expect(text).toBe(encodeText(a.addressWithChecksum));
        expect(validateAddress(text)).toBe(true);
        expect(Address.fromText(text).equals(a)).toBe(true);
        expect(Address.fromBytes(a.addressWithChecksum).equals(a)).toBe(true);
        expect(text.startsWith('1')).toBe(a.version === 0);
        if (a.version !== 0) expect(text.length).toBe(65);
        if (n) expect(new Address(primaryAddressFromPublicKey(k)).derive(n).equals(a)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('a changed character or byte is detected', () => {
    fc.assert(
      fc.property(key, fc.nat(), fc.integer({ min: 1, max: 255 }), (k, pos, flip) => {
        const bytes = Address.fromPublicKey(k).addressWithChecksum;
        const i = pos % bytes.length;
        bytes[i] = bytes[i]! ^ flip;
        if (i === 0) expect(() => Address.fromBytes(bytes)).toThrow(AddressError);
        else expect(validateAddress(encodeText(bytes))).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it('random strings: a boolean from validateAddress, only AddressError from the parser', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (s) => {
        expect(typeof validateAddress(s)).toBe('boolean');
        try {
          addressFromText(s);
        } catch (e) {
          expect(e).toBeInstanceOf(AddressError);
        }
      }),
    );
  });
});
