import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { StoreCorruptionError } from '../../src/chain/errors.js';
import { decodeWalletState, emptyWallet, encodeWalletState, type WalletState } from '../../src/chain/wallet-state.js';
import { encodeAmount } from '../../src/formats/amount.js';
import { concatBytes } from '../../src/formats/bytes.js';
import { encodeVarBytes, encodeVarUint } from '../../src/formats/varint.js';

/** The value layout spelled part by part from the wire primitives (the module header's definition). */
const partByPart = (w: WalletState): Uint8Array =>
  concatBytes(
    encodeVarUint(w.type),
    encodeAmount(w.balance),
    encodeVarBytes(w.publicKey),
    encodeVarUint(w.requiredSigs),
    encodeVarUint(w.allowedSigners.length),
    ...w.allowedSigners.map(encodeVarBytes),
    encodeVarBytes(w.extraData),
  );

const wallet: fc.Arbitrary<WalletState> = fc.record({
  type: fc.constantFrom(0, 1),
  balance: fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.constantFrom(0n, 127n, 128n, 255n, 256n, 32767n, 32768n)),
  publicKey: fc.option(fc.uint8Array({ minLength: 1, maxLength: 600 }), { nil: null }),
  requiredSigs: fc.integer({ min: 1, max: 255 }),
  allowedSigners: fc.array(fc.uint8Array({ minLength: 1, maxLength: 300 }), { maxLength: 6 }),
  extraData: fc.option(fc.uint8Array({ minLength: 1, maxLength: 300 }), { nil: null }),
});

describe('wallet state codec', () => {
  it('round-trips', () => {
    const w = { ...emptyWallet(), balance: 123_456_789_012_345n, publicKey: new Uint8Array(528).fill(3), extraData: Uint8Array.of(9) };
    expect(decodeWalletState(encodeWalletState(w))).toEqual(w);
    expect(decodeWalletState(encodeWalletState(emptyWallet()))).toEqual(emptyWallet());
  });

  it('writes exactly the part-by-part layout, and reads it back', () => {
    fc.assert(
      fc.property(wallet, (w) => {
        const bytes = encodeWalletState(w);
        expect(bytes).toEqual(partByPart(w));
        expect(decodeWalletState(bytes)).toEqual(w);
      }),
      { numRuns: 300 },
    );
  });

  it('reports truncated or trailing bytes as store corruption', () => {
    const bytes = encodeWalletState(emptyWallet());
    expect(() => decodeWalletState(bytes.subarray(0, 2))).toThrow(StoreCorruptionError);
    expect(() => decodeWalletState(Uint8Array.from([...bytes, 0]))).toThrow(StoreCorruptionError);
  });
});
