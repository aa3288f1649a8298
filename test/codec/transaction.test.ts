// Public API of src/codec/transaction.ts: vectors, ids, encode/decode properties, batches, errors.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  CodecError,
  binaryTransactionId,
  canonicalTransactionBytes,
  decodeWithCanonical,
  decodeBinaryTransactionId,
  decodeTransaction,
  decodeTransactionBatch,
  encodeTransaction,
  parseTransactionId,
  signedSize,
  transactionAmounts,
  transactionChecksum,
  transactionId,
} from '../../src/codec/transaction.js';
import type { Transaction } from '../../src/codec/types.js';
import { toHex } from '../../src/formats/bytes.js';
import { canonicalWireTxArb, mutate, mutationArb, serialize, wireTxArb } from './arbitraries.js';
import { referenceDecode } from './reference-decoder.js';
import {
  REGNAME_CHECKSUM,
  REGNAME_ID,
  TRANSFER_CHECKSUM,
  TRANSFER_ID,
  regNameWith,
  transferSigned,
  transferUnsigned,
} from './vectors.js';
import { runs } from '../fuzz-scale.js';

const TEST_LOCK = new TextEncoder().encode('IxiTest');

describe('vectors (§8.6, §15.3)', () => {
  it('the docs transfer: checksum and id [VERIFIED], other networks [COMPUTED]', () => {
    const tx = decodeTransaction(transferSigned(), 'test');
    expect(toHex(tx.checksum)).toBe(TRANSFER_CHECKSUM.test);
    expect(transactionId(tx)).toBe(TRANSFER_ID);
    expect(toHex(transactionChecksum(tx, 'main'))).toBe(TRANSFER_CHECKSUM.main);
    expect(toHex(transactionChecksum(tx, 'reg'))).toBe(TRANSFER_CHECKSUM.reg);
    expect(toHex(decodeTransaction(transferSigned(), TEST_LOCK).checksum)).toBe(TRANSFER_CHECKSUM.test);
    expect(transactionAmounts(tx)).toEqual({ amount: 50000000000000n, fee: 1000000n, totalAmount: 50000001000000n });
    expect(signedSize(tx)).toBe(1123); // → 2 started kB → fee 0.01 (§8.6)
    expect(toHex(encodeTransaction(tx))).toBe(toHex(transferSigned()));
    expect(toHex(encodeTransaction({ ...tx, signature: null }))).toBe(toHex(transferUnsigned()));
  });

  it('the docs name registration: id with any data [VERIFIED]', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (data) => {
        const tx = decodeTransaction(regNameWith(data), 'test');
        expect(toHex(tx.checksum)).toBe(REGNAME_CHECKSUM);
        expect(transactionId(tx)).toBe(REGNAME_ID);
      }),
      { numRuns: runs(30) },
    );
  });
});

describe('transaction ids (§8.7)', () => {
  const checksum = Uint8Array.from({ length: 44 }, (_, i) => i);
  it('normal and staking text ids round-trip through parseTransactionId', () => {
    const normal = { type: 0, blockHeight: 11n, checksum };
    const id = transactionId(normal);
    expect(id).toMatch(/^11-[1-9A-HJ-NP-Za-km-z]+$/);
    expect(parseTransactionId(id)).toEqual({ prefix: 1, blockHeight: 11n, checksum, binary: binaryTransactionId(normal) });
    const staking = { type: 2, blockHeight: 1000n, checksum };
    const sid = transactionId(staking);
    expect(sid.startsWith('stk-995-1000-')).toBe(true);
    expect(parseTransactionId(sid)).toMatchObject({ prefix: 0, blockHeight: 1000n, binary: binaryTransactionId(staking) });
    expect(toHex(binaryTransactionId(staking)).slice(0, 8)).toBe('00fce803');
    expect(decodeBinaryTransactionId(binaryTransactionId(staking))).toMatchObject({ prefix: 0, blockHeight: 1000n });
  });

  it('the docs transfer id parses to the binary id of §9.3', () => {
    const { binary } = parseTransactionId(TRANSFER_ID);
    expect(Buffer.from(binary).toString('base64')).toBe('AQvIGyAXSY58g40dLZYMgOLBihApWWgEFN037xQ7zHd9d5axcdhzaD+TQlqR/Q==');
  });

  it('bad ids name what was expected', () => {
    for (const bad of ['', '11', 'x-284b', '11-0OIl', '-1-abc', 'stk-1-2', '011-284bKK', `11-${'2'.repeat(10)}`]) {
      expect(() => parseTransactionId(bad), bad).toThrow(RangeError);
    }
    expect(() => parseTransactionId(42 as unknown as string)).toThrow(TypeError);
    expect(() => transactionId({ type: 0, blockHeight: 1n })).toThrow(TypeError);
  });
});

describe('encode / decode properties', () => {
  it('decode(encode(t)) = t, and the checksum matches the reference decoder', () => {
    fc.assert(
      fc.property(canonicalWireTxArb, (w) => {
        const bytes = serialize(w);
        const ref = referenceDecode(bytes, TEST_LOCK);
        const tx = decodeTransaction(bytes, 'test', { forceV7: true });
        const { checksum, ...fields } = tx;
        expect(fields).toEqual(ref.tx);
        expect(toHex(checksum)).toBe(toHex(ref.checksum));
        expect(toHex(encodeTransaction(tx, { applied: true }))).toBe(toHex(bytes));
        const again = decodeTransaction(encodeTransaction(tx, { applied: true }), 'test', { forceV7: true });
        expect(again).toEqual(tx);
        expect(toHex(transactionChecksum(tx, 'test'))).toBe(toHex(checksum));
      }),
      { numRuns: runs(200) },
    );
  });

  it('encode(decode(x)) = the canonical form of x, also for non-canonical x', () => {
    fc.assert(
      fc.property(wireTxArb, (w) => {
        const bytes = serialize(w);
        const tx = decodeTransaction(bytes, 'test', { forceV7: true });
        const canonical = encodeTransaction(tx);
        expect(toHex(canonical)).toBe(toHex(referenceDecode(bytes, TEST_LOCK).canonical));
        expect(toHex(canonicalTransactionBytes(bytes))).toBe(toHex(canonical));
        expect(signedSize(tx)).toBe(canonical.length);
      }),
      { numRuns: runs(200) },
    );
  });

  it('decodeWithCanonical = decodeTransaction (v7, applied 0) and canonicalTransactionBytes, sharing one copy of canonical input', () => {
    fc.assert(
      fc.property(wireTxArb, (w) => {
        const bytes = serialize(w);
        const given = bytes.slice();
        const { tx, canonical } = decodeWithCanonical(given, 'test');
        expect(tx).toEqual(decodeTransaction(bytes, 'test', { forceV7: true, applied: false }));
        expect(toHex(canonical)).toBe(toHex(canonicalTransactionBytes(bytes)));
        expect(canonical).not.toBe(given); // its own copy, never the caller's array
        given.fill(0);
        expect(toHex(canonical)).toBe(toHex(canonicalTransactionBytes(bytes)));
        // Canonical input: the fields are views of the canonical bytes, not of a second copy.
        const same = toHex(canonical) === toHex(bytes);
        expect(tx.signature === null || tx.signature.buffer === canonical.buffer).toBe(same || tx.signature === null);
        const c = decodeWithCanonical(encodeTransaction(tx), 'test');
        expect(c.canonical.buffer).toBe((c.tx.signature ?? c.tx.outputs[0]?.address ?? c.canonical).buffer);
      }),
      { numRuns: runs(200) },
    );
  });

  it('a transaction read from a Buffer (a view of a larger frame) keeps none of that Buffer\'s memory', () => {
    fc.assert(
      fc.property(canonicalWireTxArb, (w) => {
        const bytes = serialize(w);
        const frame = Buffer.alloc(bytes.length + 200, 0xaa);
        frame.set(bytes, 100);
        const view = frame.subarray(100, 100 + bytes.length);
        const expected = decodeTransaction(bytes, 'test', { forceV7: true, applied: false });
        const { tx, canonical } = decodeWithCanonical(view, 'test');
        const plain = decodeTransaction(view, 'test', { forceV7: true, applied: false });
        for (const t of [tx, plain]) {
          for (const field of [t.signature, t.pubKey, ...t.inputs.map((i) => i.key), ...t.outputs.map((o) => o.address)]) {
            if (field) expect(field.buffer).not.toBe(frame.buffer);
          }
        }
        expect(canonical.buffer).not.toBe(frame.buffer);
        frame.fill(0);
        expect(tx).toEqual(expected);
        expect(plain).toEqual(expected);
      }),
      { numRuns: runs(100) },
    );
  });

  it('random and mutated bytes never throw anything but CodecError', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 300 }), wireTxArb.map(serialize)), fc.array(mutationArb, { maxLength: 3 }), (b, ms) => {
        const bytes = ms.reduce(mutate, b);
        for (const options of [{}, { forceV7: true }]) {
          try {
            decodeTransaction(bytes, 'reg', options);
          } catch (e) {
            expect(e).toBeInstanceOf(CodecError);
          }
        }
      }),
      { numRuns: runs(1000) },
    );
  });

  it('rejects oversized input before copying, and wrong argument types', () => {
    const big = new Uint8Array(512001);
    big[0] = 7;
    expect(() => decodeTransaction(big, 'test')).toThrow(/at most 512,000 bytes/);
    expect(() => decodeTransaction('07' as unknown as Uint8Array, 'test')).toThrow(TypeError);
    expect(() => decodeTransaction(transferSigned(), 'moon' as 'main')).toThrow(RangeError);
  });

  it('encode refuses what decode would refuse, naming the field', () => {
    const tx = decodeTransaction(transferSigned(), 'test');
    const bad: Array<[Partial<Transaction>, RegExp]> = [
      [{ inputs: [{ key: Uint8Array.of(1), amount: 1n }] }, /inputs\[0\]\.key/],
      [{ inputs: [{ key: Uint8Array.of(0), amount: 1n }, { key: Uint8Array.of(0), amount: 2n }] }, /repeats/],
      [{ outputs: [{ address: new Uint8Array(36), amount: 1n }] }, /outputs\[0\]\.address/],
      [{ nonce: 2 ** 31 }, /nonce/],
      [{ blockHeight: -1n }, /blockHeight/],
    ];
    for (const [patch, message] of bad) expect(() => encodeTransaction({ ...tx, ...patch })).toThrow(message);
    expect(() => encodeTransaction({ ...tx, nonce: '1' as unknown as number })).toThrow(TypeError);
  });
});

describe('batches', () => {
  it('decodeTransactionBatch equals one-at-a-time decoding, errors in their slots', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(wireTxArb, fc.option(mutationArb)), { maxLength: 20 }), (items) => {
        const list = items.map(([w, m]) => {
          const b = serialize({ ...w, version: 7 });
          return m ? mutate(b, m) : b;
        });
        const batch = decodeTransactionBatch(list, 'test');
        list.forEach((bytes, i) => {
          let single: unknown;
          try {
            single = decodeTransaction(bytes, 'test');
          } catch (e) {
            single = e;
          }
          if (single instanceof CodecError) expect(batch[i]).toMatchObject({ code: single.code, offset: single.offset });
          else expect(batch[i]).toEqual(single);
        });
      }),
      { numRuns: runs(50) },
    );
  });

  it('splits large batches over several WASM calls', () => {
    const list = Array.from({ length: 1000 }, () => transferSigned()); // 1.1 MB > one window
    const out = decodeTransactionBatch(list, 'test');
    expect(out.every((t) => !(t instanceof CodecError) && toHex(t.checksum) === TRANSFER_CHECKSUM.test)).toBe(true);
  });
});

describe('legacy layouts (§8.12, read-only)', () => {
  it('reads a v6 transaction (varint layout) with its carried checksum', () => {
    const to = Uint8Array.from([0, ...new Array(32).fill(5)]);
    const withChecksum = Uint8Array.from([...to, ...checksum3(to)]);
    const carried = new Uint8Array(44).fill(0xcd);
    const bytes = Uint8Array.from([
      6, 0, 1, 100, 1, 1, // version, type, amount 100, fee 1
      1, 36, ...withChecksum, 1, 100, // one output
      1, 1, 0, 1, 101, // one input [0x00]: 101
      0, 0, // dataChecksum, data
      0x0b, 0x05, 0x0a, // blockHeight 11, nonce 5, timestamp 10
      44, ...carried, 0, 0, 0, // checksum, no signature, no pubKey, applied 0
    ]);
    const tx = decodeTransaction(bytes, 'test');
    expect(tx).toMatchObject({ version: 6, blockHeight: 11n, nonce: 5, timestamp: 10n, pubKey: null });
    expect(tx.outputs).toEqual([{ address: to, amount: 100n }]);
    expect(tx.inputs).toEqual([{ key: Uint8Array.of(0), amount: 101n }]);
    expect(tx.checksum).toEqual(carried);
    expect(() => decodeTransaction(Uint8Array.from([...bytes, 0]), 'test')).toThrow(CodecError);
    expect(() => decodeTransaction(bytes.subarray(0, 50), 'test')).toThrow(CodecError);
  });
});

function checksum3(address: Uint8Array): Uint8Array {
  // sha512sqTrunc(address, 3) (§7.4), via node:crypto
  const h = (b: Uint8Array): Buffer => createHash('sha512').update(b).digest();
  return h(h(address)).subarray(0, 3);
}
