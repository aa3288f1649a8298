// Test helpers: a real mosquitto broker on a free loopback port, started and stopped by pid.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const MOSQUITTO = '/usr/sbin/mosquitto';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const canConnect = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const c = createConnection({ host: '127.0.0.1', port });
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });

/** Polls `cond` every 20 ms until it holds; throws with `what` after `timeoutMs`. */
export async function waitFor(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface Broker {
  port: number;
  proc: ChildProcess;
  dir: string;
}

export async function startMosquitto(port: number): Promise<Broker> {
  if (!existsSync(MOSQUITTO)) throw new Error(`${MOSQUITTO} is missing: apt-get install -y mosquitto (.ci/run does this)`);
  const dir = mkdtempSync(join(tmpdir(), 'dltnode-mosquitto-'));
  const conf = join(dir, 'mosquitto.conf');
  writeFileSync(conf, `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\n`);
  const proc = spawn(MOSQUITTO, ['-c', conf], { stdio: 'ignore' });
  await waitFor(() => canConnect(port), `mosquitto on port ${port}`);
  return { port, proc, dir };
}

export async function stopMosquitto(b: Broker): Promise<void> {
  if (b.proc.exitCode === null && b.proc.pid !== undefined) {
    const exited = new Promise((r) => b.proc.once('exit', r));
    process.kill(b.proc.pid, 'SIGTERM');
    await exited;
  }
  rmSync(b.dir, { recursive: true, force: true });
}
