/**
 * Signing rewards and superblocks on a genesis network (reference-network §5.1, §5.8; formats §8.1
 * type 2, §14, §15.7), on one chain of three masters with a reward maturity of 12 and a superblock
 * period of 20: block n carries first the staking reward of block n − 12, whose outputs reproduce
 * the §15.7 split of the signing reward plus that block's fees over its stored (frozen) row; fees
 * are held back from the proposer and the supply until then; superblocks carry only their staking
 * reward, point at the previous superblock and set the next period's signer bits; a second node
 * rebuilds every staking reward and refuses a block whose staking reward is missing, extra or
 * different, a superblock with a payment or other signer bits; nobody can send a type-2 transaction.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockChecksum, encodeBlockHeader, txIdRoot, type Block } from '../../src/chain/block.js';
import { sha3_512sq } from '../../src/core/hash.js';
import { BlockError, BlockErrorCode, TxErrorCode } from '../../src/chain/errors.js';
import { knownTx, type KnownTx } from '../../src/chain/tx-codec.js';
import { storedEntryDifficulty, parseBlockSignature } from '../../src/consensus/block-signatures.js';
import { buildStakingReward, signingRewardForBlock, splitSigningReward } from '../../src/consensus/rewards.js';
import { compareFreezeOrder } from '../../src/consensus/rules.js';
import { difficultyToBits } from '../../src/consensus/signer-pow.js';
import { ActivityIndex, ActivityType } from '../../src/explorer/activity.js';
import { addressFromText } from '../../src/formats/address.js';
import { equalBytes } from '../../src/formats/bytes.js';
import { TransactionType } from '../../src/formats/constants.js';
import { decodeVarUint } from '../../src/formats/varint.js';
import { decodeWalletState } from '../../src/chain/wallet-state.js';
import { COIN, masterSigners, nextBlock, openGenesisChain, testGenesis, TEST_MIN_SIGNER_DIFFICULTY, type GenesisChain } from './genesis-chain.js';
import type { GenesisSpec } from '../../src/chain/genesis.js';
import type { InlineSignerPow } from '../../src/consensus/inline-signer.js';
import { commitBlock, openTestChain } from '../chain/fixture.js';

const MATURITY = 12n;
const PERIOD = 20n;
const LAST = 42n;
const STRANGER = addressFromText('4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr');
/** Blocks whose bodies carry a payment of the node's wallet (its fee is held for the signers). */
const PAYMENT_BLOCKS = [9n, 21n];

let genesis: GenesisSpec;
let a: GenesisChain;
let signers: InlineSignerPow[];
/** Per block: the supply and the masters' balances before it, and the payment a test queued for it. */
const before = new Map<bigint, { supply: bigint; balances: bigint[]; payment?: KnownTx }>();
const open: GenesisChain[] = [];

const balance = (g: GenesisChain, address: Uint8Array): bigint => g.chain.wallet(address).balance;
const block = (n: bigint): Block => a.chain.getBlock(n)!.block;
const txsOf = (n: bigint): KnownTx[] => a.chain.blockTransactions(block(n));
const stakingOf = (n: bigint): KnownTx | undefined => txsOf(n).find((k) => k.tx.type === TransactionType.StakingReward);

async function codeOf(p: Promise<unknown>): Promise<{ code: string; problem?: unknown }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof BlockError) return { code: err.code, problem: err.context.problem };
    throw err;
  }
  return { code: 'imported' };
}

beforeAll(async () => {
  genesis = await testGenesis({ rewardMaturity: MATURITY, superBlockPeriod: PERIOD });
  a = await openGenesisChain(genesis);
  open.push(a);
  signers = masterSigners(a);
  while (a.chain.height < LAST) {
    const n = a.chain.height + 1n;
    let payment: KnownTx | undefined;
    // A payment queued for a superblock waits in the pool for the next block.
    if (PAYMENT_BLOCKS.includes(n) || n === PERIOD) {
      payment = a.builder.buildSigned({ key: a.wallet.primary, outputs: [{ address: STRANGER, amount: 5n * COIN + n }] });
      expect(await a.mempool.submit(payment)).toBeNull();
    }
    before.set(n, { supply: a.chain.supply(), balances: a.masters.map((m) => balance(a, m)), ...(payment ? { payment } : {}) });
    await nextBlock(a, signers);
  }
}, 240_000);

afterAll(async () => {
  for (const g of open.splice(0)) await g.close();
});

describe('signing rewards (reference-network §5.1, formats §14)', () => {
  it('block n carries first, from block maturity + 2 on, the staking reward of block n − maturity', () => {
    for (let n = 2n; n <= MATURITY + 1n; n++) expect(stakingOf(n)).toBeUndefined();
    for (let n = MATURITY + 2n; n <= LAST; n++) {
      const txs = txsOf(n);
      expect(txs[0]!.tx.type).toBe(TransactionType.StakingReward);
      expect(txs.filter((k) => k.tx.type === TransactionType.StakingReward)).toHaveLength(1);
      expect(decodeVarUint(txs[0]!.tx.outputs[0]!.data!).value).toBe(n - MATURITY);
      // §8.7: stk-<blockHeight − 5>-<blockHeight>-…, blockHeight the tip when it was made
      expect(txs[0]!.textId.startsWith(`stk-${n - 6n}-${n - 1n}-`)).toBe(true);
    }
  });

  it('splits the signing reward plus the rewarded block\'s fees over its stored frozen row as §15.7 does', () => {
    const n = PAYMENT_BLOCKS[0]! + MATURITY;
    const m = n - MATURITY;
    const rewarded = a.chain.getBlock(m)!.block;
    const fee = before.get(m)!.payment!.tx.inputs.reduce((s, i) => s + i.amount, 0n) - before.get(m)!.payment!.tx.outputs.reduce((s, o) => s + o.amount, 0n);
    expect(fee).toBeGreaterThan(0n);
    expect(rewarded.totalFee).toBe(fee);
    // The row is the frozen list: sorted by (difficulty, address), every master once.
    const row = rewarded.signatures.map((sig) => ({
      address: parseBlockSignature(sig).address,
      difficulty: storedEntryDifficulty(sig, rewarded, (k) => a.chain.getBlock(k)?.checksum)!,
    }));
    expect(row).toHaveLength(3);
    expect([...row].sort(compareFreezeOrder)).toEqual(row);
    for (const r of row) expect(r.difficulty).toBeGreaterThanOrEqual(TEST_MIN_SIGNER_DIFFICULTY);
    const total = signingRewardForBlock(m, before.get(n)!.supply) + fee;
    expect(total).toBeGreaterThan(fee);
    const awards = splitSigningReward(total, row.map((r) => r.difficulty))!;
    expect(awards.reduce((s, x) => s + x, 0n)).toBe(total);
    const stk = stakingOf(n)!;
    expect(stk.tx.outputs.map((o) => [Buffer.from(o.address).toString('hex'), o.amount])).toEqual(row.map((r, i) => [Buffer.from(r.address).toString('hex'), awards[i]]));
    // The same transaction as the §15.7 builder makes from these numbers (the binary id covers it).
    const rebuilt = buildStakingReward({ targetBlockNum: m, tipHeight: n - 1n, timestamp: block(n).timestamp, totalSupply: before.get(n)!.supply, targetTotalFee: fee, signers: row }, 'reg')!;
    expect(Buffer.from(rebuilt.binaryId).equals(Buffer.from(stk.id))).toBe(true);
  });

  it('holds a block\'s fees back from its proposer and the supply, and pays them with the reward: the supply is the sum of the balances', () => {
    const m = PAYMENT_BLOCKS[0]!;
    const pay = before.get(m)!.payment!;
    const fee = block(m).totalFee;
    const spent = pay.tx.inputs.reduce((s, i) => s + i.amount, 0n);
    // Block m: the sender (master 1, also the proposer) pays amount + fee and gets no fee back.
    const after = before.get(m + 1n)!;
    expect(after.balances[0]! - before.get(m)!.balances[0]!).toBe(-spent);
    expect(after.supply).toBe(before.get(m)!.supply - fee);
    for (let n = MATURITY + 2n; n < LAST; n++) {
      const stk = stakingOf(n)!;
      const paid = stk.tx.outputs.reduce((s, o) => s + o.amount, 0n);
      const next = before.get(n + 1n)!;
      const heldBack = block(n).totalFee;
      expect(next.supply - before.get(n)!.supply).toBe(paid - heldBack);
      // Each master receives exactly its output (the payment blocks apart, which also move master 1's coins).
      if (block(n).txIds.length === 1) {
        a.masters.forEach((address, i) => {
          const out = stk.tx.outputs.find((o) => equalBytes(o.address, address))?.amount ?? 0n;
          expect(next.balances[i]! - before.get(n)!.balances[i]!).toBe(out);
        });
      }
    }
    // The rewarded block's fee comes back in the reward of block m + maturity.
    const rewardOfM = stakingOf(m + MATURITY)!.tx.outputs.reduce((s, o) => s + o.amount, 0n);
    expect(rewardOfM).toBe(signingRewardForBlock(m, before.get(m + MATURITY)!.supply) + fee);
    let walletSum = 0n;
    for (const { value } of a.store.db('wallets').getRange({ snapshot: false })) walletSum += decodeWalletState(value as Uint8Array).balance;
    expect(walletSum).toBe(a.chain.supply());
  });

  it('shows the outputs to the node\'s wallet as signing rewards (201) in activity, and no fee rewards (202)', () => {
    const activity = new ActivityIndex(a.chain, a.mempool, a.wallet, a.events, { proposerFees: false });
    const records = activity.query({ fromIndex: 0, count: 1000, type: -1, descending: true });
    const signing = records.filter((r) => r.type === ActivityType.SigningReward);
    expect(signing).toHaveLength(Number(LAST - MATURITY - 1n));
    const newest = stakingOf(LAST)!;
    const mine = newest.tx.outputs.find((o) => equalBytes(o.address, a.masters[0]!))!;
    expect(signing[0]).toMatchObject({ blockHeight: Number(LAST), txid: newest.textId, from: '' });
    expect(BigInt(signing[0]!.value.replace('.', ''))).toBe(mine.amount);
    expect(records.filter((r) => r.type === ActivityType.TxFeeReward)).toHaveLength(0);
  });
});

describe('superblocks (reference-network §5.8)', () => {
  it('every period-th block points at the previous superblock and lists the blocks since; the first points at block 1', () => {
    const first = block(PERIOD).superBlock!;
    expect(first.lastSuperBlockNum).toBe(1n);
    expect(Buffer.from(first.lastSuperBlockChecksum!).equals(Buffer.from(a.chain.getBlock(1n)!.checksum))).toBe(true);
    expect(first.segments.map((s) => Buffer.from(s).toString('hex'))).toEqual(Array.from({ length: Number(PERIOD) - 1 }, (_, i) => Buffer.from(a.chain.getBlock(BigInt(i + 1))!.checksum).toString('hex')));
    const second = block(2n * PERIOD).superBlock!;
    expect(second.lastSuperBlockNum).toBe(PERIOD);
    expect(Buffer.from(second.lastSuperBlockChecksum!).equals(Buffer.from(a.chain.getBlock(PERIOD)!.checksum))).toBe(true);
    expect(second.segments).toHaveLength(Number(PERIOD) - 1);
    for (let n = 2n; n <= LAST; n++) expect(block(n).superBlock !== undefined).toBe(n % PERIOD === 0n);
  });

  it('a superblock carries only its staking reward: the pending payment waits for the next block', () => {
    expect(txsOf(PERIOD).map((k) => k.tx.type)).toEqual([TransactionType.StakingReward]);
    const waiting = before.get(PERIOD)!.payment!;
    expect(txsOf(PERIOD + 1n).some((k) => equalBytes(k.id, waiting.id))).toBe(true);
  });

  it('sets the signer bits of the next period (the genesis floor within the first 14 days); the acceptance reads them', () => {
    expect(block(1n).signerBits).toBe(0x39ffffffffffffffn);
    expect(block(PERIOD).signerBits).toBe(difficultyToBits(TEST_MIN_SIGNER_DIFFICULTY));
    expect(block(2n * PERIOD).signerBits).toBe(difficultyToBits(TEST_MIN_SIGNER_DIFFICULTY));
    expect(a.acceptance.governingBits(PERIOD - 1n)).toBe(0x39ffffffffffffffn);
    expect(a.acceptance.governingBits(PERIOD + 1n)).toBe(block(PERIOD).signerBits);
  });
});

describe('a second node rebuilds and checks them', () => {
  let b: GenesisChain;
  const bytesOf = (n: bigint) => Uint8Array.from(a.chain.getBlock(n)!.bytes);
  const importUpTo = async (n: bigint) => {
    while (b.chain.height < n) {
      const k = b.chain.height + 1n;
      await b.chain.importBlock(bytesOf(k), txsOf(k), { source: 'sync' });
    }
  };
  /** Block n of `a` with `txs` as its body (txids and their root follow; nothing else changes). */
  const withBody = (n: bigint, txs: KnownTx[]): Block => ({ ...block(n), txIds: txs.map((k) => k.id), pitRoot: txIdRoot(txs.map((k) => k.id)) });

  beforeAll(async () => {
    b = await openGenesisChain(genesis, false);
    open.push(b);
    await b.producer.genesis(0n, genesis);
  });

  it('refuses a superblock with a payment in it, or with other signer bits', async () => {
    await importUpTo(PERIOD - 1n);
    const stk = txsOf(PERIOD)[0]!;
    const payment = before.get(PERIOD)!.payment!;
    expect(await codeOf(b.chain.importBlock(withBody(PERIOD, [stk, payment]), [stk, payment], { source: 'peer' }))).toMatchObject({ code: BlockErrorCode.SuperBlockTransactions });
    expect(await codeOf(b.chain.importBlock({ ...block(PERIOD), signerBits: difficultyToBits(2n * TEST_MIN_SIGNER_DIFFICULTY) }, txsOf(PERIOD), { source: 'peer' }))).toMatchObject({ code: BlockErrorCode.BadHeader });
    await b.chain.importBlock(bytesOf(PERIOD), txsOf(PERIOD), { source: 'peer' });
  });

  it('refuses a block without its staking reward, with another one, or with one where none is due; then takes the real one', async () => {
    const n = PAYMENT_BLOCKS[0]! + MATURITY;
    await importUpTo(n - 1n);
    const [stk, ...rest] = txsOf(n);
    expect(await codeOf(b.chain.importBlock(withBody(n, rest), rest, { source: 'peer' }))).toEqual({ code: BlockErrorCode.StakingReward, problem: 'missing' });
    const other = knownTx({ ...stk!.tx, outputs: stk!.tx.outputs.map((o, i) => ({ ...o, amount: o.amount + (i === 0 ? 1n : i === 1 ? -1n : 0n) })) }, 'reg');
    expect(await codeOf(b.chain.importBlock(withBody(n, [other, ...rest]), [other, ...rest], { source: 'peer' }))).toEqual({ code: BlockErrorCode.StakingReward, problem: 'differs' });
    expect(await codeOf(b.chain.importBlock(withBody(n, [stk!, stk!, ...rest]), [stk!, stk!, ...rest], { source: 'peer' }))).toEqual({ code: BlockErrorCode.StakingReward, problem: 'extra' });
    expect(b.chain.height).toBe(n - 1n);
    await b.chain.importBlock(bytesOf(n), txsOf(n), { source: 'peer' });
    expect(b.chain.height).toBe(n);
  });

  it('refuses a staking reward before maturity', async () => {
    const early = a.chain.getBlock(PAYMENT_BLOCKS[0]! + MATURITY)!;
    const stk = txsOf(early.block.num)[0]!;
    const fresh = await openGenesisChain(genesis);
    open.push(fresh);
    const n = 2n;
    const produced = await fresh.producer.produceUnsigned(BigInt(Math.floor(Date.now() / 1000)));
    const body = [stk, ...produced.txs];
    const forged = { ...produced.block, txIds: body.map((k) => k.id), pitRoot: txIdRoot(body.map((k) => k.id)) };
    expect(await codeOf(fresh.chain.importBlock(forged, body, { source: 'peer' }))).toEqual({ code: BlockErrorCode.StakingReward, problem: 'extra' });
    expect(fresh.chain.height).toBe(n - 1n);
  });

  it('ends on the same chain, balances and supply', async () => {
    await importUpTo(LAST);
    expect(Buffer.from(b.chain.tip!.checksum).equals(Buffer.from(a.chain.tip!.checksum))).toBe(true);
    expect(Buffer.from(b.chain.walletStateChecksum()).equals(Buffer.from(a.chain.walletStateChecksum()))).toBe(true);
    expect(b.chain.supply()).toBe(a.chain.supply());
    for (const m of a.masters) expect(balance(b, m)).toBe(balance(a, m));
  });
});

describe('type 2 from outside', () => {
  it('is refused by admission, from the RPC or a peer, with a sentence naming the rule', async () => {
    // A staking reward as a peer might forge one: to itself, never applied.
    const stk = stakingOf(LAST)!.tx;
    const fromBytes = knownTx({ ...stk, outputs: [{ ...stk.outputs[0]!, address: STRANGER }], inputs: [{ key: Uint8Array.of(0), amount: stk.outputs[0]!.amount }] }, 'reg');
    for (const source of ['rpc', { peer: 'gossip' }] as const) {
      const [err] = await a.mempool.admit([fromBytes], source as never);
      expect(err?.code).toBe(TxErrorCode.Invalid);
      expect(err?.message).toMatch(/staking reward \(type 2\).*never sent/);
    }
    expect(a.mempool.has(fromBytes.id)).toBe(false);
  });
});

describe('the embedded network', () => {
  it('has no staking: a type-2 transaction is left out of a block, and a block carrying one is refused', async () => {
    const t = await openTestChain();
    try {
      const stk = stakingOf(LAST)!;
      const { applied, rejected } = await commitBlock(t, [stk]);
      expect(applied).toHaveLength(0);
      expect(rejected[0]!.reason).toMatch(/staking reward \(type 2\) is only valid as the block's own/);
      const produced = await t.chain.produceBlock({ candidates: [], timestamp: BigInt(Math.floor(Date.now() / 1000)), proposer: t.signer.address, difficulty: 1n, signerBits: 0n });
      const unsigned = { ...produced.block, txIds: [stk.id], pitRoot: txIdRoot([stk.id]) };
      const checksum = blockChecksum(encodeBlockHeader(unsigned));
      const forged = { ...unsigned, signatures: [{ signer: t.signer.address, powSolution: null, signature: await t.signer.sign(sha3_512sq(checksum)) }] };
      expect(await codeOf(t.chain.importBlock(forged, [stk], { source: 'peer' }))).toMatchObject({ code: BlockErrorCode.InvalidTransaction });
    } finally {
      await t.close();
    }
  });
});
