import { describe, expect, it } from 'vitest';
import {
  dustLimitApplies,
  estimateFee,
  isFeeExempt,
  mayPayItself,
  minimumFee,
  startedKilobytes,
  transactionAmountProblem,
  transactionPrice,
} from '../../src/formats/fees.js';
import { parseAmount } from '../../src/formats/amount.js';
import { checksumLockBytes, TransactionType, TRANSACTION_DUST_LIMIT } from '../../src/formats/constants.js';
import { toHex } from '../../src/formats/bytes.js';

const coin = (s: string) => parseAmount(s);

describe('size-based fee (§8.9)', () => {
  it('0.005 per started 1000 bytes', () => {
    expect(startedKilobytes(0)).toBe(0);
    expect(minimumFee(1)).toBe(coin('0.005'));
    expect(minimumFee(1000)).toBe(coin('0.005'));
    expect(minimumFee(1001)).toBe(coin('0.01'));
    // the §15.3 docs transfer: 609 bytes unsigned → 609 − 1 + 3 + 512 = 1123 bytes signed
    expect(minimumFee(1123)).toBe(coin('0.01'));
    expect(minimumFee(512_000)).toBe(coin('2.56'));
  });

  it('pre-v10 price and unknown block version', () => {
    expect(transactionPrice()).toBe(coin('0.005'));
    expect(transactionPrice(10)).toBe(coin('0.005'));
    expect(transactionPrice(9)).toBe(coin('0.00005'));
    expect(minimumFee(2500, transactionPrice(9))).toBe(coin('0.00015'));
  });

  it('creation estimate adds 44 + 512 bytes to the unsigned size', () => {
    expect(estimateFee(444)).toBe(coin('0.005')); // 1000 bytes
    expect(estimateFee(445)).toBe(coin('0.01')); // 1001 bytes
    expect(estimateFee(609)).toBe(coin('0.01'));
    expect(estimateFee(445, coin('0.1'))).toBe(coin('0.2'));
  });

  it('checks its arguments', () => {
    expect(() => minimumFee(-1)).toThrow(RangeError);
    expect(() => minimumFee(1.5)).toThrow(RangeError);
    expect(() => minimumFee('10' as unknown as number)).toThrow(TypeError);
    expect(() => minimumFee(10, 5 as unknown as bigint)).toThrow(TypeError);
    expect(() => estimateFee(10, -1n)).toThrow(/must not be negative/);
  });
});

describe('exemptions', () => {
  it('fee exempt: PoW, staking, genesis', () => {
    expect([0, 1, 2, 3, 4, 997].map(isFeeExempt)).toEqual([false, true, true, true, false, false]);
  });
  it('dust: v10+, not PoW, staking, names', () => {
    expect(dustLimitApplies(TransactionType.Normal)).toBe(true);
    expect(dustLimitApplies(TransactionType.Normal, 9)).toBe(false);
    expect(dustLimitApplies(TransactionType.RegName, 13)).toBe(false);
    expect(dustLimitApplies(TransactionType.PoWSolution)).toBe(false);
  });
  it('multisig: 997 pays outputs like a transfer (dust applies); 998 and 999 send 0 to their own wallet', () => {
    expect([997, 998, 999].map((t) => dustLimitApplies(t, 13))).toEqual([true, false, false]);
    expect([0, 4, 997, 998, 999].map(mayPayItself)).toEqual([false, false, false, true, true]);
    expect(transactionAmountProblem({ type: 999, inputs: [{ amount: 500_000n }], outputs: [{ amount: 0n }], signedSize: 900 })).toBeNull();
    expect(transactionAmountProblem({ type: 0, inputs: [{ amount: 500_000n }], outputs: [{ amount: 0n }], signedSize: 900 })).toMatch(/below the dust limit/);
  });
});

describe('transactionAmountProblem (§8.11)', () => {
  const ok = { type: 0, inputs: [{ amount: coin('1.01') }], outputs: [{ amount: coin('1') }], signedSize: 1123 };
  it('accepts a valid transfer', () => {
    expect(transactionAmountProblem(ok)).toBeNull();
  });
  it.each([
    [{ ...ok, inputs: [{ amount: -1n }] }, /input 0 has a negative amount -0.00000001/],
    [{ ...ok, outputs: [{ amount: -1n }] }, /output 0 has a negative amount/],
    [{ ...ok, outputs: [{ amount: coin('2') }] }, /outputs \(2.00000000\) exceed the inputs \(1.01000000\)/],
    [{ ...ok, inputs: [], outputs: [] }, /moves no amount/],
    [{ ...ok, outputs: [{ amount: TRANSACTION_DUST_LIMIT - 1n }] }, /output 0 amount 0.00999999 is below the dust limit 0.01000000/],
    [{ ...ok, inputs: [{ amount: coin('1.005') }] }, /fee 0.00500000 is below the minimum 0.01000000 for 1123 bytes/],
  ])('rejects %#', (tx, message) => {
    expect(transactionAmountProblem(tx)).toMatch(message);
  });
  it('exemptions apply', () => {
    expect(transactionAmountProblem({ type: 1, inputs: [{ amount: 0n }], outputs: [{ amount: 0n }], signedSize: 600 })).toBeNull();
    expect(transactionAmountProblem({ ...ok, type: 4, outputs: [{ amount: 1n }], inputs: [{ amount: 1n + coin('0.01') }] })).toBeNull();
    expect(transactionAmountProblem({ ...ok, version: 0, inputs: [{ amount: coin('1.005') }] })).toBeNull();
    expect(transactionAmountProblem({ ...ok, blockVersion: 9, inputs: [{ amount: coin('1.0001') }], outputs: [{ amount: coin('1') }] })).toBeNull();
  });
});

describe('constants', () => {
  it('checksum locks (§8.5)', () => {
    expect(toHex(checksumLockBytes('main'))).toBe('497869616e');
    expect(toHex(checksumLockBytes('test'))).toBe('49786954657374');
    expect(toHex(checksumLockBytes('reg'))).toBe('497869526567');
    expect(() => checksumLockBytes('dev' as 'main')).toThrow(/unknown network "dev"/);
  });
});
