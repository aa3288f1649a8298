/**
 * The signer miner (src/consensus/signer-miner.ts) and its pool task `searchSignerPow`: the task
 * gives what the WASM search gives, in a worker as in-process; the miner finds a solution at a low
 * difficulty, keeps the best one per block (each hit beats the last), answers by the §5.2 window
 * and the minimum difficulty, signs a block so that the entry verifies, follows the reference
 * miner's cycles (rest after ≥ 10 blocks with a solution, 15 blocks after the last one, not while
 * catching up, again when the chain is stuck, tip − 6 when the tip is stale, a key per cycle), and
 * sends no job while the pool has foreground work. Steps are driven one by one (`runOnce`) with a
 * manual clock: the assertions are on order and counters, never on time.
 * Workers load dist/pool/worker.js: run `npm run build` first.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { sha3_512sq } from '../../src/core/hash.js';
import { coreInstance } from '../../src/core/instance.js';
import { signerPowChallengePrefix, signerPowSearch } from '../../src/core/signer-pow.js';
import { parseBlockSignature, verifyBlockSignatureEntry } from '../../src/consensus/block-signatures.js';
import { SignerMiner, type SignerMinerPool, type SigningKeyPair, type SignerMinerStep } from '../../src/consensus/signer-miner.js';
import {
  decodeSignerPowSolution, signerPowDifficulty, signerPowSolutionHash, signerPowTargetForDifficulty, verifySignerPow,
} from '../../src/consensus/signer-pow.js';
import { publicKeyToBytes, verifySignature } from '../../src/formats/rsa.js';
import { createWorkerPool, type SignerSearchJob, type SignerSearchResult, type WorkerPool } from '../../src/pool/index.js';
import { searchSignerPowTask } from '../../src/pool/tasks/search-signer-pow.js';
import { silentLog } from '../chain/fixture.js';

const COIN = 100_000_000n;
const hex = (b: Uint8Array | null) => (b ? Buffer.from(b).toString('hex') : null);

/** Two RSA-2048 keys made once (a real miner makes one per cycle on OpenSSL's threads). */
const keys: KeyObject[] = [0, 1].map(() => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
const keyPair = (k: KeyObject): SigningKeyPair => ({ privateKey: k, publicKey: publicKeyToBytes(k, { version: 2 }) });

const ADDRESS = Uint8Array.from({ length: 45 }, (_, i) => (i === 0 ? 1 : (i * 29) & 0xff));

interface FakeBlock { block: { version: number; timestamp: bigint }; checksum: Uint8Array }

/** The chain as the miner reads it: blocks appended at the clock's time. */
class FakeChain {
  readonly blocks = new Map<bigint, FakeBlock>();
  height = 0n;
  tip: (FakeBlock & { receivedAtMs: number }) | null = null;
  constructor(private readonly clock: ManualClock, private readonly version = 13) {}
  /** Appends blocks up to `to`, each checksum from its number and a fork tag. */
  grow(to: bigint, fork = ''): this {
    while (this.height < to) {
      const num = this.height + 1n;
      const block: FakeBlock = { block: { version: this.version, timestamp: BigInt(Math.floor(this.clock.now() / 1000)) }, checksum: sha3_512sq(new TextEncoder().encode(`block ${num}${fork}`)) };
      this.blocks.set(num, block);
      this.height = num;
      this.tip = { ...block, receivedAtMs: this.clock.now() };
    }
    return this;
  }
  getBlock(num: bigint): FakeBlock | null {
    return this.blocks.get(num) ?? null;
  }
}

/** A pool that records every job and result, with a switch for foreground work. */
function recordingPool(inner: WorkerPool) {
  const log: { job: SignerSearchJob; result: SignerSearchResult }[] = [];
  let foreground = 0;
  const pool: SignerMinerPool & { log: typeof log; setForeground(n: number): void } = {
    threads: inner.threads,
    log,
    setForeground: (n) => void (foreground = n),
    foregroundPending: () => foreground + inner.foregroundPending(),
    async searchSignerPow(jobs) {
      const results = await inner.searchSignerPow(jobs);
      jobs.forEach((job, i) => log.push({ job, result: results[i]! }));
      return results;
    },
    signRsa: (items) => inner.signRsa(items),
  };
  return pool;
}

function setup(o: { min?: bigint; height?: bigint; version?: number; networkHeight?: bigint; interval?: number } = {}) {
  const clock = new ManualClock();
  const chain = new FakeChain(clock, o.version ?? 13).grow(o.height ?? 5n);
  const inner = createWorkerPool({ threads: 0 });
  const pool = recordingPool(inner);
  const state = { min: o.min ?? 1n, paused: false, networkHeight: o.networkHeight ?? 0n, key: 0 };
  const miner = new SignerMiner({
    pool, chain, address: ADDRESS, minDifficulty: () => state.min, clock, log: silentLog,
    networkHeight: () => (state.networkHeight > chain.height ? state.networkHeight : chain.height),
    paused: () => state.paused,
    ...(o.interval ? { blockIntervalSeconds: o.interval } : {}),
    generateKey: async () => keyPair(keys[state.key++ % keys.length]!),
  });
  /** Runs steps until one is `until` (bounded). */
  const stepUntil = async (until: SignerMinerStep, max = 50): Promise<SignerMinerStep[]> => {
    const steps: SignerMinerStep[] = [];
    for (let i = 0; i < max; i++) {
      steps.push(await miner.runOnce());
      if (steps[steps.length - 1] === until) return steps;
    }
    throw new Error(`no ${until} in ${max} steps: ${steps.join(',')}`);
  };
  const hits = () => pool.log.filter((l) => l.result.solution !== null);
  return { clock, chain, pool, miner, state, stepUntil, hits };
}

describe('searchSignerPow task', () => {
  const checksum = sha3_512sq(new TextEncoder().encode('block 7'));
  const prefix = signerPowChallengePrefix({ blockNum: 7n, blockChecksum: checksum, recipientAddress: ADDRESS, signingPubKey: keyPair(keys[0]!).publicKey });
  const job: SignerSearchJob = { prefix, start: new Uint8Array(32).fill(3), target: signerPowTargetForDifficulty(1000n * COIN), count: 3000 };
  let pool: WorkerPool;
  beforeAll(() => void (pool = createWorkerPool({ threads: 1 })));
  afterAll(() => pool.close());

  it('packs and unpacks a job; refuses a bad one naming the field', () => {
    const [back] = searchSignerPowTask.unpack(searchSignerPowTask.pack([job]));
    expect({ ...back, prefix: hex(back!.prefix), start: hex(back!.start), target: hex(back!.target) })
      .toEqual({ ...job, prefix: hex(job.prefix), start: hex(job.start), target: hex(job.target) });
    expect(() => searchSignerPowTask.unpack(searchSignerPowTask.pack([{ ...job, target: new Uint8Array(63) }]))).toThrow(/target of 63 bytes/);
  });

  it.each([0, 1])('gives what the WASM search gives (threads %i); bad jobs are refused', async (threads) => {
    const p = threads === 0 ? createWorkerPool({ threads: 0 }) : pool;
    const direct = signerPowSearch(job.prefix, job.start, job.target, job.count, coreInstance());
    const [r] = await p.searchSignerPow([job]);
    expect({ ...r, micros: 0, solution: hex(r!.solution), hash: hex(r!.hash), next: hex(r!.next), bestHash: hex(r!.bestHash), bestSolution: hex(r!.bestSolution) }).toEqual({
      ...direct, micros: 0, solution: hex(direct.solution), hash: hex(direct.hash), next: hex(direct.next), bestHash: hex(direct.bestHash), bestSolution: hex(direct.bestSolution),
    });
    await expect(p.searchSignerPow([{ ...job, count: 0 }])).rejects.toThrow(/count 0/);
    await expect(p.searchSignerPow([{ ...job, start: new Uint8Array(65) }])).rejects.toThrow(/start solution of 65 bytes/);
  });

  it('is a background task: foregroundPending counts verifyRsa items, not signer-PoW jobs', async () => {
    const search = pool.searchSignerPow([{ ...job, target: new Uint8Array(64), count: 20_000 }]);
    expect(pool.pending('searchSignerPow')).toBe(1);
    expect(pool.foregroundPending()).toBe(0);
    const verify = pool.verifyRsa([{ publicKey: new Uint8Array(3), data: new Uint8Array(1), signature: new Uint8Array(1) }]);
    expect(pool.foregroundPending()).toBe(1);
    expect(await verify).toEqual([false]);
    expect(pool.foregroundPending()).toBe(0);
    await search;
    expect(pool.pending('searchSignerPow')).toBe(0);
  });
});

describe('SignerMiner', () => {
  it('finds a solution at a low difficulty: it verifies for the next block, over the tip, with a 32-byte solution', async () => {
    const t = setup({ min: 500n * COIN, height: 5n });
    expect(await t.miner.runOnce()).toBe('key');
    await t.stepUntil('searched');
    while (t.hits().length === 0) await t.stepUntil('searched');
    const s = t.miner.activeSolution(6n, 13)!;
    expect(s.solution.blockNum).toBe(5n);
    expect(s.solution.solution.length).toBe(32);
    expect(decodeSignerPowSolution(s.bytes)).toEqual(s.solution);
    const verdict = verifySignerPow({
      solution: s.solution, solutionBlockChecksum: t.chain.getBlock(5n)!.checksum, recipientAddress: ADDRESS,
      signedBlockNum: 6n, signedBlockVersion: 13, minDifficulty: 500n * COIN,
    });
    expect(verdict).toEqual({ ok: true, difficulty: s.difficulty, bits: s.bits });
    expect(hex(signerPowSolutionHash(s.solution, t.chain.getBlock(5n)!.checksum, ADDRESS))).toBe(hex(s.hash));
  });

  it('keeps the best: every hit beats the one before, and the held solution is the best hit', async () => {
    const t = setup({ min: 1n });
    for (let i = 0; i < 40; i++) await t.miner.runOnce();
    const found = t.hits().map((h) => signerPowDifficulty(h.result.hash!));
    expect(found.length).toBeGreaterThan(2);
    for (let i = 1; i < found.length; i++) expect(found[i]!).toBeGreaterThan(found[i - 1]!);
    // each job after a hit aims above it
    const aims = t.pool.log.map((l) => hex(l.job.target));
    const lastHit = t.pool.log[t.pool.log.length - 1]!.result.solution !== null;
    expect(new Set(aims).size).toBe(1 + found.length - (lastHit ? 1 : 0));
    expect(t.miner.activeSolution(6n, 13)!.difficulty).toBe(found[found.length - 1]);
    expect(t.miner.stats.solutionsFound).toBe(found.length);
  });

  it('answers by the window of the signed block and the minimum difficulty; expired solutions go', async () => {
    const t = setup({ min: 1n, height: 5n });
    await t.stepUntil('searched');
    const s = t.miner.activeSolution(6n, 13)!;
    expect(s.solution.blockNum).toBe(5n);
    expect(t.miner.activeSolution(5n, 13)).toBeNull(); // strictly below the signed block
    expect(t.miner.activeSolution(35n, 13)).toBe(s); // 5 + 30
    expect(t.miner.activeSolution(36n, 13)).toBeNull();
    expect(t.miner.activeSolution(125n, 11)).toBe(s); // 120 blocks before v12
    t.state.min = s.difficulty + 1n;
    expect(t.miner.activeSolution(6n, 13)).toBeNull();
    t.state.min = 1n;
    t.state.paused = true; // no new solutions: only expiry acts
    t.chain.grow(34n);
    expect(await t.miner.runOnce()).toBe('paused');
    expect(t.miner.heldSolutions().map((h) => h.solution.blockNum)).toEqual([5n]);
    t.chain.grow(35n); // 5 + 30 − 1 < 35
    await t.miner.runOnce();
    expect(t.miner.heldSolutions()).toEqual([]);
  });

  it('sends no job while the pool has foreground work, and mines again when it has none', async () => {
    const t = setup({ min: 1n });
    await t.stepUntil('searched');
    const jobs = t.pool.log.length;
    t.pool.setForeground(3);
    for (let i = 0; i < 5; i++) expect(await t.miner.runOnce()).toBe('busy');
    expect(t.pool.log.length).toBe(jobs);
    expect(t.miner.stats.busyWaits).toBe(5);
    t.pool.setForeground(0);
    expect(await t.miner.runOnce()).toBe('searched');
    expect(t.pool.log.length).toBe(jobs + 1);
  });

  it('with a worker pool: no signer-PoW job leaves while RSA verifications wait; signing goes through the pool', async () => {
    const sent: { name: string; foreground: number }[] = [];
    let inner: WorkerPool | undefined;
    inner = createWorkerPool({ threads: 1, onTask: ({ name }) => sent.push({ name, foreground: inner!.foregroundPending() }) });
    try {
      const clock = new ManualClock();
      const chain = new FakeChain(clock).grow(5n);
      const miner = new SignerMiner({
        pool: inner, chain, address: ADDRESS, minDifficulty: () => 1n, clock, log: silentLog, generateKey: async () => keyPair(keys[0]!),
      });
      expect(await miner.runOnce()).toBe('key');
      expect(await miner.runOnce()).toBe('searched');
      // A burst of verifications: the miner yields until the last one is back.
      const items = Array.from({ length: 200 }, (_, i) => ({ publicKey: publicKeyToBytes(keys[0]!), data: Uint8Array.of(i), signature: new Uint8Array(256) }));
      const verify = inner.verifyRsa(items);
      expect(await miner.runOnce()).toBe('busy');
      expect(await verify).toEqual(items.map(() => false));
      expect(await miner.runOnce()).toBe('searched');
      const searches = sent.filter((s) => s.name === 'searchSignerPow');
      expect(searches.length).toBe(2);
      expect(searches.every((s) => s.foreground === 0)).toBe(true);
      // signing: the pool's signRsa task
      const entry = (await miner.signBlock(6n, 13, chain.getBlock(5n)!.checksum.map((b) => b ^ 1)))!;
      expect(sent.some((s) => s.name === 'signRsa')).toBe(true);
      const parsed = parseBlockSignature(entry);
      expect(verifyBlockSignatureEntry({ entry: parsed, blockNum: 6n, blockVersion: 13, blockChecksum: chain.getBlock(5n)!.checksum.map((b) => b ^ 1), solutionBlockChecksum: chain.getBlock(5n)!.checksum, minDifficulty: 1n }).ok).toBe(true);
    } finally {
      await inner.close();
    }
  });

  it('signs a block per §5.2: our address, the active solution, RSA by the solution key over sha3_512sq(checksum ‖ solution); null without a solution', async () => {
    const t = setup({ min: 1n, height: 5n });
    const checksum6 = sha3_512sq(new TextEncoder().encode('block 6 candidate'));
    expect(await t.miner.signBlock(6n, 13, checksum6)).toBeNull();
    await t.stepUntil('searched');
    const entry = (await t.miner.signBlock(6n, 13, checksum6))!;
    const s = t.miner.activeSolution(6n, 13)!;
    expect(hex(entry.signer)).toBe(hex(ADDRESS));
    expect(hex(entry.powSolution)).toBe(hex(s.bytes));
    const digest = sha3_512sq(new Uint8Array([...checksum6, ...s.solution.solution]));
    expect(verifySignature(s.solution.signingPubKey, digest, entry.signature!)).toBe(true);
    expect(await t.miner.signBlock(36n, 13, checksum6)).toBeNull(); // out of the window
  });

  it('cycles like the reference: rests after ≥ 10 blocks with a solution, until 15 blocks after the last; a new key per cycle', async () => {
    const t = setup({ min: 1n, height: 100n });
    expect(await t.miner.runOnce()).toBe('key');
    for (let h = 100n; h < 110n; h++) {
      t.chain.grow(h);
      expect(await t.miner.runOnce()).toBe('searched'); // a new challenge per block; the first job hits (min 1)
      expect(t.pool.log[t.pool.log.length - 1]!.result.solution).not.toBeNull();
    }
    for (let h = 110n; h < 124n; h++) {
      t.chain.grow(h);
      expect(await t.miner.runOnce()).toBe('waiting'); // mined 10 blocks, last solution at 109: rest to 124
    }
    t.chain.grow(124n);
    expect(await t.miner.runOnce()).toBe('key'); // the key of block 100 is older than 10 blocks
    expect(await t.miner.runOnce()).toBe('searched');
    expect(t.miner.stats.keys).toBe(2);
    const held = t.miner.heldSolutions();
    expect(held[held.length - 1]!.solution.blockNum).toBe(124n);
    expect(hex(held[held.length - 1]!.solution.signingPubKey)).not.toBe(hex(held[0]!.solution.signingPubKey));
  });

  it('does not start while catching up; starts when the chain is stuck; mines tip − 6 when the tip is stale', async () => {
    const t = setup({ min: 1n, height: 100n, networkHeight: 120n });
    expect(await t.miner.runOnce()).toBe('waiting'); // 100 + 15 < 120
    t.state.networkHeight = 115n;
    await t.stepUntil('searched');
    for (let h = 101n; h <= 110n; h++) {
      t.chain.grow(h);
      await t.miner.runOnce();
    }
    expect(await t.miner.runOnce()).toBe('waiting'); // resting
    t.clock.advance(449_000);
    expect(await t.miner.runOnce()).toBe('waiting');
    t.clock.advance(2_000); // no block for > 450 s: stuck, mine again
    await t.stepUntil('searched');
    expect(t.pool.log[t.pool.log.length - 1]!.job.prefix[0]).toBe(110); // varint(110): over the tip
    t.clock.advance(1_800_000); // tip older than 1800 s: mine block tip − 6
    await t.stepUntil('searched');
    expect(t.miner.heldSolutions().some((s) => s.solution.blockNum === 104n)).toBe(true);
  });

  it('mines over the tip of a chain of 6 blocks or fewer whose tip is stale (a genesis older than the limit when its first master starts)', async () => {
    const t = setup({ min: 1n, height: 1n, interval: 1 });
    t.clock.advance(200_000); // block 1 is 200 s old: past the 60 s limit of a 1 s network, no block 6 back
    await t.stepUntil('searched');
    expect(t.pool.log[t.pool.log.length - 1]!.job.prefix[0]).toBe(1); // varint(1): over block 1
    expect(t.miner.heldSolutions().some((s) => s.solution.blockNum === 1n)).toBe(true);
  });

  it('a devnet scales the seconds limits by its block interval (1 s: stuck after 15 s)', async () => {
    const t = setup({ min: 1n, height: 100n, interval: 1 });
    await t.stepUntil('searched');
    for (let h = 101n; h <= 110n; h++) {
      t.chain.grow(h);
      await t.miner.runOnce();
    }
    expect(await t.miner.runOnce()).toBe('waiting');
    t.clock.advance(15_000);
    await t.stepUntil('searched');
  });

  it('a block replaced at the same height drops the solutions over the old one', async () => {
    const t = setup({ min: 1n, height: 5n });
    await t.stepUntil('searched');
    expect(t.miner.heldSolutions().map((s) => s.solution.blockNum)).toEqual([5n]);
    t.chain.blocks.delete(5n);
    t.chain.height = 4n;
    t.chain.grow(5n, 'b'); // another block 5
    await t.stepUntil('searched');
    const held = t.miner.heldSolutions();
    expect(held.length).toBe(1);
    expect(verifySignerPow({ solution: held[0]!.solution, solutionBlockChecksum: t.chain.getBlock(5n)!.checksum, recipientAddress: ADDRESS, signedBlockNum: 6n, signedBlockVersion: 13, minDifficulty: 1n }).ok).toBe(true);
  });

  it('status members in the reference shape: Last = highest block, Active = best; 0 and {} before any', async () => {
    const t = setup({ min: 1n, height: 5n });
    expect(t.miner.statusMembers()).toEqual({ 'Signer Hashrate': 0, 'Signer Last PoW Solution': {}, 'Signer Active PoW Solution': {} });
    await t.stepUntil('searched');
    t.chain.grow(6n);
    await t.stepUntil('searched');
    const held = t.miner.heldSolutions();
    const last = held[held.length - 1]!;
    const status = t.miner.statusMembers();
    expect(status['Signer Last PoW Solution']).toEqual({
      blockNum: 6, solution: Buffer.from(last.solution.solution).toString('base64'), checksum: Buffer.from(last.hash).toString('base64'),
      difficulty: expect.stringMatching(/^\d+\.\d{8}$/), bits: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    const bestBlock = held.reduce((a, b) => (b.difficulty > a.difficulty ? b : a));
    expect((status['Signer Active PoW Solution'] as { blockNum: number }).blockNum).toBe(Number(bestBlock.solution.blockNum));
    t.clock.advance(5_000);
    expect(t.miner.hashrate).toBe(Math.round((t.miner.stats.hashes * 1000) / 5_000));
  });

  it('duty < 1: once the cycle holds a solution, each job is followed by a rest; a bad duty is refused', async () => {
    const clock = new ManualClock();
    const chain = new FakeChain(clock).grow(5n);
    const pool = recordingPool(createWorkerPool({ threads: 0 }));
    const deps = { pool, chain, address: ADDRESS, clock, log: silentLog, generateKey: async () => keyPair(keys[0]!) };
    const miner = new SignerMiner({ ...deps, minDifficulty: () => 10n ** 30n, duty: 0.25 }); // nothing reaches it
    expect(await miner.runOnce()).toBe('key');
    expect(await miner.runOnce()).toBe('searched'); // no solution yet: no rest
    const hitting = new SignerMiner({ ...deps, minDifficulty: () => 1n, duty: 0.25 });
    await hitting.runOnce();
    expect(await hitting.runOnce()).toBe('rest');
    expect(() => new SignerMiner({ ...deps, minDifficulty: () => 1n, duty: 0 })).toThrow(/duty/);
    expect(() => new SignerMiner({ ...deps, minDifficulty: () => 1n, duty: 1.5 })).toThrow(/duty/);
  });

  it('start/stop: the loop mines in the background and stops', async () => {
    const clock = { now: () => Date.now(), setTimer: (ms: number, fn: () => void) => { const h = setTimeout(fn, ms); return { cancel: () => clearTimeout(h) }; } };
    const chain = new FakeChain(new ManualClock(Date.now())).grow(5n);
    const miner = new SignerMiner({ pool: createWorkerPool({ threads: 0 }), chain, address: ADDRESS, minDifficulty: () => 1n, clock, log: silentLog, generateKey: async () => keyPair(keys[0]!) });
    miner.start();
    for (let i = 0; i < 200 && miner.stats.solutionsFound === 0; i++) await new Promise((r) => setTimeout(r, 5));
    await miner.stop();
    expect(miner.stats.solutionsFound).toBeGreaterThan(0);
    const jobs = miner.stats.jobs;
    await new Promise((r) => setTimeout(r, 20));
    expect(miner.stats.jobs).toBe(jobs);
    expect(miner.isRunning).toBe(false);
  });
});
