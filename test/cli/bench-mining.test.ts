/**
 * `dltnode bench pow --mining`: the flag parses, and one short run measures both sides.
 */
import { describe, expect, it } from 'vitest';
import { parseBenchPowArgs } from '../../src/cli/bench-pow.js';
import { formatMiningBench, runMiningBench } from '../../src/cli/bench-mining.js';

describe('bench pow --mining', () => {
  it('parses --mining (off by default)', () => {
    expect(parseBenchPowArgs(['--mining', '--threads', '1']).mining).toBe(true);
    expect(parseBenchPowArgs([]).mining).toBe(false);
  });

  it('measures nonces per second through the pool and with @node-rs/argon2', async () => {
    const r = await runMiningBench({ threads: 1, seconds: 1 });
    expect(r.ours.nonces).toBeGreaterThan(0);
    expect(r.ours.perSecond).toBeGreaterThan(0);
    expect('error' in r.nodeRsArgon2 ? r.nodeRsArgon2.error : r.nodeRsArgon2.nonces).toBeGreaterThan(0);
    expect(formatMiningBench(r)).toMatch(/nonces\/s/);
  }, 60_000);
});
