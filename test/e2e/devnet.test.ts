/**
 * `dltnode devnet` as a process: the nodes it spawns are detached (their own sessions), so the
 * devnet itself must stop them when its terminal goes away (SIGHUP) or its reader does (EPIPE,
 * `devnet | head`); a devnet that died instead would leave them running, or SIGKILL them. A devnet
 * killed outright (SIGKILL) runs no handler: its nodes stop by themselves when their IPC channel to
 * it closes, and the same command on the same directory starts the network again.
 * One master, no relay, no client: the smallest network; its wallet is the harness's cached key.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freeFixedPort, newDataDir } from './harness.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const STARTED_MS = 30_000;
const STOPPED_MS = 25_000;

const dirs: string[] = [];
const nodePids = new Set<number>();
const devnets: ChildProcess[] = [];

afterAll(() => {
  // Whatever a failed test left running is killed here, by the pids the devnets printed.
  for (const d of devnets) if (d.exitCode === null && d.signalCode === null) d.kill('SIGKILL');
  for (const pid of nodePids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

/** A devnet directory whose master-1 already holds the cached wallet (no RSA key generation). */
async function devnetDir(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'dltnode-devnet-'));
  dirs.push(dir);
  const { dataDir } = await newDataDir();
  renameSync(dataDir, join(dir, 'master-1'));
  return dir;
}

/** Spawns `devnet` with the one-master network; stdout and stderr piped and collected. */
function runDevnet(dir: string, extra: string[] = []): { child: ChildProcess; out: () => string; err: () => string; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } {
  const child = spawn(process.execPath, [CLI, 'devnet', '--masters', '1', '--relays', '0', '--clients', '0', '--dir', dir, ...extra], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  devnets.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  return { child, out: () => out, err: () => err, exited };
}

async function bounded<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)));
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('dltnode devnet stops its nodes', () => {
  it('on SIGHUP (the terminal closed): every node stops gracefully and the devnet exits 0', async () => {
    const dir = await devnetDir();
    const d = runDevnet(dir, ['--json']);
    const nodes = await until(() => {
      const lines = d.out().split('\n').filter((l) => l.startsWith('{'));
      if (!lines.some((l) => l.includes('"genesis"'))) return undefined;
      return lines.map((l) => JSON.parse(l) as { pid?: number; rpcUrl?: string }).filter((n) => n.pid !== undefined);
    }, 'the devnet\'s node list', STARTED_MS);
    expect(nodes).toHaveLength(1);
    for (const n of nodes) nodePids.add(n.pid!);
    // The node is up (it answers), so what follows is a running node's shutdown, not a startup's.
    await until(async () => {
      try {
        return (await fetch(`${nodes[0]!.rpcUrl}/status`, { signal: AbortSignal.timeout(2_000) })).ok;
      } catch {
        return false;
      }
    }, 'the node\'s status', STARTED_MS);

    d.child.kill('SIGHUP');
    const { code } = await bounded(d.exited, STOPPED_MS, 'the devnet to exit after SIGHUP');
    expect(code, d.err()).toBe(0);
    expect(d.err()).toContain('SIGHUP: stopping 1 nodes');
    for (const n of nodes) expect(alive(n.pid!), `node pid ${n.pid} after SIGHUP`).toBe(false);
  }, 90_000);

  it('when its output closes (devnet | head): no EPIPE crash, every node stops, the devnet exits 0', async () => {
    const dir = await devnetDir();
    const d = runDevnet(dir);
    await until(() => d.out().includes('Ctrl-C stops every node.'), 'the devnet\'s table', STARTED_MS);
    const pids = [...d.out().matchAll(/^master-1\s+master\s+\S+\s+\S+\s+\d+\s+(\d+)\s/gm)].map((m) => Number(m[1]));
    expect(pids).toHaveLength(1);
    for (const pid of pids) nodePids.add(pid);
    // The reader goes away as `head` does; the node's startup log, written next, meets EPIPE.
    d.child.stdout!.destroy();

    const { code } = await bounded(d.exited, STOPPED_MS, 'the devnet to exit after its stdout closed');
    expect(d.err()).not.toMatch(/Error: write EPIPE|\n\s+at /);
    expect(d.err()).toContain('EPIPE: stopping 1 nodes');
    expect(code, d.err()).toBe(0);
    for (const pid of pids) expect(alive(pid), `node pid ${pid} after EPIPE`).toBe(false);
  }, 90_000);

  it('when the devnet itself is SIGKILLed: no node runs on as an orphan, and devnet on the same --dir starts the network again', async () => {
    const dir = await devnetDir();
    const d = runDevnet(dir, ['--json']);
    const nodes = await until(() => {
      const lines = d.out().split('\n').filter((l) => l.startsWith('{'));
      if (!lines.some((l) => l.includes('"genesis"'))) return undefined;
      return lines.map((l) => JSON.parse(l) as { pid?: number; rpcUrl?: string; dataDir?: string }).filter((n) => n.pid !== undefined);
    }, 'the devnet\'s node list', STARTED_MS);
    for (const n of nodes) nodePids.add(n.pid!);
    // Started (its status has a height): a running node, quiet, that no log line of its startup
    // would crash on the closed pipe (EPIPE) a moment after the devnet is gone.
    const height = await until(async () => {
      try {
        const r = await fetch(`${nodes[0]!.rpcUrl}/status`, { signal: AbortSignal.timeout(2_000) });
        return (await r.json()).result?.['Block Height'] as number | undefined;
      } catch {
        return undefined;
      }
    }, 'the node\'s status', STARTED_MS);

    // Nothing of the devnet runs after this: no handler, no exit hook. The nodes are detached.
    d.child.kill('SIGKILL');
    await bounded(d.exited, STOPPED_MS, 'the devnet to die');
    for (const n of nodes) await until(() => !alive(n.pid!), `node pid ${n.pid} to stop without its devnet`, STOPPED_MS);
    for (const n of nodes) expect(existsSync(join(n.dataDir!, 'dltnode.lock')), `${n.dataDir}/dltnode.lock`).toBe(false);

    // The same command on the same directory starts the same network again, at the height it had.
    const again = runDevnet(dir, ['--json']);
    const rpcUrl = await until(() => again.out().split('\n').find((l) => l.includes('"rpcUrl"')), 'the second devnet\'s node list', STARTED_MS);
    const node = JSON.parse(rpcUrl) as { pid: number; rpcUrl: string };
    nodePids.add(node.pid);
    await until(async () => {
      try {
        return ((await (await fetch(`${node.rpcUrl}/status`, { signal: AbortSignal.timeout(2_000) })).json()).result?.['Block Height'] ?? 0) >= height;
      } catch {
        return false;
      }
    }, 'the restarted node\'s status', STARTED_MS);
    again.child.kill('SIGTERM');
    expect((await bounded(again.exited, STOPPED_MS, 'the second devnet to exit')).code, again.err()).toBe(0);
    expect(alive(node.pid)).toBe(false);
  }, 90_000);

  it('a second devnet on the same --dir is refused at once, naming the first; the first runs on', async () => {
    const dir = await devnetDir();
    const first = runDevnet(dir, ['--json']);
    const line = await until(() => first.out().split('\n').find((l) => l.includes('"rpcUrl"')), 'the first devnet\'s node list', STARTED_MS);
    const node = JSON.parse(line) as { pid: number; rpcUrl: string };
    nodePids.add(node.pid);

    const second = runDevnet(dir, ['--json']);
    const { code } = await bounded(second.exited, STOPPED_MS, 'the second devnet to exit');
    expect(code).toBe(1);
    expect(second.err()).toBe(`dltnode: data directory ${dir} is in use by process ${first.child.pid} (dltnode devnet); stop that devnet first (Ctrl-C where it runs, or kill ${first.child.pid}: it stops its nodes too)\n`);
    expect(second.out()).toBe('');
    expect(alive(node.pid)).toBe(true);

    first.child.kill('SIGTERM');
    expect((await bounded(first.exited, STOPPED_MS, 'the first devnet to exit')).code, first.err()).toBe(0);
  }, 90_000);

  it("prints each node's command line (--json \"command\", and DIR/commands.txt), with which the node restarts by hand", async () => {
    const dir = await devnetDir();
    const d = runDevnet(dir, ['--json']);
    const line = await until(() => d.out().split('\n').find((l) => l.includes('"rpcUrl"')), 'the devnet\'s node list', STARTED_MS);
    const node = JSON.parse(line) as { pid: number; rpcUrl: string; address: string; dataDir: string; command: string[] };
    nodePids.add(node.pid);
    expect(node.command.slice(0, 3)).toEqual([process.execPath, CLI, 'start']);
    expect(node.command).toEqual(expect.arrayContaining(['--data-dir', node.dataDir, '--genesis', join(dir, 'genesis.json')]));
    d.child.kill('SIGTERM');
    expect((await bounded(d.exited, STOPPED_MS, 'the devnet to exit')).code, d.err()).toBe(0);

    // A user restarts master-1 alone, pasting its line into a shell.
    const lines = readFileSync(join(dir, 'commands.txt'), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^master-1: /);
    const byHand = spawn('sh', ['-c', `exec ${lines[0]!.slice('master-1: '.length)}`], { stdio: 'ignore' });
    nodePids.add(byHand.pid!);
    const exited = new Promise<number | null>((r) => byHand.once('exit', (code) => r(code)));
    // The same node: its wallet (the data directory's) holds the address the devnet printed.
    const wallet = await until(async () => {
      try {
        const r = await fetch(`${node.rpcUrl}/myWallet`, { signal: AbortSignal.timeout(2_000) });
        return r.ok ? ((await r.json()).result as Record<string, string> | null) ?? undefined : undefined;
      } catch {
        return undefined;
      }
    }, 'the node restarted by hand', STARTED_MS);
    expect(Object.keys(wallet)).toContain(node.address);
    byHand.kill('SIGTERM');
    expect(await bounded(exited, STOPPED_MS, 'the node started by hand to stop')).toBe(0);
  }, 90_000);

  it('whose every node exits on its own (its ports taken by another devnet): says no node is left and exits 1', async () => {
    const dir = await devnetDir();
    // The one master's RPC port, --base-port, held by another process (a second devnet on the same --base-port).
    const port = await freeFixedPort();
    const holder = createServer();
    await new Promise<void>((ok) => holder.listen(port, '127.0.0.1', ok));
    try {
      const d = runDevnet(dir, ['--base-port', String(port)]);
      const { code } = await bounded(d.exited, STARTED_MS, 'the devnet to exit');
      expect(d.err()).toMatch(/^master-1 \(pid \d+\) exited with code 1; no node is left running: the devnet ends$/m);
      expect(d.out()).toContain(`Cannot listen on 127.0.0.1:${port}`);
      expect(code).toBe(1);
    } finally {
      holder.close();
    }
  }, 90_000);
});
