// The string form (§9.2) and the decoded form (§9.3), field by field, on the docs transactions.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeTransaction } from '../../src/codec/transaction.js';
import { toDecodedForm, toStringForm } from '../../src/codec/json.js';
import { encodeBase58 } from '../../src/formats/address.js';
import { toHex } from '../../src/formats/bytes.js';
import { DOCS_KEY_ADDRESS, DOCS_PUBLIC_KEY, TRANSFER_CHECKSUM, TRANSFER_ID, TRANSFER_TO, regNameWith, transferSigned } from './vectors.js';

describe('string form (§9.2)', () => {
  it('the docs transfer, every key in order', () => {
    const tx = decodeTransaction(transferSigned(), 'test');
    const form = toStringForm(tx);
    expect(Object.keys(form)).toEqual([
      'id', 'version', 'blockHeight', 'nonce', 'signature', 'pubKey', 'timestamp', 'type', 'amount',
      'applied', 'checksum', 'from', 'to', 'fee', 'totalAmount',
    ]);
    expect(form).toEqual({
      id: TRANSFER_ID,
      version: 7,
      blockHeight: '11',
      nonce: '313950',
      signature: toHex(tx.signature!),
      pubKey: encodeBase58(DOCS_PUBLIC_KEY),
      timestamp: '0',
      type: '0',
      amount: '500000.00000000',
      applied: '0',
      checksum: TRANSFER_CHECKSUM.test,
      from: { '1': '500000.01000000' },
      to: { [TRANSFER_TO]: '500000.00000000' },
      fee: '0.01000000',
      totalAmount: '500000.01000000',
    });
    // §8.6: the documented base58 of the key starts and ends like this
    expect(form.pubKey!.startsWith('JHgSS7hbUNnYWsXgT')).toBe(true);
    expect(form.pubKey!.endsWith('ohdU2U2j3NFmiMazymoYwi5i2EPPWjtyTRYRN')).toBe(true);
  });

  it('omits signature/pubKey/data when absent; pubKey as an address; data hex of the first output', () => {
    const tx = decodeTransaction(transferSigned(), 'test');
    const bare = toStringForm({ ...tx, signature: null, pubKey: null });
    expect('signature' in bare || 'pubKey' in bare || 'data' in bare).toBe(false);
    const primary = Uint8Array.from(Buffer.from('01bec1923ea08fa066e56ba46557a9b5ecf3da82c484b7010d77a1650e7cdda12e4dd6fe9fbf004331aa46a645', 'hex'));
    expect(toStringForm({ ...tx, pubKey: primary }).pubKey).toBe(DOCS_KEY_ADDRESS);
    const reg = decodeTransaction(regNameWith(Uint8Array.of(1, 2, 0xab)), 'test');
    const form = toStringForm(reg);
    expect(form.data).toBe('0102ab');
    expect(form.to).toEqual({ '125D6XDzTZzQUWsyQZmQZmQZmQZmQZmQZmQZmQZmQZmQb8t25': '50000.00000000' });
    expect(form.type).toBe('4');
    expect(form.id).toBe('403-yjSY9heSFDLcrvu7yXu3jfKkw4xJoe6YpCULZw3zC4FS89YCEseFByShUANt');
  });

  it('computes the checksum for a plain Transaction given the network, else says what is missing', () => {
    const { checksum, ...tx } = decodeTransaction(transferSigned(), 'test');
    expect(toStringForm(tx, { network: 'test' }).checksum).toBe(toHex(checksum));
    expect(() => toStringForm(tx)).toThrow(/options.checksum or options.network/);
  });
});

describe('decoded form (§9.3)', () => {
  it('the docs transfer, as in the §9.3 example', () => {
    const form = toDecodedForm(decodeTransaction(transferSigned(), 'test'));
    expect(Object.keys(form)).toEqual([
      'version', 'id', 'type', 'amount', 'fee', 'fromList', 'toList', 'blockHeight', 'nonce', 'timeStamp',
      'checksum', 'signature', 'pubKey', 'readyToApply', 'applied', 'fromLocalStorage', 'powVerified', 'powSolution',
    ]);
    expect(form.id).toBe('AQvIGyAXSY58g40dLZYMgOLBihApWWgEFN037xQ7zHd9d5axcdhzaD+TQlqR/Q==');
    expect(form.checksum).toBe('yBsgF0mOfIONHS2WDIDiwYoQKVloBBTdN+8UO8x3fXeWsXHYc2g/k0Jakf0=');
    expect(form.fromList).toEqual({ 'AA==': { amount: 50000001000000n } });
    expect(form.toList).toEqual({ [TRANSFER_TO]: { amount: { amount: 50000000000000n }, data: null, dataChecksum: null } });
    expect(form.amount).toEqual({ amount: 50000000000000n });
    expect(form.fee).toEqual({ amount: 1000000n });
    expect(form.pubKey).toEqual({
      version: 1,
      addressWithChecksum: expect.stringMatching(/RqZFYZkO$/),
      base58Address: DOCS_KEY_ADDRESS,
      addressNoChecksum: 'Ab7Bkj6gj6Bm5WukZVeptezz2oLEhLcBDXehZQ583aEuTdb+n78AQzGqRqZF',
      sectorPrefix: 'Jt6PMW//dBOL0g==',
      nonce: null,
      pubKey: Buffer.from(DOCS_PUBLIC_KEY).toString('base64'),
    });
    expect(form).toMatchObject({ version: 7, type: 0, blockHeight: 11n, nonce: 313950, timeStamp: 0n, applied: 0n, readyToApply: 0, powSolution: null });
    expect(form.signature).toHaveLength(684); // base64 of 512 bytes
  });

  it('data present: base64 data and the recomputed sha3_512sqTrunc(data, 32); a PoW solution is parsed', () => {
    const reg = decodeTransaction(regNameWith(Uint8Array.of(1, 2, 3)), 'test');
    const out = Object.values(toDecodedForm(reg).toList)[0]!;
    expect(out.data).toBe('AQID');
    const sha3 = (b: Uint8Array): Buffer => createHash('sha3-512').update(b).digest();
    expect(out.dataChecksum).toBe(sha3(sha3(Uint8Array.of(1, 2, 3))).subarray(0, 32).toString('base64'));
    const pow = { ...reg, type: 1, outputs: [{ ...reg.outputs[0]!, data: Uint8Array.of(0xfc, 0x10, 0x27, 2, 0xaa, 0xbb) }] };
    expect(toDecodedForm(pow).powSolution).toEqual({ blockNum: 10000n, nonce: 'qrs=' });
    expect(toDecodedForm({ ...pow, outputs: [{ ...pow.outputs[0]!, data: Uint8Array.of(1) }] }).powSolution).toBeNull();
  });
});
