/**
 * The multisig payload codec (reference-formats.md §8.10): the byte layouts written by the
 * reference's `AddMultisigOrig`, `AddMultisigChWallet` and `AddMultisigChReqSigs`, the reader's
 * bounds, and fast-check properties (round trip, every truncation and a trailing byte refused with
 * MultisigCodecError, random bytes never escape as another error).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeMultisigChange,
  decodeMultisigTxData,
  encodeMultisigChange,
  encodeMultisigTxData,
  MultisigChangeType,
  MultisigCodecError,
  type MultisigChange,
  type MultisigTxData,
} from '../../src/multisig/payload.js';
import { fromHex, toHex } from '../../src/formats/bytes.js';
import { runs } from '../fuzz-scale.js';

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);
const key40 = bytes(40, 0xaa);
const nonce16 = bytes(16, 0x11);
const address45 = Uint8Array.from([1, ...bytes(44, 0x22)]);

describe('multisig payload layouts (reference writers)', () => {
  it('997: empty origTxId, key, nonce [0x00]: 00 ‖ 28 key ‖ 01 00', () => {
    const b = encodeMultisigTxData({ origTxId: null, signerPubKey: key40, signerNonce: Uint8Array.of(0) });
    expect(toHex(b)).toBe(`00 28 ${'aa'.repeat(40)} 01 00`.replace(/ /g, ''));
    expect(decodeMultisigTxData(b)).toEqual({ origTxId: null, signerPubKey: key40, signerNonce: Uint8Array.of(0) });
  });

  it('999: origTxId ‖ key ‖ 16-byte nonce; a 528-byte key has the length fc 10 02 (§8.6)', () => {
    const orig = Uint8Array.from([1, 5, ...bytes(44, 0x33)]);
    const key528 = bytes(528, 0x44);
    const b = encodeMultisigTxData({ origTxId: orig, signerPubKey: key528, signerNonce: nonce16 });
    expect(toHex(b.subarray(0, 1 + 46 + 3))).toBe(`2e${toHex(orig)}fc1002`);
    expect(b.length).toBe(1 + 46 + 3 + 528 + 1 + 16);
    expect(decodeMultisigTxData(b)).toEqual({ origTxId: orig, signerPubKey: key528, signerNonce: nonce16 });
  });

  it('998 add / remove signer: u8 type ‖ 2d address ‖ key ‖ nonce', () => {
    for (const kind of [MultisigChangeType.AddSigner, MultisigChangeType.DelSigner] as const) {
      const b = encodeMultisigChange({ kind, address: address45, signerPubKey: key40, signerNonce: Uint8Array.of(0) });
      expect(toHex(b)).toBe(`0${kind}2d${toHex(address45)}28${'aa'.repeat(40)}0100`);
      expect(decodeMultisigChange(b)).toEqual({ kind, address: address45, signerPubKey: key40, signerNonce: Uint8Array.of(0) });
    }
  });

  it('998 required signatures: 03 ‖ u8 count ‖ key ‖ nonce (one byte up to 255, as the reader reads it)', () => {
    const b = encodeMultisigChange({ kind: MultisigChangeType.ChangeReqSigs, requiredSigs: 2, signerPubKey: key40, signerNonce: nonce16 });
    expect(toHex(b)).toBe(`0302 28${'aa'.repeat(40)} 10${'11'.repeat(16)}`.replace(/ /g, ''));
    const high = encodeMultisigChange({ kind: MultisigChangeType.ChangeReqSigs, requiredSigs: 250, signerPubKey: key40, signerNonce: nonce16 });
    expect(high[1]).toBe(250);
    expect(decodeMultisigChange(high)).toMatchObject({ requiredSigs: 250 });
  });

  it('the reader bounds of the reference, each a MultisigCodecError naming the field', () => {
    const cases: [() => unknown, RegExp][] = [
      [() => decodeMultisigTxData(null), /carries no data/],
      [() => decodeMultisigTxData(fromHex('0000000000')), /5 bytes, at least 6/],
      [() => decodeMultisigTxData(fromHex(`65${'00'.repeat(101)}`)), /origTxId length.*101 bytes, expected 0…100/],
      [() => decodeMultisigTxData(fromHex(`0023${'00'.repeat(35)}0100`)), /signer public key length.*35 bytes, expected 36…2500/],
      [() => decodeMultisigTxData(fromHex(`00fcc509${'00'.repeat(2501)}00`)), /signer public key length.*2501 bytes/],
      [() => decodeMultisigTxData(fromHex(`0028${'aa'.repeat(40)}11${'00'.repeat(17)}`)), /signer nonce length.*17 bytes, expected 0…16/],
      [() => decodeMultisigTxData(fromHex(`0028${'aa'.repeat(40)}0100ff`)), /1 trailing bytes/],
      [() => decodeMultisigTxData(fromHex(`0028${'aa'.repeat(39)}`)), /signer public key.*truncated/],
      [() => decodeMultisigChange(fromHex(`04${'00'.repeat(10)}`)), /change type.*4 is not 1/],
      [() => decodeMultisigChange(fromHex(`0121${'00'.repeat(33)}28${'aa'.repeat(40)}0100`)), /address length.*33 bytes, expected 36…128/],
      [() => decodeMultisigChange(fromHex('0302ff0000000000')), /signer public key length/],
      [() => encodeMultisigChange({ kind: MultisigChangeType.ChangeReqSigs, requiredSigs: 256, signerPubKey: key40, signerNonce: nonce16 }), /not a byte/],
      [() => encodeMultisigTxData({ origTxId: null, signerPubKey: bytes(20, 1), signerNonce: nonce16 }), /signer public key: 20 bytes/],
    ];
    for (const [fn, message] of cases) {
      expect(fn).toThrow(MultisigCodecError);
      expect(fn).toThrow(message);
    }
  });
});

const signer = {
  signerPubKey: fc.uint8Array({ minLength: 36, maxLength: 700 }),
  signerNonce: fc.uint8Array({ maxLength: 16 }),
};
const txData: fc.Arbitrary<MultisigTxData> = fc.record({
  origTxId: fc.option(fc.uint8Array({ minLength: 1, maxLength: 100 }), { nil: null }),
  ...signer,
});
const change: fc.Arbitrary<MultisigChange> = fc.oneof(
  fc.record({
    kind: fc.constantFrom(MultisigChangeType.AddSigner, MultisigChangeType.DelSigner),
    address: fc.uint8Array({ minLength: 36, maxLength: 128 }),
    ...signer,
  }),
  fc.record({ kind: fc.constant(MultisigChangeType.ChangeReqSigs), requiredSigs: fc.integer({ min: 0, max: 255 }), ...signer }),
) as fc.Arbitrary<MultisigChange>;

/** Round trip, every truncation refused, a trailing byte refused, for one codec. */
function properties<T>(name: string, arb: fc.Arbitrary<T>, encode: (v: T) => Uint8Array, decode: (b: Uint8Array) => T): void {
  describe(`${name} properties`, () => {
    it('decode(encode(p)) = p and re-encoding gives the same bytes', () => {
      fc.assert(
        fc.property(arb, (p) => {
          const b = encode(p);
          const back = decode(b);
          expect(back).toEqual(p);
          expect(encode(back)).toEqual(b);
        }),
        { numRuns: runs(300) },
      );
    });
    it('every truncation and a trailing byte are refused with MultisigCodecError', () => {
      fc.assert(
        fc.property(arb, fc.integer({ min: 0, max: 255 }), (p, extra) => {
          const b = encode(p);
          for (let n = 0; n < b.length; n++) expect(() => decode(b.subarray(0, n)), `truncated to ${n} of ${b.length}`).toThrow(MultisigCodecError);
          expect(() => decode(Uint8Array.from([...b, extra]))).toThrow(/trailing/);
        }),
        { numRuns: runs(40) },
      );
    });
    it('random bytes give a payload or a MultisigCodecError, nothing else', () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 300 }), (b) => {
          try {
            decode(b);
          } catch (err) {
            expect(err).toBeInstanceOf(MultisigCodecError);
          }
        }),
        { numRuns: runs(3000) },
      );
    });
  });
}

properties('997/999 payload', txData, encodeMultisigTxData, decodeMultisigTxData);
properties('998 payload', change, encodeMultisigChange, decodeMultisigChange);
