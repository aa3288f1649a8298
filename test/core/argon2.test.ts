// Argon2id v1.3 (RFC 9106): RFC and reference KATs, the perf-anchor regression vectors, and
// differential tests against @node-rs/argon2 (native) and hash-wasm, on both core builds.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Algorithm, hashRawSync, Version } from '@node-rs/argon2';
import { argon2id as hashWasmArgon2id } from 'hash-wasm';
import { argon2id, argon2Limits, setArgon2Limits, type Argon2Options } from '../../src/core/argon2.js';
import { CoreInstance } from '../../src/core/instance.js';
import type { WasmFlavour } from '../../src/core/wasm.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const FLAVOURS: WasmFlavour[] = ['simd', 'scalar'];
// Deterministic bytes as in shared/perf/anchors/lib/bench.mjs: SHAKE256(label), n bytes.
const shake = (label: string, n: number) => new Uint8Array(createHash('shake256', { outputLength: n }).update(label).digest());
const utf8 = (s: string) => new TextEncoder().encode(s);
const POW = { timeCost: 2, memoryCost: 2048, parallelism: 2, hashLength: 32 };

// Seeded generator (xorshift32) for the differential parameters.
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return (n: number) => {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return x % n;
  };
}

describe.each(FLAVOURS)('Argon2id, %s build', (flavour) => {
  const core = new CoreInstance(flavour);
  const run = (pw: Uint8Array, salt: Uint8Array, o: Argon2Options) => hex(argon2id(pw, salt, o, core));

  it('RFC 9106 §5.3 test vector (secret and associated data)', () => {
    const tag = run(new Uint8Array(32).fill(1), new Uint8Array(16).fill(2), {
      timeCost: 3, memoryCost: 32, parallelism: 4, hashLength: 32,
      secret: new Uint8Array(8).fill(3), associatedData: new Uint8Array(12).fill(4),
    });
    expect(tag).toBe('0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659');
  });

  it('reference implementation KATs (t=2, m=256, "password"/"somesalt", p=1 and p=2)', () => {
    const o = { timeCost: 2, memoryCost: 256, hashLength: 32 };
    expect(run(utf8('password'), utf8('somesalt'), { ...o, parallelism: 1 })).toBe('9dfeb910e80bad0311fee20f9c0e2b12c17987b4cac90c2ef54d5b3021c68bfe');
    expect(run(utf8('password'), utf8('somesalt'), { ...o, parallelism: 2 })).toBe('6d093c501fd5999645e0ea3bf620d7b8be7fd2db59c20d9fff9539da2bf57037');
  });

  it('perf-anchor vectors: PoW parameters with the 234,236-byte and a 16-byte salt', () => {
    const pw = shake('ixian-password', 92);
    expect(run(pw, shake('ixian-salt', 234_236), POW)).toBe('8de40ed8e1286875207be54882d9836419a1f208e86f61efccca32a1c7b1af86');
    expect(run(pw, shake('ixian-salt-small', 16), POW)).toBe('c7b0a2257ea445cd46ba4dc748d1381384bb1aebb911a450442fc51cdea11eb3');
  });

  it('long tags (H\' with T > 64) match @node-rs/argon2', () => {
    for (const hashLength of [4, 63, 64, 65, 100, 128, 1000]) {
      const o = { timeCost: 1, memoryCost: 64, parallelism: 1, hashLength };
      const want = hashRawSync(utf8('pw'), { algorithm: Algorithm.Argon2id, version: Version.V0x13, timeCost: 1, memoryCost: 64, parallelism: 1, outputLen: hashLength, salt: utf8('saltsalt') });
      expect(run(utf8('pw'), utf8('saltsalt'), o), `T=${hashLength}`).toBe(hex(want));
    }
  });

  it('differential vs @node-rs/argon2 and hash-wasm on seeded random small parameters', async () => {
    const next = rng(flavour === 'simd' ? 9106 : 7693);
    for (let i = 0; i < 24; i++) {
      const parallelism = 1 + next(5);
      const memoryCost = 8 * parallelism + next(200);
      const timeCost = 1 + next(4);
      const hashLength = 4 + next(80);
      const password = shake(`pw${i}`, next(100));
      const salt = shake(`salt${i}`, 8 + next(300));
      const label = `case ${i}: t=${timeCost} m=${memoryCost} p=${parallelism} T=${hashLength} |P|=${password.length} |S|=${salt.length}`;
      const ours = run(password, salt, { timeCost, memoryCost, parallelism, hashLength });
      const native = hashRawSync(password, { algorithm: Algorithm.Argon2id, version: Version.V0x13, timeCost, memoryCost, parallelism, outputLen: hashLength, salt });
      expect(ours, label).toBe(hex(native));
      if (i % 4 === 0 && password.length > 0) { // hash-wasm refuses an empty password
        const wasm = await hashWasmArgon2id({ password, salt, iterations: timeCost, memorySize: memoryCost, parallelism, hashLength, outputType: 'hex' });
        expect(ours, `${label} (hash-wasm)`).toBe(wasm);
      }
    }
  });

  it('secret and associated data change the tag as in @noble/hashes', async () => {
    const { argon2id: nobleArgon2id } = await import('@noble/hashes/argon2.js');
    const o = { timeCost: 2, memoryCost: 64, parallelism: 2, hashLength: 32 };
    const secret = shake('k', 20);
    const associatedData = shake('x', 33);
    const want = nobleArgon2id(utf8('password'), utf8('somesalt'), { t: 2, m: 64, p: 2, dkLen: 32, key: secret, personalization: associatedData });
    expect(run(utf8('password'), utf8('somesalt'), { ...o, secret, associatedData })).toBe(hex(want));
  });
});

describe('Argon2id parameter checks (before any work)', () => {
  const pw = utf8('password');
  const salt = utf8('somesalt');
  const ok = { timeCost: 1, memoryCost: 64, parallelism: 1, hashLength: 32 };

  it('names the accepted range for each parameter', () => {
    expect(() => argon2id(pw, salt, { ...ok, timeCost: 0 })).toThrow(/timeCost: expected an integer 1\.\.32, got 0/);
    expect(() => argon2id(pw, salt, { ...ok, parallelism: 0 })).toThrow(/parallelism: expected an integer 1\.\.64, got 0/);
    expect(() => argon2id(pw, salt, { ...ok, parallelism: 2, memoryCost: 15 })).toThrow(/memoryCost \(KiB\): expected an integer 16\.\.65536, got 15/);
    expect(() => argon2id(pw, salt, { ...ok, memoryCost: 65537 })).toThrow(RangeError);
    expect(() => argon2id(pw, salt, { ...ok, hashLength: 3 })).toThrow(/hashLength: expected an integer 4\.\.1024, got 3/);
    expect(() => argon2id(pw, salt, { ...ok, timeCost: 1.5 })).toThrow(RangeError);
    expect(() => argon2id(pw, salt, { ...ok, timeCost: '2' as unknown as number })).toThrow(RangeError);
    expect(() => argon2id(pw, utf8('short'), ok)).toThrow(/salt: expected at least 8 bytes, got 5/);
    expect(() => argon2id('pw' as unknown as Uint8Array, salt, ok)).toThrow(TypeError);
    expect(() => argon2id(pw, salt, { ...ok, secret: 'k' as unknown as Uint8Array })).toThrow(TypeError);
    expect(() => argon2id(pw, salt, null as unknown as Argon2Options)).toThrow(TypeError);
  });

  it('hostile parameters are rejected in O(1), without growing memory', () => {
    const t0 = performance.now();
    expect(() => argon2id(pw, salt, { ...ok, memoryCost: 2 ** 31 })).toThrow(RangeError);
    expect(() => argon2id(pw, salt, { ...ok, timeCost: 2 ** 31 })).toThrow(RangeError);
    expect(performance.now() - t0).toBeLessThan(50);
  });

  it('limits are configurable and validated', () => {
    const before = argon2Limits();
    try {
      setArgon2Limits({ maxMemoryKiB: 32 });
      expect(() => argon2id(pw, salt, ok)).toThrow(/8\.\.32, got 64/);
      expect(() => setArgon2Limits({ maxTimeCost: 0 })).toThrow(RangeError);
    } finally {
      setArgon2Limits(before);
    }
    expect(hex(argon2id(pw, salt, ok))).toHaveLength(64);
  });
});
