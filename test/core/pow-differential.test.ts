// The mining PoW (reference-formats.md §11) against a reference Argon2 library and an independent
// big-integer reading of the §11.2 rule, on fast-check inputs: powHash / powHashVariant equal
// @node-rs/argon2 (the reference Argon2 C code's Rust port, native) over the same password and
// salt for every checksum/address/nonce length the verifier takes; powCheck equals
// `hash ≤ ceiling` as 256-bit big-endian numbers at random difficulties, with hashes on, just
// above and just below the ceiling. Plus one real solution found by search (hash 0000b8e8…):
// it passes at the highest difficulty it meets and fails one above.
import { Algorithm, hashRawSync, Version } from '@node-rs/argon2';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { POW_PARAMS, POW_VARIANTS, powCeiling, powCheck, powHash, powHashVariant, powVerify } from '../../src/core/pow.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const fromHex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
const MAX_U64 = (1n << 64n) - 1n;

function nativeArgon2id(password: Uint8Array, salt: Uint8Array, p: { timeCost: number; memoryCost: number; parallelism: number }): string {
  return hex(hashRawSync(Buffer.from(password), {
    algorithm: Algorithm.Argon2id, version: Version.V0x13, timeCost: p.timeCost, memoryCost: p.memoryCost,
    parallelism: p.parallelism, outputLen: POW_PARAMS.hashLength, salt: Buffer.from(salt),
  }));
}

/** §11.1 step 3, built the obvious way. */
function expandNonce(nonce: Uint8Array): Uint8Array {
  const salt = new Uint8Array(POW_PARAMS.saltLength).fill(0x23);
  salt.set(nonce);
  return salt;
}

const bytesOf = (lengths: number[]) => fc.constantFrom(...lengths).chain((n) => fc.uint8Array({ minLength: n, maxLength: n }));

describe('PoW hash vs @node-rs/argon2 (fast-check)', () => {
  it('current algorithm: any checksum (32/44/64), address (33/36/45/48), nonce of 1..64 bytes', () => {
    fc.assert(fc.property(bytesOf([32, 44, 64]), bytesOf([33, 36, 45, 48]), fc.uint8Array({ minLength: 1, maxLength: 64 }), (checksum, address, nonce) => {
      const want = nativeArgon2id(new Uint8Array([...checksum, ...address]), expandNonce(nonce), POW_PARAMS);
      expect(hex(powHash(checksum, address, nonce))).toBe(want);
    }), { numRuns: 12, seed: 2611 });
  });

  it('historical variants v0/v1/v2: their parameters, the nonce unexpanded as the salt', () => {
    fc.assert(fc.property(fc.constantFrom('v0', 'v1', 'v2' as const), bytesOf([32, 44]), bytesOf([36, 48]), fc.uint8Array({ minLength: 8, maxLength: 64 }), (variant, checksum, address, nonce) => {
      const want = nativeArgon2id(new Uint8Array([...checksum, ...address]), nonce, POW_VARIANTS[variant]);
      expect(hex(powHashVariant(variant, checksum, address, nonce))).toBe(want);
    }), { numRuns: 12, seed: 2612 });
  });
});

describe('PoW ceiling rule vs 256-bit integers (fast-check)', () => {
  const big = (b: Uint8Array) => BigInt(`0x${hex(b)}`);
  /** §11.2 as a number: 00 00 ‖ ~d (8 bytes) ‖ ff × 22. */
  const ceilingOf = (d: bigint) => ((~d & MAX_U64) << 176n) | ((1n << 176n) - 1n);
  const toBytes = (n: bigint) => fromHex(n.toString(16).padStart(64, '0'));

  it('powCeiling is that number; powCheck is hash ≤ ceiling, at and around it', () => {
    const difficulty = fc.oneof(fc.bigInt({ min: 0n, max: MAX_U64 }), fc.constantFrom(0n, 1n, MAX_U64, MAX_U64 - 1n, 0xa2cb1211629f6141n));
    const offset = fc.oneof(fc.constantFrom(0n, 1n, -1n), fc.bigInt({ min: -(1n << 200n), max: 1n << 200n }));
    fc.assert(fc.property(difficulty, offset, (d, delta) => {
      const ceiling = ceilingOf(d);
      expect(big(powCeiling(d))).toBe(ceiling);
      const h = ceiling + delta;
      if (h < 0n || h >= 1n << 256n) return;
      expect(powCheck(toBytes(h), d)).toBe(h <= ceiling);
    }), { numRuns: 3000, seed: 2613 });
  });
});

describe('a real solution (found by search) at its edge difficulty', () => {
  // bench/lib.mjs pseudoRandomBytes(64, 21) and (45, 22): the pool bench's checksum and address.
  const CHECKSUM = fromHex('9456159980b36552b51544a8c87909e3ca44cc8d55dce27e999a29301cee57f982431e40bf7ca3d915616cd4404bb63fc2565dfabe26d14125b4c98190d936e0');
  const ADDRESS = fromHex('f75552d04b402656ba5a45a24bf3c2ac7db3680fee8d83a88cd788e1e709c39a5210c3de67393803b0fe3a45d5');
  const NONCE = fromHex('c5e9b73c7fae33d20d0efbfb4550112d0f65be421ddf3e2ba3bfd18704e4000a9fe2bed8fec3f82265a3c798e166d6503da9d82791a5b613e042c9c30000d958');
  const HASH = '0000b8e8070e4ce03b4a4cf3985fee71db8d8fb89618e62d2d5b093eddf7b0d0';
  /** The highest difficulty it meets: ceiling bytes 2..9 = hash bytes 2..9, i.e. d = ~0xb8e8070e4ce03b4a. */
  const EDGE = ~0xb8e8070e4ce03b4an & MAX_U64;

  it('ours and @node-rs/argon2 give the searched hash', () => {
    expect(hex(powHash(CHECKSUM, ADDRESS, NONCE))).toBe(HASH);
    expect(nativeArgon2id(new Uint8Array([...CHECKSUM, ...ADDRESS]), expandNonce(NONCE), POW_PARAMS)).toBe(HASH);
  });

  it('passes from difficulty 0 up to its edge; fails one above, at the documented minimum (above its edge) and at the maximum', () => {
    const verify = (difficulty: bigint) => powVerify({ blockChecksum: CHECKSUM, solverAddress: ADDRESS, nonce: NONCE, difficulty });
    expect(EDGE).toBe(0x4717f8f1b31fc4b5n);
    expect([0n, 1n, EDGE - 1n, EDGE].map(verify)).toEqual([true, true, true, true]);
    expect([EDGE + 1n, 0xa2cb1211629f6141n, MAX_U64].map(verify)).toEqual([false, false, false]);
    // One nonce byte changed, or the nonce without its trailing bytes: another hash.
    const changed = NONCE.slice();
    changed[63]! ^= 1;
    expect(powVerify({ blockChecksum: CHECKSUM, solverAddress: ADDRESS, nonce: changed, difficulty: 0n })).toBe(false);
    expect(powVerify({ blockChecksum: CHECKSUM, solverAddress: ADDRESS, nonce: NONCE.subarray(0, 63), difficulty: 0n })).toBe(false);
  });
});
