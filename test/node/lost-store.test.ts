/**
 * A data directory whose chain store was lost (data.mdb cut to 0 bytes, deleted, or replaced by an
 * empty store) after it had held a chain is refused at start, naming the file and what to do,
 * instead of starting a new chain as if the directory were new (src/state/store-marker.ts). An
 * empty data.mdb left by a crash during the very first start, before anything was committed,
 * still starts. Real processes on prepared directories (dist/: `npm run build` first).
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newDataDir, startNode } from '../e2e/harness.js';
import { STORE_MARKER_FILE } from '../../src/state/store-marker.js';
import { openStore } from '../../src/state/store.js';

const CLI = join(import.meta.dirname, '../../dist/cli/main.js');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A data directory holding a chain of at least 3 blocks, its node stopped. */
async function dirWithChain(): Promise<string> {
  const node = await startNode({ blockInterval: 0.2 });
  dirs.push(node.dataDir);
  await node.waitForHeight(3, 30_000);
  expect(await node.kill('SIGTERM')).toBe(0);
  return node.dataDir;
}

/** Starts `start` on `dataDir` and waits (at most 30 s) for it to exit; a node that comes up is stopped. */
function startOnce(dataDir: string): Promise<{ code: number | null; out: string; started: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'start', '--network', 'reg', '--data-dir', dataDir, '--rpc-port', '0', '--pool-threads', '1', '--status-interval', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let started = false;
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      if (!started && /RPC listening on/.test(out)) {
        started = true;
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, started });
    });
  });
}

function expectLost(r: { code: number | null; out: string; started: boolean }, file: string, dataDir: string): void {
  expect(r.started, r.out).toBe(false);
  expect(r.code, r.out).toBe(1);
  const line = r.out.split('\n').find((l) => l.startsWith('dltnode: '));
  expect(line, r.out).toBeDefined();
  expect(line).toContain(file);
  expect(line).toContain(`move ${join(dataDir, 'chain')} away`);
}

describe('a lost chain store', () => {
  it('data.mdb cut to 0 bytes after the chain was made is refused, and stays refused', async () => {
    const dataDir = await dirWithChain();
    const file = join(dataDir, 'chain', 'data.mdb');
    truncateSync(file, 0);
    const r = await startOnce(dataDir);
    expectLost(r, file, dataDir);
    expect(r.out).toMatch(/is empty/);
    // Nothing was written: a second start says the same.
    expectLost(await startOnce(dataDir), file, dataDir);
    // The documented way out: the chain directory moved away, the node starts a new chain.
    rmSync(join(dataDir, 'chain'), { recursive: true });
    const fresh = await startOnce(dataDir);
    expect(fresh.started, fresh.out).toBe(true);
  }, 120_000);

  it('data.mdb deleted, or replaced by an empty store, is refused', async () => {
    const dataDir = await dirWithChain();
    const file = join(dataDir, 'chain', 'data.mdb');
    unlinkSync(file);
    const r = await startOnce(dataDir);
    expectLost(r, file, dataDir);
    expect(r.out).toMatch(/is missing/);
    expect(existsSync(file)).toBe(false);
    // An empty LMDB store in its place (a copy of a new directory's).
    const empty = mkdtempSync(join(tmpdir(), 'dltnode-empty-'));
    dirs.push(empty);
    await openStore(empty).close();
    copyFileSync(join(empty, 'chain', 'data.mdb'), file);
    expectLost(await startOnce(dataDir), file, dataDir);
  }, 120_000);

  it('an empty data.mdb from a crash during the first start, before any commit, starts a new chain', async () => {
    const { dataDir } = await newDataDir();
    dirs.push(dataDir);
    mkdirSync(join(dataDir, 'chain'));
    writeFileSync(join(dataDir, 'chain', 'data.mdb'), '');
    const r = await startOnce(dataDir);
    expect(r.started, r.out).toBe(true);
    expect(existsSync(join(dataDir, 'chain', STORE_MARKER_FILE))).toBe(true);
  }, 60_000);

  it('a directory from before the marker gets it at its next start, and is protected from then on', async () => {
    const dataDir = await dirWithChain();
    rmSync(join(dataDir, 'chain', STORE_MARKER_FILE), { force: true });
    const again = await startOnce(dataDir);
    expect(again.started, again.out).toBe(true);
    expect(existsSync(join(dataDir, 'chain', STORE_MARKER_FILE))).toBe(true);
    const file = join(dataDir, 'chain', 'data.mdb');
    truncateSync(file, 0);
    expectLost(await startOnce(dataDir), file, dataDir);
  }, 120_000);
});
