/**
 * Block sync and following (reference-network.md §6, §5.3, §10 keep 6): whenever the network
 * height (§6, from the peers' reported heights) is above our tip, ask one master link whose
 * height reaches the next block for a range (`getBlocks`, with transactions), import the blocks
 * strictly in order through the chain's import path, and ask again; unanswered requests go to
 * another peer after 10 s; a block the chain REJECTs bans its sender (invalidBlock). The same
 * loop closes the lag after sync: a block announcement raises the peer's height and the next tick
 * fetches tip + 1. A proposer's push of the next block (`blocks` holding tip + 1) is imported too.
 *
 * Status (§6): `Synchronizing` while behind by more than a block (a node left with no links keeps
 * the last network height its peers gave), `Active` when caught up,
 * `ErrorLongTimeNoBlock` after 1800 s without a new block.
 *
 * Masters serve `getBlocks` and `getBlock3` from the chain, never while synchronizing (§6).
 */
import { MAX_REVERT_DEPTH } from '../chain/constants.js';
import { BlockError } from '../chain/errors.js';
import type { Logger } from '../log/logger.js';
import { systemClock, type NetClock, type TimerHandle } from './clock.js';
import type { Link } from './link.js';
import { MASTER_TYPES, type PeerNetwork } from './peer-network.js';
import { SeenSet } from './seen.js';
import { equalBytes } from '../formats/bytes.js';
import { MessageCode } from './protocol/codes.js';
import { encodeBlocksFitting, MAX_BLOCKS_PER_RANGE, MAX_HEADERS_PER_RANGE, type Message, type NodeType, type RangeBlock } from './protocol/messages.js';

/** One block to import: block bytes (a header alone on a light node), transactions, and on a light node the block's txids when given. */
interface SyncItem {
  block: Uint8Array;
  transactions: Uint8Array[];
  txIds?: Uint8Array[];
}

/** The chain as sync needs it (the node adapts `chain`). */
export interface SyncChain {
  tip(): { height: bigint; checksum: Uint8Array; timestampSeconds: number };
  /** Our block bytes (chain/block.ts) at a height, or null. */
  blockBytes(height: bigint): Uint8Array | null;
  /** The v7 bytes of a block's transactions, in block order. */
  blockTransactions(height: bigint): Uint8Array[];
  /**
   * The one import path: verifies and appends the next block. On a light node `block` is a header
   * and `txIds`, when given, every txid of the block (`transactions` are those of interest).
   */
  importBlock(block: Uint8Array, transactions: Uint8Array[], source: string, txIds?: Uint8Array[]): Promise<ImportOutcome>;
  /** Takes back the tip whose checksum is `expected` (a competing chain won); false when it cannot. */
  revertTip(expected: Uint8Array): Promise<boolean>;
  /**
   * On a network whose blocks freeze the signatures of block n − 5 (reference-network §5.5): how
   * many blocks below the next one a range starts, so it carries the rows the next blocks refer
   * to; 0 elsewhere.
   */
  readonly rowOverlap?: number;
  /** Takes from a range the frozen rows of blocks we hold that later blocks of the range refer to. */
  refreshRows?(range: readonly { height: bigint; block: Uint8Array }[]): Promise<void>;
}

/**
 * `SyncChain.revertTip` over a chain's (or a header chain's) `revertTip`: a refusal (a BlockError,
 * e.g. the tip moved or is too deep) is logged and answers false; anything else is thrown.
 */
export async function revertTipOrRefuse(revert: () => Promise<unknown>, log: Logger): Promise<boolean> {
  try {
    await revert();
    return true;
  } catch (err) {
    if (!(err instanceof BlockError)) throw err;
    log.warn({ code: err.code }, err.message);
    return false;
  }
}

/**
 * `fork`: the next block of a chain that left ours at the tip. Properly signed, the longer chain
 * wins (reference-network §5.7, §6 "a potential fork near the tip → revert the tip"); with
 * `signed: false` its signatures do not verify on our chain (a signer's proof names a block we
 * hold otherwise), so the chains parted deeper than this node can check: it is not followed.
 */
export type ImportOutcome =
  | { ok: true }
  | { ok: false; action: 'ignore' | 'reject'; reason: string }
  | { ok: false; action: 'fork'; reason: string; signed?: false }
  /** The sender's copy of block `height` is needed first (its frozen signatures, §5.5). */
  | { ok: false; action: 'refetch'; reason: string; height: bigint };

export type DltStatus = 'Active' | 'Synchronizing' | 'ErrorLongTimeNoBlock';

/** A fork this node cannot leave by itself (more than MAX_REVERT_DEPTH blocks deep, or not checkable here). */
export interface DeepFork {
  /** Our tip when it was found: the peer's next block does not follow it. */
  height: bigint;
  peer: string;
  peerHeight: bigint;
  /** Tips taken back since the last block imported from a peer. */
  reverted: number;
  reason: string;
}

/** Blocks asked per request: enough to amortise a round trip, small enough to spread over peers. */
export const SYNC_BATCH_BLOCKS = 100;
/** Headers asked per request by a light node (a header is ~200 bytes). */
export const SYNC_BATCH_HEADERS = 1000;
/** An unanswered range request is asked of another peer after this long (reference: 10 s). */
export const SYNC_REQUEST_TIMEOUT_MS = 10_000;
/** A node that was in step synchronizes again once this far behind (seconds of blocks). */
const RESYNC_LAG_SECONDS = 5;
/** How often the sync loop looks at the network height. */
export const SYNC_TICK_MS = 1_000;
/** No block for this long → ErrorLongTimeNoBlock (§5.7, §6). */
export const LONG_TIME_NO_BLOCK_MS = 1_800_000;
/** A server waits while a link has this much unsent before adding another range answer. */
const SERVE_PENDING_BYTES = 8 * 1024 * 1024;
/** Block checksums remembered as announced: ample for the blocks of 10 minutes, and their forks. */
const ANNOUNCED_BLOCKS_CAPACITY = 4_096;
const ANNOUNCED_BLOCKS_TTL_MS = 600_000;

interface Outstanding {
  link: Link;
  from: bigint;
  count: number;
  at: number;
}

export interface SyncProgress {
  status: DltStatus;
  height: bigint;
  networkHeight: bigint;
  /** Blocks imported per second over the last progress window. */
  blocksPerSecond: number;
}

export class BlockSync {
  /** Block announcements of a block held or already announced, since start (the gossip dedup-hit metric). */
  dedupHits = 0;
  /** Checksums of the blocks peers announced (recent ones: dedup of announcements only). */
  private readonly announced: SeenSet;
  private readonly clock: NetClock;
  private timer: TimerHandle | null = null;
  private outstanding: Outstanding | null = null;
  private importing = false;
  /** When the tip counts as appended here (§6: an import's time; after a revert, the new tip's timestamp). */
  private lastImportAt: number;
  /** Behind the network by more than one block (false until a peer reports a higher height). */
  private syncing = false;
  private windowStart: { at: number; height: bigint };
  private rate = 0;
  private rr = 0;
  /** Reached the network height once since start (later lags up to `resyncLag` are followed, not synchronized). */
  private caughtUp = false;
  /**
   * Reached the height its linked peers gave, once since start: the reference's block processor
   * `operating` (set when the start-up sync is done, never cleared), which is what a master's
   * server asks before taking a link (DLT `isAcceptingConnections`, §1). A node alone has no
   * network sync to finish and stays not operating until a peer reported a height.
   */
  private operating = false;
  /** Blocks behind that count as falling out of step again: ~5 s of blocks, at least 1. */
  private get resyncLag(): bigint {
    return BigInt(Math.max(1, Math.ceil(RESYNC_LAG_SECONDS / (this.o.secondsPerBlock ?? 30))));
  }
  /** Tips reverted since the last block imported: a fork deeper than MAX_REVERT_DEPTH is not followed. */
  private reverts = 0;
  /**
   * The network height while a peer last reported one. A node whose last link closed keeps it
   * (the reference's `highestNetworkBlockNum` changes only when peers report), so one that was
   * synchronizing stays Synchronizing and reports that `Network Block Height` (§6, §9), not its tip.
   */
  private lastKnownNetworkHeight = 0n;
  /** The fork reported (once, until a block from a peer is imported again); null when none. */
  private fork: DeepFork | null = null;
  /**
   * No range is asked before this time: a fork not followed is asked about again after a request
   * timeout, not at once (the same range back and forth, as fast as the peer answers).
   */
  private pauseUntil = 0;
  /** Set by `stop`: no range is asked and no block imported any more. */
  private stopped = false;
  /** Imports and answers under way (`stop` waits for them). */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** When a peer's next block first failed to verify on our chain since the last block imported (`forkFound`). */
  private unsignedForkSince: number | null = null;

  constructor(
    private readonly o: {
      network: PeerNetwork;
      chain: SyncChain;
      clock?: NetClock;
      /** Whether this node serves blocks (masters; §6: not while syncing). */
      serve: boolean;
      /** Progress reports while synchronizing (about every 5 s) and when the status changes. */
      onProgress?: (p: SyncProgress) => void;
      batchBlocks?: number;
      requestTimeoutMs?: number;
      /** Peer types asked for blocks (default masters; a client may also ask its relays). */
      sources?: readonly NodeType[];
      /** Seconds between blocks of this network: scales the elapsed-time cap of the network height (§6). */
      secondsPerBlock?: number;
      /**
       * A light node (relay, client) follows headers only (reference-network §1): it asks header
       * ranges (`getBlockHeaders4`, id 0) filtered by these addresses instead of blocks.
       */
      headers?: { addresses: () => Uint8Array[] };
      /** Where a fork this node cannot leave by itself is reported (error, once). */
      log?: Logger;
    },
  ) {
    this.clock = o.clock ?? systemClock;
    this.announced = new SeenSet({ capacity: ANNOUNCED_BLOCKS_CAPACITY, ttlMs: ANNOUNCED_BLOCKS_TTL_MS, clock: this.clock });
    // A light node's stored tip counts as appended at its timestamp (§6; chain.ts does so for a
    // master's, whose status comes from consensus). A master's sync counts from its start.
    this.lastImportAt = o.headers ? o.chain.tip().timestampSeconds * 1000 : this.clock.now();
    this.windowStart = { at: this.clock.now(), height: o.chain.tip().height };
  }

  start(): void {
    if (this.timer) return;
    this.stopped = false;
    const tick = () => {
      this.timer = this.clock.setTimer(SYNC_TICK_MS, () => {
        this.tick();
        tick();
      });
    };
    tick();
    this.tick();
  }

  /**
   * Stops asking and importing; resolves once an import under way has ended, so the node closes
   * its store after it (an import left running read a closed LMDB store and crashed the process).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    await Promise.allSettled([...this.inFlight]);
  }

  /** Keeps `p` (an import or an answer under way) for `stop` to wait for. */
  private track<T>(p: Promise<T>): Promise<T> {
    this.inFlight.add(p);
    void p.then(
      () => this.inFlight.delete(p),
      () => this.inFlight.delete(p),
    );
    return p;
  }

  /**
   * A fork deeper than this node can revert (MAX_REVERT_DEPTH, reference-network §5.7) or check,
   * found while following a peer; null once a peer's block is imported again.
   */
  get deepFork(): DeepFork | null {
    return this.fork;
  }

  /** True while the node is behind the network (a syncing master serves no blocks). */
  get synchronizing(): boolean {
    return this.syncing;
  }

  /**
   * Whether a master takes new links (notReady otherwise, §1, §2.3 step 6): the reference refuses
   * only until its start-up sync is done (`operating`). A master that falls behind later keeps
   * taking links, so masters left behind a height whose holders are gone can link to each other
   * and learn the network height from each other (DLT `isAcceptingConnections`).
   */
  get acceptsLinks(): boolean {
    return !this.syncing || this.operating;
  }

  /**
   * §6 network height, never below our tip. With `withPeer` (the height a master's helloData gave),
   * over the linked peers and that one, not the height kept from peers gone: CORE
   * `determineHighestNetworkBlockNum` runs over the links, the new one included, before the
   * tooFarBehind test (§2.3).
   */
  networkHeight(withPeer?: bigint): bigint {
    const tip = this.o.chain.tip();
    // A light node counts only the peers it follows: its clients report the heights they took
    // from it, and with two of them the middle third of the heights would be theirs, so a relay
    // would wait for its own clients and stop (the reference's light nodes follow masters).
    const types = this.o.headers ? (this.o.sources ?? MASTER_TYPES) : undefined;
    if (withPeer !== undefined) return this.o.network.networkHeight(tip.height, tip.timestampSeconds, this.o.secondsPerBlock, types, withPeer);
    if (this.o.network.links(types).length === 0) return this.lastKnownNetworkHeight > tip.height ? this.lastKnownNetworkHeight : tip.height;
    this.lastKnownNetworkHeight = this.o.network.networkHeight(tip.height, tip.timestampSeconds, this.o.secondsPerBlock, types);
    return this.lastKnownNetworkHeight;
  }

  /**
   * A block announcement of a block held (a height below the tip, or the tip itself) or already
   * announced by a peer: nothing to fetch (a gossip dedup hit). Marks the checksum announced.
   */
  private isKnownBlock(height: bigint, checksum: Uint8Array): boolean {
    const tip = this.o.chain.tip();
    const held = height < tip.height || (height === tip.height && equalBytes(checksum, tip.checksum));
    return !this.announced.add(checksum) || held;
  }

  /** Seconds since the tip counted as appended here (a light node's `Block generated seconds ago`, §9). */
  secondsSinceBlock(): number {
    return Math.max(0, Math.floor((this.clock.now() - this.lastImportAt) / 1000));
  }

  /** `DLT Status` of §6. */
  status(): DltStatus {
    if (this.clock.now() - this.lastImportAt > LONG_TIME_NO_BLOCK_MS) return 'ErrorLongTimeNoBlock';
    return this.syncing ? 'Synchronizing' : 'Active';
  }

  progress(): SyncProgress {
    return { status: this.status(), height: this.o.chain.tip().height, networkHeight: this.networkHeight(), blocksPerSecond: this.rate };
  }

  /** Handles block-range and block-announcement messages; false for others. */
  handle(link: Link, m: Message): boolean | Promise<boolean> {
    switch (m.code) {
      case MessageCode.inventory2:
        for (const it of m.items) {
          if (it.type !== 1) continue;
          if (it.height > link.peerHeight) link.peerHeight = it.height;
          if (this.isKnownBlock(it.height, it.checksum)) this.dedupHits++;
        }
        if (this.networkHeight() > this.o.chain.tip().height) this.tick();
        return false; // other items are the caller's
      case MessageCode.blockHeaders4:
        if (!this.o.headers || m.requestId !== 0) return false;
        return this.track(this.received(link, m.from, m.tip, m.headers.map((h) => ({ block: h.header, transactions: h.transactions, txIds: h.txIds.length > 0 || h.transactions.length > 0 ? h.txIds : undefined })))).then(() => true);
      case MessageCode.getBlocks:
        return this.serveRange(link, m.from, m.count, m.txMode !== 0).then(() => true);
      case MessageCode.getBlock3:
        return this.serveRange(link, m.height, 1, m.txMode !== 0).then(() => true);
      case MessageCode.blocks:
        // A light node takes headers only; a full block pushed to it is not for it.
        if (this.o.headers) return true;
        return this.track(this.received(link, m.from, m.tip, m.blocks)).then(() => true);
      default:
        return false;
    }
  }

  /** Looks at the network height and asks for the next range if needed. */
  tick(): void {
    if (this.stopped) return;
    const tip = this.o.chain.tip().height;
    const target = this.networkHeight();
    const behind = target > tip;
    const wasSyncing = this.syncing;
    // §6: a node synchronizes when it starts (or comes back) behind, until tip + 1 reaches the
    // network height; a lag closed by the normal path (an announcement, then tip + 1) is no sync.
    // Behind by more than ~5 s of blocks (one block at 30 s) it synchronizes again.
    if (this.syncing) this.syncing = target > tip + 1n;
    else this.syncing = target > tip + (this.caughtUp ? this.resyncLag : 1n);
    if (!this.syncing && target <= tip + 1n) this.caughtUp = true;
    if (!this.syncing && this.o.network.links(this.o.sources ?? MASTER_TYPES).length > 0) this.operating = true;
    this.measure();
    if (wasSyncing !== this.syncing) this.o.onProgress?.(this.progress());
    if (!behind || this.importing) return;
    const now = this.clock.now();
    if (now < this.pauseUntil) return;
    if (this.outstanding) {
      if (this.outstanding.link.state === 'open' && now - this.outstanding.at < (this.o.requestTimeoutMs ?? SYNC_REQUEST_TIMEOUT_MS)) return;
      this.outstanding = null; // timed out or its link closed: ask someone else
    }
    const next = tip + 1n;
    const peers = this.o.network.links(this.o.sources ?? MASTER_TYPES).filter((l) => l.peerHeight >= next);
    if (peers.length === 0) return;
    const link = peers[this.rr++ % peers.length]!;
    const want = target - tip;
    // The last blocks we hold come again with their rows as the sender froze them (§5.5, §6:
    // "refresh the signatures of b − 5 from its fetched copy"), so the next blocks' sig-freeze
    // checksums find them without another round trip.
    const overlap = BigInt(Math.min(this.o.chain.rowOverlap ?? 0, Number(tip > 1n ? tip - 1n : 0n)));
    const from = next - overlap;
    const batch = BigInt(this.o.batchBlocks ?? (this.o.headers ? SYNC_BATCH_HEADERS : SYNC_BATCH_BLOCKS));
    const count = Number(overlap) + Number(want < batch ? want : batch);
    const sent = this.o.headers
      ? link.send({ code: MessageCode.getBlockHeaders4, requestId: 0, from, count: Math.min(count, MAX_HEADERS_PER_RANGE), addresses: this.o.headers.addresses() })
      : link.send({ code: MessageCode.getBlocks, from, count: Math.min(count, MAX_BLOCKS_PER_RANGE), txMode: 2 });
    if (sent) this.outstanding = { link, from, count, at: now };
  }

  private async received(link: Link, from: bigint, peerTip: bigint, blocks: SyncItem[]): Promise<void> {
    if (this.stopped) return;
    if (peerTip > link.peerHeight) link.peerHeight = peerTip;
    const o = this.outstanding;
    const tip = this.o.chain.tip().height;
    const requested = o !== null && o.link === link && o.from === from;
    const pushed = !requested && blocks.length === 1;
    if (!requested && !pushed) {
      if (from > tip + 1n) link.penalize('unrequestedData', `blocks from ${from}, tip ${tip}`);
      return;
    }
    // A proposer pushes each new block to every master. One ahead of a node that is behind is
    // expected (the next tick fetches what lies between); one at a height we hold may be the same
    // block with other signatures, which the chain merges.
    if (pushed && from !== tip + 1n) {
      if (from <= tip && !this.importing) await this.o.chain.importBlock(blocks[0]!.block, blocks[0]!.transactions, link.peer?.addressText ?? link.remote);
      return;
    }
    if (requested) this.outstanding = null;
    if (this.importing) return;
    this.importing = true;
    try {
      let h = from;
      if (from <= tip && this.o.chain.refreshRows) {
        await this.o.chain.refreshRows(blocks.map((b, i) => ({ height: from + BigInt(i), block: b.block })));
      }
      // Blocks we hold already (the overlap) are skipped.
      const skip = from <= tip ? Math.min(blocks.length, Number(tip - from + 1n)) : 0;
      h += BigInt(skip);
      for (const b of blocks.slice(skip)) {
        if (this.stopped) break; // the node is closing: its store goes next
        if (h !== this.o.chain.tip().height + 1n) break; // someone else advanced the chain meanwhile
        const r = await this.o.chain.importBlock(b.block, b.transactions, link.peer?.addressText ?? link.remote, b.txIds);
        if (!r.ok) {
          if (r.action === 'reject') link.penalize('invalidBlock', r.reason);
          // Their chain is longer than ours from a block we hold: take our tip back and fetch theirs.
          if (r.action === 'fork' && r.signed !== false && this.reverts < MAX_REVERT_DEPTH) {
            if (await this.o.chain.revertTip(this.o.chain.tip().checksum)) {
              this.reverts++;
              // §6 (DLT `revertLastBlock`), as a master's chain does: DLT Status runs from the new tip's timestamp.
              this.lastImportAt = this.o.chain.tip().timestampSeconds * 1000;
            }
          } else if (r.action === 'fork') this.forkFound(link, r);
          if (r.action === 'refetch') link.send({ code: MessageCode.getBlocks, from: r.height, count: 1, txMode: 0 });
          break;
        }
        this.reverts = 0;
        this.unsignedForkSince = null;
        if (this.fork) {
          this.o.log?.info({ height: Number(h) }, 'a block from a peer follows this chain again: the fork reported earlier is over');
          this.fork = null;
        }
        this.lastImportAt = this.clock.now();
        h++;
      }
    } finally {
      this.importing = false;
    }
    this.tick();
  }

  /**
   * A peer's next block does not follow our tip and we cannot go back to its chain: we took back as
   * many tips as a node may (MAX_REVERT_DEPTH, §5.7), or its signatures do not verify on our chain.
   * The reference reverts no deeper either (DLT `revertLastBlock`); such a node stays on its own
   * chain until its operator acts. Said once, at error, until a peer's block is imported again.
   * Signatures that do not verify may also lack a signer's presence for a moment (§5.2), so that
   * case counts once it lasted a request timeout. Either way the next range is asked a request
   * timeout later, not at once.
   */
  private forkFound(link: Link, r: { reason: string; signed?: false }): void {
    this.pauseUntil = this.clock.now() + (this.o.requestTimeoutMs ?? SYNC_REQUEST_TIMEOUT_MS);
    if (this.fork) return;
    if (r.signed === false && this.reverts < MAX_REVERT_DEPTH) {
      const now = this.clock.now();
      this.unsignedForkSince ??= now;
      if (now - this.unsignedForkSince < (this.o.requestTimeoutMs ?? SYNC_REQUEST_TIMEOUT_MS)) return;
    }
    const reason = r.reason;
    const height = this.o.chain.tip().height;
    const peerHeight = link.peerHeight;
    const peer = link.peer?.addressText ?? link.remote;
    this.fork = { height, peer, peerHeight, reverted: this.reverts, reason };
    this.o.log?.error(
      { height: Number(height), peer, host: link.remote, peerHeight: Number(peerHeight), reverted: this.reverts, maxRevert: MAX_REVERT_DEPTH, reason },
      `this chain has left the peer's: its block ${height + 1n} does not follow our block ${height} (the last common block is at most ${height - 1n}), ` +
        `and the fork is deeper than the ${MAX_REVERT_DEPTH} blocks a node takes back or can check (${this.reverts} taken back). ` +
        'This node does not follow that peer by itself. If the peer holds the network\'s chain, stop this node, move its chain directory ' +
        '(chain/ under the data directory) away and start it again to sync from its peers',
    );
  }

  private async serveRange(link: Link, from: bigint, count: number, withTxs: boolean): Promise<void> {
    if (!this.o.serve || this.syncing) return;
    const tip = this.o.chain.tip().height;
    const blocks: RangeBlock[] = [];
    for (let h = from; h < from + BigInt(count) && h <= tip; h++) {
      const block = this.o.chain.blockBytes(h);
      if (!block) break;
      blocks.push({ block, transactions: withTxs ? this.o.chain.blockTransactions(h) : [] });
    }
    let start = from;
    let rest = blocks;
    do {
      while (link.state === 'open' && link.pendingBytes > SERVE_PENDING_BYTES) await new Promise<void>((r) => this.clock.setTimer(10, r));
      const { frame, count: n } = encodeBlocksFitting(start, tip, rest);
      if (!link.sendFrame(frame)) return;
      if (n === 0) return; // a block too large for one frame: nothing more can be sent
      rest = rest.slice(n);
      start += BigInt(n);
    } while (rest.length > 0);
  }

  private measure(): void {
    const now = this.clock.now();
    if (now - this.windowStart.at < 5_000) return;
    const height = this.o.chain.tip().height;
    this.rate = Number(height - this.windowStart.height) / ((now - this.windowStart.at) / 1000);
    this.windowStart = { at: now, height };
    if (this.syncing) this.o.onProgress?.(this.progress());
  }
}
