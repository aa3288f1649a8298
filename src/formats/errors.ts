/**
 * Error classes of the byte-format layer. Every one is a RangeError (bad value of the right type)
 * with a stable `code` so callers — the RPC layer, the transaction codec — can map them to their
 * own errors without matching on message text (practice P54). Wrong argument *types* are reported
 * with plain `TypeError`s instead.
 */

/** Stable codes of the format errors. */
export type FormatErrorCode =
  | 'ERR_HEX'
  | 'ERR_VARINT'
  | 'ERR_AMOUNT'
  | 'ERR_ADDRESS'
  | 'ERR_RSA_KEY';

/** Base class: a value of the right type whose content does not follow the format. */
export class FormatError extends RangeError {
  override name = 'FormatError';
  constructor(
    readonly code: FormatErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Malformed hexadecimal text. */
export class HexError extends FormatError {
  override name = 'HexError';
  constructor(message: string) {
    super('ERR_HEX', message);
  }
}

/** Malformed, truncated or out-of-range varint (reference-formats.md §4), with the byte offset. */
export class VarintError extends FormatError {
  override name = 'VarintError';
  constructor(
    message: string,
    /** Offset of the varint's first byte in the buffer being read (−1 when encoding). */
    readonly offset: number,
  ) {
    super('ERR_VARINT', message);
  }
}

/** Malformed CoinNumber text or bytes (reference-formats.md §5). */
export class AmountError extends FormatError {
  override name = 'AmountError';
  constructor(message: string) {
    super('ERR_AMOUNT', message);
  }
}

/** Malformed address text or bytes, or a wrong checksum (reference-formats.md §7). */
export class AddressError extends FormatError {
  override name = 'AddressError';
  constructor(message: string) {
    super('ERR_ADDRESS', message);
  }
}

/** Malformed serialized RSA key (reference-formats.md §6.1). */
export class RsaKeyError extends FormatError {
  override name = 'RsaKeyError';
  constructor(message: string) {
    super('ERR_RSA_KEY', message);
  }
}
