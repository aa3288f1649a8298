/**
 * Key encodings of the LMDB store (style P39): fixed-width big-endian integers so that range scans
 * return chain order (blocks by height, applied transactions by sequence, pending by arrival).
 */

/** 8-byte big-endian key of an unsigned integer (a height or a sequence number). */
export function u64Key(n: bigint | number): Buffer {
  const key = Buffer.allocUnsafe(8);
  key.writeBigUInt64BE(BigInt(n));
  return key;
}

/** Reads an 8-byte big-endian key back. */
export function readU64Key(key: Uint8Array): bigint {
  if (key.length !== 8) throw new RangeError(`expected an 8-byte key, got ${key.length} bytes`);
  return Buffer.from(key.buffer, key.byteOffset, 8).readBigUInt64BE(0);
}

/** A byte key as a Buffer view (no copy). */
export function bytesKey(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Map keys of ids and addresses (defined with the byte helpers, which the codec layers also use). */
export { latin1Key } from '../formats/bytes.js';
