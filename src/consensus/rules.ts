/**
 * The consensus rules among masters as pure functions (reference-network.md §5.1–§5.8): required
 * consensus with the reference's integer arithmetic, proposer election and block timing, the
 * signature freeze (which set, in which order, and its checksum), signer difficulty and the
 * 23.4 % rule, signer continuity, competing blocks, superblocks. Nothing here keeps state or
 * does I/O: the node wiring passes the chain's numbers in and acts on the answers.
 *
 * Copied as the reference computes them, including what looks odd (reference-network §10 item 5):
 * `floor(floor(avg) × 0.75)` with the integer division first, the minimum of 2, 1000 when no
 * earlier block is known, the 1000-signature cap checked after the add when freezing, the
 * incumbent candidate keeping a full tie. Each function names the reference function it follows.
 *
 * Numbers: block numbers bigint; counts and seconds JS numbers; difficulties raw CoinNumber bigint.
 */
import { addressWithChecksum } from '../formats/address.js';
import { COIN } from '../formats/amount.js';
import { assertBytes, concatBytes } from '../formats/bytes.js';
import { MAX_BLOCK_SIGNERS, SUPERBLOCK_INTERVAL } from '../formats/constants.js';
import { encodeVarUint } from '../formats/varint.js';
import { sha3_512sq } from '../core/hash.js';
import { ConsensusError } from './errors.js';
import {
  bitsToDifficulty, difficultyToBits, encodeSignerPowSolution, MIN_BLOCK_SIGNER_POW_DIFFICULTY, type SignerPowSolution,
} from './signer-pow.js';

// ---- constants (reference-network §5, formats §14; Ixian-Core ConsensusConfig) ----

/** `requiredConsensusOffset`: required consensus of block n looks at n−7 and below. */
export const REQUIRED_CONSENSUS_OFFSET = 7n;
/** `averageSigCalculationBlockCount`: how many earlier blocks the average takes (n−7 … n−16). */
export const AVERAGE_SIG_BLOCK_COUNT = 10;
/** `networkSignerConsensusRatio` 0.75, applied as ×3/4 (exact: the reference's double arithmetic on integers). */
export const SIGNER_CONSENSUS_RATIO = 0.75;
/** The reference's minimum required consensus once block 8 is reached. */
export const MIN_REQUIRED_CONSENSUS = 2;
/** `sigfreezeOffset`: block n freezes (and its header checksums) the signatures of n − 5. */
export const SIG_FREEZE_OFFSET = 5n;
/** `sigOverlapOffset`: the election block of n is n − 6 (continuity, election). */
export const ELECTION_OFFSET = 6n;
/** Freezing runs only for candidates above this block (n > 11). */
export const FREEZE_FROM_BLOCK = 11n;
/** Signer continuity is checked for blocks above this one (n > 13). */
export const CONTINUITY_FROM_BLOCK = 13n;
/** Below this block only the genesis node produces, and required consensus is 1 (n < 8). */
export const BOOTSTRAP_BLOCKS = 8n;
/** At and above this many election signatures, three proposers are elected at once (§5.1). */
export const THREE_PROPOSERS_FROM = 100;
/** `networkSignerDifficultyConsensusRatio`: 23.4 (percent), an IxiNumber in the reference. */
export const SIGNER_DIFFICULTY_RATIO = 2_340_000_000n;
/** `getMinSignerPowDifficulty` divides the adjusted required difficulty by 1000 signers × 7. */
const MIN_DIFFICULTY_DIVISOR = BigInt(MAX_BLOCK_SIGNERS * 7);
/** The chain must hold 8 blocks before the minimum signer difficulty follows the required one. */
const MIN_DIFFICULTY_CHAIN_LENGTH = 8;
/** Sig-freeze check of block n − 5: at least 90 % of the carried signatures must be in the local frozen list. */
export const SIG_FREEZE_AGREEMENT = 0.9;
/** `blockChainRecoveryTimeout`: recovery mode once a block comes 2 h after its predecessor. */
export const RECOVERY_TIMEOUT_SECONDS = 7200;
/** Recovery mode needs at least this many signatures. */
const RECOVERY_MIN_SIGNATURES = 3;
/** `blockChainRecoveryMissingSignerMultiplier`. */
const RECOVERY_MISSING_SIGNER_MULTIPLIER = 7n;
/** `blockSignaturePlCheckTimeout`: a block older than this is "catching up" for freezing (s). */
export const SIGNATURE_PL_CHECK_TIMEOUT_SECONDS = 450;
/** Superblock period (formats §14); a devnet may pass its own through its genesis parameters. */
export const SUPERBLOCK_PERIOD = BigInt(SUPERBLOCK_INTERVAL);
/** Block version from which the signer-difficulty change per superblock may reach ×4/÷4 (above v13). */
const BLOCK_VERSION_V13 = 13;

function checkBlockNum(n: bigint, what = 'blockNum'): void {
  if (typeof n !== 'bigint') throw new TypeError(`${what}: expected a bigint, got ${typeof n}`);
  if (n < 0n) throw new ConsensusError('ERR_CONSENSUS_INPUT', `${what}: expected a non-negative block number, got ${n}`);
}

function checkCount(n: number, what: string): void {
  if (!Number.isInteger(n) || n < 0) throw new ConsensusError('ERR_CONSENSUS_INPUT', `${what}: expected a non-negative integer, got ${String(n)}`);
}

// ---- §5.4 required consensus ----

/** Options of {@link requiredConsensus}. */
export interface RequiredConsensusOptions {
  /** Apply the 0.75 ratio (default true). false = the "unadjusted" variant used when freezing. */
  adjusted?: boolean;
  /**
   * Lowest result from block 8 on (default 2, the reference). A lone `reg` master passes 1 so
   * that one signer keeps making blocks; no other network may.
   */
  minimum?: number;
}

/**
 * Required signature count of block `blockNum` (DLT `BlockChain.getRequiredConsensus`).
 * @param frozenCounts frozen signature counts of blocks n−7, n−8, … in that order, stopping at the
 *   first block the node does not hold; only the first 10 are used.
 *
 * n < 8 → 1. No counts → 1000 (not adjusted). Otherwise with total T over c blocks:
 * ceil(T/c) > 1000 → 1000, adjusted floor(1000 × 0.75) = 750; else adjusted
 * floor(floor(T/c) × 0.75) (integer division first), unadjusted ceil(T/c). Then at least 2.
 */
export function requiredConsensus(blockNum: bigint, frozenCounts: readonly number[], options: RequiredConsensusOptions = {}): number {
  checkBlockNum(blockNum);
  const adjusted = options.adjusted ?? true;
  const minimum = options.minimum ?? MIN_REQUIRED_CONSENSUS;
  checkCount(minimum, 'minimum');
  if (blockNum < BOOTSTRAP_BLOCKS) return 1;
  const counts = frozenCounts.slice(0, AVERAGE_SIG_BLOCK_COUNT);
  if (counts.length === 0) return MAX_BLOCK_SIGNERS;
  let total = 0;
  for (const c of counts) {
    checkCount(c, 'frozen signature count');
    total += c;
  }
  const blocks = counts.length;
  let consensus = Math.ceil(total / blocks);
  if (consensus > MAX_BLOCK_SIGNERS) {
    consensus = MAX_BLOCK_SIGNERS;
    if (adjusted) consensus = Math.floor(consensus * SIGNER_CONSENSUS_RATIO);
  } else if (adjusted) {
    consensus = Math.floor(Math.floor(total / blocks) * SIGNER_CONSENSUS_RATIO);
  }
  return consensus < minimum ? minimum : consensus;
}

/**
 * {@link requiredConsensus} reading the counts from the chain: `frozenCountOf(k)` is the frozen
 * signature count of block k (the frozen list's length, else the live count), or undefined when
 * the node does not hold block k.
 */
export function requiredConsensusOf(
  blockNum: bigint,
  frozenCountOf: (blockNum: bigint) => number | undefined,
  options?: RequiredConsensusOptions,
): number {
  checkBlockNum(blockNum);
  const counts: number[] = [];
  if (blockNum >= BOOTSTRAP_BLOCKS) {
    for (let i = 0n; i < BigInt(AVERAGE_SIG_BLOCK_COUNT); i++) {
      const k = blockNum - REQUIRED_CONSENSUS_OFFSET - i;
      if (k < 1n) break; // blocks are numbered from 1
      const c = frozenCountOf(k);
      if (c === undefined) break;
      counts.push(c);
    }
  }
  return requiredConsensus(blockNum, counts, options);
}

/**
 * How many of a block's signers also signed its election block n − 6 (`extractRequiredSignatures`
 * with no limit): both lists frozen if frozen, else live.
 */
export function countContinuitySigners(signers: readonly Uint8Array[], electionSigners: readonly Uint8Array[]): number {
  let n = 0;
  for (const s of signers) if (electionSigners.some((e) => bytesEqual(e, s))) n++;
  return n;
}

/**
 * Signers of block n that must also have signed its election block n − 6 (§5.4 rule 3,
 * `verifyBlockSignatures`): required/2 + 1 (integer division), or 1 when required ≤ 2.
 */
export function continuityRequirement(required: number): number {
  checkCount(required, 'required consensus');
  return required > 2 ? Math.floor(required / 2) + 1 : 1;
}

// ---- §5.6 signer difficulty ----

/**
 * 23.4 % of a difficulty with the reference's IxiNumber arithmetic
 * (`adjustSignerDifficultyToRatio`: `d × 23.4 / 100`, each step truncating to 10⁻⁸).
 */
export function adjustSignerDifficultyToRatio(difficulty: bigint): bigint {
  const times = (difficulty * SIGNER_DIFFICULTY_RATIO) / COIN; // IxiNumber × IxiNumber("23.4")
  return (times * COIN) / (100n * COIN); // IxiNumber ÷ IxiNumber(100)
}

/**
 * The block whose signer bits govern block `blockNum` (`getRequiredSignerBits`): a superblock
 * uses its own; any other block the superblock at or below it (floor(n / period) × period), and
 * below the first superblock block 1 (genesis carries signer bits too, formats §10.3 row 9).
 */
export function signerBitsSourceBlock(blockNum: bigint, period: bigint = SUPERBLOCK_PERIOD): bigint {
  checkBlockNum(blockNum);
  if (period <= 0n) throw new ConsensusError('ERR_CONSENSUS_INPUT', `superblock period: expected > 0, got ${period}`);
  const sb = (blockNum / period) * period;
  return sb === 0n ? 1n : sb;
}

/**
 * Required signer bits of a block from the governing block's bits (`getRequiredSignerBits`):
 * block 1, or no/zero bits known → the bits of minBlockSignerPowDifficulty (0x3701AD7F29ABCAF4).
 */
export function requiredSignerBits(blockNum: bigint, governingBits: bigint | null | undefined): bigint {
  checkBlockNum(blockNum);
  if (blockNum === 1n || governingBits === null || governingBits === undefined || governingBits === 0n) {
    return difficultyToBits(MIN_BLOCK_SIGNER_POW_DIFFICULTY);
  }
  return governingBits;
}

/**
 * Required signer difficulty of a block (`getRequiredSignerDifficulty(block, adjustToRatio)`):
 * the difficulty of its governing bits, and with `adjusted` the 23.4 % of it that the block's
 * total signer difficulty must reach (§5.4 rule 2).
 */
export function requiredSignerDifficulty(blockNum: bigint, governingBits: bigint | null | undefined, adjusted: boolean): bigint {
  const d = bitsToDifficulty(requiredSignerBits(blockNum, governingBits));
  return adjusted ? adjustSignerDifficultyToRatio(d) : d;
}

/** §5.4 rule 2 / §5.6: does a block's total signer difficulty reach 23.4 % of the required one? */
export function meetsSignerDifficulty(totalSignerDifficulty: bigint, requiredDifficulty: bigint): boolean {
  return totalSignerDifficulty >= adjustSignerDifficultyToRatio(requiredDifficulty);
}

/**
 * Minimum difficulty of one signature or keep-alive PoW (`getMinSignerPowDifficulty`, §5.6):
 * max(10 000 000, adjusted required ÷ (1000 × 7)); 10 000 000 while the chain holds < 8 blocks.
 * @param requiredAdjusted `requiredSignerDifficulty(n, bits, true)`.
 * @param chainLength number of blocks the node holds.
 */
export function minSignerPowDifficulty(requiredAdjusted: bigint, chainLength: number): bigint {
  if (chainLength < MIN_DIFFICULTY_CHAIN_LENGTH) return MIN_BLOCK_SIGNER_POW_DIFFICULTY;
  const d = (requiredAdjusted * COIN) / (MIN_DIFFICULTY_DIVISOR * COIN);
  return d < MIN_BLOCK_SIGNER_POW_DIFFICULTY ? MIN_BLOCK_SIGNER_POW_DIFFICULTY : d;
}

/**
 * Bounds a superblock's new required signer difficulty (`calculateRequiredSignerDifficulty`): at
 * most ×2 / at least ÷2 the previous superblock's (×4/÷4 for blocks above v13), never below
 * minBlockSignerPowDifficulty (`floor`: a devnet's genesis may lower it). The averaging that proposes `proposed` (block- or time-based,
 * §5.6) is left to the wiring.
 */
export function boundSignerDifficultyChange(proposed: bigint, previousBits: bigint | null, blockVersion: number, floor: bigint = MIN_BLOCK_SIGNER_POW_DIFFICULTY): bigint {
  let d = proposed;
  if (previousBits !== null && previousBits > 0n) {
    const factor = blockVersion > BLOCK_VERSION_V13 ? 4n : 2n;
    const previous = bitsToDifficulty(previousBits);
    const max = (previous * (factor * COIN)) / COIN;
    const min = (previous * COIN) / (factor * COIN);
    if (d > max) d = max;
    else if (d < min) d = min;
  }
  return d < floor ? floor : d;
}

// ---- §5.1 timing and election ----

/** The timing of block production, all in seconds, derived from the block interval. */
export interface ConsensusTiming {
  /** Block interval: an elected master proposes this long after the tip's timestamp (30 s). */
  blockInterval: number;
  /** The elected offset steps every 2 intervals (60 s). */
  electionStep: number;
  /** After 4 intervals (120 s) nobody is elected, and any master may propose (120 s). */
  freeForAll: number;
  /** Extra random wait of the free-for-all, 0 to this (exclusive), per node (10 s: 0–9 s). */
  fallbackJitter: number;
  /** A timestamp within this margin after tip + interval is snapped to tip + interval (10 s). */
  timestampSnapMargin: number;
  /** A candidate not accepted this long after it was set or last gained a signature is dropped (300 s). */
  candidateTimeout: number;
  /** No block for this long → drop and redial all links (900 s). */
  redialAfter: number;
  /** No block for this long → status stalled / ErrorLongTimeNoBlock (1800 s). */
  longTimeNoBlock: number;
}

/** Reference block interval (formats §14). */
export const REFERENCE_BLOCK_INTERVAL = 30;

/**
 * The §5.1/§5.7 timings for a block interval. At 30 s these are the reference's values; a devnet
 * with a shorter interval scales every one of them by interval / 30 (same formulas, seconds
 * become fractions), so tests run in seconds.
 */
export function consensusTiming(blockInterval: number = REFERENCE_BLOCK_INTERVAL): ConsensusTiming {
  if (!(typeof blockInterval === 'number' && blockInterval > 0 && Number.isFinite(blockInterval))) {
    throw new ConsensusError('ERR_CONSENSUS_INPUT', `block interval: expected a positive number of seconds, got ${String(blockInterval)}`);
  }
  const scale = blockInterval / REFERENCE_BLOCK_INTERVAL;
  return {
    blockInterval,
    electionStep: 2 * blockInterval,
    freeForAll: 4 * blockInterval,
    fallbackJitter: 10 * scale,
    timestampSnapMargin: 10 * scale,
    candidateTimeout: 10 * blockInterval,
    redialAfter: 900 * scale,
    longTimeNoBlock: 1800 * scale,
  };
}

/**
 * Election offset (`getElectedNodeOffset`): with `elapsed` = network time − tip timestamp,
 * 0 when negative, −1 (nobody) when elapsed > 4 intervals, else floor(elapsed / 2 intervals).
 */
export function electionOffset(elapsedSeconds: number, timing: ConsensusTiming = consensusTiming()): number {
  if (typeof elapsedSeconds !== 'number' || Number.isNaN(elapsedSeconds)) {
    throw new ConsensusError('ERR_CONSENSUS_INPUT', `elapsed seconds: expected a number, got ${String(elapsedSeconds)}`);
  }
  if (elapsedSeconds < 0) return 0;
  if (elapsedSeconds > timing.freeForAll) return -1;
  return Math.floor(elapsedSeconds / timing.electionStep);
}

/** k of §5.1: the first 4 bytes of the tip's checksum as an unsigned little-endian integer. */
export function electionSeed(tipChecksum: Uint8Array): number {
  assertBytes(tipChecksum, 'tipChecksum');
  if (tipChecksum.length < 4) throw new ConsensusError('ERR_CONSENSUS_INPUT', `tipChecksum: expected at least 4 bytes, got ${tipChecksum.length}`);
  return (tipChecksum[0]! | (tipChecksum[1]! << 8) | (tipChecksum[2]! << 16) | (tipChecksum[3]! << 24)) >>> 0;
}

/**
 * Positions in the election block's signature list (block L − 6, its frozen list when frozen, in
 * list order) of the elected proposers of block L + 1 (`getElectedNodeAddresses`): null when
 * nobody is elected (offset −1); one position `((k + offset) mod 2^32) mod s` when s < 100; three
 * positions `(k + 0…2) mod 2^32 mod s` when s ≥ 100 (offset ignored); none when s = 0.
 */
export function electedSignerPositions(tipChecksum: Uint8Array, signatureCount: number, offset: number): number[] | null {
  checkCount(signatureCount, 'signature count');
  if (!Number.isInteger(offset) || offset < -1) throw new ConsensusError('ERR_CONSENSUS_INPUT', `offset: expected −1 or more, got ${String(offset)}`);
  if (offset === -1) return null;
  if (signatureCount === 0) return [];
  const k = electionSeed(tipChecksum);
  const three = signatureCount >= THREE_PROPOSERS_FROM;
  const first = three ? 0 : offset;
  const n = three ? 3 : 1;
  const out: number[] = [];
  for (let i = first; i < first + n; i++) out.push(((k + i) >>> 0) % signatureCount);
  return out;
}

/** The elected proposers' addresses: the signer addresses at {@link electedSignerPositions}. */
export function electedSigners(tipChecksum: Uint8Array, electionSigners: readonly Uint8Array[], offset: number): Uint8Array[] | null {
  const positions = electedSignerPositions(tipChecksum, electionSigners.length, offset);
  return positions === null ? null : positions.map((p) => electionSigners[p]!);
}

/** What {@link shouldGenerateBlock} needs to know. */
export interface GenerateContext {
  /** Tip number L (the block to make is L + 1). */
  tipNum: bigint;
  tipTimestamp: number;
  networkTime: number;
  /** Seconds since this node last accepted a block (the reference's lastBlockStartTime). */
  secondsSinceAccepted: number;
  /** This node's random extra wait for the free-for-all, 0 ≤ jitter < timing.fallbackJitter. */
  fallbackJitter: number;
  /** Is this node among {@link electedSigners} for the current offset? */
  elected: boolean;
  /** Genesis node (or recovery-from-file): alone it makes blocks 1–7. */
  genesisNode: boolean;
  /** Does the node already hold a candidate for L + 1? Then it does not generate. */
  hasCandidate: boolean;
}

/**
 * Whether this master proposes block L + 1 now (`BlockProcessor.onUpdate`), and why:
 * `fallback` when more than 4 intervals + jitter passed since it accepted a block; `elected` when
 * ≥ 1 interval passed since the tip's timestamp and it is elected; `bootstrap` for the same wait
 * below block 8 (genesis node only, no election). Below block 8 a non-genesis node never
 * generates (it asks for L + 1 instead). null = do not generate.
 */
export function shouldGenerateBlock(ctx: GenerateContext, timing: ConsensusTiming = consensusTiming()): 'fallback' | 'elected' | 'bootstrap' | null {
  checkBlockNum(ctx.tipNum, 'tipNum');
  if (ctx.hasCandidate) return null;
  if (ctx.tipNum < BOOTSTRAP_BLOCKS && !ctx.genesisNode) return null;
  if (ctx.secondsSinceAccepted > timing.freeForAll + ctx.fallbackJitter) return 'fallback';
  if (ctx.networkTime - ctx.tipTimestamp >= timing.blockInterval) {
    if (ctx.tipNum < BOOTSTRAP_BLOCKS) return 'bootstrap';
    if (ctx.elected) return 'elected';
  }
  return null;
}

/**
 * Network time, in seconds, to measure against the tip's timestamp (§5.1 "network time −
 * timestamp(tip)"): block timestamps are whole seconds, so on a network of sub-second blocks the
 * tip's arrival here (`receivedAtMs`; for our own block, the moment we began producing it, so an
 * interval does not also take the block's production and import) is the better clock; at 30 s
 * blocks the two differ by the propagation delay only. The arrival is trusted up to an interval
 * late, and at least {@link TIMESTAMP_RESOLUTION_S}: capped at one interval of 0.1 s, a tip begun
 * 0.7 s into its second looked 0.6 s old on arrival, past the election window (4 intervals), so a
 * lone master waited for the free-for-all after most blocks (~3 blocks a second, not 10).
 */
export function networkTimeAgainstTip(nowMs: number, tipTimestamp: number, receivedAtMs: number, timing: ConsensusTiming = consensusTiming()): number {
  const lag = Math.max(0, receivedAtMs / 1000 - tipTimestamp);
  return nowMs / 1000 - Math.min(lag, Math.max(timing.blockInterval, TIMESTAMP_RESOLUTION_S));
}

/** Block timestamps are whole Unix seconds. */
const TIMESTAMP_RESOLUTION_S = 1;

/**
 * Timestamp of a new block (`generateNewBlock`): the network time, snapped to tip + interval when
 * it falls within tip + interval … tip + interval + 10 s.
 */
export function newBlockTimestamp(networkTime: number, tipTimestamp: number | null, timing: ConsensusTiming = consensusTiming()): number {
  if (tipTimestamp === null) return networkTime;
  const diff = networkTime - tipTimestamp;
  if (diff >= timing.blockInterval && diff <= timing.blockInterval + timing.timestampSnapMargin) return tipTimestamp + timing.blockInterval;
  return networkTime;
}

/**
 * Does a candidate carry an elected proposer's signature (`hasElectedNodeSignature`)? True without
 * looking when nobody is elected (offset −1) or the node is behind (tip + 2 ≤ network height).
 */
export function hasElectedSignature(
  candidateSigners: readonly Uint8Array[],
  elected: readonly Uint8Array[] | null,
  tipNum: bigint,
  networkHeight: bigint,
): boolean {
  if (elected === null || tipNum + 2n <= networkHeight) return true;
  return candidateSigners.some((s) => elected.some((e) => bytesEqual(s, e)));
}

// ---- §5.3 / §5.7 candidates and competing blocks ----

/** Signature count and total signer difficulty of a block (frozen list if frozen, else live). */
export interface SignatureTally {
  count: number;
  totalDifficulty: bigint;
}

/**
 * With no candidate yet, adopt an incoming block for L + 1 (`onBlockReceived_currentBlock`)? Yes
 * if it carries an elected signature (see {@link hasElectedSignature}), or at least
 * floor(required / 2) signatures, or it is the first block after sync.
 */
export function adoptFirstCandidate(incoming: SignatureTally, hasElected: boolean, requiredConsensusNext: number, firstBlockAfterSync: boolean): boolean {
  return hasElected || incoming.count >= Math.floor(requiredConsensusNext / 2) || firstBlockAfterSync;
}

/** What {@link preferIncomingBlock} compares. */
export interface CompetingBlocks {
  local: SignatureTally;
  incoming: SignatureTally;
  /** Does the incoming block carry an elected signature ({@link hasElectedSignature})? */
  incomingHasElected: boolean;
  /** Does the incoming block pass {@link hasRequiredSignatureCount}? */
  incomingHasRequiredCount: boolean;
  /** Block number of both, and the highest network height the node knows. */
  blockNum: bigint;
  networkHeight: bigint;
}

/**
 * A different block at the same height as the node's candidate (§5.7, `onBlockReceived_currentBlock`):
 * switch to it only if it carries an elected signature and (more signatures, or as many with a
 * higher total signer difficulty, or it has the required count while the network is more than 5
 * blocks ahead). Otherwise the candidate in hand stays: a full tie keeps the incumbent (the
 * reference has no further tie-break).
 */
export function preferIncomingBlock(c: CompetingBlocks): boolean {
  if (!c.incomingHasElected) return false;
  if (c.incoming.count > c.local.count) return true;
  if (c.incoming.count === c.local.count && c.incoming.totalDifficulty > c.local.totalDifficulty) return true;
  return c.incomingHasRequiredCount && c.networkHeight > c.blockNum + 5n;
}

// ---- §5.4 acceptance ----

/** Recovery mode (§5.4): a block ≥ 2 h after its predecessor with ≥ 3 signatures (`isBlockchainRecoveryMode`). */
export function isRecoveryMode(blockTimestamp: number, previousTimestamp: number | null, signatureCount: number): boolean {
  if (previousTimestamp === null || previousTimestamp + RECOVERY_TIMEOUT_SECONDS > blockTimestamp) return false;
  return signatureCount >= RECOVERY_MIN_SIGNATURES;
}

/** What recovery mode weighs (`handleBlockchainRecoveryMode`). */
export interface RecoveryInput {
  blockTimestamp: number;
  previousTimestamp: number | null;
  /** Signers also in the election block n − 6. */
  continuitySigners: number;
  signatureCount: number;
  totalDifficulty: bigint;
  /** Unadjusted required signer difficulty. */
  requiredDifficulty: bigint;
  requiredUnadjusted: number;
  requiredAdjusted: number;
  minSignerDifficulty: bigint;
}

/**
 * Does recovery mode forgive a block's shortfall of continuity signers or signatures? Needs
 * total difficulty ≥ missingContinuity × required difficulty (× 100 %) and, when signatures are
 * missing, ≥ that + missingSignatures × min signer difficulty × 7.
 */
export function recoveryForgives(r: RecoveryInput): boolean {
  if (!isRecoveryMode(r.blockTimestamp, r.previousTimestamp, r.signatureCount)) return false;
  const missingContinuity = BigInt(Math.floor(r.requiredUnadjusted / 2) + 1 - r.continuitySigners);
  const missing = BigInt(r.requiredAdjusted - r.signatureCount);
  if (missingContinuity <= 0n && missing <= 0n) return false;
  let needed = 0n;
  if (missingContinuity > 0n) {
    needed = missingContinuity * r.requiredDifficulty; // × 100 / 100 in IxiNumber steps: exact
    if (r.totalDifficulty < needed) return false;
  }
  if (missing > 0n && r.totalDifficulty < needed + missing * r.minSignerDifficulty * RECOVERY_MISSING_SIGNER_MULTIPLIER) return false;
  return true;
}

/**
 * The quick check `hasRequiredSignatureCount` (used to decide whether to try accepting): any
 * block with fewer than 3 signatures passes (QUIRK: the full check below still enforces the
 * minimum); from block 7 on, count ≥ required unless in recovery mode, and (v10+) total
 * difficulty ≥ the adjusted required difficulty.
 */
export function hasRequiredSignatureCount(input: {
  blockNum: bigint;
  tally: SignatureTally;
  required: number;
  requiredDifficultyAdjusted: bigint;
  signerPow: boolean;
  recoveryMode: boolean;
}): boolean {
  if (input.tally.count < 3) return true;
  if (input.blockNum <= 6n) return true;
  if (input.tally.count < input.required && !input.recoveryMode) return false;
  return !input.signerPow || input.tally.totalDifficulty >= input.requiredDifficultyAdjusted;
}

/** Why a block's signatures do not make it acceptable. */
export type SignatureRejection = 'count' | 'difficulty' | 'continuity';

/** What {@link checkBlockSignatures} needs. */
export interface BlockSignaturesInput {
  blockNum: bigint;
  tally: SignatureTally;
  /** {@link requiredConsensus} of the block (adjusted). */
  required: number;
  /** Adjusted required signer difficulty (23.4 %); ignored unless `signerPow`. */
  requiredDifficultyAdjusted: bigint;
  /** v10+ block after a v10+ block: signatures carry signer PoW and the difficulty rule applies. */
  signerPow: boolean;
  /** How many of its signers also signed block n − 6 (its frozen list if frozen). */
  continuitySigners: number;
  /** Recovery mode (§5.4) for the count rule, and its forgiveness for the continuity rule. */
  recoveryMode?: boolean;
  recoveryForgivesContinuity?: boolean;
}

/**
 * §5.4 rules 1–3 (`verifyBlockSignatures`) for a block n ≥ 7: count ≥ required (unless recovery
 * mode), v10+ total difficulty ≥ 23.4 % of the required, and for n > 13 (required > 1)
 * continuity ≥ {@link continuityRequirement}. Blocks below 7 pass when count ≥ required (= 1).
 */
export function checkBlockSignatures(input: BlockSignaturesInput): { ok: true } | { ok: false; reason: SignatureRejection } {
  checkBlockNum(input.blockNum);
  const { tally, required } = input;
  if (input.blockNum <= 6n) return tally.count >= required ? { ok: true } : { ok: false, reason: 'count' };
  if (tally.count < required && !input.recoveryMode) return { ok: false, reason: 'count' };
  if (input.signerPow && tally.totalDifficulty < input.requiredDifficultyAdjusted) return { ok: false, reason: 'difficulty' };
  if (input.blockNum > CONTINUITY_FROM_BLOCK && required > 1) {
    if (input.continuitySigners < continuityRequirement(required) && !input.recoveryForgivesContinuity) {
      return { ok: false, reason: 'continuity' };
    }
  }
  return { ok: true };
}

/**
 * The sig-freeze agreement check on block n − 5 (§5.4 rule 4): the signatures it carries
 * (capped at 1000 for the count) must have ≥ floor(count × 0.9) of the local frozen list's signers.
 */
export function sigFreezeAgreement(localFrozenSigners: readonly Uint8Array[], carriedSigners: readonly Uint8Array[]): boolean {
  const count = Math.min(carriedSigners.length, MAX_BLOCK_SIGNERS);
  let valid = 0;
  for (const s of localFrozenSigners) if (carriedSigners.some((c) => bytesEqual(c, s))) valid++;
  return valid >= Math.floor(count * SIG_FREEZE_AGREEMENT);
}

// ---- §5.5 freezing ----

/** One signature as the freeze sees it. */
export interface FreezeEntry {
  /** Signer addressNoChecksum. */
  address: Uint8Array;
  /** The solution's difficulty (raw); a signature without a solution counts 1.00000000. */
  difficulty: bigint;
}

/** The difficulty a signature counts with (`getTotalSignerDifficulty`: no solution → 1 coin). */
export function signatureDifficulty(solutionDifficulty: bigint | null): bigint {
  return solutionDifficulty === null ? COIN : solutionDifficulty;
}

/** Block whose signatures block n's header freezes: n − 5 when n > 5, else none (§5.4 rule 4). */
export function sigFreezeTarget(blockNum: bigint): bigint | null {
  checkBlockNum(blockNum);
  return blockNum > SIG_FREEZE_OFFSET ? blockNum - SIG_FREEZE_OFFSET : null;
}

/** Does handling the candidate for block n freeze block n − 5 (n > 11)? Below, n − 5's live list is checksummed. */
export function freezesSignatures(blockNum: bigint): boolean {
  checkBlockNum(blockNum);
  return blockNum > FREEZE_FROM_BLOCK;
}

/** What {@link freezeSignatures} works on. */
export interface FreezeInput<T extends FreezeEntry> {
  targetBlockNum: bigint;
  /** The target's current (live) signatures, in list order. */
  live: readonly T[];
  /** Its frozen list, if it was frozen before (re-freezing starts from it), else null. */
  frozen: readonly T[] | null;
  /** Signer addresses of the target's election block (target − 6), frozen list if frozen. */
  electionSigners: readonly Uint8Array[];
  /** requiredConsensus(target, { adjusted: false }) and the adjusted one. */
  requiredUnadjusted: number;
  requiredAdjusted: number;
  /** Catching up (network > target + 10, or the target is older than 450 s). */
  catchingUp: boolean;
  /** v10+ target after a v10+ block: difficulty rule and the (difficulty, address) order. */
  signerPow: boolean;
  /** requiredSignerDifficulty(target, bits, true). */
  requiredDifficultyAdjusted: bigint;
  /** Recovery forgiveness for the count rule (given the counts found), see {@link recoveryForgives}. */
  recovery?: (continuitySigners: number, signatureCount: number, totalDifficulty: bigint) => boolean;
}

/**
 * The frozen signature list of block n − 5 (DLT `freezeSignatures` with `extractRequiredSignatures`):
 * 1. from its frozen list (else live list), in order, the signatures whose signer also signed the
 *    election block, up to floor(unadjusted/2) + 1 (all of the unadjusted requirement when catching up);
 * 2. then the live signatures not yet taken, in order, while the total is not 1000 (checked after
 *    each add, as the reference does);
 * 3. it fails when count < adjusted required consensus (unless recovery forgives) or, v10+, total
 *    difficulty < the adjusted required difficulty;
 * 4. v10+ (and not block 1): sorted by (difficulty ascending, address bytes ascending), stable.
 */
export function freezeSignatures<T extends FreezeEntry>(input: FreezeInput<T>): { ok: true; frozen: T[]; totalDifficulty: bigint } | { ok: false; reason: 'count' | 'difficulty' } {
  const max = input.catchingUp ? input.requiredUnadjusted : Math.floor(input.requiredUnadjusted / 2) + 1;
  const frozen: T[] = [];
  for (const entry of input.frozen ?? input.live) {
    if (input.electionSigners.some((a) => bytesEqual(a, entry.address))) frozen.push(entry);
    if (max > 0 && frozen.length === max) break;
  }
  const continuity = frozen.length;
  for (const sig of input.live) {
    if (!frozen.some((f) => bytesEqual(f.address, sig.address))) frozen.push(sig);
    if (frozen.length === MAX_BLOCK_SIGNERS) break;
  }
  let total = 0n;
  for (const f of frozen) total += f.difficulty;
  if (frozen.length < input.requiredAdjusted && !(input.recovery?.(continuity, frozen.length, total) ?? false)) {
    return { ok: false, reason: 'count' };
  }
  if (input.signerPow) {
    if (total < input.requiredDifficultyAdjusted) return { ok: false, reason: 'difficulty' };
    if (input.targetBlockNum !== 1n) frozen.sort(compareFreezeOrder);
  }
  return { ok: true, frozen, totalDifficulty: total };
}

/** The v10+ frozen order: difficulty ascending, then address bytes ascending (shorter first on a common prefix). */
export function compareFreezeOrder(a: FreezeEntry, b: FreezeEntry): number {
  if (a.difficulty !== b.difficulty) return a.difficulty < b.difficulty ? -1 : 1;
  return compareBytes(a.address, b.address);
}

/** One signature as the sig-freeze checksum sees it. */
export interface ChecksumEntry {
  /** Signer addressNoChecksum. */
  address: Uint8Array;
  /** Its solution (key compacted when encoded), or null. */
  solution: SignerPowSolution | null;
  /** The signer field when it is a public key (block 1 sorts by it), else omitted. */
  signerKey?: Uint8Array;
}

/**
 * The compact signature entry of the sig-freeze checksum (`BlockSignature.getBytesForBlock(true)`):
 * `varint(len) ‖ address ‖ varint(len) ‖ compacted solution` or `… ‖ 00`; no RSA signature.
 */
export function compactSignatureEntry(e: ChecksumEntry): Uint8Array {
  assertBytes(e.address, 'address');
  const sol = e.solution === null ? new Uint8Array(1) : withLength(encodeSignerPowSolution(e.solution, { compacted: true }));
  return concatBytes(withLength(e.address), sol);
}

/**
 * Signature-freeze checksum of a block's list (v10+, `Block.calculateSignatureChecksum`):
 * `sha3_512sq(u64 LE blockNum ‖ for each entry in list order: varint(len) ‖ compact entry)`. The
 * list is the frozen one when frozen, else the live one, in its order; only block 1 is sorted
 * first (by the signer key when given, else the address with checksum).
 */
export function signatureFreezeChecksum(blockNum: bigint, entries: readonly ChecksumEntry[]): Uint8Array {
  checkBlockNum(blockNum);
  let list = entries;
  if (blockNum === 1n) {
    const key = (e: ChecksumEntry) => e.signerKey ?? addressWithChecksum(e.address);
    list = [...entries].sort((a, b) => compareBytes(key(a), key(b)));
  }
  const num = new Uint8Array(8);
  new DataView(num.buffer).setBigUint64(0, blockNum, true);
  return sha3_512sq(concatBytes(num, ...list.map((e) => withLength(compactSignatureEntry(e)))));
}

// ---- §5.8 superblocks ----

/** Is block n a superblock (n mod period = 0, n > 0)? */
export function isSuperBlock(blockNum: bigint, period: bigint = SUPERBLOCK_PERIOD): boolean {
  checkBlockNum(blockNum);
  return blockNum > 0n && blockNum % period === 0n;
}

/** The superblock a superblock n points back to (n − period; block 1 for the first one). */
export function previousSuperBlock(blockNum: bigint, period: bigint = SUPERBLOCK_PERIOD): bigint {
  if (!isSuperBlock(blockNum, period)) throw new ConsensusError('ERR_CONSENSUS_INPUT', `block ${blockNum} is not a superblock (period ${period})`);
  return blockNum === period ? 1n : blockNum - period;
}

/** Does block n carry signer bits in its header (block 1 and every superblock, formats §10.3 row 9)? */
export function carriesSignerBits(blockNum: bigint, period: bigint = SUPERBLOCK_PERIOD): boolean {
  return blockNum === 1n || isSuperBlock(blockNum, period);
}

// ---- helpers ----

function withLength(bytes: Uint8Array): Uint8Array {
  return concatBytes(encodeVarUint(bytes.length), bytes);
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Lexicographic byte order, a proper prefix first (.NET `SequenceCompareTo`). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}
