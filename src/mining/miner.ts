/**
 * The built-in miner (reference-client-methods.md `minerstats`, `setBlockSelectionAlgorithm`):
 * `--miner-threads N` jobs in flight in the worker pool (task `searchPow`), each ~0.25 s of
 * Argon2id hashing, for the node's own address. It picks an unsolved block of the claim window by
 * the search mode (lowest difficulty, random among the lowest, the latest block, random), and a
 * nonce found becomes a claim through `submit` (the same path as `submitminingsolution`).
 * Algorithm −1 pauses it.
 */
import { randomBytes } from 'node:crypto';
import type { Chain } from '../chain/chain.js';
import { addressWithChecksum } from '../formats/address.js';
import { BLOCK_VERSION_V10 } from '../formats/constants.js';
import type { Logger } from '../log/logger.js';
import type { SearchJob, SearchResult } from '../pool/tasks/search-pow.js';
import { lowestClaimable } from './index.js';
import { powFieldOf } from './pow-field.js';
import { PAUSED, type MinerStats } from './stats.js';

/** Nonces per job: ~0.25 s at ~200 hashes per second per thread (the pool's other tasks wait at most this). */
export const NONCES_PER_JOB = 48;
/** How long the miner waits before looking again when it has nothing to do (paused, no block). */
const IDLE_MS = 500;
/** Unsolved blocks the lowest-difficulty modes consider (the newest of them). */
const CANDIDATES = 32;
/** Bytes of the random nonce prefix (the counter adds 4: 32-byte nonces, as the reference miner's are random). */
const PREFIX_BYTES = 28;

/** A block to mine: what a search and `getminingblock` need of it. */
export interface MiningTarget {
  num: bigint;
  checksum: Uint8Array;
  version: number;
  difficulty: bigint;
}

/**
 * The block to mine by search mode (0 lowest difficulty, the newest of equals; 1 random among the
 * lowest; 2 the latest; 3 random) among the newest {@link CANDIDATES} blocks of the claim window
 * whose PoW field is empty and that `skip` does not exclude (a claim already submitted for it), or
 * null when there is none. The built-in miner and `getminingblock` both choose with it.
 */
export function pickMiningBlock(chain: Chain, mode: number, skip: (num: bigint) => boolean): MiningTarget | null {
  const tip = chain.height;
  if (tip < 1n) return null;
  const unsolved: bigint[] = [];
  for (let n = tip; n >= lowestClaimable(tip) && unsolved.length < CANDIDATES; n--) {
    if (!skip(n) && !powFieldOf(chain.store, n)) unsolved.push(n);
  }
  const blocks = unsolved.map((n) => ({ n, b: chain.getBlock(n)! })).filter((x) => x.b);
  if (!blocks.length) return null;
  let chosen = blocks[0]!;
  const random = <T>(list: T[]): T => list[Math.floor(Math.random() * list.length)]!;
  const lowest = blocks.reduce((m, x) => (x.b.block.difficulty < m ? x.b.block.difficulty : m), blocks[0]!.b.block.difficulty);
  switch (mode) {
    case 0: chosen = blocks.find((x) => x.b.block.difficulty === lowest)!; break;
    case 1: chosen = random(blocks.filter((x) => x.b.block.difficulty === lowest)); break;
    case 2: chosen = blocks[0]!; break;
    default: chosen = random(blocks);
  }
  return { num: chosen.n, checksum: chosen.b.checksum, version: chosen.b.block.version, difficulty: chosen.b.block.difficulty };
}

export interface MinerDeps {
  chain: Chain;
  stats: MinerStats;
  threads: number;
  solver: Uint8Array;
  search(jobs: readonly SearchJob[]): Promise<SearchResult[]>;
  /** Submits a claim for a found nonce; resolves whether it was accepted. */
  submit(blockNum: bigint, nonce: Uint8Array): Promise<boolean>;
  log: Logger;
}

export class Miner {
  private running = false;
  private readonly loops: Promise<void>[] = [];
  /** Hashes since the last rate sample. */
  private hashes = 0;
  private sampleAt = Date.now();
  private rateTimer: NodeJS.Timeout | undefined;
  /**
   * Blocks a claim was submitted for (not searched again while the claim is pending); a block that
   * got its PoW field or left the claim window is forgotten at the next pick, as the reference's
   * `Miner.searchForBlock` drops its solved blocks, so the set holds at most the window.
   */
  private readonly claimed = new Set<string>();

  constructor(private readonly deps: MinerDeps) {}

  start(): void {
    if (this.running || this.deps.threads <= 0) return;
    this.running = true;
    this.rateTimer = setInterval(() => this.sampleRate(), 2000);
    this.rateTimer.unref();
    for (let i = 0; i < this.deps.threads; i++) this.loops.push(this.loop());
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.rateTimer) clearInterval(this.rateTimer);
    await Promise.allSettled(this.loops.splice(0));
  }

  private sampleRate(): void {
    const now = Date.now();
    const s = (now - this.sampleAt) / 1000;
    if (s > 0) this.deps.stats.hashrate = Math.round(this.hashes / s);
    this.hashes = 0;
    this.sampleAt = now;
  }

  /** Blocks with a claim submitted and not solved yet (tests). */
  get claimsPending(): number {
    return this.claimed.size;
  }

  /** The block to search by the current mode, or null (paused, nothing unsolved). */
  pick(): MiningTarget | null {
    const { chain, stats } = this.deps;
    if (stats.algorithm === PAUSED) return null;
    const lowest = lowestClaimable(chain.height);
    for (const key of this.claimed) {
      const n = BigInt(key);
      if (n < lowest || powFieldOf(chain.store, n)) this.claimed.delete(key);
    }
    return pickMiningBlock(chain, stats.algorithm, (n) => this.claimed.has(String(n)));
  }

  private async loop(): Promise<void> {
    const { stats, log } = this.deps;
    while (this.running) {
      const target = this.pick();
      if (!target) {
        await new Promise((r) => setTimeout(r, IDLE_MS));
        continue;
      }
      stats.currentBlock = target.num;
      stats.currentDifficulty = target.difficulty;
      const solver = target.version >= BLOCK_VERSION_V10 ? this.deps.solver : addressWithChecksum(this.deps.solver);
      try {
        const [r] = await this.deps.search([{
          blockChecksum: target.checksum, solverAddress: solver, difficulty: target.difficulty,
          prefix: randomBytes(PREFIX_BYTES), start: 0, count: NONCES_PER_JOB,
        }]);
        this.hashes += r!.tried;
        if (r!.nonce && this.running && !this.claimed.has(String(target.num))) {
          this.claimed.add(String(target.num));
          const ok = await this.deps.submit(target.num, r!.nonce).catch((err: unknown) => {
            log.warn({ err, block: Number(target.num) }, 'miner: claim refused');
            return false;
          });
          log.info({ block: Number(target.num), ok }, 'miner: solved a block');
        }
      } catch (err) {
        if (!this.running) return;
        log.warn({ err }, 'miner: search failed');
        await new Promise((r) => setTimeout(r, IDLE_MS));
      }
    }
  }
}
