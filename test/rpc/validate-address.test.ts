/**
 * validateAddress takes the extended addresses addTransaction pays (reference-formats §7.6 Δ2026):
 * 'OK' for flag 0, 2 and 3 forms made by the codebase's encoder; a suffix that does not verify is
 * still -32602 'Invalid address was specified'.
 */
import { describe, expect, it } from 'vitest';
import { Address } from '../../src/formats/address.js';
import { ExtendedAddressFlag, formatExtendedAddress } from '../../src/formats/extended-address.js';
import { utilityMethods } from '../../src/rpc/methods/utilities.js';
import { RpcCode, RpcError } from '../../src/rpc/types.js';

const PAY = new Address(Uint8Array.of(0, ...new Uint8Array(32).fill(9)));
const ROUTE = new Address(Uint8Array.of(0, ...new Uint8Array(32).fill(5)));
const TAG = Uint8Array.of(1, 2, 3);

function validate(address: string): unknown {
  const def = utilityMethods.find((m) => m.name === 'validateAddress')! as any;
  try {
    return def.handler({ address }, {});
  } catch (err) {
    return err;
  }
}

describe('validateAddress', () => {
  it("'OK' for a plain address and for extended forms with flag 0, 2 and 3", () => {
    const forms = [
      PAY.base58Address,
      formatExtendedAddress({ address: PAY, flag: ExtendedAddressFlag.Primary, routingAddress: null, tag: TAG }),
      formatExtendedAddress({ address: PAY, flag: ExtendedAddressFlag.OfflineTag, routingAddress: null, tag: TAG }),
      formatExtendedAddress({ address: PAY, flag: ExtendedAddressFlag.OfflineAddress, routingAddress: ROUTE, tag: null }),
    ];
    expect(forms.slice(1).every((f) => f.includes('_'))).toBe(true);
    for (const f of forms) expect(validate(f), f).toBe('OK');
  });

  it('-32602 for an extended form whose suffix does not verify', () => {
    const good = formatExtendedAddress({ address: PAY, flag: ExtendedAddressFlag.OfflineTag, routingAddress: null, tag: TAG });
    const last = good.at(-1) === '2' ? '3' : '2';
    const err = validate(good.slice(0, -1) + last) as RpcError;
    expect(err).toBeInstanceOf(RpcError);
    expect([err.code, err.message]).toEqual([RpcCode.InvalidParams, 'Invalid address was specified']);
  });
});
