/**
 * A strict reader and a writer for the name system's byte forms (reference-names.md §1.1, §1.2,
 * §3, §4.3), over the shared IxiVarInt/IxiBytes codec of `src/formats/varint.ts`. Every read names
 * the field it failed on; `end()` rejects trailing bytes.
 */
import { amountToBytes, amountFromBytes } from '../formats/amount.js';
import { concatBytes, equalBytes } from '../formats/bytes.js';
import {
  decodeVarBytes,
  decodeVarInt,
  decodeVarUint,
  encodeVarBytes,
  encodeVarInt,
  encodeVarUint,
} from '../formats/varint.js';
import { ADDRESS_V0_LENGTH, ADDRESS_V1_LENGTH } from '../formats/address.js';

/** Malformed name-system bytes: truncated, trailing, out of range. A RangeError naming the field. */
export class NameCodecError extends RangeError {
  override name = 'NameCodecError';
  readonly code = 'ERR_NAME_CODEC';
}

const U32_MAX = 0xffff_ffff;
const I32_MIN = -0x8000_0000;
const I32_MAX = 0x7fff_ffff;

export class NameReader {
  private off = 0;
  constructor(
    private readonly bytes: Uint8Array,
    /** What is being read, for messages: "register payload", "data record"… */
    private readonly what: string,
  ) {}

  get offset(): number {
    return this.off;
  }

  private fail(field: string, reason: string): never {
    throw new NameCodecError(`${this.what}: ${field} at byte ${this.off}: ${reason}`);
  }

  private guard<T>(field: string, read: () => { value: T; next: number }): T {
    let r: { value: T; next: number };
    try {
      r = read();
    } catch (err) {
      if (err instanceof NameCodecError) throw err;
      this.fail(field, (err as Error).message);
    }
    this.off = r.next;
    return r.value;
  }

  u8(field: string): number {
    if (this.off >= this.bytes.length) this.fail(field, 'truncated (input ends)');
    return this.bytes[this.off++]!;
  }

  /** Unsigned varint as bigint, bounded by `max`. */
  uvarint(field: string, max = (1n << 64n) - 1n): bigint {
    const start = this.off;
    const v = this.guard(field, () => decodeVarUint(this.bytes, this.off));
    if (v > max) {
      this.off = start;
      this.fail(field, `${v} exceeds the maximum ${max}`);
    }
    return v;
  }

  /** Unsigned 32-bit varint as a number. */
  u32(field: string): number {
    return Number(this.uvarint(field, BigInt(U32_MAX)));
  }

  /** Signed 32-bit varint as a number (the reference reads record TTL and lengths this way). */
  i32(field: string): number {
    const start = this.off;
    const v = this.guard(field, () => decodeVarInt(this.bytes, this.off));
    if (v < BigInt(I32_MIN) || v > BigInt(I32_MAX)) {
      this.off = start;
      this.fail(field, `${v} is outside the signed 32-bit range`);
    }
    return Number(v);
  }

  /** IxiBytes; zero length → null. */
  bytesOrNull(field: string, maxLength = Number.MAX_SAFE_INTEGER): Uint8Array | null {
    return this.guard(field, () => decodeVarBytes(this.bytes, this.off, maxLength));
  }

  /** IxiBytes that must be present and 1…maxLength bytes long. */
  bytes_(field: string, maxLength = Number.MAX_SAFE_INTEGER): Uint8Array {
    const start = this.off;
    const v = this.bytesOrNull(field, maxLength);
    if (v === null) {
      this.off = start;
      this.fail(field, 'expected a non-empty byte string, got length 0');
    }
    return v;
  }

  /** IxiBytes holding an `addressNoChecksum` (33 bytes v0, 45 bytes v1/v2, §1.6). */
  address(field: string): Uint8Array {
    const start = this.off;
    const a = this.addressOrNull(field);
    if (a === null) {
      this.off = start;
      this.fail(field, 'expected an address, got length 0');
    }
    return a;
  }

  /** IxiBytes holding an `addressNoChecksum`, or `00` for none. */
  addressOrNull(field: string): Uint8Array | null {
    const start = this.off;
    const a = this.bytesOrNull(field, ADDRESS_V1_LENGTH);
    if (a !== null && !isAddressNoChecksum(a)) {
      this.off = start;
      this.fail(field, `expected an address without checksum (33 bytes version 0, or 45 bytes version 1/2), got ${a.length} bytes starting 0x${a[0]!.toString(16).padStart(2, '0')}`);
    }
    return a;
  }

  /** IxiBytes holding a non-negative CoinNumber in minimal two's-complement form (§1.5). */
  amount(field: string): bigint {
    const start = this.off;
    const b = this.bytes_(field, 64);
    const v = amountFromBytes(b);
    if (v < 0n || !equalBytes(amountToBytes(v), b)) {
      this.off = start;
      this.fail(field, 'expected a non-negative amount in minimal form');
    }
    return v;
  }

  /** A 0/1 flag byte. */
  bool(field: string): boolean {
    const b = this.u8(field);
    if (b > 1) {
      this.off--;
      this.fail(field, `expected 0 or 1, got ${b}`);
    }
    return b === 1;
  }

  /** Throws unless every byte was consumed. */
  end(): void {
    if (this.off !== this.bytes.length) {
      throw new NameCodecError(`${this.what}: ${this.bytes.length - this.off} trailing bytes after byte ${this.off}`);
    }
  }
}

export const isAddressNoChecksum = (a: Uint8Array): boolean =>
  (a.length === ADDRESS_V0_LENGTH && a[0] === 0) || (a.length === ADDRESS_V1_LENGTH && (a[0] === 1 || a[0] === 2));

/** Collects the parts of a serialization. */
export class NameWriter {
  private readonly parts: Uint8Array[] = [];
  u8(v: number): this {
    this.parts.push(Uint8Array.of(v));
    return this;
  }
  uvarint(v: bigint | number): this {
    this.parts.push(encodeVarUint(v));
    return this;
  }
  ivarint(v: bigint | number): this {
    this.parts.push(encodeVarInt(v));
    return this;
  }
  /** IxiBytes; null → `00`. */
  bytes(v: Uint8Array | null): this {
    this.parts.push(encodeVarBytes(v));
    return this;
  }
  amount(v: bigint): this {
    return this.bytes(amountToBytes(v));
  }
  raw(v: Uint8Array): this {
    this.parts.push(v);
    return this;
  }
  finish(): Uint8Array {
    return concatBytes(...this.parts);
  }
}
