/**
 * Read-only decoding of legacy transaction layouts (reference-formats.md §8.12): versions 0–5
 * (.NET BinaryWriter: fixed-width little-endian integers, decimal amount strings) and version 6
 * (varints and binary amounts). Only historical data uses them; nothing writes them.
 *
 * The checksum returned is the one the transaction carries on the wire. The legacy preimages
 * (§8.12) were read from the reference, never executed, and have no published vectors, so the
 * node does not recompute them (UNSURE in §16).
 */
import { amountFromBytes, parseAmount } from '../formats/amount.js';
import { parseAddressBytes } from '../formats/address.js';
import { FormatError } from '../formats/errors.js';
import { decodeVarInt, decodeVarUint } from '../formats/varint.js';
import { CodecError } from './errors.js';
import type { DecodedTransaction } from './transaction.js';
import type { TxInput, TxOutput } from './types.js';

/** First version with the v6 (varint) layout. */
const V6 = 6;
/** Versions up to this one name the sender address instead of listing inputs (§8.12). */
const LAST_SENDER_ADDRESS_VERSION = 1;
/** First version carrying the first output's dataChecksum. */
const FIRST_DATA_CHECKSUM_VERSION = 4;
/** Address lengths with checksum (§7.1): the legacy layouts store addresses with it. */
const ADDRESS_WITH_CHECKSUM_LENGTHS = new Set([36, 48]);
const PRIMARY_KEY = Uint8Array.of(0);

/** A cursor over the bytes that turns every format problem into a CodecError naming the field. */
class Reader {
  at = 0;
  field = 'version';
  constructor(private readonly bytes: Uint8Array) {}

  fail(code: 'TRUNCATED' | 'BAD_LEGACY', detail: string, offset = this.at): never {
    throw new CodecError(code, offset, detail, this.field);
  }
  need(n: number): void {
    if (this.at + n > this.bytes.length) this.fail('TRUNCATED', `${n} bytes needed, ${this.bytes.length - this.at} left`);
  }
  take(n: number): Uint8Array {
    this.need(n);
    return this.bytes.slice(this.at, (this.at += n));
  }
  i32(): number {
    this.need(4);
    const v = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.at, 4).getInt32(0, true);
    this.at += 4;
    return v;
  }
  u64(): bigint {
    this.need(8);
    const v = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.at, 8).getBigUint64(0, true);
    this.at += 8;
    return v;
  }
  i64(): bigint {
    return BigInt.asIntN(64, this.u64());
  }
  /** i32 length + bytes; a length ≤ 0 is null. */
  i32Bytes(): Uint8Array | null {
    const start = this.at;
    const n = this.i32();
    if (n < 0) this.fail('BAD_LEGACY', `negative length ${n}`, start);
    return n === 0 ? null : this.take(n);
  }
  /** A .NET string: ULEB128 byte length, UTF-8. */
  dotnetString(): string {
    let n = 0;
    for (let shift = 0; ; shift += 7) {
      if (shift > 28) this.fail('BAD_LEGACY', 'string length longer than 5 bytes');
      this.need(1);
      const b = this.bytes[this.at++]!;
      n += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) break;
    }
    return new TextDecoder('utf-8', { fatal: false }).decode(this.take(n));
  }
  /** An amount written as CoinNumber text (v0–v5). */
  amountText(): bigint {
    const start = this.at;
    return this.guard(() => parseAmount(this.dotnetString(), { strictDecimals: false, allowNegative: true }), start);
  }
  varUint(): bigint {
    return this.guard(() => this.step(decodeVarUint(this.bytes, this.at)), this.at);
  }
  varInt(): bigint {
    return this.guard(() => this.step(decodeVarInt(this.bytes, this.at)), this.at);
  }
  varLength(): number {
    const start = this.at;
    const n = this.varUint();
    if (n > BigInt(this.bytes.length - this.at)) this.fail('TRUNCATED', `length ${n}`, start);
    return Number(n);
  }
  varBytes(): Uint8Array | null {
    const n = this.varLength();
    return n === 0 ? null : this.take(n);
  }
  amountBinary(): bigint {
    const start = this.at;
    const n = this.varLength();
    return this.guard(() => amountFromBytes(this.take(n)), start);
  }
  count(value: number | bigint, start: number): number {
    if (value < 0 || value > this.bytes.length - this.at) this.fail('BAD_LEGACY', `count ${value}`, start);
    return Number(value);
  }
  address(bytes: Uint8Array | null, start: number): Uint8Array {
    return this.guard(() => parseAddressBytes(bytes ?? new Uint8Array(0), this.field), start);
  }
  int32(value: bigint, start: number): number {
    if (value < -(2n ** 31n) || value >= 2n ** 31n) this.fail('BAD_LEGACY', `${value} does not fit 32 bits`, start);
    return Number(value);
  }
  end(): void {
    if (this.at !== this.bytes.length) {
      this.field = 'end of transaction';
      throw new CodecError('TRAILING_BYTES', this.at, `${this.bytes.length - this.at} bytes`, this.field);
    }
  }
  private step<T>(d: { value: T; next: number }): T {
    this.at = d.next;
    return d.value;
  }
  private guard<T>(f: () => T, start: number): T {
    try {
      return f();
    } catch (e) {
      if (e instanceof FormatError) this.fail('BAD_LEGACY', e.message, start);
      throw e;
    }
  }
}

/** A pubKey field: a full key stays as is; an addressWithChecksum becomes its addressNoChecksum. */
function signerOf(r: Reader, pubKey: Uint8Array | null, start: number): Uint8Array | null {
  if (pubKey && ADDRESS_WITH_CHECKSUM_LENGTHS.has(pubKey.length)) return r.address(pubKey, start);
  return pubKey;
}

/** Decodes a version 0–6 transaction (first byte < 7). */
export function decodeLegacyTransaction(bytes: Uint8Array): DecodedTransaction {
  const r = new Reader(bytes);
  return bytes[0] === V6 ? readV6(r) : readV0toV5(r);
}

function readV0toV5(r: Reader): DecodedTransaction {
  const version = r.i32();
  if (version < 0 || version >= V6) r.fail('BAD_LEGACY', `version ${version} in the fixed-width layout`, 0);
  r.field = 'type';
  const type = r.i32();
  r.field = 'amount';
  const amount = r.amountText();
  r.field = 'fee';
  const fee = r.amountText();
  const outputs: TxOutput[] = [];
  r.field = 'toList count';
  for (let i = 0, n = r.count(r.i32(), r.at - 4); i < n; i++) {
    r.field = `toList[${i}].address`;
    const at = r.at;
    const address = r.address(r.i32Bytes(), at);
    r.field = `toList[${i}].amount`;
    outputs.push({ address, amount: r.amountText() });
  }
  let inputs: TxInput[] = [];
  let sender: Uint8Array | null = null;
  if (version <= LAST_SENDER_ADDRESS_VERSION) {
    r.field = 'sender address';
    const at = r.at;
    sender = r.address(r.i32Bytes(), at);
    inputs = [{ key: PRIMARY_KEY.slice(), amount: amount + fee }];
  } else {
    r.field = 'fromList count';
    for (let i = 0, n = r.count(r.i32(), r.at - 4); i < n; i++) {
      r.field = `fromList[${i}].key`;
      const key = r.i32Bytes() ?? new Uint8Array(0);
      r.field = `fromList[${i}].amount`;
      inputs.push({ key, amount: r.amountText() });
    }
  }
  r.field = 'dataChecksum';
  const dataChecksum = version >= FIRST_DATA_CHECKSUM_VERSION ? r.i32Bytes() : null;
  r.field = 'data';
  const data = r.i32Bytes();
  attachData(outputs, data, dataChecksum);
  r.field = 'blockHeight';
  const blockHeight = r.u64();
  r.field = 'nonce';
  const nonce = r.i32();
  r.field = 'timestamp';
  const timestamp = r.i64();
  r.field = 'checksum';
  const checksumAt = r.at;
  const checksum = r.i32Bytes();
  r.field = 'signature';
  const signature = r.i32Bytes();
  r.field = 'pubKey';
  const at = r.at;
  const pubKey = signerOf(r, r.i32Bytes(), at) ?? sender;
  r.field = 'applied';
  const applied = r.u64();
  r.end();
  if (!checksum) r.fail('BAD_LEGACY', 'no checksum', checksumAt);
  return { version, type, blockHeight, inputs, outputs, nonce, pubKey, signature, applied, timestamp, checksum };
}

function readV6(r: Reader): DecodedTransaction {
  const version = r.int32(r.varInt(), 0);
  r.field = 'type';
  const type = r.int32(r.varInt(), r.at);
  r.field = 'amount';
  r.amountBinary(); // stored amount and fee: derived again from the lists (§8.3)
  r.field = 'fee';
  r.amountBinary();
  const outputs: TxOutput[] = [];
  r.field = 'toList count';
  let start = r.at;
  for (let i = 0, n = r.count(r.varInt(), start); i < n; i++) {
    r.field = `toList[${i}].address`;
    const at = r.at;
    const address = r.address(r.varBytes(), at);
    r.field = `toList[${i}].amount`;
    outputs.push({ address, amount: r.amountBinary() });
  }
  const inputs: TxInput[] = [];
  r.field = 'fromList count';
  start = r.at;
  for (let i = 0, n = r.count(r.varInt(), start); i < n; i++) {
    r.field = `fromList[${i}].key`;
    const key = r.varBytes() ?? new Uint8Array(0);
    r.field = `fromList[${i}].amount`;
    inputs.push({ key, amount: r.amountBinary() });
  }
  r.field = 'dataChecksum';
  const dataChecksum = r.varBytes();
  r.field = 'data';
  attachData(outputs, r.varBytes(), dataChecksum);
  r.field = 'blockHeight';
  const blockHeight = r.varUint();
  r.field = 'nonce';
  const nonce = r.int32(r.varInt(), r.at);
  r.field = 'timestamp';
  const timestamp = r.varInt();
  r.field = 'checksum';
  const checksumAt = r.at;
  const checksum = r.varBytes();
  r.field = 'signature';
  const signature = r.varBytes();
  r.field = 'pubKey';
  const at = r.at;
  const pubKey = signerOf(r, r.varBytes(), at);
  r.field = 'applied';
  const applied = r.varUint();
  r.end();
  if (!checksum) r.fail('BAD_LEGACY', 'no checksum', checksumAt);
  return { version, type, blockHeight, inputs, outputs, nonce, pubKey, signature, applied, timestamp, checksum };
}

/** Legacy layouts carry one data field: the first output's (§8.3). */
function attachData(outputs: TxOutput[], data: Uint8Array | null, dataChecksum: Uint8Array | null): void {
  const first = outputs[0];
  if (!first) return;
  if (data) first.data = data;
  else if (dataChecksum) first.dataChecksum = dataChecksum;
}
