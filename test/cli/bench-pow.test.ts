// `dltnode bench pow` (src/cli/bench-pow.ts) times verifications whose answers it checks: a real
// solution (POW_BENCH_SOLUTION) among random claims at the highest difficulty. A verifier that
// answers wrongly stops the run with an error instead of showing as verifications/s.
import { describe, expect, it } from 'vitest';
import { POW_BENCH_SOLUTION, formatPowBench, parseBenchPowArgs, runPowBench } from '../../src/cli/bench-pow.js';
import { powVerify, type PowClaim } from '../../src/core/pow.js';
import type { PowVerifier } from '../../src/pool/verifier.js';

const fromHex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** A verifier answering by `answer`, at once. */
const fakeVerifier = (answer: (c: PowClaim) => boolean) => (): PowVerifier => ({
  verify: async (claims) => claims.map(answer),
  close: async () => {},
  pending: 0,
  threads: 0,
  describeWorker: async () => { throw new Error('no workers'); },
});
const OPTS = { threads: 0, seconds: 1, inFlight: 1 };

describe('dltnode bench pow: answers checked', () => {
  it('answers a typo with the option it meant', () => {
    expect(() => parseBenchPowArgs(['--thread', '2'])).toThrow("Unknown option '--thread' (did you mean --threads?); see dltnode bench pow --help");
  });

  it('the real solution is accepted at its edge difficulty and refused one above', () => {
    const s = POW_BENCH_SOLUTION;
    const claim = { blockChecksum: fromHex(s.blockChecksum), solverAddress: fromHex(s.solverAddress), nonce: fromHex(s.nonce), difficulty: s.edge };
    expect(powVerify(claim)).toBe(true);
    expect(powVerify({ ...claim, difficulty: s.edge + 1n })).toBe(false);
  });

  it('a verifier that refuses everything stops the run', async () => {
    await expect(runPowBench(OPTS, fakeVerifier(() => false))).rejects.toThrow('wrong PoW answer: the real solution was refused');
  });

  it('a verifier that accepts everything stops the run', async () => {
    await expect(runPowBench(OPTS, fakeVerifier(() => true))).rejects.toThrow('wrong PoW answer: a random claim was accepted');
  });

  it('right answers are counted and printed: every verification is an accepted solution or a refused claim', async () => {
    const r = await runPowBench(OPTS, fakeVerifier((c) => hex(c.nonce) === POW_BENCH_SOLUTION.nonce));
    expect(r.verifications).toBeGreaterThan(0);
    expect(r.answers.accepted + r.answers.refused).toBe(r.verifications);
    expect(formatPowBench(r)).toContain(`answers checked: ${r.answers.accepted} real solutions accepted, ${r.answers.refused} random claims refused`);
  });
});
