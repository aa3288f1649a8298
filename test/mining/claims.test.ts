/**
 * Mining claims (reference-formats.md §8.10, §11.3) on a real chain and store: the claim data
 * codec, the reward table, and the type-1 rules of the mining chain extension (target stored,
 * window, PoW field empty, the solution verified, the same solution refused twice in a block) with
 * the PoW field set when the claim applies and the reward paid rewardMaturity blocks later, shared
 * by the distinct solutions of one block (DLT `rewardMinersV10`). The Argon2 verification is injected: a nonce
 * "solves" a block here iff its first byte is 0x42, so the rules run without minutes of hashing
 * (the real verification is covered by test/e2e/mining.slow.test.ts and test/core).
 */
import fc from 'fast-check';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { binaryTransactionId } from '../../src/codec/transaction.js';
import { powVerify, type PowClaim } from '../../src/core/pow.js';
import { COIN } from '../../src/formats/amount.js';
import { toHex } from '../../src/formats/bytes.js';
import { createMiningExtension } from '../../src/mining/chain-extension.js';
import { buildClaim, ClaimDataError, decodeClaimData, encodeClaimData } from '../../src/mining/claim.js';
import { CLAIM_WINDOW, lowestClaimable, Mining } from '../../src/mining/index.js';
import { countSolved, powFieldOf } from '../../src/mining/pow-field.js';
import { claimPayout, claimsIn } from '../../src/mining/payout.js';
import { generateWalletKey } from '../../src/formats/rsa.js';
import { WalletKey } from '../../src/wallet/wallet.js';
import { ARGON2_EXPIRATION_BLOCK_HEIGHT, miningReward } from '../../src/mining/reward.js';
import { systemClock } from '../../src/clock.js';
import { knownTx, type KnownTx } from '../../src/chain/tx-codec.js';
import { Address } from '../../src/formats/address.js';

const STRANGER = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';
import { ActivityIndex } from '../../src/explorer/activity.js';
import { createAddressIndex } from '../../src/explorer/address-index.js';
import { admitReasons, codeOf, commitBlock, openTestChain, type TestChain } from '../chain/fixture.js';
import { REG_SIGNER_BITS } from '../../src/chain/constants.js';
import { blockChecksum, encodeBlockHeader, txIdRoot } from '../../src/chain/block.js';
import { sha3_512sq } from '../../src/core/hash.js';

const fakeVerify = (c: PowClaim): boolean => c.nonce[0] === 0x42;
const GOOD = Uint8Array.of(0x42, 1, 2, 3);
const BAD = Uint8Array.of(0x41, 1, 2, 3);

describe('claim data (§8.10 v7)', () => {
  it('round-trips varint(blockNum) ‖ varint(len) ‖ nonce; refuses bad lengths and trailing bytes', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.uint8Array({ minLength: 1, maxLength: 64 }), (blockNum, nonce) => {
      const back = decodeClaimData(encodeClaimData({ blockNum, nonce }));
      expect(back.blockNum).toBe(blockNum);
      expect(toHex(back.nonce)).toBe(toHex(nonce));
    }));
    expect(toHex(encodeClaimData({ blockNum: 5n, nonce: Uint8Array.of(0xab, 0xcd) }))).toBe('0502abcd');
    expect(() => encodeClaimData({ blockNum: 1n, nonce: new Uint8Array(65) })).toThrow(ClaimDataError);
    expect(() => decodeClaimData(undefined)).toThrow(/no solution data/);
    expect(() => decodeClaimData(Uint8Array.of(5, 0))).toThrow(/0 bytes/);
    expect(() => decodeClaimData(Uint8Array.of(5, 2, 1, 2, 3))).toThrow(/does not end/);
    expect(() => decodeClaimData(Uint8Array.of(5, 2, 1))).toThrow(ClaimDataError);
  });
});

describe('reward (§11.3)', () => {
  it('grows with the block number, then is fixed, then 2304 IXI, then 0', () => {
    expect(miningReward(1n)).toBe(((9n + 9n) / 2n + 10_000n) * 100_000n);
    expect(miningReward(2n)).toBe(((18n + 9n) / 2n + 10_000n) * 100_000n);
    expect(miningReward(1_051_199n)).toBe(((1_051_199n * 9n + 9n) / 2n + 10_000n) * 100_000n);
    expect(miningReward(1_051_200n)).toBe(((1_051_200n * 9n) / 2n + 10_000n) * 100_000n);
    expect(miningReward(1_801_999n)).toBe(miningReward(1_051_200n));
    expect(miningReward(1_802_000n)).toBe(2304n * COIN);
    expect(miningReward(ARGON2_EXPIRATION_BLOCK_HEIGHT - 1n)).toBe(2304n * COIN);
    expect(miningReward(ARGON2_EXPIRATION_BLOCK_HEIGHT)).toBe(0n);
  });

  it('the claim window is the redacted window minus 100 blocks', () => {
    expect(CLAIM_WINDOW).toBe(9_900n);
    expect(lowestClaimable(5n)).toBe(1n);
    expect(lowestClaimable(9_900n)).toBe(1n);
    expect(lowestClaimable(20_000n)).toBe(10_100n);
  });
});

/** A short reward maturity (a devnet genesis may shorten the reference's 960). */
const MATURITY = 3n;

describe('claims on a chain (mining chain extension)', () => {
  let t: TestChain;
  let mining: Mining;
  let other: WalletKey;
  beforeAll(async () => {
    other = new WalletKey({ privateKey: (await generateWalletKey()).privateKey, nonces: [] });
  }, 60_000);
  beforeEach(async () => {
    t = await openTestChain((_, wallet) => [createMiningExtension({ verify: fakeVerify, rewardMaturity: MATURITY }), createAddressIndex(wallet)]);
    mining = new Mining(t.chain, (a) => t.wallet.keys.some((k) => k.nonceOf(a) !== null), t.events, systemClock);
    await commitBlock(t, []);
    await commitBlock(t, []);
  });
  afterEach(async () => {
    await t.close();
  });
  const claim = (blockNum: bigint, nonce: Uint8Array, key: WalletKey = t.wallet.primary) => buildClaim(t.chain, 'reg', key, { blockNum, nonce }, Date.now());
  /** Empty blocks up to height `h`. */
  const commitUpTo = async (h: bigint): Promise<void> => {
    while (t.chain.height < h) await commitBlock(t, []);
  };

  it('a valid claim applies: PoW field set to its id, counted as solved, nothing paid in its block; block claim + rewardMaturity pays the reward, minted', async () => {
    const me = t.wallet.primary.primary;
    const before = t.chain.wallet(me).balance;
    const supplyBefore = t.chain.supply();
    const k = claim(2n, GOOD);
    expect(k.tx.type).toBe(1);
    expect(k.tx.outputs[0]!.amount).toBe(0n);
    expect(await admitReasons(t, [k])).toEqual([null]);
    const { applied } = await commitBlock(t, [k]);
    const claimBlock = t.chain.height;
    expect(applied.map((a) => a.textId)).toEqual([k.textId]);
    expect(toHex(powFieldOf(t.store, 2n)!)).toBe(toHex(binaryTransactionId(k.tx, k.checksum)));
    expect(countSolved(t.store, 1n, t.chain.height)).toBe(1);
    // Not paid in its block, nor before block claimBlock + rewardMaturity.
    await commitUpTo(claimBlock + MATURITY - 1n);
    expect(t.chain.wallet(me).balance).toBe(before);
    expect(t.chain.supply()).toBe(supplyBefore);
    expect(claimPayout(t.store, k.id)).toBeNull();
    const activity = new ActivityIndex(t.chain, t.mempool, t.wallet, t.events);
    // Before the payment the record shows the block's full reward (the reference's value on admission).
    expect(activity.query({ fromIndex: 0, count: 10, type: 200, descending: true })).toMatchObject([
      { type: 200, status: 2, value: '10.01300000', txid: k.textId, blockHeight: Number(claimBlock) },
    ]);
    await commitBlock(t, []);
    expect(t.chain.height).toBe(claimBlock + MATURITY);
    expect(t.chain.wallet(me).balance - before).toBe(miningReward(2n));
    expect(t.chain.supply() - supplyBefore).toBe(miningReward(2n));
    expect(claimPayout(t.store, k.id)).toBe(miningReward(2n));
    const s = mining.minerStats();
    expect(s['Solved Blocks (Local)']).toBe(1);
    expect(s['Solved Blocks (Network)']).toBe(1);
    expect(s['Empty Blocks']).toBe(Number(t.chain.height) - 1);
    expect(s['Last Solved Block']).toBe(2n);
    expect(s['Last Solved Block Time']).toMatch(/^(\d+ seconds|one second) ago$/);
    // The activity shows the mining reward, in the claim's block.
    expect(activity.query({ fromIndex: 0, count: 10, type: 200, descending: true })).toMatchObject([
      { type: 200, status: 2, value: '10.01300000', txid: k.textId, blockHeight: Number(claimBlock) },
    ]);
  });

  it('distinct solutions (solver, nonce) for one block in one block share its reward, rounded down; the same solution twice is refused; a later block\'s claim for it is refused', async () => {
    const me = t.wallet.primary.primary;
    const before = { me: t.chain.wallet(me).balance, other: t.chain.wallet(other.primary).balance, supply: t.chain.supply() };
    const a = claim(2n, GOOD);
    const b = claim(2n, GOOD, other); // the same nonce by another solver: another solution
    const dup = claim(2n, GOOD); // a's solution again, in another transaction
    expect(dup.textId).not.toBe(a.textId);
    const c = claim(2n, Uint8Array.of(0x42, 7)); // the same solver with another nonce: another solution
    const { applied, rejected } = await commitBlock(t, [a, b, dup, c]);
    const claimBlock = t.chain.height;
    expect(applied.map((x) => x.textId)).toEqual([a.textId, b.textId, c.textId]);
    expect(rejected.map((r) => r.reason)).toEqual(['the same solution (solver and nonce) for block 2 is already in this block']);
    expect(toHex(powFieldOf(t.store, 2n)!)).toBe(toHex(a.id));
    expect(countSolved(t.store, 1n, t.chain.height)).toBe(1);
    expect(claimsIn(t.store, claimBlock).map((x) => [x.target, toHex(x.solver), toHex(x.txid)])).toEqual(
      [a, b, c].map((k) => [2n, toHex(k === b ? other.primary : me), toHex(k.id)]),
    );
    expect(await admitReasons(t, [claim(2n, Uint8Array.of(0x42, 9))])).toEqual(['block 2 is already solved: its PoW field is set']);
    await commitUpTo(claimBlock + MATURITY - 1n);
    expect(t.chain.wallet(me).balance).toBe(before.me);
    await commitBlock(t, []);
    // 1 001 300 000 raw units in three: 333 766 666 each, the remaining 2 never created.
    const share = miningReward(2n) / 3n;
    expect(share).toBe(333_766_666n);
    expect(t.chain.wallet(me).balance - before.me).toBe(2n * share);
    expect(t.chain.wallet(other.primary).balance - before.other).toBe(share);
    expect(t.chain.supply() - before.supply).toBe(3n * share);
    const activity = new ActivityIndex(t.chain, t.mempool, t.wallet, t.events);
    expect(activity.query({ fromIndex: 0, count: 10, type: 200, descending: true }).map((r) => [r.txid, r.value])).toEqual([
      [c.textId, '3.33766666'],
      [a.textId, '3.33766666'],
    ]);
  });

  it('a claim changes no wallet in its block (v10+): no public key stored, no wallet created for the solver, its source or InfiniMine', async () => {
    const before = { checksum: toHex(t.chain.walletStateChecksum()), count: t.chain.walletCount() };
    expect(t.chain.wallet(other.primary).publicKey).toBeNull();
    const k = claim(2n, GOOD, other);
    expect(await admitReasons(t, [k])).toEqual([null]);
    const { applied } = await commitBlock(t, [k]);
    expect(applied.map((x) => x.textId)).toEqual([k.textId]);
    expect(toHex(t.chain.walletStateChecksum())).toBe(before.checksum);
    expect(t.chain.walletCount()).toBe(before.count);
    expect(t.chain.wallet(other.primary).publicKey).toBeNull();
    // Paid later: the payment creates the solver's wallet, with its balance and no key (the reference's setWalletBalance).
    await commitUpTo(t.chain.height + MATURITY);
    expect(t.chain.walletCount()).toBe(before.count + 1);
    expect(t.chain.wallet(other.primary)).toMatchObject({ balance: miningReward(2n), publicKey: null });
  });

  it('the same solution twice in an imported block fails the block', async () => {
    const a = claim(2n, GOOD);
    const dup = claim(2n, GOOD);
    const produced = await t.chain.produceBlock({ candidates: [a], timestamp: BigInt(Math.floor(Date.now() / 1000)), proposer: t.signer.address, signerBits: REG_SIGNER_BITS });
    // The block as a peer would send it: both claims listed, the root and the signature over them.
    produced.block.txIds = [a.id, dup.id];
    produced.block.pitRoot = txIdRoot(produced.block.txIds);
    const checksum = blockChecksum(encodeBlockHeader(produced.block));
    produced.block.signatures = [{ signer: t.signer.address, powSolution: null, signature: await t.signer.sign(sha3_512sq(checksum)) }];
    expect(await codeOf(t.chain.importBlock(produced.block, [a, dup], { source: 'local' }))).toBe('BLOCK_INVALID_TRANSACTION');
    expect(t.chain.height).toBe(3n);
  });

  it('a revert of the paying block takes the payment back; the block made again pays it again', async () => {
    const me = t.wallet.primary.primary;
    const k = claim(2n, GOOD);
    await commitBlock(t, [k]);
    await commitUpTo(t.chain.height + MATURITY - 1n);
    const before = { balance: t.chain.wallet(me).balance, supply: t.chain.supply() };
    await commitBlock(t, []);
    expect(t.chain.wallet(me).balance - before.balance).toBe(miningReward(2n));
    expect(claimPayout(t.store, k.id)).toBe(miningReward(2n));
    await t.chain.revertTip();
    expect(t.chain.wallet(me).balance).toBe(before.balance);
    expect(t.chain.supply()).toBe(before.supply);
    expect(claimPayout(t.store, k.id)).toBeNull();
    await commitBlock(t, []);
    expect(t.chain.wallet(me).balance - before.balance).toBe(miningReward(2n));
  });

  it('refuses a nonce that does not solve, a block not stored, bad data and a wrong output', async () => {
    expect(await admitReasons(t, [claim(2n, BAD)])).toEqual([expect.stringMatching(/^the nonce does not solve block 2 at its difficulty/)]);
    expect(await admitReasons(t, [claim(50n, GOOD)])).toEqual(['claim for block 50, which is not stored (the tip is 3)']);
    // Re-signed variants: another recipient, an amount, no data.
    const variant = (edit: (tx: KnownTx['tx']) => void): KnownTx => {
      const k = claim(2n, GOOD);
      edit(k.tx);
      k.tx.signature = t.wallet.primary.sign(knownTx(k.tx, 'reg').checksum);
      return knownTx(k.tx, 'reg');
    };
    expect(await admitReasons(t, [variant((tx) => (tx.outputs[0]!.address = Address.fromText(STRANGER).addressNoChecksum))])).toEqual([
      'a mining claim pays its one output to the InfiniMine address',
    ]);
    expect(await admitReasons(t, [variant((tx) => delete tx.outputs[0]!.data)])).toEqual(['a mining claim carries no solution data in its first output']);
    expect(await admitReasons(t, [variant((tx) => tx.outputs.push({ address: Address.fromText(STRANGER).addressNoChecksum, amount: COIN }))])).toEqual([
      expect.stringMatching(/exactly one output|exceed/),
    ]);
  });

  it('the real Argon2 verification refuses a random nonce', async () => {
    const real = await openTestChain([createMiningExtension({ verify: (c) => powVerify(c) })]);
    try {
      await commitBlock(real, []);
      const k = buildClaim(real.chain, 'reg', real.wallet.primary, { blockNum: 1n, nonce: GOOD }, Date.now());
      expect(await admitReasons(real, [k])).toEqual([expect.stringMatching(/^the nonce does not solve block 1/)]);
    } finally {
      await real.close();
    }
  });
});

describe('forged claims cost no Argon2 on the event loop (signature first, proof of work in the pool)', () => {
  let t: TestChain;
  let inThread = 0;
  let inPool = 0;
  beforeEach(async () => {
    inThread = 0;
    inPool = 0;
    t = await openTestChain([
      createMiningExtension({
        verify: (c) => {
          inThread++;
          return fakeVerify(c);
        },
        verifyInPool: async (claims) => {
          inPool += claims.length;
          return claims.map(fakeVerify);
        },
      }),
    ]);
    await commitBlock(t, []);
    await commitBlock(t, []);
  });
  afterEach(async () => {
    await t.close();
  });
  const claim = (blockNum: bigint, nonce: Uint8Array) => buildClaim(t.chain, 'reg', t.wallet.primary, { blockNum, nonce }, Date.now());
  /** Copies of a claim with another transaction nonce (a distinct id) and a garbage signature. */
  const forged = (k: KnownTx, n: number): KnownTx[] =>
    Array.from({ length: n }, (_, i) => knownTx({ ...k.tx, nonce: i + 1, signature: new Uint8Array(512).fill(i % 251) }, 'reg'));

  it('1000 forged claims (bad signature, bad nonce) are refused for their signature; no Argon2 check runs', async () => {
    const reasons = await admitReasons(t, forged(claim(2n, BAD), 1000));
    expect(new Set(reasons)).toEqual(new Set(['signature does not verify']));
    expect(inThread).toBe(0);
    expect(inPool).toBe(0);
    expect(t.mempool.size).toBe(0);
  });

  it('a signed claim is checked in the pool, once: admission, validate and its block read the verdict', async () => {
    expect(await admitReasons(t, [claim(2n, BAD)])).toEqual([expect.stringMatching(/^the nonce does not solve block 2/)]);
    expect([inPool, inThread]).toEqual([1, 0]);
    const good = claim(2n, GOOD);
    expect(await admitReasons(t, [good])).toEqual([null]);
    expect([inPool, inThread]).toEqual([2, 0]);
    const { applied } = await commitBlock(t, [good]);
    expect(applied.map((k) => k.textId)).toEqual([good.textId]);
    expect([inPool, inThread]).toEqual([2, 0]);
  });

  it('a claim that reaches a block without the pool (a peer\'s block) is checked in the worker pool before the transition', async () => {
    const direct = claim(1n, Uint8Array.of(0x42, 5));
    const { applied } = await commitBlock(t, [direct]);
    expect(applied.map((k) => k.textId)).toEqual([direct.textId]);
    expect([inPool, inThread]).toEqual([1, 0]);
  });

  it('a pool that cannot take the check refuses the claim for now (no Argon2 in the thread)', async () => {
    const busy = await openTestChain([
      createMiningExtension({
        verify: (c) => {
          inThread++;
          return fakeVerify(c);
        },
        verifyInPool: async () => {
          throw new Error('PoW queue full');
        },
      }),
    ]);
    try {
      await commitBlock(busy, []);
      const k = buildClaim(busy.chain, 'reg', busy.wallet.primary, { blockNum: 1n, nonce: GOOD }, Date.now());
      expect(await admitReasons(busy, [k])).toEqual(["the claim's proof of work cannot be checked now (PoW queue full); submit it again later"]);
      expect(inThread).toBe(0);
    } finally {
      await busy.close();
    }
  });
});
