// The WASM codec against the spec vectors and, differentially, against the reference decoder.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { WasmCodec } from '../../src/codec/wasm-codec.js';
import { CodecError } from '../../src/codec/errors.js';
import { MAX_AMOUNT_BYTES } from '../../src/formats/amount.js';
import { fromHex, toHex } from '../../src/formats/bytes.js';
import { referenceDecode, ReferenceError_ } from './reference-decoder.js';
import {
  canonicalWireTxArb,
  mutate,
  mutationArb,
  serialize,
  wireTxArb,
} from './arbitraries.js';
import {
  DOCS_PUBLIC_KEY,
  REGNAME_CHECKSUM,
  REGNAME_PREIMAGE_HEAD,
  TRANSFER_CHECKSUM,
  TRANSFER_PREIMAGE_HEAD,
  regNameWith,
  transferSigned,
  transferUnsigned,
} from './vectors.js';
import { runs } from '../fuzz-scale.js';

const codec = new WasmCodec();
const LOCKS = { main: 'Ixian', test: 'IxiTest', reg: 'IxiReg' } as const;
const lock = (text: string): Uint8Array => new TextEncoder().encode(text);
const TEST_LOCK = lock(LOCKS.test);

type Outcome = { ok: true; value: unknown } | { ok: false; code: string; offset: number };

function viaWasm(bytes: Uint8Array, l = TEST_LOCK): Outcome {
  codec.setLock(l);
  try {
    const { checksum, ...tx } = codec.decodeOne(bytes);
    return { ok: true, value: { tx, checksum: toHex(checksum), canonical: toHex(codec.canonicalize(bytes, false)) } };
  } catch (e) {
    if (!(e instanceof CodecError)) throw e;
    return { ok: false, code: e.code, offset: e.offset };
  }
}

function viaReference(bytes: Uint8Array, l = TEST_LOCK): Outcome {
  try {
    const r = referenceDecode(bytes, l);
    return { ok: true, value: { tx: r.tx, checksum: toHex(r.checksum), canonical: toHex(r.canonical) } };
  } catch (e) {
    if (!(e instanceof ReferenceError_)) throw e;
    return { ok: false, code: e.code, offset: e.offset };
  }
}

describe('WASM codec: layout shared with TS', () => {
  it('bounds amounts like src/formats/amount.ts', () => {
    expect(codec.inputCapacity).toBe(512000);
    expect(codec.checksumSize).toBe(44);
    const long = MAX_AMOUNT_BYTES + 1;
    const amount = Uint8Array.from([7, 0, 0, 1, 1, 0, long, ...new Array(long).fill(1), 0, 0, 0, 0, 0, 0, 0]);
    expect(viaWasm(amount)).toMatchObject({ ok: false, code: 'OUT_OF_RANGE', offset: 6 });
  });
});

describe('WASM codec: spec vectors', () => {
  it('§8.6 [VERIFIED]: the docs transfer reproduces its checksum on testnet, and §15.3 main/reg', () => {
    for (const [network, expected] of Object.entries(TRANSFER_CHECKSUM)) {
      codec.setLock(lock(LOCKS[network as keyof typeof LOCKS]));
      expect(toHex(codec.decodeOne(transferUnsigned()).checksum), network).toBe(expected);
      expect(toHex(codec.decodeOne(transferSigned()).checksum), network).toBe(expected);
    }
  });

  it('§8.6: the fields of the docs transfer', () => {
    codec.setLock(TEST_LOCK);
    const tx = codec.decodeOne(transferSigned());
    expect(tx.version).toBe(7);
    expect(tx.type).toBe(0);
    expect(tx.blockHeight).toBe(11n);
    expect(tx.nonce).toBe(313950);
    expect(tx.inputs).toEqual([{ key: Uint8Array.of(0), amount: 50000001000000n }]);
    expect(tx.outputs).toHaveLength(1);
    expect(tx.outputs[0]!.amount).toBe(50000000000000n);
    expect(toHex(tx.outputs[0]!.address)).toBe('019090cd4cdcb9f32bddd452c71cbd95bf94f4335b8227aee8d93f0910309fe89fd9dd33cff492a3fcf0461061');
    expect(tx.pubKey).toEqual(DOCS_PUBLIC_KEY);
    expect(tx.signature).toHaveLength(512);
    expect(tx.applied).toBe(0n);
    expect(transferUnsigned()).toHaveLength(609);
    expect(transferSigned()).toHaveLength(1123);
  });

  it('§8.6: the preimage is exactly the documented one', () => {
    // the canonical full form minus rows 4d/5d/8/9, behind the lock, is the documented preimage
    const pre = fromHex(TRANSFER_PREIMAGE_HEAD);
    const canonical = codec.canonicalize(transferUnsigned(), false);
    expect(toHex(canonical)).toBe(toHex(transferUnsigned()));
    expect(pre.length + DOCS_PUBLIC_KEY.length).toBe(612);
  });

  it('§8.6 [VERIFIED]: the name registration has the documented checksum with any data', () => {
    codec.setLock(TEST_LOCK);
    expect(REGNAME_PREIMAGE_HEAD.startsWith('49786954657374')).toBe(true);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (data) => {
        const tx = codec.decodeOne(regNameWith(data));
        expect(toHex(tx.checksum)).toBe(REGNAME_CHECKSUM);
        expect(tx.type).toBe(4);
        expect(tx.blockHeight).toBe(403n);
        expect(tx.nonce).toBe(40792);
        expect(tx.outputs[0]!.data ?? new Uint8Array(0)).toEqual(data);
      }),
      { numRuns: runs(50) },
    );
    expect(toHex(codec.decodeOne(regNameWith(new Uint8Array(165).fill(0xab))).checksum)).toBe(REGNAME_CHECKSUM);
  });
});

describe('WASM codec vs the reference decoder', () => {
  it('agrees on random valid (also non-canonical) transactions', () => {
    fc.assert(
      fc.property(wireTxArb, (t) => {
        const bytes = serialize(t);
        const ref = viaReference(bytes);
        expect(ref.ok).toBe(true);
        expect(viaWasm(bytes)).toEqual(ref);
      }),
      { numRuns: runs(400) },
    );
  });

  it('agrees on mutated transactions (same error code and offset, or the same result)', () => {
    fc.assert(
      fc.property(wireTxArb, fc.array(mutationArb, { minLength: 1, maxLength: 3 }), (t, ms) => {
        const bytes = ms.reduce(mutate, serialize(t));
        expect(viaWasm(bytes)).toEqual(viaReference(bytes));
      }),
      { numRuns: runs(1500) },
    );
  });

  it('agrees on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (b) => {
        const bytes = b.length > 0 && b[0]! < 7 ? Uint8Array.from([7, ...b]) : b;
        expect(viaWasm(bytes)).toEqual(viaReference(bytes));
      }),
      { numRuns: runs(1000) },
    );
  });

  it('canonical bytes are a fixed point, and the canonical form of any valid input', () => {
    fc.assert(
      fc.property(canonicalWireTxArb, (t) => {
        const bytes = serialize(t);
        expect(toHex(codec.canonicalize(bytes, true))).toBe(toHex(bytes));
      }),
      { numRuns: runs(300) },
    );
  });

  it('rejects every truncation and every appended byte of a valid transaction', () => {
    codec.setLock(TEST_LOCK);
    const full = transferSigned();
    for (let n = 0; n < full.length; n++) {
      expect(() => codec.decodeOne(full.subarray(0, n)), `prefix ${n}`).toThrow(CodecError);
    }
    for (const extra of [0, 1, 0x7f, 0xff]) {
      const e = catchCodec(() => codec.decodeOne(Uint8Array.from([...full, extra])));
      expect(e).toMatchObject({ code: 'TRAILING_BYTES', offset: full.length, field: 'end of transaction' });
    }
  });
});

describe('WASM codec: errors name the field and offset', () => {
  const base = [...fromHex('07000b01')]; // version 7, type 0, height 11, one input
  const cases: Array<[string, number[], string, number, string]> = [
    ['empty input', [], 'TRUNCATED', 0, 'version'],
    ['reserved prefix', [0xfb], 'BAD_VARINT', 0, 'version'],
    ['negative version', [0xf8, 1, 0], 'NEGATIVE_VARINT', 0, 'version'],
    ['version beyond i32', [0xfd, 0, 0, 0, 0x80], 'OUT_OF_RANGE', 0, 'version'],
    ['key of length 2', [...base, 2, 0, 0, 1, 1, 0, 0, 0], 'BAD_INPUT_KEY', 4, 'fromList[0].key'],
    ['1-byte key 01', [...base, 1, 1, 1, 1, 0, 0, 0], 'BAD_INPUT_KEY', 4, 'fromList[0].key'],
    ['zero-length amount', [...base, 1, 0, 0, 0, 0, 0, 0], 'EMPTY_AMOUNT', 6, 'fromList[0].amount'],
  ];
  for (const [name, bytes, code, offset, field] of cases) {
    it(name, () => {
      codec.setLock(TEST_LOCK);
      const e = catchCodec(() => codec.decodeOne(Uint8Array.from(bytes)));
      expect(e).toMatchObject({ code, offset, field });
      expect(e.message).toContain(`in ${field} at byte ${offset}`);
    });
  }

  it('duplicate keys and addresses, in short lists and in long (hashed) ones', () => {
    for (const n of [2, 15, 16, 17, 40, 300]) {
      const key = (i: number): number[] => [16, ...new Array(14).fill(0), i >> 8, i & 0xff];
      const inputs = Array.from({ length: n }, (_, i) => [...key(i), 1, 1, 0, 0]);
      inputs[n - 1] = [...key(n >> 2), 1, 1, 0, 0]; // repeats an earlier entry
      const bytes = Uint8Array.from([7, 0, 0, ...varint(n), ...inputs.flat(), 0, 0, 0, 0, 0]);
      const e = catchCodec(() => codec.decodeOne(bytes));
      expect(e.code, `n=${n}`).toBe('DUPLICATE_INPUT');
      expect(e.field).toBe(`fromList[${n - 1}].key`);
      expect(viaReference(bytes)).toMatchObject({ ok: false, code: 'DUPLICATE_INPUT', offset: e.offset });

      const addr = (i: number): number[] => [45, 1, ...new Array(42).fill(9), i >> 8, i & 0xff];
      const outputs = Array.from({ length: n }, (_, i) => [...addr(i), 1, 1, 0, 0]);
      outputs[n - 1] = [...addr(n - 2), 1, 1, 0, 0];
      const out = Uint8Array.from([7, 0, 0, 0, ...varint(n), ...outputs.flat(), 0, 0, 0, 0]);
      const e2 = catchCodec(() => codec.decodeOne(out));
      expect(e2.code, `n=${n}`).toBe('DUPLICATE_OUTPUT');
      expect(e2.field).toBe(`toList[${n - 1}].address`);
      // no duplicate → accepted
      outputs[n - 1] = [...addr(n - 1), 1, 1, 0, 0];
      expect(codec.decodeOne(Uint8Array.from([7, 0, 0, 0, ...varint(n), ...outputs.flat(), 0, 0, 0, 0])).outputs).toHaveLength(n);
    }
  });
});

describe('WASM codec: batches', () => {
  it('decodes and checksums many transactions per call; a bad one only fails its slot', () => {
    codec.setLock(TEST_LOCK);
    fc.assert(
      fc.property(fc.array(fc.tuple(wireTxArb, fc.option(mutationArb)), { minLength: 1, maxLength: 30 }), (items) => {
        const list = items.map(([t, m]) => (m ? mutate(serialize(t), m) : serialize(t)));
        const results: unknown[] = new Array(list.length);
        codec.decodeMany(list, list.map((_, i) => i), results as never);
        list.forEach((bytes, i) => {
          const ref = viaReference(bytes);
          const got = results[i];
          if (ref.ok) {
            const { checksum, ...tx } = got as { checksum: Uint8Array };
            expect({ tx, checksum: toHex(checksum) }).toEqual({
              tx: (ref.value as { tx: unknown }).tx,
              checksum: (ref.value as { checksum: string }).checksum,
            });
          } else expect(got).toMatchObject({ code: ref.code, offset: ref.offset });
        });
      }),
      { numRuns: runs(60) },
    );
  });
});

function varint(n: number): number[] {
  return n < 0xf8 ? [n] : [0xfc, n & 0xff, n >> 8];
}

function catchCodec(f: () => unknown): CodecError {
  try {
    f();
  } catch (e) {
    if (e instanceof CodecError) return e;
    throw e;
  }
  throw new Error('expected a CodecError');
}
