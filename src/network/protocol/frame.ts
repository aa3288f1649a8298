/**
 * Our framing inside one WebSocket binary message (DESIGN.md decision 7; reference-network.md
 * §10 "may simplify" 1: WebSocket already delimits and checks messages, so there is no length,
 * CRC32C or header checksum):
 *
 *   byte 0      message code (codes.ts)
 *   bytes 1…    payload (messages.ts, hello.ts)
 *
 * `decodeFrame` checks the code and the code's maximum size before anything else; the payload is
 * returned as a view and decoded by the message codec of its code.
 */
import { MAX_FRAME_BYTES, MAX_FRAME_BYTES_BY_CODE, isMessageCode, type MessageCodeValue } from './codes.js';
import { NetworkCodecError } from './errors.js';

export interface Frame {
  code: MessageCodeValue;
  /** The payload: a view into the received bytes (copy it to keep it beyond the handler). */
  payload: Uint8Array;
}

/** The bytes of one frame. @throws RangeError for an unknown code or a frame above the code's maximum. */
export function encodeFrame(code: MessageCodeValue, payload: Uint8Array): Uint8Array {
  if (!isMessageCode(code)) throw new RangeError(`unknown message code ${String(code)}`);
  if (!(payload instanceof Uint8Array)) throw new TypeError('payload must be a Uint8Array');
  const max = MAX_FRAME_BYTES_BY_CODE[code];
  if (1 + payload.length > max) {
    throw new RangeError(`frame of code ${code} would have ${1 + payload.length} bytes, at most ${max} allowed`);
  }
  const out = new Uint8Array(1 + payload.length);
  out[0] = code;
  out.set(payload, 1);
  return out;
}

/**
 * Splits received bytes into code and payload.
 * @throws NetworkCodecError EMPTY_FRAME, UNKNOWN_CODE (offset 0) or OVERSIZED (offset = the
 *   code's maximum, the first byte beyond it).
 */
export function decodeFrame(bytes: Uint8Array): Frame {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('frame must be a Uint8Array');
  if (bytes.length === 0) throw new NetworkCodecError('EMPTY_FRAME', 0);
  const code = bytes[0]!;
  if (!isMessageCode(code)) throw new NetworkCodecError('UNKNOWN_CODE', 0, 'code', `code ${code}`);
  const max = MAX_FRAME_BYTES_BY_CODE[code];
  if (bytes.length > max) {
    throw new NetworkCodecError('OVERSIZED', max, 'frame', `${bytes.length} bytes, at most ${max} for code ${code}`);
  }
  return { code, payload: bytes.subarray(1) };
}

/** True when a received message of `length` bytes cannot be a frame of any code (check before buffering). */
export const exceedsFrameLimit = (length: number): boolean => length > MAX_FRAME_BYTES;
