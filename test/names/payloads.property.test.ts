// fast-check properties of the payload codec (practice P18): round trip, every truncation and a
// trailing byte rejected with NameCodecError, random bytes never escape as another error.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeNamePayload, encodeNamePayload, NameOp, type NamePayload } from '../../src/names/payloads.js';
import { NameCodecError } from '../../src/names/reader.js';
import { runs } from '../fuzz-scale.js';

const section = fc.uint8Array({ minLength: 64, maxLength: 64 }).map((h) => Uint8Array.from([64, ...h]));
const id = fc.array(section, { minLength: 1, maxLength: 3 }).map((s) => Uint8Array.from(s.flatMap((x) => [...x])));
const address = fc.oneof(
  fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Uint8Array.from([0, ...b])),
  fc.tuple(fc.constantFrom(1, 2), fc.uint8Array({ minLength: 44, maxLength: 44 })).map(([v, b]) => Uint8Array.from([v, ...b])),
);
const u32 = fc.integer({ min: 0, max: 0xffff_ffff });
const signed = {
  sequence: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
  nextPkHash: address,
  sigPk: fc.uint8Array({ minLength: 1, maxLength: 600 }),
  sig: fc.uint8Array({ minLength: 1, maxLength: 520 }),
};
const record = fc.record({
  key: fc.uint8Array({ minLength: 1, maxLength: 256 }),
  ttl: fc.integer({ min: -0x8000_0000, max: 0x7fff_ffff }),
  data: fc.option(fc.uint8Array({ minLength: 1, maxLength: 300 }), { nil: null }),
  checksum: fc.option(fc.uint8Array({ minLength: 64, maxLength: 64 }), { nil: null }),
});

const payload: fc.Arbitrary<NamePayload> = fc.oneof(
  fc.record({ op: fc.constant(NameOp.Register), id, registrationTimeInBlocks: u32, capacity: u32, recoveryHash: address, nextPkHash: address }),
  fc.record({ op: fc.constant(NameOp.Extend), id, extensionTimeInBlocks: u32 }),
  fc.record({ op: fc.constant(NameOp.UpdateRecord), id, records: fc.array(record, { maxLength: 4 }), ...signed }),
  fc.record({ op: fc.constant(NameOp.ChangeCapacity), id, newCapacity: u32, ...signed }),
  fc.record({ op: fc.constant(NameOp.Recover), id, newRecoveryHash: address, ...signed }),
  fc.record({
    op: fc.constant(NameOp.ToggleAllowSubnames),
    id,
    allowSubnames: fc.boolean(),
    subnamePrice: fc.bigInt({ min: 0n, max: 1n << 80n }),
    subnameFeeRecipient: address,
    ...signed,
  }),
) as fc.Arbitrary<NamePayload>;

describe('name payload codec properties', () => {
  it('decode(encode(p)) = p and re-encoding gives the same bytes', () => {
    fc.assert(
      fc.property(payload, (p) => {
        const bytes = encodeNamePayload(p);
        const back = decodeNamePayload(bytes);
        expect(back).toEqual(p);
        expect(encodeNamePayload(back)).toEqual(bytes);
      }),
      { numRuns: runs(300) },
    );
  });
  it('every truncation and a trailing byte are rejected with NameCodecError', () => {
    fc.assert(
      fc.property(payload, fc.integer({ min: 0, max: 255 }), (p, extra) => {
        const bytes = encodeNamePayload(p);
        for (let n = 0; n < bytes.length; n++) {
          expect(() => decodeNamePayload(bytes.subarray(0, n)), `truncated to ${n} of ${bytes.length}`).toThrow(NameCodecError);
        }
        expect(() => decodeNamePayload(Uint8Array.from([...bytes, extra]))).toThrow(/trailing/);
      }),
      { numRuns: runs(60) },
    );
  });
  it('random bytes give a payload or a NameCodecError, nothing else', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.uint8Array({ maxLength: 400 }), (op, rest) => {
        try {
          decodeNamePayload(Uint8Array.from([op, ...rest]));
        } catch (err) {
          expect(err).toBeInstanceOf(NameCodecError);
        }
      }),
      { numRuns: runs(2000) },
    );
  });
  it('rejects unknown instructions, bad flags and non-canonical amounts with a clear message', () => {
    expect(() => decodeNamePayload(Uint8Array.of(7, 1, 1))).toThrow(/unknown instruction 7/);
    expect(() => decodeNamePayload(new Uint8Array(0))).toThrow(/instruction/);
    const p = encodeNamePayload({
      op: NameOp.ToggleAllowSubnames,
      id: Uint8Array.from([64, ...new Uint8Array(64)]),
      allowSubnames: true,
      subnamePrice: 0n,
      subnameFeeRecipient: Uint8Array.from([0, ...new Uint8Array(32)]),
      sequence: 1n,
      nextPkHash: Uint8Array.from([0, ...new Uint8Array(32)]),
      sigPk: Uint8Array.of(1),
      sig: Uint8Array.of(2),
    });
    const badFlag = p.slice();
    badFlag[67] = 2; // op, id length, 65-byte id, then the flag
    expect(() => decodeNamePayload(badFlag)).toThrow(/allowSubnames.*expected 0 or 1/);
    expect(() => encodeNamePayload({ op: NameOp.Extend, id: new Uint8Array(0), extensionTimeInBlocks: 1 })).toThrow(RangeError);
  });
});
