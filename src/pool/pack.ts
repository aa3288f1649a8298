/**
 * Wire format of a PoW verification task between the pool and its workers: one owned
 * ArrayBuffer per task (transferred, never cloned), little-endian.
 *
 *   u32 count, then per item: u8 variant (0..3 = v0..v3), u8 checksum length, u8 address length,
 *   u8 nonce length, u64 difficulty, checksum bytes, address bytes, nonce bytes.
 *
 * The result is one byte per item (1 = valid), returned with `Piscina.move`.
 */
import type { PowClaim, PowVariant } from '../core/pow.js';

const VARIANTS: PowVariant[] = ['v0', 'v1', 'v2', 'v3'];
const COUNT_BYTES = 4;
const ITEM_HEADER_BYTES = 12;

/** A claim already checked on the sending side, with its variant. */
export interface PackedClaim {
  claim: PowClaim;
  variant: PowVariant;
}

/** Packs claims into a fresh ArrayBuffer owned by the caller (safe to transfer). */
export function packPowClaims(items: readonly PackedClaim[]): ArrayBuffer {
  let size = COUNT_BYTES;
  for (const { claim } of items) size += ITEM_HEADER_BYTES + claim.blockChecksum.length + claim.solverAddress.length + claim.nonce.length;
  const buffer = new ArrayBuffer(size);
  const view = new DataView(buffer);
  const bytes = new Uint8Array(buffer);
  view.setUint32(0, items.length, true);
  let at = COUNT_BYTES;
  for (const { claim, variant } of items) {
    view.setUint8(at, VARIANTS.indexOf(variant));
    view.setUint8(at + 1, claim.blockChecksum.length);
    view.setUint8(at + 2, claim.solverAddress.length);
    view.setUint8(at + 3, claim.nonce.length);
    view.setBigUint64(at + 4, claim.difficulty, true);
    at += ITEM_HEADER_BYTES;
    for (const part of [claim.blockChecksum, claim.solverAddress, claim.nonce]) {
      bytes.set(part, at);
      at += part.length;
    }
  }
  return buffer;
}

/** Reads the claims of a packed task (views into `buffer`, no copies). */
export function unpackPowClaims(buffer: ArrayBuffer): PackedClaim[] {
  const view = new DataView(buffer);
  const bytes = new Uint8Array(buffer);
  const count = view.getUint32(0, true);
  const items: PackedClaim[] = [];
  let at = COUNT_BYTES;
  for (let i = 0; i < count; i++) {
    const variant = VARIANTS[view.getUint8(at)];
    if (!variant) throw new RangeError(`packed PoW task: item ${i} has unknown variant ${view.getUint8(at)}`);
    const lengths = [view.getUint8(at + 1), view.getUint8(at + 2), view.getUint8(at + 3)];
    const difficulty = view.getBigUint64(at + 4, true);
    at += ITEM_HEADER_BYTES;
    const [blockChecksum, solverAddress, nonce] = lengths.map((n) => {
      const part = bytes.subarray(at, at + n);
      at += n;
      return part;
    }) as [Uint8Array, Uint8Array, Uint8Array];
    items.push({ variant, claim: { blockChecksum, solverAddress, nonce, difficulty } });
  }
  if (at !== buffer.byteLength) throw new RangeError(`packed PoW task: expected ${at} bytes, got ${buffer.byteLength}`);
  return items;
}
