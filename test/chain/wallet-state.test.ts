import { describe, expect, it } from 'vitest';
import { StoreCorruptionError } from '../../src/chain/errors.js';
import { decodeWalletState, emptyWallet, encodeWalletState } from '../../src/chain/wallet-state.js';

describe('wallet state codec', () => {
  it('round-trips', () => {
    const w = { ...emptyWallet(), balance: 123_456_789_012_345n, publicKey: new Uint8Array(528).fill(3), extraData: Uint8Array.of(9) };
    expect(decodeWalletState(encodeWalletState(w))).toEqual(w);
    expect(decodeWalletState(encodeWalletState(emptyWallet()))).toEqual(emptyWallet());
  });

  it('reports truncated or trailing bytes as store corruption', () => {
    const bytes = encodeWalletState(emptyWallet());
    expect(() => decodeWalletState(bytes.subarray(0, 2))).toThrow(StoreCorruptionError);
    expect(() => decodeWalletState(Uint8Array.from([...bytes, 0]))).toThrow(StoreCorruptionError);
  });
});
