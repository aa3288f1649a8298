/**
 * StreamMessage version 1, the envelope S2 relays carry between clients
 * (reference-rpc-messaging.md §3.6 "StreamMessage"): codec, checksum, RSA signature.
 *
 *   version varint ‖ id (varint len ‖ bytes) ‖ type varint ‖ encryption varint ‖
 *   sender (varint len ‖ address without checksum) ‖ recipient (same) ‖ data (varint len ‖ bytes) ‖
 *   timestamp varint ‖ signature (varint len ‖ bytes) ‖ requireRcvConfirmation u8
 *   [‖ encrypted u8 — storage form only]
 *
 * Checksum = SHA3-512 of the same serialization cut after the timestamp; the signature is RSA
 * PKCS#1 v1.5 / SHA-512 over that checksum (so over the ciphertext when the data is encrypted).
 * A zero length reads as "absent" (null), as the reference reads it. Version 0 (first byte 0) is
 * the legacy format and is refused.
 */
import type { KeyObject } from 'node:crypto';
import { assertBytes } from '../formats/bytes.js';
import { Address } from '../formats/address.js';
import { AddressError } from '../formats/errors.js';
import { signBytes, verifySignature, RSA_MAX_MODULUS_BYTES } from '../formats/rsa.js';
import { sha3_512 } from '../core/hash.js';
import { ByteReader, varBytesSize, varUintSize, writeVarBytes, writeVarUintNumber } from './reader.js';
import { MessagingError, StreamMessageError } from './errors.js';

/** StreamMessageCode (§3.6): 0 error (S2 only), 1 info, 2 data. */
export const StreamMessageCode = { error: 0, info: 1, data: 2 } as const;
export type StreamMessageCode = (typeof StreamMessageCode)[keyof typeof StreamMessageCode];

/** StreamMessageEncryptionCode (§3.6). */
export const EncryptionType = { none: 0, rsa: 1, spixi1: 2, rsa2: 3, spixi2: 4 } as const;
export type EncryptionType = (typeof EncryptionType)[keyof typeof EncryptionType];

/** The current stream message version. */
export const STREAM_MESSAGE_VERSION = 1;
/**
 * Longest message id accepted. The reference makes 1-byte handshake ids and 16-byte GUIDs (bots
 * use short prefixed ids); 64 leaves room for any of those and keeps an id cheap to index.
 */
export const MAX_MESSAGE_ID_LENGTH = 64;
/** Longest signature: the longest RSA modulus the format layer accepts. */
export const MAX_SIGNATURE_LENGTH = RSA_MAX_MODULUS_BYTES;
/**
 * Longest serialized stream message accepted (8 MiB). Chat and handshake frames are a few KB
 * (an acceptAdd2 with its ML-KEM key is ≈ 2.8 KB); file data travels in chunks far below this.
 */
export const MAX_STREAM_MESSAGE_LENGTH = 8 * 1024 * 1024;
const MAX_TYPE = 2;
const MAX_ENCRYPTION = 4;
/** Largest version number read (the reference reads it into an int32). */
const MAX_VERSION = 0x7fff_ffff;

export interface StreamMessage {
  /** ≥ 1 (version 1 is current). */
  version: number;
  id: Uint8Array;
  type: StreamMessageCode;
  encryptionType: EncryptionType;
  /** Sender address without checksum (33 or 45 bytes), or null. */
  sender: Uint8Array | null;
  /** Recipient address without checksum, or null. */
  recipient: Uint8Array | null;
  /** SpixiMessage bytes, encrypted unless encryptionType is none; null when absent. */
  data: Uint8Array | null;
  /** Network-clock Unix seconds. */
  timestamp: number;
  signature: Uint8Array | null;
  requireRcvConfirmation: boolean;
}

/** Options of the encoder. */
export interface EncodeOptions {
  /** Storage form: one more byte, the local "already encrypted" flag. */
  storage?: { encrypted: boolean };
}

const fail = (message: string, offset: number): StreamMessageError => new StreamMessageError(message, offset);

function checkAddress(bytes: Uint8Array | null, what: string, offset: number): void {
  if (bytes === null) return;
  try {
    new Address(bytes);
  } catch (e) {
    if (e instanceof AddressError) throw fail(`${what} at offset ${offset}: ${e.message}`, offset);
    throw e;
  }
}

function checkFields(m: StreamMessage): void {
  if (typeof m !== 'object' || m === null) throw new TypeError('stream message must be an object');
  if (!Number.isInteger(m.version) || m.version < 1 || m.version > MAX_VERSION) throw fail(`version must be an integer from 1 to ${MAX_VERSION}, got ${m.version}`, -1);
  assertBytes(m.id, 'id');
  if (m.id.length === 0 || m.id.length > MAX_MESSAGE_ID_LENGTH) throw fail(`id must be 1 to ${MAX_MESSAGE_ID_LENGTH} bytes, got ${m.id.length}`, -1);
  if (!Number.isInteger(m.type) || m.type < 0 || m.type > MAX_TYPE) throw fail(`type must be 0, 1 or 2, got ${m.type}`, -1);
  if (!Number.isInteger(m.encryptionType) || m.encryptionType < 0 || m.encryptionType > MAX_ENCRYPTION) throw fail(`encryptionType must be 0…4, got ${m.encryptionType}`, -1);
  for (const [v, what] of [[m.sender, 'sender'], [m.recipient, 'recipient'], [m.data, 'data'], [m.signature, 'signature']] as const) {
    if (v !== null) assertBytes(v, what);
  }
  checkAddress(m.sender, 'sender', -1);
  checkAddress(m.recipient, 'recipient', -1);
  if (!Number.isSafeInteger(m.timestamp) || m.timestamp < 0) throw fail(`timestamp must be a non-negative safe integer, got ${m.timestamp}`, -1);
  if (m.signature !== null && m.signature.length > MAX_SIGNATURE_LENGTH) throw fail(`signature longer than ${MAX_SIGNATURE_LENGTH} bytes`, -1);
  if (typeof m.requireRcvConfirmation !== 'boolean') throw new TypeError('requireRcvConfirmation must be a boolean');
}

/** Size of the serialization up to and including the timestamp. */
function checksumSize(m: StreamMessage): number {
  return varUintSize(m.version) + varBytesSize(m.id) + varUintSize(m.type) + varUintSize(m.encryptionType) +
    varBytesSize(m.sender) + varBytesSize(m.recipient) + varBytesSize(m.data) + varUintSize(m.timestamp);
}

function writeChecksumPart(out: Uint8Array, m: StreamMessage): number {
  let o = writeVarUintNumber(out, 0, m.version);
  o = writeVarBytes(out, o, m.id);
  o = writeVarUintNumber(out, o, m.type);
  o = writeVarUintNumber(out, o, m.encryptionType);
  o = writeVarBytes(out, o, m.sender);
  o = writeVarBytes(out, o, m.recipient);
  o = writeVarBytes(out, o, m.data);
  return writeVarUintNumber(out, o, m.timestamp);
}

/**
 * Serializes a stream message (network form, or storage form with `options.storage`).
 * @throws StreamMessageError (offset −1) for a field out of range; TypeError for wrong types.
 */
export function encodeStreamMessage(m: StreamMessage, options: EncodeOptions = {}): Uint8Array {
  checkFields(m);
  const out = new Uint8Array(checksumSize(m) + varBytesSize(m.signature) + 1 + (options.storage ? 1 : 0));
  let o = writeChecksumPart(out, m);
  o = writeVarBytes(out, o, m.signature);
  out[o++] = m.requireRcvConfirmation ? 1 : 0;
  if (options.storage) out[o] = options.storage.encrypted ? 1 : 0;
  return out;
}

/** The bytes the checksum covers: the serialization up to and including the timestamp. */
export function streamMessageChecksumBytes(m: StreamMessage): Uint8Array {
  checkFields(m);
  const out = new Uint8Array(checksumSize(m));
  writeChecksumPart(out, m);
  return out;
}

/** SHA3-512 of `streamMessageChecksumBytes(m)` (64 bytes). */
export function streamMessageChecksum(m: StreamMessage): Uint8Array {
  return sha3_512(streamMessageChecksumBytes(m));
}

/** A decoded message, and in storage form the local encrypted flag. */
export interface DecodedStreamMessage extends StreamMessage {
  /** Only in the storage form. */
  encrypted?: boolean;
}

/**
 * Parses a stream message. Anything malformed — truncated, a bad varint, an unknown type or
 * encryption, a bad address, trailing bytes, version 0 — throws StreamMessageError with the offset.
 * @param options.storage read the storage form (one trailing "encrypted" byte).
 * @throws TypeError when `bytes` is not a Uint8Array.
 */
export function decodeStreamMessage(bytes: Uint8Array, options: { storage?: boolean } = {}): DecodedStreamMessage {
  assertBytes(bytes, 'stream message');
  if (bytes.length > MAX_STREAM_MESSAGE_LENGTH) throw fail(`stream message of ${bytes.length} bytes is longer than ${MAX_STREAM_MESSAGE_LENGTH}`, 0);
  const r = new ByteReader(bytes, fail);
  if (r.remaining > 0 && bytes[0] === 0) throw fail('stream message version 0 (legacy) is not supported', 0);
  const version = r.varUint('version', MAX_VERSION);
  const idAt = r.offset;
  const id = r.varBytes('id', MAX_MESSAGE_ID_LENGTH);
  if (id === null) throw fail(`empty message id at offset ${idAt}`, idAt);
  const typeAt = r.offset;
  const type = r.varUint('type', 0xffff_ffff);
  if (type > MAX_TYPE) throw fail(`unknown stream message type ${type} at offset ${typeAt}`, typeAt);
  const encAt = r.offset;
  const encryptionType = r.varUint('encryption type', 0xffff_ffff);
  if (encryptionType > MAX_ENCRYPTION) throw fail(`unknown encryption type ${encryptionType} at offset ${encAt}`, encAt);
  const senderAt = r.offset;
  const sender = r.varBytes('sender', 0xffff);
  checkAddress(sender, 'sender', senderAt);
  const recipientAt = r.offset;
  const recipient = r.varBytes('recipient', 0xffff);
  checkAddress(recipient, 'recipient', recipientAt);
  const data = r.varBytes('data', MAX_STREAM_MESSAGE_LENGTH);
  const timestamp = r.varUint('timestamp');
  const signature = r.varBytes('signature', MAX_SIGNATURE_LENGTH);
  const requireRcvConfirmation = r.bool('requireRcvConfirmation');
  const out: DecodedStreamMessage = {
    version,
    id,
    type: type as StreamMessageCode,
    encryptionType: encryptionType as EncryptionType,
    sender,
    recipient,
    data,
    timestamp,
    signature,
    requireRcvConfirmation,
  };
  if (options.storage) out.encrypted = r.bool('encrypted flag');
  r.end('stream message');
  return out;
}

/** A copy of `m` signed with an RSA private key (reference key bytes or KeyObject). */
export function signStreamMessage(m: StreamMessage, privateKey: KeyObject | Uint8Array): StreamMessage {
  return { ...m, signature: signBytes(privateKey, streamMessageChecksum(m)) };
}

/** Does `m.signature` verify under the serialized RSA public key? False when absent or wrong. */
export function verifyStreamMessage(m: StreamMessage, publicKey: Uint8Array): boolean {
  if (m.signature === null) return false;
  return verifySignature(publicKey, streamMessageChecksum(m), m.signature);
}

/** Like verifyStreamMessage, but throws MessagingError ERR_SIGNATURE. */
export function assertSigned(m: StreamMessage, publicKey: Uint8Array, what: string): void {
  if (m.signature === null) throw new MessagingError('ERR_SIGNATURE', `${what} is not signed`);
  if (!verifyStreamMessage(m, publicKey)) throw new MessagingError('ERR_SIGNATURE', `${what} has a wrong signature`);
}

/** Additional authenticated data of the AEAD layers (§3.6): id ‖ varint(type) ‖ varint(timestamp). */
export function streamMessageAad(m: Pick<StreamMessage, 'id' | 'type' | 'timestamp'>): Uint8Array {
  const out = new Uint8Array(m.id.length + varUintSize(m.type) + varUintSize(m.timestamp));
  out.set(m.id, 0);
  writeVarUintNumber(out, writeVarUintNumber(out, m.id.length, m.type), m.timestamp);
  return out;
}
