// SHA-512 and sha512sqTrunc of the WASM core, for both builds: NIST known answers, reference-formats
// §15.1, differential against node:crypto for every length 0..600 and chained, JS↔WASM copying,
// and the streaming exports split at every point.
import { describe, expect, it } from 'vitest';
import {
  FLAVOURS, describeMessage, expectChain, expectEverySplit, expectInPlace, hashesOf, hex, loadVectors, messageBytes,
  nodeDigest, testBytes, type WindowExports,
} from '../vectors/hash-vectors.js';

const DIFF_MAX_LENGTH = 600;

interface Sha512Exports extends WindowExports {
  sha512_init(): void;
  sha512_update(inPtr: number, length: number): void;
  sha512_final(outPtr: number): void;
  sha512_into(inPtr: number, length: number, outPtr: number): void;
}

describe.each(FLAVOURS)('SHA-512 (%s build)', (flavour) => {
  const { core, hashes } = hashesOf(flavour);
  const e = core.exports as unknown as Sha512Exports;
  const window = e.hash_input_window_size();

  it('matches the NIST known answers', () => {
    for (const v of loadVectors('nist-sha512.json')) {
      expect(hex(hashes.sha512(messageBytes(v.message))), `sha512 of ${describeMessage(v.message)}`).toBe(v.digest);
    }
  });

  it('matches the reference network vectors (reference-formats §15.1)', () => {
    for (const v of loadVectors('reference-hashes.json').filter((r) => r.fn === 'sha512sqTrunc')) {
      expect(hex(hashes.sha512sqTrunc(messageBytes(v.message), v.length)), describeMessage(v.message)).toBe(v.digest);
    }
  });

  it(`agrees with node:crypto for every length 0..${DIFF_MAX_LENGTH}`, () => {
    const data = testBytes(DIFF_MAX_LENGTH, 'sha512-diff');
    for (let n = 0; n <= DIFF_MAX_LENGTH; n++) {
      const x = data.subarray(0, n);
      expect(hex(hashes.sha512(x)), `sha512, ${n} B`).toBe(hex(nodeDigest('sha512', x)));
      const cut = 1 + (n % 64);
      expect(hex(hashes.sha512sqTrunc(x, cut)), `sha512sqTrunc(${cut}), ${n} B`).toBe(hex(nodeDigest('sha512', x, 2).subarray(0, cut)));
    }
  });

  it('agrees with node:crypto on chained hashing (hash of hash × 256)', () => {
    expectChain(hashes.sha512, 'sha512');
  });

  it('reads views with a non-zero byteOffset and streams around the window size (1 MiB+ included)', () => {
    const backing = testBytes(400, 'sha512-offset');
    for (let offset = 1; offset < 9; offset++) {
      for (const n of [0, 1, 111, 112, 127, 128, 129, 255, 256, 300]) {
        const x = backing.subarray(offset, offset + n);
        expect(hex(hashes.sha512(x)), `offset ${offset}, ${n} B`).toBe(hex(nodeDigest('sha512', x)));
      }
    }
    const big = testBytes(2 * window + 1000, 'sha512-window');
    for (const n of [window - 1, window, window + 1, window + 112, window + 128, 2 * window + 3]) {
      const x = big.subarray(5, 5 + n);
      expect(hex(hashes.sha512(x)), `sha512, ${n} B`).toBe(hex(nodeDigest('sha512', x)));
      expect(hex(hashes.sha512sqTrunc(x)), `sha512sqTrunc, ${n} B`).toBe(hex(nodeDigest('sha512', x, 2).subarray(0, 44)));
    }
    const mib = testBytes((1 << 20) + 13, 'sha512-mib');
    expect(hex(hashes.sha512(mib))).toBe(hex(nodeDigest('sha512', mib)));
  });

  it('streaming exports give the one-shot digest for every split into three updates', () => {
    const data = testBytes(300, 'sha512-split'); // > 2 blocks, tails on both sides of the 112-byte length-field boundary
    const stream = { init: e.sha512_init, update: e.sha512_update, final: e.sha512_final };
    expectEverySplit(core, stream, data, nodeDigest('sha512', data), 'SHA-512');
  });

  it('the one-shot export may write over its own input', () => {
    for (const n of [0, 64, 127, 200]) {
      const data = testBytes(n, `sha512-overlap-${n}`);
      expectInPlace(core, e.sha512_into, data, nodeDigest('sha512', data), `${n} B`);
    }
  });
});
