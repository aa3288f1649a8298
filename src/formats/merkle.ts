/**
 * Merkle root over 64-byte hashes (reference-names.md §1.4): pairs hashed with SHA3-512², an odd
 * last element paired with itself; one hash is its own root; no hashes → null.
 */
import { sha3_512sq } from '../core/hash.js';

export function merkleRoot(hashes: readonly Uint8Array[]): Uint8Array | null {
  if (hashes.length === 0) return null;
  let level: Uint8Array[] = hashes.slice();
  const pair = new Uint8Array(128);
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i]!;
      const right = level[i + 1] ?? left;
      if (left.length !== 64 || right.length !== 64) {
        throw new RangeError(`merkleRoot: expected 64-byte hashes, got ${left.length} and ${right.length} bytes`);
      }
      pair.set(left, 0);
      pair.set(right, 64);
      next.push(sha3_512sq(pair));
    }
    level = next;
  }
  return level[0]!;
}
