// SHA3-256 / SHA3-512 and the reference double hashes of the WASM core, for both builds (simd and
// scalar): NIST known answers, reference-formats §15.1, differential against node:crypto (OpenSSL)
// for every length 0..600 and chained, JS↔WASM copying (offsets, window crossings, 1 MiB+), and the
// streaming exports split at every point.
import { describe, expect, it } from 'vitest';
import {
  FLAVOURS, describeMessage, expectChain, expectEverySplit, expectInPlace, hashesOf, hex, loadVectors, messageBytes,
  nodeDigest, testBytes, type WindowExports,
} from '../vectors/hash-vectors.js';

const DIFF_MAX_LENGTH = 600;

interface Sha3Exports extends WindowExports {
  sha3_init(digestLength: number): void;
  sha3_update(inPtr: number, length: number): void;
  sha3_final(outPtr: number): void;
  sha3_256_into(inPtr: number, length: number, outPtr: number): void;
  sha3_512_into(inPtr: number, length: number, outPtr: number): void;
  sha3_512sqTrunc_into(inPtr: number, length: number, outPtr: number, outLength: number): void;
}

describe.each(FLAVOURS)('SHA3 (%s build)', (flavour) => {
  const { core, hashes } = hashesOf(flavour);
  const e = core.exports as unknown as Sha3Exports;
  const window = e.hash_input_window_size();

  it('matches the NIST known answers', () => {
    for (const v of loadVectors('nist-sha3.json')) {
      const fn = v.alg === 'sha3-256' ? hashes.sha3_256 : hashes.sha3_512;
      expect(hex(fn(messageBytes(v.message))), `${v.alg} of ${describeMessage(v.message)}`).toBe(v.digest);
    }
  });

  it('matches the reference network vectors (reference-formats §15.1)', () => {
    for (const v of loadVectors('reference-hashes.json').filter((r) => r.fn!.startsWith('sha3'))) {
      const data = messageBytes(v.message);
      const got = v.fn === 'sha3_512sqTrunc' ? hashes.sha3_512sqTrunc(data, v.length) : hashes[v.fn!](data);
      expect(hex(got), `${v.fn} of ${describeMessage(v.message)}`).toBe(v.digest);
    }
  });

  it(`agrees with node:crypto for every length 0..${DIFF_MAX_LENGTH}`, () => {
    const data = testBytes(DIFF_MAX_LENGTH, 'sha3-diff');
    for (let n = 0; n <= DIFF_MAX_LENGTH; n++) {
      const x = data.subarray(0, n);
      expect(hex(hashes.sha3_256(x)), `sha3_256, ${n} B`).toBe(hex(nodeDigest('sha3-256', x)));
      expect(hex(hashes.sha3_512(x)), `sha3_512, ${n} B`).toBe(hex(nodeDigest('sha3-512', x)));
      const sq = nodeDigest('sha3-512', x, 2);
      expect(hex(hashes.sha3_512sq(x)), `sha3_512sq, ${n} B`).toBe(hex(sq));
      const cut = 1 + (n % 64);
      expect(hex(hashes.sha3_512sqTrunc(x, cut)), `sha3_512sqTrunc(${cut}), ${n} B`).toBe(hex(sq.subarray(0, cut)));
    }
  });

  it('agrees with node:crypto on chained hashing (hash of hash × 256)', () => {
    expectChain(hashes.sha3_512, 'sha3-512');
    expectChain(hashes.sha3_256, 'sha3-256');
  });

  it('reads views with a non-zero byteOffset correctly', () => {
    const backing = testBytes(400, 'sha3-offset');
    for (let offset = 1; offset < 9; offset++) {
      for (const n of [0, 1, 71, 72, 73, 135, 136, 137, 200, 300]) {
        const x = backing.subarray(offset, offset + n);
        expect(hex(hashes.sha3_512(x)), `offset ${offset}, ${n} B`).toBe(hex(nodeDigest('sha3-512', x)));
        expect(hex(hashes.sha3_256(x)), `offset ${offset}, ${n} B`).toBe(hex(nodeDigest('sha3-256', x)));
      }
    }
  });

  it('streams inputs around and beyond the window size (1 MiB+ included)', () => {
    const big = testBytes(2 * window + 1000, 'sha3-window');
    for (const n of [window - 1, window, window + 1, window + 71, window + 72, 2 * window + 3]) {
      const x = big.subarray(7, 7 + n); // odd byteOffset on purpose
      expect(hex(hashes.sha3_512(x)), `sha3_512, ${n} B`).toBe(hex(nodeDigest('sha3-512', x)));
      expect(hex(hashes.sha3_256(x)), `sha3_256, ${n} B`).toBe(hex(nodeDigest('sha3-256', x)));
      expect(hex(hashes.sha3_512sqTrunc(x)), `sha3_512sqTrunc, ${n} B`).toBe(hex(nodeDigest('sha3-512', x, 2).subarray(0, 44)));
    }
    const mib = testBytes((1 << 20) + 13, 'sha3-mib');
    expect(hex(hashes.sha3_512(mib))).toBe(hex(nodeDigest('sha3-512', mib)));
    expect(hex(hashes.sha3_512sq(mib))).toBe(hex(nodeDigest('sha3-512', mib, 2)));
  });

  it('streaming exports give the one-shot digest for every split into three updates', () => {
    const data = testBytes(290, 'sha3-split'); // > 2 blocks of SHA3-256 (136 B) and 4 of SHA3-512 (72 B)
    for (const digestLength of [32, 64]) {
      const stream = { init: () => e.sha3_init(digestLength), update: e.sha3_update, final: e.sha3_final };
      const want = nodeDigest(digestLength === 32 ? 'sha3-256' : 'sha3-512', data);
      expectEverySplit(core, stream, data, want, `SHA3-${digestLength * 8}`);
    }
  });

  it('one-shot exports may write over their own input', () => {
    for (const n of [0, 64, 100, 200]) {
      const data = testBytes(n, `sha3-overlap-${n}`);
      expectInPlace(core, e.sha3_512_into, data, nodeDigest('sha3-512', data), `sha3_512, ${n} B`);
      expectInPlace(core, e.sha3_256_into, data, nodeDigest('sha3-256', data), `sha3_256, ${n} B`);
      const sqTrunc44 = (i: number, len: number, o: number) => e.sha3_512sqTrunc_into(i, len, o, 44);
      expectInPlace(core, sqTrunc44, data, nodeDigest('sha3-512', data, 2).subarray(0, 44), `sqTrunc, ${n} B`);
    }
  });
});
