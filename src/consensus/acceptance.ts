/**
 * The reference's acceptance rule for a block's signatures (reference-network §5.2–5.6), as the
 * chain asks it (`BlockAcceptance`), over the chain's stored signature rows:
 *
 * - a signature counts when its signer PoW is for a block strictly below, inside the validity
 *   window, at or above the minimum difficulty, its RSA signature by the solution's key verifies
 *   (in the worker pool), and (for a live block) its signer has a fresh master presence; one per
 *   signer, a better solution replacing a worse (§5.2); invalid entries are dropped, not fatal;
 * - a block is acceptable (§5.4) with at least the required consensus (frozen counts of blocks
 *   n−7…n−16, integer arithmetic, minimum 2 from block 8), 23.4 % of the required signer
 *   difficulty, and more than half of its signers also signers of block n−6;
 * - header row 4 of block n is the sig-freeze checksum of block n−5's row (§5.5), which holds the
 *   frozen list once the block is frozen; a copy of block n−5 whose row gives the checksum a block
 *   carries replaces ours (the proposer's frozen set wins).
 *
 * Verified entries are cached by (block checksum, signer, signature), so a candidate's signatures
 * are not verified again when it is imported or its row is frozen.
 */
import type { Block, BlockSignature } from '../chain/block.js';
import type { BlockAcceptance, Chain } from '../chain/chain.js';
import { BlockError, BlockErrorCode } from '../chain/errors.js';
import type { Clock } from '../clock.js';
import { COIN } from '../formats/amount.js';
import { equalBytes } from '../formats/bytes.js';
import { latin1Key } from '../state/keys.js';
import { parseBlockSignature, storedEntryDifficulty, verifiedSignature, verifyBlockSignatureEntries, type ParsedBlockSignature, type VerifiedSignature } from './block-signatures.js';
import {
  BOOTSTRAP_BLOCKS, checkBlockSignatures, freezeSignatures, requiredConsensusOf, requiredSignerDifficulty,
  SIGNATURE_PL_CHECK_TIMEOUT_SECONDS, signatureFreezeChecksum, signerBitsSourceBlock, isRecoveryMode, SUPERBLOCK_PERIOD,
  type ConsensusTiming, type SignatureTally,
} from './rules.js';
import { MIN_BLOCK_SIGNER_POW_DIFFICULTY } from './signer-pow.js';

/** Verified entries remembered (a few blocks of up to 1000 signers each). */
const VERIFIED_CACHE = 20_000;
/** A block counts as "catching up" (presence not required, §5.3) when the network is this far ahead. */
const CATCHING_UP_BLOCKS = 5n;
/** `(1000 × 7)`: the divisor of the per-signature minimum (§5.6). */
const MIN_DIFFICULTY_DIVISOR = 7000n;

export interface ReferenceAcceptanceOptions {
  chain: Chain;
  /** Does this address have a fresh master (M/H) presence (§5.2)? Our own address always does. */
  isFreshMaster(address: Uint8Array): boolean;
  /**
   * Count only signers with a fresh master presence on live blocks (§5.2–5.3): a master, which
   * holds the masters' presences. Relays and clients follow the chain the masters accepted.
   */
  requirePresence: boolean;
  /** Called for a signer dropped for want of a presence: the node asks the masters for it. */
  missingPresence?(address: Uint8Array): void;
  /** §6 network height (catching up: no presence check, §5.3). */
  networkHeight(): bigint;
  clock: Clock;
  timing: ConsensusTiming;
  /** Lowest required consensus from block 8: 2 (the reference); 1 for a network of one master. */
  minimumConsensus: number;
  /** Floor of one signature's difficulty (the reference's minBlockSignerPowDifficulty; a devnet's genesis may lower it). */
  minSignerDifficulty?: bigint;
  /** Superblock period (a devnet's genesis may shorten it). */
  superBlockPeriod?: bigint;
}

/** A verified entry with the stored signature it came from. */
export type CountedSignature = VerifiedSignature & { sig: BlockSignature };

export class ReferenceAcceptance implements BlockAcceptance {
  private readonly verified = new Map<string, bigint | false>();
  /** Checksums block n−5 must have, by height, from blocks whose freeze did not match ours (§5.5). */
  private readonly expectedFreeze = new Map<bigint, Uint8Array>();

  constructor(private readonly o: ReferenceAcceptanceOptions) {}

  // ---- numbers of §5.4 / §5.6 ----

  /** Signatures in the stored row of block k, or undefined when not held. */
  private countOf = (k: bigint): number | undefined => this.o.chain.getBlock(k)?.block.signatures.length;

  /** Required consensus of block n (status `Required Consensus` for n = tip + 1). */
  required(n: bigint, adjusted = true): number {
    return requiredConsensusOf(n, this.countOf, { adjusted, minimum: this.o.minimumConsensus });
  }

  /**
   * The signer bits governing block n: the last superblock's, else block 1's (§5.6). A superblock
   * not yet stored governs itself with its own header bits (`block`; the chain checked them against
   * its computation, DLT `getRequiredSignerDifficulty(Block)`).
   */
  governingBits(n: bigint, block?: Pick<Block, 'num' | 'signerBits'>): bigint | undefined {
    const source = signerBitsSourceBlock(n, this.o.superBlockPeriod ?? SUPERBLOCK_PERIOD);
    if (block?.num === source && source === n) return block.signerBits;
    return this.o.chain.getBlock(source)?.block.signerBits;
  }

  /** Required signer difficulty of block n; `adjusted`: the 23.4 % a block's total must reach. */
  requiredDifficulty(n: bigint, adjusted: boolean, block?: Pick<Block, 'num' | 'signerBits'>): bigint {
    return requiredSignerDifficulty(n, this.governingBits(n, block), adjusted);
  }

  /** Minimum difficulty of one signature or keep-alive PoW for block n (§5.6, with this network's floor). */
  minSignatureDifficulty(n: bigint, block?: Pick<Block, 'num' | 'signerBits'>): bigint {
    const floor = this.o.minSignerDifficulty ?? MIN_BLOCK_SIGNER_POW_DIFFICULTY;
    if (this.o.chain.height < BOOTSTRAP_BLOCKS) return floor;
    const d = (this.requiredDifficulty(n, true, block) * COIN) / (MIN_DIFFICULTY_DIVISOR * COIN);
    return d < floor ? floor : d;
  }

  /** Is block n older than the network by more than a few blocks, or by time (§5.3: presence not required)? */
  catchingUp(block: Block): boolean {
    const ageSeconds = this.o.clock.now() / 1000 - Number(block.timestamp);
    const scale = this.o.timing.blockInterval / 30;
    return this.o.networkHeight() > block.num + CATCHING_UP_BLOCKS || ageSeconds > SIGNATURE_PL_CHECK_TIMEOUT_SECONDS * scale;
  }

  /** Whether signers of this block must have a fresh master presence to count (§5.3). */
  livePresence(block: Block): boolean {
    return this.o.requirePresence && !this.catchingUp(block);
  }

  // ---- signatures ----

  /**
   * The entries of `block` that count, each with its difficulty, in list order; one per signer (a
   * later entry of the same signer replaces an earlier one only with a higher difficulty, §5.2).
   */
  async verifiedEntries(block: Block, checksum: Uint8Array, requirePresence: boolean): Promise<CountedSignature[]> {
    const counted: { entry: ParsedBlockSignature; sig: BlockSignature; difficulty: bigint }[] = [];
    // Entries not seen before are checked together: signer PoW here, RSA in the pool (block-signatures.ts).
    const fresh: { sig: BlockSignature; key: string }[] = [];
    for (const sig of block.signatures) {
      let entry: ParsedBlockSignature;
      try {
        entry = parseBlockSignature(sig);
      } catch {
        continue;
      }
      if (requirePresence && !this.o.isFreshMaster(entry.address)) {
        this.o.missingPresence?.(entry.address);
        continue;
      }
      if (!entry.solution || !entry.signature) continue;
      const key = `${latin1Key(checksum)}${latin1Key(sig.signer)}${latin1Key(entry.signature)}`;
      const known = this.verified.get(key);
      if (known === undefined) fresh.push({ sig, key });
      else if (known !== false) counted.push({ entry, sig, difficulty: known });
    }
    if (fresh.length > 0) {
      const verdicts = await verifyBlockSignatureEntries({
        entries: fresh.map((f) => f.sig),
        blockNum: block.num,
        blockVersion: block.version,
        blockChecksum: checksum,
        solutionBlockChecksum: (n) => (n < block.num ? (this.o.chain.getBlock(n)?.checksum ?? null) : null),
        minDifficulty: this.minSignatureDifficulty(block.num, block),
        verifyRsa: (items) => this.o.chain.verifyBlockRsa([...items]),
      });
      verdicts.forEach((v, i) => {
        this.remember(fresh[i]!.key, v.ok ? v.difficulty : false);
        if (v.ok) counted.push({ entry: v.entry, sig: fresh[i]!.sig, difficulty: v.difficulty });
      });
      // Back in list order (cached entries were taken first).
      const order = new Map(block.signatures.map((s, i) => [s, i]));
      counted.sort((a, b) => order.get(a.sig)! - order.get(b.sig)!);
    }
    let out: CountedSignature[] = [];
    for (const c of counted) {
      const v: CountedSignature = { ...verifiedSignature(c.entry, c.difficulty), sig: c.sig };
      const at = out.findIndex((x) => equalBytes(x.address, v.address));
      if (at < 0) out.push(v);
      else if (v.difficulty > out[at]!.difficulty) out = [...out.slice(0, at), ...out.slice(at + 1), v];
    }
    return out;
  }

  private remember(key: string, value: bigint | false): void {
    if (this.verified.size >= VERIFIED_CACHE) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(key, value);
  }

  /**
   * Is block `block` acceptable with these verified signatures (§5.4 rules 1–3)? Blocks below 8
   * need one signature (the genesis node's, §5.1).
   */
  acceptable(block: Block, entries: readonly CountedSignature[]): { ok: true } | { ok: false; reason: string; required: number } {
    const n = block.num;
    const tally = tallyOf(entries);
    const required = this.required(n);
    const prev = this.o.chain.getBlock(n - 1n)?.block.timestamp ?? null;
    const recoveryMode = isRecoveryMode(Number(block.timestamp), prev === null ? null : Number(prev), tally.count);
    const election = n > 6n ? (this.o.chain.getBlock(n - 6n)?.block.signatures ?? []) : [];
    const continuity = entries.filter((e) => election.some((s) => equalBytes(s.signer, e.address))).length;
    const verdict = checkBlockSignatures({
      blockNum: n, tally, required, requiredDifficultyAdjusted: this.requiredDifficulty(n, true, block), signerPow: true,
      continuitySigners: continuity, recoveryMode,
    });
    return verdict.ok ? verdict : { ok: false, reason: verdict.reason, required };
  }

  async verifySignatures(block: Block, checksum: Uint8Array, mode: 'full' | 'each'): Promise<BlockSignature[]> {
    const entries = await this.verifiedEntries(block, checksum, this.livePresence(block));
    if (mode === 'full') {
      const verdict = this.acceptable(block, entries);
      if (!verdict.ok) {
        throw new BlockError(
          BlockErrorCode.InsufficientSignatures,
          `block ${block.num} has ${entries.length} valid signatures of ${block.signatures.length}: not enough (${verdict.reason}; ${verdict.required} required)`,
          { required: verdict.required, reason: verdict.reason },
        );
      }
    }
    return entries.map((e) => e.sig);
  }

  // ---- §5.5 freezing ----

  /** Sig-freeze checksum of a row of block `num` (v10+ compact entries, list order). */
  rowChecksum(num: bigint, sigs: readonly BlockSignature[]): Uint8Array {
    const entries = [];
    for (const s of sigs) {
      try {
        const p = parseBlockSignature(s);
        entries.push({ address: p.address, solution: p.solution, ...(p.signerField.length > 45 ? { signerKey: p.signerField } : {}) });
      } catch {
        // A row holds verified entries only; an unreadable one cannot be part of it.
      }
    }
    return signatureFreezeChecksum(num, entries);
  }

  freezeChecksum(num: bigint): Uint8Array | null {
    if (num <= 5n) return null;
    const target = this.o.chain.getBlock(num - 5n);
    return target ? this.rowChecksum(num - 5n, target.block.signatures) : null;
  }

  /**
   * The frozen list of block m (`freezeSignatures`, §5.5), from its stored row, or null when it
   * cannot be frozen (too few signatures or too little difficulty: the live row stays).
   */
  async frozenRow(m: bigint): Promise<BlockSignature[] | null> {
    const stored = this.o.chain.getBlock(m);
    if (!stored) return null;
    const live = await this.verifiedEntries(stored.block, stored.checksum, false);
    const election = m > 6n ? (this.o.chain.getBlock(m - 6n)?.block.signatures ?? []) : [];
    const frozen = freezeSignatures({
      targetBlockNum: m,
      live,
      frozen: null,
      electionSigners: election.map((s) => s.signer),
      requiredUnadjusted: this.required(m, false),
      requiredAdjusted: this.required(m),
      catchingUp: this.catchingUp(stored.block),
      signerPow: true,
      requiredDifficultyAdjusted: this.requiredDifficulty(m, true),
    });
    return frozen.ok ? frozen.frozen.map((e) => e.sig) : null;
  }

  /** A block carried sig-freeze checksum `checksum` for block m that ours does not give: a copy of m that does will replace our row. */
  expectFreeze(m: bigint, checksum: Uint8Array): void {
    this.expectedFreeze.set(m, checksum);
    for (const k of this.expectedFreeze.keys()) if (k + 16n < m) this.expectedFreeze.delete(k);
  }

  /**
   * A copy of our block m (same checksum) arrived with `sigs`: when its row gives the freeze
   * checksum a later block expects, it replaces ours (§5.5, the proposer's set wins) and true is
   * returned; its entries must verify on their own.
   */
  async offerRow(m: bigint, checksum: Uint8Array, sigs: readonly BlockSignature[]): Promise<BlockSignature[] | null> {
    const want = this.expectedFreeze.get(m);
    if (!want || !equalBytes(this.rowChecksum(m, sigs), want)) return null;
    const stored = this.o.chain.getBlock(m);
    if (!stored || !equalBytes(stored.checksum, checksum)) return null;
    const valid = await this.verifiedEntries({ ...stored.block, signatures: [...sigs] }, checksum, false);
    if (valid.length !== sigs.length) return null;
    this.expectedFreeze.delete(m);
    return [...sigs];
  }

  /**
   * Count and total signer difficulty of a stored row (status, getblock): the row holds verified
   * entries, so only each solution's difficulty is computed (no RSA).
   */
  rowTally(num: bigint): SignatureTally {
    const stored = this.o.chain.getBlock(num);
    if (!stored) return { count: 0, totalDifficulty: 0n };
    let totalDifficulty = 0n;
    for (const sig of stored.block.signatures) totalDifficulty += this.rowEntryDifficulty(stored.block, stored.checksum, sig);
    return { count: stored.block.signatures.length, totalDifficulty };
  }

  private rowEntryDifficulty(block: Block, checksum: Uint8Array, sig: BlockSignature): bigint {
    const known = sig.signature ? this.verified.get(`${latin1Key(checksum)}${latin1Key(sig.signer)}${latin1Key(sig.signature)}`) : undefined;
    if (typeof known === 'bigint') return known;
    return storedEntryDifficulty(sig, block, (k) => this.o.chain.getBlock(k)?.checksum) ?? 0n;
  }
}

export function tallyOf(entries: readonly { difficulty: bigint }[]): SignatureTally {
  let totalDifficulty = 0n;
  for (const e of entries) totalDifficulty += e.difficulty;
  return { count: entries.length, totalDifficulty };
}

