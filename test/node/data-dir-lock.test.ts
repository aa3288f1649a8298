/**
 * The data directory's lock (src/node/data-dir-lock.ts): one node per directory, a dead owner's
 * lock taken over, and of nodes started at the same instant exactly one wins. Other processes
 * hold locks through the built module (dist/node/data-dir-lock.js: run `npm run build` first).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DataDirLockError, LOCK_FILE, LOCK_STALE_MS, lockDataDir, type DataDirLock } from '../../src/node/data-dir-lock.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUILT = join(ROOT, 'dist', 'node', 'data-dir-lock.js');
const base = mkdtempSync(join(tmpdir(), 'dltnode-lock-'));
const children: ChildProcess[] = [];
const held: DataDirLock[] = [];
const linux = existsSync('/proc/self/stat');

afterEach(() => {
  for (const l of held.splice(0)) l.release();
});
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(base, { recursive: true, force: true });
});

let n = 0;
const newDir = () => mkdtempSync(join(base, `d${n++}-`));
const lockPath = (dir: string) => join(dir, LOCK_FILE);
const take = (dir: string) => {
  const l = lockDataDir(dir);
  held.push(l);
  return l;
};
const owner = (dir: string) => JSON.parse(readFileSync(lockPath(dir), 'utf8')) as { pid: number; token: string };
/** Names and contents of the files in `dir`. */
const snapshot = (dir: string) => readdirSync(dir).sort().map((f) => [f, readFileSync(join(dir, f), 'utf8'), statSync(join(dir, f)).mtimeMs]);
/** A lock file as another process would have written it. */
const writeLock = (dir: string, fields: Record<string, unknown>) =>
  writeFileSync(lockPath(dir), JSON.stringify({ pid: 1, command: 'dltnode start', host: hostname(), startedAt: new Date().toISOString(), token: 'f00d', ...fields }));

function refusal(dir: string): DataDirLockError {
  try {
    take(dir);
  } catch (err) {
    expect(err).toBeInstanceOf(DataDirLockError);
    return err as DataDirLockError;
  }
  throw new Error(`${dir} was locked, expected a refusal`);
}

/** A pid no process has (one that ran and exited). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '']);
  return r.pid!;
}

/** A script that takes the lock at `startAt` (ms since the epoch) and holds it for `holdMs`. */
const CONTENDER = `
import { lockDataDir } from ${JSON.stringify(pathToFileURL(BUILT).href)};
const [dir, startAt, holdMs] = process.argv.slice(2);
while (Date.now() < Number(startAt)) {}
try {
  lockDataDir(dir);
  console.log(JSON.stringify({ won: true, pid: process.pid }));
  setTimeout(() => process.exit(0), Number(holdMs));
} catch (e) {
  console.log(JSON.stringify({ won: false, code: e.code, message: e.message }));
}
`;
const contenderScript = join(base, 'contender.mjs');
writeFileSync(contenderScript, CONTENDER);

interface Outcome { won: boolean; pid?: number; code?: string; message?: string }

/** Runs a contender; resolves with its outcome line once printed (and its exit, when it has one). */
function contender(dir: string, startAt: number, holdMs: number): { child: ChildProcess; outcome: Promise<Outcome>; exited: Promise<number | null> } {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npm run build\` first`);
  const child = spawn(process.execPath, [contenderScript, dir, String(startAt), String(holdMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  let out = '';
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const outcome = new Promise<Outcome>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`contender ${child.pid} printed nothing within 20 s`)), 20_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n')) {
        clearTimeout(timer);
        ok(JSON.parse(line!) as Outcome);
      }
    });
  });
  return { child, outcome, exited };
}

describe('data directory lock', () => {
  it('locks a fresh directory (created if missing) for this process, and release removes the lock', () => {
    const dir = join(newDir(), 'a', 'b');
    const l = take(dir);
    expect(l.path).toBe(lockPath(dir));
    expect(owner(dir)).toMatchObject({ pid: process.pid, command: 'dltnode start' });
    expect(readdirSync(dir)).toEqual([LOCK_FILE]); // no temporary file left
    l.release();
    expect(existsSync(lockPath(dir))).toBe(false);
    l.release(); // idempotent
    take(dir);
    expect(existsSync(lockPath(dir))).toBe(true);
  });

  it('a data directory path that names a file is refused in one sentence naming the path, not with mkdir\'s EEXIST', () => {
    const file = join(newDir(), 'a-file');
    writeFileSync(file, 'x');
    for (const dir of [file, join(file, 'below')]) {
      let err: unknown;
      try {
        take(dir);
      } catch (e) {
        err = e;
      }
      expect(err, dir).toBeInstanceOf(DataDirLockError);
      expect((err as DataDirLockError).code).toBe('DATA_DIR_UNUSABLE');
      expect((err as Error).message).toBe(`data directory ${dir} cannot be created: ${file} is a file, not a directory; give another --data-dir`);
    }
  });

  it('a data directory path through a dangling or looping symbolic link is refused naming the link', () => {
    const root = newDir();
    const dangling = join(root, 'dangling');
    symlinkSync(join(root, 'nowhere'), dangling);
    const loop = join(root, 'loop-a');
    symlinkSync(join(root, 'loop-b'), loop);
    symlinkSync(loop, join(root, 'loop-b'));
    for (const [dir, link] of [[dangling, dangling], [join(dangling, 'below'), dangling], [join(loop, 'below'), loop]] as const) {
      let err: unknown;
      try {
        take(dir);
      } catch (e) {
        err = e;
      }
      expect(err, dir).toBeInstanceOf(DataDirLockError);
      expect((err as Error).message).toBe(`data directory ${dir} cannot be created: ${link} is a symbolic link that leads to no directory; give another --data-dir`);
    }
  });

  it('refuses a directory another live process holds, naming it and the pid, and changes nothing there; takes it over once that process is SIGKILLed', async () => {
    const dir = newDir();
    const holder = contender(dir, 0, 60_000);
    expect(await holder.outcome).toMatchObject({ won: true, pid: holder.child.pid });
    const before = snapshot(dir);
    const err = refusal(dir);
    expect(err.code).toBe('DATA_DIR_IN_USE');
    expect(err.message).toBe(`data directory ${dir} is in use by process ${holder.child.pid} (dltnode start); stop that node first`);
    expect(err.holder?.pid).toBe(holder.child.pid);
    expect(snapshot(dir)).toEqual(before);

    holder.child.kill('SIGKILL');
    await holder.exited;
    expect(owner(dir).pid).toBe(holder.child.pid); // left behind
    take(dir);
    expect(owner(dir).pid).toBe(process.pid);
  });

  it('names a devnet holding the directory as the devnet to stop, and how, not as a node', () => {
    // The parent of this test process lives as long as the test does: a live holder.
    const dir = newDir();
    writeLock(dir, { pid: process.ppid, command: 'dltnode devnet' });
    const err = refusal(dir);
    expect(err.code).toBe('DATA_DIR_IN_USE');
    expect(err.message).toBe(`data directory ${dir} is in use by process ${process.ppid} (dltnode devnet); stop that devnet first (Ctrl-C where it runs, or kill ${process.ppid}: it stops its nodes too)`);
  });

  it('takes over a lock whose pid no longer exists, or that is garbled', () => {
    const gone = newDir();
    writeLock(gone, { pid: deadPid() });
    take(gone);
    expect(owner(gone).pid).toBe(process.pid);

    for (const text of ['', 'not json', '{"pid":"12"}', '{"pid":0,"token":"x","host":"h"}']) {
      const garbled = newDir();
      writeFileSync(lockPath(garbled), text);
      take(garbled);
      expect(owner(garbled).pid, text).toBe(process.pid);
    }
  });

  it('our own pid: a second node in this process is refused; a lock an earlier process with our pid left is taken over', () => {
    const dir = newDir();
    take(dir);
    const err = refusal(dir);
    expect(err.code).toBe('DATA_DIR_IN_USE');
    expect(err.message).toBe(`data directory ${dir} is in use by this process (pid ${process.pid}, dltnode start)`);

    // A restarted container's node has the pid of the one killed before (and another start time).
    const earlier = newDir();
    writeLock(earlier, { pid: process.pid, token: 'earlier', procStart: '1' });
    take(earlier);
    expect(owner(earlier)).toMatchObject({ pid: process.pid });
    expect(owner(earlier).token).not.toBe('earlier');
  });

  it.runIf(linux)('a live pid that is another process now (its start time differs), or a lock from before a reboot, is taken over', async () => {
    const other = contender(newDir(), 0, 60_000);
    await other.outcome;
    const reused = newDir();
    writeLock(reused, { pid: other.child.pid, procStart: '1' });
    take(reused);
    expect(owner(reused).pid).toBe(process.pid);

    const rebooted = newDir();
    writeLock(rebooted, { pid: other.child.pid, bootId: 'another-boot' });
    take(rebooted);
    expect(owner(rebooted).pid).toBe(process.pid);
    other.child.kill('SIGKILL');
  });

  it('a lock of another host (its pid means nothing here) is held until it has not been refreshed for LOCK_STALE_MS', () => {
    const dir = newDir();
    writeLock(dir, { pid: 4242, host: 'elsewhere.example' });
    const err = refusal(dir);
    expect(err.message).toMatch(new RegExp(`^data directory ${dir} is in use by process 4242 on elsewhere.example \\(dltnode start\\); stop that node first`));
    const old = new Date(Date.now() - LOCK_STALE_MS - 5_000);
    utimesSync(lockPath(dir), old, old);
    take(dir);
    expect(owner(dir).pid).toBe(process.pid);
  });

  for (const start of ['a fresh directory', 'a stale lock'] as const) {
    it(`of six processes locking ${start} at the same instant exactly one wins, and its exit removes the lock`, async () => {
      const dir = newDir();
      if (start === 'a stale lock') writeLock(dir, { pid: deadPid() });
      const at = Date.now() + 2_000;
      const runs = Array.from({ length: 6 }, () => contender(dir, at, 1_000));
      const outcomes = await Promise.all(runs.map((r) => r.outcome));
      const winners = outcomes.filter((o) => o.won);
      expect(winners, JSON.stringify(outcomes)).toHaveLength(1);
      for (const o of outcomes.filter((x) => !x.won)) {
        expect(o.code, o.message).toBe('DATA_DIR_IN_USE');
        expect(o.message).toBe(`data directory ${dir} is in use by process ${winners[0]!.pid} (dltnode start); stop that node first`);
      }
      expect(owner(dir).pid).toBe(winners[0]!.pid);
      await Promise.all(runs.map((r) => r.exited));
      expect(readdirSync(dir)).toEqual([]);
    }, 30_000);
  }
});
