/**
 * The node's LMDB store: one environment per process (style P37) holding the sub-databases of
 * `schema.ts` plus those other areas declare (`declare`). Writes that must be atomic (a whole
 * block) run in one write transaction through `write`; LMDB's copy-on-write commits make a crash
 * at any point leave the last committed state, which the node restarts from.
 */
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import { latin1Key } from '../formats/bytes.js';
import { makeDirectory } from './files.js';
import { checkLmdbDataFile, StoreDamagedError } from './lmdb-file.js';
import { SUB_DATABASES, type SubDbName, type SubDbSpec } from './schema.js';
import { checkStoreFileNotLost, checkStoreNotLost, markStore } from './store-marker.js';

/** Largest map size the environment may grow to; LMDB grows the file lazily, so this is only a cap. */
const MAP_SIZE_BYTES = 64 * 2 ** 30;
/** Named sub-databases an environment can hold (ours plus extensions, with room to spare). */
const MAX_SUB_DATABASES = 32;

/**
 * The layout of the sub-databases this build writes (schema.ts), kept in `meta` under
 * STORE_FORMAT_KEY once a node has started on the store. A build that changes a layout so that
 * older builds would misread it raises the number; a store of a higher number is refused here
 * rather than misread. (Stores from before this record carry none: the layouts they may hold are
 * all read by this build.)
 */
export const STORE_FORMAT = 1;
export const STORE_FORMAT_KEY = 'storeFormat';

/** The store was written by a newer build, in a layout this one does not read. */
export class StoreFormatError extends Error {
  override name = 'StoreFormatError';
}

/** Thrown inside `dryRun` to discard its writes (never escapes). */
const DISCARD = Symbol('discard dry-run writes');

/** One write of a recorded dry run: a put of `value`, or a remove when `value` is undefined. */
export interface RecordedWrite {
  db: Database<unknown, any>;
  key: unknown;
  value?: unknown;
}

/**
 * The prior value of one entry a journaled write changed: `[sub-database name, key, value]`, value
 * undefined when the entry did not exist (the undo removes it). Plain data: stored with the block.
 */
export type UndoEntry = [db: string, key: unknown, value: unknown];

/** Copies a Buffer/Uint8Array (keys and values may be views of memory their writer reuses). */
const own = (v: unknown): unknown => (v instanceof Uint8Array ? Buffer.from(v) : v);

export type BinaryDb = Database<Buffer, Buffer>;
export type MetaDb = Database<unknown, string>;

export interface Store {
  readonly path: string;
  /** A declared binary sub-database of `schema.ts`. */
  db(name: Exclude<SubDbName, 'meta'>): BinaryDb;
  /** Small metadata values (msgpack). */
  readonly meta: MetaDb;
  /**
   * Opens (creating on first use) a sub-database declared by another area, e.g. the name
   * system's `names`. Declaring the same name twice returns the same database.
   */
  declare(spec: SubDbSpec): Database<unknown, Buffer>;
  /**
   * Runs `fn` synchronously inside one LMDB write transaction; resolves after the commit. When
   * `fn` throws, none of its writes are committed (it runs in a child transaction: lmdb-js does not
   * abort a batched transaction on a throw) and the promise rejects with the error.
   */
  write<T>(fn: () => T): Promise<T>;
  /**
   * Runs `fn` inside a write transaction whose writes are always discarded, and resolves with its
   * result: computing what a block would do (produce mode) without committing anything.
   */
  dryRun<T>(fn: () => T): Promise<T>;
  /**
   * `dryRun` that also records every put and remove `fn` made (on any sub-database or the
   * metadata), so the same writes can be applied later with `replay` without running `fn` again.
   * `writes` is null when `fn` opened a sub-database the recording did not cover.
   */
  dryRunRecorded<T>(fn: () => T): Promise<{ result: T; writes: RecordedWrite[] | null }>;
  /** Applies recorded writes (call inside `write`). */
  replay(writes: readonly RecordedWrite[]): void;
  /**
   * Runs `fn` (call inside `write`) and returns, with its result, the prior value of every entry
   * its puts and removes changed, on any sub-database or the metadata: `undo` of that list restores
   * the state as it was before `fn` (a block's writes, for a tip revert).
   */
  journaled<T>(fn: () => T): { result: T; undo: UndoEntry[] };
  /** Restores what `journaled` recorded (call inside `write`). */
  undo(entries: readonly UndoEntry[]): void;
  /**
   * Records STORE_FORMAT in a store that holds no format record yet (once a node has started on
   * it), then marks the directory as holding a chain (store-marker.ts).
   */
  markFormat(): Promise<void>;
  /** Resolves once every write issued so far is committed and flushed to disk. */
  flushed(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Runs `fn` with every put and remove on `dbs` reported to `onWrite` first (value undefined for a
 * remove), then puts the databases' own methods back. Only `fn`'s synchronous writes are seen.
 */
function interceptWrites<T>(
  dbs: readonly [string, Database<unknown, any>][],
  onWrite: (name: string, db: Database<unknown, any>, key: unknown, value?: unknown) => void,
  fn: () => T,
): T {
  const saved = dbs.map(([name, db]) => ({ name, db, put: db.put, remove: db.remove }));
  for (const { name, db, put, remove } of saved) {
    db.put = ((key: unknown, value: unknown, ...rest: unknown[]) => {
      onWrite(name, db, key, value);
      return (put as (...a: unknown[]) => unknown).call(db, key, value, ...rest);
    }) as typeof db.put;
    db.remove = ((key: unknown, ...rest: unknown[]) => {
      onWrite(name, db, key);
      return (remove as (...a: unknown[]) => unknown).call(db, key, ...rest);
    }) as typeof db.remove;
  }
  try {
    return fn();
  } finally {
    for (const { db, put, remove } of saved) {
      db.put = put;
      db.remove = remove;
    }
  }
}

/** Opens (or creates) the store under `<dataDir>/chain`. */
export function openStore(dataDir: string): Store {
  const path = join(dataDir, 'chain');
  makeDirectory(path);
  // A data file emptied or deleted under a store that held a chain: LMDB would start a new one (store-marker.ts).
  checkStoreFileNotLost(path);
  // A damaged file would crash the process inside LMDB with no message (lmdb-file.ts).
  checkLmdbDataFile(join(path, 'data.mdb'));
  const env: RootDatabase = open({
    path,
    mapSize: MAP_SIZE_BYTES,
    maxDbs: MAX_SUB_DATABASES,
    // Durable commits: a committed block survives a power cut (the default, stated for readers).
    noSync: false,
  });
  const dbs = new Map<string, Database<unknown, Buffer>>();
  const openSub = (spec: SubDbSpec): Database<unknown, Buffer> => {
    let db = dbs.get(spec.name);
    if (!db) {
      db = env.openDB<unknown, Buffer>({
        name: spec.name,
        keyEncoding: 'binary',
        encoding: spec.encoding,
      });
      dbs.set(spec.name, db);
    }
    return db;
  };
  for (const [key, spec] of Object.entries(SUB_DATABASES)) if (key !== 'meta') openSub(spec);
  const meta = env.openDB<unknown, string>({ name: SUB_DATABASES.meta.name, encoding: 'msgpack' });
  const format = meta.get(STORE_FORMAT_KEY);
  if (format !== undefined && !(Number.isSafeInteger(format) && (format as number) >= 1 && (format as number) <= STORE_FORMAT)) {
    void env.close();
    throw Number.isSafeInteger(format) && (format as number) > STORE_FORMAT
      ? new StoreFormatError(`the store in ${path} was written by a newer dltnode (store format ${String(format)}; this one reads formats up to ${STORE_FORMAT}): start it with that version, or give another --data-dir`)
      : new StoreDamagedError(`the store in ${path} is damaged (its format record reads as ${JSON.stringify(format)}); restore the data directory from a backup, or move it away and let the node sync or start afresh`);
  }
  try {
    checkStoreNotLost(path, format !== undefined);
  } catch (err) {
    void env.close();
    throw err;
  }
  let closed = false;
  const named = (): [string, Database<unknown, any>][] => [...dbs.entries(), [SUB_DATABASES.meta.name, meta]];
  const byName = (name: string): Database<unknown, any> => {
    if (name === SUB_DATABASES.meta.name) return meta;
    const db = dbs.get(name);
    if (!db) throw new Error(`an undo record names the sub-database ${name}, which is not open`);
    return db;
  };

  const store: Store = {
    path,
    db: (name) => openSub(SUB_DATABASES[name]) as BinaryDb,
    meta,
    declare: openSub,
    write: <T>(fn: () => T) => env.transaction(() => env.childTransaction(fn)) as unknown as Promise<T>,
    dryRunRecorded: async (fn) => {
      const writes: RecordedWrite[] = [];
      let complete = true;
      // Recording only while `fn` runs (synchronously, inside the transaction): writes that other
      // code makes meanwhile in its own transactions are not this dry run's.
      const result = await store.dryRun(() => {
        const opened = dbs.size;
        try {
          return interceptWrites(named(), (_, db, key, value) => writes.push({ db, key: own(key), value: own(value) }), fn);
        } finally {
          complete = dbs.size === opened;
        }
      });
      return { result, writes: complete ? writes : null };
    },
    replay: (writes) => {
      for (const w of writes) {
        if (w.value === undefined) w.db.remove(w.key as never);
        else w.db.put(w.key as never, w.value as never);
      }
    },
    journaled: (fn) => {
      const undo: UndoEntry[] = [];
      const seen = new Set<string>();
      // The first write of an entry records its committed value (reads inside the write
      // transaction see its earlier writes, so later writes of the same entry are skipped).
      const result = interceptWrites(
        named(),
        (name, db, key) => {
          const id = `${name}\u0000${key instanceof Uint8Array ? latin1Key(key) : String(key)}`;
          if (seen.has(id)) return;
          seen.add(id);
          undo.push([name, own(key), own(db.get(key as never))]);
        },
        fn,
      );
      return { result, undo };
    },
    undo: (entries) => {
      for (const [name, key, value] of entries) {
        const db = byName(name);
        if (value === undefined) db.remove(key as never);
        else db.put(key as never, value as never);
      }
    },
    dryRun: async (fn) => {
      let result: ReturnType<typeof fn> | undefined;
      await env
        .transaction(() =>
          env.childTransaction(() => {
            result = fn();
            throw DISCARD;
          }),
        )
        .catch((err: unknown) => {
          if (err !== DISCARD) throw err;
        });
      return result as ReturnType<typeof fn>;
    },
    markFormat: async () => {
      if (meta.get(STORE_FORMAT_KEY) === undefined) await meta.put(STORE_FORMAT_KEY, STORE_FORMAT);
      // Only after the record is committed (and synced: noSync is false): the mark then always has a store behind it.
      markStore(path, STORE_FORMAT);
    },
    flushed: async () => {
      await env.flushed;
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await env.flushed;
      await env.close();
    },
  };
  return store;
}
