// The signer difficulty a superblock sets (reference-network §5.6, §5.8): the time-based v2 and
// block-based v1 averages, the walk to the last difficulty change, the ×2/÷2 bounds and the floor,
// on synthetic chains whose expected values are worked out in the comments.
import { describe, expect, it } from 'vitest';
import { ConsensusError } from '../../src/consensus/errors.js';
import {
  ADJUSTMENT_INTERVAL_SECONDS, lastDifficultyChange, superBlockSignerBits, superBlockSignerDifficulty,
  type SignerDifficultyInput, type SuperBlockInfo,
} from '../../src/consensus/signer-difficulty.js';
import { bitsToDifficulty, difficultyToBits, MIN_BLOCK_SIGNER_POW_DIFFICULTY } from '../../src/consensus/signer-pow.js';

const COIN = 100_000_000n;
const X_BITS = difficultyToBits(40_000_000n * COIN);
const X = bitsToDifficulty(X_BITS); // ≈ 40 000 000 coin (bits keep 7 significant bytes)
const GENESIS_BITS = 0x39ffffffffffffffn;

/** Superblocks 1, 1000, …, up to `last`, all with bits X from 1000 on; 30 s blocks from t = 0. */
function chain(last: bigint, bitsOf: (k: bigint) => bigint = () => X_BITS): Map<bigint, SuperBlockInfo> {
  const m = new Map<bigint, SuperBlockInfo>();
  m.set(1n, { num: 1n, timestamp: 0, signerBits: GENESIS_BITS, lastSuperBlockNum: 0n });
  for (let k = 1000n; k <= last; k += 1000n) {
    m.set(k, { num: k, timestamp: Number(k) * 30, signerBits: bitsOf(k), lastSuperBlockNum: k === 1000n ? 1n : k - 1000n });
  }
  return m;
}

function input(blockNum: bigint, sbs: Map<bigint, SuperBlockInfo>, perBlock: (k: bigint) => bigint | undefined, over: Partial<SignerDifficultyInput> = {}): SignerDifficultyInput {
  return {
    blockNum, blockVersion: 13, lastBlockVersion: 13, timestamp: Number(blockNum) * 30,
    totalSignerDifficultyOf: perBlock, superBlock: (k) => sbs.get(k), ...over,
  };
}

describe('superblock signer difficulty, time-based (v12+)', () => {
  it('finds the last change: the walk stops at the superblock after which the difficulty changed', () => {
    // 1 (floor bits) → 1000 … 40000 all X: the walk from 40000 goes back to 1000, whose predecessor (1) differs
    expect(lastDifficultyChange(input(41_000n, chain(40_000n), () => 0n)).num).toBe(1000n);
    // bits change at 30000 (2X from there on): the walk stops at 30000
    const changed = chain(40_000n, (k) => (k >= 30_000n ? difficultyToBits(2n * X) : X_BITS));
    expect(lastDifficultyChange(input(41_000n, changed, () => 0n)).num).toBe(30_000n);
    // v12 stops 11 000 blocks back
    expect(lastDifficultyChange(input(41_000n, chain(40_000n), () => 0n, { blockVersion: 12 })).num).toBe(30_000n);
    expect(lastDifficultyChange(input(1000n, chain(0n), () => 0n)).num).toBe(1n);
  });

  // superblock 1000 is at t = 30 000 s; 41 000 × 30 s = 1 230 000 s is 20 000 s short of 14 days
  // (1 209 600 s after 30 000 = 1 239 600), so these inputs set the time to exactly 14 days after it
  const late = { timestamp: 30_000 + ADJUSTMENT_INTERVAL_SECONDS };

  it('averages the blocks since the last change over at least 40 000 blocks, within ×2/÷2 of the last superblock', () => {
    // block 41000: last change at 1000, 14 days passed → average over
    // blocks 40993 … 994 (40 000 of them), each with total 1.5 X → Σ = 60 000 X; ÷ 40 000 = 1.5 X
    const d = (3n * X) / 2n;
    expect(superBlockSignerDifficulty(input(41_000n, chain(40_000n), () => d, late))).toBe(d);
    // a block above 4 X counts 4 X: one block of 1000 X among 39 999 of 1.5 X → (39 999 × 1.5 X + 4 X) / 40 000
    const spiky = superBlockSignerDifficulty(input(41_000n, chain(40_000n), (k) => (k === 20_000n ? 1000n * X : d), late));
    expect(spiky).toBe((39_999n * d + (X * 4n * COIN) / COIN) / 40_000n);
    // all 3 X → 3 X, bounded to 2 X (the last superblock's X × 2)
    expect(superBlockSignerDifficulty(input(41_000n, chain(40_000n), () => 3n * X, late))).toBe(2n * X);
    // all X / 4 → bounded to X / 2 (X × 10⁸ ÷ 2·10⁸)
    expect(superBlockSignerDifficulty(input(41_000n, chain(40_000n), () => X / 4n, late))).toBe((X * COIN) / (2n * COIN));
    // above v13 the bound is ×4
    expect(superBlockSignerDifficulty(input(41_000n, chain(40_000n), () => 3n * X, { ...late, blockVersion: 14 }))).toBe(3n * X);
  });

  it('fewer than 40 000 blocks since the change still divide by 40 000; the floor applies', () => {
    // change at 30000 (bits 2X), block 31000, 14 days passed: blocks 30993 … 29994 (1000), each 2X
    // → 2000 X ÷ 40 000 = X / 20, raised to the last superblock's (2X) ÷ 2 = X
    const changed = chain(30_000n, (k) => (k >= 30_000n ? difficultyToBits(2n * X) : X_BITS));
    const twoX = bitsToDifficulty(difficultyToBits(2n * X));
    const late = { timestamp: 30_000 * 30 + ADJUSTMENT_INTERVAL_SECONDS };
    expect(superBlockSignerDifficulty(input(31_000n, changed, () => twoX, late))).toBe((twoX * COIN) / (2n * COIN));
  });

  it('before 14 days the difficulty in force stays', () => {
    // block 2000 at t = 60 000 s; the last change is superblock 1000 at 30 000 s: < 14 days → X
    expect(superBlockSignerDifficulty(input(2000n, chain(1000n), () => 100n * X))).toBe(X);
    // the first superblock keeps what block 1 stands for (the floor's bits), but block 1's header
    // bits here are maxTargetBits (1 coin), so the ×2 bound cuts it to 2 coin and the floor gives 10 000 000 coin
    expect(superBlockSignerDifficulty(input(1000n, chain(0n), () => 100n * X))).toBe(MIN_BLOCK_SIGNER_POW_DIFFICULTY);
    expect(superBlockSignerBits(input(2000n, chain(1000n), () => 0n))).toBe(X_BITS);
  });

  it('a missing block the reference needs is a coded error', () => {
    const holes = (k: bigint) => (k === 20_000n ? undefined : X);
    expect(() => superBlockSignerDifficulty(input(41_000n, chain(40_000n), holes, late))).toThrow(ConsensusError);
    expect(() => superBlockSignerDifficulty(input(41_000n, new Map(), () => X))).toThrow(ConsensusError);
  });
});

describe('superblock signer difficulty, block-based (v11 / below v12)', () => {
  it('v11: Σ of the 993 blocks below 1000 (n−7 … 1) ÷ 40 320, bounded by block 1 bits, floored', () => {
    // block 1000, v11 after v11: blocks 993 … 1 (993 = 1000 − 7 held) each 10 000 X → 9 930 000 X ÷ 40 320
    // = 246.28… X; block 1's header bits are maxTargetBits (1 coin) → at most 2 coin → the floor wins
    const r = superBlockSignerDifficulty(input(1000n, chain(0n), () => 10_000n * X, { blockVersion: 11, lastBlockVersion: 11 }));
    expect(r).toBe(MIN_BLOCK_SIGNER_POW_DIFFICULTY);
    // with block 1 carrying no bits (0) there is no bound: 9 930 000 X × 10⁸ ÷ (40 320 × 10⁸)
    const noBits = chain(0n);
    noBits.set(1n, { ...noBits.get(1n)!, signerBits: 0n });
    const avg = superBlockSignerDifficulty(input(1000n, noBits, () => 10_000n * X, { blockVersion: 11, lastBlockVersion: 11 }));
    expect(avg).toBe((993n * 10_000n * X) / 40_320n);
  });

  it('below block 8 the floor', () => {
    expect(superBlockSignerDifficulty(input(7n, chain(0n), () => X))).toBe(MIN_BLOCK_SIGNER_POW_DIFFICULTY);
  });
});
