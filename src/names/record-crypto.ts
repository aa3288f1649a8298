/**
 * Encryption of record values (reference-names.md §2.3): AES-128-GCM, 128-bit tag, no AAD, key =
 * first 16 bytes of SHA3-512²(UTF-8(plain name) ‖ UTF-8(plain record key)) — the strings as the
 * caller typed them, no lower-casing and no network lock. Blob = nonce(12) ‖ ciphertext ‖ tag(16).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { sha3_512sq } from '../core/hash.js';
import { concatBytes } from '../formats/bytes.js';

const KEY_LENGTH = 16;
const NONCE_LENGTH = 12;
/** Legacy blobs carry a 16-byte IV; the reference retries with it when the 12-byte form fails. */
const LEGACY_IV_LENGTH = 16;
const TAG_LENGTH = 16;
/** Bytes an encrypted value adds to its plaintext. */
export const RECORD_ENCRYPTION_OVERHEAD = NONCE_LENGTH + TAG_LENGTH;

const utf8 = new TextEncoder();

/** The AES-128 key of the record `key` of the name `name` (plain strings). */
export function recordValueKey(name: string, key: string): Uint8Array {
  if (typeof name !== 'string' || typeof key !== 'string') {
    throw new TypeError('recordValueKey: expected the plain name and record key as strings');
  }
  const n = utf8.encode(name);
  const k = utf8.encode(key);
  const pre = new Uint8Array(n.length + k.length);
  pre.set(n, 0);
  pre.set(k, n.length);
  return sha3_512sq(pre).subarray(0, KEY_LENGTH);
}

/**
 * The nonce `updateNameRecord` encrypts a value with: the first 12 bytes of
 * SHA3-512²(record AES key ‖ decimal sequence ‖ 0x00 ‖ UTF-8 value), `sequence` being the one the
 * update carries. Deterministic, so a caller who signs the update itself (`sig`) can compute the
 * ciphertexts, hence the digest it signs, in advance; distinct per (name, key, value, sequence),
 * so no two different plaintexts share a nonce under one key.
 */
export function recordValueNonce(name: string, key: string, value: string, sequence: bigint): Uint8Array {
  const pre = concatBytes(recordValueKey(name, key), utf8.encode(`${sequence}`), Uint8Array.of(0), utf8.encode(value));
  return sha3_512sq(pre).slice(0, NONCE_LENGTH);
}

/**
 * Encrypts a record value. A string is taken as UTF-8. `nonce` (12 bytes) is for reproducible
 * vectors only; by default a random nonce is used.
 */
export function encryptRecordValue(
  name: string,
  key: string,
  value: string | Uint8Array,
  nonce: Uint8Array = randomBytes(NONCE_LENGTH),
): Uint8Array {
  if (nonce.length !== NONCE_LENGTH) throw new RangeError(`nonce: expected ${NONCE_LENGTH} bytes, got ${nonce.length}`);
  const plain = typeof value === 'string' ? utf8.encode(value) : value;
  const cipher = createCipheriv('aes-128-gcm', recordValueKey(name, key), nonce, { authTagLength: TAG_LENGTH });
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  const out = new Uint8Array(NONCE_LENGTH + body.length + TAG_LENGTH);
  out.set(nonce, 0);
  out.set(body, NONCE_LENGTH);
  out.set(cipher.getAuthTag(), NONCE_LENGTH + body.length);
  return out;
}

function tryDecrypt(aesKey: Uint8Array, blob: Uint8Array, ivLength: number): Uint8Array | null {
  if (blob.length < ivLength + TAG_LENGTH) return null;
  try {
    const decipher = createDecipheriv('aes-128-gcm', aesKey, blob.subarray(0, ivLength), { authTagLength: TAG_LENGTH });
    decipher.setAuthTag(blob.subarray(blob.length - TAG_LENGTH));
    const plain = Buffer.concat([decipher.update(blob.subarray(ivLength, blob.length - TAG_LENGTH)), decipher.final()]);
    return new Uint8Array(plain.buffer, plain.byteOffset, plain.length);
  } catch {
    return null;
  }
}

/**
 * Decrypts a record value blob; tries the 12-byte nonce form, then the legacy 16-byte IV form.
 * @returns the plaintext bytes, or null when the key does not fit or the blob is damaged
 */
export function decryptRecordValue(name: string, key: string, blob: Uint8Array): Uint8Array | null {
  const aesKey = recordValueKey(name, key);
  return tryDecrypt(aesKey, blob, NONCE_LENGTH) ?? tryDecrypt(aesKey, blob, LEGACY_IV_LENGTH);
}
