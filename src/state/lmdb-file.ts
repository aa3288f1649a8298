/**
 * A check of an LMDB data file before it is opened. LMDB maps the file into memory: one cut short
 * (a full disk, a bad copy) makes the process die of SIGBUS when a page past its end is read, and
 * garbled meta pages can crash it with SIGSEGV, in both cases before any message. So the node
 * reads the two meta pages itself and refuses, naming the file, a data file whose meta pages are
 * not LMDB's or that ends before the last page its newest committed transaction uses.
 *
 * Layout of the lmdb package's LMDB (data format 2): a page starts with a 24-byte header (page
 * number u64, txnid u64, pad u16, flags u16, lower/upper u16); meta pages 0 and 1 hold MDB_meta
 * after it: magic u32, version u32, address u64, map size u64, two MDB_db records of 48 bytes
 * (the first one's leading u32 is the page size), the last page number u64, the txnid u64.
 * An MDB_db record (the free-page list's, then the main database's) holds pad u32, flags u16,
 * depth u16, four page and entry counts u64, and its root page number u64. Those two roots are
 * checked too: a root page whose type bits were flipped (a leaf read as a branch) sends LMDB to
 * page numbers past the file's end, SIGBUS again. (Pages below them are not walked: their damage
 * shows as a read error, or in the start-up check of the chain, src/chain/store-check.ts.)
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';

const MDB_MAGIC = 0xbeefc0de;
/** The data format this check knows; another one is left to LMDB. */
const MDB_DATA_VERSION = 2;
const PAGE_HEADER_BYTES = 24;
const P_META = 0x08;
const META = {
  magic: PAGE_HEADER_BYTES,
  version: PAGE_HEADER_BYTES + 4,
  pageSize: PAGE_HEADER_BYTES + 24,
  lastPage: PAGE_HEADER_BYTES + 24 + 2 * 48,
  txnid: PAGE_HEADER_BYTES + 24 + 2 * 48 + 8,
} as const;
const META_BYTES = META.txnid + 8;
/** Offsets in an MDB_db record; the meta page holds two from META.pageSize on. */
const DB_RECORD_BYTES = 48;
const DB = { depth: 6, root: 40 } as const;
const P_BRANCH = 0x01;
const P_LEAF = 0x02;
const P_OVERFLOW = 0x04;
/** Page-type bits a root may carry: exactly one of branch and leaf. */
const PAGE_TYPE_BITS = P_BRANCH | P_LEAF | P_OVERFLOW | P_META;
/** The root of an empty database (P_INVALID). */
const NO_ROOT = 0xffff_ffff_ffff_ffffn;
const MIN_PAGE_SIZE = 512;
const MAX_PAGE_SIZE = 65_536;

/** The data file is not one LMDB can open safely; the message says which file and why. */
export class StoreDamagedError extends Error {
  override name = 'StoreDamagedError';
}

interface Meta {
  pageSize: number;
  lastPage: bigint;
  txnid: bigint;
  /** Depth and root page of the free-page list and of the main database. */
  roots: { depth: number; root: bigint }[];
}

function readAt(fd: number, offset: number, length: number): Buffer {
  const b = Buffer.alloc(length);
  const n = readSync(fd, b, 0, length, offset);
  return b.subarray(0, n);
}

/** The meta page `index` at `offset`, or a reason it is not one; null for another data format. */
function metaAt(fd: number, offset: number, index: number): Meta | string | null {
  const b = readAt(fd, offset, META_BYTES);
  if (b.length < META_BYTES) return `meta page ${index} is cut short`;
  if (b.readUInt32LE(META.magic) !== MDB_MAGIC) return `meta page ${index} does not carry LMDB's mark`;
  if (b.readUInt32LE(META.version) !== MDB_DATA_VERSION) return null;
  if (b.readBigUInt64LE(0) !== BigInt(index) || (b.readUInt16LE(18) & P_META) === 0) return `page ${index} is not a meta page`;
  const pageSize = b.readUInt32LE(META.pageSize);
  if (pageSize < MIN_PAGE_SIZE || pageSize > MAX_PAGE_SIZE || (pageSize & (pageSize - 1)) !== 0) return `meta page ${index} names a page size of ${pageSize}`;
  const roots = [0, 1].map((i) => {
    const at = META.pageSize + i * DB_RECORD_BYTES;
    return { depth: b.readUInt16LE(at + DB.depth), root: b.readBigUInt64LE(at + DB.root) };
  });
  return { pageSize, lastPage: b.readBigUInt64LE(META.lastPage), txnid: b.readBigUInt64LE(META.txnid), roots };
}

/**
 * Throws StoreDamagedError when the LMDB data file `file` exists, is not empty (LMDB sets up an
 * empty one) and is damaged as described above. Says nothing of a data format it does not know.
 */
export function checkLmdbDataFile(file: string): void {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return; // not there yet: LMDB creates it
  }
  if (size === 0) return;
  const damaged = (why: string) =>
    new StoreDamagedError(`the store file ${file} is damaged (${why}); LMDB would crash on it. Restore the directory from a backup, or move it away and let the node sync or start afresh`);
  const fd = openSync(file, 'r');
  try {
    const first = metaAt(fd, 0, 0);
    if (first === null) return;
    if (typeof first === 'string') throw damaged(first);
    const second = metaAt(fd, first.pageSize, 1);
    if (second === null) return;
    if (typeof second === 'string') throw damaged(second);
    if (second.pageSize !== first.pageSize) throw damaged(`its meta pages name page sizes ${first.pageSize} and ${second.pageSize}`);
    const newest = second.txnid > first.txnid ? second : first;
    const needed = (newest.lastPage + 1n) * BigInt(newest.pageSize);
    if (BigInt(size) < needed) throw damaged(`it holds ${size} bytes, but its last committed transaction uses ${needed}: the file was cut short`);
    for (const [i, { depth, root }] of newest.roots.entries()) {
      if (root === NO_ROOT) continue;
      const what = i === 0 ? 'the free-page list' : 'the main database';
      if (root > newest.lastPage) throw damaged(`the root page ${root} of ${what} lies past its last page ${newest.lastPage}`);
      const header = readAt(fd, Number(root) * newest.pageSize, PAGE_HEADER_BYTES);
      const type = header.readUInt16LE(18) & PAGE_TYPE_BITS;
      if (header.readBigUInt64LE(0) !== root || type !== (depth > 1 ? P_BRANCH : P_LEAF)) {
        throw damaged(`the root page ${root} of ${what} is not the ${depth > 1 ? 'branch' : 'leaf'} page its meta page names`);
      }
    }
  } finally {
    closeSync(fd);
  }
}
