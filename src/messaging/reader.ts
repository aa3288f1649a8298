/**
 * A bounds-checked cursor over bytes for the messaging codecs. Every failure — truncation, a bad
 * varint, a length over its bound — becomes the codec's own error (via `fail`) naming the offset,
 * so a decoder never throws anything else on hostile input.
 */
import { decodeVarUint } from '../formats/varint.js';
import { VarintError } from '../formats/errors.js';

export type FailFn = (message: string, offset: number) => Error;

export class ByteReader {
  offset: number;
  constructor(
    readonly bytes: Uint8Array,
    readonly fail: FailFn,
    offset = 0,
  ) {
    this.offset = offset;
  }

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  need(n: number, what: string): void {
    if (n > this.remaining) {
      throw this.fail(`truncated ${what} at offset ${this.offset}: need ${n} bytes, ${this.remaining} available`, this.offset);
    }
  }

  u8(what: string): number {
    this.need(1, what);
    return this.bytes[this.offset++]!;
  }

  /** A 1-byte boolean written by the reference as 0 or 1; anything else is refused. */
  bool(what: string): boolean {
    const at = this.offset;
    const b = this.u8(what);
    if (b > 1) throw this.fail(`${what} at offset ${at} must be 0 or 1, got ${b}`, at);
    return b === 1;
  }

  i32(what: string): number {
    this.need(4, what);
    const b = this.bytes;
    const o = this.offset;
    this.offset += 4;
    return b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24);
  }

  raw(n: number, what: string): Uint8Array {
    this.need(n, what);
    const out = this.bytes.slice(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  /** Ixian unsigned varint that must be ≤ max. */
  varUint(what: string, max = Number.MAX_SAFE_INTEGER): number {
    const at = this.offset;
    const b = this.bytes;
    // Fast paths for the 1-, 3- and 5-byte forms (every length and timestamp in practice).
    let fast = -1;
    if (at < b.length) {
      const p = b[at]!;
      if (p < 0xf8) fast = (this.offset = at + 1, p);
      else if (p === 0xfc && at + 3 <= b.length) fast = (this.offset = at + 3, b[at + 1]! | (b[at + 2]! << 8));
      else if (p === 0xfd && at + 5 <= b.length) fast = (this.offset = at + 5, (b[at + 1]! | (b[at + 2]! << 8) | (b[at + 3]! << 16)) + b[at + 4]! * 0x100_0000);
    }
    if (fast >= 0) {
      if (fast > max) throw this.fail(`${what} at offset ${at} is ${fast}, more than the allowed ${max}`, at);
      return fast;
    }
    let value: bigint;
    try {
      ({ value, next: this.offset } = decodeVarUint(this.bytes, at));
    } catch (e) {
      if (e instanceof VarintError || e instanceof RangeError) throw this.fail(`bad ${what} varint at offset ${at}: ${(e as Error).message}`, at);
      throw e;
    }
    if (value > BigInt(max)) throw this.fail(`${what} at offset ${at} is ${value}, more than the allowed ${max}`, at);
    return Number(value);
  }

  /** Length-prefixed bytes (varint length ‖ bytes); a zero length gives null, as the reference reads it. */
  varBytes(what: string, maxLength: number): Uint8Array | null {
    const at = this.offset;
    const n = this.varUint(`${what} length`, maxLength);
    if (n === 0) return null;
    if (n > this.remaining) {
      throw this.fail(`truncated ${what} at offset ${at}: length ${n}, ${this.remaining} bytes available`, at);
    }
    return this.raw(n, what);
  }

  /** .NET BinaryWriter string: 7-bit-encoded length ‖ UTF-8 (must be valid UTF-8). */
  dotnetString(what: string, maxBytes: number): string {
    const at = this.offset;
    let n = 0;
    for (let shift = 0; ; shift += 7) {
      if (shift > 28) throw this.fail(`bad ${what} length at offset ${at}: more than 5 bytes`, at);
      const b = this.u8(`${what} length`);
      n |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
    }
    n >>>= 0;
    if (n > maxBytes) throw this.fail(`${what} at offset ${at} is ${n} bytes, more than the allowed ${maxBytes}`, at);
    const body = this.raw(n, what);
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(body);
    } catch {
      throw this.fail(`${what} at offset ${at} is not valid UTF-8`, at);
    }
  }

  end(what: string): void {
    if (this.remaining !== 0) throw this.fail(`${this.remaining} unexpected bytes after the ${what} at offset ${this.offset}`, this.offset);
  }
}

/** .NET BinaryWriter string encoding: 7-bit length ‖ UTF-8. */
export function encodeDotnetString(text: string): Uint8Array {
  const body = new TextEncoder().encode(text);
  const len: number[] = [];
  let n = body.length;
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    len.push(b);
  } while (n);
  const out = new Uint8Array(len.length + body.length);
  out.set(len, 0);
  out.set(body, len.length);
  return out;
}

/** Bytes of the canonical Ixian varint of a non-negative safe integer. */
export function varUintSize(n: number): number {
  return n < 0xf8 ? 1 : n <= 0xffff ? 3 : n <= 0xffff_ffff ? 5 : 9;
}

/**
 * Writes the canonical Ixian varint of a non-negative safe integer at `offset` (the number-only
 * fast path of formats/varint.ts, for the hot framing code); returns the offset after it.
 */
export function writeVarUintNumber(out: Uint8Array, offset: number, n: number): number {
  if (n < 0xf8) {
    out[offset] = n;
    return offset + 1;
  }
  if (n <= 0xffff) {
    out[offset] = 0xfc;
    out[offset + 1] = n & 0xff;
    out[offset + 2] = n >>> 8;
    return offset + 3;
  }
  if (n <= 0xffff_ffff) {
    out[offset] = 0xfd;
    writeU32(out, offset + 1, n);
    return offset + 5;
  }
  out[offset] = 0xfe;
  writeU32(out, offset + 1, n % 0x1_0000_0000);
  writeU32(out, offset + 5, Math.floor(n / 0x1_0000_0000));
  return offset + 9;
}

function writeU32(out: Uint8Array, o: number, v: number): void {
  out[o] = v & 0xff;
  out[o + 1] = (v >>> 8) & 0xff;
  out[o + 2] = (v >>> 16) & 0xff;
  out[o + 3] = (v >>> 24) & 0xff;
}

/** Size of `varint(len) ‖ bytes` (null/empty → the single byte 0). */
export const varBytesSize = (b: Uint8Array | null): number => (b === null ? 1 : varUintSize(b.length) + b.length);

/** Writes `varint(len) ‖ bytes` at `offset`; returns the offset after it. */
export function writeVarBytes(out: Uint8Array, offset: number, b: Uint8Array | null): number {
  if (b === null) {
    out[offset] = 0;
    return offset + 1;
  }
  const o = writeVarUintNumber(out, offset, b.length);
  out.set(b, o);
  return o + b.length;
}
