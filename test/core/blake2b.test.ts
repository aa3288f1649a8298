// BLAKE2b (RFC 7693): RFC vectors, node:crypto for every length 0..300, @noble/hashes for other
// digest lengths and keys, on both the SIMD and the scalar core build.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { blake2b as nobleBlake2b } from '@noble/hashes/blake2.js';
import { blake2b, blake2bAbsorb, kdf } from '../../src/core/blake2b.js';
import { CoreInstance } from '../../src/core/instance.js';
import type { WasmFlavour } from '../../src/core/wasm.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const FLAVOURS: WasmFlavour[] = ['simd', 'scalar'];

// RFC 7693 Appendix E self-test input generator (Fibonacci-like sequence).
function selftestSeq(len: number, seed: number): Uint8Array {
  const out = new Uint8Array(len);
  let a = Math.imul(0xdead4bad, seed) >>> 0;
  let b = 1;
  for (let i = 0; i < len; i++) {
    const t = (a + b) >>> 0;
    a = b;
    b = t;
    out[i] = (t >>> 24) & 0xff;
  }
  return out;
}

describe.each(FLAVOURS)('BLAKE2b, %s build', (flavour) => {
  const core = new CoreInstance(flavour);

  it('RFC 7693 Appendix A: BLAKE2b-512("abc")', () => {
    expect(hex(blake2b(new TextEncoder().encode('abc'), 64, undefined, core))).toBe(
      'ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1' +
        '7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923',
    );
  });

  it('RFC 7693 Appendix E self-test grand hash (keyed and unkeyed, lengths 20..64)', () => {
    const parts: Uint8Array[] = [];
    for (const outLen of [20, 32, 48, 64]) {
      for (const inLen of [0, 3, 128, 129, 255, 1024]) {
        const input = selftestSeq(inLen, inLen);
        parts.push(blake2b(input, outLen, undefined, core));
        parts.push(blake2b(input, outLen, selftestSeq(outLen, outLen), core));
      }
    }
    const grand = blake2b(Buffer.concat(parts), 32, undefined, core);
    expect(hex(grand)).toBe('c23a7800d98123bd10f506c61e29da5603d763b8bbad2e737f5e765a7bccd475');
  });

  it('matches node:crypto blake2b512 for every input length 0..300 and across window chunks', () => {
    const data = selftestSeq(300, 7);
    for (let n = 0; n <= 300; n++) {
      const want = createHash('blake2b512').update(data.subarray(0, n)).digest('hex');
      expect(hex(blake2b(data.subarray(0, n), 64, undefined, core)), `length ${n}`).toBe(want);
    }
    for (const n of [16383, 16384, 16385, 32768 + 129, 234_236]) {
      const big = selftestSeq(n, n);
      expect(hex(blake2b(big, 64, undefined, core)), `length ${n}`).toBe(createHash('blake2b512').update(big).digest('hex'));
    }
  });

  it('a repeated-byte run (b2UpdateFill, the PoW salt padding) hashes like the bytes themselves', () => {
    // Every alignment of the run against the 128-byte blocks: after a prefix, after a key block,
    // ending on and just off a block boundary, followed by more data or by the final block.
    const e = kdf(core);
    const fill = (core.exports as unknown as { b2UpdateFill(b: number, count: number): void }).b2UpdateFill;
    const key = selftestSeq(64, 5);
    for (const keyed of [false, true]) {
      for (const prefix of [0, 1, 64, 127, 128, 129, 256]) {
        for (const count of [0, 1, 127, 128, 129, 255, 256, 257, 1000, 234_236 - 64]) {
          for (const suffix of [0, 3]) {
            const head = selftestSeq(prefix, prefix + 1);
            const tail = selftestSeq(suffix, 9);
            const whole = Buffer.concat([head, new Uint8Array(count).fill(0x23), tail]);
            core.bytes().set(key, e.blake2bWindow());
            e.blake2bInit(64, keyed ? key.length : 0);
            blake2bAbsorb(core, head);
            fill(0x23, count);
            blake2bAbsorb(core, tail);
            e.blake2bFinal();
            const want = nobleBlake2b(whole, keyed ? { key } : {});
            expect(hex(core.read(e.blake2bOutput(), 64)), `keyed ${keyed}, ${prefix} + ${count} × 0x23 + ${suffix}`).toBe(hex(want));
          }
        }
      }
    }
  });

  it('matches @noble/hashes for every output length 1..64, keyed and unkeyed, unaligned views', () => {
    const backing = selftestSeq(400, 3);
    for (let outLen = 1; outLen <= 64; outLen++) {
      const data = backing.subarray(outLen, outLen + 129 + outLen); // byteOffset differs every time
      const key = backing.subarray(200, 200 + outLen);
      expect(hex(blake2b(data, outLen, undefined, core)), `out ${outLen}`).toBe(hex(nobleBlake2b(data, { dkLen: outLen })));
      expect(hex(blake2b(data, outLen, key, core)), `keyed out ${outLen}`).toBe(hex(nobleBlake2b(data, { dkLen: outLen, key })));
    }
  });
});

describe('BLAKE2b API contract', () => {
  it('rejects wrong types and lengths with the expected range in the message', () => {
    expect(() => blake2b('abc' as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => blake2b(new Uint8Array(1), 0)).toThrow(/expected an integer 1\.\.64, got 0/);
    expect(() => blake2b(new Uint8Array(1), 65)).toThrow(RangeError);
    expect(() => blake2b(new Uint8Array(1), 1.5)).toThrow(RangeError);
    expect(() => blake2b(new Uint8Array(1), 64, new Uint8Array(65))).toThrow(/at most 64 bytes, got 65/);
    expect(() => blake2b(new Uint8Array(1), 64, [1] as unknown as Uint8Array)).toThrow(TypeError);
  });

  it('defaults to a 64-byte digest', () => {
    expect(blake2b(new Uint8Array(0)).length).toBe(64);
  });
});
