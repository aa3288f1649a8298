/**
 * A damaged LMDB data file is refused with a message naming it, before LMDB maps it: a file cut
 * short made the node die of SIGBUS, garbled meta pages of SIGSEGV, with nothing printed. A sound
 * store, a new one and an empty file (LMDB sets it up) open as before.
 */
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLmdbDataFile, StoreDamagedError } from '../../src/state/lmdb-file.js';
import { openStore } from '../../src/state/store.js';

let dir: string;
let sound: string;

/** A copy of the sound data directory, damaged by `harm` on its data file. */
function damagedCopy(name: string, harm: (file: string) => void): string {
  const copy = join(dir, name);
  cpSync(sound, copy, { recursive: true });
  harm(join(copy, 'chain', 'data.mdb'));
  return copy;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dltnode-lmdb-file-'));
  sound = join(dir, 'sound');
  const store = openStore(sound);
  // Enough writes that the data file has more pages than its two meta pages and a root.
  await store.write(() => {
    for (let i = 0; i < 2_000; i++) store.meta.putSync(`key-${i}`, { value: 'x'.repeat(100), i });
  });
  await store.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('LMDB data file check', () => {
  it('a sound store, a new one and an empty data file open', async () => {
    expect(() => checkLmdbDataFile(join(sound, 'chain', 'data.mdb'))).not.toThrow();
    expect(() => checkLmdbDataFile(join(dir, 'none', 'data.mdb'))).not.toThrow();
    const emptied = damagedCopy('empty', (f) => writeFileSync(f, ''));
    for (const d of [sound, emptied]) {
      const store = openStore(d);
      await store.close();
    }
  });

  it('a data file cut short is refused, naming the file and the sizes', () => {
    const cut = damagedCopy('cut', (f) => truncateSync(f, Math.floor(statSync(f).size / 2)));
    expect(() => openStore(cut)).toThrow(StoreDamagedError);
    expect(() => openStore(cut)).toThrow(new RegExp(`${join(cut, 'chain', 'data.mdb')} is damaged \\(it holds \\d+ bytes, but its last committed transaction uses \\d+: the file was cut short\\)`));
    const tiny = damagedCopy('tiny', (f) => truncateSync(f, 100));
    expect(() => openStore(tiny)).toThrow(/meta page 0 is cut short/);
  });

  it('garbled meta pages are refused', () => {
    const garble = (offset: number) => (f: string) => {
      const fd = openSync(f, 'r+');
      writeSync(fd, randomBytes(4096), 0, 4096, offset);
      closeSync(fd);
    };
    expect(() => openStore(damagedCopy('page0', garble(0)))).toThrow(/meta page 0 does not carry LMDB's mark/);
    expect(() => openStore(damagedCopy('page1', garble(4096)))).toThrow(/meta page 1 does not carry LMDB's mark/);
  });

  it("a root page whose type bits were flipped is refused (LMDB followed it past the file's end: SIGBUS)", () => {
    // The newest meta page's two MDB_db records (at byte 48 of the page, 48 bytes each) name the roots.
    const rootOf = (file: string, db: 0 | 1): { root: number; pageSize: number } => {
      const b = readFileSync(file);
      const pageSize = b.readUInt32LE(48);
      const newest = b.readBigUInt64LE(48 + 104) > b.readBigUInt64LE(pageSize + 48 + 104) ? 0 : pageSize;
      return { root: Number(b.readBigUInt64LE(newest + 48 + db * 48 + 40)), pageSize };
    };
    const flipType = (db: 0 | 1) => (f: string) => {
      const { root, pageSize } = rootOf(f, db);
      const b = readFileSync(f);
      b[root * pageSize + 18]! ^= 0xff; // the page's flags: a leaf becomes a branch, an overflow and a meta page
      writeFileSync(f, b);
    };
    const free = damagedCopy('free-root', flipType(0));
    expect(() => checkLmdbDataFile(join(free, 'chain', 'data.mdb'))).toThrow(StoreDamagedError);
    expect(() => openStore(free)).toThrow(/the root page \d+ of the free-page list is not the leaf page its meta page names/);
    const main = damagedCopy('main-root', flipType(1));
    expect(() => openStore(main)).toThrow(/the root page \d+ of the main database is not the leaf page its meta page names/);
  });
});
