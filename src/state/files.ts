/**
 * Small files of a data directory outside LMDB (the wallet's keystore, the peer book): written
 * whole or not at all, so a crash or a power cut leaves the previous version, never half a file.
 */
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';

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
