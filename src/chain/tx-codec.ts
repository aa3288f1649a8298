/**
 * The chain's view of the transaction codec (src/codec): the few calls the chain, the mempool and
 * the RPC handlers need, and the stored-transaction record of the `transactions` and `pending`
 * sub-databases: u64 BE applied height ‖ u64 BE timestamp ‖ v7 full form (reference-formats §8.4).
 */
import type { Network, Transaction } from '../codec/types.js';
import {
  binaryTransactionId,
  decodeWithCanonical,
  encodeTransaction,
  transactionChecksum,
  transactionId,
} from '../codec/transaction.js';
import { keyProbe } from '../formats/rsa.js';
import { writeU64BE } from '../state/keys.js';
import { StoreCorruptionError } from './errors.js';

const RECORD_HEADER = 16;
/**
 * Longest binary txid (§8.7): prefix byte, varint block height (at most 9 bytes), 44-byte hash. A
 * stored record is always longer (its header and a signed transaction), which tells the two apart.
 */
export const MAX_BINARY_TXID_BYTES = 54;

/**
 * A transaction with what the node computed about it once. Those made here are `Known` instances,
 * whose `textId` is a prototype getter: a spread copy (`{ ...k }`) does not carry it.
 */
export interface KnownTx {
  tx: Transaction;
  /** Full form (§8.4) with signature, applied = 0: what the fee rule measures. */
  bytes: Uint8Array;
  checksum: Uint8Array;
  /** Binary txid (§8.7). */
  id: Uint8Array;
  /** Text txid (§8.7), computed on first read. */
  readonly textId: string;
}

/**
 * A KnownTx whose text id (Base58, the costly part) is computed on first use. A class, so the
 * getter lives once on its prototype: an object literal with a getter made a closure, its context
 * and an accessor pair for every transaction, which the pool keeps alive for its whole wait.
 */
class Known implements KnownTx {
  readonly id: Uint8Array;
  #text: string | undefined = undefined;
  constructor(
    readonly tx: Transaction,
    readonly bytes: Uint8Array,
    readonly checksum: Uint8Array,
  ) {
    this.id = binaryTransactionId(tx, checksum);
  }
  get textId(): string {
    return (this.#text ??= transactionId(this.tx, this.checksum));
  }
}

export function knownTx(tx: Transaction, network: Network, bytes = encodeTransaction(tx)): KnownTx {
  return new Known(tx, bytes, transactionChecksum(tx, network));
}

/** Decodes raw bytes (hex input of the RPC) into a KnownTx; throws the codec's error. */
/** Full public keys seen recently, found by `keyProbe` (a slice of their modulus) and checked in full. */
const INTERNED_KEYS_MAX = 1024;
const internedKeys = new Map<string, Uint8Array>();
/** Full keys are longer than any address form (33/45 bytes without checksum). */
export const MAX_ADDRESS_BYTES = 45;

/**
 * The one object for a full public key: a sender's transactions carry the same ~528 bytes, so the
 * pool holds them once and the per-key memos (signer address, Base58 text) find them by identity.
 */
function internKey(key: Uint8Array | null): Uint8Array | null {
  if (!key || key.length <= MAX_ADDRESS_BYTES) return key;
  const probe = keyProbe(key);
  const known = internedKeys.get(probe);
  if (known && Buffer.compare(known, key) === 0) return known;
  if (known) return key;
  if (internedKeys.size >= INTERNED_KEYS_MAX) internedKeys.delete(internedKeys.keys().next().value!);
  // Its own copy: the decoded key is a view of its transaction's bytes, which it would keep alive.
  const own = new Uint8Array(key);
  internedKeys.set(probe, own);
  return own;
}

export function knownTxFromBytes(bytes: Uint8Array, network: Network): KnownTx {
  // v7 layout forced and applied read as 0, as the reference's raw-transaction RPCs do (§8.4).
  const { tx: d, canonical } = decodeWithCanonical(bytes, network);
  // The plain Transaction (a literal, not an object rest: same shape for every transaction).
  const tx: Transaction = {
    version: d.version,
    type: d.type,
    blockHeight: d.blockHeight,
    inputs: d.inputs,
    outputs: d.outputs,
    nonce: d.nonce,
    pubKey: internKey(d.pubKey),
    signature: d.signature,
    applied: d.applied,
    timestamp: d.timestamp,
  };
  // The canonical full form of the same bytes (what encodeTransaction(tx) gives).
  return new Known(tx, canonical, d.checksum);
}

export function encodeStoredTx(k: KnownTx): Buffer {
  const out = Buffer.allocUnsafe(storedTxLength(k));
  writeStoredTx(out, 0, k);
  return out;
}

/** Bytes of `encodeStoredTx(k)`. */
export const storedTxLength = (k: KnownTx): number => RECORD_HEADER + k.bytes.length;

/** Writes `encodeStoredTx(k)` into `out` at `offset` (records that hold several); returns the next offset. */
export function writeStoredTx(out: Buffer, offset: number, k: KnownTx): number {
  writeU64BE(out, offset, k.tx.applied);
  writeU64BE(out, offset + 8, k.tx.timestamp < 0n ? 0n : k.tx.timestamp);
  out.set(k.bytes, offset + RECORD_HEADER);
  return offset + RECORD_HEADER + k.bytes.length;
}

/** The v7 bytes a stored record holds (`k.bytes` of the transaction it was written from), not decoded. */
export function storedTxBytes(record: Uint8Array): Uint8Array {
  if (record.length <= RECORD_HEADER) throw new StoreCorruptionError(`stored transaction of ${record.length} bytes is too short`);
  return record.subarray(RECORD_HEADER);
}

export function decodeStoredTx(record: Uint8Array, network: Network): KnownTx {
  const bytes = storedTxBytes(record);
  const view = Buffer.from(record.buffer, record.byteOffset, record.byteLength);
  try {
    const k = knownTxFromBytes(bytes, network);
    k.tx.applied = view.readBigUInt64BE(0);
    k.tx.timestamp = view.readBigUInt64BE(8);
    return k;
  } catch (err) {
    throw new StoreCorruptionError(`stored transaction cannot be decoded: ${(err as Error).message}`);
  }
}
