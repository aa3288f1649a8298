/**
 * `activity2` over a real node process: the 2026 reference's Activity objects (Ixian-Core
 * GenericAPIServer onActivity2, Activity/Activity.cs, Meta/IxianNode.cs
 * addTransactionToActivityStorage), which its web wallet (html/js/ixian.js) calls as
 * `activity2?type=<t>&descending=true` and reads `type`, `value`, `timestamp`, `status`,
 * `fromAddressList` and `toAddressList` from. Received (the genesis credit), sent (with the fee and a
 * payment to the wallet's own second address), the embedded network's fee reward; `fromId`,
 * `count`, `type`, `descending` and `wallet`, and -32602 for bad values.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRpcError, startNode, type NodeProcess } from './harness.js';
import { Address } from '../../src/formats/address.js';
import { formatAmount, parseAmount } from '../../src/formats/amount.js';
import { FOUNDATION_FEE_PERCENT } from '../../src/formats/constants.js';

const STRANGER = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';
/** The reference's ActivityObject members in the order its JSON writes them. */
const MEMBERS = ['id', 'seedHash', 'type', 'timestamp', 'status', 'fromAddressList', 'toAddressList', 'value', 'fee', 'appliedBlockHeight', 'transaction'];

type Record2 = { id: string; type: number; status: number; value: string; fee: string; appliedBlockHeight: number; timestamp: number; seedHash: string; fromAddressList: Record<string, string>; toAddressList: Record<string, string>; transaction: unknown };

let node: NodeProcess;
let own: string;
let tx: { id: string; fee: string; amount: string; timestamp: string };
let block: number;

const list = (params: Record<string, unknown> = {}, get = true) => node.call<Record2[]>('activity2', params, { get });

beforeAll(async () => {
  node = await startNode();
  await node.waitForHeight(3);
  own = await node.call<string>('generateNewAddress');
  tx = await node.call('addTransaction', { to: `${STRANGER}_1.5-${own}_0.25` });
  block = await node.waitApplied(tx.id);
  // A second payment, in a later block: five records to page through.
  const second = await node.call('addTransaction', { to: `${STRANGER}_0.5` });
  await node.waitForHeight((await node.waitApplied(second.id)) + 1);
});
afterAll(async () => {
  await node?.stop();
});

describe('activity2', () => {
  it('a sent payment: the reference members in order; value = amount + fee − the part paid to the wallet itself', async () => {
    const sent = (await list({ type: 101, descending: 'true' })).find((r) => r.id === tx.id)!;
    expect(Object.keys(sent)).toEqual(MEMBERS);
    const fee = parseAmount(tx.fee);
    expect(fee).toBeGreaterThan(0n);
    expect(sent).toEqual({
      id: tx.id,
      // A key wallet's seed hash is its primary address; the reference keeps 16 bytes, written as Base64.
      seedHash: Buffer.from(Address.fromText(node.address).addressNoChecksum.subarray(0, 16)).toString('base64'),
      type: 101,
      timestamp: Number(tx.timestamp),
      status: 2,
      fromAddressList: { [node.address]: formatAmount(parseAmount('1.75') + fee) },
      toAddressList: { [STRANGER]: '1.50000000', [own]: '0.25000000' },
      value: formatAmount(parseAmount('1.5') + fee),
      fee: tx.fee,
      appliedBlockHeight: block,
      transaction: null,
    });
  });

  it('received: the genesis credit is the first record, final at block 1, listing only the wallet\'s own recipients', async () => {
    const [first] = await list({ count: 1 });
    expect(first).toMatchObject({ type: 100, status: 2, appliedBlockHeight: 1, fee: '0.00000000' });
    expect(Object.keys(first!.toAddressList)).toEqual([node.address]);
    expect(first!.value).toBe(first!.toAddressList[node.address]);
  });

  it('the fee reward of the block that applied the payment (embedded network: the proposer takes the fees less 3 %)', async () => {
    const fee = parseAmount(tx.fee);
    const rewards = await list({ type: 202, count: 10000 });
    const reward = rewards.find((r) => r.appliedBlockHeight === block)!;
    const value = formatAmount(fee - (fee * BigInt(FOUNDATION_FEE_PERCENT)) / 100n);
    expect(reward).toMatchObject({ id: `fee-${block}`, type: 202, status: 2, value, fee: '0.00000000', fromAddressList: {}, toAddressList: { [node.address]: value } });
  });

  it('order, paging by fromId, type, count and wallet', async () => {
    const all = await list({ count: 10000 });
    expect(all.map((r) => r.type)).toEqual([100, 101, 202, 101, 202]);
    // Without descending oldest first; exactly 'true' newest first (as ixian.js asks).
    const desc = await list({ count: 10000, descending: 'true' });
    expect(desc).toEqual([...all].reverse());
    expect((await list({ count: 1, descending: 'yes' }))[0]!.id).toBe(all[0]!.id);
    // fromId: the page starts after that record; an id not listed starts from the first.
    expect((await list({ fromId: all[1]!.id, count: 2 })).map((r) => r.id)).toEqual([all[2]!.id, all[3]!.id]);
    expect((await list({ fromId: all[2]!.id, count: 1, descending: 'true' }, false)).map((r) => r.id)).toEqual([all[1]!.id]);
    expect((await list({ fromId: tx.id.replace(/^\d+-/, '999999-'), count: 1 }))[0]!.id).toBe(all[0]!.id);
    // count: 0 is the reference's default 50.
    expect(await list({ count: 0 })).toEqual(all.slice(0, 50));
    expect(await list()).toEqual(all.slice(0, 50));
    // type: one type, or −1 and 0 every type.
    expect((await list({ type: 101, count: 10000 })).map((r) => r.id)).toEqual(all.filter((r) => r.type === 101).map((r) => r.id));
    expect(await list({ type: 0, count: 10000 })).toEqual(all);
    expect(await list({ type: 200 })).toEqual([]);
    // wallet: the main wallet by its primary address is the default.
    expect(await list({ wallet: node.address, count: 10000 })).toEqual(all);
  });

  it('-32602 for bad values', async () => {
    await expectRpcError(node, 'activity2', { count: -1 }, -32602, /count/);
    await expectRpcError(node, 'activity2', { count: 10001 }, -32602, /count/);
    await expectRpcError(node, 'activity2', { type: 'sent' }, -32602, /type/, true);
    await expectRpcError(node, 'activity2', { type: -2 }, -32602, /type/);
    await expectRpcError(node, 'activity2', { fromId: 'nonsense' }, -32602, /^Invalid fromId/, true);
    await expectRpcError(node, 'activity2', { wallet: STRANGER }, -32602, /^Unknown wallet/, true);
  });
});
