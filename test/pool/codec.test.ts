// The pool's one packer (src/pool/tasks/codec.ts) and the tasks built on it: round trips, views
// not copies, and every malformed task rejected with a RangeError (never another exception).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packParts, unpackParts } from '../../src/pool/tasks/codec.js';
import { verifyPowTask } from '../../src/pool/tasks/pow.js';
import { signRsaTask, verifyRsaTask } from '../../src/pool/tasks/rsa.js';

const hex = (items: Uint8Array[][]) => items.map((parts) => parts.map((p) => Buffer.from(p).toString('hex')));

/** Items of `parts` byte parts each. */
const itemsOf = (parts: number) => fc.array(fc.array(fc.uint8Array({ maxLength: 40 }), { minLength: parts, maxLength: parts }), { maxLength: 12 });

/** Runs `fn` and returns the exception's constructor name, or 'ok'. */
function outcome(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (e) {
    return (e as Error).constructor.name;
  }
}

describe('packParts / unpackParts', () => {
  it('lays out count, parts per item, u32 lengths, then the bytes (little-endian)', () => {
    const buffer = packParts([[Uint8Array.of(1, 2), new Uint8Array(0)], [Uint8Array.of(3), Uint8Array.of(4, 5, 6)]], 2);
    expect(Buffer.from(buffer).toString('hex')).toBe(
      ['02000000', '02000000', '02000000', '00000000', '01000000', '03000000', '0102', '03', '040506'].join(''),
    );
    expect(hex(unpackParts(buffer, 2))).toEqual([['0102', ''], ['03', '040506']]);
    expect(unpackParts(packParts([], 3), 3)).toEqual([]);
  });

  it('round-trips any items, as views into the task (no copies), from an ArrayBuffer or a Uint8Array', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }).chain((parts) => fc.tuple(fc.constant(parts), itemsOf(parts))), ([parts, items]) => {
        const buffer = packParts(items, parts);
        const back = unpackParts(buffer, parts);
        expect(hex(back)).toEqual(hex(items));
        for (const item of back) for (const part of item) expect(part.buffer).toBe(buffer);
        const framed = new Uint8Array(buffer.byteLength + 3);
        framed.set(new Uint8Array(buffer), 3);
        expect(hex(unpackParts(framed.subarray(3), parts))).toEqual(hex(items));
      }),
    );
  });

  it('random bytes give items or a RangeError, never another exception', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 96 }), fc.integer({ min: 1, max: 4 }), (bytes, parts) => {
        expect(['ok', 'RangeError']).toContain(outcome(() => unpackParts(bytes, parts)));
        // The same bytes with a plausible header: small count, the expected parts.
        const framed = new Uint8Array(8 + bytes.length);
        new DataView(framed.buffer).setUint32(0, bytes[0] ?? 0, true);
        new DataView(framed.buffer).setUint32(4, parts, true);
        framed.set(bytes, 8);
        expect(['ok', 'RangeError']).toContain(outcome(() => unpackParts(framed, parts)));
      }),
    );
  });

  it('rejects a truncated, extended or re-typed task with a RangeError', () => {
    fc.assert(
      fc.property(itemsOf(3).filter((items) => items.length > 0), fc.nat(), (items, cut) => {
        const bytes = new Uint8Array(packParts(items, 3));
        expect(() => unpackParts(bytes.subarray(0, cut % bytes.length), 3)).toThrow(RangeError);
        const longer = new Uint8Array(bytes.length + 1);
        longer.set(bytes);
        expect(() => unpackParts(longer, 3)).toThrow(RangeError);
        expect(() => unpackParts(bytes, 2)).toThrow(RangeError);
      }),
    );
  });

  it('names the fault: short header, huge count, overrunning length', () => {
    expect(() => unpackParts(new Uint8Array(7), 1)).toThrow(/shorter than its 8-byte header/);
    const huge = new Uint8Array(8);
    new DataView(huge.buffer).setUint32(0, 0xffffffff, true);
    new DataView(huge.buffer).setUint32(4, 1, true);
    expect(() => unpackParts(huge, 1)).toThrow(/lengths/);
    const overrun = new Uint8Array(packParts([[Uint8Array.of(9)]], 1));
    new DataView(overrun.buffer).setUint32(8, 0xffffffff, true);
    expect(() => unpackParts(overrun, 1, 'verifyRsa')).toThrow(/verifyRsa task: item 0 part 0 .* runs past the end/);
    expect(() => unpackParts('x' as unknown as ArrayBuffer, 1)).toThrow(TypeError);
  });

  it('pack refuses items of the wrong shape', () => {
    expect(() => packParts([[Uint8Array.of(1)]], 2)).toThrow(RangeError);
    expect(() => packParts([[Uint8Array.of(1)]], 0)).toThrow(RangeError);
    expect(() => packParts([['x' as unknown as Uint8Array]], 1)).toThrow(TypeError);
  });
});

describe('task formats', () => {
  const claim = { blockChecksum: new Uint8Array(64).fill(7), solverAddress: new Uint8Array(45).fill(9), nonce: Uint8Array.of(1, 2, 3), difficulty: 0xffff_ffff_ffff_fff0n };

  it('verifyPow round-trips variant and u64 difficulty; a bad meta part or variant is a RangeError', () => {
    const back = verifyPowTask.unpack(verifyPowTask.pack([{ claim, variant: 'v3' }, { claim: { ...claim, difficulty: 0n }, variant: 'v0' }]));
    expect(back.map((b) => [b.variant, b.claim.difficulty, b.claim.nonce.length])).toEqual([['v3', claim.difficulty, 3], ['v0', 0n, 3]]);
    expect(() => verifyPowTask.unpack(packParts([[new Uint8Array(8), claim.blockChecksum, claim.solverAddress, claim.nonce]], 4))).toThrow(/meta has 8 bytes/);
    expect(() => verifyPowTask.unpack(packParts([[new Uint8Array(9).fill(4), claim.blockChecksum, claim.solverAddress, claim.nonce]], 4))).toThrow(/unknown variant 4/);
    expect(() => verifyPowTask.unpack(verifyRsaTask.pack([]))).toThrow(RangeError); // 3 parts, not 4
    expect(() => verifyPowTask.results(new Uint8Array(2), 3)).toThrow(RangeError);
  });

  it('random bytes given to any task give items or a RangeError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        for (const task of [verifyPowTask, verifyRsaTask, signRsaTask]) {
          expect(['ok', 'RangeError']).toContain(outcome(() => task.unpack(bytes)));
        }
        expect(['ok', 'RangeError']).toContain(outcome(() => signRsaTask.results(bytes, 1)));
      }),
    );
  });

  it('signRsa results carry a signature or the reason its key was refused', () => {
    const packed = new Uint8Array(packParts([[Uint8Array.of(1), Uint8Array.of(5, 6)], [Uint8Array.of(0), new TextEncoder().encode('bad key')]], 2));
    const [signature, refused] = signRsaTask.results(packed, 2);
    expect(signature).toEqual(Uint8Array.of(5, 6));
    expect(refused).toMatchObject({ code: 'ERR_RSA_KEY', message: 'bad key' });
    expect(() => signRsaTask.results(packed, 3)).toThrow(RangeError);
  });
});
