/**
 * A real `dltnode start` on a fresh data directory whose genesis (written by `dltnode init`) funds
 * addresses of the caller's own keys; the node's wallet is its single master. Talks plain HTTP.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';

const CLI = join(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..'), 'dist', 'cli', 'main.js');

export interface Envelope {
  result: any;
  error: { code: number; message: string } | null;
  status: number;
}

export interface OwnNode {
  url: string;
  master: string;
  call(method: string, params?: Record<string, unknown>): Promise<Envelope>;
  height(): Promise<number>;
  waitForHeight(h: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
  log(): string;
}

const freePort = (): Promise<number> =>
  new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => res(p));
    });
  });

/** `funds`: address text → coins (decimal string). */
export async function startOwnNode(
  funds: Record<string, string>,
  opts: { blockInterval?: number; port?: number; walletKey?: Uint8Array; fundMaster?: string; keystore?: { privateKey: string; nonces: string[] }[] } = {},
): Promise<OwnNode> {
  const dir = mkdtempSync(join(tmpdir(), 'ia-own-'));
  const dataDir = join(dir, 'node');
  if (opts.walletKey || opts.keystore) {
    // The keystore file format (README: <data-dir>/wallet.json, the reference private-key layout).
    mkdirSync(dataDir);
    const secret = { keys: opts.keystore ?? [{ privateKey: Buffer.from(opts.walletKey!).toString('hex'), nonces: [] }] };
    writeFileSync(join(dataDir, 'wallet.json'), JSON.stringify({ version: 1, encrypted: false, secret }));
  }
  const master = execFileSync(process.execPath, [CLI, 'wallet', 'address', '--data-dir', dataDir], { encoding: 'utf8' }).trim().split(/\s+/).pop()!;
  const genesis = join(dir, 'genesis.json');
  if (opts.fundMaster) funds = { ...funds, [master]: opts.fundMaster };
  const fundArgs = Object.entries(funds).flatMap(([a, c]) => ['--fund', `${a}=${c}`]);
  execFileSync(process.execPath, [CLI, 'init', '--out', genesis, ...fundArgs, '--master', master, '--block-interval', String(opts.blockInterval ?? 1), '--min-signer-difficulty', '65536'], { encoding: 'utf8' });
  const port = opts.port ?? (await freePort());
  let out = '';
  const child: ChildProcess = spawn(process.execPath, [CLI, 'start', '--genesis', genesis, '--data-dir', dataDir, '--rpc-port', String(port), '--log-format', 'json', '--status-interval', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  const call = async (method: string, params: Record<string, unknown> = {}): Promise<Envelope> => {
    const res = await fetch(`${url}/${method}`, { method: 'POST', body: JSON.stringify({ method, params, id: 1 }), signal: AbortSignal.timeout(20_000) });
    const text = await res.text();
    const body = JSON.parse(text) as Envelope;
    return { result: body.result, error: body.error ?? null, status: res.status };
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`node exited ${child.exitCode}: ${out}`);
    try {
      const r = await fetch(`${url}/ready`);
      if (r.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`node not ready: ${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const height = async (): Promise<number> => Number((await call('getBlockCount')).result);
  return {
    url,
    master,
    call,
    height,
    async waitForHeight(h, timeoutMs = 60_000) {
      const end = Date.now() + timeoutMs;
      while ((await height()) < h) {
        if (Date.now() > end) throw new Error(`height ${h} not reached: ${out.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(t);
      }
      rmSync(dir, { recursive: true, force: true });
    },
    log: () => out,
  };
}
