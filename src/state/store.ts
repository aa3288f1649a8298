/**
 * The node's LMDB store: one environment per process (style P37) holding the sub-databases of
 * `schema.ts` plus those other areas declare (`declare`). Writes that must be atomic (a whole
 * block) run in one write transaction through `write`; LMDB's copy-on-write commits make a crash
 * at any point leave the last committed state, which the node restarts from.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import { SUB_DATABASES, type SubDbName, type SubDbSpec } from './schema.js';

/** Largest map size the environment may grow to; LMDB grows the file lazily, so this is only a cap. */
const MAP_SIZE_BYTES = 64 * 2 ** 30;
/** Named sub-databases an environment can hold (ours plus extensions, with room to spare). */
const MAX_SUB_DATABASES = 32;

/** Thrown inside `dryRun` to discard its writes (never escapes). */
const DISCARD = Symbol('discard dry-run writes');

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
  /** Resolves once every write issued so far is committed and flushed to disk. */
  flushed(): Promise<void>;
  close(): Promise<void>;
}

/** Opens (or creates) the store under `<dataDir>/chain`. */
export function openStore(dataDir: string): Store {
  const path = join(dataDir, 'chain');
  mkdirSync(path, { recursive: true });
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
  let closed = false;

  return {
    path,
    db: (name) => openSub(SUB_DATABASES[name]) as BinaryDb,
    meta,
    declare: openSub,
    write: <T>(fn: () => T) => env.transaction(() => env.childTransaction(fn)) as unknown as Promise<T>,
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
}
