/**
 * The signer PoW of master keep-alives (src/consensus/keep-alive-pow.ts; reference-network §3.3–§3.4,
 * CORE `Presence.verifyPowSolution`): a valid solution counts for the wallet that mined it, inside
 * [tip − validity, tip], at or above the minimum; another address, an expired or future solution,
 * an unknown block, a low difficulty or garbage bytes do not — and nothing throws. The sender side:
 * which solution a keep-alive carries and when it expired.
 */
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha3_512sq } from '../../src/core/hash.js';
import { signerPowChallengePrefix, signerPowSearch } from '../../src/core/signer-pow.js';
import {
  keepAlivePowExpired, keepAlivePowVerdict, pickKeepAliveSolution, verifyKeepAlivePow, type KeepAlivePowChain,
} from '../../src/consensus/keep-alive-pow.js';
import { encodeSignerPowSolution, signerPowDifficulty, signerPowTargetForDifficulty } from '../../src/consensus/signer-pow.js';
import { publicKeyToBytes } from '../../src/formats/rsa.js';

const COIN = 100_000_000n;
const ADDRESS = Uint8Array.from({ length: 45 }, (_, i) => (i === 0 ? 1 : (i * 13 + 5) & 0xff));
const OTHER = Uint8Array.from({ length: 45 }, (_, i) => (i === 0 ? 1 : (i * 17 + 3) & 0xff));

function chainOf(height: bigint, version = 13, missing: bigint[] = []): KeepAlivePowChain {
  return {
    height,
    getBlock: (n) => (n >= 1n && n <= height && !missing.includes(n) ? { block: { version }, checksum: sha3_512sq(new TextEncoder().encode(`block ${n}`)) } : null),
  };
}

const MIN = 20_000n * COIN;
const signingPubKey = publicKeyToBytes(generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey, { version: 2 });
const blockNum = 30n;
const prefix = signerPowChallengePrefix({ blockNum, blockChecksum: chainOf(30n).getBlock(30n)!.checksum, recipientAddress: ADDRESS, signingPubKey });
const found = signerPowSearch(prefix, new Uint8Array(32), signerPowTargetForDifficulty(MIN), 1 << 20);
const solution = { blockNum, solution: found.solution!, signingPubKey };
const bytes = encodeSignerPowSolution(solution);
const difficulty = signerPowDifficulty(found.hash!);

describe('master keep-alive PoW, received', () => {
  it('counts for the wallet that mined it, from its block up to 30 blocks later (120 before v12)', () => {
    expect(found.solution).not.toBeNull();
    for (const tip of [30n, 45n, 60n]) expect(keepAlivePowVerdict(bytes, ADDRESS, chainOf(tip), MIN)).toEqual({ ok: true, difficulty });
    expect(verifyKeepAlivePow(bytes, ADDRESS, chainOf(150n, 11), MIN)).toBe(true);
  });

  it('does not count: another address, expired, from the future, over a block we lack, below the minimum', () => {
    expect(keepAlivePowVerdict(bytes, OTHER, chainOf(40n), MIN)).toEqual({ ok: false, reason: 'difficulty' });
    expect(keepAlivePowVerdict(bytes, ADDRESS, chainOf(61n), MIN)).toEqual({ ok: false, reason: 'expired' });
    expect(keepAlivePowVerdict(bytes, ADDRESS, chainOf(151n, 11), MIN)).toEqual({ ok: false, reason: 'expired' });
    expect(keepAlivePowVerdict(bytes, ADDRESS, chainOf(29n), MIN)).toEqual({ ok: false, reason: 'future' });
    expect(keepAlivePowVerdict(bytes, ADDRESS, chainOf(40n, 13, [30n]), MIN)).toEqual({ ok: false, reason: 'unknown-block' });
    expect(keepAlivePowVerdict(bytes, ADDRESS, chainOf(40n), difficulty + 1n)).toEqual({ ok: false, reason: 'difficulty' });
    expect(verifyKeepAlivePow(bytes, ADDRESS, chainOf(40n), difficulty)).toBe(true);
  });

  it('garbage never throws: bad bytes, a truncated solution, an address of the wrong size', () => {
    expect(keepAlivePowVerdict(new Uint8Array(0), ADDRESS, chainOf(40n), MIN)).toEqual({ ok: false, reason: 'decode' });
    expect(keepAlivePowVerdict(bytes.subarray(0, bytes.length - 1), ADDRESS, chainOf(40n), MIN)).toEqual({ ok: false, reason: 'decode' });
    expect(keepAlivePowVerdict(bytes, ADDRESS.subarray(0, 10), chainOf(40n), MIN)).toEqual({ ok: false, reason: 'decode' });
    fc.assert(fc.property(fc.uint8Array({ maxLength: 400 }), fc.constantFrom(ADDRESS, OTHER, new Uint8Array(3)), (b, a) => verifyKeepAlivePow(b, a, chainOf(40n), MIN) === false), { numRuns: 300 });
  });
});

describe('master keep-alive PoW, sent', () => {
  const held = (...nums: bigint[]) => nums.map((n) => ({ solution: { blockNum: n }, id: n }));

  it('carries the oldest solution with 7 blocks of validity left, else the newest still valid', () => {
    // network height 100, validity 30: valid > 70; with margin > 77
    expect(pickKeepAliveSolution(held(75n, 80n, 95n), 100n, 13)?.id).toBe(80n);
    expect(pickKeepAliveSolution(held(95n, 72n, 76n), 100n, 13)?.id).toBe(95n);
    expect(pickKeepAliveSolution(held(72n, 76n), 100n, 13)?.id).toBe(76n);
    expect(pickKeepAliveSolution(held(60n, 70n), 100n, 13)).toBeNull();
    expect(pickKeepAliveSolution(held(1n), 5n, 13)?.id).toBe(1n);
    expect(pickKeepAliveSolution([], 5n, 13)).toBeNull();
  });

  it('is renewed once its solution expired at the network height', () => {
    expect(keepAlivePowExpired(bytes, 60n, 13)).toBe(false);
    expect(keepAlivePowExpired(bytes, 61n, 13)).toBe(true);
    expect(keepAlivePowExpired(bytes, 150n, 11)).toBe(false);
    expect(keepAlivePowExpired(Uint8Array.of(1, 2), 1n, 13)).toBe(true);
  });
});
