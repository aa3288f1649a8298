/**
 * The chain as a light node holds it (reference-network §1: relays and clients follow headers
 * only, "TIV"): block headers (rows 1–11, the bytes the block checksum covers) in order, in the
 * `headers` sub-database, no transactions and no wallet state.
 *
 * A header is taken when it links to the tip (number tip + 1, `lastBlockChecksum` = the tip's
 * checksum), decodes, has a version this node reads, and a timestamp neither before its parent's
 * nor too far ahead of our clock. When the block's txids come with it (a block holding a
 * transaction of ours), their count and root must be the header's (rows 5–6): that is what lets a
 * light node trust that a transaction is in a block without holding the block.
 *
 * What a light node cannot check without the state (the signers' keys and difficulties, the wallet
 * state checksum) it takes from the masters it links to, as the reference's light clients do.
 */
import { BlockError, BlockErrorCode } from './errors.js';
import { blockChecksum, decodeBlockHeader, txIdRoot, type Block } from './block.js';
import { MIN_IMPORT_BLOCK_VERSION } from './constants.js';
import { equalBytes } from '../formats/bytes.js';
import type { Clock } from '../clock.js';
import type { Emitter } from '../events.js';
import type { Store } from '../state/store.js';
import { u64Key } from '../state/keys.js';

/** How far ahead of our clock a header's timestamp may be (reference: blocks up to 120 s ahead are kept for later). */
const MAX_FUTURE_SECONDS = 120n;
/** Meta key of the header tip height. */
const TIP_KEY = 'headerTip';
/** Decoded headers kept (the tip and the few below it are read on every status and hello). */
const CACHE_SIZE = 16;

/** What the header chain tells the node (the RPC `/events` `blocks` topic carries it). */
export interface HeaderChainEvents {
  headerImported: { header: StoredHeader };
}

export interface StoredHeader {
  num: bigint;
  /** Header bytes, rows 1–11. */
  bytes: Uint8Array;
  checksum: Uint8Array;
  block: Block;
  /** Transactions row 5 announces (the block's txids are not held). */
  txCount: number;
}

export class HeaderChain {
  private tipHeader: StoredHeader;
  private readonly cache = new Map<bigint, StoredHeader>();

  /**
   * @param genesisHeader block 1's header (every node has block 1 from its genesis): the first one held.
   */
  constructor(
    private readonly o: { store: Store; genesisHeader: Uint8Array; superBlockPeriod: bigint; clock: Clock; events?: Emitter<HeaderChainEvents> },
  ) {
    const db = o.store.db('headers');
    const first = o.genesisHeader;
    const stored = db.get(u64Key(1n));
    if (stored && !equalBytes(stored, first)) throw new Error('the stored headers belong to another genesis; start with another --data-dir');
    if (!stored) {
      db.putSync(u64Key(1n), Buffer.from(first));
      o.store.meta.putSync(TIP_KEY, '1');
    }
    const tip = BigInt((o.store.meta.get(TIP_KEY) as string | undefined) ?? '1');
    this.tipHeader = this.get(tip) ?? this.get(1n)!;
  }

  get height(): bigint {
    return this.tipHeader.num;
  }

  get tip(): StoredHeader {
    return this.tipHeader;
  }

  /** The header at `num`, or null above the tip. */
  get(num: bigint): StoredHeader | null {
    const cached = this.cache.get(num);
    if (cached) return cached;
    if (num < 1n || (this.tipHeader && num > this.tipHeader.num)) return null;
    const bytes = this.o.store.db('headers').get(u64Key(num));
    if (!bytes) return null;
    const { block, txCount } = decodeBlockHeader(bytes, this.o.superBlockPeriod);
    const h: StoredHeader = { num, bytes, checksum: blockChecksum(bytes), block, txCount };
    this.remember(h);
    return h;
  }

  /**
   * Appends the next header.
   * @param txIds every txid of the block, when given (checked against rows 5–6).
   * @throws BlockError with the import path's codes: Malformed, BadVersion, AlreadyKnown,
   *   ParentUnknown, ParentMismatch, BadTimestamp, TxMismatch.
   */
  async append(bytes: Uint8Array, txIds?: readonly Uint8Array[]): Promise<StoredHeader> {
    let decoded: { block: Block; txCount: number };
    try {
      decoded = decodeBlockHeader(bytes, this.o.superBlockPeriod);
    } catch (err) {
      throw new BlockError(BlockErrorCode.Malformed, (err as Error).message);
    }
    const { block, txCount } = decoded;
    const tip = this.tipHeader;
    const num = block.num;
    if (block.version < MIN_IMPORT_BLOCK_VERSION) throw new BlockError(BlockErrorCode.BadVersion, `block version ${block.version} is below ${MIN_IMPORT_BLOCK_VERSION}`, { num });
    if (num <= tip.num) throw new BlockError(BlockErrorCode.AlreadyKnown, `header ${num} is held already (tip ${tip.num})`, { num });
    if (num > tip.num + 1n) throw new BlockError(BlockErrorCode.ParentUnknown, `header ${num} is above the tip ${tip.num} + 1`, { num });
    if (!block.lastBlockChecksum || !equalBytes(block.lastBlockChecksum, tip.checksum)) {
      throw new BlockError(BlockErrorCode.ParentMismatch, `header ${num} does not follow our header ${tip.num}`, { num });
    }
    if (block.timestamp < tip.block.timestamp) throw new BlockError(BlockErrorCode.BadTimestamp, `header ${num} is older than its parent`, { num });
    if (block.timestamp > BigInt(Math.floor(this.o.clock.now() / 1000)) + MAX_FUTURE_SECONDS) {
      throw new BlockError(BlockErrorCode.BadTimestamp, `header ${num} is more than ${MAX_FUTURE_SECONDS} s ahead of our clock`, { num });
    }
    if (txIds && (txIds.length !== txCount || !sameRoot(txIdRoot(txIds), block.pitRoot))) {
      throw new BlockError(BlockErrorCode.TxMismatch, `the txids given with header ${num} are not the block's (rows 5–6)`, { num });
    }
    const h: StoredHeader = { num, bytes: Buffer.from(bytes), checksum: blockChecksum(bytes), block, txCount };
    await this.o.store.write(() => {
      this.o.store.db('headers').put(u64Key(num), h.bytes as Buffer);
      this.o.store.meta.put(TIP_KEY, num.toString());
    });
    this.remember(h);
    this.tipHeader = h;
    this.o.events?.emit('headerImported', { header: h });
    return h;
  }

  /**
   * Takes back the tip whose checksum is `expected` (a longer chain won, reference-network §5.7).
   * @throws BlockError RevertUnavailable for block 1 or a tip that is not `expected`.
   */
  async revertTip(expected: Uint8Array): Promise<void> {
    const tip = this.tipHeader;
    if (tip.num <= 1n || !equalBytes(tip.checksum, expected)) throw new BlockError(BlockErrorCode.RevertUnavailable, `header ${tip.num} cannot be taken back`);
    const parent = this.get(tip.num - 1n)!;
    await this.o.store.write(() => {
      this.o.store.db('headers').remove(u64Key(tip.num));
      this.o.store.meta.put(TIP_KEY, parent.num.toString());
    });
    this.cache.delete(tip.num);
    this.tipHeader = parent;
  }

  private remember(h: StoredHeader): void {
    this.cache.set(h.num, h);
    if (this.cache.size > CACHE_SIZE) {
      // Keep the newest: forget the lowest height.
      let low: bigint | null = null;
      for (const k of this.cache.keys()) if (low === null || k < low) low = k;
      this.cache.delete(low!);
    }
  }
}

const sameRoot = (a: Uint8Array | null, b: Uint8Array | null): boolean => (a === null || b === null ? a === b || (a?.length ?? 0) + (b?.length ?? 0) === 0 : equalBytes(a, b));
