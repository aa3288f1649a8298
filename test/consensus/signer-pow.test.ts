// Signer PoW (reference-formats.md §12, vectors §15.4 = Ixian-Core UnitTests/TestSignerPowSolution.cs
// and the docs getPresence example): difficulty/bits both ways, the wire form, the validity
// window, the WASM hashing and search (both builds) against node:crypto, and property tests
// (the reference's bit/difficulty loops as random round trips; decoder robustness).
import { createHash, generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REG_SIGNER_BITS, REG_SIGNER_DIFFICULTY } from '../../src/chain/constants.js';
import { CoreInstance } from '../../src/core/instance.js';
import {
  incrementSolution, signerPowChallengePrefix, signerPowHash, signerPowSearch, signingKeyDigest,
} from '../../src/core/signer-pow.js';
import type { WasmFlavour } from '../../src/core/wasm.js';
import { ConsensusError } from '../../src/consensus/errors.js';
import {
  bigIntToLeSigned, bitsToDifficulty, bitsToHash, blockSignatureDigest, decodeSignerPowSolution, difficultyToBits,
  difficultyToHash, encodeSignerPowSolution, hashToBits, leSignedToBigInt, MAX_TARGET_BITS, MAX_TARGET_HASH,
  MIN_BLOCK_SIGNER_POW_DIFFICULTY, signerAddressOf, signerPowDifficulty, signerPowInWindow, signerPowSolutionHash,
  signerPowSolutionLength, signerPowTargetForDifficulty, signerPowValidityBlocks, verifySignerPow, type SignerPowSolution,
} from '../../src/consensus/signer-pow.js';
import { formatAmount } from '../../src/formats/amount.js';
import { publicKeyToBytes, signBytes, verifySignature } from '../../src/formats/rsa.js';

const FLAVOURS: WasmFlavour[] = ['simd', 'scalar'];
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const fromHex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
/** Decimal coin text → raw units (the test's own parser: parseAmount bounds text to 64 characters). */
const coin = (text: string): bigint => {
  const [whole, frac = ''] = text.split('.');
  return BigInt(whole!) * 100_000_000n + BigInt(frac.padEnd(8, '0'));
};
const sha3sq = (b: Uint8Array) => createHash('sha3-512').update(createHash('sha3-512').update(b).digest()).digest();

// §15.4 (TestSignerPowSolution.cs)
const MIN_HASH = fromHex(`${'00'.repeat(55)}ffffffffffffff0000`);
const MIN_DIFFICULTY = coin('65536');
const MIN_HASH_BITS = 0x37ffffffffffffffn;
const EDGE_HASH = fromHex('379b641a0ef38372e65a87d0ccac0775f0f94a41f1ddf0eb16939aee3f6e91b32956544df339de5370951e8bae176448a39cddc45f722601ffffffffff00');
const EDGE_HASH_FILTERED = fromHex(`${'00'.repeat(54)}2601ffffffffff00`);
const EDGE_DIFFICULTY = coin('16777216.00001519');
const EDGE_BITS = 0x36ffffffffff0126n;
const MAX_HASH = fromHex(`00000001${'00'.repeat(60)}`);
const MAX_HASH_BITS = 0x0000000001000000n;
const MAX_DIFFICULTY = coin(
  '799167628880894000143010114343791135957984387949897800874195880160828864455941676292313131161751452457018069950521783071669837928283513722513653760',
);
const MID_HASH = fromHex(`${'00'.repeat(52)}1234567890abcd0000000000`);
const MID_BITS = 0x34cdab9078563412n;
// docs getPresence (ixi-docs), powSolution.checksum and its documented difficulty and bits
const DOCS_CHECKSUM = new Uint8Array(Buffer.from('4eNPs8p1lda/BsCCfCeUy9EVs1bZrP9RgH+zWAWSZuF02obk/XhhSHGQRNJVmqs0/mGkqyucT19gIRXCJAAAAA==', 'base64'));

const big = (b: Uint8Array) => leSignedToBigInt(b);

describe('§15.4 vectors: difficulty and bits', () => {
  it('minHash: difficulty 65536.00000000, bits 0x37FFFFFFFFFFFFFF, and back', () => {
    expect(formatAmount(signerPowDifficulty(MIN_HASH))).toBe('65536.00000000');
    expect(hashToBits(MIN_HASH)).toBe(MIN_HASH_BITS);
    expect(big(difficultyToHash(MIN_DIFFICULTY))).toBe(big(MIN_HASH));
    expect(big(difficultyToHash(MIN_DIFFICULTY + coin('1')))).not.toBe(big(MIN_HASH));
    expect(big(bitsToHash(MIN_HASH_BITS))).toBe(big(MIN_HASH));
  });

  it('edgeHash: difficulty 16777216.00001519, bits 0x36FFFFFFFFFF0126, bitsToHash → the filtered hash', () => {
    expect(signerPowDifficulty(EDGE_HASH)).toBe(EDGE_DIFFICULTY);
    expect(hashToBits(EDGE_HASH)).toBe(EDGE_BITS);
    expect(hex(bitsToHash(EDGE_BITS))).toBe(hex(EDGE_HASH_FILTERED));
    expect(big(difficultyToHash(EDGE_DIFFICULTY))).toBe(big(EDGE_HASH));
  });

  it('maxHash: bits 0x0000000001000000 and the 150-digit difficulty, both ways', () => {
    expect(signerPowDifficulty(MAX_HASH)).toBe(MAX_DIFFICULTY);
    expect(formatAmount(signerPowDifficulty(MAX_HASH))).toBe(
      '799167628880894000143010114343791135957984387949897800874195880160828864455941676292313131161751452457018069950521783071669837928283513722513653760.00000000',
    );
    expect(hashToBits(MAX_HASH)).toBe(MAX_HASH_BITS);
    expect(big(bitsToHash(MAX_HASH_BITS))).toBe(big(MAX_HASH));
    expect(big(difficultyToHash(MAX_DIFFICULTY))).toBe(big(MAX_HASH));
  });

  it('1234567890abcd hash ↔ bits 0x34CDAB9078563412', () => {
    expect(hashToBits(MID_HASH)).toBe(MID_BITS);
    expect(big(bitsToHash(MID_BITS))).toBe(big(MID_HASH));
  });

  it('maxTargetBits 0x39FFFFFFFFFFFFFF ↔ maxTargetHash, difficulty 1.00000000', () => {
    expect(big(bitsToHash(MAX_TARGET_BITS))).toBe(MAX_TARGET_HASH);
    expect(formatAmount(bitsToDifficulty(MAX_TARGET_BITS))).toBe('1.00000000');
    expect(difficultyToBits(coin('1'))).toBe(MAX_TARGET_BITS);
    // the chain's reg signer bits and their difficulty agree with this module
    expect(REG_SIGNER_BITS).toBe(MAX_TARGET_BITS);
    expect(bitsToDifficulty(REG_SIGNER_BITS)).toBe(REG_SIGNER_DIFFICULTY);
  });

  it('difficulty 10 000 000 coin (minBlockSignerPowDifficulty) → bits 0x3701AD7F29ABCAF4', () => {
    expect(MIN_BLOCK_SIGNER_POW_DIFFICULTY).toBe(coin('10000000'));
    expect(difficultyToBits(MIN_BLOCK_SIGNER_POW_DIFFICULTY)).toBe(0x3701ad7f29abcaf4n);
  });

  it('docs getPresence powSolution.checksum: difficulty 116843993.98621778, bits 3901456573219757903', () => {
    expect(DOCS_CHECKSUM.length).toBe(64);
    expect(formatAmount(signerPowDifficulty(DOCS_CHECKSUM))).toBe('116843993.98621778');
    expect(hashToBits(DOCS_CHECKSUM)).toBe(3901456573219757903n);
    expect(hashToBits(DOCS_CHECKSUM)).toBe(0x3624c21521605f4fn);
  });

  it('validateHash: a hash passes its own difficulty and fails one coin more (TestSignerPowSolution.ValidateHash)', () => {
    expect(signerPowDifficulty(MIN_HASH) >= MIN_DIFFICULTY).toBe(true);
    expect(signerPowDifficulty(MIN_HASH) >= MIN_DIFFICULTY + coin('1')).toBe(false);
    expect(signerPowDifficulty(MAX_HASH) >= MAX_DIFFICULTY).toBe(true);
    expect(signerPowDifficulty(MAX_HASH) >= MAX_DIFFICULTY + coin('1')).toBe(false);
  });

  it('out of bounds: bits above maxTargetBits, negative difficulty, zero hash (coded errors)', () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(ConsensusError);
        return (e as ConsensusError).code;
      }
      return 'no error';
    };
    expect(code(() => bitsToHash(MAX_TARGET_BITS + 1n))).toBe('ERR_SIGNER_POW_BITS');
    expect(code(() => bitsToHash(-1n))).toBe('ERR_SIGNER_POW_BITS');
    expect(code(() => difficultyToHash(-coin('1')))).toBe('ERR_SIGNER_POW_DIFFICULTY');
    expect(code(() => signerPowDifficulty(new Uint8Array(64)))).toBe('ERR_SIGNER_POW_HASH');
    expect(code(() => signerPowDifficulty(bigIntToLeSigned(MAX_TARGET_HASH + 1n)))).toBe('ERR_SIGNER_POW_HASH');
    expect(() => bitsToHash(1 as unknown as bigint)).toThrow(TypeError);
  });

  it('a negative (little-endian signed) hash has difficulty 0; difficulty below 1 raw unit counts as 1', () => {
    expect(signerPowDifficulty(fromHex(`${'00'.repeat(63)}80`))).toBe(0n);
    expect(big(difficultyToHash(0n))).toBe(MAX_TARGET_HASH * 100_000_000n);
  });
});

describe('bits ↔ difficulty properties (the reference Loop_* tests, randomised)', () => {
  // bits whose byte 6 (the highest of the 7) is non-zero, as the reference loops use them
  const validBits = fc
    .tuple(fc.integer({ min: 0, max: 0x39 }), fc.bigInt({ min: 1n << 48n, max: (1n << 56n) - 1n }))
    .map(([pos, mant]) => (BigInt(pos) << 56n) | mant)
    .filter((b) => b <= MAX_TARGET_BITS);
  // from 1 coin: smaller difficulties stand for hashes above maxTargetHash, which bits cannot carry
  const difficulties = fc.bigInt({ min: 100_000_000n, max: MAX_DIFFICULTY });

  it('bits → hash → bits is the identity, and the difficulty is the same both ways', () => {
    fc.assert(
      fc.property(validBits, (bits) => {
        const hash = bitsToHash(bits);
        expect(hashToBits(hash)).toBe(bits);
        expect(bitsToDifficulty(bits)).toBe(signerPowDifficulty(hash));
      }),
      { numRuns: 500 },
    );
  });

  it('lower bits → lower hash → higher (or equal) difficulty', () => {
    fc.assert(
      fc.property(validBits, validBits, (a, b) => {
        if (a === b) return;
        const [lo, hi] = a < b ? [a, b] : [b, a];
        expect(big(bitsToHash(lo)) < big(bitsToHash(hi))).toBe(true);
        expect(bitsToDifficulty(lo) >= bitsToDifficulty(hi)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('difficulty → bits → difficulty never loses difficulty, and bits fall as difficulty rises', () => {
    fc.assert(
      fc.property(difficulties, difficulties, (a, b) => {
        expect(bitsToDifficulty(difficultyToBits(a)) >= a).toBe(true);
        if (a < b) expect(difficultyToBits(a) >= difficultyToBits(b)).toBe(true);
        expect(difficultyToBits(a)).toBe(hashToBits(difficultyToHash(a)));
      }),
      { numRuns: 300 },
    );
  });

  it('the search target is exactly the difficulty boundary: target passes, target + 1 fails', () => {
    fc.assert(
      // below 2 coin every non-negative 64-byte hash passes (the target is capped at 2^511 − 1)
      fc.property(fc.bigInt({ min: coin('2'), max: coin('100000000000') }), (d) => {
        const t = big(signerPowTargetForDifficulty(d));
        expect(signerPowDifficulty(bigIntToLeSigned(t)) >= d).toBe(true);
        expect(signerPowDifficulty(bigIntToLeSigned(t + 1n)) >= d).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it('leSigned bytes round trip', () => {
    fc.assert(fc.property(fc.bigInt({ min: -(1n << 600n), max: 1n << 600n }), (v) => {
      expect(big(bigIntToLeSigned(v))).toBe(v);
    }));
  });
});

describe('SignerPowSolution wire form (§12)', () => {
  const key = Uint8Array.from({ length: 270 }, (_, i) => i & 0xff);
  const sol: SignerPowSolution = { blockNum: 271n, solution: Uint8Array.from({ length: 32 }, (_, i) => i), signingPubKey: key };

  it('encodes varint(blockNum) ‖ varint(len) ‖ solution ‖ varint(len) ‖ key, and decodes back', () => {
    const bytes = encodeSignerPowSolution(sol);
    // 271 = fc0f01; 32 = 20; 270 = fc0e01
    expect(hex(bytes.subarray(0, 4))).toBe('fc0f0120');
    expect(hex(bytes.subarray(36, 39))).toBe('fc0e01');
    expect(bytes.length).toBe(3 + 1 + 32 + 3 + 270);
    expect(signerPowSolutionLength(sol)).toBe(bytes.length);
    const back = decodeSignerPowSolution(bytes);
    expect(back.blockNum).toBe(271n);
    expect(hex(back.solution)).toBe(hex(sol.solution));
    expect(hex(back.signingPubKey)).toBe(hex(key));
  });

  it('compacted form replaces a key longer than 64 bytes by its sha3_512sq, keeps a short key', () => {
    const c = decodeSignerPowSolution(encodeSignerPowSolution(sol, { compacted: true }));
    expect(hex(c.signingPubKey)).toBe(hex(sha3sq(key)));
    const short = { ...sol, signingPubKey: key.subarray(0, 64) };
    expect(hex(encodeSignerPowSolution(short, { compacted: true }))).toBe(hex(encodeSignerPowSolution(short)));
  });

  it('refuses what the reference reader refuses (solution > 64, key > 300) and what it would misread', () => {
    const bad = [
      '', // empty
      '0100', // empty solution
      '0141', // solution length 65
      '010102', // truncated before the key length
      '01010100', // fine: 1-byte solution, empty key …
      '0101010005', // … but trailing bytes
      '010101fd2d010000', // key length 301
      'f80100', // signed varint block number
      '01010103aabb', // truncated key
    ];
    for (const h of bad) {
      if (h === '01010100') {
        expect(decodeSignerPowSolution(fromHex(h)).signingPubKey.length).toBe(0);
        continue;
      }
      expect(() => decodeSignerPowSolution(fromHex(h)), h).toThrow(ConsensusError);
    }
    expect(() => encodeSignerPowSolution({ ...sol, solution: new Uint8Array(65) })).toThrow(ConsensusError);
    expect(() => encodeSignerPowSolution({ ...sol, signingPubKey: new Uint8Array(301) })).toThrow(ConsensusError);
  });

  it('random bytes only ever decode or give ERR_SIGNER_POW_DECODE; what decodes re-encodes to the same bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        let s: SignerPowSolution;
        try {
          s = decodeSignerPowSolution(bytes);
        } catch (e) {
          expect(e).toBeInstanceOf(ConsensusError);
          expect((e as ConsensusError).code).toBe('ERR_SIGNER_POW_DECODE');
          return;
        }
        // non-minimal varints decode too; re-encoding gives the canonical form of the same fields
        const again = decodeSignerPowSolution(encodeSignerPowSolution(s));
        expect(again.blockNum).toBe(s.blockNum);
        expect(hex(again.solution)).toBe(hex(s.solution));
        expect(hex(again.signingPubKey)).toBe(hex(s.signingPubKey));
      }),
      { numRuns: 2000 },
    );
  });

  it('valid solutions round trip exactly', () => {
    const arb = fc.record({
      blockNum: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
      solution: fc.uint8Array({ minLength: 1, maxLength: 64 }),
      signingPubKey: fc.uint8Array({ maxLength: 300 }),
    });
    fc.assert(
      fc.property(arb, (s) => {
        const bytes = encodeSignerPowSolution(s);
        expect(hex(encodeSignerPowSolution(decodeSignerPowSolution(bytes)))).toBe(hex(bytes));
      }),
    );
  });
});

describe('validity window (§5.2, §12)', () => {
  // (solution block, signed block, version, expected): strictly below, and sol + validity ≥ block
  const table: [bigint, bigint, number, boolean][] = [
    [70n, 100n, 13, true], // 70 + 30 = 100 ≥ 100
    [69n, 100n, 13, false], // 69 + 30 = 99 < 100
    [99n, 100n, 12, true],
    [100n, 100n, 13, false], // not strictly below
    [101n, 100n, 13, false],
    [0n, 120n, 11, true], // 0 + 120 = 120 ≥ 120 (v11: 120 blocks)
    [0n, 121n, 11, false],
    [0n, 31n, 12, false],
  ];
  it.each(table)('solution over %s signing block %s (v%s) → %s', (sol, block, version, ok) => {
    expect(signerPowInWindow(sol, block, version)).toBe(ok);
  });
  it('validity is 120 blocks below v12, 30 from v12', () => {
    expect(signerPowValidityBlocks(10)).toBe(120);
    expect(signerPowValidityBlocks(11)).toBe(120);
    expect(signerPowValidityBlocks(12)).toBe(30);
    expect(signerPowValidityBlocks(13)).toBe(30);
    expect(() => signerPowValidityBlocks(-1)).toThrow(ConsensusError);
  });
});

describe('signer address of a signature entry (§7.5)', () => {
  it('33/45-byte addresses as is; a public key → its primary address; other lengths → null', () => {
    const a = fromHex('01bec1923ea08fa066e56ba46557a9b5ecf3da82c484b7010d77a1650e7cdda12e4dd6fe9fbf004331aa46a645');
    expect(hex(signerAddressOf(a)!)).toBe(hex(a));
    expect(signerAddressOf(new Uint8Array(10))).toBeNull();
    expect(signerAddressOf(new Uint8Array(36))).toBeNull();
    const key = publicKeyToBytes(generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey);
    expect(signerAddressOf(key)!.length).toBe(45);
  });
});

describe.each(FLAVOURS)('signer PoW hashing and search, %s build', (flavour) => {
  const core = new CoreInstance(flavour);
  const blockChecksum = sha3sq(new TextEncoder().encode('ixian test block'));
  const address = fromHex('01bec1923ea08fa066e56ba46557a9b5ecf3da82c484b7010d77a1650e7cdda12e4dd6fe9fbf004331aa46a645');
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingPubKey = publicKeyToBytes(publicKey);

  it('the challenge is varint(blockNum) ‖ checksum ‖ address ‖ sha3_512sq(key) and hashes like node:crypto', () => {
    const prefix = signerPowChallengePrefix({ blockNum: 271n, blockChecksum, recipientAddress: address, signingPubKey });
    expect(hex(prefix)).toBe(hex(new Uint8Array([0xfc, 0x0f, 0x01, ...blockChecksum, ...address, ...sha3sq(signingPubKey)])));
    expect(hex(signingKeyDigest(signingPubKey.subarray(0, 64)))).toBe(hex(signingPubKey.subarray(0, 64)));
    for (const len of [1, 31, 32, 33, 64]) {
      const solution = Uint8Array.from({ length: len }, (_, i) => (i * 7 + len) & 0xff);
      const expected = sha3sq(new Uint8Array([...prefix, ...solution]));
      expect(hex(signerPowHash(prefix, solution, core)), `solution of ${len} bytes`).toBe(hex(expected));
    }
  });

  it('the search tries consecutive solutions, keeps the lowest hash and stops at the first hit', () => {
    const prefix = signerPowChallengePrefix({ blockNum: 5n, blockChecksum, recipientAddress: address, signingPubKey });
    const start = new Uint8Array(32);
    start[0] = 0xfe; // the counter carries into byte 1 after two steps
    // what JS computes for the same 300 solutions
    const hashes: { sol: Uint8Array; h: bigint }[] = [];
    let s = start;
    for (let i = 0; i < 300; i++) {
      hashes.push({ sol: s, h: big(sha3sq(new Uint8Array([...prefix, ...s]))) });
      s = incrementSolution(s);
    }
    // no hit: a target of 1 is unreachable
    const none = signerPowSearch(prefix, start, padded(1n), 300, core);
    expect(none.solution).toBeNull();
    expect(none.tried).toBe(300);
    expect(hex(none.next)).toBe(hex(s));
    const nonNegative = hashes.filter((x) => x.h > 0n);
    const best = nonNegative.reduce((a, b) => (b.h < a.h ? b : a));
    expect(big(none.bestHash!)).toBe(best.h);
    expect(hex(none.bestSolution!)).toBe(hex(best.sol));
    // a target equal to the best hash is met at the first hash at or below it
    const target = best.h;
    const firstHit = hashes.findIndex((x) => x.h > 0n && x.h <= target);
    const hit = signerPowSearch(prefix, start, padded(target), 300, core);
    expect(hit.tried).toBe(firstHit + 1);
    expect(hex(hit.solution!)).toBe(hex(hashes[firstHit]!.sol));
    expect(big(hit.hash!)).toBe(hashes[firstHit]!.h);
    expect(hex(hit.next)).toBe(hex(incrementSolution(hashes[firstHit]!.sol)));
  });

  it('the search hashes like node:crypto for every prefix and solution length (block boundaries of the midstate)', () => {
    const cap = signerPowTargetForDifficulty(0n); // every non-negative, non-zero hash passes
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 192 }), fc.uint8Array({ minLength: 1, maxLength: 64 }), (prefix, solution) => {
        const expected = sha3sq(new Uint8Array([...prefix, ...solution]));
        const r = signerPowSearch(prefix, solution, cap, 1, core);
        if (expected[63]! >= 0x80) {
          expect(r.solution).toBeNull();
          expect(r.bestHash).toBeNull();
        } else {
          expect(hex(r.hash!)).toBe(hex(expected));
          expect(hex(r.bestHash!)).toBe(hex(expected));
          expect(hex(r.solution!)).toBe(hex(solution));
        }
      }),
      { numRuns: 400 },
    );
    // the lengths where the tail ends exactly on, or one byte before, a block boundary
    for (const [p, n] of [[0, 1], [71, 1], [72, 64], [80, 64], [144, 62], [143, 1], [150, 64], [136, 64]] as const) {
      const prefix = Uint8Array.from({ length: p }, (_, i) => i);
      const solution = Uint8Array.from({ length: n }, (_, i) => 255 - i);
      const r = signerPowSearch(prefix, solution, new Uint8Array(64), 1, core);
      const expected = sha3sq(new Uint8Array([...prefix, ...solution]));
      expect(r.bestHash === null ? expected[63]! >= 0x80 : hex(r.bestHash) === hex(expected), `${p} + ${n}`).toBe(true);
    }
  });

  it('a found solution verifies, signs and checks as a block signature (window, difficulty, RSA)', () => {
    const minDifficulty = coin('2'); // ~1 in 2 hashes pass
    const solutionBlock = 40n;
    const prefix = signerPowChallengePrefix({ blockNum: solutionBlock, blockChecksum, recipientAddress: address, signingPubKey });
    const r = signerPowSearch(prefix, new Uint8Array(32), signerPowTargetForDifficulty(minDifficulty), 1000, core);
    expect(r.solution).not.toBeNull();
    const solution: SignerPowSolution = { blockNum: solutionBlock, solution: r.solution!, signingPubKey };
    expect(hex(signerPowSolutionHash(solution, blockChecksum, address, core))).toBe(hex(r.hash!));
    const check = { solution, solutionBlockChecksum: blockChecksum, recipientAddress: address, signedBlockNum: 50n, signedBlockVersion: 13, minDifficulty };
    const v = verifySignerPow(check, core);
    expect(v.ok).toBe(true);
    expect(v.difficulty).toBe(signerPowDifficulty(r.hash!));
    expect(v.bits).toBe(hashToBits(r.hash!));
    expect(verifySignerPow({ ...check, minDifficulty: v.difficulty + 1n }, core)).toMatchObject({ ok: false, reason: 'difficulty' });
    expect(verifySignerPow({ ...check, signedBlockNum: 71n }, core)).toMatchObject({ ok: false, reason: 'window' });
    expect(verifySignerPow({ ...check, signedBlockNum: 40n }, core)).toMatchObject({ ok: false, reason: 'window' });
    // another signer address gives another hash
    const other = verifySignerPow({ ...check, recipientAddress: address.map((b, i) => (i === 5 ? b ^ 1 : b)) }, core);
    expect(other.difficulty).not.toBe(v.difficulty);
    // the RSA block signature over sha3_512sq(blockChecksum ‖ solution)
    const signedChecksum = sha3sq(new TextEncoder().encode('block 50'));
    const digest = blockSignatureDigest(signedChecksum, solution.solution);
    expect(hex(digest)).toBe(hex(sha3sq(new Uint8Array([...signedChecksum, ...solution.solution]))));
    const sig = signBytes(privateKey, digest);
    expect(verifySignature(solution.signingPubKey, digest, sig)).toBe(true);
    expect(verifySignature(solution.signingPubKey, blockSignatureDigest(signedChecksum, incrementSolution(solution.solution)), sig)).toBe(false);
  });

  it('rejects bad search arguments with RangeError/TypeError', () => {
    const prefix = new Uint8Array(100);
    expect(() => signerPowSearch(prefix, new Uint8Array(0), new Uint8Array(64), 1, core)).toThrow(RangeError);
    expect(() => signerPowSearch(prefix, new Uint8Array(65), new Uint8Array(64), 1, core)).toThrow(RangeError);
    expect(() => signerPowSearch(new Uint8Array(193), new Uint8Array(8), new Uint8Array(64), 1, core)).toThrow(RangeError);
    expect(() => signerPowSearch(prefix, new Uint8Array(8), new Uint8Array(63), 1, core)).toThrow(RangeError);
    expect(() => signerPowSearch(prefix, new Uint8Array(8), new Uint8Array(64), 0, core)).toThrow(RangeError);
    expect(() => signerPowSearch(prefix, 'x' as unknown as Uint8Array, new Uint8Array(64), 1, core)).toThrow(TypeError);
    // A count of the wrong type is a TypeError naming its type (it said "got 5" for the string '5').
    expect(() => signerPowSearch(prefix, new Uint8Array(8), new Uint8Array(64), '5' as unknown as number, core)).toThrow(TypeError);
    expect(() => signerPowSearch(prefix, new Uint8Array(8), new Uint8Array(64), '5' as unknown as number, core)).toThrow('count: expected a number, got a string');
    expect(() => signerPowSearch(prefix, new Uint8Array(8), new Uint8Array(64), 5n as unknown as number, core)).toThrow(TypeError);
    expect(() => signerPowChallengePrefix({ blockNum: 1n, blockChecksum: new Uint8Array(44), recipientAddress: address, signingPubKey })).toThrow(RangeError);
  });
});

/** A 64-byte little-endian target. */
function padded(v: bigint): Uint8Array {
  const out = new Uint8Array(64);
  for (let i = 0; i < 64 && v > 0n; i++, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
}
