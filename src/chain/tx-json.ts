/**
 * The JSON forms of a transaction the chain already knows (reference-formats.md §9.2, §9.3): the
 * codec's forms (src/codec/json.ts) with the checksum the chain computed once, so nothing is hashed
 * twice.
 */
import { toDecodedForm as decodedForm, toStringForm as stringForm, type TransactionDecodedForm, type TransactionStringForm } from '../codec/json.js';
import type { KnownTx } from './tx-codec.js';

/** String form (§9.2) of a known transaction (a plain object type, usable as a JSON record). */
export const toStringForm = (k: KnownTx): { [K in keyof TransactionStringForm]: TransactionStringForm[K] } =>
  stringForm(k.tx, { checksum: k.checksum });

/** Decoded form (§9.3) of a known transaction. */
export const toDecodedForm = (k: KnownTx): { [K in keyof TransactionDecodedForm]: TransactionDecodedForm[K] } =>
  decodedForm(k.tx, { checksum: k.checksum });
