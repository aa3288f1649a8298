// The malformed-input campaign (issue 13 §4a) as a test body shared by the short version in
// `npm test` and the 100,000-call version in `npm run test:slow`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNode, type NodeProcess } from '../e2e/harness.js';
import { portOf } from '../rpc/raw-http.js';
import { alive, internalLogLines, methodTable, runCampaign, runFramingAttacks, statusLatency, type TableMethod } from './lib.js';

export function campaignSuite(opts: { calls: number; attacks: number; seed?: number }): void {
  const seed = opts.seed ?? Number(process.env.DLTNODE_CAMPAIGN_SEED ?? Date.now() % 2 ** 31);
  let node: NodeProcess;
  let methods: TableMethod[];

  beforeAll(async () => {
    methods = await methodTable();
    node = await startNode({ blockInterval: 1, args: ['--max-body-bytes', String(256 * 1024)] });
  });
  afterAll(async () => {
    await node?.stop();
  });

  describe(`malformed input over every operation (seed ${seed}; replay with DLTNODE_CAMPAIGN_SEED)`, () => {
    it(`${opts.calls} calls, GET and POST: no crash, 5xx, invalid envelope, hang, leak or internal error`, async () => {
      expect(methods.length).toBeGreaterThan(20);
      const t0 = performance.now();
      const tally = await runCampaign(node, methods, opts.calls, seed);
      const seconds = (performance.now() - t0) / 1000;
      console.log(`campaign: ${tally.calls} calls in ${seconds.toFixed(1)} s over ${methods.length} operations: ${JSON.stringify({ ...tally, examples: undefined })}`);
      if (tally.examples.length) console.log(tally.examples.join('\n'));
      expect(alive(node), 'node process alive').toBe(true);
      expect(tally.calls).toBe(opts.calls);
      expect({ fiveXx: tally['5xx'], invalid: tally['invalid-envelope'], hangs: tally.hang, leaks: tally.leak, internal: tally.internal, transport: tally.transport })
        .toEqual({ fiveXx: 0, invalid: 0, hangs: 0, leaks: 0, internal: 0, transport: 0 });
      expect(internalLogLines(node)).toEqual([]);
      expect(await statusLatency(node.url)).toBeLessThan(10_000);
    }, 1_500_000);

    it(`${opts.attacks} raw-socket framing attacks: each answered or closed, no 5xx, no leak`, async () => {
      const t0 = performance.now();
      const t = await runFramingAttacks(portOf(node.url), opts.attacks, seed + 1);
      console.log(`framing: ${t.attacks} attacks in ${((performance.now() - t0) / 1000).toFixed(1)} s; statuses ${JSON.stringify(t.statuses)}`);
      if (t.examples.length) console.log(t.examples.join('\n'));
      expect(alive(node), 'node process alive').toBe(true);
      expect({ hangs: t.hangs, fiveXx: t.fiveXx, leaks: t.leaks }).toEqual({ hangs: 0, fiveXx: 0, leaks: 0 });
      expect(await statusLatency(node.url)).toBeLessThan(10_000);
    }, 600_000);
  });
}
