/**
 * The two JSON forms of a transaction:
 *  - the "string form" (reference-formats.md §9.2, reference-rpc-messaging.md §2.0, interface.md
 *    "Transaction (string form)"): returned by addTransaction, decodeRawTransaction, txu/txa, name
 *    operations. Numbers as decimal strings (except `version`), amounts as CoinNumber strings.
 *  - the "decoded form" (§9.3, reference-rpc-messaging.md §2.4): returned by decodeTransaction, the
 *    reference's object serialization. Byte arrays as base64, amounts as `{amount: <raw integer>}`.
 *
 * 64-bit values of the decoded form (`blockHeight`, `timeStamp`, `applied`, raw amounts,
 * `powSolution.blockNum`) are bigints: the spec renders them as bare JSON integers that may exceed
 * 2^53, which the RPC envelope's serializer does for bigints. They are never turned into lossy numbers.
 */
import { Address, addressToText, encodeBase58 } from '../formats/address.js';
import { formatAmount } from '../formats/amount.js';
import { toBase64, toHex } from '../formats/bytes.js';
import { AddressError } from '../formats/errors.js';
import { decodeVarUint } from '../formats/varint.js';
import { TransactionType } from '../formats/constants.js';
import { sha3_512sqTrunc, sha512sqTrunc } from '../core/hash.js';
import type { Transaction } from './types.js';
import {
  binaryTransactionId,
  transactionAmounts,
  transactionChecksum,
  transactionId,
  type ChecksumLock,
} from './transaction.js';

export interface JsonFormOptions {
  /** The transaction's checksum; default: its own (a DecodedTransaction), else computed for `network`. */
  checksum?: Uint8Array;
  /** Network (or custom lock) to compute the checksum with when the transaction has none. */
  network?: ChecksumLock;
}

/** Texts a caller already holds (memoized), used as given instead of being computed again. */
export interface StringFormTexts {
  /** The text id (§8.7) of the transaction. */
  id?: string;
  /** The `pubKey` member's text (Base58 of the carried key or address). */
  pubKey?: string;
}

/** §9.2: the string form, keys in the reference's order. Optional keys are left out when absent. */
export interface TransactionStringForm {
  id: string;
  version: number;
  blockHeight: string;
  nonce: string;
  signature?: string;
  pubKey?: string;
  data?: string;
  timestamp: string;
  type: string;
  amount: string;
  applied: string;
  checksum: string;
  from: Record<string, string>;
  to: Record<string, string>;
  fee: string;
  totalAmount: string;
}

type WithChecksum = Transaction & { checksum?: Uint8Array };

function checksumOf(tx: WithChecksum, options: JsonFormOptions): Uint8Array {
  if (options.checksum) return options.checksum;
  if (tx.checksum) return tx.checksum;
  if (options.network === undefined) {
    throw new TypeError('the transaction has no checksum: pass options.checksum or options.network');
  }
  return transactionChecksum(tx, options.network);
}

/** Is `b` an addressNoChecksum (33 bytes v0, 45 bytes v1/v2) rather than a full public key? */
const isAddressNoChecksum = (b: Uint8Array): boolean =>
  (b.length === 33 && b[0] === 0) || (b.length === 45 && (b[0] === 1 || b[0] === 2));

/** The `pubKey` member's text: the caller's, or Base58 of the full key or of the address with checksum. */
const pubKeyText = (pubKey: Uint8Array, options: StringFormTexts): string =>
  options.pubKey ?? (isAddressNoChecksum(pubKey) ? addressToText(pubKey) : encodeBase58(pubKey));

/**
 * The string form (§9.2). `pubKey` is base58 of the full key, or of the signer's address with
 * checksum when the transaction carries only the address; `data` is the first output's data.
 * Note: JSON objects list integer-like keys first, so a `from` key "1" ([0x00]) is always first
 * (the reference node also emits it first, §8.3).
 * @example toStringForm(decodeTransaction(bytes, 'test')).id // "11-284bKK4G…"
 */
export function toStringForm(tx: WithChecksum, options: JsonFormOptions & StringFormTexts = {}): TransactionStringForm {
  const form: Record<string, unknown> = {};
  for (const [key, value] of stringFormMembers(tx, options)) form[key] = Array.isArray(value) ? Object.fromEntries(value) : value;
  return form as unknown as TransactionStringForm;
}

/** A member value of the string form: text, the `version` number, or a `from`/`to` map as pairs. */
type StringFormValue = string | number | [string, string][];

/**
 * The members of the string form (§9.2), in the reference's order: the one definition both
 * {@link toStringForm} and {@link toStringFormJson} render.
 */
function stringFormMembers(tx: WithChecksum, options: JsonFormOptions & StringFormTexts): [keyof TransactionStringForm, StringFormValue][] {
  const checksum = checksumOf(tx, options);
  const { amount, fee, totalAmount } = transactionAmounts(tx);
  const members: [keyof TransactionStringForm, StringFormValue][] = [
    ['id', options.id ?? transactionId(tx, checksum)],
    ['version', tx.version],
    ['blockHeight', tx.blockHeight.toString()],
    ['nonce', String(tx.nonce)],
  ];
  if (tx.signature) members.push(['signature', toHex(tx.signature)]);
  if (tx.pubKey) members.push(['pubKey', pubKeyText(tx.pubKey, options)]);
  const data = tx.outputs[0]?.data;
  if (data) members.push(['data', toHex(data)]);
  members.push(
    ['timestamp', tx.timestamp.toString()],
    ['type', String(tx.type)],
    ['amount', formatAmount(amount)],
    ['applied', tx.applied.toString()],
    ['checksum', toHex(checksum)],
    ['from', tx.inputs.map((i) => [encodeBase58(i.key), formatAmount(i.amount)])],
    ['to', tx.outputs.map((o) => [addressToText(o.address), formatAmount(o.amount)])],
    ['fee', formatAmount(fee)],
    ['totalAmount', formatAmount(totalAmount)],
  );
  return members;
}

/** An object key JSON lists before the others (an array index: canonical decimal below 2^32 − 1). */
const isArrayIndexKey = (k: string): boolean => /^(?:0|[1-9]\d{0,9})$/.test(k) && Number(k) < 0xffff_ffff;

/** Would an object built from these pairs reorder (array-index keys) or merge (repeated keys) them? */
function objectWouldReorder(pairs: [string, string][]): boolean {
  if (pairs.length < 2) return false;
  const keys = new Set<string>();
  for (const [k] of pairs) {
    if (keys.has(k) || isArrayIndexKey(k)) return true;
    keys.add(k);
  }
  return false;
}

/**
 * `JSON.stringify(toStringForm(tx, options))`, written directly as text: no intermediate object and
 * no escaping scan (every member is Base58, hex or decimal text, which JSON needs no escapes for).
 * Maps whose keys an object would reorder or merge take the object path, so the text is identical.
 */
export function toStringFormJson(tx: WithChecksum, options: JsonFormOptions & StringFormTexts = {}): string {
  const members = stringFormMembers(tx, options);
  let out = '';
  for (const [key, value] of members) {
    out += (out === '' ? '{"' : ',"') + key + '":';
    if (typeof value === 'number') out += String(value);
    else if (typeof value === 'string') out += '"' + value + '"';
    else {
      if (objectWouldReorder(value)) return JSON.stringify(toStringForm(tx, options));
      out += '{';
      for (let i = 0; i < value.length; i++) out += (i === 0 ? '"' : ',"') + value[i]![0] + '":"' + value[i]![1] + '"';
      out += '}';
    }
  }
  return out + '}';
}

/** `{amount: <raw integer>}`: the decoded form of a CoinNumber. */
export interface DecodedAmount {
  amount: bigint;
}

/** The Address object of the decoded form (§9.3, reference-rpc-messaging.md §3.3). */
export interface DecodedAddress {
  version: number;
  addressWithChecksum: string;
  base58Address: string;
  addressNoChecksum: string;
  sectorPrefix: string;
  nonce: null;
  pubKey: string | null;
}

export interface DecodedOutput {
  amount: DecodedAmount;
  data: string | null;
  dataChecksum: string | null;
}

/** §9.3: the decoded form, keys in the reference class order. */
export interface TransactionDecodedForm {
  version: number;
  id: string;
  type: number;
  amount: DecodedAmount;
  fee: DecodedAmount;
  fromList: Record<string, DecodedAmount>;
  toList: Record<string, DecodedOutput>;
  blockHeight: bigint;
  nonce: number;
  timeStamp: bigint;
  checksum: string;
  signature: string | null;
  pubKey: DecodedAddress | null;
  readyToApply: number;
  applied: bigint;
  fromLocalStorage: boolean;
  powVerified: boolean;
  powSolution: { blockNum: bigint; nonce: string } | null;
}

const base64OrNull = (b: Uint8Array | null | undefined): string | null => (b && b.length > 0 ? toBase64(b) : null);
/** First version whose data checksums use SHA3 (§2: v7 sha3_512sqTrunc, v<7 sha512sqTrunc). */
const FIRST_SHA3_VERSION = 7;
const DATA_CHECKSUM_LENGTH = 32;

/** The signer as an Address object: from the full key, or the address the transaction carries. */
export function decodedAddress(pubKey: Uint8Array | null): DecodedAddress | null {
  if (!pubKey) return null;
  let address: Address;
  try {
    address = Address.fromBytes(pubKey);
  } catch (e) {
    if (e instanceof AddressError) return null; // neither a key nor an address: nothing to show
    throw e;
  }
  return {
    version: address.version,
    addressWithChecksum: toBase64(address.addressWithChecksum),
    base58Address: address.base58Address,
    addressNoChecksum: toBase64(address.addressNoChecksum),
    sectorPrefix: toBase64(address.sectorPrefix),
    nonce: null,
    pubKey: isAddressNoChecksum(pubKey) ? null : toBase64(pubKey),
  };
}

/** PoW solution data (§8.10, v7): `varint(blockNum) ‖ varint(len) ‖ nonce`; null when malformed. */
function powSolutionOf(tx: Transaction): TransactionDecodedForm['powSolution'] {
  const data = tx.outputs[0]?.data;
  if (tx.type !== TransactionType.PoWSolution || !data || tx.version < FIRST_SHA3_VERSION) return null;
  try {
    const block = decodeVarUint(data, 0);
    const length = decodeVarUint(data, block.next);
    const end = length.next + Number(length.value);
    if (end !== data.length) return null;
    return { blockNum: block.value, nonce: toBase64(data.subarray(length.next, end)) };
  } catch {
    return null;
  }
}

/**
 * The decoded form (§9.3). A present `data` gets its recomputed 32-byte `dataChecksum` (§8.4
 * reader notes); `readyToApply`, `fromLocalStorage`, `powVerified` are a fresh decode's values.
 */
export function toDecodedForm(tx: WithChecksum, options: JsonFormOptions = {}): TransactionDecodedForm {
  const checksum = checksumOf(tx, options);
  const { amount, fee } = transactionAmounts(tx);
  const fromList: Record<string, DecodedAmount> = {};
  for (const input of tx.inputs) fromList[toBase64(input.key)] = { amount: input.amount };
  const toList: Record<string, DecodedOutput> = {};
  const hashData = tx.version >= FIRST_SHA3_VERSION ? sha3_512sqTrunc : sha512sqTrunc;
  for (const output of tx.outputs) {
    const data = output.data?.length ? output.data : null;
    toList[addressToText(output.address)] = {
      amount: { amount: output.amount },
      data: base64OrNull(data),
      dataChecksum: data ? toBase64(hashData(data, DATA_CHECKSUM_LENGTH)) : base64OrNull(output.dataChecksum),
    };
  }
  return {
    version: tx.version,
    id: toBase64(binaryTransactionId(tx, checksum)),
    type: tx.type,
    amount: { amount },
    fee: { amount: fee },
    fromList,
    toList,
    blockHeight: tx.blockHeight,
    nonce: tx.nonce,
    timeStamp: tx.timestamp,
    checksum: toBase64(checksum),
    signature: base64OrNull(tx.signature),
    pubKey: decodedAddress(tx.pubKey),
    readyToApply: 0,
    applied: tx.applied,
    fromLocalStorage: false,
    powVerified: false,
    powSolution: powSolutionOf(tx),
  };
}
