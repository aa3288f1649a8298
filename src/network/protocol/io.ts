/**
 * Byte reader and writer of our payloads: the reference's IxiVarInt for integers and lengths
 * (reference-formats.md §4), length-prefixed bytes and UTF-8 strings. The reader turns every
 * problem into a NetworkCodecError naming the field and its offset in the frame, and checks every
 * length and count against a bound before it allocates anything.
 */
import { VarintError } from '../../formats/errors.js';
import {
  decodeVarInt,
  decodeVarUint,
  encodeVarInt,
  encodeVarUint,
} from '../../formats/varint.js';
import { NetworkCodecError, type NetworkCodecErrorCode } from './errors.js';

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });
const utf8Encoder = new TextEncoder();

export class PayloadReader {
  private pos = 0;
  /**
   * @param bytes the payload.
   * @param base offset of the payload's first byte in the frame (1: after the code byte), so
   *   errors name frame offsets.
   */
  constructor(
    private readonly bytes: Uint8Array,
    private readonly base = 1,
  ) {}

  get offset(): number {
    return this.pos;
  }

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  fail(code: NetworkCodecErrorCode, field: string, detail = '', at = this.pos): NetworkCodecError {
    return new NetworkCodecError(code, this.base + at, field, detail);
  }

  u8(field: string): number {
    if (this.pos >= this.bytes.length) throw this.fail('TRUNCATED', field);
    return this.bytes[this.pos++]!;
  }

  bool(field: string): boolean {
    const at = this.pos;
    const b = this.u8(field);
    if (b > 1) throw this.fail('BAD_FIELD', field, `boolean byte ${b}`, at);
    return b === 1;
  }

  /** Unsigned varint, at most `max`. */
  uint(field: string, max: bigint = (1n << 64n) - 1n): bigint {
    const at = this.pos;
    let value: bigint;
    try {
      const d = decodeVarUint(this.bytes, this.pos);
      value = d.value;
      this.pos = d.next;
    } catch (e) {
      throw this.varintFailure(e, field, at);
    }
    if (value > max) throw this.fail('OUT_OF_RANGE', field, `${value} > ${max}`, at);
    return value;
  }

  /** Unsigned varint as a number in [0, max]. */
  uintNumber(field: string, max: number = Number.MAX_SAFE_INTEGER): number {
    return Number(this.uint(field, BigInt(max)));
  }

  /** Signed varint in [min, max]. */
  int(field: string, min: bigint, max: bigint): bigint {
    const at = this.pos;
    let value: bigint;
    try {
      const d = decodeVarInt(this.bytes, this.pos);
      value = d.value;
      this.pos = d.next;
    } catch (e) {
      throw this.varintFailure(e, field, at);
    }
    if (value < min || value > max) throw this.fail('OUT_OF_RANGE', field, `${value} outside [${min}, ${max}]`, at);
    return value;
  }

  /** A count of entries, at most `max` (TOO_MANY above). */
  count(field: string, max: number): number {
    const at = this.pos;
    const n = this.uint(field);
    if (n > BigInt(max)) throw this.fail('TOO_MANY', field, `${n} > ${max}`, at);
    return Number(n);
  }

  /** `n` raw bytes (a view, not a copy). */
  fixed(n: number, field: string): Uint8Array {
    if (this.remaining < n) throw this.fail('TRUNCATED', field, `${n} bytes needed, ${this.remaining} left`);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** Length-prefixed bytes of length in [min, max] (a copy; empty → a 0-length array). */
  bytesField(field: string, max: number, min = 0): Uint8Array {
    const at = this.pos;
    const length = this.uint(field);
    if (length > BigInt(max) || length < BigInt(min)) {
      throw this.fail('OUT_OF_RANGE', field, `length ${length} outside [${min}, ${max}]`, at);
    }
    return new Uint8Array(this.fixed(Number(length), field)); // a copy, also when reading a Buffer
  }

  /** Length-prefixed UTF-8 text of at most `maxBytes` bytes. */
  text(field: string, maxBytes: number): string {
    const at = this.pos;
    const raw = this.bytesField(field, maxBytes);
    try {
      return utf8Decoder.decode(raw);
    } catch {
      throw this.fail('BAD_FIELD', field, 'not UTF-8', at);
    }
  }

  /** Throws TRAILING_BYTES unless every byte was read. */
  end(field = ''): void {
    if (this.pos !== this.bytes.length) {
      throw this.fail('TRAILING_BYTES', field, `${this.bytes.length - this.pos} bytes`);
    }
  }

  private varintFailure(e: unknown, field: string, at: number): NetworkCodecError {
    if (e instanceof VarintError) {
      const truncated = /truncated/.test(e.message);
      return this.fail(truncated ? 'TRUNCATED' : 'BAD_VARINT', field, '', at);
    }
    return this.fail('BAD_VARINT', field, '', at);
  }
}

export class PayloadWriter {
  // One growable buffer: bulk messages (10,000 transactions) are written without a small array
  // per field, and copied once at `finish`.
  private buf: Uint8Array;
  private length = 0;

  constructor(initialCapacity = 256) {
    this.buf = new Uint8Array(initialCapacity);
  }

  private ensure(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.length + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  u8(value: number): this {
    if (!Number.isInteger(value) || value < 0 || value > 255) throw new RangeError(`byte value must be 0…255, got ${value}`);
    this.ensure(1);
    this.buf[this.length++] = value;
    return this;
  }

  bool(value: boolean): this {
    return this.u8(value ? 1 : 0);
  }

  uint(value: bigint | number): this {
    // Fast path for lengths and counts (IxiVarInt §4: 00–F7 itself, FC u16, FD u32).
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff) {
      this.ensure(5);
      const b = this.buf;
      let at = this.length;
      if (value <= 0xf7) b[at++] = value;
      else if (value <= 0xffff) {
        b[at++] = 0xfc;
        b[at++] = value & 0xff;
        b[at++] = value >>> 8;
      } else {
        b[at++] = 0xfd;
        b[at++] = value & 0xff;
        b[at++] = (value >>> 8) & 0xff;
        b[at++] = (value >>> 16) & 0xff;
        b[at++] = value >>> 24;
      }
      this.length = at;
      return this;
    }
    return this.fixed(encodeVarUint(value));
  }

  int(value: bigint | number): this {
    return this.fixed(encodeVarInt(value));
  }

  fixed(bytes: Uint8Array): this {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
    return this;
  }

  /** Length-prefixed bytes; the caller's bound is checked so we never send what a peer refuses. */
  bytesField(bytes: Uint8Array, max: number, what: string): this {
    if (!(bytes instanceof Uint8Array)) throw new TypeError(`${what} must be a Uint8Array`);
    if (bytes.length > max) throw new RangeError(`${what} has ${bytes.length} bytes, at most ${max} allowed`);
    this.uint(bytes.length);
    return this.fixed(bytes);
  }

  text(value: string, maxBytes: number, what: string): this {
    if (typeof value !== 'string') throw new TypeError(`${what} must be a string`);
    return this.bytesField(utf8Encoder.encode(value), maxBytes, what);
  }

  /** Bytes written so far. */
  get size(): number {
    return this.length;
  }

  /** The written bytes (a copy of exactly the used length). */
  finish(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}
