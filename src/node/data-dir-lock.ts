/**
 * One node per data directory. LMDB lets several processes open the store, but the rest of the
 * node assumes it is the only writer: each node rewrites `wallet.json` from its memory (addresses
 * another created vanish, with the funds they received), and the mempool records and block
 * production count on nobody else writing the chain. So a node (createNode, hence `dltnode start`)
 * takes `<data-dir>/dltnode.lock` before it opens anything there, and a second node on the same
 * directory is refused with the pid that holds it. Read-only commands (`dltnode wallet address`)
 * take no lock.
 *
 * The lock is a file holding its owner (pid, host, boot, pid namespace, process start). It is
 * created atomically: the content is written to a temporary file that is then hard-linked to the
 * lock's name, which fails when the name exists, so of two nodes started at the same instant one
 * wins, and a reader never sees a half-written lock. A lock whose owner is gone is taken over:
 * - garbled (one this user cannot read is not touched: the message says so);
 * - the machine restarted since (another boot id);
 * - the pid is ours but this process did not take it (a restarted container's pid 1: its start
 *   time differs);
 * - the pid no longer exists (ESRCH), or it is another process now (its start time differs);
 * - an owner on another host or in another pid namespace, whose pid means nothing here: only once
 *   the lock has not been refreshed for LOCK_STALE_MS (the owner touches it every LOCK_REFRESH_MS).
 * Taking over is serialised by a second file (`dltnode.lock.takeover`, created the same way), so two
 * nodes that both found the same stale lock cannot both replace it.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, lstatSync, readFileSync, readlinkSync, realpathSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { makeDirectory } from '../state/files.js';

export const LOCK_FILE = 'dltnode.lock';
/** The lock owner's command a devnet records (src/cli/devnet.ts). */
export const DEVNET_COMMAND = 'dltnode devnet';
/** How often the owner touches its lock, so that a node that cannot check the pid can tell it is alive. */
export const LOCK_REFRESH_MS = 10_000;
/** A lock of another host or pid namespace not touched for this long is taken over. */
export const LOCK_STALE_MS = 60_000;
/** A takeover holds its guard for milliseconds: one older than this was left by a process that died in it. */
const TAKEOVER_STALE_MS = 10_000;
/** How long to wait for another node's takeover of the same stale lock to finish. */
const TAKEOVER_WAIT_MS = 3_000;

export type DataDirLockCode = 'DATA_DIR_IN_USE' | 'DATA_DIR_LOCK_BUSY' | 'DATA_DIR_UNUSABLE';

export class DataDirLockError extends Error {
  override name = 'DataDirLockError';
  constructor(
    message: string,
    readonly code: DataDirLockCode,
    readonly holder: LockOwner | null,
  ) {
    super(message);
  }
}

/** What a lock file records about its owner. */
export interface LockOwner {
  pid: number;
  command: string;
  host: string;
  startedAt: string;
  /** Random, per lock: tells this process's own lock from a lock an earlier process with our pid left. */
  token: string;
  /** Linux only: /proc/sys/kernel/random/boot_id, /proc/self/ns/pid, /proc/self/stat's start time. */
  bootId?: string;
  pidNs?: string;
  procStart?: string;
}

export interface DataDirLock {
  /** The lock file. */
  readonly path: string;
  readonly owner: LockOwner;
  /** Removes the lock if it is still ours; idempotent. */
  release(): void;
}

/** Locks held by this process, by lock path → token (a second node in this process is refused too). */
const heldHere = new Map<string, { token: string; release: () => void }>();
let exitHookInstalled = false;

/**
 * mkdir -p of a data directory, its failure said as one sentence naming the path (a file in the
 * way, no permission, a file system that takes no directories such as /proc) and the option that gave it.
 */
export function createDataDir(dataDir: string, option = '--data-dir'): void {
  const absolute = resolve(dataDir);
  try {
    makeDirectory(absolute);
  } catch (e) {
    // The deepest existing part of the path: a file there, or a symbolic link that leads nowhere
    // (dangling or a loop), is what stopped mkdir (EEXIST, ENOTDIR).
    let why = (e as Error).message;
    for (let p = absolute; dirname(p) !== p; p = dirname(p)) {
      if (existsSync(p)) {
        if (!statSync(p).isDirectory()) why = `${p} is a file, not a directory`;
        break;
      }
      if (isSymbolicLink(p)) {
        why = `${p} is a symbolic link that leads to no directory`;
        break;
      }
    }
    throw new DataDirLockError(`data directory ${dataDir} cannot be created: ${why}; give another ${option}`, 'DATA_DIR_UNUSABLE', null);
  }
}

/** Whether `path` itself is a symbolic link (false when it or a parent cannot be read). */
function isSymbolicLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Takes the lock of `dataDir` (creating the directory if needed), or throws DataDirLockError with
 * a one-line message naming the directory and the process that holds it (or, when the directory
 * cannot be made or written, the option that gave it: `option`, default --data-dir).
 */
export function lockDataDir(dataDir: string, o: { command?: string; option?: string } = {}): DataDirLock {
  const option = o.option ?? '--data-dir';
  const shown = resolve(dataDir);
  createDataDir(dataDir, option);
  const dir = realpathSync(shown);
  const path = join(dir, LOCK_FILE);
  const owner: LockOwner = {
    pid: process.pid,
    command: o.command ?? 'dltnode start',
    host: hostname(),
    startedAt: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
    ...linuxIdentity('self'),
  };
  const temp = join(dir, `.${LOCK_FILE}.${process.pid}.${owner.token}`);
  try {
    writeFileSync(temp, `${JSON.stringify(owner)}\n`, { flag: 'wx', mode: 0o644 });
  } catch (e) {
    // The first file the node writes there: a directory it may not write to is said as such.
    throw new DataDirLockError(`data directory ${dataDir} is not writable: ${(e as Error).message}; give another ${option}`, 'DATA_DIR_UNUSABLE', null);
  }
  try {
    const waitUntil = Date.now() + TAKEOVER_WAIT_MS;
    for (;;) {
      if (tryLink(temp, path)) return hold(path, owner);
      const seen = readLock(path);
      // 'gone': released between our link and our read, so the link is tried again at once.
      if (seen !== 'gone') {
        const verdict = judge(seen);
        if (verdict !== 'stale') throw new DataDirLockError(inUseMessage(shown, path, seen, verdict), 'DATA_DIR_IN_USE', seen.owner);
        if (takeOver(path, seen, temp)) return hold(path, owner);
        sleepSync(50);
      }
      if (Date.now() > waitUntil) {
        throw new DataDirLockError(`data directory ${shown}: another process is taking over its stale lock ${path}; try again`, 'DATA_DIR_LOCK_BUSY', null);
      }
    }
  } finally {
    unlinkQuiet(temp);
  }
}

function hold(path: string, owner: LockOwner): DataDirLock {
  // Refreshed so that a node on another host or in another container can tell the lock is alive.
  const refresh = setInterval(() => {
    const now = new Date();
    try {
      utimesSync(path, now, now);
    } catch {
      /* removed by hand: nothing to refresh */
    }
  }, LOCK_REFRESH_MS);
  refresh.unref();
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    clearInterval(refresh);
    heldHere.delete(path);
    const seen = readLock(path);
    if (seen !== 'gone' && seen.owner?.token === owner.token) unlinkQuiet(path);
  };
  heldHere.set(path, { token: owner.token, release });
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // A forced exit (second signal) skips the shutdown: the lock goes anyway.
    process.on('exit', () => {
      for (const h of [...heldHere.values()]) h.release();
    });
  }
  return { path, owner, release };
}

/** A lock as read: its owner (null when garbled), or the error that kept us from reading it. */
type Seen = { owner: LockOwner | null; ino: number; mtimeMs: number; unreadable?: string };

function readLock(path: string): Seen | 'gone' {
  let st: ReturnType<typeof statSync>;
  let text: string;
  try {
    st = statSync(path);
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'ENOENT') return 'gone';
    return { owner: null, ino: -1, mtimeMs: 0, unreadable: code };
  }
  return { owner: parseOwner(text), ino: st.ino, mtimeMs: st.mtimeMs };
}

function parseOwner(text: string): LockOwner | null {
  try {
    const v = JSON.parse(text) as Partial<LockOwner>;
    if (!Number.isInteger(v.pid) || (v.pid as number) <= 0 || typeof v.token !== 'string' || typeof v.host !== 'string') return null;
    return { command: 'dltnode', startedAt: '?', ...v } as LockOwner;
  } catch {
    return null;
  }
}

type Verdict = 'stale' | 'held' | 'held here' | 'held elsewhere' | 'unreadable';

/** Whether the owner of a lock still runs (see the module comment for the rules). */
function judge(seen: Seen): Verdict {
  // A lock we may not read (another user's?) is not ours to remove; a garbled one has no owner.
  if (seen.unreadable) return 'unreadable';
  const h = seen.owner;
  if (!h) return 'stale';
  const self = linuxIdentity('self');
  const here = h.host === hostname() && (h.pidNs === undefined || self.pidNs === undefined || h.pidNs === self.pidNs);
  if (h.host === hostname() && h.bootId && self.bootId && h.bootId !== self.bootId) return 'stale';
  if (!here) return Date.now() - seen.mtimeMs > LOCK_STALE_MS ? 'stale' : 'held elsewhere';
  if (h.pid === process.pid) {
    if ([...heldHere.values()].some((x) => x.token === h.token)) return 'held here';
    // Our start time: this very process (another worker thread's node); else an earlier process
    // that had our pid.
    return h.procStart && self.procStart && h.procStart === self.procStart ? 'held here' : 'stale';
  }
  try {
    process.kill(h.pid, 0);
  } catch (err) {
    // EPERM: it exists, as another user's process.
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return 'stale';
  }
  const now = linuxIdentity(h.pid).procStart;
  if (h.procStart && now && h.procStart !== now) return 'stale';
  return 'held';
}

function inUseMessage(shown: string, path: string, seen: Seen, verdict: Verdict): string {
  if (verdict === 'unreadable' || !seen.owner) return `data directory ${shown} is locked by ${path}, which cannot be read (${seen.unreadable}); is a node of another user running there?`;
  const h = seen.owner;
  if (verdict === 'held here') return `data directory ${shown} is in use by this process (pid ${h.pid}, ${h.command})`;
  if (verdict === 'held elsewhere') {
    return `data directory ${shown} is in use by process ${h.pid} on ${h.host} (${h.command}); stop that node first (${path} is taken over once not refreshed for ${LOCK_STALE_MS / 1000} s)`;
  }
  // A devnet holds its --dir while it runs its nodes: the one to stop is the devnet (its SIGTERM
  // stops every node it started, README "Local network").
  if (h.command === DEVNET_COMMAND) return `data directory ${shown} is in use by process ${h.pid} (${h.command}); stop that devnet first (Ctrl-C where it runs, or kill ${h.pid}: it stops its nodes too)`;
  return `data directory ${shown} is in use by process ${h.pid} (${h.command}); stop that node first`;
}

/**
 * Replaces the lock judged stale (`stale`) with ours, under the takeover guard: true, or false
 * when another process is taking over (or has taken over) meanwhile.
 */
function takeOver(path: string, stale: Seen, temp: string): boolean {
  const guard = `${path}.takeover`;
  const guardTemp = `${temp}.takeover`;
  writeFileSync(guardTemp, `${process.pid}\n`, { flag: 'wx' });
  try {
    if (!tryLink(guardTemp, guard)) {
      // A guard that old was left by a process that died inside its takeover.
      try {
        if (Date.now() - statSync(guard).mtimeMs > TAKEOVER_STALE_MS) unlinkQuiet(guard);
      } catch {
        /* gone meanwhile */
      }
      return false;
    }
  } finally {
    unlinkQuiet(guardTemp);
  }
  try {
    // Only the lock we judged stale is removed (same file, same token): a lock that replaced it
    // meanwhile is judged again.
    const now = readLock(path);
    if (now !== 'gone') {
      if (now.ino !== stale.ino || now.owner?.token !== stale.owner?.token) return false;
      try {
        unlinkSync(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    return tryLink(temp, path);
  } finally {
    unlinkQuiet(guard);
  }
}

/** Hard-links `from` to `to`: true, or false when `to` exists. */
function tryLink(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

function unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* already gone */
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Boot id, pid namespace and start time (clock ticks since boot) of a process, where /proc has them. */
function linuxIdentity(pid: number | 'self'): Pick<LockOwner, 'bootId' | 'pidNs' | 'procStart'> {
  const out: Pick<LockOwner, 'bootId' | 'pidNs' | 'procStart'> = {};
  try {
    out.bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    /* not Linux */
  }
  try {
    if (pid === 'self') out.pidNs = readlinkSync('/proc/self/ns/pid');
  } catch {
    /* not Linux */
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may hold spaces and parentheses; starttime is field 22.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[19]) out.procStart = fields[19];
  } catch {
    /* not Linux, or the process is gone */
  }
  return out;
}
