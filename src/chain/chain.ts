/**
 * The chain: its tip, the committed state, and the one write path for blocks (reshape-for-peers
 * §4.3). `produceBlock` computes an unsigned block from candidates without writing anything;
 * `importBlock` checks a block (header rules, signatures in the pool, the state transition in
 * import mode, the checksums it computed against the header's) and commits it in ONE LMDB write
 * transaction, then emits `blockImported`. The node's own blocks take the same path as a peer's.
 * A crash before the commit leaves the previous block as tip; after it, the block and all its
 * effects are there.
 *
 * The chain reads no wall clock (the clock is injected), picks no signer (the proposer comes with
 * the template or the block) and writes no other module's records (the mempool prunes itself on
 * `blockImported`).
 */
import type { Network } from '../codec/types.js';
import type { Clock } from '../clock.js';
import { sha3_512sq } from '../core/hash.js';
import type { Emitter } from '../events.js';
import { equalBytes, concatBytes } from '../formats/bytes.js';
import { addressToText } from '../formats/address.js';
import { MAX_BLOCK_FUTURE_DRIFT_SECONDS } from '../formats/constants.js';
import type { Logger } from '../log/logger.js';
import { bytesKey, u64Key } from '../state/keys.js';
import type { RecordedWrite, Store, UndoEntry } from '../state/store.js';
import {
  type Block,
  BlockCodecError,
  type BlockSignature,
  blockChecksum,
  decodeBlock,
  decodeBlockWire,
  encodeBlock,
  encodeBlockHeader,
  isSuperBlock,
  SUPERBLOCK_INTERVAL,
  txIdRoot,
} from './block.js';
import { BLOCK_VERSION, MAX_REVERT_DEPTH, MIN_IMPORT_BLOCK_VERSION } from './constants.js';
import { SUB_DATABASES } from '../state/schema.js';
import { BlockError, BlockErrorCode, StoreCorruptionError, TxError } from './errors.js';
import type { ChainExtensions, TxView } from './extensions.js';
import { applyBlockBody, type TransitionResult } from './state-transition.js';
import { decodeStoredTx, encodeStoredTx, type KnownTx } from './tx-codec.js';
import { resolveTxSigner } from './validate.js';
import { decodeWalletState, emptyWallet, type WalletState } from './wallet-state.js';

/** Metadata keys of the `meta` sub-database, defined once. */
export const META = {
  tip: 'tipHeight',
  appliedSeq: 'appliedSequence',
  walletCount: 'walletCount',
  supply: 'supply',
  wsChecksum: 'walletStateChecksum',
} as const;

export interface TipInfo {
  block: Block;
  checksum: Uint8Array;
  /** Local time (ms) the block was imported or loaded. */
  receivedAtMs: number;
}

/** Verifies RSA signatures (in the worker pool): true when `signature` is valid for `data` under `publicKey`. */
export type SignatureVerifier = (items: { publicKey: Uint8Array; data: Uint8Array; signature: Uint8Array }[]) => Promise<boolean[]>;

/**
 * The acceptance rule for a block's signatures, owned by `consensus/` (reshape-for-peers §4.3):
 * today one valid signature (the proposer's, required consensus 1); the consensus issue plugs the
 * full rule of reference-network §5.4 in here.
 */
export interface BlockAcceptance {
  /** Valid signatures from distinct signers a block needs to be imported. */
  requiredSignatures(block: Block): number;
  /** The RSA key of a signer address that the chain's wallet state may not know (own keys, presences). */
  signerKey(signer: Uint8Array): Uint8Array | null;
}

/**
 * Where a block comes from: this node's producer, a peer's gossip, sync, or the network's genesis
 * (block 1 built by every node from the genesis file: it needs no signature).
 */
export type BlockSource = 'local' | 'peer' | 'sync' | 'genesis';

/** Events the chain emits (src/node/events.ts gathers every module's). */
export interface ChainEvents {
  blockImported: { block: Block; checksum: Uint8Array; txs: readonly KnownTx[]; source: BlockSource };
  /** The tip was taken back (a competing chain won, reference-network §5.7); its transactions are unapplied again. */
  blockReverted: { block: Block; checksum: Uint8Array; txs: readonly KnownTx[] };
  txApplied: { height: bigint; txs: readonly KnownTx[] };
  blockSignaturesAdded: { num: bigint; added: readonly BlockSignature[] };
}

/** What the producer asks for (consensus fills it in: time, proposer, header values). */
export interface BlockTemplate {
  candidates: readonly KnownTx[];
  /** Unix seconds, from the injected clock. */
  timestamp: bigint;
  /** `addressNoChecksum` of the proposer, who will sign and receives the fees. */
  proposer: Uint8Array;
  version?: number;
  /** Argon2 mining difficulty (header row 8). */
  difficulty: bigint;
  /** Signer bits of block 1 and superblocks (row 9). */
  signerBits: bigint;
}

/** An unsigned block and what produced it; sign `checksum` and hand both to `importBlock`. */
export interface ProducedBlock {
  block: Block;
  checksum: Uint8Array;
  /** The block's transactions in order (the candidates that applied). */
  txs: KnownTx[];
  /** Candidates left out, with the error that refused each. */
  rejected: { tx: KnownTx; error: TxError }[];
}

export interface ImportResult {
  block: Block;
  checksum: Uint8Array;
  txs: readonly KnownTx[];
}

export interface ChainDeps {
  store: Store;
  network: Network;
  extensions: ChainExtensions;
  log: Logger;
  clock: Clock;
  events: Emitter<ChainEvents>;
  verifySignatures: SignatureVerifier;
  /** Transactions whose signature was already verified (the mempool's): not verified again on import. */
  isVerified?(id: Uint8Array): boolean;
}

export class Chain {
  readonly store: Store;
  readonly network: Network;
  readonly extensions: ChainExtensions;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly events: Emitter<ChainEvents>;
  private readonly verifySignatures: SignatureVerifier;
  private readonly isVerified: (id: Uint8Array) => boolean;
  private acceptance: BlockAcceptance = { requiredSignatures: () => 1, signerKey: () => null };
  private tipInfo: TipInfo | null = null;
  /**
   * The transition of the block this node produced last, with the writes it made: importing that
   * same block on the same parent replays them instead of running the transition a second time
   * (the result is the transition's, for the same parent, transactions and header).
   */
  private prepared: { parent: Uint8Array | null; checksum: Uint8Array; result: TransitionResult; writes: RecordedWrite[] } | null = null;
  /** Imports and signature additions run one at a time, in call order. */
  private writing: Promise<unknown> = Promise.resolve();

  constructor(deps: ChainDeps) {
    this.store = deps.store;
    this.network = deps.network;
    this.extensions = deps.extensions;
    this.log = deps.log;
    this.clock = deps.clock;
    this.events = deps.events;
    this.verifySignatures = deps.verifySignatures;
    this.isVerified = deps.isVerified ?? (() => false);
    const height = this.store.meta.get(META.tip) as number | undefined;
    if (height !== undefined) {
      const found = this.getBlock(BigInt(height));
      if (!found) throw new StoreCorruptionError(`store names tip ${height} but holds no such block`);
      this.tipInfo = { block: found.block, checksum: found.checksum, receivedAtMs: Number(found.block.timestamp) * 1000 };
    }
  }

  /** Consensus installs its acceptance rule (the chain is built before consensus, which reads it). */
  useAcceptance(rule: BlockAcceptance): void {
    this.acceptance = rule;
  }

  get tip(): TipInfo | null {
    return this.tipInfo;
  }

  get height(): bigint {
    return this.tipInfo?.block.num ?? 0n;
  }

  wallet(address: Uint8Array): WalletState {
    const bytes = this.store.db('wallets').getBinary(bytesKey(address));
    return bytes ? decodeWalletState(bytes) : emptyWallet();
  }

  getBlock(num: bigint): { block: Block; checksum: Uint8Array; bytes: Uint8Array } | null {
    if (num < 1n) return null;
    const bytes = this.store.db('blocks').getBinary(u64Key(num));
    if (!bytes) return null;
    const { block, headerLength } = decodeBlock(bytes);
    return { block, checksum: blockChecksum(bytes.subarray(0, headerLength)), bytes };
  }

  /** The transactions of a stored block, in block order (sync answers, block explorers). */
  blockTransactions(block: Block): KnownTx[] {
    return block.txIds.map((id) => {
      const k = this.getTransaction(id);
      if (!k) throw new StoreCorruptionError(`block ${block.num} lists a transaction the store does not hold`);
      return k;
    });
  }

  getTransaction(id: Uint8Array): KnownTx | null {
    const rec = this.store.db('transactions').getBinary(bytesKey(id));
    return rec ? decodeStoredTx(rec, this.network) : null;
  }

  hasTransaction(id: Uint8Array): boolean {
    return this.store.db('transactions').doesExist(bytesKey(id));
  }

  appliedCount(): number {
    return (this.store.meta.get(META.appliedSeq) as number | undefined) ?? 0;
  }

  walletCount(): number {
    return (this.store.meta.get(META.walletCount) as number | undefined) ?? 0;
  }

  supply(): bigint {
    return BigInt((this.store.meta.get(META.supply) as string | undefined) ?? '0');
  }

  walletStateChecksum(): Uint8Array {
    return (this.store.meta.get(META.wsChecksum) as Uint8Array | undefined) ?? new Uint8Array(64);
  }

  /** Applied transactions, newest first: `fromIndex` 0 is the most recently applied (txa). */
  appliedPage(fromIndex: number, count: number): KnownTx[] {
    const out: KnownTx[] = [];
    if (count <= 0) return out;
    const ids = this.store.db('applied').getRange({ reverse: true, offset: Math.max(0, fromIndex), limit: count, snapshot: false });
    for (const { value } of ids) {
      const k = this.getTransaction(value);
      if (k) out.push(k);
    }
    return out;
  }

  /** A read view on committed state, for mempool admission (the next block's height and time). */
  view(): TxView {
    return {
      network: this.network,
      height: this.height + 1n,
      timestamp: BigInt(Math.floor(this.clock.now() / 1000)),
      store: this.store,
      balanceOf: (a) => this.wallet(a).balance,
      wallet: (a) => this.wallet(a),
    };
  }

  /**
   * The next block from `template.candidates` (already signature-checked), unsigned. Candidates
   * that break a state rule are left out and reported. Writes nothing: the transition runs in a
   * write transaction whose writes are discarded.
   */
  async produceBlock(template: BlockTemplate): Promise<ProducedBlock> {
    const num = this.height + 1n;
    const parent = this.tipInfo;
    const { result: made, writes } = await this.store.dryRunRecorded(() => {
      const result = this.transition(num, template.timestamp, template.proposer, template.candidates, 'produce');
      return { result, block: this.assemble(num, template, result) };
    });
    const { result, block } = made;
    if (this.tipInfo !== parent) throw new BlockError(BlockErrorCode.ParentMismatch, `the tip moved while block ${num} was produced`);
    const checksum = blockChecksum(encodeBlockHeader(block));
    this.prepared = writes ? { parent: parent?.checksum ?? null, checksum, result, writes } : null;
    return { block, checksum, txs: result.applied, rejected: result.rejected };
  }

  /**
   * Checks and commits the next block: `block` as wire bytes or decoded, `txs` its transactions in
   * block order (the caller gathers them: mempool, peer, sync answer).
   * @throws BlockError with the code of the first rule it breaks; nothing is written then.
   */
  importBlock(block: Block | Uint8Array, txs: readonly KnownTx[], opts: { source: BlockSource }): Promise<ImportResult> {
    const run = this.writing.then(() => this.importNow(block, txs, opts.source));
    this.writing = run.catch(() => undefined);
    return run;
  }

  private async importNow(input: Block | Uint8Array, txs: readonly KnownTx[], source: BlockSource): Promise<ImportResult> {
    let block: Block;
    let header: Uint8Array;
    if (input instanceof Uint8Array) {
      const decoded = decodeWire(input);
      block = decoded.block;
      header = input.subarray(0, decoded.headerLength);
    } else {
      block = input;
      header = encodeBlockHeader(block);
    }
    this.checkHeader(block, txs);
    const checksum = blockChecksum(header);
    if (source === 'genesis') {
      if (block.num !== 1n || block.signatures.length > 0) throw new BlockError(BlockErrorCode.BadHeader, 'only an unsigned block 1 is imported as the genesis');
    } else {
      await this.checkSignatures(block, checksum);
    }
    await this.checkTransactionSignatures(txs);
    const parent = this.tipInfo;
    // Our own block, as produced on this parent: its transition's writes are replayed, not recomputed.
    const prepared = this.prepared;
    this.prepared = null;
    const reuse =
      source === 'local' && prepared !== null && equalBytes(prepared.checksum, checksum) && sameBytes(prepared.parent, parent?.checksum ?? null);
    await this.store.write(() => {
      if (this.tipInfo !== parent) throw new BlockError(BlockErrorCode.ParentMismatch, `the tip moved while block ${block.num} was checked`);
      const { undo } = this.store.journaled(() => {
        let result: TransitionResult;
        if (reuse) {
          this.store.replay(prepared.writes);
          result = prepared.result;
        } else {
          const proposer = block.signatures[0]?.signer ?? new Uint8Array(0);
          result = this.transition(block.num, block.timestamp, proposer, txs, 'import');
        }
        this.compareComputed(block, result);
        this.commit(block, txs, result);
      });
      // What this block changed, to take it back if a competing chain wins (§5.7); older blocks are final.
      this.undoDb.put(u64Key(block.num), undo);
      if (block.num > BigInt(MAX_REVERT_DEPTH)) this.undoDb.remove(u64Key(block.num - BigInt(MAX_REVERT_DEPTH)));
    });
    this.tipInfo = { block, checksum, receivedAtMs: this.clock.now() };
    this.events.emit('blockImported', { block, checksum, txs, source });
    if (txs.length > 0) this.events.emit('txApplied', { height: block.num, txs });
    return { block, checksum, txs };
  }

  /**
   * Takes the tip back (reference-network §5.7: a different valid block won its height): restores
   * every entry the tip block wrote, in one write transaction, and emits `blockReverted` with the
   * block's transactions (the mempool takes them back). `expected` guards against a tip that moved
   * since the caller decided.
   * @throws BlockError BLOCK_REVERT_UNAVAILABLE for block 1, or deeper than MAX_REVERT_DEPTH.
   */
  revertTip(expected?: Uint8Array): Promise<ImportResult> {
    const run = this.writing.then(async () => {
      const tip = this.tipInfo;
      if (!tip || tip.block.num <= 1n) throw new BlockError(BlockErrorCode.RevertUnavailable, 'the genesis block is never reverted');
      if (expected && !equalBytes(expected, tip.checksum)) throw new BlockError(BlockErrorCode.RevertUnavailable, `the tip moved: block ${tip.block.num} is not the one to revert`);
      const num = tip.block.num;
      const undo = this.undoDb.get(u64Key(num)) as UndoEntry[] | undefined;
      const parent = this.getBlock(num - 1n);
      if (!undo || !parent) throw new BlockError(BlockErrorCode.RevertUnavailable, `block ${num} cannot be reverted: its undo record is gone (only the last ${MAX_REVERT_DEPTH} blocks can be)`, { num });
      const txs = this.blockTransactions(tip.block);
      await this.store.write(() => {
        if (this.tipInfo !== tip) throw new BlockError(BlockErrorCode.RevertUnavailable, `the tip moved while block ${num} was reverted`);
        this.store.undo(undo);
        this.undoDb.remove(u64Key(num));
      });
      for (const k of txs) k.tx.applied = 0n;
      this.prepared = null;
      // §6: after a revert, the new tip counts as appended at its own timestamp.
      this.tipInfo = { block: parent.block, checksum: parent.checksum, receivedAtMs: Number(parent.block.timestamp) * 1000 };
      this.log.info({ height: Number(num), checksum: Buffer.from(tip.checksum).toString('hex').slice(0, 16) }, 'tip reverted');
      this.events.emit('blockReverted', { block: tip.block, checksum: tip.checksum, txs });
      return { block: tip.block, checksum: tip.checksum, txs };
    });
    this.writing = run.catch(() => undefined);
    return run;
  }

  private get undoDb() {
    return this.store.declare(SUB_DATABASES.undo);
  }

  /**
   * Adds signatures to a stored block (row 12, not covered by the block checksum): each is
   * verified over `sha3_512sq(checksum)`; one per signer address (a later one for the same signer
   * is ignored here; the consensus issue decides replacement by a better solution).
   * @returns the signatures that were new.
   */
  addBlockSignatures(num: bigint, sigs: readonly BlockSignature[]): Promise<BlockSignature[]> {
    const run = this.writing.then(async () => {
      const found = this.getBlock(num);
      if (!found) throw new BlockError(BlockErrorCode.NotFound, `block ${num} is not in this chain`);
      const fresh = sigs.filter((s) => !found.block.signatures.some((t) => equalBytes(t.signer, s.signer)));
      if (fresh.length === 0) return [];
      const unknown = fresh.find((s) => !this.signerKeyOf(s.signer));
      if (unknown) {
        throw new BlockError(BlockErrorCode.SignerUnknown, `a signature for block ${num} is by ${addressToText(unknown.signer)}, whose key this node does not know yet`, { signer: unknown.signer });
      }
      const ok = await this.verifyBlockSignatures(fresh, found.checksum);
      const bad = fresh.findIndex((_, i) => !ok[i]);
      if (bad >= 0) throw new BlockError(BlockErrorCode.BadSignature, `signature ${bad} for block ${num} does not verify`, { num });
      const block: Block = { ...found.block, signatures: [...found.block.signatures, ...fresh] };
      await this.store.write(() => this.store.db('blocks').put(u64Key(num), Buffer.from(encodeBlock(block).bytes)));
      if (this.tipInfo?.block.num === num) this.tipInfo = { ...this.tipInfo, block };
      this.events.emit('blockSignaturesAdded', { num, added: fresh });
      return fresh;
    });
    this.writing = run.catch(() => undefined);
    return run;
  }

  /**
   * Checks only the signatures of a block (wire bytes) against the acceptance rule, without its
   * parent: is a competing block at the next height signed as a block must be (§5.7)?
   * @throws BlockError as `importBlock` would for its signatures (or BLOCK_MALFORMED).
   */
  async verifyBlockSigners(bytes: Uint8Array): Promise<Block> {
    const decoded = decodeWire(bytes);
    await this.checkSignatures(decoded.block, blockChecksum(bytes.subarray(0, decoded.headerLength)));
    return decoded.block;
  }

  /** Header rules that need no signature check and no state transition (reference-network §5.3). */
  private checkHeader(block: Block, txs: readonly KnownTx[]): void {
    const expected = this.height + 1n;
    if (block.num > expected) throw new BlockError(BlockErrorCode.ParentUnknown, `block ${block.num} is ahead of the tip ${this.height}`, { num: block.num, tip: this.height });
    if (block.num < expected) throw new BlockError(BlockErrorCode.AlreadyKnown, `block ${block.num} is at or below the tip ${this.height}`, { num: block.num, tip: this.height });
    const parent = this.tipInfo;
    const parentChecksum = parent?.checksum ?? null;
    if (!sameBytes(block.lastBlockChecksum, parentChecksum)) {
      throw new BlockError(BlockErrorCode.ParentMismatch, `block ${block.num} does not follow this chain's block ${this.height}`, { num: block.num });
    }
    const tipVersion = parent?.block.version ?? MIN_IMPORT_BLOCK_VERSION;
    if (block.version < Math.max(MIN_IMPORT_BLOCK_VERSION, tipVersion) || block.version > BLOCK_VERSION) {
      throw new BlockError(BlockErrorCode.BadVersion, `block version ${block.version} is not accepted after version ${tipVersion} (this node supports up to ${BLOCK_VERSION})`);
    }
    const nowS = BigInt(Math.floor(this.clock.now() / 1000));
    if (block.timestamp > nowS + BigInt(MAX_BLOCK_FUTURE_DRIFT_SECONDS)) {
      throw new BlockError(BlockErrorCode.BadTimestamp, `block ${block.num} is dated ${block.timestamp - nowS} s in the future (at most ${MAX_BLOCK_FUTURE_DRIFT_SECONDS} s)`);
    }
    if (parent && block.timestamp < parent.block.timestamp) {
      throw new BlockError(BlockErrorCode.BadTimestamp, `block ${block.num} is dated before its parent`);
    }
    if (txs.length !== block.txIds.length || txs.some((k, i) => !equalBytes(k.id, block.txIds[i]!))) {
      throw new BlockError(BlockErrorCode.TxMismatch, `the ${txs.length} transactions given are not the ${block.txIds.length} the block lists`);
    }
    if (!sameBytes(block.pitRoot, txIdRoot(block.txIds))) throw new BlockError(BlockErrorCode.TxMismatch, `block ${block.num}'s transaction root does not match its txids`);
    if (!sameBytes(block.signatureFreezeChecksum, this.signatureFreezeChecksum(block.num))) {
      throw new BlockError(BlockErrorCode.SignatureFreezeMismatch, `block ${block.num}'s signature-freeze checksum is not that of block ${block.num - 5n}'s signatures`);
    }
    if (isSuperBlock(block.num)) {
      const sb = this.superBlockData(block.num);
      const got = block.superBlock;
      if (
        !got ||
        got.lastSuperBlockNum !== sb.lastSuperBlockNum ||
        !sameBytes(got.lastSuperBlockChecksum, sb.lastSuperBlockChecksum) ||
        got.segments.length !== sb.segments.length ||
        got.segments.some((s, i) => !equalBytes(s, sb.segments[i]!))
      ) {
        throw new BlockError(BlockErrorCode.BadHeader, `superblock ${block.num} does not point at this chain's blocks since the last superblock`);
      }
    }
  }

  /** Distinct valid signers ≥ the acceptance rule's requirement; any invalid signature fails the block. */
  private async checkSignatures(block: Block, checksum: Uint8Array): Promise<void> {
    const signers = new Set<string>();
    for (const s of block.signatures) {
      const key = Buffer.from(s.signer).toString('latin1');
      if (signers.has(key)) throw new BlockError(BlockErrorCode.BadSignature, `block ${block.num} carries two signatures of one signer`);
      signers.add(key);
    }
    const unknown = block.signatures.find((s) => !this.signerKeyOf(s.signer));
    if (unknown) {
      throw new BlockError(BlockErrorCode.SignerUnknown, `block ${block.num} is signed by ${addressToText(unknown.signer)}, whose key this node does not know yet`, { signer: unknown.signer });
    }
    const ok = await this.verifyBlockSignatures(block.signatures, checksum);
    const bad = ok.findIndex((v) => !v);
    if (bad >= 0) throw new BlockError(BlockErrorCode.BadSignature, `signature ${bad} of block ${block.num} does not verify`, { num: block.num, index: bad });
    const required = this.acceptance.requiredSignatures(block);
    if (block.signatures.length < required) {
      throw new BlockError(BlockErrorCode.InsufficientSignatures, `block ${block.num} has ${block.signatures.length} valid signatures, ${required} required`, { required });
    }
  }

  /** Each signature over `sha3_512sq(checksum)` (reference-network §5.2) with its signer's key. */
  private async verifyBlockSignatures(sigs: readonly BlockSignature[], checksum: Uint8Array): Promise<boolean[]> {
    const data = sha3_512sq(checksum);
    const items: { publicKey: Uint8Array; data: Uint8Array; signature: Uint8Array }[] = [];
    const at: number[] = [];
    const out = sigs.map((s, i) => {
      const publicKey = this.signerKeyOf(s.signer);
      if (!publicKey || !s.signature) return false;
      items.push({ publicKey, data, signature: s.signature });
      at.push(i);
      return true;
    });
    if (items.length > 0) {
      const ok = await this.verifySignatures(items);
      ok.forEach((v, j) => (out[at[j]!] = v));
    }
    return out;
  }

  /** A signer is a full public key, or an address whose key the acceptance rule or the wallet state knows. */
  private signerKeyOf(signer: Uint8Array): Uint8Array | null {
    if (signer.length > 45) return signer;
    return this.acceptance.signerKey(signer) ?? this.wallet(signer).publicKey;
  }

  /**
   * Signatures of the block's transactions that no one verified yet (not from our mempool); keys
   * resolve against the committed state and the keys earlier transactions of the block introduce.
   */
  private async checkTransactionSignatures(txs: readonly KnownTx[]): Promise<void> {
    const introduced = new Map<string, Uint8Array>();
    const walletOf = (a: Uint8Array): WalletState => {
      const w = this.wallet(a);
      return w.publicKey ? w : { ...w, publicKey: introduced.get(Buffer.from(a).toString('latin1')) ?? null };
    };
    const items: { publicKey: Uint8Array; data: Uint8Array; signature: Uint8Array }[] = [];
    const which: KnownTx[] = [];
    for (const k of txs) {
      if (!k.tx.signature) continue; // genesis; unsigned transactions fail in the transition
      let signer;
      try {
        signer = resolveTxSigner(k.tx, walletOf, this.extensions);
      } catch (err) {
        const e = err as TxError;
        throw new BlockError(BlockErrorCode.InvalidTransaction, `transaction ${k.textId} fails: ${e.message}`, { txid: k.textId, code: e.code });
      }
      if (signer.keyOfPrimary) introduced.set(Buffer.from(signer.primary).toString('latin1'), signer.publicKey);
      if (this.isVerified(k.id)) continue;
      items.push({ publicKey: signer.publicKey, data: k.checksum, signature: k.tx.signature });
      which.push(k);
    }
    if (items.length === 0) return;
    const ok = await this.verifySignatures(items);
    const bad = ok.findIndex((v) => !v);
    if (bad >= 0) {
      throw new BlockError(BlockErrorCode.InvalidTransaction, `transaction ${which[bad]!.textId} fails: signature does not verify`, { txid: which[bad]!.textId, code: 'TX_BAD_SIGNATURE' });
    }
  }

  private transition(num: bigint, timestamp: bigint, proposer: Uint8Array, txs: readonly KnownTx[], mode: 'produce' | 'import'): TransitionResult {
    return applyBlockBody({
      store: this.store,
      network: this.network,
      extensions: this.extensions,
      mode,
      height: num,
      timestamp,
      proposer,
      txs,
      hasTransaction: (id) => this.hasTransaction(id),
      walletStateChecksum: this.walletStateChecksum(),
      walletCount: this.walletCount(),
      supply: this.supply(),
    });
  }

  /** The header's computed rows must equal what the transition computed (import mode). */
  private compareComputed(block: Block, r: TransitionResult): void {
    if (!sameBytes(block.walletStateChecksum, r.walletStateChecksum)) {
      throw new BlockError(BlockErrorCode.WalletStateMismatch, `block ${block.num}'s wallet-state checksum differs from the state its transactions give`);
    }
    if (block.version >= 11 && !sameBytes(block.regNameStateChecksum, r.nameStateChecksum)) {
      throw new BlockError(BlockErrorCode.NameStateMismatch, `block ${block.num}'s name-state checksum differs from the state its transactions give`);
    }
    if (block.version >= 11 && block.totalFee !== r.totalFee) {
      throw new BlockError(BlockErrorCode.TotalFeeMismatch, `block ${block.num}'s totalFee ${block.totalFee} differs from its transactions' fees ${r.totalFee}`);
    }
  }

  /** Writes the block, its transactions and the running totals (inside the import's transaction). */
  private commit(block: Block, txs: readonly KnownTx[], r: TransitionResult): void {
    const { store } = this;
    let seq = this.appliedCount();
    const txDb = store.db('transactions');
    const appliedIdx = store.db('applied');
    for (const k of txs) {
      k.tx.applied = block.num;
      txDb.put(bytesKey(k.id), encodeStoredTx(k));
      appliedIdx.put(u64Key(++seq), Buffer.from(k.id));
    }
    store.db('blocks').put(u64Key(block.num), Buffer.from(encodeBlock(block).bytes));
    store.meta.put(META.tip, Number(block.num));
    store.meta.put(META.appliedSeq, seq);
    store.meta.put(META.walletCount, r.walletCount);
    store.meta.put(META.supply, r.supply.toString());
    store.meta.put(META.wsChecksum, r.walletStateChecksum);
  }

  /** The unsigned block of a produce-mode transition. */
  private assemble(num: bigint, t: BlockTemplate, r: TransitionResult): Block {
    const txIds = r.applied.map((k) => k.id);
    const block: Block = {
      version: t.version ?? BLOCK_VERSION,
      num,
      lastBlockChecksum: this.tipInfo?.checksum ?? null,
      signatureFreezeChecksum: this.signatureFreezeChecksum(num),
      pitRoot: txIdRoot(txIds),
      timestamp: t.timestamp,
      difficulty: t.difficulty,
      walletStateChecksum: r.walletStateChecksum,
      regNameStateChecksum: r.nameStateChecksum,
      totalFee: r.totalFee,
      signatures: [],
      txIds,
    };
    if (num === 1n || isSuperBlock(num)) block.signerBits = t.signerBits;
    if (isSuperBlock(num)) block.superBlock = this.superBlockData(num);
    return block;
  }

  /**
   * Header row 4 (reference-formats §10.3) under the single-signer rule: `sha3_512sq(u64 LE (num − 5)
   * ‖ checksum of block num − 5)`. Without the reference's signature freezing (§5.5) a block's
   * signature row differs between masters (each merges what reaches it), so the row is not hashed.
   */
  private signatureFreezeChecksum(num: bigint): Uint8Array | null {
    const frozen = num > 5n ? this.getBlock(num - 5n) : null;
    if (!frozen) return null;
    const at = new Uint8Array(8);
    new DataView(at.buffer).setBigUint64(0, num - 5n, true);
    return sha3_512sq(concatBytes(at, frozen.checksum));
  }

  /** Rows of a superblock: the previous superblock and the checksums of the blocks since. */
  private superBlockData(num: bigint): NonNullable<Block['superBlock']> {
    const last = num - SUPERBLOCK_INTERVAL;
    const segments: Uint8Array[] = [];
    for (let n = last + 1n; n < num; n++) segments.push(this.getBlock(n)?.checksum ?? new Uint8Array(0));
    return { lastSuperBlockNum: last, lastSuperBlockChecksum: this.getBlock(last)?.checksum ?? null, segments };
  }
}

/** The wire decoder's codec error as the chain's BLOCK_MALFORMED, with its byte offset. */
function decodeWire(bytes: Uint8Array): ReturnType<typeof decodeBlockWire> {
  try {
    return decodeBlockWire(bytes);
  } catch (err) {
    const e = err as BlockCodecError;
    throw new BlockError(BlockErrorCode.Malformed, e.message, { offset: e.offset, field: e.field });
  }
}

const sameBytes = (a: Uint8Array | null | undefined, b: Uint8Array | null | undefined): boolean =>
  a == null || a.length === 0 ? b == null || b.length === 0 : b != null && equalBytes(a, b);
