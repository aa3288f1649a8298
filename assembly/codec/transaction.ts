// The v7 transaction codec (reference-formats §8.4): one pass over the wire bytes that validates
// every row, fills the transaction's field-table record (layout.ts) and writes, as it goes, either
// the checksum preimage (lock ‖ checksummed rows, rows 4d/5d excluded, §8.5) or the canonical full
// form. The checksum is sha3_512sqTrunc(preimage, 44) (§8.5), computed here without leaving WASM.

import { sha3_512sqTrunc_into } from '../core/sha3';
import * as E from './errors';
import * as L from './layout';
import {
  beginRead,
  reading,
  cursor,
  remaining,
  failed,
  fail,
  skip,
  errorCode,
  errorOffset,
  errorField,
  errorIndex,
  offsetOf,
  readUnsigned,
  readSigned,
  readSigned32,
  readLength,
  readCount,
  readAmount,
  skipVarint,
  amountPtr,
  amountLength,
  amountValue,
  beginWrite,
  written,
  writeByte,
  writeUnsigned,
  writeSigned,
  writeBytes,
  unsignedSize,
} from './wire';

/** Transaction versions below this carry a timestamp after `applied` (§8.4 row 10). */
const FIRST_V7: u64 = 7;
const NONCE_KEY_LENGTH: i32 = 16; // §7.3
const ADDRESS_V0_LENGTH: i32 = 33; // §7.1
const ADDRESS_V1_LENGTH: i32 = 45;
/** Up to this many entries duplicates are found by comparing with each earlier entry. */
const LINEAR_DEDUP_MAX: i32 = 16;

let lockLength: i32 = 0;

/** A v0 address has 33 bytes, a v1 or v2 address 45 (§7.1); 36/48-byte forms with checksum are refused (§8.4). */
@inline function isAddressNoChecksum(p: usize, len: i32): bool {
  if (len == ADDRESS_V0_LENGTH) return load<u8>(p) == 0;
  if (len == ADDRESS_V1_LENGTH) {
    const version = load<u8>(p);
    return version == 1 || version == 2;
  }
  return false;
}

/** The checksum lock sits at the start of PREIMAGE; JS writes it there and tells its length. */
export function setLockLength(len: i32): void {
  lockLength = len < 0 ? 0 : len > L.MAX_LOCK_SIZE ? L.MAX_LOCK_SIZE : len;
}

@inline function setWord(record: usize, word: i32, v: u32): void {
  store<u32>(record + (<usize>word << 2), v);
}
@inline function getWord(record: usize, word: i32): u32 {
  return load<u32>(record + (<usize>word << 2));
}
@inline function setWide(record: usize, word: i32, v: u64): void {
  store<u64>(record + (<usize>word << 2), v);
}

// ---- duplicate detection (§8.3: duplicate keys make the transaction unparseable) ----
let generation: u32 = 0;

function hashBytes(p: usize, len: i32): u64 {
  let h: u64 = <u64>len * 0x9e3779b97f4a7c15;
  let i: i32 = 0;
  for (; i + 8 <= len; i += 8) {
    h = (h ^ load<u64>(p + <usize>i)) * 0xff51afd7ed558ccd;
    h ^= h >> 32;
  }
  for (; i < len; i++) {
    h = (h ^ <u64>load<u8>(p + <usize>i)) * 0xc4ceb9fe1a85ec53;
    h ^= h >> 29;
  }
  h ^= h >> 33;
  return h;
}

/**
 * Is the byte string (p, len) equal to the key of an earlier entry? Entries are the `count`
 * records from `first` (stride `words`), whose key offset/length sit at words 0/1. Entry `count`
 * is the one being added. Linear scan for short lists, a generation-stamped hash set otherwise.
 */
function isDuplicate(txBase: usize, first: usize, words: i32, count: i32, p: usize, len: i32): bool {
  const stride = <usize>words << 2;
  if (count < LINEAR_DEDUP_MAX) {
    for (let j: i32 = 0; j < count; j++) {
      const r = first + <usize>j * stride;
      if (<i32>getWord(r, 1) == len && memory.compare(txBase + <usize>getWord(r, 0), p, <usize>len) == 0) return true;
    }
    return false;
  }
  if (count == LINEAR_DEDUP_MAX) {
    // switch to the hash set: start a generation and insert the entries seen so far
    generation++;
    if (generation == 0) {
      memory.fill(L.DEDUP_STAMPS, 0, (<usize>1 << L.DEDUP_SLOT_BITS) << 2);
      generation = 1;
    }
    for (let j: i32 = 0; j < count; j++) {
      const r = first + <usize>j * stride;
      insertOrFind(txBase, first, stride, j, txBase + <usize>getWord(r, 0), <i32>getWord(r, 1));
    }
  }
  return insertOrFind(txBase, first, stride, count, p, len);
}

function insertOrFind(txBase: usize, first: usize, stride: usize, entry: i32, p: usize, len: i32): bool {
  const mask: u32 = (1 << L.DEDUP_SLOT_BITS) - 1;
  let slot = <u32>(hashBytes(p, len) >> (64 - L.DEDUP_SLOT_BITS));
  for (;;) {
    const stampAt = L.DEDUP_STAMPS + (<usize>slot << 2);
    const entryAt = L.DEDUP_ENTRIES + (<usize>slot << 2);
    if (load<u32>(stampAt) != generation) {
      store<u32>(stampAt, generation);
      store<u32>(entryAt, <u32>entry);
      return false;
    }
    const r = first + <usize>load<u32>(entryAt) * stride;
    if (<i32>getWord(r, 1) == len && memory.compare(txBase + <usize>getWord(r, 0), p, <usize>len) == 0) return true;
    slot = (slot + 1) & mask;
  }
  return false; // not reached: the set is never full (DEDUP_SLOT_BITS)
}

/** Records the amount just read at words 2–7 of an entry record and writes it canonically. */
function takeAmount(txBase: usize, record: usize): void {
  setWord(record, L.I_AMOUNT_OFFSET, <u32>(amountPtr - txBase));
  setWord(record, L.I_AMOUNT_LENGTH, <u32>amountLength);
  const fits = amountLength <= 8;
  setWord(record, L.I_AMOUNT_FITS, fits ? 1 : 0);
  setWide(record, L.I_AMOUNT_VALUE, fits ? <u64>amountValue : 0);
  writeBytes(amountPtr, amountLength);
}

/**
 * Parses the transaction of `len` bytes at `txBase` into the table record at `record`, writing at
 * `outPtr` the canonical checksummed rows (`full` = false) or the canonical full form (`full` =
 * true; `applied` included when `withApplied`). Returns the address after the last byte written;
 * on error the record's H_STATUS is non-zero and the output is meaningless.
 * Returns the address of the next free table record.
 */
function parse(txBase: usize, len: i32, record: usize, outPtr: usize, full: bool, withApplied: bool): usize {
  beginRead(txBase, len);
  beginWrite(outPtr);
  let next = record + (<usize>L.HEADER_WORDS << 2);
  if (len > L.MAX_TX_SIZE) fail(E.ERR_OVERSIZED, txBase);

  let version: u64 = 0;
  let inputCount: i32 = 0;
  let outputCount: i32 = 0;
  let extraSigned: i32 = 0; // bytes of the signed full form that are not in the checksum rows
  if (!failed()) {
    reading(E.FIELD_VERSION, 0);
    const at = cursor();
    version = readUnsigned();
    if (version > <u64>i32.MAX_VALUE) fail(E.ERR_OUT_OF_RANGE, at);
    writeUnsigned(version);
    setWord(record, L.H_VERSION, <u32>version);
  }
  if (!failed()) {
    reading(E.FIELD_TYPE, 0);
    const type = readSigned32();
    writeSigned(<i64>type);
    setWord(record, L.H_TYPE, <u32>type);
  }
  if (!failed()) {
    reading(E.FIELD_BLOCK_HEIGHT, 0);
    const height = readUnsigned();
    writeUnsigned(height);
    setWide(record, L.H_BLOCK_HEIGHT, height);
  }

  // fromList (rows 4, 4a–4d)
  const inputs = next;
  if (!failed()) {
    reading(E.FIELD_INPUT_COUNT, 0);
    inputCount = readCount(L.MIN_INPUT_BYTES);
    writeUnsigned(<u64>inputCount);
  }
  for (let i: i32 = 0; i < inputCount && !failed(); i++) {
    const entry = next;
    reading(E.FIELD_INPUT_KEY, i);
    const keyAt = cursor();
    const keyLength = readLength();
    if (failed()) break;
    const key = cursor();
    if (!(keyLength == NONCE_KEY_LENGTH || (keyLength == 1 && load<u8>(key) == 0))) {
      fail(E.ERR_BAD_INPUT_KEY, keyAt);
      break;
    }
    if (isDuplicate(txBase, inputs, L.INPUT_WORDS, i, key, keyLength)) {
      fail(E.ERR_DUPLICATE_INPUT, keyAt);
      break;
    }
    skip(keyLength);
    setWord(entry, L.I_KEY_OFFSET, <u32>offsetOf(key));
    setWord(entry, L.I_KEY_LENGTH, <u32>keyLength);
    next += <usize>L.INPUT_WORDS << 2;
    writeBytes(key, keyLength);
    reading(E.FIELD_INPUT_AMOUNT, i);
    readAmount();
    if (failed()) break;
    takeAmount(txBase, entry);
    // two reserved varints, read and ignored (§8.4 reader notes); written canonically as 00
    reading(E.FIELD_INPUT_RESERVED, i);
    skipVarint();
    skipVarint();
    writeByte(0); // 4c, checksummed
    if (full) writeByte(0); // 4d, not checksummed
    else extraSigned += 1;
  }

  // toList (rows 5, 5a–5d)
  const outputs = next;
  if (!failed()) {
    reading(E.FIELD_OUTPUT_COUNT, 0);
    outputCount = readCount(L.MIN_OUTPUT_BYTES);
    writeUnsigned(<u64>outputCount);
  }
  for (let i: i32 = 0; i < outputCount && !failed(); i++) {
    const entry = next;
    reading(E.FIELD_OUTPUT_ADDRESS, i);
    const addressAt = cursor();
    const addressLength = readLength();
    if (failed()) break;
    const address = cursor();
    if (!isAddressNoChecksum(address, addressLength)) {
      fail(E.ERR_BAD_ADDRESS, addressAt);
      break;
    }
    if (isDuplicate(txBase, outputs, L.OUTPUT_WORDS, i, address, addressLength)) {
      fail(E.ERR_DUPLICATE_OUTPUT, addressAt);
      break;
    }
    skip(addressLength);
    setWord(entry, L.O_ADDRESS_OFFSET, <u32>offsetOf(address));
    setWord(entry, L.O_ADDRESS_LENGTH, <u32>addressLength);
    next += <usize>L.OUTPUT_WORDS << 2;
    writeBytes(address, addressLength);
    reading(E.FIELD_OUTPUT_AMOUNT, i);
    readAmount();
    if (failed()) break;
    takeAmount(txBase, entry);
    reading(E.FIELD_OUTPUT_DATA_CHECKSUM, i);
    const checksumLength = readLength();
    const storedChecksum = cursor();
    skip(checksumLength);
    reading(E.FIELD_OUTPUT_DATA, i);
    const dataLength = readLength();
    const data = cursor();
    skip(dataLength);
    if (failed()) break;
    // 5c: the stored dataChecksum only when there is no data, else 00 (§8.4); with data the
    // received checksum is discarded (reader notes)
    const keptChecksum = dataLength == 0 ? checksumLength : 0;
    writeBytes(storedChecksum, keptChecksum);
    if (full) writeBytes(data, dataLength);
    else extraSigned += unsignedSize(<u64>dataLength) + dataLength;
    setWord(entry, L.O_DATA_OFFSET, <u32>offsetOf(data));
    setWord(entry, L.O_DATA_LENGTH, <u32>dataLength);
    setWord(entry, L.O_DATA_CHECKSUM_OFFSET, <u32>offsetOf(storedChecksum));
    setWord(entry, L.O_DATA_CHECKSUM_LENGTH, <u32>keptChecksum);
  }

  if (!failed()) {
    reading(E.FIELD_NONCE, 0);
    const nonce = readSigned32();
    writeSigned(<i64>nonce);
    setWord(record, L.H_NONCE, <u32>nonce);
  }
  if (!failed()) {
    reading(E.FIELD_PUBKEY, 0);
    const keyLength = readLength();
    const key = cursor();
    skip(keyLength);
    writeBytes(key, keyLength);
    setWord(record, L.H_PUBKEY_OFFSET, <u32>offsetOf(key));
    setWord(record, L.H_PUBKEY_LENGTH, <u32>keyLength);
  }
  if (!failed()) {
    reading(E.FIELD_SIGNATURE, 0);
    const signatureLength = readLength();
    const signature = cursor();
    skip(signatureLength);
    if (full) writeBytes(signature, signatureLength);
    else extraSigned += unsignedSize(<u64>signatureLength) + signatureLength;
    setWord(record, L.H_SIGNATURE_OFFSET, <u32>offsetOf(signature));
    setWord(record, L.H_SIGNATURE_LENGTH, <u32>signatureLength);
  }
  if (!failed()) {
    reading(E.FIELD_APPLIED, 0);
    const applied = readUnsigned();
    setWide(record, L.H_APPLIED, applied);
    if (full) writeUnsigned(withApplied ? applied : 0);
    else extraSigned += 1; // applied = 0 in the signed size (§8.9)
  }
  const hasTimestamp = version < FIRST_V7;
  setWord(record, L.H_HAS_TIMESTAMP, hasTimestamp ? 1 : 0);
  if (!failed() && hasTimestamp) {
    reading(E.FIELD_TIMESTAMP, 0);
    const timestamp = readSigned();
    writeSigned(timestamp); // checksummed too for version < 7 (§8.5)
    setWide(record, L.H_TIMESTAMP, <u64>timestamp);
  } else setWide(record, L.H_TIMESTAMP, 0);
  if (!failed() && remaining() != 0) {
    reading(E.FIELD_END, 0);
    fail(E.ERR_TRAILING_BYTES, cursor());
  }

  setWord(record, L.H_INPUT_COUNT, <u32>inputCount);
  setWord(record, L.H_OUTPUT_COUNT, <u32>outputCount);
  setWord(record, L.H_SIGNED_SIZE, full ? 0 : <u32>(<i32>(written() - outPtr) + extraSigned));
  setWord(record, L.H_STATUS, <u32>errorCode());
  setWord(record, L.H_ERROR_OFFSET, <u32>errorOffset());
  setWord(record, L.H_ERROR_FIELD, failed() ? <u32>errorField() : 0);
  setWord(record, L.H_ERROR_INDEX, failed() ? <u32>errorIndex() : 0);
  return next;
}

/**
 * Decodes and checksums `count` transactions laid end to end in INPUT, their lengths in LENGTHS.
 * Writes each one's record address to RECORDS and its checksum to CHECKSUMS; returns the number
 * of valid ones, or -ERR_BAD_BATCH when the lengths do not fit the windows.
 */
export function decodeBatch(count: i32): i32 {
  if (count < 0 || count > L.MAX_BATCH) return -E.ERR_BAD_BATCH;
  let total: u64 = 0;
  for (let i: i32 = 0; i < count; i++) total += <u64>load<u32>(L.LENGTHS + (<usize>i << 2));
  if (total > <u64>L.MAX_TX_SIZE) return -E.ERR_BAD_BATCH;
  let txBase = L.INPUT;
  let record = L.TABLE;
  let valid: i32 = 0;
  const preimage = L.PREIMAGE + <usize>lockLength;
  for (let i: i32 = 0; i < count; i++) {
    const len = <i32>load<u32>(L.LENGTHS + (<usize>i << 2));
    store<u32>(L.RECORDS + (<usize>i << 2), <u32>(record - L.TABLE));
    const next = parse(txBase, len, record, preimage, false, false);
    const checksum = L.CHECKSUMS + <usize>i * <usize>L.CHECKSUM_SIZE;
    if (getWord(record, L.H_STATUS) == 0) {
      sha3_512sqTrunc_into(L.PREIMAGE, <i32>(written() - L.PREIMAGE), checksum, L.CHECKSUM_SIZE);
      valid++;
    } else memory.fill(checksum, 0, <usize>L.CHECKSUM_SIZE);
    record = next;
    txBase += <usize>len;
  }
  return valid;
}

/** Decodes and checksums the one transaction of `len` bytes in INPUT (record at TABLE). */
export function decode(len: i32): i32 {
  if (len < 0 || len > L.MAX_TX_SIZE) {
    setWord(L.TABLE, L.H_STATUS, <u32>E.ERR_OVERSIZED);
    setWord(L.TABLE, L.H_ERROR_OFFSET, 0);
    setWord(L.TABLE, L.H_ERROR_FIELD, 0);
    setWord(L.TABLE, L.H_ERROR_INDEX, 0);
    return E.ERR_OVERSIZED;
  }
  store<u32>(L.LENGTHS, <u32>len);
  decodeBatch(1);
  return <i32>getWord(L.TABLE, L.H_STATUS);
}

/**
 * Writes the canonical full form of the transaction of `len` bytes in INPUT to CANONICAL (with
 * its `applied` when `withApplied`, else 0). Returns the length, or -code when the bytes are invalid
 * (the record at TABLE tells where).
 */
export function canonicalize(len: i32, withApplied: bool): i32 {
  if (len < 0 || len > L.MAX_TX_SIZE) return -E.ERR_OVERSIZED;
  parse(L.INPUT, len, L.TABLE, L.CANONICAL, true, withApplied);
  const status = <i32>getWord(L.TABLE, L.H_STATUS);
  return status != 0 ? -status : <i32>(written() - L.CANONICAL);
}
