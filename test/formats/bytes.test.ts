import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { concatBytes, equalBytes, fromHex, latin1Key, toBase64, toHex } from '../../src/formats/bytes.js';
import { HexError } from '../../src/formats/errors.js';

describe('hex', () => {
  it('encodes lowercase, two digits per byte', () => {
    expect(toHex(Uint8Array.of(0, 1, 0xab, 0xff))).toBe('0001abff');
    expect(toHex(new Uint8Array(0))).toBe('');
  });

  it('decodes either case and round-trips', () => {
    expect([...fromHex('00ABcd')]).toEqual([0, 0xab, 0xcd]);
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (b) => equalBytes(fromHex(toHex(b)), b)));
  });

  it('returns an owned array, not a view of a shared pool', () => {
    const b = fromHex('0102');
    expect(b.byteOffset).toBe(0);
    expect(b.buffer.byteLength).toBe(2);
  });

  it.each([
    ['abc', /even number of hex digits, got 3/],
    ['0x00', /found "x" at position 1/],
    ['00 1', /position 2/],
    ['zz', /found "z" at position 0/],
    ['0g', /found "g" at position 1/],
  ])('rejects %j', (hex, message) => {
    expect(() => fromHex(hex)).toThrow(HexError);
    expect(() => fromHex(hex)).toThrow(message);
  });

  it('rejects non-string input with a TypeError', () => {
    expect(() => fromHex(12 as unknown as string)).toThrow(TypeError);
    expect(() => toHex('00' as unknown as Uint8Array)).toThrow(TypeError);
  });
});

describe('base64', () => {
  it('encodes with padding (RFC 4648 vectors), only the bytes of a view', () => {
    const text = (t: string) => new TextEncoder().encode(t);
    expect(['', 'f', 'fo', 'foo', 'foob', 'fooba', 'foobar'].map((t) => toBase64(text(t)))).toEqual(['', 'Zg==', 'Zm8=', 'Zm9v', 'Zm9vYg==', 'Zm9vYmE=', 'Zm9vYmFy']);
    expect(toBase64(text('xxfoox').subarray(2, 5))).toBe('Zm9v');
  });
});

describe('concatBytes / equalBytes', () => {
  it('concatenates', () => {
    expect([...concatBytes(Uint8Array.of(1), new Uint8Array(0), Uint8Array.of(2, 3))]).toEqual([1, 2, 3]);
    expect(concatBytes().length).toBe(0);
  });
  it('compares', () => {
    expect(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 2))).toBe(true);
    expect(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 3))).toBe(false);
    expect(equalBytes(Uint8Array.of(1), Uint8Array.of(1, 2))).toBe(false);
    expect(equalBytes(Buffer.from([7]), Uint8Array.of(7))).toBe(true);
  });
});

describe('latin1Key', () => {
  it('is one char per byte of exactly the view, as Buffer latin1 gives, and tells different bytes apart', () => {
    expect(latin1Key(Uint8Array.of(0, 0x41, 0xff))).toBe('\u0000A\u00ff');
    expect(latin1Key(new Uint8Array(0))).toBe('');
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 96 }), fc.nat(8), fc.nat(8), (b, head, tail) => {
        // A view in the middle of a larger buffer: only its own bytes count.
        const backing = new Uint8Array(head + b.length + tail).fill(0x5a);
        backing.set(b, head);
        const view = backing.subarray(head, head + b.length);
        const key = latin1Key(view);
        expect(key).toBe(Buffer.from(b).toString('latin1'));
        expect(key.length).toBe(b.length);
        expect(Uint8Array.from(key, (c) => c.charCodeAt(0))).toEqual(b);
      }),
    );
  });
});
