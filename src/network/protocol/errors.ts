/**
 * The error of the network codecs (frames and message payloads, reference-network.md §8): a
 * stable `code`, the byte `offset` in the frame where the problem is, and the message `field`.
 * Every malformed input from a peer ends in this one class, so a link can score the peer by
 * code without matching on text, and a bug elsewhere (another exception type) stays visible.
 */

/** Codes of malformed frames and payloads, each with what it means. */
export const NETWORK_CODEC_ERROR_MEANINGS = Object.freeze({
  EMPTY_FRAME: 'a frame has at least one byte (its message code)',
  UNKNOWN_CODE: 'the message code is not one this node speaks',
  OVERSIZED: 'the frame is larger than its message code allows',
  TRUNCATED: 'the bytes end inside the field',
  BAD_VARINT: 'malformed varint',
  OUT_OF_RANGE: 'value out of range for the field',
  TOO_MANY: 'more entries than the message allows',
  BAD_FIELD: 'the field does not have an allowed value',
  TRAILING_BYTES: 'bytes left after the last field',
  BAD_BLOCK: 'the block bytes do not decode',
} as const);

export type NetworkCodecErrorCode = keyof typeof NETWORK_CODEC_ERROR_MEANINGS;

/** A frame or payload from a peer that cannot be decoded. */
export class NetworkCodecError extends RangeError {
  override name = 'NetworkCodecError';
  constructor(
    readonly code: NetworkCodecErrorCode,
    /** Offset of the offending field's first byte in the frame (payload offset + 1). */
    readonly offset: number,
    /** The field, e.g. "items[3].height"; empty when not tied to a field. */
    readonly field = '',
    detail = '',
  ) {
    super(
      `invalid network frame: ${NETWORK_CODEC_ERROR_MEANINGS[code]}${detail ? ` (${detail})` : ''}` +
        `${field ? ` in ${field}` : ''} at byte ${offset}`,
    );
  }
}
