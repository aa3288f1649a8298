// The PoW benches (bench/pow.bench.mjs, bench/pool.bench.mjs) refuse a bad setting before measuring
// anything, naming it: BENCH_TIME / BENCH_ROUNDS must be whole numbers ≥ 1 (a typo used to run with
// NaN or 0 and print figures, or crash later with a TypeError), DLTNODE_WASM 'scalar' or 'simd';
// and the pool bench refuses a window in which too few requests end to give a rate.
// The benches import dist/: build first. Each run is bounded (spawnSync timeout).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function runBench(file: string, env: Record<string, string>): { status: number | null; stderr: string; stdout: string } {
  const r = spawnSync(process.execPath, [join(root, 'bench', file)], {
    env: { ...process.env, ...env }, encoding: 'utf8', timeout: 30_000,
  });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

describe('PoW benches refuse bad environment settings', () => {
  it.each([
    ['pow.bench.mjs', 'BENCH_TIME', 'abc'],
    ['pow.bench.mjs', 'BENCH_TIME', '0'],
    ['pow.bench.mjs', 'BENCH_ROUNDS', 'x'],
    ['pow.bench.mjs', 'BENCH_ROUNDS', '2.5'],
    ['pool.bench.mjs', 'BENCH_TIME', '-1'],
    ['pool.bench.mjs', 'BENCH_ROUNDS', '0'],
  ])('%s %s=%s: exits non-zero naming the setting, no figures', (file, name, value) => {
    const r = runBench(file, { [name]: value });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${name} must be a whole number ≥ 1, got ${JSON.stringify(value)}`);
    expect(r.stdout).not.toMatch(/verifications\/s|implementations agree/);
  });

  it.each(['--time=abc', '--rounds=0'])('consensus.bench.mjs %s: exits non-zero naming the argument', (arg) => {
    const r = spawnSync(process.execPath, [join(root, 'bench', 'consensus.bench.mjs'), arg], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(1);
    const [name, value] = arg.split('=');
    expect(r.stderr).toContain(`${name} must be a whole number ≥ 1, got ${JSON.stringify(value)}`);
    expect(r.stdout).not.toMatch(/hashes per second/);
  });

  it('pool.bench.mjs refuses a window too short for requests to end in, instead of printing 0 verifications/s', () => {
    const r = runBench('pool.bench.mjs', { BENCH_TIME: '1', BENCH_ROUNDS: '1' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/only \d+ requests of 16 claims ended in BENCH_TIME=1 ms .*raise BENCH_TIME/);
    expect(r.stdout).not.toMatch(/worker threads? +\d/);
  });

  it('DLTNODE_WASM=Scalar (a typo) is refused, not measured as the SIMD build', () => {
    const r = runBench('pow.bench.mjs', { DLTNODE_WASM: 'Scalar' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`DLTNODE_WASM: expected 'scalar' or 'simd' (or unset), got "Scalar"`);
    expect(r.stdout).not.toMatch(/implementations agree/);
  });
});
