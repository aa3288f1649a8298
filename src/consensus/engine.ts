/**
 * Consensus among masters (reference-network §5): who proposes block L + 1 and when (§5.1), the
 * candidate a master holds while signatures gather (§5.3), its own signature (§5.2), acceptance
 * (§5.4, through the chain's one import path), freezing block n − 5 when candidate n is handled and
 * the proposer's frozen set winning (§5.5), competing candidates and tips (§5.7).
 *
 * One master's view:
 * - no candidate: generate when elected (block L − 6's signers indexed by L's checksum, the offset
 *   stepping every 2 intervals), or anyone after 4 intervals + jitter without an accepted block;
 *   the genesis node alone below block 8. The new block carries our signature and is pushed in full
 *   to the masters;
 * - a block for L + 1 arrives: it is checked as a whole (chain.checkBlock: header, sig freeze,
 *   transactions, state transition) and adopted when it has an elected signature, half the
 *   required signatures, or is the first after sync; another candidate is replaced only by more
 *   signatures, or as many with more difficulty (elected signature required); we sign it (from
 *   block 8, not while catching up) and push our signature to the masters;
 * - signatures arrive one by one or in chunks; once the candidate is acceptable it is imported;
 * - a candidate not accepted within 10 intervals (300 s at 30 s) of its last signature is dropped
 *   and its checksum blacklisted for 5 intervals;
 * - a different, fully signed block at our tip's height that the rules prefer replaces our tip.
 *
 * Every operation runs one at a time (a queue), so the candidate never changes under an await.
 * Timings scale with the network's block interval (rules.consensusTiming).
 */
import { blockChecksum, decodeBlockWire, encodeBlock, type Block, type BlockSignature } from '../chain/block.js';
import type { Chain } from '../chain/chain.js';
import { BlockError, BlockErrorCode } from '../chain/errors.js';
import { knownTxFromBytes, type KnownTx } from '../chain/tx-codec.js';
import type { Clock } from '../clock.js';
import type { Network } from '../codec/types.js';
import { equalBytes } from '../formats/bytes.js';
import type { Logger } from '../log/logger.js';
import type { Mempool } from '../mempool/mempool.js';
import { latin1Key } from '../state/keys.js';
import { tallyOf, type CountedSignature, type ReferenceAcceptance } from './acceptance.js';
import { addSignatures, storedEntryDifficulty } from './block-signatures.js';
import type { BlockProducer } from './producer.js';
import {
  adoptFirstCandidate, BOOTSTRAP_BLOCKS, electedSigners, electionOffset, hasElectedSignature, networkTimeAgainstTip,
  newBlockTimestamp, preferIncomingBlock, shouldGenerateBlock, type ConsensusTiming,
} from './rules.js';

/** What the engine needs of the peer network (the node adapts NodeNetwork; absent on a lone node). */
export interface EnginePeers {
  readonly isSynchronizing: boolean;
  networkHeight(): bigint;
  /** Block `num` (its bytes) with its transactions, in full, to the masters (a fresh candidate, §5.1). */
  pushBlock(num: bigint, block: Uint8Array, txs: readonly Uint8Array[], except?: unknown): void;
  /** Signatures of a block to the masters (§5.2). */
  pushSignatures(num: bigint, checksum: Uint8Array, sigs: readonly BlockSignature[], except?: unknown): void;
  /** Asks `from` (a link) for our block `num` with its signature row (the freeze override, §5.5). */
  requestBlock(num: bigint, from: unknown): void;
  /** Asks the masters for a signer's presence (its signatures count only with one, §5.2). */
  askPresence(address: Uint8Array): void;
  /** Drops every link and dials again (§5.7: no block for 900 s). */
  redial(): void;
}

/** Signs a block with this master's signer PoW solution (§5.2); null while it has none for that block. */
export interface BlockPowSigner {
  signBlock(num: bigint, version: number, checksum: Uint8Array): Promise<BlockSignature | null>;
  /** The difficulty of the solution `signBlock` would use now (to sign again when it is better), or null. */
  bestDifficulty?(num: bigint, version: number): bigint | null;
}

export interface ConsensusEngineOptions {
  chain: Chain;
  mempool: Mempool;
  producer: BlockProducer;
  acceptance: ReferenceAcceptance;
  signer: BlockPowSigner;
  /** This master's address (no checksum). */
  me: Uint8Array;
  /** The genesis node makes blocks 1–7 alone (§5.1). */
  genesisNode: boolean;
  peers: () => EnginePeers | undefined;
  timing: ConsensusTiming;
  network: Network;
  clock: Clock;
  log: Logger;
  random?: () => number;
}

/** What became of a block or signatures a peer sent (the network scores REJECT). */
export type EngineOutcome = { action: 'accept' | 'ignore' } | { action: 'reject'; reason: string };

interface Candidate {
  block: Block;
  checksum: Uint8Array;
  txs: KnownTx[];
  sigs: CountedSignature[];
  setAt: number;
  lastSigAt: number;
  mine: boolean;
  /** Our own block: when we began producing it (the chain's tip clock starts there, `TipInfo.receivedAtMs`). */
  producedAt?: number;
  /** The difficulty of our solution whose signature on this block did not count (not tried again). */
  uncountedWith?: bigint | null;
}

const ACCEPT: EngineOutcome = { action: 'accept' };
const IGNORE: EngineOutcome = { action: 'ignore' };
/** Signatures kept for candidates not seen yet (by checksum), at most. */
const WAITING_CHECKSUMS = 16;

export class ConsensusEngine {
  private candidate: Candidate | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running = false;
  private readonly jitterSeconds: number;
  private lastAcceptedAt: number;
  private readonly blacklist = new Map<string, number>();
  /** Blocks whose signatures we froze (candidate m + 5 handled); older ones are final anyway. */
  private readonly frozen = new Set<bigint>();
  /** Blocks we signed (by checksum), with the difficulty of the solution we signed with. */
  private readonly signed = new Map<string, bigint>();
  private readonly waiting = new Map<string, BlockSignature[]>();
  /** A candidate held back until block n − 5's frozen row from its sender arrives (§5.5). */
  private held: { bytes: Uint8Array; txs: Uint8Array[]; from: unknown; need: bigint } | null = null;
  private wasSyncing = false;
  private firstAfterSync = false;
  private lastResign = 0;
  private lastRedial = 0;
  private readonly unsubscribe: (() => void)[] = [];

  constructor(private readonly o: ConsensusEngineOptions) {
    this.jitterSeconds = (o.random ?? Math.random)() * o.timing.fallbackJitter;
    this.lastAcceptedAt = o.clock.now();
  }

  start(events: { on(e: 'blockImported', fn: (ev: { block: Block }) => void): () => void; on(e: 'blockReverted', fn: (ev: { block: Block }) => void): () => void }): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe.push(
      events.on('blockImported', ({ block }) => {
        this.lastAcceptedAt = this.o.clock.now();
        if (this.candidate && this.candidate.block.num <= block.num) this.candidate = null;
      }),
      events.on('blockReverted', () => {
        this.candidate = null;
        // §6 (DLT `revertLastBlock`): the new tip counts as appended at its own timestamp, so the
        // quiet timer (§5.7) runs from there, not from the import of the block taken back.
        const tip = this.o.chain.tip;
        if (tip) this.lastAcceptedAt = Number(tip.block.timestamp) * 1000;
      }),
    );
    this.schedule();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const u of this.unsubscribe.splice(0)) u();
    await this.queue.catch(() => undefined);
  }

  /** The block this master holds for tip + 1, with the signatures gathered so far (status, tests). */
  get pending(): { num: bigint; checksum: Uint8Array; signatures: number } | null {
    const c = this.candidate;
    return c ? { num: c.block.num, checksum: c.checksum, signatures: c.sigs.length } : null;
  }

  private get tickMs(): number {
    // The reference's loop runs about once a second at 30 s blocks: 1/30 of an interval, at least 50 ms.
    return Math.max(50, Math.round((this.o.timing.blockInterval * 1000) / 30));
  }

  private schedule(): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      // A failed step is logged by `run`; the loop goes on.
      void this.run(() => this.tick())
        .catch(() => undefined)
        .finally(() => this.schedule());
    }, this.tickMs);
  }

  /** Runs `fn` after every earlier engine operation (one at a time). */
  private run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn);
    this.queue = next.catch((err: unknown) => this.o.log.error({ err }, 'consensus step failed'));
    return next;
  }

  // ---- the loop ----

  private async tick(): Promise<void> {
    const peers = this.o.peers();
    const syncing = peers?.isSynchronizing ?? false;
    if (syncing) {
      this.wasSyncing = true;
      // §5.7's timer runs whatever the sync does (DLT `Node.update`): a sync that imports nothing
      // for 900 s gets fresh links; each block it imports restarts the timer (`blockImported`).
      this.redialIfQuiet();
      return;
    }
    if (this.wasSyncing) {
      this.wasSyncing = false;
      this.firstAfterSync = true;
    }
    const now = this.o.clock.now();
    for (const [k, until] of this.blacklist) if (until < now) this.blacklist.delete(k);
    const c = this.candidate;
    if (c) {
      if (c.block.num !== this.o.chain.height + 1n) this.candidate = null;
      else if (now - Math.max(c.setAt, c.lastSigAt) > this.o.timing.candidateTimeout * 1000) {
        this.o.log.warn({ height: Number(c.block.num), signatures: c.sigs.length }, 'candidate block not accepted in time; dropped');
        this.ban(c.checksum);
        this.candidate = null;
      } else {
        // Adopted before our signer miner had a solution (a master that just joined): sign now (§5.2).
        await this.signCandidate();
        await this.tryAccept();
      }
    }
    if (!this.candidate) await this.maybeProduce();
    this.redialIfQuiet();
    if (now - this.lastResign > (this.o.timing.blockInterval * 1000) / 3) {
      this.lastResign = now;
      await this.signRecent();
    }
  }

  /**
   * §5.7 (DLT `Node.update`): no block imported (produced, received or synchronized) for 900 s →
   * drop and redial every link, at most every 1800 s (scaled), syncing or not. Reads the clock
   * afresh: it runs after the tick's awaits.
   */
  private redialIfQuiet(): void {
    const peers = this.o.peers();
    const now = this.o.clock.now();
    const quiet = this.o.timing.redialAfter * 1000;
    if (now - this.lastAcceptedAt <= quiet || now - this.lastRedial <= 2 * quiet) return;
    this.lastRedial = now;
    this.o.log.warn({ seconds: Math.round((now - this.lastAcceptedAt) / 1000) }, 'no block accepted for a long time; dropping and redialling every link');
    peers?.redial();
  }

  private ban(checksum: Uint8Array): void {
    this.blacklist.set(latin1Key(checksum), this.o.clock.now() + 5 * this.o.timing.blockInterval * 1000);
  }

  private banned(checksum: Uint8Array): boolean {
    return (this.blacklist.get(latin1Key(checksum)) ?? 0) > this.o.clock.now();
  }

  /** The elected proposers of block L + 1 (§5.1) at network time `nowSeconds`, or null when nobody is. */
  private electedFor(tipNum: bigint, tipChecksum: Uint8Array, tipTimestamp: bigint, nowSeconds: number): Uint8Array[] | null {
    if (tipNum < BOOTSTRAP_BLOCKS) return [];
    const offset = electionOffset(nowSeconds - Number(tipTimestamp), this.o.timing);
    const election = this.o.chain.getBlock(tipNum - 6n)?.block.signatures.map((s) => s.signer) ?? [];
    return electedSigners(tipChecksum, election, offset);
  }

  /** The tip's timestamp and the network time to compare it with ({@link networkTimeAgainstTip}). */
  private tipClock(tip: { block: Block; receivedAtMs: number }): { tipTimestamp: number; nowSeconds: number } {
    const stamped = Number(tip.block.timestamp);
    return { tipTimestamp: stamped, nowSeconds: networkTimeAgainstTip(this.o.clock.now(), stamped, tip.receivedAtMs, this.o.timing) };
  }

  private async maybeProduce(): Promise<void> {
    const tip = this.o.chain.tip;
    if (!tip) return;
    const now = this.o.clock.now();
    const { tipTimestamp, nowSeconds } = this.tipClock(tip);
    const elected = this.electedFor(tip.block.num, tip.checksum, tip.block.timestamp, nowSeconds);
    const decision = shouldGenerateBlock(
      {
        tipNum: tip.block.num,
        tipTimestamp,
        networkTime: nowSeconds,
        secondsSinceAccepted: (now - this.lastAcceptedAt) / 1000,
        fallbackJitter: this.jitterSeconds,
        elected: elected?.some((e) => equalBytes(e, this.o.me)) ?? false,
        genesisNode: this.o.genesisNode,
        hasCandidate: false,
      },
      this.o.timing,
    );
    if (decision) await this.produce(decision);
  }

  private async produce(reason: string): Promise<void> {
    const { chain, acceptance } = this.o;
    const producedAt = this.o.clock.now();
    const tip = chain.tip!;
    const n = tip.block.num + 1n;
    if (n > 11n) await this.freeze(n - 5n);
    const ts = newBlockTimestamp(Math.floor(this.o.clock.now() / 1000), Number(tip.block.timestamp), this.o.timing);
    let produced: Awaited<ReturnType<BlockProducer['produceUnsigned']>>;
    try {
      produced = await this.o.producer.produceUnsigned(BigInt(ts));
    } catch (err) {
      // A peer's block n was imported (block sync, not this queue) while ours was made on its parent:
      // the chain refuses ours ("the tip moved", or n's staking reward is already applied). Nothing
      // was written (produceBlock is a dry run); the next tick works on the new tip.
      if (!(err instanceof BlockError) || !chain.tip || equalBytes(chain.tip.checksum, tip.checksum)) throw err;
      this.o.log.warn({ height: Number(n), tip: Number(chain.height), code: err.code }, `block ${n} was not proposed: the tip became block ${chain.height} (a peer's) while ours was made (${err.message})`);
      return;
    }
    const sig = await this.o.signer.signBlock(n, produced.block.version, produced.checksum);
    if (!sig) {
      this.o.log.debug({ height: Number(n) }, 'no signer PoW solution for this block yet; not proposing');
      return;
    }
    const sigs = await acceptance.verifiedEntries({ ...produced.block, signatures: [sig] }, produced.checksum, false);
    if (sigs.length === 0) {
      this.o.log.warn({ height: Number(n) }, 'our own block signature does not count (solution below the minimum difficulty?)');
      return;
    }
    if (chain.height + 1n !== n) return; // a block arrived meanwhile
    const now = this.o.clock.now();
    this.candidate = { block: produced.block, checksum: produced.checksum, txs: produced.txs, sigs, setAt: now, lastSigAt: now, mine: true, producedAt };
    this.signed.set(latin1Key(produced.checksum), sigs[0]!.difficulty);
    this.o.log.debug({ height: Number(n), txs: produced.txs.length, reason }, 'block proposed');
    this.o.peers()?.pushBlock(n, this.candidateBytes(this.candidate), produced.txs.map((k) => k.bytes));
    await this.tryAccept();
  }

  private candidateBytes(c: Candidate): Uint8Array {
    return encodeBlock({ ...c.block, signatures: c.sigs.map((s) => s.sig) }).bytes;
  }

  private async tryAccept(): Promise<void> {
    const c = this.candidate;
    if (!c || c.block.num !== this.o.chain.height + 1n) return;
    if (!this.o.acceptance.acceptable(c.block, c.sigs).ok) return;
    try {
      await this.o.chain.importBlock({ ...c.block, signatures: c.sigs.map((s) => s.sig) }, c.txs, { source: c.mine ? 'local' : 'peer', ...(c.producedAt !== undefined ? { producedAtMs: c.producedAt } : {}) });
      this.o.log.debug({ height: Number(c.block.num), signatures: c.sigs.length }, 'block accepted');
    } catch (err) {
      if (!(err instanceof BlockError)) throw err;
      this.o.log.debug({ height: Number(c.block.num), code: err.code }, err.message);
      if (err.action === 'REJECT') {
        this.ban(c.checksum);
        this.candidate = null;
      }
    }
  }

  /** Freezes block m's signatures when candidate m + 5 is handled (§5.5): its row becomes the frozen list. */
  private async freeze(m: bigint): Promise<void> {
    if (this.frozen.has(m) || m + 5n <= this.o.chain.height) return;
    this.frozen.add(m);
    for (const k of this.frozen) if (k + 20n < m) this.frozen.delete(k);
    const row = await this.o.acceptance.frozenRow(m);
    const stored = this.o.chain.getBlock(m);
    if (!row || !stored) return;
    const same = row.length === stored.block.signatures.length && row.every((s, i) => equalBytes(s.signer, stored.block.signatures[i]!.signer) && equalBytes(s.signature ?? new Uint8Array(0), stored.block.signatures[i]!.signature ?? new Uint8Array(0)));
    if (!same) await this.o.chain.setBlockSignatures(m, row);
  }

  private isFrozen(m: bigint): boolean {
    return this.frozen.has(m) || m + 5n <= this.o.chain.height;
  }

  // ---- what peers send ----

  /** A block (wire bytes) with its transactions (v7 bytes) from a master link. */
  receiveBlock(bytes: Uint8Array, txs: Uint8Array[], from: unknown): Promise<EngineOutcome> {
    return this.run(() => this.onBlock(bytes, txs, from));
  }

  /** Signatures of block `num` (checksum `checksum`) from a master link. */
  receiveSignatures(num: bigint, checksum: Uint8Array, sigs: BlockSignature[], from: unknown): Promise<EngineOutcome> {
    return this.run(() => this.onSignatures(num, checksum, sigs, from));
  }

  private async onBlock(bytes: Uint8Array, txBytes: Uint8Array[], from: unknown): Promise<EngineOutcome> {
    let block: Block;
    let checksum: Uint8Array;
    try {
      const d = decodeBlockWire(bytes, this.o.chain.superBlockPeriod);
      block = d.block;
      checksum = blockChecksum(bytes.subarray(0, d.headerLength));
    } catch (err) {
      return { action: 'reject', reason: `block does not decode: ${(err as Error).message}` };
    }
    if (this.banned(checksum)) return IGNORE;
    const tip = this.o.chain.height;
    if (block.num === tip + 1n) return this.onCandidate(bytes, block, checksum, txBytes, from);
    if (block.num <= tip && block.num + 5n > tip) return this.onKnownHeight(bytes, block, checksum, txBytes, from);
    return IGNORE;
  }

  private async onCandidate(bytes: Uint8Array, block: Block, checksum: Uint8Array, txBytes: Uint8Array[], from: unknown): Promise<EngineOutcome> {
    const { chain, acceptance } = this.o;
    const c = this.candidate;
    if (c && equalBytes(c.checksum, checksum)) return this.addCandidateSignatures(block.signatures, from);
    let txs: KnownTx[];
    try {
      txs = txBytes.map((b) => {
        const k = knownTxFromBytes(b, this.o.network);
        return this.o.mempool.get(k.id) ?? k;
      });
    } catch (err) {
      return { action: 'reject', reason: `a transaction of the block does not decode: ${(err as Error).message}` };
    }
    const n = block.num;
    if (n > 11n) await this.freeze(n - 5n);
    let checked: { block: Block; checksum: Uint8Array };
    try {
      checked = await chain.checkBlock(bytes, txs);
    } catch (err) {
      if (!(err instanceof BlockError)) throw err;
      if (err.code === BlockErrorCode.SignatureFreezeMismatch && block.signatureFreezeChecksum && n > 5n) {
        // The proposer froze block n − 5 otherwise: its copy of n − 5 decides (§5.5).
        acceptance.expectFreeze(n - 5n, block.signatureFreezeChecksum);
        this.held = { bytes, txs: txBytes, from, need: n - 5n };
        this.o.peers()?.requestBlock(n - 5n, from);
        return IGNORE;
      }
      this.o.log.debug({ height: Number(n), code: err.code }, err.message);
      return err.action === 'REJECT' ? { action: 'reject', reason: `${err.code}: ${err.message}` } : IGNORE;
    }
    const waiting = this.waiting.get(latin1Key(checksum)) ?? [];
    this.waiting.delete(latin1Key(checksum));
    const sigs = await acceptance.verifiedEntries({ ...checked.block, signatures: [...checked.block.signatures, ...waiting] }, checksum, acceptance.livePresence(block));
    const tally = tallyOf(sigs);
    const tipInfo = chain.tip!;
    const elected = this.electedFor(tipInfo.block.num, tipInfo.checksum, tipInfo.block.timestamp, this.tipClock(tipInfo).nowSeconds);
    const networkHeight = this.o.peers()?.networkHeight() ?? chain.height;
    const hasElected = hasElectedSignature(sigs.map((s) => s.address), elected, tipInfo.block.num, networkHeight);
    if (c) {
      const prefer = preferIncomingBlock({
        local: tallyOf(c.sigs), incoming: tally, incomingHasElected: hasElected,
        incomingHasRequiredCount: acceptance.acceptable(block, sigs).ok, blockNum: n, networkHeight,
      });
      if (!prefer) return IGNORE;
      this.o.log.debug({ height: Number(n), signatures: sigs.length, had: c.sigs.length }, 'switching to a competing candidate');
    } else if (!adoptFirstCandidate(tally, hasElected, acceptance.required(n), this.firstAfterSync)) {
      return IGNORE;
    }
    this.firstAfterSync = false;
    const now = this.o.clock.now();
    this.candidate = { block: checked.block, checksum, txs, sigs, setAt: now, lastSigAt: now, mine: false };
    await this.signCandidate();
    await this.tryAccept();
    return ACCEPT;
  }

  /** Our signature on the candidate (§5.2: from block 8, not while catching up), pushed to the masters. */
  private async signCandidate(): Promise<void> {
    const c = this.candidate;
    if (!c || c.block.num < BOOTSTRAP_BLOCKS) return;
    if (c.sigs.some((s) => equalBytes(s.address, this.o.me))) return;
    const networkHeight = this.o.peers()?.networkHeight() ?? this.o.chain.height;
    if (c.block.num + 5n < networkHeight) return;
    // The loop calls this every tick: a solution whose signature did not count is not tried again.
    const best = this.o.signer.bestDifficulty?.(c.block.num, c.block.version) ?? null;
    if (c.uncountedWith !== undefined && c.uncountedWith === best) return;
    const sig = await this.o.signer.signBlock(c.block.num, c.block.version, c.checksum);
    if (!sig || this.candidate !== c) return;
    const mine = await this.o.acceptance.verifiedEntries({ ...c.block, signatures: [sig] }, c.checksum, false);
    if (mine.length === 0) {
      c.uncountedWith = best;
      return;
    }
    c.sigs = addSignatures(c.sigs, mine);
    this.signed.set(latin1Key(c.checksum), mine[0]!.difficulty);
    this.o.peers()?.pushSignatures(c.block.num, c.checksum, [sig]);
  }

  private async addCandidateSignatures(sigs: readonly BlockSignature[], from: unknown): Promise<EngineOutcome> {
    const c = this.candidate!;
    const fresh = sigs.filter((s) => !c.sigs.some((x) => equalBytes(x.sig.signer, s.signer) && equalBytes(x.sig.signature ?? new Uint8Array(0), s.signature ?? new Uint8Array(0))));
    if (fresh.length === 0) return IGNORE;
    const counted = await this.o.acceptance.verifiedEntries({ ...c.block, signatures: fresh }, c.checksum, this.o.acceptance.livePresence(c.block));
    if (this.candidate !== c || counted.length === 0) return IGNORE;
    const before = c.sigs;
    c.sigs = addSignatures(c.sigs, counted);
    const added = c.sigs.filter((s) => !before.includes(s));
    if (added.length === 0) return IGNORE;
    c.lastSigAt = this.o.clock.now();
    this.o.peers()?.pushSignatures(c.block.num, c.checksum, added.map((s) => s.sig), from);
    await this.tryAccept();
    return ACCEPT;
  }

  private async onSignatures(num: bigint, checksum: Uint8Array, sigs: BlockSignature[], from: unknown): Promise<EngineOutcome> {
    const c = this.candidate;
    if (c && c.block.num === num && equalBytes(c.checksum, checksum)) return this.addCandidateSignatures(sigs, from);
    const tip = this.o.chain.height;
    if (num === tip + 1n) {
      // Signatures can overtake their block: kept until it arrives.
      const key = latin1Key(checksum);
      if (!this.waiting.has(key) && this.waiting.size >= WAITING_CHECKSUMS) this.waiting.delete(this.waiting.keys().next().value!);
      this.waiting.set(key, [...(this.waiting.get(key) ?? []), ...sigs].slice(-1000));
      return IGNORE;
    }
    if (num > tip || num + 5n <= tip || this.isFrozen(num)) return IGNORE;
    const stored = this.o.chain.getBlock(num);
    if (!stored || !equalBytes(stored.checksum, checksum)) return IGNORE;
    const added = await this.mergeIntoRow(num, sigs);
    if (added.length === 0) return IGNORE;
    this.o.peers()?.pushSignatures(num, checksum, added, from);
    return ACCEPT;
  }

  /**
   * Adds signatures to stored block `num`'s row as §5.2 adds them (one per signer; a signer's
   * better solution replaces its entry), while the row may still change. Returns what changed.
   */
  private async mergeIntoRow(num: bigint, sigs: readonly BlockSignature[]): Promise<BlockSignature[]> {
    const stored = this.o.chain.getBlock(num);
    if (!stored || this.isFrozen(num)) return [];
    const { acceptance } = this.o;
    const incoming = await acceptance.verifiedEntries({ ...stored.block, signatures: [...sigs] }, stored.checksum, acceptance.livePresence(stored.block));
    if (incoming.length === 0) return [];
    const current = await acceptance.verifiedEntries(stored.block, stored.checksum, false);
    const next = addSignatures(current, incoming);
    const changed = next.filter((s) => !current.includes(s));
    if (changed.length === 0 || this.o.chain.getBlock(num)?.block.signatures.length !== stored.block.signatures.length) return [];
    await this.o.chain.setBlockSignatures(num, next.map((s) => s.sig));
    return changed.map((s) => s.sig);
  }

  /** A block at a height we hold (within the last 5): the same block's row, or a competing tip. */
  private async onKnownHeight(bytes: Uint8Array, block: Block, checksum: Uint8Array, txBytes: Uint8Array[], from: unknown): Promise<EngineOutcome> {
    const { chain, acceptance } = this.o;
    const m = block.num;
    const stored = chain.getBlock(m)!;
    if (equalBytes(stored.checksum, checksum)) {
      const override = await acceptance.offerRow(m, checksum, block.signatures);
      if (override) {
        await chain.setBlockSignatures(m, override);
        this.frozen.add(m);
        const held = this.held;
        if (held && held.need === m) {
          this.held = null;
          return this.onBlock(held.bytes, held.txs, held.from);
        }
        return ACCEPT;
      }
      if (this.isFrozen(m)) return IGNORE;
      return this.onSignatures(m, checksum, block.signatures, from);
    }
    if (m !== chain.height) return IGNORE;
    // A different block at our tip's height: it replaces ours only fully signed and preferred (§5.7).
    let incoming: { block: Block; checksum: Uint8Array };
    try {
      incoming = await chain.verifyBlockSigners(bytes);
    } catch (err) {
      if (!(err instanceof BlockError)) throw err;
      return IGNORE;
    }
    const theirs = await acceptance.verifiedEntries(incoming.block, checksum, false);
    const ours = await acceptance.verifiedEntries(stored.block, stored.checksum, false);
    const parent = chain.getBlock(m - 1n);
    const elected = parent ? this.electedFor(m - 1n, parent.checksum, parent.block.timestamp, Number(block.timestamp)) : null;
    const networkHeight = this.o.peers()?.networkHeight() ?? chain.height;
    const prefer = preferIncomingBlock({
      local: tallyOf(ours), incoming: tallyOf(theirs), incomingHasElected: hasElectedSignature(theirs.map((s) => s.address), elected, m - 1n, networkHeight),
      incomingHasRequiredCount: true, blockNum: m, networkHeight,
    });
    if (!prefer) return IGNORE;
    this.o.log.info({ height: Number(m), ours: ours.length, theirs: theirs.length }, 'a competing block with more signatures replaces our tip');
    try {
      await chain.revertTip(stored.checksum);
    } catch (err) {
      if (!(err instanceof BlockError)) throw err;
      return IGNORE;
    }
    this.candidate = null;
    return this.onCandidate(bytes, block, checksum, txBytes, from);
  }

  /** Signs the last blocks we have not signed (§5.2: after sync, and a block accepted without us), while their rows may still change. */
  private async signRecent(): Promise<void> {
    const tip = this.o.chain.height;
    const networkHeight = this.o.peers()?.networkHeight() ?? tip;
    for (let m = tip > 3n ? tip - 3n : 1n; m <= tip; m++) {
      if (m < BOOTSTRAP_BLOCKS || this.isFrozen(m) || m + 5n < networkHeight) continue;
      const stored = this.o.chain.getBlock(m);
      if (!stored) continue;
      // Signed already, with the solution we would sign with now: nothing better to add (§5.2: every 10 s
      // the last blocks are signed again when the miner found a better solution).
      const key = latin1Key(stored.checksum);
      const best = this.o.signer.bestDifficulty?.(m, stored.block.version) ?? null;
      const mine = stored.block.signatures.find((s) => equalBytes(s.signer, this.o.me));
      const signedWith = this.signed.get(key) ?? (mine ? (storedEntryDifficulty(mine, stored.block, (n) => this.o.chain.getBlock(n)?.checksum) ?? 0n) : undefined);
      if (mine && (best === null || best <= signedWith!)) continue;
      if (!mine && this.signed.has(key) && (best === null || best <= this.signed.get(key)!)) continue;
      const sig = await this.o.signer.signBlock(m, stored.block.version, stored.checksum);
      if (!sig) continue;
      this.signed.set(key, best ?? 0n);
      const added = await this.mergeIntoRow(m, [sig]);
      if (added.length > 0) this.o.peers()?.pushSignatures(m, stored.checksum, added);
    }
    if (this.signed.size > 64) for (const k of [...this.signed.keys()].slice(0, this.signed.size - 64)) this.signed.delete(k);
  }
}
