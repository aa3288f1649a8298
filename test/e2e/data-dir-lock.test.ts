/**
 * Two `dltnode start` on one data directory (src/node/data-dir-lock.ts): the second is refused
 * with exit code 1 and the pid of the first, and touches nothing there (the first's wallet stays
 * as it wrote it); a node SIGKILLed leaves its lock behind, and the next start takes it over.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../src/node/data-dir-lock.js';
import { KEYSTORE_FILE } from '../../src/wallet/keystore.js';
import { newDataDir, startNode, type NodeProcess } from './harness.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const running: NodeProcess[] = [];
let dataDir = '';

afterAll(async () => {
  for (const n of running) await n.kill('SIGKILL');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** `dltnode start` on `dir` as the harness runs it, to its exit (bounded). */
function startToExit(dir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, 'start', '--network', 'reg', '--data-dir', dir, '--rpc-port', '0', '--block-interval', '0.5', '--pool-threads', '1', '--status-interval', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`the second start did not exit within 20 s:\n${stdout}${stderr}`));
    }, 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      ok({ code, stdout, stderr });
    });
  });
}

const lockOwner = () => (JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as { pid: number }).pid;

describe('one node per data directory', () => {
  it('a second start on a directory in use exits 1 naming the pid, changes nothing, and the first node keeps answering', async () => {
    ({ dataDir } = await newDataDir());
    const first = await startNode({ dataDir });
    running.push(first);
    // An address the first node made: the second node would have rewritten wallet.json without it.
    const made = await first.call<string>('generateNewAddress');
    const wallet = readFileSync(join(dataDir, KEYSTORE_FILE), 'utf8');
    const files = readdirSync(dataDir).sort();

    const second = await startToExit(dataDir);
    expect(second.code, second.stdout + second.stderr).toBe(1);
    expect(second.stderr.trim()).toBe(`dltnode: data directory ${dataDir} is in use by process ${first.child.pid} (dltnode start); stop that node first`);
    expect(readdirSync(dataDir).sort()).toEqual(files);
    expect(readFileSync(join(dataDir, KEYSTORE_FILE), 'utf8')).toBe(wallet);
    expect(lockOwner()).toBe(first.child.pid);

    expect((await first.call('status'))['Block Height']).toBeGreaterThanOrEqual(1);
    expect(Object.keys(await first.call('myWallet'))).toContain(made);
  });

  it('after a SIGKILL the lock is left behind and the next start takes it over; a graceful stop removes it', async () => {
    const first = running.pop()!;
    await first.kill('SIGKILL');
    expect(lockOwner()).toBe(first.child.pid);

    const next = await startNode({ dataDir });
    running.push(next);
    expect(lockOwner()).toBe(next.child.pid);
    expect((await next.call('status'))['Block Height']).toBeGreaterThanOrEqual(1);

    expect(await next.kill('SIGTERM')).toBe(0);
    running.pop();
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });
});
