/**
 * Data records of a name (reference-names.md §3.1): (key, ttl, data) plus, in transactions and
 * storage, a checksum. The record's integer slot (`ttl`) carries the `type` of interface.md's
 * `key,type,value` entries (DESIGN.md decision 4).
 *
 *   signed varint key length (1…256) ‖ key ‖ signed varint ttl ‖ IxiBytes(data; null → 00)
 *   [‖ IxiBytes(checksum; null → 00)]
 *
 * checksum = SHA3-512²(the bytes without the checksum); recordSize = their length.
 * In an updateRecord payload: checksum null = add; data null + checksum = delete the record with
 * that checksum; data + checksum = replace it.
 */
import { sha3_512sq } from '../core/hash.js';
import { merkleRoot } from '../formats/merkle.js';
import { MAX_RECORD_KEY_LENGTH } from './params.js';
import { NameCodecError, NameReader, NameWriter } from './reader.js';

export const RECORD_CHECKSUM_LENGTH = 64;

export interface DataRecord {
  /** Record key id: a 64-byte §2.2 hash, or the raw byte `40` ("@") on subname-enabled names. */
  key: Uint8Array;
  /** Signed 32-bit integer slot (reference "TTL"; the RPC's record `type`). */
  ttl: number;
  /** Encrypted value; null = delete marker in transactions. */
  data: Uint8Array | null;
  /** Stored: own checksum. In transactions: null = new record, else the checksum of the record replaced/deleted. */
  checksum: Uint8Array | null;
}

function checkRecord(r: DataRecord): void {
  if (!(r.key instanceof Uint8Array)) throw new TypeError('data record key must be a Uint8Array');
  if (r.key.length < 1 || r.key.length > MAX_RECORD_KEY_LENGTH) {
    throw new RangeError(`data record key: expected 1…${MAX_RECORD_KEY_LENGTH} bytes, got ${r.key.length}`);
  }
  if (!Number.isInteger(r.ttl) || r.ttl < -0x8000_0000 || r.ttl > 0x7fff_ffff) {
    throw new RangeError(`data record ttl/type: expected a signed 32-bit integer, got ${r.ttl}`);
  }
  if (r.data !== null && r.data.length === 0) {
    throw new RangeError('data record data: expected null or at least one byte (an empty value reads back as null)');
  }
  if (r.checksum !== null && r.checksum.length !== RECORD_CHECKSUM_LENGTH) {
    throw new RangeError(`data record checksum: expected ${RECORD_CHECKSUM_LENGTH} bytes, got ${r.checksum.length}`);
  }
}

const writeBody = (w: NameWriter, r: DataRecord): NameWriter =>
  w.ivarint(r.key.length).raw(r.key).ivarint(r.ttl).bytes(r.data);

/** Fields 1–4: the bytes the checksum and the capacity accounting are computed over. */
export function encodeDataRecordBody(r: DataRecord): Uint8Array {
  checkRecord(r);
  return writeBody(new NameWriter(), r).finish();
}

/** The with-checksum form (fields 1–5): transactions, storage and `asBytes`. */
export function encodeDataRecord(r: DataRecord): Uint8Array {
  checkRecord(r);
  return writeBody(new NameWriter(), r).bytes(r.checksum).finish();
}

/** SHA3-512² of the body. */
export const dataRecordChecksum = (r: DataRecord): Uint8Array => sha3_512sq(encodeDataRecordBody(r));

/** Bytes the record counts against the name's capacity (length of the body). */
export const recordSize = (r: DataRecord): number => encodeDataRecordBody(r).length;

/** The record with its own checksum computed (the stored form). */
export const sealDataRecord = (r: DataRecord): DataRecord => ({ ...r, checksum: dataRecordChecksum(r) });

/** Reads fields 1–5 from `reader`. */
export function readDataRecord(reader: NameReader): DataRecord {
  const keyLength = reader.i32('record key length');
  if (keyLength < 1 || keyLength > MAX_RECORD_KEY_LENGTH) {
    throw new NameCodecError(`data record: key length ${keyLength} is outside 1…${MAX_RECORD_KEY_LENGTH}`);
  }
  const key = new Uint8Array(keyLength);
  for (let i = 0; i < keyLength; i++) key[i] = reader.u8('record key');
  const ttl = reader.i32('record ttl');
  const data = reader.bytesOrNull('record data');
  const checksum = reader.bytesOrNull('record checksum', RECORD_CHECKSUM_LENGTH);
  if (checksum !== null && checksum.length !== RECORD_CHECKSUM_LENGTH) {
    throw new NameCodecError(`data record: checksum of ${checksum.length} bytes, expected ${RECORD_CHECKSUM_LENGTH}`);
  }
  return { key, ttl, data, checksum };
}

/**
 * Decodes one with-checksum record occupying all of `bytes`.
 * @throws NameCodecError for truncated or trailing bytes and out-of-range fields
 */
export function decodeDataRecord(bytes: Uint8Array): DataRecord {
  const reader = new NameReader(bytes, 'data record');
  const r = readDataRecord(reader);
  reader.end();
  return r;
}

/** A name's data Merkle root (§3.2 field 11): of its records' checksums, in order; null for none. */
export function dataRecordsRoot(records: readonly DataRecord[]): Uint8Array | null {
  return merkleRoot(records.map((r) => r.checksum!));
}
