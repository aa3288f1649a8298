// The built `dltnode` command: help, version, print-config and usage errors (no node is started).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
// Permissions do not stop root: as root, the permission test runs the command as nobody through setpriv.
const asAnotherUser: string[] | null = process.getuid?.() !== 0 ? [] : existsSync('/usr/bin/setpriv') ? ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : null;
const run = (args: string[], env: Record<string, string> = {}) => spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });

describe('dltnode command', () => {
  it('lists its commands with --help and the start options with start --help', () => {
    expect(run(['--help']).stdout).toContain('start');
    const r = run(['start', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('--rpc-port PORT');
    expect(r.stdout).toContain('DLTNODE_WALLET_PASSWORD');
  });
  it('prints every component with --version', () => {
    const r = run(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^dltnode \d+\.\d+\.\d+/);
    expect(r.stdout).toMatch(/wasm core: (simd|scalar) build/);
    expect(r.stdout).toMatch(/rpc transport: /);
    expect(r.stdout).toContain(process.version);
  });
  it('prints the effective configuration with sources, flags over env', () => {
    const r = run(['start', '--print-config', '--rpc-port', '9001'], { DLTNODE_RPC_PORT: '9000', DLTNODE_LOG_LEVEL: 'debug' });
    expect(r.status).toBe(0);
    const printed = JSON.parse(r.stdout);
    expect(printed.config['rpc-port']).toBe(9001);
    expect(printed.sources['rpc-port']).toBe('flag');
    expect(printed.config['log-level']).toBe('debug');
    expect(printed.sources['log-level']).toBe('env');
  });
  it('bench pow measures PoW verification through the pool and prints JSON', () => {
    const r = run(['bench', 'pow', '--threads', '1', '--seconds', '1', '--in-flight', '2', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.params).toEqual({ timeCost: 2, memoryCost: 2048, parallelism: 2, hashLength: 32, saltLength: 234236 });
    expect(out.threads).toBe(1);
    expect(out.inFlight).toBe(2);
    expect(out.verifications).toBeGreaterThan(0);
    expect(out.perSecond).toBeGreaterThan(0);
    expect(out.latencyMs.p50).toBeLessThanOrEqual(out.latencyMs.p99);
    for (const args of [['bench', 'pow', '--threads', '-1'], ['bench', 'pow', '--seconds', '0'], ['bench', 'pow', '--nope'], ['bench', 'sha3']]) {
      const bad = run(args);
      expect(bad.status, args.join(' ')).toBe(2);
      expect(bad.stderr).toMatch(/^dltnode: /);
    }
  });
  it('says a broken config, genesis or keystore file in one line, whatever the file holds', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dltnode-cli-'));
    try {
      const broken = join(dir, 'broken.json');
      writeFileSync(broken, 'garbage\nmore\n');
      mkdirSync(join(dir, 'data'));
      writeFileSync(join(dir, 'data', 'wallet.json'), 'garbage\nmore\n');
      for (const [args, code] of [
        [['start', '--config', broken], 2],
        [['start', '--genesis', broken, '--print-config'], 2],
        [['wallet', 'address', '--data-dir', join(dir, 'data')], 1],
      ] as const) {
        const r = run([...args]);
        expect(r.status, args.join(' ')).toBe(code);
        expect(r.stderr, args.join(' ')).toMatch(/^dltnode: .*not valid JSON.*\n$/);
        expect(r.stderr.trimEnd().split('\n'), args.join(' ')).toHaveLength(1);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('wallet address and init --sign-with name a data directory that a file is in the way of', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dltnode-cli-'));
    try {
      const file = join(dir, 'a-file');
      writeFileSync(file, 'x');
      const address = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';
      for (const args of [
        ['wallet', 'address', '--data-dir', join(file, 'x')],
        ['init', '--out', join(dir, 'g.json'), '--fund', `${address}=1`, '--master', address, '--sign-with', file],
      ]) {
        const r = run(args);
        expect(r.status, args.join(' ')).toBe(1);
        expect(r.stderr, args.join(' ')).toMatch(/^dltnode: data directory .* cannot be created: .*a-file is a file, not a directory; give another --data-dir\n$/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  // node's recursive mkdir never returns when mkdir gives ENOENT under an existing directory (/proc):
  // the command must fail in one line like any other directory it cannot create. The spawn's
  // timeout only bounds a hang (a killed run has no status and fails the test).
  it.runIf(existsSync('/proc/self'))('refuses a data directory under /proc (no directories can be made there) in one line instead of hanging', () => {
    const out = join(tmpdir(), `dltnode-cli-never-${process.pid}.json`);
    const address = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';
    for (const [args, dir, option] of [
      [['start', '--data-dir', '/proc/x', '--pool-threads', '0'], '/proc/x', '--data-dir'],
      [['start', '--data-dir', '/proc/x/y', '--pool-threads', '0'], '/proc/x/y', '--data-dir'],
      [['wallet', 'address', '--data-dir', '/proc/x'], '/proc/x', '--data-dir'],
      [['init', '--out', out, '--fund', `${address}=1`, '--master', address, '--sign-with', '/proc/x'], '/proc/x', '--data-dir'],
      [['devnet', '--dir', '/proc/x', '--masters', '1'], '/proc/x', '--dir'],
    ] as const) {
      const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL' });
      expect(r.status, args.join(' ')).toBe(1);
      const lines = r.stderr.trimEnd().split('\n').filter((l) => !l.startsWith('{'));
      expect(lines, args.join(' ')).toEqual([`dltnode: data directory ${dir} cannot be created: ENOENT: no such file or directory, mkdir '/proc/x'; give another ${option}`]);
    }
    expect(existsSync(out)).toBe(false);
  }, 150_000);
  it.runIf(asAnotherUser !== null)('refuses a data directory it may not write to in one line naming it', (ctx) => {
    const [command, ...prefix] = asAnotherUser!;
    const asOther = (args: string[]) => spawnSync(command ?? process.execPath, [...prefix, ...(command ? [process.execPath] : []), MAIN, ...args], { encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL' });
    // As root the command runs as nobody, who must be able to read the build: a clone under a
    // directory only root may enter (mktemp -d, /root) cannot be tested this way.
    if (asOther(['--version']).status !== 0) ctx.skip();
    const dir = mkdtempSync(join(tmpdir(), 'dltnode-cli-'));
    try {
      const readOnly = join(dir, 'read-only');
      mkdirSync(readOnly, { mode: 0o555 });
      chmodSync(dir, 0o755);
      for (const [args, message] of [
        [['start', '--data-dir', readOnly, '--pool-threads', '0'], `data directory ${readOnly} is not writable: EACCES: permission denied, open '${readOnly}/.dltnode.lock.`],
        [['wallet', 'address', '--data-dir', join(readOnly, 'x')], `data directory ${join(readOnly, 'x')} cannot be created: EACCES: permission denied, mkdir '${join(readOnly, 'x')}'; give another --data-dir`],
      ] as const) {
        const r = asOther([...args]);
        expect(r.status, args.join(' ')).toBe(1);
        const lines = r.stderr.trimEnd().split('\n').filter((l) => !l.startsWith('{'));
        expect(lines, args.join(' ')).toHaveLength(1);
        expect(lines[0], args.join(' ')).toContain(`dltnode: ${message}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('exits 2 with a message on bad usage', () => {
    for (const args of [['start', '--rpc-port', 'x'], ['frobnicate'], ['start', '--nope']]) {
      const r = run(args);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^dltnode: /);
    }
    const wallet = run(['wallet', '--data-dir', 'x']);
    expect(wallet.status).toBe(2);
    expect(wallet.stderr).toBe('dltnode: dltnode wallet needs a command: dltnode wallet address --data-dir DIR\n');
  });
});
