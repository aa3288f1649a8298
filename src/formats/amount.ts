/**
 * CoinNumber amounts (reference-formats.md §5, "IxiNumber"): a signed integer count of 10⁻⁸ coin
 * held as a bigint ("raw" units), its text form `<int>.<8 digits>`, and its wire form
 * `varint(len) ‖ two's-complement little-endian minimal bytes` (.NET BigInteger).
 */
import { assertBytes, describeType } from './bytes.js';
import { AmountError } from './errors.js';
import { decodeVarUintNumber, writeVarUint, varUintLength, type Decoded } from './varint.js';

/** Fraction digits of a CoinNumber. */
export const COIN_DECIMALS = 8;
/** Raw units per coin (10⁸). */
export const COIN = 100_000_000n;

/**
 * Longest accepted amount text after trimming. Far beyond any possible supply (2^64 raw units
 * is 20 digits), and keeps decimal-to-bigint conversion of hostile input cheap.
 */
export const MAX_AMOUNT_TEXT_LENGTH = 64;
/**
 * Longest accepted BigInteger byte form on read. 64 bytes hold ±2^511 raw units; real amounts
 * need at most 9. Bounds the work spent on hostile transactions.
 */
export const MAX_AMOUNT_BYTES = 64;

export interface ParseAmountOptions {
  /** Accept a leading `-` with a non-zero value. Default false: amounts of payments are ≥ 0. */
  allowNegative?: boolean;
  /**
   * Reject more than 8 fraction digits (default true; the RPC uses this). When false the extra
   * digits are truncated, as the reference parser does (§5 "String parsing").
   */
  strictDecimals?: boolean;
}

const AMOUNT_SYNTAX = /^([+-]?)(\d*)(?:\.(\d*))?$/;
const EXPECTED = 'expected a decimal CoinNumber such as "1", "0.5" or "12.00000001"';

/** The value quoted for an error message, shortened when long. */
const quote = (text: string): string => JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);

function syntaxProblem(s: string): string {
  if (/[eE]/.test(s) && /^[+-]?[\d.]+[eE][+-]?\d+$/.test(s)) return 'exponent notation is not allowed';
  if (/^[+-]{2,}/.test(s) || /.[+-]/.test(s)) return 'only one leading sign is allowed';
  if ((s.match(/\./g) ?? []).length > 1) return 'more than one decimal point';
  return 'it contains characters other than digits, one leading sign and one decimal point';
}

/**
 * Parses CoinNumber text into raw units. Accepts surrounding whitespace, one leading `+`/`-`, an
 * integer part and/or a fraction (`"1"`, `"1.5"`, `".5"`, `"2."`). Rejects empty text, letters,
 * exponents, a second sign or dot, more than 8 decimals (unless `strictDecimals: false`) and
 * negative values (unless `allowNegative`).
 * @throws TypeError when `text` is not a string; AmountError (a RangeError) naming the value.
 * @example parseAmount('0.005') // 500000n
 */
export function parseAmount(text: string, options: ParseAmountOptions = {}): bigint {
  if (typeof text !== 'string') throw new TypeError(`amount must be a string, got ${describeType(text)}`);
  const { allowNegative = false, strictDecimals = true } = options;
  const s = text.trim();
  if (s === '') throw new AmountError(`invalid amount ${quote(text)}: it is empty; ${EXPECTED}`);
  if (s.length > MAX_AMOUNT_TEXT_LENGTH) {
    throw new AmountError(`invalid amount ${quote(s)}: longer than ${MAX_AMOUNT_TEXT_LENGTH} characters`);
  }
  const m = AMOUNT_SYNTAX.exec(s);
  if (m === null) throw new AmountError(`invalid amount ${quote(s)}: ${syntaxProblem(s)}; ${EXPECTED}`);
  const [, sign, intPart = '', fracPart = ''] = m;
  if (intPart === '' && fracPart === '') throw new AmountError(`invalid amount ${quote(s)}: no digits; ${EXPECTED}`);
  if (fracPart.length > COIN_DECIMALS && strictDecimals) {
    throw new AmountError(
      `invalid amount ${quote(s)}: at most ${COIN_DECIMALS} decimal places are allowed, got ${fracPart.length}`,
    );
  }
  const fraction = fracPart.slice(0, COIN_DECIMALS).padEnd(COIN_DECIMALS, '0');
  const magnitude = BigInt(intPart || '0') * COIN + BigInt(fraction);
  if (sign === '-' && magnitude !== 0n) {
    if (!allowNegative) throw new AmountError(`invalid amount ${quote(s)}: negative amounts are not allowed`);
    return -magnitude;
  }
  return magnitude;
}

const MAX_SAFE_RAW = BigInt(Number.MAX_SAFE_INTEGER);

function assertRaw(raw: bigint, what = 'amount'): void {
  if (typeof raw !== 'bigint') throw new TypeError(`${what} must be a bigint of raw units, got ${describeType(raw)}`);
}

/**
 * Text form: `<integer part>.<8 fraction digits>`, a leading `-` for negative values.
 * @example formatAmount(500000n) // "0.00500000"
 */
export function formatAmount(raw: bigint): string {
  assertRaw(raw);
  const negative = raw < 0n;
  const magnitude = negative ? -raw : raw;
  const fraction = (magnitude % COIN).toString().padStart(COIN_DECIMALS, '0');
  return `${negative ? '-' : ''}${magnitude / COIN}.${fraction}`;
}

/** Two's-complement little-endian minimal bytes (.NET `BigInteger.ToByteArray`); 0 → `00`. */
export function amountToBytes(raw: bigint): Uint8Array {
  assertRaw(raw);
  // Every balance and amount of a real chain: number arithmetic, no bigint per byte (every block
  // encodes each wallet it changed this way).
  if (raw >= 0n && raw <= MAX_SAFE_RAW) {
    let v = Number(raw);
    let length = 1;
    for (let limit = 0x80; v >= limit; limit *= 0x100) length++;
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++, v = Math.floor(v / 0x100)) out[i] = v % 0x100;
    return out;
  }
  const bytes: number[] = [];
  let v = raw;
  for (;;) {
    const byte = Number(v & 0xffn);
    bytes.push(byte);
    v >>= 8n; // arithmetic shift: ends at 0 (non-negative) or −1 (negative)
    // Stop once the remaining bits are pure sign extension of the byte just written.
    if ((v === 0n && (byte & 0x80) === 0) || (v === -1n && (byte & 0x80) !== 0)) break;
  }
  return Uint8Array.from(bytes);
}

/**
 * Reads two's-complement little-endian bytes; non-minimal forms are accepted (`00 00` → 0).
 * @throws AmountError for an empty array (Δ2026: the reference rejects it) or more than
 *   MAX_AMOUNT_BYTES bytes.
 */
export function amountFromBytes(bytes: Uint8Array): bigint {
  assertBytes(bytes, 'amount bytes');
  if (bytes.length === 0) throw new AmountError('invalid amount bytes: empty (expected at least one byte)');
  if (bytes.length > MAX_AMOUNT_BYTES) {
    throw new AmountError(`invalid amount bytes: ${bytes.length} bytes, at most ${MAX_AMOUNT_BYTES} allowed`);
  }
  let v = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i]!);
  if (bytes[bytes.length - 1]! & 0x80) v -= 1n << BigInt(bytes.length * 8);
  return v;
}

/** Wire form (§5): `varint(byteLength) ‖ amountToBytes(raw)`. */
export function encodeAmount(raw: bigint): Uint8Array {
  const body = amountToBytes(raw);
  const out = new Uint8Array(varUintLength(body.length) + body.length);
  out.set(body, writeVarUint(out, 0, body.length));
  return out;
}

/**
 * Reads the wire form at `offset`.
 * @throws VarintError for a bad length prefix; AmountError for a zero length, a length over
 *   MAX_AMOUNT_BYTES or truncated bytes (naming the offset).
 */
export function decodeAmount(bytes: Uint8Array, offset = 0): Decoded<bigint> {
  const { value: length, next } = decodeVarUintNumber(bytes, offset);
  if (length === 0) throw new AmountError(`invalid amount at offset ${offset}: length 0`);
  if (length > MAX_AMOUNT_BYTES) {
    throw new AmountError(`invalid amount at offset ${offset}: ${length} bytes, at most ${MAX_AMOUNT_BYTES} allowed`);
  }
  if (next + length > bytes.length) {
    throw new AmountError(
      `truncated amount at offset ${offset}: length ${length}, ${bytes.length - next} bytes available`,
    );
  }
  return { value: amountFromBytes(bytes.subarray(next, next + length)), next: next + length };
}

/** The reference's multiplication (§5): `trunc(a × b / 10⁸)`, truncating toward zero. */
export function mulAmount(a: bigint, b: bigint): bigint {
  assertRaw(a, 'a');
  assertRaw(b, 'b');
  return (a * b) / COIN;
}

/**
 * The reference's division (§5): `trunc(a × 10⁸ / b)`, truncating toward zero.
 * @throws AmountError when `b` is zero.
 */
export function divAmount(a: bigint, b: bigint): bigint {
  assertRaw(a, 'a');
  assertRaw(b, 'b');
  if (b === 0n) throw new AmountError('cannot divide an amount by zero');
  return (a * COIN) / b;
}

/**
 * Division with remainder (the reference's `divRem`): quotient = divAmount(a, b), remainder =
 * what that quotient leaves of `a`: `a − quotient × b`. Example (§15.6): 7 divRem 3 →
 * 2.33333333 remainder 0.00000001.
 */
export function divRemAmount(a: bigint, b: bigint): { quotient: bigint; remainder: bigint } {
  const quotient = divAmount(a, b);
  return { quotient, remainder: a - mulAmount(quotient, b) };
}
