/**
 * The name system over a real node process (interface.md "Name system"): register → block → read,
 * records, rejected operations that cost nothing, POST-only rules and the exact error texts, and
 * expiry/grace with scaled constants (`--name-month-blocks 4 --name-grace-blocks 3`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAmount } from '../../src/formats/amount.js';
import { FOUNDATION_FEE_PERCENT } from '../../src/formats/constants.js';
import { startNode, type NodeProcess } from './harness.js';

const MONTH = 4;
// Long enough that polling for a height under load cannot overshoot the whole grace period.
const GRACE = 12;
let node: NodeProcess;

const balance = async (): Promise<bigint> => parseAmount((await node.call('getWallet', { id: node.address })).balance);
/** The node's balance and the height it was read at (read again if a block landed in between). */
async function balanceAt(): Promise<{ height: number; balance: bigint }> {
  for (;;) {
    const height = await node.height();
    const b = await balance();
    if ((await node.height()) === height) return { height, balance: b };
  }
}
/** What the node earned as the signer of blocks (from, to]: each totalFee less the foundation share. */
async function signerEarnings(from: number, to: number): Promise<bigint> {
  let sum = 0n;
  for (let num = from + 1; num <= to; num++) {
    const fee = parseAmount((await node.call('getBlock', { num }))['Total fees']);
    sum += fee - (fee * BigInt(FOUNDATION_FEE_PERCENT)) / 100n;
  }
  return sum;
}
const error = async (method: string, params: Record<string, unknown>, get = false) => (await node.rpc(method, params, { get })).error;

beforeAll(async () => {
  node = await startNode({ blockInterval: 0.3, args: ['--name-month-blocks', String(MONTH), '--name-grace-blocks', String(GRACE)] });
  await node.waitForHeight(2);
});
afterAll(async () => {
  await node?.stop();
});

describe('names over RPC', () => {
  it('registers, reads, adds records and reads them back', async () => {
    const tx = await node.call('registerName', { name: 'e2e', registrationTime: 6 * MONTH, capacity: 10 }, { get: true });
    expect(tx).toMatchObject({ type: '4', amount: '30000.00000000', to: { '125D6XDzTZzQUWsyQZmQZmQZmQZmQZmQZmQZmQZmQZmQb8t25': '30000.00000000' } });
    await node.waitApplied(tx.id);
    expect(await node.call('getRegName', { name: 'e2e' })).toMatchObject({ capacity: 10, nextPkHash: node.address, recoveryHash: node.address });
    // reference-names §5.2: the pool's output is credited to no wallet; the supply is the wallets' sum.
    expect(await node.call('getBalance', { address: '125D6XDzTZzQUWsyQZmQZmQZmQZmQZmQZmQZmQZmQZmQb8t25' })).toBe('0.00000000');
    for (let i = 0; i < 5; i++) {
      const before = await node.height();
      const supply = parseAmount(await node.call('supply'));
      const wallets: { balance: string }[] = await node.call('walletList');
      const sum = wallets.reduce((a, w) => a + parseAmount(w.balance), 0n);
      if ((await node.height()) !== before) continue; // a block landed between the two reads
      expect(sum).toBe(supply);
      break;
    }
    const upd = await node.call('updateNameRecord', { name: 'e2e', 'records[]': ['www,1,a, b, c'] });
    expect(upd.amount).toBe('0.00000000');
    await node.waitApplied(upd.id);
    const records = await node.call('getRegNameDataRecords', { name: 'e2e' });
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ type: 1 });
    expect(await node.call('getRegNameDataRecords', { name: 'e2e', asBytes: true })).toEqual([expect.stringMatching(/^40[0-9a-f]+$/)]);
  });
  it('rejects failures before funding: no fee lost, the name unchanged', async () => {
    const before = await balanceAt();
    const name = await node.call('getRegName', { name: 'e2e' });
    expect(await error('registerName', { name: 'e2e', registrationTime: 6 * MONTH, capacity: 10 })).toMatchObject({ code: -32602, message: expect.stringMatching(/already registered/) });
    expect(await error('registerName', { name: 'x1', registrationTime: 6 * MONTH + 1, capacity: 10 })).toMatchObject({ code: -32602, message: expect.stringMatching(new RegExp(`multiple of ${MONTH} blocks`)) });
    expect(await error('registerName', { name: 'x1', registrationTime: 6 * MONTH, capacity: 9 })).toMatchObject({ code: -32602, message: expect.stringMatching(/at least 10 kB/) });
    expect(await error('extendName', { name: 'x1', extensionTime: 6 * MONTH })).toMatchObject({ code: -32602, message: expect.stringMatching(/^Name with 'id' [0-9a-f]+ does not exist\.$/) });
    expect(await error('registerName', { name: 'x2', registrationTime: 24 * MONTH, capacity: 10_000_000 })).toMatchObject({ code: -32001, message: 'Balance is too low' });
    expect(await error('updateNameRecord', { name: 'e2e', 'records[]': ['nope,1,null'] })).toMatchObject({ code: -32602, message: expect.stringMatching(/no record with key/) });
    await node.waitForHeight((await node.height()) + 1);
    // Nothing was paid; the node only earned, as signer, the name reward pool's payouts (§5.5).
    const after = await balanceAt();
    expect(after.balance).toBe(before.balance + (await signerEarnings(before.height, after.height)));
    expect(after.balance).toBeGreaterThan(before.balance);
    expect(await node.call('getRegName', { name: 'e2e' })).toEqual(name);
  });
  it('keeps the error texts and POST-only rules of interface.md', async () => {
    expect(await error('registerName', { registrationTime: 60, capacity: 10 })).toEqual({ code: -32602, message: "Missing parameter 'name'" });
    expect(await error('updateNameRecord', { name: 'e2e' })).toEqual({ code: -32602, message: "Missing parameter 'records[]'" });
    const get = await node.rpc('recoverName', { name: 'e2e' }, { get: true });
    expect(get.status).toBe(405);
    expect(get.error?.code).toBe(-32600);
    expect(await error('getRegNameDataRecords', { name: 'unknown' })).toMatchObject({ code: -32602, message: expect.stringMatching(/^Name with 'id' [0-9a-f]+ does not exist\.$/) });
  });
  it('expires a name after the grace period; then it can be registered again', async () => {
    const tx = await node.call('registerName', { name: 'brief', registrationTime: 6 * MONTH, capacity: 10 });
    await node.waitApplied(tx.id);
    const { expirationBlockHeight } = await node.call('getRegName', { name: 'brief' });
    await node.waitForHeight(Number(expirationBlockHeight) + 1, 60_000);
    expect(await node.call('getRegName', { name: 'brief' })).toBeTruthy(); // grace period
    await node.waitForHeight(Number(expirationBlockHeight) + GRACE + 1, 60_000);
    expect(await error('getRegName', { name: 'brief' })).toMatchObject({ code: -32602 });
    await node.waitApplied((await node.call('registerName', { name: 'brief', registrationTime: 6 * MONTH, capacity: 10 })).id);
  }, 120_000);
});
