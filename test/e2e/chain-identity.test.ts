/**
 * A data directory keeps the chain of one network (src/chain/chain.ts META.network,
 * src/consensus/producer.ts checkGenesis): started with another --network, another genesis file,
 * or without the genesis file its chain came from, the node exits 1 with the reason and extends
 * nothing; started as before, it runs on.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { newDataDir, startNode } from './harness.js';
import { KEYSTORE_FILE, writeKeystore } from '../../src/wallet/keystore.js';
import { generateWalletKey } from '../../src/formats/rsa.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** `dltnode start` with `args` to its exit (bounded: a node that starts is killed and reported). */
function startToExit(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, 'start', '--rpc-port', '0', '--pool-threads', '1', '--status-interval', '0', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`the node did not exit within 30 s:\n${out}${stderr}`));
    }, 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      ok({ code, stderr });
    });
  });
}

describe('one network per data directory', () => {
  it('a reg chain is refused under --network test, and runs on as reg', async () => {
    const { dataDir } = await newDataDir();
    dirs.push(dataDir);
    const first = await startNode({ dataDir });
    await first.waitForHeight(2, 30_000);
    await first.stop(true);
    const other = await startToExit(['--network', 'test', '--data-dir', dataDir]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/is one of the reg network, not test: start it with --network reg, or give another --data-dir/);
    const again = await startNode({ dataDir });
    expect(await again.height()).toBeGreaterThanOrEqual(2);
    await again.stop(true);
  }, 120_000);

  it('a lost or replaced wallet.json is said, never replaced by a new key; a password given later encrypts the keystore at once', async () => {
    const { dataDir } = await newDataDir();
    dirs.push(dataDir);
    const keystore = join(dataDir, KEYSTORE_FILE);
    const original = readFileSync(keystore);
    const first = await startNode({ dataDir });
    await first.waitForHeight(2, 30_000);
    await first.stop(true);
    rmSync(keystore);
    const missing = await startToExit(['--data-dir', dataDir]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/keystore .*wallet\.json is missing, but .*chain holds a chain of \d+ blocks made with it: restore wallet\.json/);
    expect(existsSync(keystore)).toBe(false);
    // Another wallet's keystore: named as such, not as "a genesis file's network".
    writeKeystore(dataDir, [{ privateKey: (await generateWalletKey()).privateKey, nonces: [] }]);
    const other = await startToExit(['--data-dir', dataDir]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/was made by another wallet \(its block 1 pays \w+; the wallet\.json of this data directory holds \w+\): restore that wallet's wallet\.json/);
    // The original keystore, now with a password: encrypted before the node serves, and it runs on.
    writeFileSync(keystore, original, { mode: 0o600 });
    const again = await startNode({ dataDir, args: ['--wallet-password', 'pw'] });
    expect(JSON.parse(readFileSync(keystore, 'utf8')).encrypted).toBe(true);
    expect(await again.height()).toBeGreaterThanOrEqual(2);
    await again.stop(true);
  }, 180_000);

  it('a genesis file network chain is refused with another genesis file or none, and runs on with its own', async () => {
    const { dataDir } = await newDataDir();
    dirs.push(dataDir);
    const cli = (args: string[]): string => execFileSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8' }).trim();
    const address = cli(['wallet', 'address', '--data-dir', dataDir]);
    const genesis = (name: string, coins: number): string => {
      const out = join(dataDir, `${name}.json`);
      cli(['init', '--out', out, '--fund', `${address}=${coins}`, '--master', address, '--name', name, '--min-signer-difficulty', '65536']);
      return out;
    };
    const one = genesis('one', 1000);
    const two = genesis('two', 2000);
    const first = await startNode({ dataDir, args: ['--genesis', one] });
    await first.waitForHeight(2, 60_000);
    await first.stop(true);
    const other = await startToExit(['--network', 'reg', '--genesis', two, '--data-dir', dataDir]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/is one of another genesis than two's \(its block 1 differs\)/);
    const none = await startToExit(['--network', 'reg', '--data-dir', dataDir]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/is one of a genesis file's network: start it with --genesis FILE/);
    const again = await startNode({ dataDir, args: ['--genesis', one] });
    expect(await again.height()).toBeGreaterThanOrEqual(2);
    await again.stop(true);
  }, 180_000);
});
