/**
 * `to`/`from` lists of addTransaction (src/rpc/methods/params.ts `amountList`; interface.md:
 * entries separated by `-`, address and amount by `_`): a `-` after an entry's `_` is a minus sign,
 * refused as a negative amount, while every valid form still parses as before.
 */
import { describe, expect, it } from 'vitest';
import { Address } from '../../src/formats/address.js';
import { ExtendedAddressFlag, formatExtendedAddress } from '../../src/formats/extended-address.js';
import { amountList } from '../../src/rpc/methods/params.js';
import { RpcCode, RpcError } from '../../src/rpc/types.js';

const A = new Address(Uint8Array.of(0, ...new Uint8Array(32).fill(4))).base58Address;
const B = new Address(Uint8Array.of(0, ...new Uint8Array(32).fill(7))).base58Address;
const TAGGED = formatExtendedAddress({ address: new Address(Uint8Array.of(0, ...new Uint8Array(32).fill(9))), flag: ExtendedAddressFlag.OfflineTag, routingAddress: null, tag: Uint8Array.of(1, 2, 3) });

function refusal(text: string, side: 'to' | 'from' = 'to'): RpcError {
  try {
    amountList(text, side);
  } catch (err) {
    if (err instanceof RpcError) return err;
    throw err;
  }
  throw new Error(`${text} was taken`);
}

describe('amountList', () => {
  it('a negative amount is refused as negative (-32602), not as an empty amount', () => {
    for (const [text, side] of [[`${A}_-5`, 'to'], [`${A}_-5-${B}_1`, 'to'], [`${B}_1-${A}_-5`, 'to'], [`${TAGGED}_-0.5`, 'to'], [`${A}_-5`, 'from']] as const) {
      const err = refusal(text, side);
      expect([err.code, err.message], text).toEqual([RpcCode.InvalidParams, `Invalid ${side} amount was specified: invalid amount "${text.endsWith('0.5') ? '-0.5' : '-5'}": negative amounts are not allowed`]);
    }
  });

  it('valid lists parse as before; an amount left out is still "empty"', () => {
    expect(amountList(`${A}_1-${B}_2.5`, 'to').map((e) => [e.address.base58Address, e.amount])).toEqual([[A, 100_000_000n], [B, 250_000_000n]]);
    const tagged = amountList(`${TAGGED}_0.5-${A}_1`, 'to');
    expect(tagged.map((e) => e.amount)).toEqual([50_000_000n, 100_000_000n]);
    expect(tagged[0]!.tag).toEqual(Uint8Array.of(1, 2, 3));
    expect(refusal(`${A}_-${B}_2`).message).toMatch(/^Invalid to amount was specified: invalid amount "": it is empty/);
    expect(refusal(`${A}_0`).message).toBe('Invalid to amount was specified: "0" must be greater than 0');
  });
});
