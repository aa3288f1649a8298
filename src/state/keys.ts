/**
 * Key encodings of the LMDB store (style P39): fixed-width big-endian integers so that range scans
 * return chain order (blocks by height, applied transactions by sequence, pending by arrival).
 */

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const TWO_32 = 2 ** 32;

/**
 * Writes an unsigned integer as 8 big-endian bytes. Values up to 2^53 (every height, sequence and
 * timestamp) go as two 32-bit halves: `writeBigUInt64BE` made four bigints a call, several per
 * transaction a block stores.
 * @throws RangeError outside [0, 2^64).
 */
export function writeU64BE(out: Buffer, offset: number, n: bigint | number): void {
  if (typeof n === 'number' ? Number.isSafeInteger(n) && n >= 0 : n >= 0n && n <= MAX_SAFE) {
    const v = Number(n);
    out.writeUInt32BE(Math.floor(v / TWO_32), offset);
    out.writeUInt32BE(v >>> 0, offset + 4);
  } else {
    out.writeBigUInt64BE(BigInt(n), offset);
  }
}

/** 8-byte big-endian key of an unsigned integer (a height or a sequence number). */
export function u64Key(n: bigint | number): Buffer {
  const key = Buffer.allocUnsafe(8);
  writeU64BE(key, 0, n);
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
