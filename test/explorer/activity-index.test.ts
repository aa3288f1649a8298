/**
 * `activity` reads the per-address index (src/explorer/address-index.ts), written inside each
 * block's write transaction: the records are those of the node's addresses, in the order the
 * reference shows them (pending, then blocks from the tip down: fee reward, then the block's
 * transactions from the last), a query reads no block, a reverted block takes its entries with it,
 * and a store kept before the index existed is indexed when the node opens it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ActivityIndex, lightActivity2, type Activity, type Activity2 } from '../../src/explorer/activity.js';
import type { KnownTx } from '../../src/chain/tx-codec.js';
import { createAddressIndex, indexedBlocks, syncAddressIndex } from '../../src/explorer/address-index.js';
import { addressFromText, addressToText } from '../../src/formats/address.js';
import { COIN, formatAmount } from '../../src/formats/amount.js';
import { FOUNDATION_FEE_PERCENT } from '../../src/formats/constants.js';
import type { NodeWallet } from '../../src/wallet/wallet.js';
import { commitBlock, openTestChain, type TestChain } from '../chain/fixture.js';

const STRANGER = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';
const open: TestChain[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

/** What identifies a record in these tests. */
const brief = (a: Activity) => ({ type: a.type, status: a.status, blockHeight: a.blockHeight, wallet: a.wallet, value: a.value, txid: a.txid });
const feeShare = (fee: bigint) => formatAmount(fee - (fee * BigInt(FOUNDATION_FEE_PERCENT)) / 100n);

/** Genesis; block 2 pays a stranger; block 3 pays an own derived address; block 4 is empty; one payment pending. */
async function history(t: TestChain) {
  const me = t.wallet.primary;
  const pay = (to: Uint8Array, amount: bigint) => t.builder.buildSigned({ key: me, outputs: [{ address: to, amount }] });
  const a = pay(addressFromText(STRANGER), COIN);
  await commitBlock(t, [a]);
  const derived = t.wallet.newAddress();
  const b = pay(derived, 2n * COIN);
  await commitBlock(t, [b]);
  await commitBlock(t, []);
  const c = pay(addressFromText(STRANGER), 3n * COIN);
  expect(await t.mempool.admit([c])).toEqual([null]);
  const genesis = t.chain.blockTransactions(t.chain.getBlock(1n)!.block)[0]!;
  const fee = (n: bigint) => t.chain.getBlock(n)!.block.totalFee;
  const mine = me.primaryText;
  const expected = [
    { type: 101, status: 1, blockHeight: 0, wallet: mine, value: '3.00000000', txid: c.textId },
    { type: 202, status: 2, blockHeight: 3, wallet: mine, value: feeShare(fee(3n)), txid: 'fee-3' },
    { type: 101, status: 2, blockHeight: 3, wallet: mine, value: '2.00000000', txid: b.textId },
    { type: 100, status: 2, blockHeight: 3, wallet: addressToText(derived), value: '2.00000000', txid: b.textId },
    { type: 202, status: 2, blockHeight: 2, wallet: mine, value: feeShare(fee(2n)), txid: 'fee-2' },
    { type: 101, status: 2, blockHeight: 2, wallet: mine, value: '1.00000000', txid: a.textId },
    { type: 100, status: 2, blockHeight: 1, wallet: mine, value: '1000000.00000000', txid: genesis.textId },
  ];
  return { a, b, c, expected, genesis };
}

const withIndex = (_: unknown, wallet: NodeWallet) => [createAddressIndex(wallet)];
const activityOf = (t: TestChain) => new ActivityIndex(t.chain, t.mempool, t.wallet, t.events);
const all = (activity: ActivityIndex, descending = true) => activity.query({ fromIndex: 0, count: 1000, type: -1, descending }).map(brief);

describe('activity from the per-address index', () => {
  it('the records, newest first or oldest first, paged and filtered by type, reading no block', async () => {
    const t = await openTestChain(withIndex);
    open.push(t);
    const { expected } = await history(t);
    const activity = activityOf(t);
    const getBlock = vi.spyOn(t.chain, 'getBlock');
    const blockTransactions = vi.spyOn(t.chain, 'blockTransactions');
    expect(all(activity)).toEqual(expected);
    expect(all(activity, false)).toEqual([...expected].reverse());
    expect(activity.query({ fromIndex: 2, count: 3, type: -1, descending: true }).map(brief)).toEqual(expected.slice(2, 5));
    expect(activity.query({ fromIndex: 1, count: 2, type: 101, descending: true }).map(brief)).toEqual(expected.filter((r) => r.type === 101).slice(1, 3));
    expect(activity.query({ fromIndex: 0, count: 2, type: 100, descending: false }).map(brief)).toEqual(expected.filter((r) => r.type === 100).reverse());
    expect(activity.query({ fromIndex: 0, count: 10, type: 200, descending: true })).toEqual([]);
    expect(activity.query({ fromIndex: 0, count: 10, type: -1, descending: true, key: t.wallet.primary }).map(brief)).toEqual(expected);
    expect(getBlock).not.toHaveBeenCalled();
    expect(blockTransactions).not.toHaveBeenCalled();
    // The index names only the blocks that concern the address: block 4 is not there.
    expect([...indexedBlocks(t.store, [t.wallet.primary.primary], true)].map((b) => b.height)).toEqual([3n, 2n, 1n]);
  });

  it('a reverted block takes its entries back: its payment is pending again, not final', async () => {
    const t = await openTestChain(withIndex);
    open.push(t);
    const { b, c, expected } = await history(t);
    await t.chain.revertTip(); // block 4 (empty)
    await t.chain.revertTip(); // block 3
    expect([...indexedBlocks(t.store, [t.wallet.primary.primary], true)].map((x) => x.height)).toEqual([2n, 1n]);
    await vi.waitFor(() => expect(t.mempool.has(b.id)).toBe(true));
    const records = all(activityOf(t));
    expect(records.filter((r) => r.status === 2)).toEqual(expected.filter((r) => r.blockHeight > 0 && r.blockHeight < 3));
    expect(records.filter((r) => r.status === 1).map((r) => r.txid).sort()).toEqual([b.textId, b.textId, c.textId].sort());
  });

  it('a store kept before the index existed is indexed when opened, its last blocks still revertible; a derived address is followed from then on', async () => {
    let index = false;
    const before = await openTestChain((_, wallet) => (index ? [createAddressIndex(wallet)] : []));
    const { expected } = await history(before);
    expect([...indexedBlocks(before.store, [before.wallet.primary.primary], true)]).toEqual([]);
    index = true;
    const t = await before.reopen();
    open.push(t);
    // The primary and the derived address of the history, both new to the index.
    expect(await syncAddressIndex(t.chain, t.wallet)).toBe(2);
    expect(await syncAddressIndex(t.chain, t.wallet)).toBe(0); // once
    expect(all(activityOf(t)).filter((r) => r.status === 2)).toEqual(expected.filter((r) => r.status === 2));
    await t.chain.revertTip();
    await t.chain.revertTip();
    expect([...indexedBlocks(t.store, [t.wallet.primary.primary], true)].map((x) => x.height)).toEqual([2n, 1n]);
    // An address derived now is followed from the next block on, and is not indexed again on reopening.
    const fresh = t.wallet.newAddress();
    await commitBlock(t, [t.builder.buildSigned({ key: t.wallet.primary, outputs: [{ address: fresh, amount: COIN }] })]);
    expect([...indexedBlocks(t.store, [fresh], true)].map((x) => x.height)).toEqual([t.chain.height]);
    expect(await syncAddressIndex(t.chain, t.wallet)).toBe(0);
  });
});

/** What identifies an activity2 record in these tests. */
const brief2 = (a: Activity2) => ({ id: a.id, type: a.type, status: a.status, value: a.value, fee: a.fee, appliedBlockHeight: a.appliedBlockHeight });
const feeOf = (k: KnownTx) => k.tx.inputs.reduce((s, i) => s + i.amount, 0n) - k.tx.outputs.reduce((s, o) => s + o.amount, 0n);

describe('activity2 from the same walk', () => {
  it("one record per transaction for the wallet: a sent one valued amount + fee less what it pays the wallet itself; fee rewards; fromId paging", async () => {
    const t = await openTestChain(withIndex);
    open.push(t);
    const { a, b, c, genesis } = await history(t);
    const fee = (n: bigint) => t.chain.getBlock(n)!.block.totalFee;
    const key = t.wallet.primary;
    const expected = [
      { id: c.textId, type: 101, status: 1, value: formatAmount(3n * COIN + feeOf(c)), fee: formatAmount(feeOf(c)), appliedBlockHeight: 0 },
      { id: 'fee-3', type: 202, status: 2, value: feeShare(fee(3n)), fee: '0.00000000', appliedBlockHeight: 3 },
      // Paid to the wallet's own derived address: only the fee leaves it (Ixian-Core addTransactionToActivityStorage).
      { id: b.textId, type: 101, status: 2, value: formatAmount(feeOf(b)), fee: formatAmount(feeOf(b)), appliedBlockHeight: 3 },
      { id: 'fee-2', type: 202, status: 2, value: feeShare(fee(2n)), fee: '0.00000000', appliedBlockHeight: 2 },
      { id: a.textId, type: 101, status: 2, value: formatAmount(COIN + feeOf(a)), fee: formatAmount(feeOf(a)), appliedBlockHeight: 2 },
      { id: genesis.textId, type: 100, status: 2, value: '1000000.00000000', fee: '0.00000000', appliedBlockHeight: 1 },
    ];
    const activity = activityOf(t);
    const page = (q: Partial<Parameters<ActivityIndex['query2']>[0]>) => activity.query2({ count: 0, type: -1, descending: true, key, ...q }).map(brief2);
    expect(page({})).toEqual(expected);
    expect(page({ descending: false })).toEqual([...expected].reverse());
    expect(page({ fromId: b.textId, count: 2 })).toEqual(expected.slice(3, 5));
    expect(page({ fromId: b.textId, count: 2, descending: false })).toEqual([expected[1]!, expected[0]!]);
    expect(page({ fromId: 'fee-2', type: 101 })).toEqual([expected[4]!]);
    const derived = activity.query2({ count: 0, type: 101, descending: true, key }).find((r) => r.id === b.textId)!;
    expect(Object.values(derived.toAddressList)).toEqual(['2.00000000']);
    expect(derived.fromAddressList).toEqual({ [key.primaryText]: formatAmount(2n * COIN + feeOf(b)) });
  });

  it('a light node: applied, pending, rejected (refused) and expired transactions', async () => {
    const t = await openTestChain(withIndex);
    open.push(t);
    const { a, b, c } = await history(t);
    const key = t.wallet.primary;
    const txs = [
      { k: a, height: 2n, sent: 1 },
      { k: b, height: 0n, sent: 2, dropped: 'expired: its blockHeight 1 is more than 40 blocks (the redacted window) below the tip 50' },
      { k: c, height: 0n, sent: 3, dropped: 'refused by a master: Balance is too low' },
    ];
    const records = lightActivity2(t.wallet, txs, () => 1234, { count: 0, type: -1, descending: true, key });
    expect(records.map((r) => [r.id, r.status, r.appliedBlockHeight])).toEqual([[c.textId, 5, 0], [b.textId, 3, 0], [a.textId, 2, 2]]);
    // Once applied, the transaction's own time unless the block's is earlier.
    expect(records[2]!.timestamp).toBe(Math.min(Number(a.tx.timestamp) || 1234, 1234));
  });
});
