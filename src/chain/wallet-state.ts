/**
 * The state of one wallet address (the `wallets` sub-database value): type, balance, public key,
 * multisig members and extra data, as `getWallet` reports them (reference-rpc-messaging.md §2.6).
 *
 * Value bytes: varint type ‖ IxiNumber balance ‖ IxiBytes(publicKey) ‖ varint requiredSigs ‖
 * varint signerCount ‖ IxiBytes(signer)… ‖ IxiBytes(extraData).
 */
import { decodeAmount, encodeAmount } from '../formats/amount.js';
import { concatBytes } from '../formats/bytes.js';
import { decodeVarBytes, decodeVarUintNumber, encodeVarBytes, encodeVarUint } from '../formats/varint.js';
import { StoreCorruptionError } from './errors.js';

export const WalletType = { Normal: 0, Multisig: 1 } as const;
export const WALLET_TYPE_NAMES: Record<number, string> = { 0: 'Normal', 1: 'Multisig' };
/** Longest public key a wallet stores (reference-formats.md §7.5: keys are 49…1023 bytes). */
const MAX_KEY_LENGTH = 1023;
/** Most allowed signers a multisig wallet holds besides its owner (reference DLT: 250). */
export const MAX_ALLOWED_SIGNERS = 250;
/** Required signatures are one byte in the reference (`Wallet.requiredSigs`). */
const MAX_REQUIRED_SIGS = 255;

export interface WalletState {
  type: number;
  balance: bigint;
  publicKey: Uint8Array | null;
  requiredSigs: number;
  allowedSigners: Uint8Array[];
  extraData: Uint8Array | null;
}

/** The state of an address that never received anything (not an error: reference §2.6). */
export const emptyWallet = (): WalletState => ({
  type: WalletType.Normal,
  balance: 0n,
  publicKey: null,
  requiredSigs: 1,
  allowedSigners: [],
  extraData: null,
});

export function encodeWalletState(w: WalletState): Uint8Array {
  return concatBytes(
    encodeVarUint(w.type),
    encodeAmount(w.balance),
    encodeVarBytes(w.publicKey),
    encodeVarUint(w.requiredSigs),
    encodeVarUint(w.allowedSigners.length),
    ...w.allowedSigners.map(encodeVarBytes),
    encodeVarBytes(w.extraData),
  );
}

export function decodeWalletState(bytes: Uint8Array): WalletState {
  try {
    let d = decodeVarUintNumber(bytes, 0, 255);
    const type = d.value;
    const balance = decodeAmount(bytes, d.next);
    const key = decodeVarBytes(bytes, balance.next, MAX_KEY_LENGTH);
    d = decodeVarUintNumber(bytes, key.next, MAX_REQUIRED_SIGS);
    const requiredSigs = d.value;
    d = decodeVarUintNumber(bytes, d.next, MAX_ALLOWED_SIGNERS);
    const allowedSigners: Uint8Array[] = [];
    let next = d.next;
    for (let i = 0; i < d.value; i++) {
      const s = decodeVarBytes(bytes, next, MAX_KEY_LENGTH);
      if (s.value) allowedSigners.push(s.value);
      next = s.next;
    }
    const extra = decodeVarBytes(bytes, next);
    if (extra.next !== bytes.length) throw new RangeError(`${bytes.length - extra.next} trailing bytes`);
    return { type, balance: balance.value, publicKey: key.value, requiredSigs, allowedSigners, extraData: extra.value };
  } catch (err) {
    throw new StoreCorruptionError(`stored wallet state cannot be decoded: ${(err as Error).message}`);
  }
}
