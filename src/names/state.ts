/**
 * Where name records live, as an interface the rules run against (LMDB in the node, a Map in
 * tests and tools). Records handed out and taken in are copies: mutating one never changes state.
 */
import type { NameRecord } from './name-record.js';

/** Per-state counters of §5.5: the reward pool (raw CoinNumber) and the highest expiration height. */
export interface NameMeta {
  rewardPool: bigint;
  highestExpiration: bigint;
}

export interface NameState {
  get(id: Uint8Array): NameRecord | undefined;
  put(record: NameRecord): void;
  delete(id: Uint8Array): void;
  /** Every name, ordered by id bytes (unsigned, shorter first on a common prefix, §3.2). */
  all(): Iterable<NameRecord>;
  count(): number;
  /** Ids of names whose expiration height is below `height`. */
  expiredBefore(height: bigint): Uint8Array[];
  getMeta(): NameMeta;
  setMeta(meta: NameMeta): void;
}

/** Unsigned lexicographic order of ids, shorter first on a common prefix. */
export function compareIds(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

export const cloneRecord = (r: NameRecord): NameRecord => structuredClone(r);

const hexId = (id: Uint8Array): string => Buffer.from(id.buffer, id.byteOffset, id.byteLength).toString('hex');

/** An in-memory {@link NameState}. */
export class MapNameState implements NameState {
  private readonly records = new Map<string, NameRecord>();
  private meta: NameMeta = { rewardPool: 0n, highestExpiration: 0n };

  get(id: Uint8Array): NameRecord | undefined {
    const r = this.records.get(hexId(id));
    return r && cloneRecord(r);
  }
  put(record: NameRecord): void {
    this.records.set(hexId(record.id), cloneRecord(record));
  }
  delete(id: Uint8Array): void {
    this.records.delete(hexId(id));
  }
  all(): NameRecord[] {
    return [...this.records.values()].sort((a, b) => compareIds(a.id, b.id)).map(cloneRecord);
  }
  count(): number {
    return this.records.size;
  }
  expiredBefore(height: bigint): Uint8Array[] {
    return [...this.records.values()].filter((r) => r.expirationBlockHeight < height).map((r) => r.id.slice());
  }
  getMeta(): NameMeta {
    return { ...this.meta };
  }
  setMeta(meta: NameMeta): void {
    this.meta = { ...meta };
  }
}
