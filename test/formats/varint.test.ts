import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromHex, toHex } from '../../src/formats/bytes.js';
import { VarintError } from '../../src/formats/errors.js';
import {
  decodeVarBytes,
  decodeVarInt,
  decodeVarUint,
  decodeVarUintNumber,
  encodeVarBytes,
  encodeVarInt,
  encodeVarUint,
  I64_MAX,
  I64_MIN,
  U64_MAX,
  varBytesLength,
  varIntLength,
  varUintLength,
  writeVarBytes,
  writeVarUint,
} from '../../src/formats/varint.js';

// reference-formats.md §4 table [COMPUTED]
const UNSIGNED_TABLE: [bigint, string][] = [
  [0n, '00'],
  [1n, '01'],
  [247n, 'f7'],
  [248n, 'fcf800'],
  [255n, 'fcff00'],
  [256n, 'fc0001'],
  [65535n, 'fcffff'],
  [65536n, 'fd00000100'],
  [313950n, 'fd5eca0400'],
  [864000n, 'fd002f0d00'],
  [2n ** 32n - 1n, 'fdffffffff'],
  [2n ** 32n, 'fe0000000001000000'],
  [2n ** 64n - 1n, 'feffffffffffffffff'],
];
const SIGNED_TABLE: [bigint, string][] = [
  [-1n, 'f80100'],
  [-128n, 'f88000'],
  [-12345n, 'f83930'],
  [-65536n, 'f900000100'],
  [I64_MIN, 'fa0000000000000080'],
  [997n, 'fce503'], // §8.1: type 997
];

describe('varint §4 table', () => {
  it.each(UNSIGNED_TABLE)('unsigned %s ↔ %s', (value, hex) => {
    expect(toHex(encodeVarUint(value))).toBe(hex);
    expect(varUintLength(value)).toBe(hex.length / 2);
    expect(decodeVarUint(fromHex(hex))).toEqual({ value, next: hex.length / 2 });
    // signed and unsigned writers agree on non-negative values (within i64)
    if (value <= I64_MAX) {
      expect(toHex(encodeVarInt(value))).toBe(hex);
      expect(decodeVarInt(fromHex(hex)).value).toBe(value);
    }
  });

  it.each(SIGNED_TABLE)('signed %s ↔ %s', (value, hex) => {
    expect(toHex(encodeVarInt(value))).toBe(hex);
    expect(varIntLength(value)).toBe(hex.length / 2);
    expect(decodeVarInt(fromHex(hex))).toEqual({ value, next: hex.length / 2 });
  });

  it('accepts numbers as well as bigints', () => {
    expect(toHex(encodeVarUint(313950))).toBe('fd5eca0400');
    expect(toHex(encodeVarInt(-1))).toBe('f80100');
  });
});

describe('varint reading', () => {
  it('reads at an offset and returns the next offset', () => {
    const buf = fromHex('aa' + 'fcf800' + '05');
    expect(decodeVarUint(buf, 1)).toEqual({ value: 248n, next: 4 });
    expect(decodeVarUint(buf, 4)).toEqual({ value: 5n, next: 5 });
  });

  it('accepts non-canonical forms; re-encoding is canonical', () => {
    for (const [hex, value] of [
      ['fc0100', 1n],
      ['fd01000000', 1n],
      ['fe0100000000000000', 1n],
      ['fdf8000000', 248n],
    ] as const) {
      expect(decodeVarUint(fromHex(hex)).value).toBe(value);
      expect(decodeVarInt(fromHex(hex)).value).toBe(value);
    }
    expect(decodeVarInt(fromHex('f80000')).value).toBe(0n);
    expect(decodeVarInt(fromHex('fa0100000000000000')).value).toBe(-1n);
    expect(toHex(encodeVarUint(decodeVarUint(fromHex('fc0100')).value))).toBe('01');
  });

  it.each([
    ['', 0, /truncated varint at offset 0/],
    ['fc01', 0, /truncated varint at offset 0: prefix 0xfc needs 2 more bytes, 1 available/],
    ['00fd010203', 1, /truncated varint at offset 1/],
    ['fe01020304050607', 0, /offset 0/],
    ['fb', 0, /prefix 0xfb is reserved/],
    ['ff', 0, /prefix 0xff is reserved/],
    ['f80100', 0, /signed prefix 0xf8 where an unsigned value was expected/],
    ['0001', 2, /truncated varint at offset 2/],
  ])('unsigned rejects %j at %i', (hex, offset, message) => {
    expect(() => decodeVarUint(fromHex(hex), offset)).toThrow(VarintError);
    expect(() => decodeVarUint(fromHex(hex), offset)).toThrow(message);
  });

  it('signed rejects reserved prefixes and values outside i64', () => {
    expect(() => decodeVarInt(fromHex('fb'))).toThrow(/reserved/);
    expect(() => decodeVarInt(fromHex('feffffffffffffffff'))).toThrow(/signed 64-bit range/);
    expect(() => decodeVarInt(fromHex('fa0100000000000080'))).toThrow(/signed 64-bit range/);
  });

  it('the error names the offset in a field', () => {
    try {
      decodeVarUint(fromHex('0000fc'), 2);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(RangeError);
      expect((e as VarintError).offset).toBe(2);
      expect((e as VarintError).code).toBe('ERR_VARINT');
    }
  });

  it('decodeVarUintNumber bounds the value', () => {
    expect(decodeVarUintNumber(fromHex('fc0001'), 0, 256)).toEqual({ value: 256, next: 3 });
    expect(() => decodeVarUintNumber(fromHex('fc0101'), 0, 256)).toThrow(/257, more than the allowed 256/);
  });
});

describe('varint argument checks', () => {
  it('rejects out-of-range values and wrong types', () => {
    expect(() => encodeVarUint(-1n)).toThrow(VarintError);
    expect(() => encodeVarUint(U64_MAX + 1n)).toThrow(RangeError);
    expect(() => encodeVarInt(I64_MAX + 1n)).toThrow(/\[-9223372036854775808, 9223372036854775807\]/);
    expect(() => encodeVarUint(1.5)).toThrow(/safe integer/);
    expect(() => encodeVarUint('1' as unknown as number)).toThrow(TypeError);
    expect(() => decodeVarUint([1] as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => decodeVarUint(Uint8Array.of(1), -1)).toThrow(TypeError);
  });

  it('property: a number and its bigint give the same unsigned varint (the number fast path)', () => {
    const edges = [0, 247, 248, 0xffff, 0x1_0000, 0xffff_ffff, 0x1_0000_0000, Number.MAX_SAFE_INTEGER];
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...edges), fc.integer({ min: 0, max: 0x1_0000_0000 }), fc.maxSafeNat()), (n) => {
        const out = new Uint8Array(10);
        const at = writeVarUint(out, 1, n);
        expect(toHex(out.subarray(1, at))).toBe(toHex(encodeVarUint(BigInt(n))));
        expect(varUintLength(n)).toBe(at - 1);
        expect(varUintLength(BigInt(n))).toBe(at - 1);
      }),
    );
    expect(() => writeVarUint(new Uint8Array(9), 0, -1)).toThrow(VarintError);
    expect(() => varUintLength(1.5)).toThrow(VarintError);
    expect(() => writeVarUint(new Uint8Array(2), 0, 0x1_0000)).toThrow(/needs 5 bytes at offset 0/);
  });

  it('writeVarUint writes in place and checks room', () => {
    const out = new Uint8Array(4);
    expect(writeVarUint(out, 1, 248)).toBe(4);
    expect(toHex(out)).toBe('00fcf800');
    expect(() => writeVarUint(out, 2, 248)).toThrow(/needs 3 bytes at offset 2/);
  });
});

describe('IxiBytes (§1)', () => {
  it('null and empty are written as 00; length 0 reads as null', () => {
    expect(toHex(encodeVarBytes(null))).toBe('00');
    expect(toHex(encodeVarBytes(new Uint8Array(0)))).toBe('00');
    expect(decodeVarBytes(fromHex('00'))).toEqual({ value: null, next: 1 });
  });
  it('round-trips and rejects truncation', () => {
    const body = new Uint8Array(300).fill(7);
    const enc = encodeVarBytes(body);
    expect(toHex(enc.subarray(0, 3))).toBe('fc2c01');
    expect(decodeVarBytes(enc)).toEqual({ value: body, next: 303 });
    expect(() => decodeVarBytes(enc.subarray(0, 302))).toThrow(/truncated byte string at offset 0: length 300, 299 bytes available/);
    expect(() => decodeVarBytes(enc, 0, 299)).toThrow(/more than the allowed 299/);
  });
  it('writeVarBytes writes at an offset exactly what encodeVarBytes gives, varBytesLength bytes of it, and refuses a short buffer', () => {
    fc.assert(
      fc.property(fc.option(fc.uint8Array({ maxLength: 400 }), { nil: null }), fc.nat(5), (body, offset) => {
        const expected = encodeVarBytes(body);
        expect(varBytesLength(body)).toBe(expected.length);
        const out = new Uint8Array(offset + expected.length + 2).fill(0xee);
        expect(writeVarBytes(out, offset, body)).toBe(offset + expected.length);
        expect(out.subarray(offset, offset + expected.length)).toEqual(expected);
        expect([...out.subarray(0, offset), ...out.subarray(offset + expected.length)].every((b) => b === 0xee)).toBe(true);
      }),
    );
    expect(writeVarBytes(new Uint8Array(1), 0, undefined)).toBe(1);
    expect(() => writeVarBytes(new Uint8Array(3), 0, new Uint8Array(3))).toThrow(RangeError);
    expect(() => writeVarBytes(new Uint8Array(0), 0, null)).toThrow(RangeError);
  });
});

describe('varint properties', () => {
  const u64 = fc.bigInt({ min: 0n, max: U64_MAX });
  const i64 = fc.bigInt({ min: I64_MIN, max: I64_MAX });

  it('unsigned round trip at any offset', () => {
    fc.assert(
      fc.property(u64, fc.uint8Array({ maxLength: 4 }), (v, prefix) => {
        const enc = encodeVarUint(v);
        const buf = new Uint8Array(prefix.length + enc.length);
        buf.set(prefix);
        buf.set(enc, prefix.length);
        const d = decodeVarUint(buf, prefix.length);
        return d.value === v && d.next === buf.length;
      }),
    );
  });

  it('signed round trip', () => {
    fc.assert(fc.property(i64, (v) => decodeVarInt(encodeVarInt(v)).value === v));
  });

  it('non-canonical widths decode to the same value and re-encode canonically', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(4, 8), (v, width) => {
        const buf = new Uint8Array(1 + width);
        buf[0] = width === 4 ? 0xfd : 0xfe;
        buf[1] = v & 0xff;
        buf[2] = v >> 8;
        const value = decodeVarUint(buf).value;
        expect(value).toBe(BigInt(v));
        expect(encodeVarUint(value)).toEqual(encodeVarUint(v));
      }),
    );
  });

  it('every strict prefix of an encoding is rejected as truncated', () => {
    fc.assert(
      fc.property(i64, (v) => {
        const enc = encodeVarInt(v);
        for (let n = 0; n < enc.length; n++) {
          expect(() => decodeVarInt(enc.subarray(0, n))).toThrow(/truncated/);
        }
      }),
    );
  });

  it('random bytes give a value or a VarintError, nothing else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), fc.nat(12), (bytes, offset) => {
        for (const decode of [decodeVarUint, decodeVarInt, decodeVarBytes]) {
          try {
            const { next } = decode(bytes, offset);
            expect(next).toBeGreaterThan(offset);
            expect(next).toBeLessThanOrEqual(bytes.length);
          } catch (e) {
            expect(e).toBeInstanceOf(VarintError);
          }
        }
      }),
    );
  });
});
