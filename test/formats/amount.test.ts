import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  amountFromBytes,
  amountToBytes,
  COIN,
  decodeAmount,
  divAmount,
  divRemAmount,
  encodeAmount,
  formatAmount,
  mulAmount,
  parseAmount,
} from '../../src/formats/amount.js';
import { fromHex, toHex } from '../../src/formats/bytes.js';
import { AmountError, VarintError } from '../../src/formats/errors.js';
import { amountBytes } from '../codec/arbitraries.js';

// reference-formats.md §5 table [COMPUTED; 500000.01 VERIFIED inside §8.6]
const TABLE: [string, bigint, string, string][] = [
  ['0', 0n, '00', '0100'],
  ['0.00000001', 1n, '01', '0101'],
  ['0.005', 500000n, '20a107', '0320a107'],
  ['0.01', 1000000n, '40420f', '0340420f'],
  ['1', 100000000n, '00e1f505', '0400e1f505'],
  ['1.5', 150000000n, '80d1f008', '0480d1f008'],
  ['128', 12800000000n, '0080f0fa02', '050080f0fa02'],
  ['500000.01', 50000001000000n, '40624c88792d', '0640624c88792d'],
  ['-1', -100000000n, '001f0afa', '04001f0afa'],
];

describe('CoinNumber §5 table', () => {
  it.each(TABLE)('%s ↔ raw %s ↔ %s / wire %s', (text, raw, bytes, wire) => {
    expect(parseAmount(text, { allowNegative: true })).toBe(raw);
    expect(toHex(amountToBytes(raw))).toBe(bytes);
    expect(amountFromBytes(fromHex(bytes))).toBe(raw);
    expect(toHex(encodeAmount(raw))).toBe(wire);
    expect(decodeAmount(fromHex(wire))).toEqual({ value: raw, next: wire.length / 2 });
  });
});

describe('formatAmount', () => {
  it.each([
    [0n, '0.00000000'],
    [1n, '0.00000001'],
    [1000000n, '0.01000000'],
    [50000001000000n, '500000.01000000'],
    [-100000000n, '-1.00000000'],
    [-1n, '-0.00000001'],
    [2n ** 64n, '184467440737.09551616'],
  ])('%s → %s', (raw, text) => {
    expect(formatAmount(raw)).toBe(text);
  });
  it('needs a bigint', () => {
    expect(() => formatAmount(5 as unknown as bigint)).toThrow(TypeError);
  });
});

describe('parseAmount', () => {
  it('§15.6 round trips', () => {
    expect(formatAmount(parseAmount('123.45678901'))).toBe('123.45678901');
    expect(formatAmount(parseAmount('2.0'))).toBe('2.00000000');
  });

  it.each([
    [' 1.5 ', 150000000n],
    ['+2', 200000000n],
    ['.5', 50000000n],
    ['3.', 300000000n],
    ['007', 700000000n],
    ['-0', 0n],
    ['0.00000000', 0n],
  ])('accepts %j', (text, raw) => {
    expect(parseAmount(text)).toBe(raw);
  });

  it.each([
    ['', /"": it is empty/],
    ['   ', /it is empty/],
    ['abc', /"abc": it contains characters other than digits/],
    ['1.5x', /characters other than digits/],
    ['--1', /only one leading sign/],
    ['+-1', /only one leading sign/],
    ['1e5', /"1e5": exponent notation is not allowed/],
    ['1.5E-3', /exponent notation/],
    ['1.2.3', /more than one decimal point/],
    ['.', /no digits/],
    ['-', /no digits/],
    ['0x10', /characters other than digits/],
    ['1.123456789', /"1.123456789": at most 8 decimal places are allowed, got 9/],
    ['-1', /"-1": negative amounts are not allowed/],
    ['1'.repeat(65), /longer than 64 characters/],
    ['١', /characters other than digits/], // non-ASCII digit
  ])('rejects %j', (text, message) => {
    expect(() => parseAmount(text)).toThrow(AmountError);
    expect(() => parseAmount(text)).toThrow(message);
  });

  it('AmountError is a RangeError with a code', () => {
    const e = (() => {
      try {
        parseAmount('x');
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(RangeError);
    expect((e as AmountError).code).toBe('ERR_AMOUNT');
  });

  it('lenient decimals truncate like the reference', () => {
    expect(parseAmount('1.123456789', { strictDecimals: false })).toBe(112345678n);
    expect(parseAmount('-1.999999999', { strictDecimals: false, allowNegative: true })).toBe(-199999999n);
  });

  it('needs a string', () => {
    expect(() => parseAmount(1 as unknown as string)).toThrow(TypeError);
  });
});

describe('amount bytes', () => {
  it('accepts non-minimal two-complement forms', () => {
    expect(amountFromBytes(fromHex('0000'))).toBe(0n);
    expect(amountFromBytes(fromHex('ffff'))).toBe(-1n);
    expect(amountFromBytes(fromHex('0100000000'))).toBe(1n);
    expect(toHex(amountToBytes(-1n))).toBe('ff');
    expect(toHex(amountToBytes(128n))).toBe('8000');
    expect(toHex(amountToBytes(-128n))).toBe('80');
    expect(toHex(amountToBytes(-129n))).toBe('7fff');
  });

  it('rejects length 0, oversize and truncation naming the offset', () => {
    expect(() => amountFromBytes(new Uint8Array(0))).toThrow(AmountError);
    expect(() => decodeAmount(fromHex('aa00'), 1)).toThrow(/invalid amount at offset 1: length 0/);
    expect(() => decodeAmount(fromHex('0340420'.padEnd(8, '0').slice(0, 6)))).toThrow(/truncated amount at offset 0: length 3, 2 bytes available/);
    expect(() => decodeAmount(fromHex('41' + '00'.repeat(65)))).toThrow(/65 bytes, at most 64/);
    expect(() => decodeAmount(fromHex('fb'))).toThrow(VarintError);
  });

  it('property: amountToBytes is the minimal two-complement little-endian form, also past the number fast path', () => {
    // The definition, one byte at a time in bigint arithmetic (the codec tests' generator).
    const reference = (raw: bigint): string => toHex(Uint8Array.from(amountBytes(raw, 0)));
    const safe = BigInt(Number.MAX_SAFE_INTEGER);
    const edges = [0n, 127n, 128n, 255n, 256n, 32767n, 32768n, safe - 1n, safe, safe + 1n, -1n, -128n, -129n, -safe];
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...edges), fc.bigInt({ min: 0n, max: safe }), fc.bigInt({ min: -(1n << 80n), max: 1n << 80n })), (raw) => {
        expect(toHex(amountToBytes(raw))).toBe(reference(raw));
        expect(amountFromBytes(amountToBytes(raw))).toBe(raw);
      }),
    );
  });

  it('property: round trip and canonical re-encode', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 200n), max: 2n ** 200n }), (raw) => {
        const wire = encodeAmount(raw);
        expect(decodeAmount(wire)).toEqual({ value: raw, next: wire.length });
        expect(amountFromBytes(amountToBytes(raw))).toBe(raw);
        expect(parseAmount(formatAmount(raw), { allowNegative: true })).toBe(raw);
      }),
    );
  });

  it('property: sign-extended (non-minimal) bytes decode to the same value', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), fc.integer({ min: 1, max: 4 }), (raw, extra) => {
        const minimal = amountToBytes(raw);
        const padded = new Uint8Array(minimal.length + extra).fill(raw < 0n ? 0xff : 0);
        padded.set(minimal);
        expect(amountFromBytes(padded)).toBe(raw);
        expect(amountToBytes(amountFromBytes(padded))).toEqual(minimal);
      }),
    );
  });

  it('property: random bytes give a value or one of our errors', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 20 }), (bytes) => {
        try {
          const { next } = decodeAmount(bytes);
          expect(next).toBeLessThanOrEqual(bytes.length);
        } catch (e) {
          expect(e instanceof AmountError || e instanceof VarintError).toBe(true);
        }
      }),
    );
  });

  it('property: every truncation of the wire form is rejected', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }), (raw) => {
        const wire = encodeAmount(raw);
        for (let n = 0; n < wire.length; n++) expect(() => decodeAmount(wire.subarray(0, n))).toThrow(RangeError);
      }),
    );
  });
});

describe('arithmetic (§5, §15.6)', () => {
  const p = (s: string) => parseAmount(s, { allowNegative: true });
  it('reference vectors', () => {
    expect(formatAmount(divAmount(p('1.23456789'), p('2.34567890')))).toBe('0.52631580');
    expect(formatAmount(mulAmount(p('1.23456789'), p('2.34567890')))).toBe('2.89589985');
    expect(formatAmount(divAmount(p('-2.5'), p('1.5')))).toBe('-1.66666666');
    const { quotient, remainder } = divRemAmount(p('7'), p('3'));
    expect(formatAmount(quotient)).toBe('2.33333333');
    expect(formatAmount(remainder)).toBe('0.00000001');
  });
  it('truncates toward zero and rejects division by zero', () => {
    expect(mulAmount(-1n, COIN / 2n)).toBe(0n);
    expect(() => divAmount(1n, 0n)).toThrow(AmountError);
  });
});
