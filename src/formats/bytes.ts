/**
 * Byte-array helpers: hex (reference-formats.md §1 "Hex"), concatenation, comparison. The one
 * place for these in the project — import them rather than writing another.
 */
import { HexError } from './errors.js';

/** A Buffer view over the same memory (no copy), for Node's fast native encoders. */
const bufferView = (bytes: Uint8Array): Buffer =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * Throws a TypeError unless `value` is a Uint8Array (a Buffer is one too).
 * @param what names the argument in the message, e.g. "publicKey".
 */
export function assertBytes(value: unknown, what: string): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) {
    throw new TypeError(`${what} must be a Uint8Array, got ${describeType(value)}`);
  }
}

/** Short description of a value's type for error messages. */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an object (${value.constructor?.name ?? 'no prototype'})`;
  return `a ${typeof value}`;
}

/** Lowercase hex, two digits per byte, no prefix. */
export function toHex(bytes: Uint8Array): string {
  assertBytes(bytes, 'bytes');
  return bufferView(bytes).toString('hex');
}

/** Standard base64 with padding, as the reference's JSON (Newtonsoft) writes byte arrays. */
export function toBase64(bytes: Uint8Array): string {
  return bufferView(bytes).toString('base64');
}

/**
 * Strict hex decoding: an even number of hex digits (either case), nothing else — no `0x`, no
 * whitespace. The empty string gives an empty array.
 * @throws TypeError when `hex` is not a string; HexError (a RangeError) naming the problem.
 * @example fromHex('00ff') // Uint8Array [0, 255]
 */
export function fromHex(hex: string, what = 'hex'): Uint8Array {
  if (typeof hex !== 'string') throw new TypeError(`${what} must be a hex string, got ${describeType(hex)}`);
  if (hex.length % 2 !== 0) {
    throw new HexError(`${what} must have an even number of hex digits, got ${hex.length}`);
  }
  const out = new Uint8Array(hex.length / 2);
  // Buffer#write stops at the first pair that is not two hex digits; report where.
  const written = bufferView(out).write(hex, 'hex');
  if (written !== out.length) {
    const at = written * 2 + (isHexDigit(hex.charCodeAt(written * 2)) ? 1 : 0);
    throw new HexError(
      `${what} must contain only hex digits 0-9a-fA-F; found ${JSON.stringify(hex[at])} at position ${at}`,
    );
  }
  return out;
}

function isHexDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/** Concatenation of the given arrays into a new, owned Uint8Array. */
export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (let i = 0; i < parts.length; i++) {
    assertBytes(parts[i], `concatBytes argument ${i}`);
    length += parts[i]!.length;
  }
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * Buffer's own latin1 decoder, called on any Uint8Array: ~0.1 µs for a txid where a Buffer view
 * plus `toString` costs ~0.4 µs (the hot paths key several maps by every txid and address).
 */
const latin1Slice = (Buffer.prototype as unknown as { latin1Slice?: (this: Uint8Array, start: number, end: number) => string }).latin1Slice;

/** Bytes as a one-char-per-byte (latin1) string: the cheapest in-memory Map key of an id, address or key. */
export const latin1Key: (bytes: Uint8Array) => string =
  typeof latin1Slice === 'function'
    ? (bytes) => latin1Slice.call(bytes, 0, bytes.byteLength)
    : (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');

/** Same length and same bytes. Not constant-time; do not use it to compare secrets. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  assertBytes(a, 'a');
  assertBytes(b, 'b');
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
