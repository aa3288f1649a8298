// Mining PoW (reference-formats.md §11, §15.5): the [COMPUTED] hash vector for both address
// rules, the ceiling table, the comparison edges, historical variants, and the API contract.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { argon2id } from '../../src/core/argon2.js';
import { CoreInstance } from '../../src/core/instance.js';
import type { CoreAccess } from '../../src/core/blake2b.js';
import type { WasmFlavour } from '../../src/core/wasm.js';
import {
  asciiNonce, hasLeadingZeroBits, POW_PARAMS, powCeiling, powCheck, powHash, powHashVariant, powVariantForBlockVersion, powVerify,
  v0RequiredZeroBits,
} from '../../src/core/pow.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const fromHex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
const FLAVOURS: WasmFlavour[] = ['simd', 'scalar'];

// §11.4
const CHECKSUM = fromHex('45fdf916e326ec11be583c11547a6b77271fccaca6589ae8033a64cea0e296c23a8624f08502d2212ba0176dc0bb1c8aa83ddccb0052abcadf1c86952262bada');
const ADDRESS = fromHex('01bec1923ea08fa066e56ba46557a9b5ecf3da82c484b7010d77a1650e7cdda12e4dd6fe9fbf004331aa46a645');
const ADDRESS_WITH_CHECKSUM = fromHex(`${hex(ADDRESS)}61990e`);
const NONCE = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const HASH_V10 = '256a719d5f41f44b59f8110fbe57b4b54a6eb0b34a2251d8ff11c12b586033fe';
const HASH_PRE_V10 = '5b8d8e892ef3ba46119402a4e3dfca1e122a9d83b152e4e2460d5a991020bfa6';

/** The expanded salt of §11.1 step 3, built the obvious way. */
function expandNonce(nonce: Uint8Array): Uint8Array {
  const salt = new Uint8Array(POW_PARAMS.saltLength).fill(0x23);
  salt.set(nonce);
  return salt;
}

describe.each(FLAVOURS)('PoW hash, %s build', (flavour) => {
  const core = new CoreInstance(flavour);

  it('§11.4 vector: the block checksum is sha3_512sq("ixian test block")', () => {
    const once = createHash('sha3-512').update('ixian test block').digest();
    expect(hex(createHash('sha3-512').update(once).digest())).toBe(hex(CHECKSUM));
  });

  it('§11.4 vector, v10+ rule (64-byte checksum ‖ 45-byte address)', () => {
    expect(hex(powHash(CHECKSUM, ADDRESS, NONCE, core))).toBe(HASH_V10);
  });

  it('§11.4 vector, pre-v10 rule (44-byte checksum ‖ 48-byte address with checksum)', () => {
    expect(hex(powHash(CHECKSUM.subarray(0, 44), ADDRESS_WITH_CHECKSUM, NONCE, core))).toBe(HASH_PRE_V10);
  });

  it('the salt built in WASM is the §11.4 expansion (same hash as generic Argon2id over it)', () => {
    const salt = expandNonce(NONCE);
    expect(createHash('sha256').update(salt).digest('hex')).toBe('d2ae1225ac8b0ce22d1b092aa98d1557bd67fcc19fe0fccbee4dd2910ba1c03b');
    for (const nonce of [new Uint8Array([7]), new Uint8Array(64).fill(0x23), Uint8Array.from({ length: 64 }, (_, i) => 255 - i)]) {
      const password = new Uint8Array([...CHECKSUM, ...ADDRESS]);
      const generic = argon2id(password, expandNonce(nonce), POW_PARAMS, core);
      expect(hex(powHash(CHECKSUM, ADDRESS, nonce, core)), `nonce of ${nonce.length} bytes`).toBe(hex(generic));
    }
  });

  it('historical variants use their §11.1 parameters and an unexpanded salt', () => {
    const nonce = new TextEncoder().encode('0123456789abcdef');
    const pw44 = new Uint8Array([...CHECKSUM.subarray(0, 44), ...ADDRESS_WITH_CHECKSUM]);
    const v2 = argon2id(pw44, nonce, { timeCost: 1, memoryCost: 1024, parallelism: 2, hashLength: 32 }, core);
    const v0 = argon2id(pw44, nonce, { timeCost: 1, memoryCost: 1024, parallelism: 4, hashLength: 32 }, core);
    expect(hex(powHashVariant('v2', CHECKSUM.subarray(0, 44), ADDRESS_WITH_CHECKSUM, nonce, core))).toBe(hex(v2));
    expect(hex(powHashVariant('v1', CHECKSUM.subarray(0, 44), ADDRESS_WITH_CHECKSUM, nonce, core))).toBe(hex(v2));
    expect(hex(powHashVariant('v0', CHECKSUM.subarray(0, 44), ADDRESS_WITH_CHECKSUM, nonce, core))).toBe(hex(v0));
    expect(hex(powHashVariant('v3', CHECKSUM, ADDRESS, NONCE, core))).toBe(HASH_V10);
  });
});

describe('PoW ceiling and comparison (§11.2)', () => {
  const table: [bigint, string][] = [
    [0xa2cb1211629f6141n, '00005d34edee9d609ebe'],
    [18442206887586635022n, '000000101e8bf722e2f1'],
    [0n, '0000ffffffffffffffff'],
    [0xffffffffffffffffn, '00000000000000000000'],
  ];
  it.each(table)('difficulty %s → ceil10 %s, then 22 bytes of 0xff', (difficulty, ceil10) => {
    const ceiling = powCeiling(difficulty);
    expect(ceiling.length).toBe(32);
    expect(hex(ceiling)).toBe(ceil10 + 'ff'.repeat(22));
  });

  it('hash = ceiling passes; byte 9 raised by one fails; lowered by one passes', () => {
    const d = 0xa2cb1211629f6141n;
    const hash = powCeiling(d);
    expect(powCheck(hash, d)).toBe(true);
    const higher = hash.slice();
    higher[9]! += 1;
    expect(powCheck(higher, d)).toBe(false);
    const lower = hash.slice();
    lower[9]! -= 1;
    expect(powCheck(lower, d)).toBe(true);
    expect(powCheck(hash.subarray(0, 31), d)).toBe(false); // shorter than 32 bytes fails
  });

  it('the §11.4 hash fails every difficulty (first byte is not zero)', () => {
    for (const [d] of table) expect(powCheck(fromHex(HASH_V10), d)).toBe(false);
  });

  it('difficulty must be a u64 bigint', () => {
    expect(() => powCeiling(5 as unknown as bigint)).toThrow(TypeError);
    expect(() => powCeiling(-1n)).toThrow(/0\.\.2\^64-1, got -1/);
    expect(() => powCeiling(1n << 64n)).toThrow(RangeError);
  });

  it('leading-zero-bits rule (v0 blocks)', () => {
    const h = new Uint8Array(32).fill(0xff);
    h[0] = 0; h[1] = 0x1f; // 11 leading zero bits
    expect(hasLeadingZeroBits(h, 11n)).toBe(true);
    expect(hasLeadingZeroBits(h, 12n)).toBe(false);
    expect(hasLeadingZeroBits(h, 0n)).toBe(true);
    expect(hasLeadingZeroBits(new Uint8Array(32), 256n)).toBe(true);
    expect(hasLeadingZeroBits(new Uint8Array(32), 257n)).toBe(false);
  });
});

describe('PoW API contract', () => {
  it('rejects wrong types and sizes with "expected … got …"', () => {
    expect(() => powHash(CHECKSUM.subarray(0, 40), ADDRESS, NONCE)).toThrow(/blockChecksum: expected 32, 44, 64 bytes, got 40/);
    expect(() => powHash(CHECKSUM, ADDRESS.subarray(0, 20), NONCE)).toThrow(/solverAddress: expected 33, 36, 45, 48 bytes, got 20/);
    expect(() => powHash(CHECKSUM, ADDRESS, new Uint8Array(0))).toThrow(/nonce: expected 1\.\.64 bytes, got 0/);
    expect(() => powHash(CHECKSUM, ADDRESS, new Uint8Array(65))).toThrow(/got 65/);
    expect(() => powHash('x' as unknown as Uint8Array, ADDRESS, NONCE)).toThrow(TypeError);
    expect(() => powHashVariant('v9' as 'v3', CHECKSUM, ADDRESS, NONCE)).toThrow(/expected v0, v1, v2 or v3/);
    expect(() => powVariantForBlockVersion(-1)).toThrow(RangeError);
  });

  it('a block version or claim of the wrong type is a TypeError naming the type', () => {
    const claim = { blockChecksum: CHECKSUM, solverAddress: ADDRESS, nonce: NONCE, difficulty: 0n };
    for (const blockVersion of ['13', null, 13n, {}]) {
      expect(() => powVerify({ ...claim, blockVersion: blockVersion as unknown as number }), String(blockVersion)).toThrow(TypeError);
      expect(() => powVariantForBlockVersion(blockVersion as unknown as number)).toThrow(/block version: expected a number, got (a string|null|a bigint|an object)/);
    }
    expect(() => powVariantForBlockVersion(13.5)).toThrow(RangeError);
    expect(() => powVariantForBlockVersion(Number.NaN)).toThrow(RangeError);
    expect(() => powVerify(undefined as unknown as typeof claim)).toThrow('PoW claim: expected an object, got undefined');
  });

  it('variant by block version', () => {
    expect([0, 1, 2, 4, 5, 9, 10, 13].map(powVariantForBlockVersion)).toEqual(['v0', 'v1', 'v2', 'v2', 'v3', 'v3', 'v3', 'v3']);
  });

  it('powVerify: hash against difficulty; a nonce of the wrong length is a failed claim, not an error', () => {
    const claim = { blockChecksum: CHECKSUM, solverAddress: ADDRESS, nonce: NONCE, difficulty: 0n };
    expect(powVerify(claim)).toBe(false); // §11.4: first byte 0x25 ≠ 0
    expect(powVerify({ ...claim, nonce: new Uint8Array(65) })).toBe(false);
    expect(() => powVerify({ ...claim, difficulty: 1 as unknown as bigint })).toThrow(TypeError);
    // v0 rule with 2 required zero bits: 0x25 = 0b00100101 has two leading zero bits.
    expect(hasLeadingZeroBits(fromHex(HASH_V10), 2n)).toBe(true);
  });
});

// v0 blocks (Ixian-DLT Miner.verifyNonce_v0 / validateHash_v0 / setDifficulty_v0, called from
// TransactionPool.verifyPoWTransaction with UTF8.GetString of the claim's nonce): the difficulty
// is cast to a C# int and clamped to 14..256 zero bits; the salt is the ASCII form of the nonce.
describe('v0 and v1 claims as the reference verifies them', () => {
  // A nonce found by search: its v0 hash has exactly 20 leading zero bits.
  const v0Claim = (difficulty: bigint, nonce = new TextEncoder().encode('nonce-7340')) => (
    { blockChecksum: new Uint8Array(64).map((_, i) => i * 7).subarray(0, 44), solverAddress: new Uint8Array(48).map((_, i) => i ^ 0x5a), nonce, difficulty, blockVersion: 0 }
  );

  it('the searched nonce has 20 leading zero bits (v0 parameters)', () => {
    const c = v0Claim(0n);
    const hash = powHashVariant('v0', c.blockChecksum, c.solverAddress, c.nonce);
    expect(hex(hash)).toBe('00000cb40af378fad4c8fed53652f049d24295e3049ba4f767c5138b1547d451');
    expect(hasLeadingZeroBits(hash, 20n)).toBe(true);
    expect(hasLeadingZeroBits(hash, 21n)).toBe(false);
  });

  it('required bits: the difficulty as a C# int, clamped to 14..256', () => {
    expect([0n, 1n, 13n, 14n, 20n, 256n, 257n, 0xffffffffn, (1n << 32n) + 20n, 0x80000000n, (1n << 64n) - 1n].map(v0RequiredZeroBits))
      .toEqual([14n, 14n, 14n, 14n, 20n, 256n, 256n, 14n, 20n, 14n, 14n]);
  });

  it('powVerify on a v0 claim: passes up to 20 required bits, fails at 21; difficulty 0 asks for 14, not 0', () => {
    expect(powVerify(v0Claim(20n))).toBe(true);
    expect(powVerify(v0Claim(21n))).toBe(false);
    expect(powVerify(v0Claim(0n))).toBe(true);
    expect(powVerify(v0Claim((1n << 32n) + 20n))).toBe(true); // low 32 bits: 20
    expect(powVerify(v0Claim((1n << 32n) + 21n))).toBe(false);
    // Another nonce: its hash has fewer than 14 zero bits, so it fails even at difficulty 0.
    const other = v0Claim(0n, new TextEncoder().encode('nonce-7341'));
    expect(hasLeadingZeroBits(powHashVariant('v0', other.blockChecksum, other.solverAddress, other.nonce), 14n)).toBe(false);
    expect(powVerify(other)).toBe(false);
  });

  it('the ASCII form of a nonce: non-ASCII characters and malformed UTF-8 become "?"', () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    const ascii = enc('nonce-7340');
    expect(asciiNonce(ascii)).toBe(ascii);
    expect(Array.from(asciiNonce(enc('né😀x')))).toEqual(Array.from(enc('n??x')));
    expect(Array.from(asciiNonce(Uint8Array.of(0x61, 0xff, 0x62, 0xe2, 0x82)))).toEqual(Array.from(enc('a?b?')));
    expect(Array.from(asciiNonce(Uint8Array.of(0xef, 0xbb, 0xbf, 0x61)))).toEqual(Array.from(enc('?a'))); // a BOM is a character, not dropped
  });

  it('powVerify on a v0 claim with non-ASCII nonce bytes hashes their ASCII form', () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    // 'nonce-24106?' (searched) has a v0 hash with 17 leading zero bits; claims whose nonce bytes
    // read as that text once made ASCII pass as it does.
    const searched = v0Claim(0n, enc('nonce-24106?'));
    expect(hex(powHashVariant('v0', searched.blockChecksum, searched.solverAddress, searched.nonce)).slice(0, 6)).toBe('000058');
    for (const nonce of [enc('nonce-24106?'), enc('nonce-24106é'), enc('nonce-24106😀'), Uint8Array.of(...enc('nonce-24106'), 0xff)]) {
      expect(powVerify(v0Claim(17n, nonce)), Buffer.from(nonce).toString('hex')).toBe(true);
      expect(powVerify(v0Claim(18n, nonce))).toBe(false);
      expect(powVerify({ ...v0Claim(17n, nonce), blockVersion: 1, difficulty: 0n })).toBe(false); // v1: p=2 and the ceiling rule
    }
  });
});

// The comparison per block version at a hash whose first 10 bytes equal the ceiling (what the real
// hash cannot be made to do, so the core's hash output is stubbed). v2+ blocks (validateHash_v2):
// bytes past the 10-byte ceiling count as 0xFF, so such a hash passes. v1 blocks
// (Miner.validateHashInternal_v1) index the 10-byte ceiling past its end: the exception makes
// verifyPoWTransaction answer false.
describe('a hash equal to the ceiling on its first 10 bytes, per block version', () => {
  const difficulty = 0xa2cb1211629f6141n;
  /** A core whose PoW hash is `hash`, whatever the input. */
  const stubCore = (hash: Uint8Array): CoreAccess => ({
    exports: { argon2Reserve: () => 1, powInput: () => 0, powHash: () => 1, argon2Output: () => 0 } as unknown as CoreAccess['exports'],
    bytes: () => new Uint8Array(1024),
    read: (_ptr: number, length: number) => hash.slice(0, length),
  });
  const atCeiling = new Uint8Array(32);
  atCeiling.set(powCeiling(difficulty).subarray(0, 10)); // then 22 zero bytes: below the full ceiling
  const claim = (blockVersion: number) => ({
    blockChecksum: CHECKSUM.subarray(0, 44), solverAddress: ADDRESS_WITH_CHECKSUM, nonce: new TextEncoder().encode('0123456789'), difficulty, blockVersion,
  });

  it('v2+ rule: passes (hash ≤ ceiling)', () => {
    for (const v of [2, 4, 5, 13]) expect(powVerify(claim(v), stubCore(atCeiling)), `v${v}`).toBe(true);
  });

  it('v1 rule: fails, as the reference\'s out-of-range read does', () => {
    expect(powVerify(claim(1), stubCore(atCeiling))).toBe(false);
    // One below the ceiling in byte 9 passes, one above fails: only the exact first 10 bytes differ.
    const below = atCeiling.slice();
    below[9]! -= 1;
    expect(powVerify(claim(1), stubCore(below))).toBe(true);
    const above = atCeiling.slice();
    above[9]! += 1;
    expect(powVerify(claim(1), stubCore(above))).toBe(false);
  });
});
