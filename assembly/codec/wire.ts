// Reading and canonical writing of IxiVarInt (reference-formats §4) and IxiNumber amount bytes (§5)
// over raw memory: one read cursor with the first error it met, one write cursor.

import {
  OK,
  ERR_TRUNCATED,
  ERR_BAD_VARINT,
  ERR_NEGATIVE_VARINT,
  ERR_OUT_OF_RANGE,
  ERR_EMPTY_AMOUNT,
} from './errors';
import { MAX_AMOUNT_BYTES } from './layout';

// ---- read cursor ----
let at: usize = 0; // next byte to read
let end: usize = 0; // first byte after the transaction
let base: usize = 0; // first byte of the transaction (error offsets are relative to it)
let error: i32 = OK;
let errorAt: usize = 0;
let field: i32 = 0; // FIELD_* being read, for error reports
let index: i32 = 0; // entry index being read

export function beginRead(ptr: usize, len: i32): void {
  at = ptr;
  base = ptr;
  end = ptr + <usize>len;
  error = OK;
  errorAt = ptr;
  field = 0;
  index = 0;
}

/** Names the field the next reads belong to (reported with an error). */
@inline export function reading(f: i32, i: i32): void {
  field = f;
  index = i;
}
@inline export function cursor(): usize {
  return at;
}
@inline export function remaining(): i32 {
  return <i32>(end - at);
}
@inline export function failed(): bool {
  return error != OK;
}
@inline export function errorCode(): i32 {
  return error;
}
@inline export function errorOffset(): i32 {
  return <i32>(errorAt - base);
}
@inline export function errorField(): i32 {
  return field;
}
@inline export function errorIndex(): i32 {
  return index;
}
@inline export function offsetOf(ptr: usize): i32 {
  return <i32>(ptr - base);
}

/** Records the first error (later ones are consequences) at byte `where`. */
export function fail(code: i32, where: usize): void {
  if (error == OK) {
    error = code;
    errorAt = where;
  }
}

/** Advances over `n` bytes already checked to be present. */
@inline export function skip(n: i32): void {
  at += <usize>n;
}

// Varint prefixes (§4).
const ONE_BYTE_MAX: u32 = 0xf7;
const NEG_U16: u32 = 0xf8;
const NEG_U32: u32 = 0xf9;
const NEG_U64: u32 = 0xfa;
const POS_U16: u32 = 0xfc;
const POS_U32: u32 = 0xfd;
const POS_U64: u32 = 0xfe;

// Set by readVarint: whether the value read had a negative-form prefix.
let lastNegative: bool = false;

/** Reads a varint's magnitude; `lastNegative` tells its sign class. On error returns 0. */
function readVarint(): u64 {
  const start = at;
  if (at >= end) {
    fail(ERR_TRUNCATED, start);
    return 0;
  }
  const prefix = <u32>load<u8>(at);
  lastNegative = false;
  if (prefix <= ONE_BYTE_MAX) {
    at++;
    return <u64>prefix;
  }
  let width: i32 = 0;
  if (prefix == POS_U16 || prefix == NEG_U16) width = 2;
  else if (prefix == POS_U32 || prefix == NEG_U32) width = 4;
  else if (prefix == POS_U64 || prefix == NEG_U64) width = 8;
  else {
    fail(ERR_BAD_VARINT, start);
    return 0;
  }
  if (<i32>(end - at) < 1 + width) {
    fail(ERR_TRUNCATED, start);
    return 0;
  }
  lastNegative = prefix <= NEG_U64;
  let v: u64;
  if (width == 2) v = <u64>load<u16>(at, 1);
  else if (width == 4) v = <u64>load<u32>(at, 1);
  else v = load<u64>(at, 1);
  at += <usize>(1 + width);
  return v;
}

/** Unsigned varint (lengths, counts, heights, version, applied): negative forms are rejected. */
export function readUnsigned(): u64 {
  const start = at;
  const v = readVarint();
  if (lastNegative && error == OK) {
    fail(ERR_NEGATIVE_VARINT, start);
    return 0;
  }
  return v;
}

/** Any well-formed varint, value ignored (the reserved rows 4c/4d, §8.4 reader notes). */
export function skipVarint(): void {
  readVarint();
}

/** Signed varint within the i64 range (type, nonce, timestamp). */
export function readSigned(): i64 {
  const start = at;
  const magnitude = readVarint();
  if (error != OK) return 0;
  if (lastNegative) {
    if (magnitude > 0x8000000000000000) {
      fail(ERR_OUT_OF_RANGE, start);
      return 0;
    }
    return -(<i64>magnitude); // 2^63 wraps to i64.MIN, as intended
  }
  if (magnitude > <u64>i64.MAX_VALUE) {
    fail(ERR_OUT_OF_RANGE, start);
    return 0;
  }
  return <i64>magnitude;
}

/** Signed varint that must fit an i32 (type, nonce). */
export function readSigned32(): i32 {
  const start = at;
  const v = readSigned();
  if (v < <i64>i32.MIN_VALUE || v > <i64>i32.MAX_VALUE) {
    fail(ERR_OUT_OF_RANGE, start);
    return 0;
  }
  return <i32>v;
}

/** A length prefix: an unsigned varint not larger than the bytes left after it. */
export function readLength(): i32 {
  const start = at;
  const v = readUnsigned();
  if (error != OK) return 0;
  if (v > <u64>(end - at)) {
    fail(ERR_TRUNCATED, start);
    return 0;
  }
  return <i32>v;
}

/** A count prefix: an unsigned varint, at most the bytes left divided by the smallest entry size. */
export function readCount(minEntryBytes: i32): i32 {
  const start = at;
  const v = readUnsigned();
  if (error != OK) return 0;
  if (v > <u64>((end - at) / <usize>minEntryBytes)) {
    fail(ERR_TRUNCATED, start);
    return 0;
  }
  return <i32>v;
}

// ---- amounts (§5): varint(len) ‖ two's-complement little-endian bytes ----
// After readAmount: the minimal bytes are `amountLength` bytes at `amountPtr` (a prefix of the wire
// bytes: redundant sign-extension bytes sit at the end), and `amountValue` holds the value when
// the minimal form has at most 8 bytes.
export let amountPtr: usize = 0;
export let amountLength: i32 = 0;
export let amountValue: i64 = 0;

export function readAmount(): void {
  const start = at;
  const len = readLength();
  if (error != OK) return;
  if (len == 0) {
    fail(ERR_EMPTY_AMOUNT, start);
    return;
  }
  if (len > MAX_AMOUNT_BYTES) {
    fail(ERR_OUT_OF_RANGE, start);
    return;
  }
  const p = at;
  let n = len;
  while (n > 1) {
    const last = <u32>load<u8>(p + <usize>n - 1);
    const signOfPrevious = <u32>load<u8>(p + <usize>n - 2) & 0x80;
    if ((last == 0 && signOfPrevious == 0) || (last == 0xff && signOfPrevious != 0)) n--;
    else break;
  }
  amountPtr = p;
  amountLength = n;
  if (n <= 8) {
    let v: u64 = 0;
    for (let i = n - 1; i >= 0; i--) v = (v << 8) | <u64>load<u8>(p + <usize>i);
    const unused = <u64>(64 - 8 * n);
    amountValue = (<i64>(v << unused)) >> unused; // sign-extend
  }
  at += <usize>len;
}

// ---- write cursor: canonical forms ----
let out: usize = 0;

@inline export function beginWrite(ptr: usize): void {
  out = ptr;
}
@inline export function written(): usize {
  return out;
}

@inline export function writeByte(b: u32): void {
  store<u8>(out, <u8>b);
  out++;
}

function writePayload(prefix: u32, v: u64, width: i32): void {
  store<u8>(out, <u8>prefix);
  if (width == 2) store<u16>(out, <u16>v, 1);
  else if (width == 4) store<u32>(out, <u32>v, 1);
  else store<u64>(out, v, 1);
  out += <usize>(1 + width);
}

/** Canonical unsigned varint: the shortest of the 1-byte, FC, FD and FE forms. */
export function writeUnsigned(v: u64): void {
  if (v <= <u64>ONE_BYTE_MAX) writeByte(<u32>v);
  else if (v <= 0xffff) writePayload(POS_U16, v, 2);
  else if (v <= 0xffffffff) writePayload(POS_U32, v, 4);
  else writePayload(POS_U64, v, 8);
}

/** Canonical signed varint: negative values always use F8/F9/FA with the magnitude. */
export function writeSigned(v: i64): void {
  if (v >= 0) {
    writeUnsigned(<u64>v);
    return;
  }
  const magnitude = <u64>(-v); // i64.MIN → 2^63
  if (magnitude <= 0xffff) writePayload(NEG_U16, magnitude, 2);
  else if (magnitude <= 0xffffffff) writePayload(NEG_U32, magnitude, 4);
  else writePayload(NEG_U64, magnitude, 8);
}

/** Canonical length-prefixed bytes (`00` when empty). */
export function writeBytes(ptr: usize, len: i32): void {
  writeUnsigned(<u64>len);
  memory.copy(out, ptr, <usize>len);
  out += <usize>len;
}

/** Canonical length of an unsigned varint. */
export function unsignedSize(v: u64): i32 {
  if (v <= <u64>ONE_BYTE_MAX) return 1;
  if (v <= 0xffff) return 3;
  if (v <= 0xffffffff) return 5;
  return 9;
}
