/**
 * Small files of a data directory outside LMDB (the wallet's keystore, the peer book): written
 * whole or not at all, so a crash or a power cut leaves the previous version, never half a file.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Writes `text` to `path` through `path.tmp`, flushed to disk, then renamed over `path`. */
export function writeFileAtomic(path: string, text: string, mode = 0o644): void {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w', mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/**
 * A small JSON file's content (the peer book, a client's relay memory), or undefined when there is
 * none. A file that cannot be read or parsed is reported to `onError` and also reads as none: the
 * node starts without what it held rather than not at all.
 */
export function readJsonFile(path: string, onError: (err: unknown) => void): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') onError(err);
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    onError(err);
    return undefined;
  }
}

/**
 * mkdir -p, one level at a time. node's own `mkdirSync(path, { recursive: true })` never returns
 * when mkdir fails with ENOENT under a directory that exists (any path under /proc): it retries
 * the parent forever. Here each missing level is made once, so every failure (ENOENT, ENOTDIR,
 * EACCES, EROFS, EEXIST for a file in place of the directory) is thrown as mkdir gave it.
 */
export function makeDirectory(path: string): void {
  const missing: string[] = [];
  let p = resolve(path);
  // Bounded by the path's depth: dirname of the root is the root.
  while (!existsSync(p) && dirname(p) !== p) {
    missing.push(p);
    p = dirname(p);
  }
  if (missing.length === 0 && isDirectory(p)) return;
  // Nothing missing but not a directory: mkdir says EEXIST, as the recursive form does.
  if (missing.length === 0) missing.push(p);
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir);
    } catch (e) {
      // Made by another process since the check (two nodes of a devnet starting at once); a
      // dangling or looping symbolic link there is said by mkdir's own error.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !isDirectory(dir)) throw e;
    }
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
