/**
 * The state of one wallet address (the `wallets` sub-database value): type, balance, public key,
 * multisig members and extra data, as `getWallet` reports them (reference-rpc-messaging.md §2.6).
 *
 * Value bytes: varint type ‖ IxiNumber balance ‖ IxiBytes(publicKey) ‖ varint requiredSigs ‖
 * varint signerCount ‖ IxiBytes(signer)… ‖ IxiBytes(extraData).
 */
import { amountToBytes, decodeAmount } from '../formats/amount.js';
import { decodeVarBytes, decodeVarUintNumber, varBytesLength, varUintLength, writeVarBytes, writeVarUint } from '../formats/varint.js';
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

/**
 * The value bytes, written into one array: every block writes each wallet it changed, and a
 * part-by-part concatenation made eight small arrays per wallet for the collector.
 */
export function encodeWalletState(w: WalletState): Uint8Array {
  // IxiNumber: the amount's bytes as IxiBytes (never empty: zero is one byte).
  const balance = amountToBytes(w.balance);
  let length = varUintLength(w.type) + varBytesLength(balance) + varBytesLength(w.publicKey);
  length += varUintLength(w.requiredSigs) + varUintLength(w.allowedSigners.length) + varBytesLength(w.extraData);
  for (const s of w.allowedSigners) length += varBytesLength(s);
  const out = new Uint8Array(length);
  let at = writeVarUint(out, 0, w.type);
  at = writeVarBytes(out, at, balance);
  at = writeVarBytes(out, at, w.publicKey);
  at = writeVarUint(out, at, w.requiredSigs);
  at = writeVarUint(out, at, w.allowedSigners.length);
  for (const s of w.allowedSigners) at = writeVarBytes(out, at, s);
  writeVarBytes(out, at, w.extraData);
  return out;
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
