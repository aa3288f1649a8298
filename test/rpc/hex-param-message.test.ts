// A hex parameter's refusal names the actual fault: non-hex characters of even length ('zz', as
// `sendAppMessage ... data=zz`) were told to be "an even number of hex digits".
import { describe, expect, it } from 'vitest';
import { coerce } from '../../src/rpc/dispatch.js';
import { RpcError, type ParamDef } from '../../src/rpc/types.js';

const data: ParamDef = { name: 'data', kind: 'hex', description: 'data' };
const message = (value: unknown): string => {
  try {
    coerce(data, value);
  } catch (e) {
    if (e instanceof RpcError) return e.message;
    throw e;
  }
  throw new Error('accepted');
};

describe('hex parameter refusals', () => {
  it('non-hex characters: "must be hex digits"; odd length: "an even number"', () => {
    expect(message('zz')).toBe("Parameter 'data' must be hex digits (0-9, a-f), an even number of them");
    expect(message('0g')).toBe("Parameter 'data' must be hex digits (0-9, a-f), an even number of them");
    expect(message('abc')).toBe("Parameter 'data' must be an even number of hex digits");
    expect(coerce(data, 'aB01')).toEqual(Uint8Array.of(0xab, 0x01));
  });
});
