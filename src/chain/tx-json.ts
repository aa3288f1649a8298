/**
 * The JSON forms of a transaction the chain already knows (reference-formats.md §9.2, §9.3): the
 * codec's forms (src/codec/json.ts) with the checksum the chain computed once, so nothing is hashed
 * twice.
 *
 * The string form renders a carried public key as Base58 of its ~528 bytes, which costs ~2 ms
 * (Base58 is quadratic in the length); the same senders repeat, so that text is memoized here per
 * key and handed to the codec's form, as is the text id the KnownTx memoizes.
 */
import {
  toDecodedForm as decodedForm,
  toStringForm as stringForm,
  toStringFormJson as stringFormJson,
  type StringFormTexts,
  type TransactionDecodedForm,
  type TransactionStringForm,
} from '../codec/json.js';
import { encodeBase58 } from '../formats/address.js';
import { formatAmount } from '../formats/amount.js';
import { latin1Key } from '../formats/bytes.js';
import { MAX_ADDRESS_BYTES, type KnownTx } from './tx-codec.js';

type StringForm = { [K in keyof TransactionStringForm]: TransactionStringForm[K] };

/** Public keys whose Base58 text is kept (the most recent senders). */
const PUBKEY_TEXT_CACHE_SIZE = 1024;
const pubKeyTexts = new Map<string, string>();

/** The same key object (decoded keys are interned, src/chain/tx-codec.ts) needs no content lookup. */
const pubKeyTextsByObject = new WeakMap<Uint8Array, string>();

function pubKeyText(key: Uint8Array): string {
  let text = pubKeyTextsByObject.get(key);
  if (text !== undefined) return text;
  const id = latin1Key(key);
  text = pubKeyTexts.get(id);
  if (text === undefined) {
    text = encodeBase58(key);
    if (pubKeyTexts.size >= PUBKEY_TEXT_CACHE_SIZE) pubKeyTexts.delete(pubKeyTexts.keys().next().value!);
    pubKeyTexts.set(id, text);
  }
  pubKeyTextsByObject.set(key, text);
  return text;
}

/**
 * A transaction without inputs mints its outputs (the Genesis transaction of a block 1 made before
 * it took the reference's shape, src/chain/genesis.ts): nobody paid a fee, yet `fee = Σ inputs −
 * Σ outputs` (reference-formats.md §8.4 reader notes) would show the minted amount as a negative
 * fee. Its forms show fee 0 and `totalAmount` = `amount` instead.
 */
const mints = (k: KnownTx): boolean => k.tx.inputs.length === 0;

/** String form (§9.2) of a known transaction (a plain object type, usable as a JSON record). */
export function toStringForm(k: KnownTx): StringForm {
  const form = stringForm(k.tx, memoizedTexts(k));
  if (mints(k)) {
    form.fee = formatAmount(0n);
    form.totalAmount = form.amount;
  }
  return form;
}

/** `JSON.stringify(toStringForm(k))`, written directly (the result of sendRawTransaction/addTransaction). */
export const toStringFormJson = (k: KnownTx): string => (mints(k) ? JSON.stringify(toStringForm(k)) : stringFormJson(k.tx, memoizedTexts(k)));

/** The checksum and texts the node holds for a known transaction. */
function memoizedTexts(k: KnownTx): StringFormTexts & { checksum: Uint8Array } {
  const key = k.tx.pubKey;
  return { checksum: k.checksum, id: k.textId, pubKey: key && key.length > MAX_ADDRESS_BYTES ? pubKeyText(key) : undefined };
}

/** Decoded form (§9.3) of a known transaction. */
export function toDecodedForm(k: KnownTx): { [K in keyof TransactionDecodedForm]: TransactionDecodedForm[K] } {
  const form = decodedForm(k.tx, { checksum: k.checksum });
  if (mints(k)) form.fee = { amount: 0n };
  return form;
}
