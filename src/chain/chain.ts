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
import type { Emitter } from '../events.js';
import { equalBytes } from '../formats/bytes.js';
import { MAX_BLOCK_FUTURE_DRIFT_SECONDS, TransactionType } from '../formats/constants.js';
import type { Logger } from '../log/logger.js';
import { bytesKey, latin1Key, readU64Key, u64Key } from '../state/keys.js';
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
  storedParentChecksum,
  SUPERBLOCK_INTERVAL,
  txIdRoot,
} from './block.js';
import { BLOCK_VERSION, MAX_REVERT_DEPTH, MIN_IMPORT_BLOCK_VERSION, REG_MINING_DIFFICULTY } from './constants.js';
import { SUB_DATABASES } from '../state/schema.js';
import { BlockError, BlockErrorCode, ChainIdentityError, storeDamaged, StoreCorruptionError, StoredBlockDamagedError, TxError } from './errors.js';
import type { ChainExtensions, TxView } from './extensions.js';
import { applyBlockBody, type TransitionResult } from './state-transition.js';
import { decodeStoredTx, encodeStoredTx, MAX_BINARY_TXID_BYTES, storedTxBytes, type KnownTx } from './tx-codec.js';
import { resolveTxSigner } from './validate.js';
import { decodeWalletState, emptyWallet, type WalletState } from './wallet-state.js';

/** Metadata keys of the `meta` sub-database, defined once. */
export const META = {
  tip: 'tipHeight',
  appliedSeq: 'appliedSequence',
  walletCount: 'walletCount',
  supply: 'supply',
  wsChecksum: 'walletStateChecksum',
  /** The network (checksum lock) whose chain this is, written with block 1. */
  network: 'network',
  /** The reg network's consensus values the chain was made with (src/node/chain-rules.ts). */
  rules: 'chainRules',
  /** The tip block's checksum, written with it: start-up recomputes it from the stored bytes (store-check.ts). */
  tipChecksum: 'tipChecksum',
} as const;

/**
 * One network per data directory: another --network would extend the stored chain with blocks
 * signed under its lock, which neither network takes.
 * @throws ChainIdentityError (CHAIN_OTHER_NETWORK) when the store records another network.
 */
export function checkStoredNetwork(store: Store, network: Network): void {
  const stored = store.meta.get(META.network);
  if (stored !== undefined && stored !== network) {
    throw new ChainIdentityError(
      `the chain in ${store.path} is one of the ${String(stored)} network, not ${network}: start it with --network ${String(stored)}, or give another --data-dir`,
      'CHAIN_OTHER_NETWORK',
    );
  }
}

export interface TipInfo {
  block: Block;
  checksum: Uint8Array;
  /**
   * Local time (ms) this node had the block: when it began producing it (its own blocks), else
   * when it imported or loaded it. Consensus measures the next block's interval from here
   * (engine `tipClock`): from the end of our own import, every interval would also take the
   * production and import of the block before it (~0.5 s for 6,000 transactions).
   */
  receivedAtMs: number;
}

/**
 * Verifies RSA signatures (in the worker pool): true when `signature` is valid for `data` under
 * `publicKey`. `first`: ahead of the checks still queued (this node's own submissions); a verifier
 * without a queue ignores it.
 */
export type SignatureVerifier = (items: { publicKey: Uint8Array; data: Uint8Array; signature: Uint8Array }[], opts?: { first?: boolean }) => Promise<boolean[]>;
type SignatureItem = Parameters<SignatureVerifier>[0][number];

/**
 * One verdict per item, in order, each signature checked once between a block import and the
 * mempool's admission: an item whose check is under way elsewhere (`pending[i]`) takes that
 * verdict; the others go to `verify` in one call, and so does an item whose pending check failed
 * (it rejected: that verifier call was refused). `publish(i, verdict)` is told each check this call
 * makes, as it starts, so the other side can take it meanwhile.
 * @throws what `verify` throws (e.g. PoolBusyError)
 */
export async function verifyOnce(
  items: readonly SignatureItem[],
  pending: readonly (Promise<boolean> | undefined)[],
  verify: SignatureVerifier,
  publish?: (i: number, verdict: Promise<boolean>) => void,
): Promise<boolean[]> {
  const own = items.flatMap((_, i) => (pending[i] ? [] : [i]));
  const checks = own.length > 0 ? verify(own.map((i) => items[i]!)) : Promise.resolve([]);
  own.forEach((i, n) => {
    const verdict = checks.then((v) => v[n] === true);
    verdict.catch(() => undefined); // whoever awaits it handles a failure; unawaited, it is no crash
    publish?.(i, verdict);
  });
  const [ownVerdicts, joined] = await Promise.all([checks, Promise.all(pending.map((p) => p?.then((v): boolean | null => v, () => null)))]);
  const verdicts = joined.map((v) => v ?? null);
  own.forEach((i, n) => (verdicts[i] = ownVerdicts[n] === true));
  const again = verdicts.flatMap((v, i) => (v === null ? [i] : []));
  if (again.length > 0) {
    const rechecked = await verify(again.map((i) => items[i]!));
    again.forEach((i, n) => (verdicts[i] = rechecked[n] === true));
  }
  return verdicts as boolean[];
}

/**
 * The acceptance rule for a block's signatures, owned by `consensus/` (reshape-for-peers §4.3):
 * the embedded network's single signer, or the reference's consensus among masters
 * (reference-network §5.4–5.5). The chain asks it which signatures of a block count and what row 4
 * of a header (the signature-freeze checksum) must hold.
 */
export interface BlockAcceptance {
  /**
   * The signatures of `block` that count, in order. `full`: the block must be acceptable with them
   * (enough signers, §5.4), else a BlockError; `each`: every entry on its own (a candidate still
   * gathering signatures, or signatures added to a stored block). Invalid entries are dropped or
   * refuse the block, as the rule says.
   */
  verifySignatures(block: Block, checksum: Uint8Array, mode: 'full' | 'each'): Promise<BlockSignature[]>;
  /** Header row 4 of block `num` (reference-formats §10.3): the freeze checksum of block num − 5's signatures; null below block 6. */
  freezeChecksum(num: bigint): Uint8Array | null;
}

/**
 * What a genesis network's consensus adds to a block body beyond its signatures, owned by
 * `consensus/` (reference-network §5.1, §5.8; DLT `BlockProcessor.generateNewBlock`,
 * `distributeStakingRewards`): block n's StakingReward transaction for block n − rewardMaturity,
 * superblocks that carry nothing else and the signer bits of the next period. With a rule
 * installed the fees of a block are not paid to its proposer: they wait in the block's totalFee
 * and reach the signers with that block's staking reward (the reference's v10+ blocks pay fees
 * only that way; no foundation share). The embedded network installs none.
 */
export interface BlockBodyRule {
  /** The StakingReward transaction the next block `num` (tip + 1), dated `timestamp`, must carry first; null when none is due. */
  stakingReward(num: bigint, timestamp: bigint): KnownTx | null;
  /** Header row 9 of superblock `num` (tip + 1): the signer bits it sets for the next period (§5.8). */
  superBlockSignerBits(num: bigint, version: number, timestamp: bigint): bigint;
}

/** Before consensus installs its rule: nothing but the genesis block can be imported. */
const NO_ACCEPTANCE: BlockAcceptance = {
  verifySignatures: () => Promise.reject(new BlockError(BlockErrorCode.InsufficientSignatures, 'no acceptance rule is installed: consensus is not running')),
  freezeChecksum: () => null,
};

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
  /** `addressNoChecksum` of the proposer, who will sign and receives the fees (none with a {@link BlockBodyRule}). */
  proposer: Uint8Array;
  version?: number;
  /** Argon2 mining difficulty (header row 8); default the extensions' computation (else the minimum). */
  difficulty?: bigint;
  /** Signer bits of block 1, and of superblocks when no {@link BlockBodyRule} computes them (row 9). */
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
  /**
   * Block signature entries (the acceptance rule): a verifier that does not wait behind the
   * transaction checks a peer's push queues (the pool's consensus thread); default `verifySignatures`.
   */
  verifyBlockSignatures?: SignatureVerifier;
  /**
   * What is known of a transaction's signature before a block import checks it (the mempool's
   * `signatureVerdict`): true when already verified, the verdict of a check under way (a rejection
   * means the check failed, not the signature), undefined to verify it here.
   */
  signatureVerdict?(id: Uint8Array, signature: Uint8Array): true | Promise<boolean> | undefined;
  /** Every how many blocks a superblock comes (reference-network §5.8): 1000, or a genesis file's own. */
  superBlockPeriod?: bigint;
}

/** A block as stored: decoded, its checksum, and its bytes (row 12 included). */
export interface StoredBlock {
  readonly block: Block;
  readonly checksum: Uint8Array;
  readonly bytes: Uint8Array;
}

/** How many decoded blocks `getBlock` keeps (the tip and the few below it that consensus reads). */
const DECODED_BLOCKS_KEPT = 12;
/** Damaged blocks logged one by one (`servedBlock`); past these, refusals are only counted. */
const DAMAGED_BLOCKS_LOGGED = 100;

export class Chain {
  readonly store: Store;
  readonly network: Network;
  readonly extensions: ChainExtensions;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly events: Emitter<ChainEvents>;
  /** RSA verification of transactions (in the worker pool). */
  readonly verifyRsa: SignatureVerifier;
  /** RSA verification of block signature entries (the acceptance rule's), ahead of transaction checks. */
  readonly verifyBlockRsa: SignatureVerifier;
  private readonly signatureVerdict: NonNullable<ChainDeps['signatureVerdict']>;
  private acceptance: BlockAcceptance = NO_ACCEPTANCE;
  private bodyRule: BlockBodyRule | null = null;
  /** The network's superblock period: block layout (row 9) and superblock rows depend on it. */
  readonly superBlockPeriod: bigint;
  private tipInfo: TipInfo | null = null;
  /**
   * The transition of the block this node produced or checked last, with the writes it made:
   * importing that same block on the same parent replays them instead of running the transition a
   * second time (the result is the transition's, for the same parent, transactions and header).
   */
  private prepared: { parent: Uint8Array | null; checksum: Uint8Array; result: TransitionResult; writes: RecordedWrite[] } | null = null;
  /** Blocks decoded lately (`getBlock`), by number, least recently used first. */
  private readonly decodedBlocks = new Map<bigint, StoredBlock>();
  /** Decoded blocks `servedBlock` found to be the chain's: a cache hit (same bytes) needs no second look. */
  private readonly servable = new WeakSet<StoredBlock>();
  /** Damaged blocks already logged (each once, at most DAMAGED_BLOCKS_LOGGED). */
  private readonly damagedLogged = new Set<bigint>();
  /** Reads of a damaged block refused since start (`servedBlock`), for the metrics. */
  damagedBlockReads = 0;
  /** Imports and signature additions run one at a time, in call order. */
  private writing: Promise<unknown> = Promise.resolve();
  /**
   * The block whose write transaction is under way, until `blockImported` announces it: LMDB's
   * write thread commits it, and readers see it from their next event-loop turn, a moment before
   * this node's event loop learns of the commit (`appliedUnannounced`).
   */
  private committing: { num: bigint; txs: readonly KnownTx[] } | null = null;
  /** Transaction signatures a block import is checking now, by txid (`checkingVerdict`). */
  private readonly checking = new Map<string, { signature: Uint8Array; verdict: Promise<boolean> }>();

  constructor(deps: ChainDeps) {
    this.store = deps.store;
    this.network = deps.network;
    this.extensions = deps.extensions;
    this.log = deps.log;
    this.clock = deps.clock;
    this.events = deps.events;
    this.verifyRsa = deps.verifySignatures;
    this.verifyBlockRsa = deps.verifyBlockSignatures ?? deps.verifySignatures;
    this.signatureVerdict = deps.signatureVerdict ?? (() => undefined);
    this.superBlockPeriod = deps.superBlockPeriod ?? SUPERBLOCK_INTERVAL;
    const height = this.store.meta.get(META.tip) as unknown;
    if (height !== undefined) {
      if (!Number.isSafeInteger(height) || (height as number) < 1) throw new StoreCorruptionError(storeDamaged(this.store.path, `its tip height reads as ${JSON.stringify(height)}`));
      let found: StoredBlock | null;
      try {
        found = this.getBlock(BigInt(height as number));
      } catch (err) {
        throw new StoreCorruptionError(storeDamaged(this.store.path, `its tip, block ${String(height)}: ${(err as Error).message}`));
      }
      if (!found) throw new StoreCorruptionError(storeDamaged(this.store.path, `it names tip ${String(height)} but holds no such block`));
      this.tipInfo = { block: found.block, checksum: found.checksum, receivedAtMs: Number(found.block.timestamp) * 1000 };
      checkStoredNetwork(this.store, this.network);
      // A directory from before this record.
      if (this.store.meta.get(META.network) === undefined) this.store.meta.putSync(META.network, this.network);
    }
  }

  /** Consensus installs its acceptance rule (the chain is built before consensus, which reads it). */
  useAcceptance(rule: BlockAcceptance): void {
    this.acceptance = rule;
  }

  /** A genesis network's consensus installs its block-body rule (staking rewards, superblocks). */
  useBodyRule(rule: BlockBodyRule): void {
    this.bodyRule = rule;
  }

  get tip(): TipInfo | null {
    return this.tipInfo;
  }

  get height(): bigint {
    return this.tipInfo?.block.num ?? 0n;
  }

  /**
   * The verdict to come of the check a block import is making of this transaction's signature
   * (these exact bytes), if one is under way: the mempool's admission of the same transaction takes
   * it instead of checking again. It rejects when the check could not be made (the verifier failed).
   */
  checkingVerdict(id: Uint8Array, signature: Uint8Array): Promise<boolean> | undefined {
    const c = this.checking.get(latin1Key(id));
    return c && equalBytes(c.signature, signature) ? c.verdict : undefined;
  }

  wallet(address: Uint8Array): WalletState {
    const bytes = this.store.db('wallets').getBinary(bytesKey(address));
    return bytes ? decodeWalletState(bytes) : emptyWallet();
  }

  /**
   * A stored block, decoded. The last few decoded are kept and served again while the stored bytes
   * are the same (compared on every read, so no write path can leave a stale one): consensus, the
   * signer miner and `status` read the tip and its neighbours many times a second, and a large
   * block takes milliseconds to decode. What it returns is frozen: callers copy, never edit.
   */
  getBlock(num: bigint): StoredBlock | null {
    if (num < 1n) return null;
    // Compared where LMDB holds it (lmdb-js's volatile read buffer, or a view of its map for a large
    // value; valid until the next read): a hit costs a memcmp, not a copy of the block (~400 KB at
    // 6,000 transactions, for `status` and consensus many times a second). lmdb-js sets `length`
    // on its shared buffer to the value's size: the view is cut to it.
    const fast = this.store.db('blocks').getBinaryFast(u64Key(num));
    if (!fast) return null;
    const current = fast.subarray(0, fast.length);
    const hit = this.decodedBlocks.get(num);
    if (hit && Buffer.compare(hit.bytes, current) === 0) return hit;
    const bytes = Buffer.from(current);
    const { block, headerLength } = decodeBlock(bytes, this.superBlockPeriod);
    Object.freeze(block.signatures);
    Object.freeze(block.txIds);
    const found: StoredBlock = Object.freeze({ block: Object.freeze(block), checksum: blockChecksum(bytes.subarray(0, headerLength)), bytes });
    this.decodedBlocks.delete(num);
    this.decodedBlocks.set(num, found);
    if (this.decodedBlocks.size > DECODED_BLOCKS_KEPT) this.decodedBlocks.delete(this.decodedBlocks.keys().next().value!);
    return found;
  }

  /**
   * A stored block to serve (to a peer, over RPC): `getBlock`, checked first to be the block the
   * chain holds at its height, since LMDB keeps no checksums of its data pages and a changed byte
   * that still decodes would be served as read. Its header must hash to what the chain names for it
   * (the parent checksum its successor carries; the tip: the checksum recorded with it), and its
   * txids must give its transaction root (row 6). Cost: a SHA3-512 of its txids and one header
   * read, beside the header hash `getBlock` makes anyway. Not covered: its signatures (row 12, outside
   * the checksum; the receiver verifies them) and its transactions' own records.
   * @throws StoredBlockDamagedError (logged once a block, counted in `damagedBlockReads`).
   */
  servedBlock(num: bigint): StoredBlock | null {
    const found = this.getBlock(num);
    if (!found || this.servable.has(found)) return found;
    const hex = (b: Uint8Array | null | undefined): string => (b && b.length > 0 ? Buffer.from(b).toString('hex').slice(0, 16) : 'none');
    let why: string | null = null;
    const next = this.store.db('blocks').getBinaryFast(u64Key(num + 1n));
    // The tip's checksum is written in the transaction that stores it (older stores: none).
    const named = next ? storedParentChecksum(next.subarray(0, next.length)) : (this.store.meta.get(META.tipChecksum) as Uint8Array | undefined);
    if (named !== undefined && !(named instanceof Uint8Array && equalBytes(named, found.checksum))) {
      // A changed parent field of the successor reads the same way: then both are refused (one of them changed).
      why = `it hashes to ${hex(found.checksum)}…, but ${next ? `block ${num + 1n} names ${hex(named)}… as its parent (one of the two changed)` : `the checksum recorded with the tip is ${hex(named as Uint8Array)}…`}`;
    } else if (!sameBytes(found.block.pitRoot, txIdRoot(found.block.txIds))) {
      // The rule checkHeader applies to a block on import.
      why = 'its transaction ids do not give its transaction root';
    }
    if (why === null) {
      this.servable.add(found);
      return found;
    }
    this.damagedBlockReads++;
    const message = `block ${num} in ${this.store.path} is damaged: ${why}; it is not served (restore the data directory from a backup, or move it away and sync again)`;
    if (!this.damagedLogged.has(num) && this.damagedLogged.size < DAMAGED_BLOCKS_LOGGED) {
      this.damagedLogged.add(num);
      this.log.error({ height: Number(num) }, message);
    }
    throw new StoredBlockDamagedError(num, message);
  }

  /**
   * `servedBlock` for a peer: a damaged block reads as none, so a range is answered up to the block
   * below it and the asker fetches the rest elsewhere (reference-network §6: unanswered, asked again).
   */
  servedBlockOrNone(num: bigint): StoredBlock | null {
    try {
      return this.servedBlock(num);
    } catch (err) {
      if (err instanceof StoredBlockDamagedError) return null;
      throw err;
    }
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
    const rec = this.storedRecord(id);
    return rec ? decodeStoredTx(rec, this.network) : null;
  }

  /**
   * The transactions of a block, in block order, as the v7 bytes stored (what peers are sent):
   * nothing decoded, where `blockTransactions` decodes and hashes each (~15 µs a transaction).
   */
  blockTransactionBytes(block: Block): Uint8Array[] {
    return block.txIds.map((id) => {
      const rec = this.storedRecord(id);
      if (!rec) throw new StoreCorruptionError(`block ${block.num} lists a transaction the store does not hold`);
      return storedTxBytes(rec);
    });
  }

  /** The stored record (tx-codec.ts) of an applied transaction, or null. */
  private storedRecord(id: Uint8Array): Buffer | null {
    const found = this.store.db('transactions').getBinary(bytesKey(id));
    if (!found) return null;
    // The apply sequence of its record in `applied`, or (a store written before that layout) the record itself.
    if (found.length !== 8) return found;
    const rec = this.store.db('applied').getBinary(found);
    if (!rec || rec.length <= MAX_BINARY_TXID_BYTES) throw new StoreCorruptionError(`transaction ${Buffer.from(id).toString('hex')} points to apply sequence ${readU64Key(found)}, which holds no record`);
    return rec;
  }

  /**
   * The transactions of a block that LMDB reads made now already show as applied, but that
   * `blockImported` has not announced yet (null otherwise): in that window a balance read now has
   * them taken off while the pending pool still counts them (the pool uses this to count them once).
   */
  appliedUnannounced(): readonly KnownTx[] | null {
    const c = this.committing;
    if (!c) return null;
    const visible = this.store.meta.get(META.tip) as number | undefined;
    return visible !== undefined && BigInt(visible) >= c.num ? c.txs : null;
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
    for (const seq of this.appliedSeqs(fromIndex, count)) {
      const k = this.appliedTransaction(seq);
      if (k) out.push(k);
    }
    return out;
  }

  /**
   * The apply sequences of {@link appliedPage}, read at once (a consistent list while the
   * transactions themselves are read later, in slices: src/rpc/heavy.ts).
   */
  appliedSeqs(fromIndex: number, count: number): bigint[] {
    const out: bigint[] = [];
    if (count <= 0) return out;
    const keys = this.store.db('applied').getKeys({ reverse: true, offset: Math.max(0, fromIndex), limit: count, snapshot: false });
    for (const key of keys) out.push(readU64Key(key as Uint8Array));
    return out;
  }

  /** The transaction applied at sequence `seq` (1 = the first ever), or null once a revert took it back. */
  appliedTransaction(seq: bigint): KnownTx | null {
    const found = this.store.db('applied').getBinary(u64Key(seq));
    if (!found) return null;
    // A store written before records moved here holds the txid (its record under `transactions`).
    return found.length <= MAX_BINARY_TXID_BYTES ? this.getTransaction(found) : decodeStoredTx(found, this.network);
  }

  /** A read view on committed state, for mempool admission (the next block's height and time). */
  view(): TxView {
    return {
      network: this.network,
      height: this.height + 1n,
      timestamp: BigInt(Math.floor(this.clock.now() / 1000)),
      store: this.store,
      superBlockPeriod: this.superBlockPeriod,
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
    // Costly type checks (a mining claim's Argon2) in the pool first: the transition reads their verdicts.
    await this.extensions.prepareAll(template.candidates.map((k) => k.tx), this.view());
    if (this.tipInfo !== parent) throw new BlockError(BlockErrorCode.ParentMismatch, `the tip moved while block ${num} was produced`);
    const difficulty = template.difficulty ?? this.extensions.miningDifficulty(this.view()) ?? REG_MINING_DIFFICULTY;
    const { result: made, writes } = await this.store.dryRunRecorded(() => {
      const { txs, staking } = this.bodyOf(num, template);
      const result = this.transition(num, template.timestamp, template.proposer, txs, 'produce', staking);
      if (staking && result.applied[0] !== staking) {
        throw new BlockError(BlockErrorCode.StakingReward, `block ${num}'s own staking reward ${staking.textId} does not apply: ${result.rejected.find((r) => r.tx === staking)?.error.message ?? 'refused'}`);
      }
      return { result, block: this.assemble(num, { ...template, difficulty }, result) };
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
  importBlock(block: Block | Uint8Array, txs: readonly KnownTx[], opts: { source: BlockSource; producedAtMs?: number }): Promise<ImportResult> {
    const run = this.writing.then(() => this.importNow(block, txs, opts.source, opts.producedAtMs));
    this.writing = run.catch(() => undefined);
    return run;
  }

  /** @param producedAtMs when this node began producing the block (its own), for `TipInfo.receivedAtMs`. */
  private async importNow(input: Block | Uint8Array, txs: readonly KnownTx[], source: BlockSource, producedAtMs?: number): Promise<ImportResult> {
    let { block, header } = this.decodeInput(input);
    const checksum = blockChecksum(header);
    // Our own block, with the transactions it was made of: its transaction root is the one we computed.
    const made = this.prepared;
    const ours = made !== null && equalBytes(made.checksum, checksum) && made.result.applied.length === txs.length && made.result.applied.every((k, i) => k === txs[i]);
    this.checkHeader(block, txs, ours);
    const staking = source === 'genesis' ? null : this.checkBody(block, txs);
    if (source === 'genesis') {
      if (block.num !== 1n || block.signatures.length > 0) throw new BlockError(BlockErrorCode.BadHeader, 'only an unsigned block 1 is imported as the genesis');
    } else {
      block = { ...block, signatures: await this.acceptance.verifySignatures(block, checksum, 'full') };
    }
    const parent = this.tipInfo;
    // A block produced or checked on this parent: its transition's writes are replayed, not recomputed.
    const prepared = this.prepared;
    this.prepared = null;
    const reuse = prepared !== null && equalBytes(prepared.checksum, checksum) && sameBytes(prepared.parent, parent?.checksum ?? null);
    if (!reuse) {
      await this.checkTransactionSignatures(txs);
      await this.extensions.prepareAll(txs.map((k) => k.tx), this.view());
    }
    this.committing = { num: block.num, txs };
    try {
      await this.commitBlock(block, checksum, txs, staking, parent, reuse ? prepared : null);
    } finally {
      this.committing = null;
    }
    this.tipInfo = { block, checksum, receivedAtMs: Math.min(producedAtMs ?? Infinity, this.clock.now()) };
    this.events.emit('blockImported', { block, checksum, txs, source });
    if (txs.length > 0) this.events.emit('txApplied', { height: block.num, txs });
    return { block, checksum, txs };
  }

  /** The write transaction of `importNow`: the block's transition (or its prepared writes), totals, records and undo. */
  private commitBlock(
    block: Block, checksum: Uint8Array, txs: readonly KnownTx[], staking: KnownTx | null, parent: TipInfo | null,
    prepared: { result: TransitionResult; writes: RecordedWrite[] } | null,
  ): Promise<void> {
    return this.store.write(() => {
      if (this.tipInfo !== parent) throw new BlockError(BlockErrorCode.ParentMismatch, `the tip moved while block ${block.num} was checked`);
      const firstSeq = this.appliedCount() + 1;
      const { undo } = this.store.journaled(() => {
        let result: TransitionResult;
        if (prepared) {
          this.store.replay(prepared.writes);
          result = prepared.result;
        } else {
          const proposer = block.signatures[0]?.signer ?? new Uint8Array(0);
          result = this.transition(block.num, block.timestamp, proposer, txs, 'import', staking);
        }
        this.compareComputed(block, result);
        this.commitTotals(block, checksum, firstSeq + txs.length - 1, result);
      });
      // Fresh keys only (the block, its transactions, their applied sequence): not journaled, a
      // revert removes them by the block's own list (`revertTip`).
      this.commitRecords(block, txs, firstSeq);
      // What this block changed, to take it back if a competing chain wins (§5.7); older blocks are final.
      this.undoDb.put(u64Key(block.num), undo);
      if (block.num > BigInt(MAX_REVERT_DEPTH)) this.undoDb.remove(u64Key(block.num - BigInt(MAX_REVERT_DEPTH)));
    });
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
        // The records `commitRecords` added, which the journal leaves out: read the applied
        // sequence before the undo restores the parent's.
        const seq = this.appliedCount();
        const txDb = this.store.db('transactions');
        const appliedIdx = this.store.db('applied');
        for (const k of txs) txDb.remove(bytesKey(k.id));
        for (let i = 0; i < txs.length; i++) appliedIdx.remove(u64Key(seq - i));
        this.store.db('blocks').remove(u64Key(num));
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
   * Checks the next block as `importBlock` does, except that its signatures are checked one by one
   * (a candidate still gathering signatures, reference-network §5.3), and commits nothing. The
   * transition's writes are kept: importing the same block on the same parent replays them.
   * @returns the block with the signatures that count, and its checksum.
   * @throws BlockError with the code of the first rule it breaks.
   */
  checkBlock(input: Block | Uint8Array, txs: readonly KnownTx[]): Promise<{ block: Block; checksum: Uint8Array }> {
    const run = this.writing.then(async () => {
      const { block: decoded, header } = this.decodeInput(input);
      this.checkHeader(decoded, txs);
      const checksum = blockChecksum(header);
      const staking = this.checkBody(decoded, txs);
      const block = { ...decoded, signatures: await this.acceptance.verifySignatures(decoded, checksum, 'each') };
      await this.checkTransactionSignatures(txs);
      await this.extensions.prepareAll(txs.map((k) => k.tx), this.view());
      const parent = this.tipInfo;
      const { result, writes } = await this.store.dryRunRecorded(() => {
        const proposer = block.signatures[0]?.signer ?? new Uint8Array(0);
        const r = this.transition(block.num, block.timestamp, proposer, txs, 'import', staking);
        this.compareComputed(block, r);
        return r;
      });
      if (this.tipInfo !== parent) throw new BlockError(BlockErrorCode.ParentMismatch, `the tip moved while block ${block.num} was checked`);
      this.prepared = writes ? { parent: parent?.checksum ?? null, checksum, result, writes } : null;
      return { block, checksum };
    });
    this.writing = run.catch(() => undefined);
    return run;
  }

  /**
   * Adds signatures to a stored block (row 12, not covered by the block checksum): the ones the
   * acceptance rule counts, one per signer (a signer already present is not added again). The row
   * of a block 5 or more below the tip is final (block num + 5 carries its freeze checksum, §5.5;
   * the staking reward of block num + rewardMaturity reads it): nothing is added to it.
   * @returns the signatures that were new.
   */
  addBlockSignatures(num: bigint, sigs: readonly BlockSignature[]): Promise<BlockSignature[]> {
    const run = this.writing.then(async () => {
      const found = this.getBlock(num);
      if (!found) throw new BlockError(BlockErrorCode.NotFound, `block ${num} is not in this chain`);
      if (num + 5n <= this.height) return [];
      const fresh = sigs.filter((s) => !found.block.signatures.some((t) => equalBytes(t.signer, s.signer)));
      if (fresh.length === 0) return [];
      const valid = await this.acceptance.verifySignatures({ ...found.block, signatures: fresh }, found.checksum, 'each');
      if (valid.length === 0) return [];
      await this.writeSignatures(num, [...found.block.signatures, ...valid]);
      this.events.emit('blockSignaturesAdded', { num, added: valid });
      return valid;
    });
    this.writing = run.catch(() => undefined);
    return run;
  }

  /**
   * Replaces the signature row of a stored block (consensus: its frozen list, or the proposer's
   * frozen set that overrides ours, reference-network §5.5). The caller verified them.
   */
  setBlockSignatures(num: bigint, sigs: readonly BlockSignature[]): Promise<void> {
    const run = this.writing.then(async () => {
      if (!this.getBlock(num)) throw new BlockError(BlockErrorCode.NotFound, `block ${num} is not in this chain`);
      await this.writeSignatures(num, sigs);
    });
    this.writing = run.catch(() => undefined);
    return run;
  }

  private async writeSignatures(num: bigint, sigs: readonly BlockSignature[]): Promise<void> {
    const found = this.getBlock(num)!;
    const block: Block = { ...found.block, signatures: [...sigs] };
    await this.store.write(() => this.store.db('blocks').put(u64Key(num), Buffer.from(encodeBlock(block).bytes)));
    if (this.tipInfo?.block.num === num) this.tipInfo = { ...this.tipInfo, block };
  }

  /**
   * Checks only the signatures of a block (wire bytes) against the acceptance rule, without its
   * parent: is a competing block signed as a block must be (§5.7)?
   * @throws BlockError as `importBlock` would for its signatures (or BLOCK_MALFORMED).
   */
  async verifyBlockSigners(bytes: Uint8Array): Promise<{ block: Block; checksum: Uint8Array }> {
    const decoded = decodeWire(bytes, this.superBlockPeriod);
    const checksum = blockChecksum(bytes.subarray(0, decoded.headerLength));
    const signatures = await this.acceptance.verifySignatures(decoded.block, checksum, 'full');
    return { block: { ...decoded.block, signatures }, checksum };
  }

  private decodeInput(input: Block | Uint8Array): { block: Block; header: Uint8Array } {
    if (input instanceof Uint8Array) {
      const decoded = decodeWire(input, this.superBlockPeriod);
      return { block: decoded.block, header: input.subarray(0, decoded.headerLength) };
    }
    return { block: input, header: encodeBlockHeader(input) };
  }

  /** Header rules that need no signature check and no state transition (reference-network §5.3). */
  /** @param rootKnown the block's transaction root was computed here from these transactions (a block this node produced). */
  private checkHeader(block: Block, txs: readonly KnownTx[], rootKnown = false): void {
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
    const difficulty = this.extensions.miningDifficulty(this.view());
    if (difficulty !== null && block.difficulty !== difficulty) {
      throw new BlockError(BlockErrorCode.BadHeader, `block ${block.num}'s mining difficulty ${block.difficulty} is not this chain's ${difficulty}`, { num: block.num });
    }
    if (txs.length !== block.txIds.length || txs.some((k, i) => !equalBytes(k.id, block.txIds[i]!))) {
      throw new BlockError(BlockErrorCode.TxMismatch, `the ${txs.length} transactions given are not the ${block.txIds.length} the block lists`);
    }
    if (!rootKnown && !sameBytes(block.pitRoot, txIdRoot(block.txIds))) throw new BlockError(BlockErrorCode.TxMismatch, `block ${block.num}'s transaction root does not match its txids`);
    if (!sameBytes(block.signatureFreezeChecksum, this.signatureFreezeChecksum(block.num))) {
      throw new BlockError(BlockErrorCode.SignatureFreezeMismatch, `block ${block.num}'s signature-freeze checksum is not that of block ${block.num - 5n}'s signatures`, { num: block.num });
    }
    if (isSuperBlock(block.num, this.superBlockPeriod)) {
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
      const bits = this.bodyRule?.superBlockSignerBits(block.num, block.version, block.timestamp);
      if (bits !== undefined && block.signerBits !== bits) {
        throw new BlockError(BlockErrorCode.BadHeader, `superblock ${block.num} sets signer bits ${block.signerBits ?? 0n}, not the ${bits} this chain's signatures give (reference-network §5.8)`, { num: block.num });
      }
    }
  }

  /**
   * The body rules of a genesis network (reference-network §5.1, §5.8): the block's first
   * transaction is the staking reward this chain computes for it (same binary id and rewarded
   * block), no other staking transaction, and a superblock carries nothing else. The embedded
   * network has no staking: a type-2 transaction fails in the transition.
   * @returns the staking reward the block carries, or null.
   * @throws BlockError BLOCK_BAD_STAKING_REWARD (context `problem`: missing, extra, differs) or BLOCK_SUPERBLOCK_TRANSACTIONS.
   */
  private checkBody(block: Block, txs: readonly KnownTx[]): KnownTx | null {
    const rule = this.bodyRule;
    if (!rule) return null;
    const expected = rule.stakingReward(block.num, block.timestamp);
    const carried = txs.filter((k) => k.tx.type === TransactionType.StakingReward);
    const fail = (problem: 'missing' | 'extra' | 'differs', message: string): never => {
      throw new BlockError(BlockErrorCode.StakingReward, `block ${block.num} ${message}`, { num: block.num, problem });
    };
    if (!expected) {
      if (carried.length > 0) fail('extra', `carries a staking reward (${carried[0]!.textId}) but none is due`);
    } else {
      const first = txs[0];
      if (!first || first.tx.type !== TransactionType.StakingReward) fail('missing', `does not carry its staking reward ${expected.textId} first`);
      if (carried.length > 1) fail('extra', `carries ${carried.length} staking rewards; one is due`);
      if (!equalBytes(first!.id, expected.id) || !sameBytes(first!.tx.outputs[0]?.data, expected.tx.outputs[0]?.data)) {
        fail('differs', `carries staking reward ${first!.textId}, not ${expected.textId}, the one this chain's signature rows give`);
      }
    }
    if (isSuperBlock(block.num, this.superBlockPeriod) && txs.length > carried.length) {
      throw new BlockError(BlockErrorCode.SuperBlockTransactions, `superblock ${block.num} carries ${txs.length - carried.length} ordinary transactions; a superblock carries only its staking reward (reference-network §5.8)`, { num: block.num });
    }
    return expected ? txs[0]! : null;
  }

  /** The transactions a produced block applies: its staking reward first, then the candidates (none on a superblock). */
  private bodyOf(num: bigint, template: BlockTemplate): { txs: readonly KnownTx[]; staking: KnownTx | null } {
    const rule = this.bodyRule;
    if (!rule) return { txs: template.candidates, staking: null };
    const staking = rule.stakingReward(num, template.timestamp);
    const candidates = isSuperBlock(num, this.superBlockPeriod) ? [] : template.candidates.filter((k) => k.tx.type !== TransactionType.StakingReward);
    return { txs: staking ? [staking, ...candidates] : candidates, staking };
  }

  /**
   * Signatures of the block's transactions that no one verified yet (not from our mempool); keys
   * resolve against the committed state and the keys earlier transactions of the block introduce.
   */
  private async checkTransactionSignatures(txs: readonly KnownTx[]): Promise<void> {
    const introduced = new Map<string, Uint8Array>();
    const walletOf = (a: Uint8Array): WalletState => {
      const w = this.wallet(a);
      return w.publicKey ? w : { ...w, publicKey: introduced.get(latin1Key(a)) ?? null };
    };
    const checked: KnownTx[] = [];
    const items: SignatureItem[] = [];
    // Checks the mempool is making now (the block came while their admission verifies them).
    const pending: (Promise<boolean> | undefined)[] = [];
    for (const k of txs) {
      // Genesis (no key to check it with) and staking rewards carry no signature to verify (formats §8.8); unsigned transactions fail in the transition.
      if (!k.tx.signature || k.tx.type === TransactionType.Genesis || k.tx.type === TransactionType.StakingReward) continue;
      let signer;
      try {
        signer = resolveTxSigner(k.tx, walletOf, this.extensions);
      } catch (err) {
        const e = err as TxError;
        throw new BlockError(BlockErrorCode.InvalidTransaction, `transaction ${k.textId} fails: ${e.message}`, { txid: k.textId, code: e.code });
      }
      // A mining claim stores no key (src/chain/state-transition.ts): later transactions cannot lean on it.
      if (k.tx.type !== TransactionType.PoWSolution) introduced.set(latin1Key(signer.primary), signer.primaryKey);
      const verdict = this.signatureVerdict(k.id, k.tx.signature);
      if (verdict === true) continue;
      checked.push(k);
      items.push({ publicKey: signer.publicKey, data: k.checksum, signature: k.tx.signature });
      pending.push(verdict);
    }
    if (checked.length === 0) return;
    // Published while under way: an admission of the same transaction takes the verdict.
    const mine: [key: string, entry: { signature: Uint8Array; verdict: Promise<boolean> }][] = [];
    let ok: boolean[];
    try {
      ok = await verifyOnce(items, pending, this.verifyRsa, (i, verdict) => {
        const entry = { signature: items[i]!.signature, verdict };
        const key = latin1Key(checked[i]!.id);
        this.checking.set(key, entry);
        mine.push([key, entry]);
      });
    } finally {
      for (const [key, entry] of mine) if (this.checking.get(key) === entry) this.checking.delete(key);
    }
    const bad = ok.findIndex((v) => !v);
    if (bad >= 0) {
      const k = checked[bad]!;
      throw new BlockError(BlockErrorCode.InvalidTransaction, `transaction ${k.textId} fails: signature does not verify`, { txid: k.textId, code: 'TX_BAD_SIGNATURE' });
    }
  }

  private transition(num: bigint, timestamp: bigint, proposer: Uint8Array, txs: readonly KnownTx[], mode: 'produce' | 'import', staking: KnownTx | null = null): TransitionResult {
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
      stakingReward: staking,
      feesToProposer: this.bodyRule === null,
      superBlockPeriod: this.superBlockPeriod,
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

  /**
   * Writes the running totals after the block (inside the import's transaction, journaled: a revert
   * restores the parent's).
   */
  private commitTotals(block: Block, checksum: Uint8Array, appliedSeq: number, r: TransitionResult): void {
    const { meta } = this.store;
    meta.put(META.tip, Number(block.num));
    meta.put(META.tipChecksum, Buffer.from(checksum));
    if (block.num === 1n) meta.put(META.network, this.network);
    meta.put(META.appliedSeq, appliedSeq);
    meta.put(META.walletCount, r.walletCount);
    meta.put(META.supply, r.supply.toString());
    meta.put(META.wsChecksum, r.walletStateChecksum);
  }

  /**
   * Writes the block, its transactions and their applied sequence numbers from `firstSeq` (inside
   * the import's transaction). Every key is new (the transition refused a transaction already
   * applied), so nothing is journaled: `revertTip` removes them by the block's list.
   */
  private commitRecords(block: Block, txs: readonly KnownTx[], firstSeq: number): void {
    const { store } = this;
    let seq = firstSeq - 1;
    const txDb = store.db('transactions');
    const appliedDb = store.db('applied');
    // The record under its apply sequence (keys that only grow: B-tree appends), the txid pointing
    // to it (8 bytes at a random key): records at random keys cost LMDB ~2× as much per
    // transaction, and more as the store grows (`npm run bench -- store`).
    for (const k of txs) {
      k.tx.applied = block.num;
      const at = u64Key(++seq);
      appliedDb.put(at, encodeStoredTx(k));
      txDb.put(bytesKey(k.id), at);
    }
    store.db('blocks').put(u64Key(block.num), Buffer.from(encodeBlock(block).bytes));
  }

  /** The unsigned block of a produce-mode transition. */
  private assemble(num: bigint, t: BlockTemplate & { difficulty: bigint }, r: TransitionResult): Block {
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
    const superBlock = isSuperBlock(num, this.superBlockPeriod);
    if (num === 1n) block.signerBits = t.signerBits;
    if (superBlock) {
      block.signerBits = this.bodyRule?.superBlockSignerBits(num, block.version, t.timestamp) ?? t.signerBits;
      block.superBlock = this.superBlockData(num);
    }
    return block;
  }

  /** Header row 4 (reference-formats §10.3): the acceptance rule's freeze checksum of block num − 5. */
  private signatureFreezeChecksum(num: bigint): Uint8Array | null {
    return this.acceptance.freezeChecksum(num);
  }

  /**
   * Rows of a superblock: the previous superblock and the checksums of the blocks since, ascending.
   * The first superblock points at block 1 and lists the blocks from 1 on (DLT
   * `generateSuperBlockSegments`: the walk back finds no superblock and takes the genesis block).
   */
  private superBlockData(num: bigint): NonNullable<Block['superBlock']> {
    const first = num === this.superBlockPeriod;
    const last = first ? 1n : num - this.superBlockPeriod;
    const segments: Uint8Array[] = [];
    for (let n = first ? 1n : last + 1n; n < num; n++) segments.push(this.getBlock(n)?.checksum ?? new Uint8Array(0));
    return { lastSuperBlockNum: last, lastSuperBlockChecksum: this.getBlock(last)?.checksum ?? null, segments };
  }
}

/** The wire decoder's codec error as the chain's BLOCK_MALFORMED, with its byte offset. */
function decodeWire(bytes: Uint8Array, period: bigint): ReturnType<typeof decodeBlockWire> {
  try {
    return decodeBlockWire(bytes, period);
  } catch (err) {
    const e = err as BlockCodecError;
    throw new BlockError(BlockErrorCode.Malformed, e.message, { offset: e.offset, field: e.field });
  }
}

const sameBytes = (a: Uint8Array | null | undefined, b: Uint8Array | null | undefined): boolean =>
  a == null || a.length === 0 ? b == null || b.length === 0 : b != null && equalBytes(a, b);
