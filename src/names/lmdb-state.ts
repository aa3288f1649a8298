/**
 * {@link NameState} over the node's LMDB store: the `names` sub-database (id → stored name), the
 * `name-expiry` index (u64 BE expiration ‖ id → empty) for removal without a full scan (§5.3), and
 * the counters in the store's metadata. Writes happen inside the block's write transaction.
 */
import type { Database } from 'lmdb';
import { concatBytes } from '../formats/bytes.js';
import type { SubDbSpec } from '../state/schema.js';
import type { Store } from '../state/store.js';
import { bytesKey, u64Key } from '../state/keys.js';
import { decodeStoredName, encodeStoredName, type NameRecord } from './name-record.js';
import type { NameMeta, NameState } from './state.js';

export const NAME_SUB_DATABASES = {
  names: {
    name: 'names',
    encoding: 'binary',
    shape: 'name id → IxiBytes(full name record, reference-names §3.2) ‖ varint n ‖ n × IxiBytes(record with checksum, §3.1)',
  },
  expiry: { name: 'name-expiry', encoding: 'binary', shape: 'u64 BE expiration height ‖ name id → empty' },
} as const satisfies Record<string, SubDbSpec>;

const META_KEY = 'names';
const EXPIRY_HEIGHT_BYTES = 8;

const expiryKey = (expiration: bigint, id: Uint8Array): Buffer => bytesKey(concatBytes(u64Key(expiration), id));

export class LmdbNameState implements NameState {
  private readonly names: Database<unknown, Buffer>;
  private readonly expiry: Database<unknown, Buffer>;

  constructor(private readonly store: Store) {
    this.names = store.declare(NAME_SUB_DATABASES.names);
    this.expiry = store.declare(NAME_SUB_DATABASES.expiry);
  }

  get(id: Uint8Array): NameRecord | undefined {
    const bytes = this.names.getBinary(bytesKey(id));
    return bytes ? decodeStoredName(bytes) : undefined;
  }

  put(record: NameRecord): void {
    const before = this.get(record.id);
    if (before) this.expiry.remove(expiryKey(before.expirationBlockHeight, before.id));
    else this.setCount(this.count() + 1);
    this.names.put(bytesKey(record.id), Buffer.from(encodeStoredName(record)));
    this.expiry.put(expiryKey(record.expirationBlockHeight, record.id), Buffer.alloc(0));
  }

  delete(id: Uint8Array): void {
    const before = this.get(id);
    if (!before) return;
    this.expiry.remove(expiryKey(before.expirationBlockHeight, id));
    this.names.remove(bytesKey(id));
    this.setCount(this.count() - 1);
  }

  *all(): Iterable<NameRecord> {
    for (const { value } of this.names.getRange({ snapshot: false })) yield decodeStoredName(value as Buffer);
  }

  count(): number {
    return (this.store.meta.get(`${META_KEY}.count`) as number | undefined) ?? 0;
  }

  private setCount(n: number): void {
    this.store.meta.put(`${META_KEY}.count`, n);
  }

  expiredBefore(height: bigint): Uint8Array[] {
    const ids: Uint8Array[] = [];
    for (const key of this.expiry.getKeys({ end: u64Key(height), snapshot: false })) {
      ids.push(Uint8Array.from((key as Buffer).subarray(EXPIRY_HEIGHT_BYTES)));
    }
    return ids;
  }

  getMeta(): NameMeta {
    const m = this.store.meta.get(META_KEY) as { rewardPool: string; highestExpiration: string } | undefined;
    return m ? { rewardPool: BigInt(m.rewardPool), highestExpiration: BigInt(m.highestExpiration) } : { rewardPool: 0n, highestExpiration: 0n };
  }

  setMeta(meta: NameMeta): void {
    this.store.meta.put(META_KEY, { rewardPool: meta.rewardPool.toString(), highestExpiration: meta.highestExpiration.toString() });
  }
}
