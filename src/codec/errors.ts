/**
 * The error of the transaction codec: a stable `code` (the same names as the ERR_* exports of the
 * codec WASM program, assembly/codec/errors.ts), the byte `offset` where the problem is, and the
 * `field` it is in, so RPC handlers can answer "-32602 … at byte n" without parsing messages.
 */

/** Codes of malformed transactions, each with what it means. */
export const CODEC_ERROR_MEANINGS = Object.freeze({
  TRUNCATED: 'the bytes end inside the field',
  OVERSIZED: 'a transaction has at most 512,000 bytes',
  BAD_VARINT: 'varint with the reserved prefix 0xFB or 0xFF',
  NEGATIVE_VARINT: 'negative varint where an unsigned value is expected',
  OUT_OF_RANGE: 'value out of range for the field',
  EMPTY_AMOUNT: 'amount of length 0 (at least one byte expected)',
  BAD_INPUT_KEY: 'fromList key must be [0x00] or a 16-byte address nonce',
  BAD_ADDRESS: 'address must be an addressNoChecksum: 33 bytes (version 0) or 45 bytes (version 1 or 2)',
  DUPLICATE_INPUT: 'fromList repeats a key',
  DUPLICATE_OUTPUT: 'toList repeats an address',
  TRAILING_BYTES: 'bytes left after the last field',
  BAD_BATCH: 'batch does not fit the codec windows',
  BAD_LEGACY: 'malformed legacy (version 0–6) transaction',
} as const);

export type CodecErrorCode = keyof typeof CODEC_ERROR_MEANINGS;

/** A transaction that cannot be decoded. */
export class CodecError extends RangeError {
  override name = 'CodecError';
  constructor(
    readonly code: CodecErrorCode,
    /** Offset of the offending field's first byte in the transaction bytes. */
    readonly offset: number,
    /** What was found, e.g. "3 bytes" (optional detail appended to the message). */
    detail = '',
    /** The field, e.g. "toList[2].amount"; empty when not tied to a field. */
    readonly field = '',
  ) {
    super(
      `invalid transaction: ${CODEC_ERROR_MEANINGS[code]}${detail ? ` (${detail})` : ''}` +
        `${field ? ` in ${field}` : ''} at byte ${offset}`,
    );
  }
}
