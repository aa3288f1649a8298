/**
 * The mark of a store that has held a chain. LMDB reads a data.mdb of 0 bytes (or none) as a new,
 * empty store, and it leaves exactly that after a crash during the very first start: so a store
 * lost later (the file cut to 0 bytes by a bad copy or a disk fault, deleted, or replaced by an
 * empty one) would start a new chain, or sync from zero, and the operator would never learn that
 * the blocks and wallet state were gone. The difference is kept outside LMDB: a small file beside
 * data.mdb, written (whole, flushed) only after the store's format record was committed, which a
 * node does once its chain exists (node.ts `markFormat`). While it is there, a store without that
 * record is a lost one and is refused. Moving the chain directory away takes the mark with it.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './files.js';

/** The mark's file name, in the store's directory (`<data-dir>/chain`). */
export const STORE_MARKER_FILE = 'store.json';

/** A store that held a chain reads as new: its data file was emptied, deleted or replaced. */
export class StoreLostError extends Error {
  override name = 'StoreLostError';
}

const markerPath = (storeDir: string): string => join(storeDir, STORE_MARKER_FILE);

/** Whether the store in `storeDir` has held a chain (its mark is there). */
export function storeMarked(storeDir: string): boolean {
  return existsSync(markerPath(storeDir));
}

/** Writes the mark (call once the format record is committed); a mark already there is kept. */
export function markStore(storeDir: string, storeFormat: number): void {
  if (storeMarked(storeDir)) return;
  const text = JSON.stringify({
    note: 'written once this store had committed a chain; while it is here, an empty or missing data.mdb is refused as a lost store (README "A lost store is refused")',
    storeFormat,
  });
  writeFileAtomic(markerPath(storeDir), `${text}\n`);
}

function lost(storeDir: string, what: string): StoreLostError {
  const file = join(storeDir, 'data.mdb');
  return new StoreLostError(
    `the store file ${file} ${what}, but ${markerPath(storeDir)} says the store held a chain: its blocks and state were lost (a bad copy, a cut file, a disk fault). ` +
      `Restore the data directory from a backup, or, to start a new chain or sync it again from zero, move ${storeDir} away (the wallet keystore stays in the data directory)`,
  );
}

/**
 * Before LMDB opens `storeDir` (it would create an empty data file): throws StoreLostError when the
 * store is marked and its data file is missing or empty.
 */
export function checkStoreFileNotLost(storeDir: string): void {
  if (!storeMarked(storeDir)) return;
  let size: number;
  try {
    size = statSync(join(storeDir, 'data.mdb')).size;
  } catch {
    throw lost(storeDir, 'is missing');
  }
  if (size === 0) throw lost(storeDir, 'is empty (0 bytes)');
}

/** After it opened: throws StoreLostError when a marked store holds no format record (an empty store put in its place). */
export function checkStoreNotLost(storeDir: string, formatRecorded: boolean): void {
  if (!formatRecorded && storeMarked(storeDir)) throw lost(storeDir, 'holds an empty store');
}
