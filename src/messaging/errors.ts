/**
 * Errors of the messaging layer (reference-rpc-messaging.md §3.5–§3.6). Every one is a RangeError
 * with a stable `code` (practice P54, as `src/formats/errors.ts`), so the delivery and RPC layers
 * can decide what to drop, log or answer without matching message text. Codec errors carry the
 * byte offset where reading failed. Wrong argument *types* are plain TypeErrors.
 */

export type MessagingErrorCode =
  /** Malformed stream message bytes (§3.6 StreamMessage v1). */
  | 'ERR_STREAM_MESSAGE'
  /** Malformed SpixiMessage or payload bytes (§3.6 SpixiMessage and payload table). */
  | 'ERR_SPIXI_MESSAGE'
  /** Decryption or authentication failed (AEAD tag, RSA-OAEP, framing of an encrypted blob). */
  | 'ERR_DECRYPT'
  /** A required RSA signature is missing or does not verify. */
  | 'ERR_SIGNATURE'
  /** A key of the wrong size or an unusable point / KEM key. */
  | 'ERR_KEY'
  /** A handshake message that the contact's state does not allow (§3.5 table). */
  | 'ERR_HANDSHAKE_STATE'
  /** A handshake message not newer than the last one (replay guard of §3.5). */
  | 'ERR_REPLAY'
  /** A frame whose id was already seen from that contact. */
  | 'ERR_DUPLICATE'
  /** The sender's public key does not give the sender's address. */
  | 'ERR_SENDER'
  /** The frame is not addressed to us. */
  | 'ERR_RECIPIENT'
  /** The sender is not a contact (and the frame is not a contact request). */
  | 'ERR_UNKNOWN_CONTACT'
  /** An unencrypted frame of a kind that must be encrypted (§3.6 receiving rules). */
  | 'ERR_UNENCRYPTED'
  /** Session keys are not established yet; the caller queues the message. */
  | 'ERR_NO_KEYS';

export class MessagingError extends RangeError {
  override name = 'MessagingError';
  constructor(
    readonly code: MessagingErrorCode,
    message: string,
    /** Offset in the bytes being read where the problem was found (−1 when not about bytes). */
    readonly offset = -1,
  ) {
    super(message);
  }
}

/** Malformed stream message bytes. */
export class StreamMessageError extends MessagingError {
  override name = 'StreamMessageError';
  constructor(message: string, offset: number) {
    super('ERR_STREAM_MESSAGE', message, offset);
  }
}

/** Malformed SpixiMessage or inner payload bytes. */
export class SpixiMessageError extends MessagingError {
  override name = 'SpixiMessageError';
  constructor(message: string, offset: number) {
    super('ERR_SPIXI_MESSAGE', message, offset);
  }
}
