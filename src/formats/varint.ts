/**
 * IxiVarInt (reference-formats.md §4): one prefix byte, then an optional little-endian payload.
 *
 *   00–F7  the value itself (0–247), non-negative only
 *   F8/F9/FA  negative; magnitude as u16/u32/u64      FC/FD/FE  non-negative u16/u32/u64
 *   FB, FF  reserved (decode error)
 *
 * Writers produce the canonical (smallest) form; negative values never use the 1-byte form.
 * Readers accept non-minimal forms (`fc 01 00` reads as 1); re-encoding gives the canonical bytes,
 * which is what checksums are computed over (§1 "Canonical re-encoding").
 * Also here: length-prefixed bytes, "IxiBytes" (§1): `varint(len) ‖ bytes`, `00` for null/empty.
 */
import { assertBytes, describeType } from './bytes.js';
import { VarintError } from './errors.js';

/** The longest varint: prefix + 8-byte payload. */
export const VARINT_MAX_LENGTH = 9;

/** Largest value of the 1-byte form (§4). */
const ONE_BYTE_MAX = 0xf7;
const PREFIX_NEG_U16 = 0xf8;
const PREFIX_NEG_U32 = 0xf9;
const PREFIX_NEG_U64 = 0xfa;
const PREFIX_RESERVED_FB = 0xfb;
const PREFIX_U16 = 0xfc;
const PREFIX_U32 = 0xfd;
const PREFIX_U64 = 0xfe;
const PREFIX_RESERVED_FF = 0xff;

const U16_MAX = 0xffff;
const U32_MAX = 0xffff_ffff;
export const U64_MAX = (1n << 64n) - 1n;
export const I64_MIN = -(1n << 63n);
export const I64_MAX = (1n << 63n) - 1n;

/** A decoded value and the offset of the first byte after it. */
export interface Decoded<T> {
  value: T;
  next: number;
}

type Integer = bigint | number;

/** Validates an integer argument and returns it as a bigint within [min, max]. */
function toBigInt(value: Integer, min: bigint, max: bigint, kind: string): bigint {
  let v: bigint;
  if (typeof value === 'bigint') v = value;
  else if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw new VarintError(`${kind} varint value must be a safe integer, got ${value}`, -1);
    }
    v = BigInt(value);
  } else {
    throw new TypeError(`${kind} varint value must be a bigint or a number, got ${describeType(value)}`);
  }
  if (v < min || v > max) {
    throw new VarintError(`${kind} varint value must be in [${min}, ${max}], got ${v}`, -1);
  }
  return v;
}

/** Payload width (0, 2, 4 or 8 bytes) of the canonical form for a magnitude. */
const ONE_BYTE_MAX_N = BigInt(ONE_BYTE_MAX);
const U16_MAX_N = BigInt(U16_MAX);
const U32_MAX_N = BigInt(U32_MAX);

function payloadWidth(magnitude: bigint, negative: boolean): number {
  if (!negative && magnitude <= ONE_BYTE_MAX_N) return 0;
  if (magnitude <= U16_MAX_N) return 2;
  if (magnitude <= U32_MAX_N) return 4;
  return 8;
}

function prefixFor(width: number, negative: boolean): number {
  if (width === 2) return negative ? PREFIX_NEG_U16 : PREFIX_U16;
  if (width === 4) return negative ? PREFIX_NEG_U32 : PREFIX_U32;
  return negative ? PREFIX_NEG_U64 : PREFIX_U64;
}

function writeCanonical(out: Uint8Array, offset: number, v: bigint): number {
  const negative = v < 0n;
  const magnitude = negative ? -v : v;
  const width = payloadWidth(magnitude, negative);
  if (width === 0) {
    out[offset] = Number(v);
    return offset + 1;
  }
  if (width !== 8) return writePrefixed(out, offset, prefixFor(width, negative), width, Number(magnitude));
  out[offset] = prefixFor(width, negative);
  new DataView(out.buffer, out.byteOffset, out.byteLength).setBigUint64(offset + 1, magnitude, true);
  return offset + 1 + width;
}

/** Writes `prefix` and a 2- or 4-byte little-endian payload `m` (a number); returns the next offset. */
function writePrefixed(out: Uint8Array, offset: number, prefix: number, width: number, m: number): number {
  out[offset] = prefix;
  for (let i = 1; i <= width; i++, m = Math.floor(m / 256)) out[offset + i] = m & 0xff;
  return offset + 1 + width;
}

function checkRoom(out: Uint8Array, offset: number, needed: number): void {
  assertBytes(out, 'out');
  if (!Number.isInteger(offset) || offset < 0 || offset + needed > out.length) {
    throw new RangeError(
      `varint needs ${needed} bytes at offset ${offset}, but the output buffer has ${out.length} bytes`,
    );
  }
}

/**
 * A `number` in [0, 2^32): the unsigned varint's common case (lengths, counts, versions), written
 * without a bigint (each conversion and comparison made one for the collector).
 */
const isSmallUint = (value: Integer): value is number => typeof value === 'number' && value >= 0 && value <= U32_MAX && Number.isInteger(value);

/** Payload width of a small unsigned value (`isSmallUint`). */
const smallWidth = (v: number): number => (v <= ONE_BYTE_MAX ? 0 : v <= U16_MAX ? 2 : 4);

/** Writes a small unsigned value's canonical form (room checked by the caller). */
function writeSmall(out: Uint8Array, offset: number, v: number): number {
  const width = smallWidth(v);
  if (width !== 0) return writePrefixed(out, offset, prefixFor(width, false), width, v);
  out[offset] = v;
  return offset + 1;
}

/** Number of bytes of the canonical unsigned varint of `value` (0 ≤ value < 2^64). */
export function varUintLength(value: Integer): number {
  if (isSmallUint(value)) return 1 + smallWidth(value);
  return 1 + payloadWidth(toBigInt(value, 0n, U64_MAX, 'unsigned'), false);
}

/** Number of bytes of the canonical signed varint of `value` (−2^63 ≤ value < 2^63). */
export function varIntLength(value: Integer): number {
  const v = toBigInt(value, I64_MIN, I64_MAX, 'signed');
  return 1 + payloadWidth(v < 0n ? -v : v, v < 0n);
}

/**
 * Canonical unsigned varint (lengths, counts, block heights, `version`, `applied`).
 * @throws VarintError (RangeError) outside [0, 2^64−1]; TypeError for a non-integer type.
 * @example encodeVarUint(248) // fc f8 00
 */
export function encodeVarUint(value: Integer): Uint8Array {
  const v = toBigInt(value, 0n, U64_MAX, 'unsigned');
  const out = new Uint8Array(1 + payloadWidth(v, false));
  writeCanonical(out, 0, v);
  return out;
}

/**
 * Canonical signed varint (transaction `type`, `nonce`). −1 → `f8 01 00`.
 * @throws VarintError (RangeError) outside [−2^63, 2^63−1]; TypeError for a non-integer type.
 */
export function encodeVarInt(value: Integer): Uint8Array {
  const v = toBigInt(value, I64_MIN, I64_MAX, 'signed');
  const out = new Uint8Array(1 + payloadWidth(v < 0n ? -v : v, v < 0n));
  writeCanonical(out, 0, v);
  return out;
}

/** Writes the canonical unsigned varint of `value` into `out` at `offset`; returns the next offset. */
export function writeVarUint(out: Uint8Array, offset: number, value: Integer): number {
  if (isSmallUint(value)) {
    checkRoom(out, offset, 1 + smallWidth(value));
    return writeSmall(out, offset, value);
  }
  const v = toBigInt(value, 0n, U64_MAX, 'unsigned');
  checkRoom(out, offset, 1 + payloadWidth(v, false));
  return writeCanonical(out, offset, v);
}

/** Writes the canonical signed varint of `value` into `out` at `offset`; returns the next offset. */
export function writeVarInt(out: Uint8Array, offset: number, value: Integer): number {
  const v = toBigInt(value, I64_MIN, I64_MAX, 'signed');
  checkRoom(out, offset, 1 + payloadWidth(v < 0n ? -v : v, v < 0n));
  return writeCanonical(out, offset, v);
}

function checkReadArgs(bytes: Uint8Array, offset: number): void {
  assertBytes(bytes, 'bytes');
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) {
    throw new TypeError(`offset must be a non-negative integer, got ${String(offset)}`);
  }
  if (offset >= bytes.length) {
    throw new VarintError(
      `truncated varint at offset ${offset}: the input ends at ${bytes.length} bytes`,
      offset,
    );
  }
}

/** Reads the `width`-byte little-endian payload after the prefix at `offset`. */
function readPayload(bytes: Uint8Array, offset: number, width: number): bigint {
  if (offset + 1 + width > bytes.length) {
    throw new VarintError(
      `truncated varint at offset ${offset}: prefix 0x${bytes[offset]!.toString(16)} needs ${width} ` +
        `more bytes, ${bytes.length - offset - 1} available`,
      offset,
    );
  }
  const p = offset + 1;
  if (width === 8) return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(p, true);
  if (width === 4) return BigInt((bytes[p]! | (bytes[p + 1]! << 8) | (bytes[p + 2]! << 16)) + bytes[p + 3]! * 0x100_0000);
  return BigInt(bytes[p]! | (bytes[p + 1]! << 8));
}

const widthOf = (prefix: number): number =>
  prefix === PREFIX_U16 || prefix === PREFIX_NEG_U16 ? 2 : prefix === PREFIX_U32 || prefix === PREFIX_NEG_U32 ? 4 : 8;

function reserved(prefix: number, offset: number): VarintError {
  return new VarintError(`invalid varint at offset ${offset}: prefix 0x${prefix.toString(16)} is reserved`, offset);
}

/**
 * Reads an unsigned varint at `offset`. Non-minimal forms are accepted.
 * @throws VarintError naming the offset: truncated input, reserved prefix (FB, FF), or a signed
 *   prefix (F8–FA) where an unsigned value was expected.
 */
export function decodeVarUint(bytes: Uint8Array, offset = 0): Decoded<bigint> {
  checkReadArgs(bytes, offset);
  const prefix = bytes[offset]!;
  if (prefix <= ONE_BYTE_MAX) return { value: BigInt(prefix), next: offset + 1 };
  if (prefix === PREFIX_RESERVED_FB || prefix === PREFIX_RESERVED_FF) throw reserved(prefix, offset);
  if (prefix < PREFIX_RESERVED_FB) {
    throw new VarintError(
      `invalid varint at offset ${offset}: signed prefix 0x${prefix.toString(16)} where an unsigned value was expected`,
      offset,
    );
  }
  const width = widthOf(prefix);
  return { value: readPayload(bytes, offset, width), next: offset + 1 + width };
}

/**
 * Reads a signed varint at `offset` (range of a signed 64-bit integer). Non-minimal forms are
 * accepted, including a negative prefix with magnitude 0 (reads as 0).
 * @throws VarintError naming the offset: truncated input, reserved prefix, value outside i64.
 */
export function decodeVarInt(bytes: Uint8Array, offset = 0): Decoded<bigint> {
  checkReadArgs(bytes, offset);
  const prefix = bytes[offset]!;
  if (prefix <= ONE_BYTE_MAX) return { value: BigInt(prefix), next: offset + 1 };
  if (prefix === PREFIX_RESERVED_FB || prefix === PREFIX_RESERVED_FF) throw reserved(prefix, offset);
  const width = widthOf(prefix);
  const magnitude = readPayload(bytes, offset, width);
  const value = prefix < PREFIX_RESERVED_FB ? -magnitude : magnitude;
  if (value < I64_MIN || value > I64_MAX) {
    throw new VarintError(`varint at offset ${offset} is outside the signed 64-bit range: ${value}`, offset);
  }
  return { value, next: offset + 1 + width };
}

/**
 * Reads an unsigned varint that must fit a JS number (a length or a count).
 * @param max inclusive upper bound, named in the error (default Number.MAX_SAFE_INTEGER).
 */
export function decodeVarUintNumber(
  bytes: Uint8Array,
  offset = 0,
  max = Number.MAX_SAFE_INTEGER,
): Decoded<number> {
  const { value, next } = decodeVarUint(bytes, offset);
  if (value > BigInt(max)) {
    throw new VarintError(`varint at offset ${offset} is ${value}, more than the allowed ${max}`, offset);
  }
  return { value: Number(value), next };
}

/**
 * IxiBytes (§1): `varint(len) ‖ bytes`; null or empty → the single byte `00`.
 */
export function encodeVarBytes(bytes: Uint8Array | null): Uint8Array {
  if (bytes !== null && bytes !== undefined) assertBytes(bytes, 'bytes');
  const out = new Uint8Array(varBytesLength(bytes));
  writeVarBytes(out, 0, bytes);
  return out;
}

/** Bytes of IxiBytes(`bytes`) (§1): `varint(len) ‖ bytes`; null or empty is the single byte `00`. */
export function varBytesLength(bytes: Uint8Array | null | undefined): number {
  return bytes && bytes.length > 0 ? varUintLength(bytes.length) + bytes.length : 1;
}

/**
 * Writes IxiBytes(`bytes`) (§1) into `out` at `offset` (null or empty: `00`), for encoders that
 * size their output first (`varBytesLength`); returns the next offset.
 * @throws RangeError when `out` has no room for it.
 */
export function writeVarBytes(out: Uint8Array, offset: number, bytes: Uint8Array | null | undefined): number {
  if (!bytes || bytes.length === 0) {
    checkRoom(out, offset, 1);
    out[offset] = 0;
    return offset + 1;
  }
  const next = writeVarUint(out, offset, bytes.length);
  checkRoom(out, next, bytes.length);
  out.set(bytes, next);
  return next + bytes.length;
}

/**
 * Reads IxiBytes (§1) at `offset`; a length of 0 gives null ("empty" and "absent" are the same on
 * the wire). The returned array is a copy.
 * @param maxLength inclusive bound on the length, checked before anything is copied.
 * @throws VarintError naming the offset when the length is bad or the bytes are truncated.
 */
export function decodeVarBytes(
  bytes: Uint8Array,
  offset = 0,
  maxLength = Number.MAX_SAFE_INTEGER,
): Decoded<Uint8Array | null> {
  const { value: length, next } = decodeVarUintNumber(bytes, offset, maxLength);
  if (length === 0) return { value: null, next };
  if (next + length > bytes.length) {
    throw new VarintError(
      `truncated byte string at offset ${offset}: length ${length}, ${bytes.length - next} bytes available`,
      offset,
    );
  }
  return { value: bytes.slice(next, next + length), next: next + length };
}
