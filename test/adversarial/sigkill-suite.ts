// The SIGKILL loop (issue 13 §4b), shared by the short version in `npm test` and the long one in
// `npm run test:slow`: a node producing a block every 0.2 s takes a steady stream of payments and is
// killed at random phases of its block cycle (so some kills land while a block is being written),
// then restarted on the same data directory. After each restart: every acknowledged payment is
// applied or pending, the height never went back, and the coins add up to an unchanged supply.
import { afterAll, describe, expect, it } from 'vitest';
import { parseAmount } from '../../src/formats/amount.js';
import { FOUNDATION_ADDRESS } from '../../src/formats/constants.js';
import { startNode, type NodeProcess } from '../e2e/harness.js';
import { prng } from './lib.js';

const STRANGER = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';
const BLOCK_INTERVAL_S = 0.2;
const PAGE = 1000;
/** Concurrent payment streams (each waits for its answer before the next payment). */
const PAYERS = 4;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every id of a paged listing (txa, txu). */
async function allIds(node: NodeProcess, method: 'txa' | 'txu'): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let from = 0; ; from += PAGE) {
    const page = Object.keys(await node.call<Record<string, unknown>>(method, { fromIndex: from, count: PAGE }));
    for (const id of page) ids.add(id);
    if (page.length < PAGE) return ids;
  }
}

/**
 * Supply and the sum of every balance, read at one height: the reads are separate calls and a block
 * (debiting the node, crediting the stranger and the foundation) may land between them. An equal
 * `status` height before and after does not rule that out: a committed block is readable a moment
 * before the node's tip (what `status` reports) moves to it (the LMDB commit completes on its write
 * thread; the tip follows when the event loop hears of it). So the reads are repeated until two
 * rounds in a row give the same height, balances and supply: no block landed during the later one.
 */
async function supplyCheck(node: NodeProcess): Promise<{ supply: bigint; sum: bigint }> {
  const round = async (): Promise<string[]> => {
    const before = await node.call('status', { verbose: true });
    const balances: string[] = [];
    for (const id of [node.address, FOUNDATION_ADDRESS, STRANGER]) balances.push((await node.call('getWallet', { id })).balance);
    const after = await node.call('status', { verbose: true });
    return [String(before['Block Height']), ...balances, String(after['Block Height']), after.Supply];
  };
  let last = await round();
  for (let attempt = 0; attempt < 200; attempt++) {
    const next = await round();
    if (next.join() === last.join()) break;
    last = next;
  }
  return { supply: parseAmount(last[last.length - 1]!), sum: last.slice(1, 4).reduce((s, b) => s + parseAmount(b), 0n) };
}

export function sigkillSuite(opts: { kills: number; seed?: number }): void {
  const seed = opts.seed ?? Number(process.env.DLTNODE_SIGKILL_SEED ?? Date.now() % 2 ** 31);
  let node: NodeProcess | undefined;
  afterAll(async () => {
    await node?.stop();
  });

  describe(`SIGKILL loop (seed ${seed})`, () => {
    it(`${opts.kills} kills while paying: nothing acknowledged is lost, the height never goes back, supply is conserved`, async () => {
      const r = prng(seed);
      node = await startNode({ blockInterval: BLOCK_INTERVAL_S });
      await node.waitForHeight(1);
      const initial = await supplyCheck(node);
      expect(initial.sum).toBe(initial.supply);
      const acknowledged: string[] = [];
      let maxHeight = await node.height();
      const phases: number[] = [];
      for (let kill = 0; kill < opts.kills; kill++) {
        const current = node;
        // A steady stream of payments until the kill.
        let paying = true;
        const payer = async (): Promise<void> => {
          while (paying) {
            try {
              const res = await current.rpc('addTransaction', { to: `${STRANGER}_0.01` });
              if (res.error === null) acknowledged.push((res.result as { id: string }).id);
            } catch {
              /* the node died mid-request: not acknowledged */
            }
          }
        };
        const payers = Promise.all(Array.from({ length: PAYERS }, payer));
        // Kill at a random phase of the block cycle, found by watching the height change.
        const h0 = await current.height();
        maxHeight = Math.max(maxHeight, h0);
        await current.waitFor(async () => (await current.height()) > h0, 'a new block', 10_000);
        const phase = r() * BLOCK_INTERVAL_S * 1000 * 1.5;
        await sleep(phase);
        phases.push(phase % (BLOCK_INTERVAL_S * 1000));
        expect(await current.kill('SIGKILL')).toBeNull();
        paying = false;
        await payers;
        node = await startNode({ dataDir: current.dataDir, blockInterval: BLOCK_INTERVAL_S });
        const height = await node.height();
        expect(height, `kill ${kill}: height went back`).toBeGreaterThanOrEqual(maxHeight);
        maxHeight = height;
        const [applied, pending] = await Promise.all([allIds(node, 'txa'), allIds(node, 'txu')]);
        const lost = acknowledged.filter((id) => !applied.has(id) && !pending.has(id));
        expect(lost, `kill ${kill}: acknowledged payments lost`).toEqual([]);
        const both = acknowledged.filter((id) => applied.has(id) && pending.has(id));
        expect(both, `kill ${kill}: payments both applied and pending`).toEqual([]);
        const { supply, sum } = await supplyCheck(node);
        expect(supply, `kill ${kill}: supply changed`).toBe(initial.supply);
        expect(sum, `kill ${kill}: balances do not add up to the supply`).toBe(supply);
      }
      console.log(
        `sigkill: ${opts.kills} kills, ${acknowledged.length} acknowledged payments, final height ${maxHeight}; ` +
          `kill phases after a block (ms, of ${BLOCK_INTERVAL_S * 1000}): ${phases.map((p) => Math.round(p)).join(' ')}`,
      );
    }, 1_200_000);
  });
}
