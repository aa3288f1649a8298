/**
 * The built-in miner's loop (src/mining/miner.ts) on a real chain with an injected search: it picks
 * blocks by the search mode, pauses at −1, submits what the search finds as a claim (applied in the
 * next block: minerstats counts it), and keeps the hash rate. The real Argon2 search is in
 * test/mining/search-pow.test.ts and the slow e2e.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { PowClaim } from '../../src/core/pow.js';
import { createMiningExtension } from '../../src/mining/chain-extension.js';
import { buildClaim } from '../../src/mining/claim.js';
import { Mining } from '../../src/mining/index.js';
import { Miner } from '../../src/mining/miner.js';
import { validateParams } from '../../src/rpc/dispatch.js';
import { toRpcError } from '../../src/rpc/errors.js';
import { miningMethods } from '../../src/rpc/methods/mining.js';
import type { SearchJob, SearchResult } from '../../src/pool/tasks/search-pow.js';
import { commitBlock, openTestChain, silentLog, type TestChain } from '../chain/fixture.js';

const fakeVerify = (c: PowClaim): boolean => c.nonce[0] === 0x42;

describe('built-in miner', () => {
  let t: TestChain;
  let mining: Mining;
  const searched: SearchJob[] = [];
  let find = false;
  const search = async (jobs: readonly SearchJob[]): Promise<SearchResult[]> => {
    searched.push(...jobs);
    await new Promise((r) => setTimeout(r, 5));
    return jobs.map((j) => ({ tried: j.count, nonce: find ? Uint8Array.of(0x42, ...j.prefix.slice(0, 3)) : null }));
  };
  const newMiner = () => new Miner({
    chain: t.chain, stats: mining.stats, threads: 1, solver: t.wallet.primary.primary, search, log: silentLog,
    submit: async (blockNum, nonce) => {
      const error = await t.mempool.submit(buildClaim(t.chain, 'reg', t.wallet.primary, { blockNum, nonce }, Date.now()));
      if (error) throw error;
      return true;
    },
  });

  beforeEach(async () => {
    t = await openTestChain([createMiningExtension({ verify: fakeVerify })]);
    mining = new Mining(t.chain, (a) => t.wallet.keys.some((k) => k.nonceOf(a) !== null), t.events, systemClock);
    for (let i = 0; i < 3; i++) await commitBlock(t, []);
    searched.length = 0;
    find = false;
  });
  afterEach(async () => {
    await t.close();
  });

  it('picks by mode: latest block (2), lowest difficulty (0, the newest of equals); paused (−1) picks nothing', () => {
    const miner = newMiner();
    mining.stats.algorithm = 2;
    expect(miner.pick()?.num).toBe(4n);
    mining.stats.algorithm = 0;
    expect(miner.pick()?.num).toBe(4n);
    mining.stats.algorithm = 3;
    expect([1n, 2n, 3n, 4n]).toContain(miner.pick()?.num);
    mining.stats.algorithm = -1;
    expect(miner.pick()).toBeNull();
  });

  it('searches, submits a found nonce as a claim, the claim applies and minerstats counts it', async () => {
    mining.stats.algorithm = 2;
    const miner = newMiner();
    miner.start();
    try {
      await waitUntil(() => searched.length > 0);
      expect(mining.minerStats()['Current Block']).toBe(4n);
      find = true;
      await waitUntil(() => t.mempool.size > 0);
      const [claim] = t.mempool.page(0, 1);
      expect(claim!.tx.type).toBe(1);
      await commitBlock(t, [claim!]);
      const s = mining.minerStats();
      expect(s['Solved Blocks (Local)']).toBe(1);
      expect(s['Solved Blocks (Network)']).toBe(1);
      expect(s['Last Solved Block']).toBe(4n);
    } finally {
      await miner.stop();
    }
  });

  it('forgets the claims of blocks solved since (the reference drops its solved blocks), so they do not pile up', async () => {
    mining.stats.algorithm = 2;
    const miner = newMiner();
    find = true;
    miner.start();
    const rounds = 5;
    try {
      for (let i = 0; i < rounds; i++) {
        await waitUntil(() => t.mempool.size > 0);
        const [claim] = t.mempool.page(0, 1);
        await commitBlock(t, [claim!]);
      }
      await waitUntil(() => t.mempool.size > 0);
    } finally {
      await miner.stop();
    }
    expect(mining.minerStats()['Solved Blocks (Local)']).toBe(rounds);
    miner.pick();
    // Only the claim still waiting in the pool: the solved blocks' are gone.
    expect(miner.claimsPending).toBe(1);
  });
});

/**
 * `getminingblock` as a pool's miners call it (reference Ixian-DLT APIServer `getminingblock?algo=`):
 * the block is chosen by `algo` among the unsolved ones, and a block whose claim already waits in
 * the pool is not served again (its second solution would be refused as a duplicate claim).
 */
describe('getminingblock', () => {
  let t: TestChain;
  let mining: Mining;
  const getMiningBlock = async (params: Record<string, unknown>): Promise<any> => {
    const def = miningMethods.find((m) => m.name === 'getMiningBlock')! as any;
    try {
      return await def.handler(validateParams(def, params), { chain: t.chain, wallet: t.wallet, mempool: t.mempool, mining });
    } catch (err) {
      const rpc = toRpcError(err);
      if (rpc) return rpc;
      throw err;
    }
  };

  beforeEach(async () => {
    t = await openTestChain([createMiningExtension({ verify: fakeVerify })]);
    mining = new Mining(t.chain, (a) => t.wallet.keys.some((k) => k.nonceOf(a) !== null), t.events, systemClock);
    for (let i = 0; i < 3; i++) await commitBlock(t, []);
  });
  afterEach(async () => {
    await t.close();
  });

  it('serves the latest unsolved block without algo and with algo 2, and skips a block whose claim is pending', async () => {
    expect((await getMiningBlock({})).num).toBe(4n);
    expect((await getMiningBlock({ algo: '2' })).num).toBe(4n);
    expect(await t.mempool.submit(buildClaim(t.chain, 'reg', t.wallet.primary, { blockNum: 4n, nonce: Uint8Array.of(0x42, 1) }, Date.now()))).toBeNull();
    expect((await getMiningBlock({})).num).toBe(3n);
    expect((await getMiningBlock({ algo: '0' })).num).toBe(3n);
    expect([1n, 2n, 3n]).toContain((await getMiningBlock({ algo: '3' })).num);
  });

  it('refuses an algo that names no search mode as the reference does', async () => {
    for (const algo of ['4', '-1', 'x', '', 9, 1.5]) {
      const r = await getMiningBlock({ algo });
      expect(r.code, algo).toBe(-32602);
      expect(r.message).toBe('Invalid algorithm was specified');
    }
  });
});

async function waitUntil(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('getMiningBlock and blocks at the maximum difficulty', () => {
  // The reference's Miner.getMiningBlock (what the API serves) passes over a block whose difficulty
  // is ulong.MaxValue: no pool should grind on a block only a hash of ten zero bytes solves.
  let t: TestChain;
  let mining: Mining;
  beforeEach(async () => {
    t = await openTestChain([createMiningExtension({ verify: fakeVerify, fixedDifficulty: 0xffff_ffff_ffff_ffffn })]);
    mining = new Mining(t.chain, (a) => t.wallet.keys.some((k) => k.nonceOf(a) !== null), t.events, systemClock);
    for (let i = 0; i < 3; i++) await commitBlock(t, []);
  });
  afterEach(async () => {
    await t.close();
  });

  it('serves the newest block below the maximum, in every mode', async () => {
    const def = miningMethods.find((m) => m.name === 'getMiningBlock')! as any;
    const call = async (algo: string) => def.handler(validateParams(def, { algo }), { chain: t.chain, wallet: t.wallet, mempool: t.mempool, mining });
    const below = [1n, 2n, 3n, 4n].filter((n) => t.chain.getBlock(n)!.block.difficulty !== 0xffff_ffff_ffff_ffffn);
    expect(below.length).toBeGreaterThan(0);
    expect(below.length).toBeLessThan(4);
    for (const algo of ['0', '1', '2', '3']) {
      const r = await call(algo);
      expect(below, `algo ${algo}`).toContain(r.num);
      expect(r.dif).not.toBe(0xffff_ffff_ffff_ffffn);
    }
  });
});
