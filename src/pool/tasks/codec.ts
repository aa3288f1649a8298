/**
 * The one packer of the pool's tasks and results (design reshape-for-peers §2 D19): a list of
 * items, each a fixed number of byte parts, in one ArrayBuffer, little-endian:
 *
 *   u32 count ‖ u32 partsPerItem ‖ u32 length × (count · partsPerItem) ‖ the parts' bytes, in order
 *
 * Lengths come first so the reader checks the whole layout before it makes a view. Unpacking
 * returns subarray views of the task (no copies) and throws RangeError for any malformed task:
 * short header, a different parts count, lengths that overrun or fall short of the bytes.
 */
import { assertBytes, describeType } from '../../formats/bytes.js';

const HEADER_BYTES = 8;
const LENGTH_BYTES = 4;
const MAX_U32 = 0xffff_ffff;

/**
 * Packs items of `partsPerItem` byte parts each into a fresh ArrayBuffer owned by the caller.
 * @throws RangeError when an item has another number of parts; TypeError when a part is not bytes.
 */
export function packParts(items: readonly (readonly Uint8Array[])[], partsPerItem: number, what = 'pool'): ArrayBuffer {
  if (!Number.isInteger(partsPerItem) || partsPerItem < 1 || partsPerItem > MAX_U32) {
    throw new RangeError(`${what} task: parts per item must be an integer from 1, got ${String(partsPerItem)}`);
  }
  if (items.length > MAX_U32) throw new RangeError(`${what} task: ${items.length} items do not fit a u32 count`);
  let bodyBytes = 0;
  for (let i = 0; i < items.length; i++) {
    const parts = items[i]!;
    if (parts.length !== partsPerItem) throw new RangeError(`${what} task: item ${i} has ${parts.length} parts, expected ${partsPerItem}`);
    for (let p = 0; p < partsPerItem; p++) {
      assertBytes(parts[p], `${what} task: item ${i} part ${p}`);
      bodyBytes += parts[p]!.length;
    }
  }
  const lengthsAt = HEADER_BYTES;
  let at = lengthsAt + items.length * partsPerItem * LENGTH_BYTES;
  const buffer = new ArrayBuffer(at + bodyBytes);
  const view = new DataView(buffer);
  const bytes = new Uint8Array(buffer);
  view.setUint32(0, items.length, true);
  view.setUint32(4, partsPerItem, true);
  let lengthAt = lengthsAt;
  for (const parts of items) {
    for (const part of parts) {
      view.setUint32(lengthAt, part.length, true);
      lengthAt += LENGTH_BYTES;
      bytes.set(part, at);
      at += part.length;
    }
  }
  return buffer;
}

/**
 * Reads a packed task: `count` items of `partsPerItem` views each into `task`.
 * @throws RangeError for a malformed task; TypeError when `task` is not an ArrayBuffer or Uint8Array.
 */
export function unpackParts(task: ArrayBuffer | Uint8Array, partsPerItem: number, what = 'pool'): Uint8Array[][] {
  let bytes: Uint8Array;
  if (task instanceof ArrayBuffer) bytes = new Uint8Array(task);
  else if (task instanceof Uint8Array) bytes = task;
  else throw new TypeError(`${what} task: expected an ArrayBuffer or Uint8Array, got ${describeType(task)}`);
  const size = bytes.length;
  if (size < HEADER_BYTES) throw new RangeError(`${what} task: ${size} bytes, shorter than its ${HEADER_BYTES}-byte header`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, size);
  const count = view.getUint32(0, true);
  const parts = view.getUint32(4, true);
  if (parts !== partsPerItem) throw new RangeError(`${what} task: ${parts} parts per item, expected ${partsPerItem}`);
  // count · parts ≤ 2^64: exact enough in a double to compare with the size (parts ≥ 1 bounds count).
  const lengthsEnd = HEADER_BYTES + count * parts * LENGTH_BYTES;
  if (lengthsEnd > size) throw new RangeError(`${what} task: ${count} items need ${lengthsEnd} bytes of lengths, the task has ${size}`);
  let at = lengthsEnd;
  let lengthAt = HEADER_BYTES;
  const items: Uint8Array[][] = new Array(count);
  for (let i = 0; i < count; i++) {
    const item: Uint8Array[] = new Array(parts);
    for (let p = 0; p < parts; p++) {
      const length = view.getUint32(lengthAt, true);
      lengthAt += LENGTH_BYTES;
      if (length > size - at) throw new RangeError(`${what} task: item ${i} part ${p} (${length} bytes at ${at}) runs past the end (${size} bytes)`);
      item[p] = bytes.subarray(at, at + length);
      at += length;
    }
    items[i] = item;
  }
  if (at !== size) throw new RangeError(`${what} task: ${size - at} bytes left over after ${count} items`);
  return items;
}

/** Checks that a result of one byte per item has `count` bytes. */
export function checkResultBytes(packed: Uint8Array, count: number, what: string): Uint8Array {
  if (!(packed instanceof Uint8Array) || packed.length !== count) {
    throw new RangeError(`${what} result: expected ${count} bytes, got ${packed instanceof Uint8Array ? packed.length : describeType(packed)}`);
  }
  return packed;
}
