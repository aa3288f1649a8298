// Signing rewards (reference-formats.md §14 schedule, §15.7 = Ixian-Core UnitTests/TestRewards.cs,
// §8.1 type 2, §8.7 stk- ids): the schedule, the split with its remainder pass, the staking
// transaction and its id.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeTransaction, encodeTransaction, parseTransactionId } from '../../src/codec/transaction.js';
import {
  buildStakingReward, signingRewardForBlock, splitSigningReward, STAKING_SOURCE_ADDRESS, stakingRewardTarget,
} from '../../src/consensus/rewards.js';
import { addressFromText, addressToText } from '../../src/formats/address.js';
import { encodeBase58 } from '../../src/formats/base58.js';

const COIN = 100_000_000n;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

// TestRewards.cs: the four signers and their difficulties (1, 100, 500, 1200 coin; Σ 1801)
const SIGNERS = [
  ['16LUmwUnU9M4Wn92nrvCStj83LDCRwvAaSio6Xtb3yvqqqCCz', 1n],
  ['13fiCRZHPqcCFvQvuggKEjDvFsVLmwoavaBw1ng5PdSKvCUGp', 100n],
  ['1ixianinfinimine234234234234234234234234234242HP', 500n],
  ['4uuXowvxs3pWUKtGuBd9sypn2UmnLpygXHnCJ22X8YYdtry7NqFyZxm3otzJyHgVP', 1200n],
] as const;

describe('signing reward per block (§14)', () => {
  it('follows the schedule', () => {
    // [target block, supply (raw), expected raw]
    const supply = 1_000_000_000n * COIN; // 1e9 coin = 1e17 raw
    const table: [bigint, bigint, bigint, string][] = [
      // ≤ 86 400: 1e17 × 1e7 / 1e8 = 1e16; × 1e8 / 1e16 = 1e8 = 1 coin
      [86_400n, supply, COIN, 'supply × 0.1 / 1e8'],
      // < 1 802 000: 1e17 × 5e8 / 1e8 = 5e17; × 1e8 / 1e16 = 5e9 = 50 coin
      [86_401n, supply, 50n * COIN, 'supply × 5 / 1e8'],
      [1_801_999n, supply, 50n * COIN, 'last block of the supply rate'],
      [1_802_000n, supply, 576n * COIN, '576 from 1 802 000'],
      [2_340_000n, 0n, 576n * COIN, 'the §15.7 block'],
      [6_307_199n, 0n, 576n * COIN, ''],
      [6_307_200n, 0n, 864n * COIN, '288 + 576'],
      [9_460_800n, 0n, 432n * COIN, '144 + 288'],
      [12_614_400n, 0n, 81n * COIN, '72 + 9'],
      [15_768_000n, 0n, 45n * COIN, '36 + 9'],
      [105_119_999n, 0n, 45n * COIN, ''],
      [105_120_000n, 0n, 36n * COIN, '36 from 105 120 000'],
    ];
    for (const [block, s, reward, why] of table) expect(signingRewardForBlock(block, s), `${block} ${why}`).toBe(reward);
    // truncation in the first era: supply 123 456 789.12345678 coin → × 0.1 → 12345678912345678 raw × 1e7 / 1e8 = 1234567891234567.8 → …67; × 1e8 / 1e16 = 12345678.91 → 12345678 raw
    expect(signingRewardForBlock(10n, 12_345_678_912_345_678n)).toBe(12_345_678n);
  });

  it('rewards block n − 960 from block 962 on', () => {
    // 961 − 960 = 1, which the generator skips (target < 2)
    expect([960n, 961n, 962n, 2_340_960n].map((n) => stakingRewardTarget(n))).toEqual([null, null, 2n, 2_340_000n]);
  });

  it('follows a genesis file\'s shorter maturity', () => {
    expect([12n, 13n, 14n, 40n].map((n) => stakingRewardTarget(n, 12n))).toEqual([null, null, 2n, 28n]);
    expect(() => stakingRewardTarget(20n, 0n)).toThrow(/reward maturity/);
  });
});

describe('§15.7 reward split (TestRewards.DistributeRewards)', () => {
  const total = signingRewardForBlock(2_340_000n, 0n) + 10_000_000n; // 576 coin + 0.1 coin fees

  it('57 610 000 000 raw split by 1/100/500/1200: floors sum to 57 609 999 998, the 2 left go to the largest remainders', () => {
    expect(total).toBe(57_610_000_000n);
    // p_i = floor(57 610 000 000 × d_i × 100 / 1801 coin):
    //   d=1:    5 761 000 000 000 / 1801 = 3 198 778 456.41 → award 31 987 784, remainder 56
    //   d=100:  …/1801 = 319 877 845 641.31 → 3 198 778 456, remainder 41
    //   d=500:  1 599 389 228 206.55 → 15 993 892 282, remainder 06
    //   d=1200: 3 838 534 147 695.72 → 38 385 341 476, remainder 95
    // Σ = 57 609 999 998 → 2 left: +1 to remainder 95 (4th), +1 to remainder 56 (1st)
    const awards = splitSigningReward(total, SIGNERS.map(([, d]) => d * COIN))!;
    expect(awards).toEqual([31_987_785n, 3_198_778_456n, 15_993_892_282n, 38_385_341_477n]);
    expect(awards.reduce((a, b) => a + b, 0n)).toBe(total);
  });

  it('equal remainders go to the earlier signer first; no stake → null', () => {
    // 10 raw among three equal stakes: p = 1000/3 = 333 → 3 each, remainders 33; 1 left → the first
    expect(splitSigningReward(10n, [5n, 5n, 5n])).toEqual([4n, 3n, 3n]);
    expect(splitSigningReward(10n, [])).toBeNull();
    expect(splitSigningReward(10n, [0n])).toBeNull();
  });

  it('always pays out exactly the total, never more than one unit above a signer\'s proportional share', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.array(fc.bigInt({ min: 1n, max: 10n ** 20n }), { minLength: 1, maxLength: 40 }), (total, stakes) => {
        const awards = splitSigningReward(total, stakes)!;
        const staked = stakes.reduce((a, b) => a + b, 0n);
        expect(awards.reduce((a, b) => a + b, 0n)).toBe(total);
        awards.forEach((a, i) => {
          const share = (total * stakes[i]!) / staked;
          expect(a >= share && a <= share + 1n).toBe(true);
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe('the staking transaction (§8.1 type 2, §8.7)', () => {
  const signers = SIGNERS.map(([text, d]) => ({ address: addressFromText(text), difficulty: d * COIN }));
  const input = {
    targetBlockNum: 2_340_000n, tipHeight: 2_340_959n, timestamp: 1_700_000_000n, totalSupply: 0n, targetTotalFee: 10_000_000n, signers,
  };

  it('pays each signer its award in frozen order, from {00: Σ} of the InfiniMine address, signed "Stake"', () => {
    const r = buildStakingReward(input, 'main')!;
    const tx = r.transaction;
    expect(tx).toMatchObject({ version: 7, type: 2, blockHeight: 2_340_959n, nonce: 0, applied: 0n });
    expect(addressToText(tx.pubKey!)).toBe('1ixianinfinimine234234234234234234234234234242HP');
    expect(hex(tx.pubKey!)).toBe(hex(STAKING_SOURCE_ADDRESS));
    expect(new TextDecoder().decode(tx.signature!)).toBe('Stake');
    expect(tx.inputs).toHaveLength(1);
    expect(hex(tx.inputs[0]!.key)).toBe('00');
    expect(tx.inputs[0]!.amount).toBe(57_610_000_000n);
    expect(tx.outputs.map((o) => [addressToText(o.address), o.amount])).toEqual(SIGNERS.map(([t], i) => [t, r.awards[i]]));
    // data of the first output = varint(2 340 000) = fd a0b42300 (not checksummed)
    expect(hex(tx.outputs[0]!.data!)).toBe('fda0b42300');
    expect(tx.outputs.slice(1).every((o) => o.data === undefined)).toBe(true);
  });

  it('has a stk- id naming blockHeight − 5 and blockHeight, and a prefix-0 binary id', () => {
    const r = buildStakingReward(input, 'main')!;
    expect(r.id).toBe(`stk-2340954-2340959-${encodeBase58(r.checksum)}`);
    expect(r.checksum).toHaveLength(44);
    const parsed = parseTransactionId(r.id);
    expect(parsed.prefix).toBe(0);
    expect(parsed.blockHeight).toBe(2_340_959n);
    expect(hex(parsed.binary)).toBe(hex(r.binaryId));
    expect(r.binaryId[0]).toBe(0);
  });

  it('its bytes decode to the same checksum on the same network, and another network gives another checksum', () => {
    const r = buildStakingReward(input, 'main')!;
    const bytes = encodeTransaction(r.transaction);
    expect(hex(decodeTransaction(bytes, 'main').checksum)).toBe(hex(r.checksum));
    expect(hex(buildStakingReward(input, 'test')!.checksum)).not.toBe(hex(r.checksum));
    // the output data is outside the checksum (formats §8.4): another target number, same checksum
    const moved = buildStakingReward({ ...input, targetBlockNum: 2_340_001n }, 'main')!;
    expect(hex(moved.transaction.outputs[0]!.data!)).not.toBe(hex(r.transaction.outputs[0]!.data!));
    expect(hex(moved.checksum)).toBe(hex(r.checksum));
  });

  it('leaves out zero awards, and builds nothing when nothing is paid; refuses a repeated signer', () => {
    const tiny = buildStakingReward({ ...input, targetBlockNum: 10n, totalSupply: 0n, targetTotalFee: 1n }, 'main')!;
    // 1 raw among 1/100/500/1200: all floors 0; the unit goes to the largest remainder (1200 → p = 66)
    expect(tiny.transaction.outputs).toHaveLength(1);
    expect(addressToText(tiny.transaction.outputs[0]!.address)).toBe(SIGNERS[3][0]);
    expect(hex(tiny.transaction.outputs[0]!.data!)).toBe('0a');
    expect(buildStakingReward({ ...input, targetBlockNum: 10n, targetTotalFee: 0n }, 'main')).toBeNull();
    expect(buildStakingReward({ ...input, signers: [] }, 'main')).toBeNull();
    expect(() => buildStakingReward({ ...input, signers: [signers[0]!, signers[0]!] }, 'main')).toThrow(RangeError);
  });
});
