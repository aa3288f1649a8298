// The web wallet's money and Base58 helpers (web/app.js, a plain ES module): amounts are BigInt
// counts of 10^-8 coins, never floating point; Base58 matches the node's encoder.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
// @ts-expect-error web/app.js is plain JavaScript without type declarations
import { base58FromHex, coinNumber, formatCoins, parseCoins } from '../../web/app.js';
import { encodeBase58 } from '../../src/formats/base58.js';
import { formatAmount, parseAmount } from '../../src/formats/amount.js';

describe('web wallet amounts', () => {
  it('parses CoinNumber text to 10^-8 units exactly', () => {
    expect(parseCoins('0')).toBe(0n);
    expect(parseCoins('12.5')).toBe(1_250_000_000n);
    expect(parseCoins(' 0.00000001 ')).toBe(1n);
    expect(parseCoins('1000000.00000000')).toBe(100_000_000_000_000n);
    expect(parseCoins('-1000000.00000000')).toBe(-100_000_000_000_000n);
    expect(parseCoins('92233720368.54775807')).toBe(9_223_372_036_854_775_807n);
    // 0.1 + 0.2 in floating point is 0.30000000000000004; here it is exact.
    expect(parseCoins('0.1') + parseCoins('0.2')).toBe(parseCoins('0.3'));
  });

  it('refuses what is not an amount, in words', () => {
    expect(() => parseCoins('1.123456789')).toThrow('An amount has at most 8 decimals; "1.123456789" has 9');
    for (const bad of ['', 'abc', '1e5', '1,000', '.5', '--1', '0x10', 'Infinity', 'NaN']) expect(() => parseCoins(bad), bad).toThrow(/is not an amount/);
  });

  it('writes 8 decimals, grouped for reading and plain for the RPC', () => {
    expect(formatCoins(99_998_749_970_000n)).toBe('999,987.49970000');
    expect(formatCoins(-1_250_000_000n)).toBe('−12.50000000');
    expect(formatCoins(1n)).toBe('0.00000001');
    expect(coinNumber(99_998_749_970_000n)).toBe('999987.49970000');
    expect(coinNumber(-1n)).toBe('-0.00000001');
  });

  it('round-trips and agrees with the node’s own CoinNumber format (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }), (units) => {
        const text = coinNumber(units);
        expect(text).toBe(formatAmount(units));
        expect(parseCoins(text)).toBe(units);
        expect(parseAmount(text)).toBe(units);
        expect(parseCoins(formatCoins(units).replace(/,/g, ''))).toBe(units);
      }),
    );
  });

  it('encodes Base58 as the node does (property, leading zero bytes included)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        expect(base58FromHex(Buffer.from(bytes).toString('hex'))).toBe(encodeBase58(bytes));
      }),
    );
    expect(base58FromHex('zz')).toBe('');
  });
});
