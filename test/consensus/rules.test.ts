// Consensus rules of reference-network.md §5, against tables computed by hand from the text of §5
// (and the reference functions it names). Each row's comment shows the arithmetic.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConsensusError } from '../../src/consensus/errors.js';
import {
  adjustSignerDifficultyToRatio, adoptFirstCandidate, boundSignerDifficultyChange, carriesSignerBits, checkBlockSignatures,
  compactSignatureEntry, compareBytes, compareFreezeOrder, consensusTiming, continuityRequirement, countContinuitySigners, electedSignerPositions, electedSigners,
  electionOffset, electionSeed, freezeSignatures, freezesSignatures, hasElectedSignature, hasRequiredSignatureCount,
  isRecoveryMode, isSuperBlock, meetsSignerDifficulty, minSignerPowDifficulty, networkTimeAgainstTip, newBlockTimestamp, preferIncomingBlock,
  previousSuperBlock, recoveryForgives, requiredConsensus, requiredConsensusOf, requiredSignerBits, requiredSignerDifficulty,
  shouldGenerateBlock, sigFreezeAgreement, sigFreezeTarget, signatureDifficulty, signatureFreezeChecksum,
  signerBitsSourceBlock, type FreezeEntry, type GenerateContext,
} from '../../src/consensus/rules.js';
import { bitsToDifficulty, MAX_TARGET_BITS, MIN_BLOCK_SIGNER_POW_DIFFICULTY } from '../../src/consensus/signer-pow.js';
import { addressWithChecksum } from '../../src/formats/address.js';

const COIN = 100_000_000n;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const sha3sq = (b: Uint8Array) => new Uint8Array(createHash('sha3-512').update(createHash('sha3-512').update(b).digest()).digest());
const tens = (v: number) => Array<number>(10).fill(v);

describe('required consensus (§5.4, BlockChain.getRequiredConsensus)', () => {
  // [n, frozen counts of n−7, n−8, …, expected adjusted, expected unadjusted]
  const table: [bigint, number[], number, number, string][] = [
    [1n, [], 1, 1, 'n < 8 → 1'],
    [7n, tens(50), 1, 1, 'n < 8 → 1 even with counts'],
    [8n, [], 1000, 1000, 'no earlier block known → 1000, not adjusted'],
    [8n, [1], 2, 2, 'T=1 c=1: floor(1)×0.75 = 0.75 → 0 → minimum 2; unadjusted ceil(1) = 1 → 2'],
    [20n, tens(4), 3, 4, 'T=40 c=10: floor(4)×0.75 = 3; ceil(4) = 4'],
    [20n, [6, 6, 6, 6, 6, 6, 6, 6, 6, 5], 3, 6, 'T=59 c=10: floor(5.9) = 5, 5×0.75 = 3.75 → 3 (not floor(5.9×0.75) = 4); ceil(5.9) = 6'],
    [20n, [4, 4, 4, 4, 4, 4, 4, 4, 4, 5], 3, 5, 'T=41: floor(4.1) = 4 → 3; ceil(4.1) = 5'],
    [10n, [10, 11, 12], 8, 11, 'three blocks known, T=33 c=3: 11 × 0.75 = 8.25 → 8; ceil(11) = 11'],
    [10n, [3, 3, 4], 2, 4, 'T=10 c=3: floor(3.33) = 3 → 2.25 → 2; ceil(3.33) = 4'],
    [20n, tens(2), 2, 2, 'T=20: 2 × 0.75 = 1.5 → 1 → minimum 2'],
    [20n, tens(1000), 750, 1000, 'ceil(1000) = 1000 is not > 1000: floor(1000 × 0.75) = 750'],
    [20n, [...tens(1000).slice(0, 9), 1001], 750, 1000, 'T=10001: ceil(1000.1) = 1001 > 1000 → 1000, adjusted 750'],
    [20n, tens(1001), 750, 1000, 'capped at 1000 → 750'],
    [20n, [...tens(4), 1000, 1000], 3, 4, 'only the first 10 counts (n−7 … n−16) are used'],
    [20n, [0, 0, 0], 2, 2, 'T=0 → 0 → minimum 2'],
  ];
  it.each(table)('n=%s counts=%j → %s adjusted, %s unadjusted (%s)', (n, counts, adjusted, unadjusted) => {
    expect(requiredConsensus(n, counts)).toBe(adjusted);
    expect(requiredConsensus(n, counts, { adjusted: false })).toBe(unadjusted);
  });

  it('a lone reg master (minimum 1) keeps required consensus 1', () => {
    // T=10 c=10: floor(1) × 0.75 = 0.75 → 0 → minimum 1 (the reference minimum would make it 2)
    expect(requiredConsensus(20n, tens(1), { minimum: 1 })).toBe(1);
    expect(requiredConsensus(20n, tens(1))).toBe(2);
    expect(requiredConsensus(20n, tens(4), { minimum: 1 })).toBe(3);
  });

  it('reads counts from the chain, stopping at the first block it does not hold', () => {
    // n = 20: blocks 13, 12, 11 held (counts 8, 8, 9), block 10 missing → T=25 c=3: floor(8.33) = 8 → 6
    const held = new Map<bigint, number>([[13n, 8], [12n, 8], [11n, 9], [9n, 100]]);
    expect(requiredConsensusOf(20n, (k) => held.get(k))).toBe(6);
    expect(requiredConsensusOf(20n, (k) => held.get(k), { adjusted: false })).toBe(9); // ceil(8.33)
    // n = 17: blocks 10 … 1 all held with 4 → 3; block 0 would be the 11th and is not read
    expect(requiredConsensusOf(17n, (k) => (k >= 1n ? 4 : 1000))).toBe(3);
    expect(requiredConsensusOf(8n, (k) => (k === 1n ? 1 : undefined))).toBe(2);
    // block 0 does not exist: n = 9 reads blocks 2 and 1 only, even if the lookup answers for 0
    expect(requiredConsensusOf(9n, (k) => (k === 0n ? 1000 : 8), { adjusted: false })).toBe(8);
  });

  it('rejects negative counts and non-bigint block numbers', () => {
    expect(() => requiredConsensus(20n, [-1])).toThrow(ConsensusError);
    expect(() => requiredConsensus(20 as unknown as bigint, [])).toThrow(TypeError);
  });

  it('continuity requirement: required/2 + 1, or 1 when required ≤ 2', () => {
    // 1 → 1; 2 → 1; 3 → 3/2 = 1, +1 = 2; 4 → 3; 5 → 3; 750 → 376
    expect([1, 2, 3, 4, 5, 750].map(continuityRequirement)).toEqual([1, 1, 2, 3, 3, 376]);
    const s = (i: number) => Uint8Array.of(1, i);
    // signers 1, 2, 3, 4 of block n; 2, 4, 9 signed n − 6 → 2
    expect(countContinuitySigners([s(1), s(2), s(3), s(4)], [s(2), s(4), s(9)])).toBe(2);
  });
});

describe('signer difficulty and the 23.4 % rule (§5.6)', () => {
  it('23.4 % with IxiNumber truncation at each step', () => {
    // 10 000 000 coin = 1e15 raw: 1e15 × 2.34e9 / 1e8 = 2.34e16, × 1e8 / 1e10 = 2.34e14 = 2 340 000 coin
    expect(adjustSignerDifficultyToRatio(10_000_000n * COIN)).toBe(2_340_000n * COIN);
    // 100 raw: 100 × 2.34e9 / 1e8 = 2340; 2340 × 1e8 / 1e10 = 23.4 → 23
    expect(adjustSignerDifficultyToRatio(100n)).toBe(23n);
    // 3 raw: 7.02e9 / 1e8 = 70 (trunc); 70e8 / 1e10 = 0.7 → 0
    expect(adjustSignerDifficultyToRatio(3n)).toBe(0n);
  });

  it('required bits: block 1 or unknown bits → the bits of 10 000 000 coin; otherwise the governing bits', () => {
    expect(requiredSignerBits(1n, MAX_TARGET_BITS)).toBe(0x3701ad7f29abcaf4n);
    expect(requiredSignerBits(500n, null)).toBe(0x3701ad7f29abcaf4n);
    expect(requiredSignerBits(500n, 0n)).toBe(0x3701ad7f29abcaf4n);
    expect(requiredSignerBits(500n, MAX_TARGET_BITS)).toBe(MAX_TARGET_BITS);
    // maxTargetBits stand for 1.00000000; 23.4 % of it: 1e8 × 2.34e9 / 1e8 = 2.34e9, × 1e8 / 1e10 = 2.34e7
    expect(requiredSignerDifficulty(500n, MAX_TARGET_BITS, false)).toBe(COIN);
    expect(requiredSignerDifficulty(500n, MAX_TARGET_BITS, true)).toBe(23_400_000n);
    // block 1: bitsToDifficulty(0x3701AD7F29ABCAF4) ≥ 10 000 000 coin (bits keep 7 significant bytes)
    expect(requiredSignerDifficulty(1n, null, false) >= MIN_BLOCK_SIGNER_POW_DIFFICULTY).toBe(true);
  });

  it('meets the rule at exactly 23.4 % and not one raw unit below', () => {
    const required = 10_000_000n * COIN; // → threshold 2 340 000 coin
    expect(meetsSignerDifficulty(2_340_000n * COIN, required)).toBe(true);
    expect(meetsSignerDifficulty(2_340_000n * COIN - 1n, required)).toBe(false);
  });

  it('minimum signer difficulty: max(10 000 000 coin, adjusted ÷ 7000); the floor below 8 blocks', () => {
    // 2 340 000 coin ÷ 7000 = 334.28 coin < 10 000 000 coin → the floor
    expect(minSignerPowDifficulty(2_340_000n * COIN, 100)).toBe(MIN_BLOCK_SIGNER_POW_DIFFICULTY);
    // 1e20 raw: 1e20 × 1e8 / (7000 × 1e8) = 14 285 714 285 714 285.71 → 14 285 714 285 714 285
    expect(minSignerPowDifficulty(10n ** 20n, 100)).toBe(14_285_714_285_714_285n);
    expect(minSignerPowDifficulty(10n ** 20n, 7)).toBe(MIN_BLOCK_SIGNER_POW_DIFFICULTY);
  });

  it('a superblock may move the difficulty ×2/÷2 (×4/÷4 above v13), never below the floor', () => {
    const prev = 0x3601ad7f29abcaf4n; // some bits; its difficulty:
    const d = bitsToDifficulty(prev);
    expect(boundSignerDifficultyChange(d * 3n, prev, 13)).toBe(d * 2n);
    expect(boundSignerDifficultyChange(d * 3n, prev, 14)).toBe(d * 3n);
    expect(boundSignerDifficultyChange(d * 5n, prev, 14)).toBe(d * 4n);
    expect(boundSignerDifficultyChange(d / 3n, prev, 13)).toBe((d * COIN) / (2n * COIN));
    expect(boundSignerDifficultyChange(1n, null, 13)).toBe(MIN_BLOCK_SIGNER_POW_DIFFICULTY);
  });

  it('the bits of block n come from its superblock, or block 1 before the first', () => {
    // floor(n / 1000) × 1000, 0 → 1; a superblock uses its own
    expect([1n, 999n, 1000n, 1001n, 2500n].map((n) => signerBitsSourceBlock(n))).toEqual([1n, 1n, 1000n, 1000n, 2000n]);
    expect([9n, 10n, 25n].map((n) => signerBitsSourceBlock(n, 10n))).toEqual([1n, 10n, 20n]);
  });
});

describe('election and timing (§5.1, BlockProcessor.getElectedNodeOffset, BlockChain.getElectedNodeAddresses)', () => {
  it('offset = floor(elapsed / 60) up to 120 s, −1 after; negative elapsed → 0', () => {
    // [elapsed, offset]: 59/60 = 0; 60/60 = 1; 119/60 = 1; 120/60 = 2 (120 is not > 120); 121 → −1
    const table: [number, number][] = [[-5, 0], [0, 0], [30, 0], [59, 0], [60, 1], [119, 1], [120, 2], [121, -1], [900, -1]];
    for (const [elapsed, offset] of table) expect(electionOffset(elapsed), `${elapsed} s`).toBe(offset);
  });

  it('scales with a devnet block interval (2 s: steps of 4 s, free-for-all after 8 s)', () => {
    const t = consensusTiming(2);
    expect([3, 4, 7.9, 8, 8.5].map((e) => electionOffset(e, t))).toEqual([0, 1, 1, 2, -1]);
    expect(t).toMatchObject({ electionStep: 4, freeForAll: 8, candidateTimeout: 20 });
    expect(t.redialAfter).toBeCloseTo(60);
    expect(consensusTiming()).toEqual({
      blockInterval: 30, electionStep: 60, freeForAll: 120, fallbackJitter: 10, timestampSnapMargin: 10,
      candidateTimeout: 300, redialAfter: 900, longTimeNoBlock: 1800,
    });
    expect(() => consensusTiming(0)).toThrow(ConsensusError);
  });

  it('k = first 4 checksum bytes, unsigned little-endian', () => {
    expect(electionSeed(Uint8Array.of(1, 0, 0, 0, 9))).toBe(1);
    expect(electionSeed(Uint8Array.of(0xff, 0xff, 0xff, 0xff))).toBe(0xffffffff);
    expect(electionSeed(Uint8Array.of(0x78, 0x56, 0x34, 0x12))).toBe(0x12345678);
  });

  it('positions: ((k + offset) mod 2^32) mod s below 100 signatures; k, k+1, k+2 from 100', () => {
    const k1 = Uint8Array.of(1, 0, 0, 0);
    const kMax = Uint8Array.of(0xff, 0xff, 0xff, 0xff);
    const kMaxMinus1 = Uint8Array.of(0xfe, 0xff, 0xff, 0xff);
    // k=1, s=4: offsets 0,1,2 → 1, 2, 3
    expect([0, 1, 2].map((o) => electedSignerPositions(k1, 4, o))).toEqual([[1], [2], [3]]);
    // k=2^32−1, s=10: offset 0 → 4294967295 mod 10 = 5; offset 1 wraps to 0 → 0 (not 4294967296 mod 10 = 6)
    expect(electedSignerPositions(kMax, 10, 0)).toEqual([5]);
    expect(electedSignerPositions(kMax, 10, 1)).toEqual([0]);
    // s=100, k=1: offset ignored → 1, 2, 3
    expect(electedSignerPositions(k1, 100, 2)).toEqual([1, 2, 3]);
    // s=100, k=2^32−2: 4294967294 mod 100 = 94, …95 mod 100 = 95, then the wrap gives 0
    expect(electedSignerPositions(kMaxMinus1, 100, 0)).toEqual([94, 95, 0]);
    expect(electedSignerPositions(k1, 4, -1)).toBeNull();
    expect(electedSignerPositions(k1, 0, 0)).toEqual([]);
  });

  it('elected addresses and whether a candidate carries one of them', () => {
    const a = [Uint8Array.of(1, 1), Uint8Array.of(2, 2), Uint8Array.of(3, 3)];
    const elected = electedSigners(Uint8Array.of(4, 0, 0, 0), a, 0)!; // 4 mod 3 = 1
    expect(elected.map(hex)).toEqual(['0202']);
    expect(hasElectedSignature([a[0]!, a[1]!], elected, 100n, 100n)).toBe(true);
    expect(hasElectedSignature([a[0]!], elected, 100n, 100n)).toBe(false);
    expect(hasElectedSignature([a[0]!], elected, 100n, 102n)).toBe(true); // behind: 100 + 2 ≤ 102
    expect(hasElectedSignature([a[0]!], null, 100n, 100n)).toBe(true); // nobody elected
  });

  it('who generates: elected after 30 s, anyone after 120 s + jitter, the genesis node alone below 8', () => {
    const base: GenerateContext = {
      tipNum: 100n, tipTimestamp: 1000, networkTime: 1030, secondsSinceAccepted: 30, fallbackJitter: 5,
      elected: true, genesisNode: false, hasCandidate: false,
    };
    expect(shouldGenerateBlock(base)).toBe('elected');
    expect(shouldGenerateBlock({ ...base, networkTime: 1029 })).toBeNull(); // 29 s < 30 s
    expect(shouldGenerateBlock({ ...base, elected: false })).toBeNull();
    expect(shouldGenerateBlock({ ...base, elected: false, secondsSinceAccepted: 125 })).toBeNull(); // 125 ≤ 120 + 5
    expect(shouldGenerateBlock({ ...base, elected: false, secondsSinceAccepted: 125.5 })).toBe('fallback');
    expect(shouldGenerateBlock({ ...base, hasCandidate: true })).toBeNull();
    expect(shouldGenerateBlock({ ...base, tipNum: 7n, elected: false })).toBeNull(); // not genesis
    expect(shouldGenerateBlock({ ...base, tipNum: 7n, elected: false, genesisNode: true })).toBe('bootstrap');
    expect(shouldGenerateBlock({ ...base, tipNum: 8n, elected: false, genesisNode: true })).toBeNull();
  });

  it('network time against the tip: a whole-second timestamp does not age a sub-second tip (§5.1)', () => {
    // 30 s blocks: the tip's timestamp is the clock, less the propagation delay (up to an interval).
    const t30 = consensusTiming(30);
    expect(networkTimeAgainstTip(1_012_000, 1000, 1_002_000, t30) - 1000).toBe(10); // 12 s after its stamp, arrived 2 s late
    expect(networkTimeAgainstTip(1_050_000, 1000, 1_045_000, t30) - 1000).toBe(20); // a delay past the interval counts as age
    // 0.1 s blocks: our own block began at 1000.7 s and is stamped 1000 (timestamps are whole
    // seconds); 0.15 s later an interval has passed and the election window (4 intervals) has not.
    const t01 = consensusTiming(0.1);
    const elapsed = networkTimeAgainstTip(1_000_850, 1000, 1_000_700, t01) - 1000;
    expect(elapsed).toBeCloseTo(0.15, 6);
    expect(electionOffset(elapsed, t01)).toBe(0);
    // A lone master is elected then, not left to the free-for-all 0.4 s + jitter after its block.
    const base: GenerateContext = { tipNum: 100n, tipTimestamp: 1000, networkTime: 1000 + elapsed, secondsSinceAccepted: 0.15, fallbackJitter: 0, elected: true, genesisNode: false, hasCandidate: false };
    expect(shouldGenerateBlock(base, t01)).toBe('elected');
    // A tip that really arrived late is still old: 3 s after its stamp at 0.1 s blocks.
    expect(networkTimeAgainstTip(1_003_500, 1000, 1_003_000, t01) - 1000).toBeGreaterThan(t01.freeForAll);
  });

  it('new block timestamp snaps to tip + 30 within tip + 30 … 40', () => {
    // [now, expected] with tip at 1000
    const table: [number, number][] = [[1029, 1029], [1030, 1030], [1035, 1030], [1040, 1030], [1041, 1041]];
    for (const [now, ts] of table) expect(newBlockTimestamp(now, 1000), `now ${now}`).toBe(ts);
    expect(newBlockTimestamp(5, null)).toBe(5);
  });
});

describe('candidates and competing blocks (§5.3, §5.7)', () => {
  const tally = (count: number, coins: bigint) => ({ count, totalDifficulty: coins * COIN });
  it('first candidate: elected signature, or ≥ floor(required/2) signatures, or first after sync', () => {
    expect(adoptFirstCandidate(tally(0, 0n), true, 5, false)).toBe(true);
    expect(adoptFirstCandidate(tally(2, 0n), false, 5, false)).toBe(true); // 2 ≥ floor(5/2) = 2
    expect(adoptFirstCandidate(tally(1, 0n), false, 5, false)).toBe(false);
    expect(adoptFirstCandidate(tally(1, 0n), false, 5, true)).toBe(true);
  });

  it('switch to a competing block: elected signature and more signatures, or as many with more difficulty', () => {
    const base = { local: tally(5, 100n), incoming: tally(5, 100n), incomingHasElected: true, incomingHasRequiredCount: false, blockNum: 50n, networkHeight: 50n };
    // [change, expected, why]
    const rows: [Partial<typeof base>, boolean, string][] = [
      [{ incoming: tally(6, 1n) }, true, 'more signatures wins whatever the difficulty'],
      [{ incoming: tally(5, 101n) }, true, 'as many, more total difficulty'],
      [{}, false, 'a full tie keeps the candidate in hand'],
      [{ incoming: tally(4, 1000n) }, false, 'fewer signatures loses even with more difficulty'],
      [{ incoming: tally(9, 1000n), incomingHasElected: false }, false, 'no elected signature: never'],
      [{ incoming: tally(4, 1n), incomingHasRequiredCount: true, networkHeight: 56n }, true, 'required count while the network is > 5 ahead (56 > 55)'],
      [{ incoming: tally(4, 1n), incomingHasRequiredCount: true, networkHeight: 55n }, false, '55 is not > 55'],
    ];
    for (const [change, expected, why] of rows) expect(preferIncomingBlock({ ...base, ...change }), why).toBe(expected);
  });
});

describe('acceptance (§5.4 rules 1–4)', () => {
  const base = {
    blockNum: 100n, tally: { count: 4, totalDifficulty: 10n * COIN }, required: 4, requiredDifficultyAdjusted: 10n * COIN,
    signerPow: true, continuitySigners: 3,
  };
  it('count, difficulty and continuity', () => {
    expect(checkBlockSignatures(base)).toEqual({ ok: true });
    expect(checkBlockSignatures({ ...base, tally: { count: 3, totalDifficulty: 99n * COIN } })).toEqual({ ok: false, reason: 'count' });
    expect(checkBlockSignatures({ ...base, tally: { count: 3, totalDifficulty: 99n * COIN }, recoveryMode: true })).toEqual({ ok: true });
    expect(checkBlockSignatures({ ...base, tally: { count: 4, totalDifficulty: 10n * COIN - 1n } })).toEqual({ ok: false, reason: 'difficulty' });
    expect(checkBlockSignatures({ ...base, signerPow: false, tally: { count: 4, totalDifficulty: 0n } })).toEqual({ ok: true });
    // required 4 → continuity 4/2 + 1 = 3: 2 fails
    expect(checkBlockSignatures({ ...base, continuitySigners: 2 })).toEqual({ ok: false, reason: 'continuity' });
    expect(checkBlockSignatures({ ...base, continuitySigners: 2, recoveryForgivesContinuity: true })).toEqual({ ok: true });
    // continuity only above block 13
    expect(checkBlockSignatures({ ...base, blockNum: 13n, continuitySigners: 0 })).toEqual({ ok: true });
    // required 2 → continuity 1
    expect(checkBlockSignatures({ ...base, required: 2, tally: { count: 2, totalDifficulty: 10n * COIN }, continuitySigners: 1 })).toEqual({ ok: true });
    // blocks ≤ 6 only need count ≥ required (1)
    expect(checkBlockSignatures({ ...base, blockNum: 6n, required: 1, tally: { count: 1, totalDifficulty: 0n }, continuitySigners: 0 })).toEqual({ ok: true });
  });

  it('the quick count check passes any block with fewer than 3 signatures (reference quirk)', () => {
    const q = { blockNum: 100n, tally: { count: 2, totalDifficulty: 0n }, required: 10, requiredDifficultyAdjusted: COIN, signerPow: true, recoveryMode: false };
    expect(hasRequiredSignatureCount(q)).toBe(true);
    expect(hasRequiredSignatureCount({ ...q, tally: { count: 3, totalDifficulty: 10n * COIN } })).toBe(false);
    expect(hasRequiredSignatureCount({ ...q, required: 3, tally: { count: 3, totalDifficulty: 0n } })).toBe(false); // difficulty
    expect(hasRequiredSignatureCount({ ...q, required: 3, tally: { count: 3, totalDifficulty: COIN } })).toBe(true);
  });

  it('sig-freeze agreement: ≥ floor(min(carried, 1000) × 0.9) of the local frozen signers', () => {
    const s = (i: number) => Uint8Array.of(i >> 8, i & 0xff);
    const carried = Array.from({ length: 10 }, (_, i) => s(i));
    expect(sigFreezeAgreement(carried.slice(0, 9), carried)).toBe(true); // 9 ≥ floor(9.0)
    expect(sigFreezeAgreement(carried.slice(0, 8), carried)).toBe(false); // 8 < 9
    const many = Array.from({ length: 1005 }, (_, i) => s(i));
    expect(sigFreezeAgreement(many.slice(0, 900), many)).toBe(true); // capped: floor(1000 × 0.9) = 900
    expect(sigFreezeAgreement(many.slice(0, 899), many)).toBe(false);
  });

  it('recovery mode: 2 h gap and ≥ 3 signatures; forgives with enough difficulty', () => {
    expect(isRecoveryMode(10_000, 2_800, 3)).toBe(true); // 2800 + 7200 = 10000 ≤ 10000
    expect(isRecoveryMode(9_999, 2_800, 3)).toBe(false);
    expect(isRecoveryMode(10_000, 2_800, 2)).toBe(false);
    const r = {
      blockTimestamp: 10_000, previousTimestamp: 2_800, continuitySigners: 1, signatureCount: 3, totalDifficulty: 0n,
      requiredDifficulty: 100n * COIN, requiredUnadjusted: 4, requiredAdjusted: 3, minSignerDifficulty: 10n * COIN,
    };
    // missing continuity = 4/2 + 1 − 1 = 2 → needs 2 × 100 coin = 200 coin; no missing signatures (3 − 3)
    expect(recoveryForgives({ ...r, totalDifficulty: 200n * COIN })).toBe(true);
    expect(recoveryForgives({ ...r, totalDifficulty: 200n * COIN - 1n })).toBe(false);
    // 2 signatures missing too (adjusted 5 − 3): + 2 × 10 coin × 7 = 140 coin → 340 coin
    expect(recoveryForgives({ ...r, requiredAdjusted: 5, totalDifficulty: 340n * COIN })).toBe(true);
    expect(recoveryForgives({ ...r, requiredAdjusted: 5, totalDifficulty: 340n * COIN - 1n })).toBe(false);
    // nothing missing → not "forgiving" anything
    expect(recoveryForgives({ ...r, continuitySigners: 3, totalDifficulty: 10_000n * COIN })).toBe(false);
  });
});

describe('signature freeze (§5.5, BlockProcessor.freezeSignatures / extractRequiredSignatures)', () => {
  const addr = (c: number, len = 45) => new Uint8Array(len).fill(c);
  const sig = (c: number, coins: bigint, len = 45): FreezeEntry & { name: string } => ({ name: String.fromCharCode(c), address: addr(c, len), difficulty: coins * COIN });
  // live list of block 100 in arrival order; election block 94 was signed by A, B and C
  const [A, B, C, D, E] = [sig(65, 3n), sig(66, 2n), sig(67, 4n), sig(68, 5n), sig(69, 1n)];
  const live = [D!, A!, E!, B!, C!];
  const input = {
    targetBlockNum: 100n, live, frozen: null, electionSigners: [addr(65), addr(66), addr(67)],
    requiredUnadjusted: 4, requiredAdjusted: 3, catchingUp: false, signerPow: true, requiredDifficultyAdjusted: 10n * COIN,
  };
  const names = (r: ReturnType<typeof freezeSignatures<(typeof live)[number]>>) => (r.ok ? r.frozen.map((f) => f.name).join('') : r.reason);

  it('continuity signers first (A, B, C up to 4/2 + 1 = 3), the rest after, then sorted by (difficulty, address)', () => {
    // step 1 takes A, B, C; step 2 adds D, E → 5 ≥ 3; total 15 coin ≥ 10; sorted E(1) B(2) A(3) C(4) D(5)
    const r = freezeSignatures(input);
    expect(names(r)).toBe('EBACD');
    expect(r.ok && r.totalDifficulty).toBe(15n * COIN);
    // without signer PoW (pre-v10) and for block 1 the order is the collection order: A B C D E
    expect(names(freezeSignatures({ ...input, signerPow: false }))).toBe('ABCDE');
    expect(names(freezeSignatures({ ...input, targetBlockNum: 1n }))).toBe('ABCDE');
  });

  it('takes at most floor(unadjusted/2) + 1 continuity signers first; all of the unadjusted when catching up', () => {
    // unadjusted 2 → 2 continuity signers (A, B), then D, E, C in live order
    expect(names(freezeSignatures({ ...input, requiredUnadjusted: 2, signerPow: false }))).toBe('ABDEC');
    // catching up with unadjusted 2 → also 2 (A, B)
    expect(names(freezeSignatures({ ...input, requiredUnadjusted: 2, catchingUp: true, signerPow: false }))).toBe('ABDEC');
    // a previous frozen list is the source of step 1: [C, E, A] → C, A (E did not sign 94), then the live rest D, E, B
    expect(names(freezeSignatures({ ...input, frozen: [C!, E!, A!], signerPow: false }))).toBe('CADEB');
  });

  it('fails below the adjusted required count or below 23.4 % of the required difficulty', () => {
    expect(names(freezeSignatures({ ...input, requiredAdjusted: 6 }))).toBe('count');
    expect(names(freezeSignatures({ ...input, requiredAdjusted: 6, recovery: () => true }))).toBe('EBACD');
    expect(names(freezeSignatures({ ...input, requiredDifficultyAdjusted: 15n * COIN + 1n }))).toBe('difficulty');
  });

  it('equal difficulties order by address bytes, a shorter address first on a common prefix', () => {
    const x = sig(7, 1n, 33);
    const y = sig(7, 1n, 45);
    const z = sig(6, 1n, 45);
    const r = freezeSignatures({ ...input, live: [y, x, z], electionSigners: [], requiredAdjusted: 1, requiredDifficultyAdjusted: 0n });
    expect(r.ok && r.frozen.map((f) => `${f.address[0]}/${f.address.length}`)).toEqual(['6/45', '7/33', '7/45']);
    expect(compareBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 2, 0))).toBeLessThan(0);
  });

  it('which block is frozen: header of n carries n − 5 from n = 6; freezing runs from n = 12', () => {
    expect([5n, 6n, 12n].map(sigFreezeTarget)).toEqual([null, 1n, 7n]);
    expect([11n, 12n].map(freezesSignatures)).toEqual([false, true]);
    expect(signatureDifficulty(null)).toBe(COIN);
    expect(signatureDifficulty(7n)).toBe(7n);
  });

  it('sig-freeze checksum = sha3_512sq(u64 LE blockNum ‖ varint(len) ‖ compact entry …), built by hand', () => {
    const key = Uint8Array.from({ length: 270 }, (_, i) => (i * 3) & 0xff);
    const solution = { blockNum: 5n, solution: new Uint8Array(32).fill(0xab), signingPubKey: key };
    const a1 = addr(0x11);
    const a2 = addr(0x22);
    // compact solution: 05 ‖ 20 ‖ 32 × ab ‖ 40 ‖ sha3_512sq(key) = 99 bytes (0x63)
    const compactSolution = new Uint8Array([0x05, 0x20, ...new Uint8Array(32).fill(0xab), 0x40, ...sha3sq(key)]);
    // entry 1: 2d ‖ address ‖ 63 ‖ solution = 146 bytes (0x92); entry 2 without a solution: 2d ‖ address ‖ 00 = 47 (0x2f)
    const entry1 = new Uint8Array([0x2d, ...a1, 0x63, ...compactSolution]);
    const entry2 = new Uint8Array([0x2d, ...a2, 0x00]);
    expect(hex(compactSignatureEntry({ address: a1, solution }))).toBe(hex(entry1));
    // u64 LE 110 = 6e 00…; 146 < 248 is the one-byte varint 0x92
    const preimage = new Uint8Array([0x6e, 0, 0, 0, 0, 0, 0, 0, 0x92, ...entry1, 0x2f, ...entry2]);
    const got = signatureFreezeChecksum(110n, [{ address: a1, solution }, { address: a2, solution: null }]);
    expect(hex(got)).toBe(hex(sha3sq(preimage)));
    // list order matters (no sorting except block 1)
    expect(hex(signatureFreezeChecksum(110n, [{ address: a2, solution: null }, { address: a1, solution }]))).not.toBe(hex(got));
  });

  it('block 1 sorts its signatures by the address with checksum first', () => {
    const a = addr(0x22);
    const b = addr(0x11);
    a[0] = 1; // version-1 addresses
    b[0] = 1;
    const first = compareBytes(addressWithChecksum(a), addressWithChecksum(b)) < 0 ? a : b;
    const second = first === a ? b : a;
    const entries = [{ address: a, solution: null }, { address: b, solution: null }];
    const manual = new Uint8Array([1, 0, 0, 0, 0, 0, 0, 0, 0x2f, 0x2d, ...first, 0, 0x2f, 0x2d, ...second, 0]);
    expect(hex(signatureFreezeChecksum(1n, entries))).toBe(hex(sha3sq(manual)));
    expect(hex(signatureFreezeChecksum(1n, [...entries].reverse()))).toBe(hex(sha3sq(manual)));
  });
});

describe('superblocks (§5.8)', () => {
  it('every 1000th block, pointing at the previous one (block 1 for the first); signer bits on block 1 and superblocks', () => {
    expect([0n, 1n, 999n, 1000n, 2000n].map((n) => isSuperBlock(n))).toEqual([false, false, false, true, true]);
    expect(previousSuperBlock(1000n)).toBe(1n);
    expect(previousSuperBlock(3000n)).toBe(2000n);
    expect(() => previousSuperBlock(1500n)).toThrow(ConsensusError);
    expect([1n, 2n, 1000n].map((n) => carriesSignerBits(n))).toEqual([true, false, true]);
    // a devnet period from its genesis parameters
    expect(isSuperBlock(20n, 10n)).toBe(true);
    expect(previousSuperBlock(10n, 10n)).toBe(1n);
  });
});

describe('properties', () => {
  const address = fc.integer({ min: 0, max: 30 }).map((i) => Uint8Array.of(1, i));
  const entry = fc.record({ address, difficulty: fc.bigInt({ min: 1n, max: 1000n }) });

  it('a frozen list has no repeated signer, holds every live signer up to 1000, and is in (difficulty, address) order', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 40 }), fc.array(address, { maxLength: 10 }), fc.integer({ min: 1, max: 40 }), (raw, election, unadjusted) => {
        // live lists hold one signature per signer
        const seen = new Set<number>();
        const live = raw.filter((e) => !seen.has(e.address[1]!) && seen.add(e.address[1]!));
        const r = freezeSignatures({
          targetBlockNum: 50n, live, frozen: null, electionSigners: election, requiredUnadjusted: unadjusted, requiredAdjusted: 0,
          catchingUp: false, signerPow: true, requiredDifficultyAdjusted: 0n,
        });
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        expect(new Set(r.frozen.map((f) => f.address[1])).size).toBe(r.frozen.length);
        expect(r.frozen.length).toBe(live.length);
        for (let i = 1; i < r.frozen.length; i++) expect(compareFreezeOrder(r.frozen[i - 1]!, r.frozen[i]!)).toBeLessThan(0);
      }),
      { numRuns: 300 },
    );
  });

  it('elected positions are inside the list, one below 100 signatures and three from 100', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 4, maxLength: 64 }), fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 0, max: 2 }), (checksum, count, offset) => {
        const p = electedSignerPositions(checksum, count, offset)!;
        expect(p).toHaveLength(count < 100 ? 1 : 3);
        for (const i of p) expect(i >= 0 && i < count).toBe(true);
      }),
    );
  });

  it('required consensus is at least the minimum and at most 1000, and never above the unadjusted value', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 8n, max: 10n ** 7n }), fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 12 }), (n, counts) => {
        const adjusted = requiredConsensus(n, counts);
        const unadjusted = requiredConsensus(n, counts, { adjusted: false });
        expect(adjusted >= 2 && adjusted <= 1000).toBe(true);
        expect(adjusted <= unadjusted).toBe(true);
      }),
    );
  });
});
