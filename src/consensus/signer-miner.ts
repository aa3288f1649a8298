/**
 * The signer miner of a master (reference-formats.md §12; reference-network.md §5.2, §3.3; CORE
 * `Miner/SignerPowMiner.cs`): it searches signer-PoW solutions in the worker pool (task
 * `searchSignerPow`, the WASM search) at the lowest priority, keeps the best solution per block,
 * and answers which solution signs a block and which one a keep-alive carries.
 *
 * What it copies from the reference miner:
 * - It mines over the tip (over tip − 6 when the tip is older than the long-time-no-block limit),
 *   starting a new challenge — a fresh random 32-byte solution — whenever the tip changes.
 * - Cycles: once mining, it stops after at least `minCalculationBlocks` blocks (10 from block v12,
 *   20 before) when it found a solution in the cycle; it then rests until 15 blocks
 *   (`calculationInterval`) after its last solution, unless the chain is stuck (no block for the
 *   450 s `blockSignaturePlCheckTimeout`). It does not start while catching up (tip + 15 < network
 *   height).
 * - One ephemeral RSA-2048 key (header version 2) per cycle, renewed when older than
 *   `minCalculationBlocks` blocks; generated on OpenSSL's threads (off the event loop).
 * - The search aims at the minimum signer difficulty, then at anything better than the best found
 *   on that block, so every hit improves; solutions expire with the validity window (30 blocks
 *   from v12, 120 before).
 * Seconds-based limits scale with the network's block interval (÷30), as consensusTiming does.
 *
 * Priority: the pool has no priorities, so the miner sends one small job at a time (~20 ms of
 * hashing, sized from the worker's own measured rate) and only while `pool.foregroundPending()` is
 * 0; otherwise it waits a few milliseconds and looks again. RPC, admission and block import wait at
 * most one job behind it. `duty` < 1 (not in the reference) rests between jobs once the cycle has a
 * solution, so a machine running several masters (a devnet) is not kept busy improving them.
 */
import { randomBytes, type KeyObject } from 'node:crypto';
import { u64le, type BlockSignature } from '../chain/block.js';
import type { Clock } from '../clock.js';
import { signerPowChallengePrefix, SIGNER_POW_MAX_BATCH, SIGNER_POW_MINER_SOLUTION } from '../core/signer-pow.js';
import { formatAmount } from '../formats/amount.js';
import { equalBytes, toBase64, toHex } from '../formats/bytes.js';
import { generateWalletKey, signBytes } from '../formats/rsa.js';
import type { Logger } from '../log/logger.js';
import type { SignerSearchJob, SignerSearchResult } from '../pool/tasks/search-signer-pow.js';
import { ConsensusError } from './errors.js';
import { pickKeepAliveSolution } from './keep-alive-pow.js';
import { consensusTiming, REFERENCE_BLOCK_INTERVAL, SIGNATURE_PL_CHECK_TIMEOUT_SECONDS } from './rules.js';
import {
  blockSignatureDigest, encodeSignerPowSolution, hashToBits, signerPowDifficulty, signerPowInWindow, signerPowTargetForDifficulty,
  signerPowValidityBlocks, type SignerPowSolution,
} from './signer-pow.js';

/** Blocks a cycle mines at least (`plPowMinCalculationBlockTime`): 10 from block v12, 20 before. */
export function minCalculationBlocks(blockVersion: number): bigint {
  return blockVersion < 12 ? 20n : 10n;
}
/** Blocks after the last solution before the next cycle (`plPowCalculationInterval`). */
export const CALCULATION_INTERVAL_BLOCKS = 15n;
/** RSA modulus and key header version of the ephemeral signing keys (`generateKeys(2048, 2)`). */
export const SIGNING_KEY_BITS = 2048;
const SIGNING_KEY_VERSION = 2;
/** Hashing per job, ms: small enough that a foreground task waits little behind it. */
export const DEFAULT_JOB_MS = 20;
/** In-process pools (threads: 0) hash on the event loop: much shorter jobs. */
const IN_PROCESS_JOB_MS = 2;
/** Solutions of the first job, before the worker's rate is known. */
const FIRST_JOB_SOLUTIONS = 4096;
const MIN_JOB_SOLUTIONS = 256;
/** Wait when the pool has foreground work, ms. */
const BUSY_WAIT_MS = 5;
/** Wait when there is nothing to mine (paused, resting, no chain), ms. */
const IDLE_WAIT_MS = 250;
/** Hashrate sampling window (the reference's 5 s). */
const HASHRATE_WINDOW_MS = 5000;

/** A solution the miner found, with what signing needs. */
export interface SignerSolution {
  solution: SignerPowSolution;
  /** `encodeSignerPowSolution(solution)`: what a signature entry and a keep-alive carry. */
  bytes: Uint8Array;
  /** The signer-PoW hash (the reference's `checksum`). */
  hash: Uint8Array;
  /** Raw CoinNumber. */
  difficulty: bigint;
  bits: bigint;
  /** The ephemeral RSA-2048 private key of `solution.signingPubKey`. */
  signingKey: KeyObject;
}

/** An ephemeral signing key. */
export interface SigningKeyPair {
  privateKey: KeyObject;
  /** Serialized public key (§6.1). */
  publicKey: Uint8Array;
}

/** The pool as the miner uses it (src/pool/index.ts `WorkerPool`). */
export interface SignerMinerPool {
  readonly threads: number;
  searchSignerPow(jobs: readonly SignerSearchJob[]): Promise<SignerSearchResult[]>;
  /** Foreground items waiting or running: the miner submits only at 0. */
  foregroundPending(): number;
  /** Signs off the event loop when present; else signing runs here (~1 ms for RSA-2048). */
  signRsa?(items: readonly { privateKeyDer: Uint8Array; data: Uint8Array }[]): Promise<Uint8Array[]>;
}

/** The chain as the miner reads it (src/chain/chain.ts `Chain`). */
export interface SignerMinerChain {
  readonly height: bigint;
  /**
   * The tip block (the chain's `tip`) and when it was appended here. Read every few milliseconds:
   * the tip itself, not `getBlock(height)`, which reads the whole stored block.
   */
  readonly tip: { block: { version: number; timestamp: bigint }; checksum: Uint8Array; receivedAtMs: number } | null;
  getBlock(num: bigint): { block: { version: number; timestamp: bigint }; checksum: Uint8Array } | null;
}

export interface SignerMinerDeps {
  pool: SignerMinerPool;
  chain: SignerMinerChain;
  /** The master's addressNoChecksum: the solutions' recipient and the signature entries' signer. */
  address: Uint8Array;
  /** Minimum difficulty of one signature (rules `minSignerPowDifficulty`; a genesis network's floor). */
  minDifficulty: () => bigint;
  clock: Clock;
  log: Logger;
  /** Network height (§6) for the catching-up rule; default our height. */
  networkHeight?: () => bigint;
  /** Mining waits while this says so (e.g. while synchronizing, as the reference's `pause`). */
  paused?: () => boolean;
  /** Seconds between blocks of the network: the reference's seconds limits scale by it ÷ 30 (default 30). */
  blockIntervalSeconds?: number;
  /** Makes an ephemeral key (default RSA-2048 on OpenSSL's threads); tests pass a cached one. */
  generateKey?: () => Promise<SigningKeyPair>;
  /** Target hashing time of one job, ms (default 20; 2 with an in-process pool). */
  jobMs?: number;
  /**
   * Share of wall time spent hashing once the cycle has found a solution, (0, 1] (default 1, the
   * reference's behaviour): after a job of t ms the miner rests t·(1 − duty)/duty ms.
   */
  duty?: number;
}

/** What one {@link SignerMiner.runOnce} did. */
export type SignerMinerStep =
  /** `paused()` said so. */
  | 'paused'
  /** Nothing to mine now: no chain, catching up, resting after a cycle. */
  | 'waiting'
  /** The pool has foreground work: no job sent. */
  | 'busy'
  /** A new signing key was made (the next step mines). */
  | 'key'
  /** One job ran. */
  | 'searched'
  /** One job ran; the miner rests before the next (`duty`). */
  | 'rest';

/** What the miner works on: one block's challenge. */
interface Challenge {
  blockNum: bigint;
  checksum: Uint8Array;
  key: SigningKeyPair;
  prefix: Uint8Array;
  /** Difficulty the next hit must reach: the minimum, then above the best found on this block. */
  aim: bigint;
  target: Uint8Array;
  next: Uint8Array;
}

const byBlockNum = (a: SignerSolution, b: SignerSolution): number => (a.solution.blockNum < b.solution.blockNum ? -1 : a.solution.blockNum > b.solution.blockNum ? 1 : 0);

/** The best of a list: highest difficulty, the lowest block number among equals (the reference's stable order). */
function best(list: readonly SignerSolution[]): SignerSolution | null {
  let out: SignerSolution | null = null;
  for (const s of [...list].sort(byBlockNum)) if (out === null || s.difficulty > out.difficulty) out = s;
  return out;
}

async function defaultKey(): Promise<SigningKeyPair> {
  const k = await generateWalletKey({ bits: SIGNING_KEY_BITS, version: SIGNING_KEY_VERSION });
  return { privateKey: k.privateKeyObject, publicKey: k.publicKey };
}

export class SignerMiner {
  /** Best solution per block number (the reference keeps one per block). */
  private readonly solutions = new Map<bigint, SignerSolution>();
  private readonly keyDer = new WeakMap<KeyObject, Uint8Array>();
  private challenge: Challenge | null = null;
  private key: SigningKeyPair | null = null;
  private keyMadeAt = 0n;
  private cycleStartedAt = 0n;
  private lastFoundAt = 0n;
  private jobSolutions = FIRST_JOB_SOLUTIONS;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private hashesInWindow = 0;
  private windowStart: number;
  private rate = 0;
  /** Rest owed before the next job, ms (`duty`). */
  private restMs = 0;
  /** Counters (status, tests, metrics). */
  readonly stats = { jobs: 0, hashes: 0, busyWaits: 0, solutionsFound: 0, keys: 0 };

  constructor(private readonly deps: SignerMinerDeps) {
    if (!(deps.address instanceof Uint8Array) || (deps.address.length !== 33 && deps.address.length !== 45)) {
      throw new ConsensusError('ERR_CONSENSUS_INPUT', 'signer miner: address must be an addressNoChecksum of 33 or 45 bytes');
    }
    if (deps.duty !== undefined && !(deps.duty > 0 && deps.duty <= 1)) {
      throw new ConsensusError('ERR_CONSENSUS_INPUT', `signer miner: duty must be in (0, 1], got ${String(deps.duty)}`);
    }
    this.windowStart = deps.clock.now();
  }

  /** Starts the background loop (idempotent). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops the loop and waits for the job in flight. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = null;
  }

  get isRunning(): boolean {
    return this.running;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let step: SignerMinerStep;
      try {
        step = await this.runOnce();
      } catch (err) {
        this.deps.log.warn({ err }, 'signer miner: step failed');
        step = 'waiting';
      }
      if (!this.running) break;
      if (step === 'paused' || step === 'waiting') await this.sleep(IDLE_WAIT_MS);
      else if (step === 'busy') await this.sleep(BUSY_WAIT_MS);
      else if (step === 'rest') await this.sleep(this.restMs);
      else if (this.deps.pool.threads === 0) await new Promise<void>((r) => setImmediate(r)); // let the event loop breathe
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = this.deps.clock.setTimer(ms, () => done());
      const done = (): void => {
        timer.cancel();
        this.wake = null;
        resolve();
      };
      this.wake = done;
    });
  }

  /**
   * One step of the miner: update the challenge as the reference's manager does, then send one
   * job when the pool has no foreground work. The loop calls it; tests call it directly.
   */
  async runOnce(): Promise<SignerMinerStep> {
    this.sampleRate();
    const state = await this.update();
    if (state !== 'ready') return state;
    if (this.deps.pool.foregroundPending() > 0) {
      this.stats.busyWaits++;
      return 'busy';
    }
    const c = this.challenge!;
    const job: SignerSearchJob = { prefix: c.prefix, start: c.next, target: c.target, count: this.jobSolutions };
    const [r] = await this.deps.pool.searchSignerPow([job]);
    this.stats.jobs++;
    this.stats.hashes += r!.tried;
    this.hashesInWindow += r!.tried;
    c.next = r!.next;
    if (r!.micros > 0 && !r!.solution) {
      const jobMs = this.deps.jobMs ?? (this.deps.pool.threads === 0 ? IN_PROCESS_JOB_MS : DEFAULT_JOB_MS);
      const size = Math.round((r!.tried / r!.micros) * jobMs * 1000);
      this.jobSolutions = Math.max(MIN_JOB_SOLUTIONS, Math.min(SIGNER_POW_MAX_BATCH, size));
    }
    if (r!.solution && r!.hash) this.found(c, r!.solution, r!.hash);
    const duty = this.deps.duty ?? 1;
    if (duty < 1 && this.lastFoundAt >= this.cycleStartedAt && this.lastFoundAt > 0n) {
      this.restMs = Math.ceil((r!.micros / 1000) * ((1 - duty) / duty));
      return 'rest';
    }
    return 'searched';
  }

  /** The reference's `UpdateActiveBlock` and `RemoveExpiredSolutions`. */
  private async update(): Promise<'ready' | 'paused' | 'waiting' | 'key'> {
    const { chain, clock } = this.deps;
    const height = chain.height;
    const tip = height >= 1n ? chain.tip : null;
    if (tip) this.removeExpired(height, tip.block.version);
    if (this.deps.paused?.()) {
      this.challenge = null;
      return 'paused';
    }
    if (!tip) return 'waiting';
    const interval = this.deps.blockIntervalSeconds ?? REFERENCE_BLOCK_INTERVAL;
    const nowS = clock.now() / 1000;
    let candidate: { num: bigint; block: { version: number; timestamp: bigint }; checksum: Uint8Array } = { num: height, block: tip.block, checksum: tip.checksum };
    // A chain of 6 blocks or fewer has no block 6 back: it mines over its tip (a network whose
    // genesis is older than the long-time-no-block limit when its first master starts).
    const older = height > 6n && Number(tip.block.timestamp) + consensusTiming(interval).longTimeNoBlock < nowS ? chain.getBlock(height - 6n) : null;
    if (older) candidate = { num: height - 6n, ...older };
    const minCalc = minCalculationBlocks(tip.block.version);
    const sinceBlockS = (clock.now() - (chain.tip?.receivedAtMs ?? clock.now())) / 1000;
    const stuck = sinceBlockS >= (SIGNATURE_PL_CHECK_TIMEOUT_SECONDS * interval) / REFERENCE_BLOCK_INTERVAL;
    if (this.challenge) {
      // Found something this cycle and mined long enough: rest (unless the chain is stuck).
      if (this.lastFoundAt >= this.cycleStartedAt && candidate.num - this.cycleStartedAt >= minCalc && !stuck) {
        this.challenge = null;
        return 'waiting';
      }
    } else {
      if (candidate.num + CALCULATION_INTERVAL_BLOCKS < (this.deps.networkHeight?.() ?? height)) return 'waiting'; // catching up
      if (candidate.num > CALCULATION_INTERVAL_BLOCKS && this.lastFoundAt + CALCULATION_INTERVAL_BLOCKS > candidate.num && !stuck) return 'waiting';
    }
    const c = this.challenge;
    if (c && c.blockNum === candidate.num && equalBytes(c.checksum, candidate.checksum)) return 'ready';
    if (this.key === null || this.keyMadeAt + minCalc < candidate.num) {
      this.key = await (this.deps.generateKey ?? defaultKey)();
      this.keyMadeAt = candidate.num;
      this.stats.keys++;
      return 'key';
    }
    if (!c) this.cycleStartedAt = candidate.num;
    // A solution over this height or above belongs to a chain we left (or this very block).
    for (const n of this.solutions.keys()) if (n >= candidate.num) this.solutions.delete(n);
    const aim = this.deps.minDifficulty();
    this.challenge = {
      blockNum: candidate.num,
      checksum: candidate.checksum,
      key: this.key,
      prefix: signerPowChallengePrefix({ blockNum: candidate.num, blockChecksum: candidate.checksum, recipientAddress: this.deps.address, signingPubKey: this.key.publicKey }),
      aim,
      target: signerPowTargetForDifficulty(aim),
      next: new Uint8Array(randomBytes(SIGNER_POW_MINER_SOLUTION)),
    };
    return 'ready';
  }

  /** `ProcessSolution`: keep a hit if it beats the block's best; aim above it from now on. */
  private found(c: Challenge, solutionBytes: Uint8Array, hash: Uint8Array): void {
    let difficulty: bigint;
    try {
      difficulty = signerPowDifficulty(hash);
    } catch {
      return; // a zero hash: the reference cannot value it either
    }
    if (difficulty < c.aim) return;
    c.aim = difficulty + 1n;
    c.target = signerPowTargetForDifficulty(c.aim);
    this.lastFoundAt = c.blockNum;
    this.stats.solutionsFound++;
    // The chain may have moved on during the job: the solution stays valid for its own block.
    const held = this.solutions.get(c.blockNum);
    if (held && held.difficulty >= difficulty) return;
    const solution: SignerPowSolution = { blockNum: c.blockNum, solution: solutionBytes, signingPubKey: c.key.publicKey };
    this.solutions.set(c.blockNum, {
      solution, bytes: encodeSignerPowSolution(solution), hash, difficulty, bits: hashToBits(hash), signingKey: c.key.privateKey,
    });
    this.deps.log.debug({ block: Number(c.blockNum), difficulty: formatAmount(difficulty) }, 'signer miner: solution found');
  }

  /** `RemoveExpiredSolutions`: solution block + validity − 1 < tip. */
  private removeExpired(height: bigint, tipVersion: number): void {
    const validity = BigInt(signerPowValidityBlocks(tipVersion));
    for (const n of this.solutions.keys()) if (n + validity - 1n < height) this.solutions.delete(n);
  }

  private sampleRate(): void {
    const now = this.deps.clock.now();
    const elapsed = now - this.windowStart;
    if (elapsed < HASHRATE_WINDOW_MS) return;
    this.rate = Math.round((this.hashesInWindow * 1000) / elapsed);
    this.hashesInWindow = 0;
    this.windowStart = now;
  }

  // ---- what the node asks ----

  /** The solutions held, by block number (the reference's `GetSolutions(0, 0)`). */
  heldSolutions(): SignerSolution[] {
    return [...this.solutions.values()].sort(byBlockNum);
  }

  /** Best solution valid for signing block `num` of version `version` (§5.2 window, ≥ the minimum difficulty), or null. */
  activeSolution(num: bigint, version: number): SignerSolution | null {
    const min = this.deps.minDifficulty();
    return best(this.heldSolutions().filter((s) => signerPowInWindow(s.solution.blockNum, num, version) && s.difficulty >= min));
  }

  /** The difficulty of the solution `signBlock` would sign block `num` with now, or null. */
  bestDifficulty(num: bigint, version: number): bigint | null {
    return this.activeSolution(num, version)?.difficulty ?? null;
  }

  /**
   * Signs block `num` (version `version`) with checksum `checksum` (reference-network §5.2): the
   * entry names our address, carries the active solution, and signs `sha3_512sq(checksum ‖
   * solution)` with the solution's key (RSA-SHA512 PKCS#1 v1.5, in the pool when it signs).
   * Null without an active solution.
   */
  async signBlock(num: bigint, version: number, checksum: Uint8Array): Promise<BlockSignature | null> {
    const s = this.activeSolution(num, version);
    if (!s) return null;
    const digest = blockSignatureDigest(checksum, s.solution.solution);
    let signature: Uint8Array;
    if (this.deps.pool.signRsa) {
      let der = this.keyDer.get(s.signingKey);
      if (!der) {
        der = new Uint8Array(s.signingKey.export({ format: 'der', type: 'pkcs8' }));
        this.keyDer.set(s.signingKey, der);
      }
      [signature] = (await this.deps.pool.signRsa([{ privateKeyDer: der, data: digest }])) as [Uint8Array];
    } else {
      signature = signBytes(s.signingKey, digest);
    }
    return { signer: this.deps.address.slice(), powSolution: s.bytes, signature };
  }

  /**
   * The solution our keep-alive carries at `networkHeight` (reference-network §3.3,
   * `generateKeepAlive`), as bytes, or null when none is valid (a master then sends no keep-alive).
   */
  keepAliveSolution(networkHeight: bigint, blockVersion: number): Uint8Array | null {
    return pickKeepAliveSolution(this.heldSolutions(), networkHeight, blockVersion)?.bytes ?? null;
  }

  /** Hashes per second over the last 5 s window (the reference's `lastHashRate`). */
  get hashrate(): number {
    this.sampleRate();
    return this.rate;
  }

  /**
   * The miner's `status` members (DLT `APIServer` onStatus): `Signer Hashrate`, `Signer Last PoW
   * Solution` (the solution over the highest block) and `Signer Active PoW Solution` (the best
   * held), each solution as `{ blockNum, solution, checksum, difficulty, bits }` — solution and
   * checksum base64 (how the reference's JSON writes byte arrays), difficulty a CoinNumber string,
   * bits the 8 little-endian bytes in hex; `{}` when there is none.
   */
  statusMembers(): { 'Signer Hashrate': number; 'Signer Last PoW Solution': SolutionStatus | Record<string, never>; 'Signer Active PoW Solution': SolutionStatus | Record<string, never> } {
    const held = this.heldSolutions();
    return {
      'Signer Hashrate': this.hashrate,
      'Signer Last PoW Solution': solutionStatus(held[held.length - 1] ?? null),
      'Signer Active PoW Solution': solutionStatus(best(held)),
    };
  }
}

/** A solution as `status` shows it (DLT `APIServer` onStatus). */
export interface SolutionStatus {
  blockNum: number;
  solution: string;
  checksum: string;
  difficulty: string;
  bits: string;
}

function solutionStatus(s: SignerSolution | null): SolutionStatus | Record<string, never> {
  if (!s) return {};
  return {
    blockNum: Number(s.solution.blockNum),
    solution: toBase64(s.solution.solution),
    checksum: toBase64(s.hash),
    difficulty: formatAmount(s.difficulty),
    bits: toHex(u64le(s.bits)),
  };
}
