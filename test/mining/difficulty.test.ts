/**
 * The mining difficulty as the reference computes it (Ixian-DLT `BlockProcessor.calculateDifficulty_v4`,
 * Ixian-Core `MiningUtils`; src/mining/difficulty.ts): the hash-count conversions against a
 * byte-level rendering of the reference's .NET steps and its documented anchor (the minimum
 * difficulty is "approx 180 Khashes"), every branch of the rule, and the chain using it: produced
 * blocks carry it, an imported block with another difficulty is refused, and a reg network's fixed
 * difficulty applies from block 2.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { BlockError, BlockErrorCode } from '../../src/chain/errors.js';
import { sha3_512sq } from '../../src/core/hash.js';
import type { PowClaim } from '../../src/core/pow.js';
import { createMiningExtension, miningDifficultyAt } from '../../src/mining/chain-extension.js';
import { buildClaim } from '../../src/mining/claim.js';
import {
  MAX_MINING_DIFFICULTY, MIN_MINING_DIFFICULTY, nextMiningDifficulty, targetDifficulty, targetHashcountPerBlock,
} from '../../src/mining/difficulty.js';
import { REG_SIGNER_BITS } from '../../src/chain/constants.js';
import { admitReasons, commitBlock, openTestChain, type TestChain } from '../chain/fixture.js';

const U64 = (1n << 64n) - 1n;
const MAX_HASH = (1n << 256n) - 1n;

/** `new BigInteger(byte[])`: little-endian two's complement. */
const fromLittleEndian = (b: Uint8Array): bigint => {
  let v = 0n;
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
  return b.length && b[b.length - 1]! & 0x80 ? v - (1n << BigInt(8 * b.length)) : v;
};
/** `BigInteger.ToByteArray()` of a positive number: minimal little-endian bytes with a clear sign bit. */
const toByteArray = (v: bigint): Uint8Array => {
  const out: number[] = [];
  do {
    out.push(Number(v & 0xffn));
    v >>= 8n;
  } while (v > 0n);
  if (out[out.length - 1]! & 0x80) out.push(0);
  return Uint8Array.from(out);
};
/** MiningUtils.getTargetHashcountPerBlock, step by step. */
function referenceHashcount(difficulty: bigint): bigint {
  const ceil10 = new Uint8Array(10);
  for (let i = 0; i < 8; i++) ceil10[i + 2] = ~Number((difficulty >> BigInt(8 * (7 - i))) & 0xffn) & 0xff;
  const full = new Uint8Array(32);
  for (let i = 0; i < 32; i++) full[i] = i < 22 ? 0xff : ceil10[9 - (i - 22)]!;
  return MAX_HASH / fromLittleEndian(full);
}
/** MiningUtils.calculateTargetDifficulty, step by step. */
function referenceTargetDifficulty(hashes: bigint): bigint {
  const temp = toByteArray(MAX_HASH / (hashes === 0n ? 1000n : hashes));
  const bytes = new Uint8Array(32);
  bytes.set(temp.subarray(0, 32));
  let d = 0n;
  for (let i = 7; i >= 0; i--) d = (d << 8n) | BigInt(~bytes[22 + i]! & 0xff);
  return d;
}

describe('hash counts and difficulties (MiningUtils)', () => {
  it('the documented anchor and the ends of the scale', () => {
    expect(targetDifficulty(180_000n)).toBe(MIN_MINING_DIFFICULTY);
    expect(MIN_MINING_DIFFICULTY).toBe(11730489520294945089n);
    expect(targetHashcountPerBlock(MIN_MINING_DIFFICULTY)).toBe(179_999n);
    expect(targetHashcountPerBlock(0n)).toBe(65_536n); // a hash passes with probability 2^-16
    expect(targetHashcountPerBlock(MAX_MINING_DIFFICULTY)).toBe(1n << 80n);
    expect(targetDifficulty(1n)).toBe(0n);
    expect(targetDifficulty(0n)).toBe(targetDifficulty(1000n));
    expect(targetDifficulty(1000n)).toBe(0x76c8b4395810624dn);
    expect(targetDifficulty(1_000_000_000_000n)).toBe(0xfffffee68667ed21n);
  });

  it('equal the reference\'s byte-level steps for any difficulty and hash count', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: U64 }), fc.bigInt({ min: 0n, max: 1n << 90n }), (d, h) => {
        expect(targetHashcountPerBlock(d)).toBe(referenceHashcount(d));
        expect(targetDifficulty(h)).toBe(referenceTargetDifficulty(h));
        expect(targetDifficulty(targetHashcountPerBlock(d))).toBeLessThanOrEqual(d);
      }),
      { numRuns: 500 },
    );
  });
});

describe('nextMiningDifficulty (calculateDifficulty_v4)', () => {
  const D = targetDifficulty(2_000_000n); // a previous difficulty above the minimum
  const claims = (n: number, d = D) => Array.from({ length: n }, () => d);
  const estimate = (n: number, d = D) => (BigInt(n) * targetHashcountPerBlock(d)) / 5n;

  it('the minimum up to block 10 and while under 30 % of the window is solved; the maximum above 70 %', () => {
    expect(nextMiningDifficulty({ tip: 10n, tipDifficulty: D, solved: 10, recentlySolved: claims(10) })).toBe(MIN_MINING_DIFFICULTY);
    expect(nextMiningDifficulty({ tip: 100n, tipDifficulty: D, solved: 29, recentlySolved: claims(10) })).toBe(MIN_MINING_DIFFICULTY);
    expect(nextMiningDifficulty({ tip: 100n, tipDifficulty: D, solved: 71, recentlySolved: [] })).toBe(MAX_MINING_DIFFICULTY);
    // The window is the last 10,000 blocks once the chain is longer.
    expect(nextMiningDifficulty({ tip: 50_000n, tipDifficulty: D, solved: 2_999, recentlySolved: claims(3) })).toBe(MIN_MINING_DIFFICULTY);
    expect(nextMiningDifficulty({ tip: 50_000n, tipDifficulty: D, solved: 7_010, recentlySolved: [] })).toBe(MAX_MINING_DIFFICULTY);
    expect(nextMiningDifficulty({ tip: 50_000n, tipDifficulty: MIN_MINING_DIFFICULTY, solved: 7_009, recentlySolved: [] })).toBe(MIN_MINING_DIFFICULTY);
  });

  it('in between, the hash rate of the last claims: scaled by the share below 48 %, kept to 51 %, × (1 + share) above', () => {
    const at = (solved: number, recent: bigint[]) => nextMiningDifficulty({ tip: 1000n, tipDifficulty: D, solved, recentlySolved: recent });
    expect(at(400, claims(5))).toBe(targetDifficulty((estimate(5) * 400n) / 1000n));
    expect(at(500, claims(5))).toBe(targetDifficulty(estimate(5)));
    expect(at(600, claims(5))).toBe(targetDifficulty((estimate(5) * 1600n) / 1000n));
    // Bounded to ×4 and ÷4 of the previous block's hashes.
    expect(at(500, claims(10, MAX_MINING_DIFFICULTY))).toBe(targetDifficulty(targetHashcountPerBlock(D) * 4n));
    // No claim: 1000 hashes, bounded by ÷4, never below the minimum.
    expect(at(500, [])).toBe(targetDifficulty(targetHashcountPerBlock(D) / 4n));
    expect(nextMiningDifficulty({ tip: 1000n, tipDifficulty: MIN_MINING_DIFFICULTY, solved: 500, recentlySolved: [] })).toBe(MIN_MINING_DIFFICULTY);
    // From the minimum (or the maximum) the estimate is not bounded.
    expect(nextMiningDifficulty({ tip: 1000n, tipDifficulty: MIN_MINING_DIFFICULTY, solved: 500, recentlySolved: claims(10, MAX_MINING_DIFFICULTY) })).toBe(
      targetDifficulty(estimate(10, MAX_MINING_DIFFICULTY)),
    );
  });
});

describe('the chain computes and checks it', () => {
  const open: TestChain[] = [];
  afterEach(async () => {
    for (const t of open.splice(0)) await t.close();
  });
  const fakeVerify = (c: PowClaim): boolean => c.nonce[0] === 0x42;
  const chainWith = async (fixedDifficulty?: bigint) => {
    const t = await openTestChain([createMiningExtension({ verify: fakeVerify, ...(fixedDifficulty !== undefined ? { fixedDifficulty } : {}) })]);
    open.push(t);
    return t;
  };

  it('produced blocks carry the computation: the minimum, then more once over half the blocks are solved', async () => {
    const t = await chainWith();
    for (let i = 0; i < 14; i++) await commitBlock(t, []);
    expect(t.chain.getBlock(15n)!.block.difficulty).toBe(MIN_MINING_DIFFICULTY);
    // Solve 9 of the 15 blocks with claims in block 16 (9 of 16 blocks solved: 56 %).
    const claims = [2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n, 10n].map((n) => buildClaim(t.chain, 'reg', t.wallet.primary, { blockNum: n, nonce: Uint8Array.of(0x42, Number(n)) }, Date.now()));
    expect(await admitReasons(t, claims)).toEqual(claims.map(() => null));
    await commitBlock(t, claims);
    const expected = nextMiningDifficulty({ tip: 16n, tipDifficulty: MIN_MINING_DIFFICULTY, solved: 9, recentlySolved: claims.map(() => MIN_MINING_DIFFICULTY) });
    expect(expected).not.toBe(MIN_MINING_DIFFICULTY);
    expect(miningDifficultyAt(t.chain.view())).toBe(expected);
    await commitBlock(t, []);
    expect(t.chain.getBlock(17n)!.block.difficulty).toBe(expected);
  });

  it('an imported block with another difficulty is refused', async () => {
    const t = await chainWith();
    const produced = await t.chain.produceBlock({ candidates: [], timestamp: BigInt(Math.floor(Date.now() / 1000)), proposer: t.signer.address, signerBits: REG_SIGNER_BITS });
    expect(produced.block.difficulty).toBe(MIN_MINING_DIFFICULTY);
    const block = { ...produced.block, difficulty: 0n };
    const { blockChecksum, encodeBlockHeader } = await import('../../src/chain/block.js');
    block.signatures = [{ signer: t.signer.address, powSolution: null, signature: await t.signer.sign(sha3_512sq(blockChecksum(encodeBlockHeader(block)))) }];
    const err = await t.chain.importBlock(block, [], { source: 'peer' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BlockError);
    expect((err as BlockError).code).toBe(BlockErrorCode.BadHeader);
    expect((err as BlockError).message).toBe(`block 2's mining difficulty 0 is not this chain's ${MIN_MINING_DIFFICULTY}`);
  });

  it('a reg network\'s fixed difficulty (--mining-difficulty) applies from block 2 on, for producer and importer alike', async () => {
    const t = await chainWith(0n);
    expect(t.chain.getBlock(1n)!.block.difficulty).toBe(MIN_MINING_DIFFICULTY);
    await commitBlock(t, []);
    expect(t.chain.getBlock(2n)!.block.difficulty).toBe(0n);
  });
});
