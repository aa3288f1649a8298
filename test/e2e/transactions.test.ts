/**
 * Transactions over a real node process (interface.md "Transactions"; reference-rpc-messaging.md
 * §2.1–§2.5, §2.11): payments in simple and advanced mode, fees, the pool and applied lists, raw
 * transactions, decoding, and every error row these operations produce.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatExtendedAddress, ExtendedAddressFlag } from '../../src/formats/extended-address.js';
import { Address } from '../../src/formats/address.js';
import { formatAmount, parseAmount } from '../../src/formats/amount.js';
import { minimumFee } from '../../src/formats/fees.js';
import { FOUNDATION_ADDRESS } from '../../src/formats/constants.js';
import { expectRpcError, startNode, type NodeProcess } from './harness.js';

let node: NodeProcess;
/** A fresh address of nobody (valid checksum), as recipient. */
const STRANGER = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';
const INVALID_CHECKSUM = STRANGER.slice(0, -1) + (STRANGER.endsWith('r') ? 's' : 'r');

const balanceOf = async (id: string): Promise<bigint> => parseAmount((await node.call('getWallet', { id })).balance);
const expectError = (method: string, params: Record<string, unknown>, code: number, message: string | RegExp, get = false) =>
  expectRpcError(node, method, params, code, message, get);

beforeAll(async () => {
  node = await startNode();
  await node.waitForHeight(2);
});
afterAll(async () => {
  await node?.stop();
});

describe('walk-through: pay, see it pending, see it applied', () => {
  it('moves coins from the node wallet to a new address, with fee to the signer minus the foundation share', async () => {
    const recipient = await node.call<string>('generateNewAddress');
    // Pay from the primary address only: the derived address is the recipient.
    const before = await balanceOf(node.address);
    const foundationBefore = await balanceOf(FOUNDATION_ADDRESS);
    const tx = await node.call('addTransaction', { to: `${recipient}_1234.5` }, { get: true });
    expect(tx).toMatchObject({ version: 7, type: '0', applied: '0', amount: '1234.50000000', to: { [recipient]: '1234.50000000' } });
    expect(Object.keys(tx)).toEqual([
      'id', 'version', 'blockHeight', 'nonce', 'signature', 'pubKey', 'timestamp', 'type', 'amount', 'applied', 'checksum', 'from', 'to', 'fee', 'totalAmount',
    ]);
    expect(tx.id).toBe(`${tx.blockHeight}-${tx.id.split('-')[1]}`);
    expect(tx.from).toEqual({ '1': tx.totalAmount });
    const fee = parseAmount(tx.fee);
    expect(parseAmount(tx.totalAmount)).toBe(parseAmount(tx.amount) + fee);
    const raw = await node.call<string>('createRawTransaction', { to: `${recipient}_1`, sign: true });
    expect(fee).toBeGreaterThanOrEqual(minimumFee(raw.length / 2));

    const pending = await node.call<Record<string, any>>('txu');
    const inPool = pending[tx.id];
    if (inPool) expect(inPool).toEqual(tx); // may already be applied at a fast block interval

    const block = await node.waitApplied(tx.id);
    expect(block).toBeGreaterThan(0);
    expect(await node.call('txu')).not.toHaveProperty(tx.id);
    const recent = await node.call<Record<string, any>>('txa', { count: 50 });
    expect(recent[tx.id]).toMatchObject({ id: tx.id, applied: String(block), checksum: tx.checksum });

    expect(await balanceOf(recipient)).toBe(parseAmount('1234.5'));
    const foundationShare = (fee * 3n) / 100n;
    expect(await balanceOf(FOUNDATION_ADDRESS)).toBe(foundationBefore + foundationShare);
    expect(await balanceOf(node.address)).toBe(before - parseAmount('1234.5') - foundationShare);
    // The wallet state now holds the node's public key (it signed a transaction).
    expect((await node.call('getWallet', { id: node.address })).publicKey).toBe(await node.call('myPubKey'));
  });

  it('sums of all wallets equal the supply (status verbose)', async () => {
    const status = await node.call('status', { verbose: true });
    const wallets = await node.call<Record<string, string>>('myWallet');
    let sum = parseAmount(formatAmount(await balanceOf(FOUNDATION_ADDRESS)));
    for (const v of Object.values(wallets)) sum += parseAmount(v);
    expect(formatAmount(sum)).toBe(status.Supply);
    expect(status.Wallets).toBe(Object.values(wallets).filter((v) => v !== '0.00000000').length + 1);
  });
});

describe('addTransaction modes', () => {
  let derived: string;
  beforeAll(async () => {
    derived = await node.call<string>('generateNewAddress');
    const tx = await node.call('addTransaction', { to: `${derived}_100` });
    await node.waitApplied(tx.id);
  });

  it('advanced mode: from must equal to + fee exactly', async () => {
    const fee = await node.call<string>('calculateTransactionFee', { to: `${STRANGER}_10`, from: `${derived}_20` }).catch((e) => e);
    // from (20) ≠ to (10) + fee: the exact-sum rule.
    expect(String(fee.message)).toMatch(/From amounts \(incl\. fee\) do not match to amounts/);
    const exactFee = await node.call<string>('calculateTransactionFee', { to: `${STRANGER}_10` });
    const from = formatAmount(parseAmount('10') + parseAmount(exactFee));
    const tx = await node.call('addTransaction', { to: `${STRANGER}_10`, from: `${derived}_${from}` });
    expect(tx.fee).toBe(exactFee);
    expect(Object.keys(tx.from)).toHaveLength(1);
    expect(Object.keys(tx.from)[0]).not.toBe('1'); // the derived address' 16-byte nonce
    await node.waitApplied(tx.id);
  });

  it('advanced mode with autofee adds the fee to the first input', async () => {
    const tx = await node.call('addTransaction', { to: `${STRANGER}_5`, from: `${derived}_5`, autofee: true }, { get: true });
    expect(parseAmount(tx.totalAmount)).toBe(parseAmount('5') + parseAmount(tx.fee));
    expect(Object.values(tx.from)).toEqual([tx.totalAmount]);
  });

  it('an explicit fee is paid as given; below the size minimum it is refused', async () => {
    const tx = await node.call('addTransaction', { to: `${STRANGER}_1`, fee: '0.25' });
    expect(tx.fee).toBe('0.25000000');
    await expectError('addTransaction', { to: `${STRANGER}_1`, fee: '0.00000001' }, -32602, /below the minimum fee/);
    await expectError('addTransaction', { to: `${STRANGER}_1`, fee: 'abc' }, -32602, /^Invalid fee was specified/);
  });

  it('pays several recipients, sorted as given, including an extended address whose tag becomes the output data', async () => {
    const tag = Uint8Array.of(0xca, 0xfe);
    const extended = formatExtendedAddress({ address: Address.fromText(STRANGER), flag: ExtendedAddressFlag.OfflineTag, routingAddress: null, tag });
    const tx = await node.call('addTransaction', { to: `${extended}_2-${FOUNDATION_ADDRESS}_3` });
    expect(tx.to).toEqual({ [STRANGER]: '2.00000000', [FOUNDATION_ADDRESS]: '3.00000000' });
    expect(tx.amount).toBe('5.00000000');
    const decoded = await node.call('getTransaction', { id: tx.id });
    expect(decoded.to).toEqual(tx.to);
  });

  it('wallet and primaryAddress select the node key; others are refused', async () => {
    const tx = await node.call('addTransaction', { to: `${STRANGER}_1`, wallet: node.address, primaryAddress: node.address });
    expect(tx.type).toBe('0');
    await expectError('addTransaction', { to: `${STRANGER}_1`, wallet: STRANGER }, -32602, /^Unknown wallet/);
    await expectError('addTransaction', { to: `${STRANGER}_1`, primaryAddress: STRANGER }, -32602, /^Invalid primaryAddress/);
  });
});

describe('error rows of addTransaction and calculateTransactionFee', () => {
  for (const method of ['addTransaction', 'calculateTransactionFee']) {
    it(`${method}: missing, malformed and unfunded parameters`, async () => {
      await expectError(method, {}, -32602, "Parameter 'to' is missing.");
      await expectError(method, {}, -32602, "Parameter 'to' is missing.", true);
      await expectError(method, { to: `${INVALID_CHECKSUM}_1` }, -32602, 'Invalid to address was specified');
      await expectError(method, { to: `${STRANGER}_0` }, -32602, 'Invalid to amount was specified: "0" must be greater than 0');
      await expectError(method, { to: `${STRANGER}_-1` }, -32602, /Invalid to/);
      await expectError(method, { to: `${STRANGER}_x` }, -32602, /^Invalid to amount was specified: invalid amount "x": it contains characters other than digits/);
      // More than 8 decimals are truncated (issue 12, as the reference); one that truncates to 0 is refused.
      await expectError(method, { to: `${STRANGER}_0.000000009` }, -32602, 'Invalid to amount was specified: "0.000000009" must be greater than 0');
      await expectError(method, { to: STRANGER }, -32602, /expected <address>_<amount>/);
      await expectError(method, { to: `${STRANGER}_1-${STRANGER}_2` }, -32602, /Duplicate to address/);
      await expectError(method, { to: `${STRANGER}_1`, from: `${STRANGER}_2` }, -32602, 'Invalid from address was specified');
      await expectError(method, { to: `${STRANGER}_1`, from: `${node.address}_0` }, -32602, 'Invalid from amount was specified: "0" must be greater than 0');
      await expectError(method, { to: `${STRANGER}_100000000` }, -32001, 'Balance is too low');
      await expectError(method, { to: `${STRANGER}_1`, from: `${node.address}_100000001`, autofee: true }, -32001, 'Balance is too low');
    });
  }

  it('calculateTransactionFee returns the fee as a CoinNumber and creates nothing', async () => {
    const before = Object.keys(await node.call('txu', { count: 1000 })).length;
    const fee = await node.call<string>('calculateTransactionFee', { to: `${STRANGER}_1` }, { get: true });
    expect(fee).toMatch(/^\d+\.\d{8}$/);
    expect(parseAmount(fee)).toBeGreaterThanOrEqual(parseAmount('0.005'));
    expect(Object.keys(await node.call('txu', { count: 1000 })).length).toBeLessThanOrEqual(before);
  });

  it('an output below the dust limit is rejected by the pool with the reason', async () => {
    await expectError('addTransaction', { to: `${STRANGER}_0.001` }, -32602, /dust limit/);
  });
});

describe('raw transactions and decoding', () => {
  it('createRawTransaction: unsigned hex, signed hex, JSON; sendRawTransaction submits the signed one', async () => {
    const unsigned = await node.call<string>('createRawTransaction', { to: `${STRANGER}_3` });
    expect(unsigned).toMatch(/^[0-9a-f]+$/);
    const decodedUnsigned = await node.call('decodeRawTransaction', { transaction: unsigned });
    expect(decodedUnsigned).not.toHaveProperty('signature');
    expect((await node.call('decodeTransaction', { transaction: unsigned })).signature).toBeNull();
    await expectError('sendRawTransaction', { transaction: unsigned }, -32602, /not signed/);

    const json = await node.call('createRawTransaction', { to: `${STRANGER}_3`, json: true, sign: true });
    expect(json.signature).toMatch(/^[0-9a-f]{1024}$/);

    const signed = await node.call<string>('createRawTransaction', { to: `${STRANGER}_3`, sign: true });
    const sent = await node.call('sendRawTransaction', { transaction: signed });
    expect(sent).toMatchObject({ to: { [STRANGER]: '3.00000000' }, applied: '0' });
    expect(await node.call('decodeRawTransaction', { transaction: signed })).toEqual(sent);
    await expectError('sendRawTransaction', { transaction: signed }, -32602, /already (pending|applied)/);
    await node.waitApplied(sent.id);
  });

  it('decodeTransaction gives the decoded form', async () => {
    const signed = await node.call<string>('createRawTransaction', { to: `${STRANGER}_3`, sign: true });
    const d = await node.call('decodeTransaction', { transaction: signed }, { get: true });
    expect(d).toMatchObject({ version: 7, type: 0, amount: { amount: 300_000_000 }, applied: 0 });
    expect(d.toList[STRANGER]).toEqual({ amount: { amount: 300_000_000 }, data: null, dataChecksum: null });
    // Inputs are picked smallest balance first: a derived address (16-byte nonce) or the primary ([0x00]).
    for (const key of Object.keys(d.fromList)) expect([1, 16]).toContain(Buffer.from(key, 'base64').length);
    expect(d.pubKey).toMatchObject({ base58Address: node.address, version: 1 });
    expect(Buffer.from(d.checksum, 'base64')).toHaveLength(44);
  });

  it('decoders: transaction parameter is missing; bad hex and bad bytes are -32602', async () => {
    for (const method of ['decodeTransaction', 'decodeRawTransaction', 'sendRawTransaction']) {
      await expectError(method, {}, -32602, 'transaction parameter is missing');
      await expectError(method, {}, -32602, 'transaction parameter is missing', true);
      await expectError(method, { transaction: 'zz' }, -32602, /hex/i);
      // The codec's reason once, not behind a second "invalid transaction:".
      await expectError(method, { transaction: '0700' }, -32602, /^Invalid transaction: (?!invalid transaction)/i);
    }
  });
});

describe('lists and lookups', () => {
  it('txa is newest first and pages with fromIndex/count; txu pages the pool', async () => {
    const all = Object.values(await node.call<Record<string, any>>('txa', { count: 1000 }));
    expect(all.length).toBeGreaterThan(3);
    const applied = all.map((t) => Number(t.applied));
    expect([...applied].sort((a, b) => b - a)).toEqual(applied);
    const page = Object.keys(await node.call('txa', { fromIndex: 1, count: 2 }, { get: true }));
    expect(page).toEqual(all.slice(1, 3).map((t) => t.id));
    expect(await node.call('txa', { count: 0 })).toEqual({});
    expect(Object.keys(await node.call('txa'))).toHaveLength(Math.min(50, all.length));
    // the genesis transaction is the oldest
    expect(all.at(-1)).toMatchObject({ type: '3', applied: '1' });

    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await node.call('addTransaction', { to: `${STRANGER}_1` })).id);
    const pool = Object.keys(await node.call('txu', { count: 1000 }));
    const still = ids.filter((id) => pool.includes(id));
    expect(pool.filter((id) => ids.includes(id))).toEqual(still); // arrival order
    await expectError('txu', { count: -1 }, -32602, /count/);
    await expectError('txa', { fromIndex: 'x' }, -32602, /fromIndex/);
  });

  it('getTransaction/tx find applied and pending transactions; unknown ids are -32602', async () => {
    const tx = await node.call('addTransaction', { to: `${STRANGER}_1` });
    expect((await node.call('getTransaction', { id: tx.id })).checksum).toBe(tx.checksum);
    // ?hex (reference-formats §8.4, an explorer's raw view): the v7 bytes, read back by decodeRawTransaction.
    const hex = await node.call<string>('getTransaction', { id: tx.id, hex: '' }, { get: true });
    expect(hex).toMatch(/^07[0-9a-f]+$/);
    expect(await node.call('decodeRawTransaction', { transaction: hex })).toMatchObject({ id: tx.id, checksum: tx.checksum, signature: tx.signature, to: tx.to });
    const both = await node.call<Record<string, unknown>>('tx', { count: 1000 });
    expect(Object.keys(both).length).toBeGreaterThan(1);
    await expectError('getTransaction', { id: `1-${'1'.repeat(60)}` }, -32602, /./);
    await expectError('getTransaction', { id: 'nope' }, -32602, /^Invalid transaction id/);
    await expectError('getTransaction', {}, -32602, "Parameter 'id' is missing");
  });
});
