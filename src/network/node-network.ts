/**
 * The node on the network (issue 9): the peer network of `peer-network.ts` (links, presence,
 * keep-alives) wired to this node's chain and mempool — transaction gossip, block gossip, block
 * sync and stream-message relaying — plus the peer listener on its own port.
 *
 * Semantics of reference-network.md, as its §10 says to keep them:
 * - gossip is announce-then-pull (inventory → getTransactions2 / getBlocks), with a seen-set;
 *   full push only for transactions created here (and a client's to its relay) and for blocks this
 *   node produced (§4.1, §10 keep 4); a transaction is validated by the mempool before it is
 *   announced, and a peer that sends an invalid one (REJECT) is scored and told `rejected`;
 * - role filters (§10 keep 2): transactions and blocks to masters; accepted blocks announced to
 *   relays and clients too; clients talk only to their relays and masters;
 * - sync (§6): the network height from the peers' reported heights; blocks fetched in ranges from
 *   one peer at a time and imported strictly in order through `chain.importBlock`; `DLT Status`
 *   is `Synchronizing` until the tip reaches the network height; a syncing master proposes nothing;
 * - relays forward stream messages (`s2data`) to the clients connected to them (§7.1).
 *
 * Simplified here, until the consensus issue: a block is accepted on its proposer's signature;
 * competing blocks for one height are not reverted (the first imported stays).
 */
import type { Chain, ChainEvents } from '../chain/chain.js';
import { decodeBlockWire } from '../chain/block.js';
import { BlockError, TxError, TxErrorCode } from '../chain/errors.js';
import { knownTxFromBytes, type KnownTx } from '../chain/tx-codec.js';
import type { Network } from '../codec/types.js';
import type { Emitter } from '../events.js';
import { toHex } from '../formats/bytes.js';
import type { Logger } from '../log/logger.js';
import type { Mempool, MempoolEvents } from '../mempool/mempool.js';
import { systemClock, type NetClock, type TimerHandle } from './clock.js';
import { PEER_WS_PATH, type DialTarget } from './dial.js';
import { MAX_SEND_QUEUE_BYTES, type Link } from './link.js';
import { MessageCode } from './protocol/codes.js';
import { MAX_FRAME_BYTES } from './protocol/codes.js';
import {
  encodeBlocksFitting,
  encodeTransactionBatches,
  MAX_BLOCKS_PER_RANGE,
  RejectedCode,
  type InventoryItem,
  type Message,
  type NodeType,
  type RangeBlock,
} from './protocol/messages.js';
import { MASTER_TYPES, PeerNetwork } from './peer-network.js';
import { idKey, SeenSet } from './seen.js';
import type { NetworkStatusMembers } from './status.js';

export type NodeRole = 'master' | 'relay' | 'client';
export const NODE_TYPE_OF_ROLE: Record<NodeRole, NodeType> = { master: 'M', relay: 'R', client: 'C' };

/** Blocks asked per range request while syncing (the reference keeps ~100 outstanding, §6). */
const SYNC_RANGE_BLOCKS = 100;
/** A range request unanswered this long is asked again, of another peer (§6: 10 s). */
const SYNC_REQUEST_TIMEOUT_MS = 10_000;
/** How often sync looks at the network height (and progress is logged at most every 5 s). */
const SYNC_TICK_MS = 250;
const SYNC_LOG_MS = 5_000;
/** Ids remembered by the gossip seen-sets (§4.2 processed-set). */
const SEEN_CAPACITY = 200_000;
const SEEN_TTL_MS = 10 * 60_000;

export interface NodeNetworkOptions {
  role: NodeRole;
  network: Network;
  chain: Chain;
  mempool: Mempool;
  events: Emitter<ChainEvents & MempoolEvents>;
  log: Logger;
  clock?: NetClock;
  identity: { address: Uint8Array; publicKey: Uint8Array; sign(data: Uint8Array): Uint8Array };
  productVersion: string;
  /** Where peers reach us (`host:port`), '' for a client. */
  endpoint: string;
  /** Port the peer listener is bound to (0 = none), for `status`. */
  listeningPort: () => number;
  peers: DialTarget[];
  /** Seconds between blocks of this network (scales the network-height cap, §6). */
  blockIntervalSeconds: number;
}

export class NodeNetwork {
  readonly peers: PeerNetwork;
  readonly role: NodeRole;
  readonly nodeType: NodeType;
  private readonly chain: Chain;
  private readonly mempool: Mempool;
  private readonly log: Logger;
  private readonly clock: NetClock;
  private readonly seenTx: SeenSet;
  private readonly seenBlock: SeenSet;
  private readonly unsubscribe: (() => void)[] = [];
  private syncTimer: TimerHandle | null = null;
  private inflight: { link: Link; from: bigint; count: number; sentAt: number } | null = null;
  private syncing = false;
  private lastSyncLog = 0;
  private syncStartedAt = 0;
  private syncStartHeight = 0n;
  private running = false;

  constructor(private readonly o: NodeNetworkOptions) {
    this.role = o.role;
    this.nodeType = NODE_TYPE_OF_ROLE[o.role];
    this.chain = o.chain;
    this.mempool = o.mempool;
    this.log = o.log;
    this.clock = o.clock ?? systemClock;
    this.seenTx = new SeenSet({ capacity: SEEN_CAPACITY, ttlMs: SEEN_TTL_MS, clock: this.clock });
    this.seenBlock = new SeenSet({ capacity: 10_000, ttlMs: SEEN_TTL_MS, clock: this.clock });
    const genesis = o.chain.getBlock(1n);
    if (!genesis) throw new Error('the network starts after the genesis block exists');
    this.peers = new PeerNetwork({
      local: {
        network: o.network,
        genesisChecksum: genesis.checksum,
        nodeType: this.nodeType,
        address: o.identity.address,
        publicKey: o.identity.publicKey,
        productVersion: o.productVersion,
        endpoint: o.endpoint,
        sign: (d) => o.identity.sign(d),
        tip: () => ({ height: this.chain.height, checksum: this.chain.tip?.checksum ?? new Uint8Array(0) }),
        networkHeight: () => this.networkHeight(),
        // A syncing master refuses new links (notReady, §2.3 step 6).
        acceptingPeers: () => !(this.role === 'master' && this.syncing),
      },
      clock: this.clock,
      peers: o.peers,
      onMessage: (link, m) => this.message(link, m),
      onOpen: (link) => {
        this.log.info({ peer: link.peer?.addressText, type: link.peerType, remote: link.remote, height: Number(link.peerHeight) }, 'peer connected');
        this.syncTick();
      },
      onClose: (link, info) => {
        if (this.inflight?.link === link) this.inflight = null;
        if (link.peer) this.log.info({ peer: link.peer.addressText, remote: link.remote, code: info.code, reason: info.text, byUs: info.byUs }, 'peer disconnected');
      },
      onError: (link, err) => this.log.error({ err, peer: link?.peer?.addressText }, 'peer message handler failed'),
    });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe.push(this.o.events.on('txAdmitted', ({ txs, source }) => this.gossipTransactions(txs, source)));
    this.unsubscribe.push(this.o.events.on('blockImported', ({ block, checksum, source }) => this.gossipBlock(block.num, checksum, source)));
    this.peers.start();
    const tick = (): void => {
      this.syncTick();
      if (this.running) this.syncTimer = this.clock.setTimer(SYNC_TICK_MS, tick);
    };
    this.syncTimer = this.clock.setTimer(SYNC_TICK_MS, tick);
  }

  stop(): void {
    this.running = false;
    this.syncTimer?.cancel();
    this.syncTimer = null;
    for (const u of this.unsubscribe.splice(0)) u();
    this.peers.stop();
  }

  /** `DLT Status` Synchronizing while the tip is behind the network height (§6). */
  get isSynchronizing(): boolean {
    return this.syncing;
  }

  /** §6 network height, never below our tip; the elapsed-time cap scaled to this network's block interval. */
  networkHeight(): bigint {
    const tip = this.chain.tip;
    return this.peers.networkHeight(this.chain.height, tip ? Number(tip.block.timestamp) : 0, Math.max(this.o.blockIntervalSeconds, 0.001));
  }

  /** The RSA key of a peer wallet: from its link's hello, else from its presence. */
  keyOf(address: Uint8Array): Uint8Array | null {
    return this.peers.registry.byIdentity(address)?.peer?.publicKey ?? this.peers.presence.get(address)?.publicKey ?? null;
  }

  statusMembers(): NetworkStatusMembers {
    return this.peers.statusMembers(this.o.listeningPort());
  }

  // ---- gossip ----------------------------------------------------------------------------

  /** Full push of what was created here (or came from our client); inventory for what peers sent. */
  private gossipTransactions(txs: readonly KnownTx[], source: 'rpc' | { peer: string }): void {
    const from = source === 'rpc' ? null : this.peers.links().find((l) => l.peer?.addressText === source.peer) ?? null;
    for (const k of txs) this.seenTx.add(idKey(k.id));
    const pushToMasters = source === 'rpc' || (this.role === 'relay' && from?.peerType === 'C');
    if (this.role === 'client') {
      // A client hands its transactions to every relay or master it is linked to.
      if (source === 'rpc') this.push(txs, this.peers.links());
      return;
    }
    if (pushToMasters) {
      this.push(txs, this.peers.links(MASTER_TYPES).filter((l) => l !== from));
      return;
    }
    for (const k of txs) this.peers.announce({ type: 0, txid: k.id }, MASTER_TYPES, from ?? undefined);
  }

  private push(txs: readonly KnownTx[], links: readonly Link[]): void {
    if (links.length === 0) return;
    const frames = encodeTransactionBatches(0n, txs.map((k) => k.bytes));
    for (const l of links) for (const f of frames) l.sendFrame(f);
  }

  /** A block we produced goes in full to the masters; every imported block is announced to all. */
  private gossipBlock(height: bigint, checksum: Uint8Array, source: string): void {
    this.seenBlock.add(idKey(checksum));
    if (source === 'genesis') return;
    const item: InventoryItem = { type: 1, height, checksum };
    if (source === 'local') {
      const stored = this.chain.getBlock(height);
      if (stored) this.peers.broadcast({ code: MessageCode.blockData2, block: stored.bytes }, MASTER_TYPES);
      this.peers.announce(item, ['W', 'R', 'C']);
      return;
    }
    this.peers.announce(item);
  }

  // ---- messages --------------------------------------------------------------------------

  private async message(link: Link, m: Message): Promise<void> {
    switch (m.code) {
      case MessageCode.inventory2:
        return this.inventory(link, m.items);
      case MessageCode.getTransactions2:
        return this.answerTransactions(link, m.tag, m.txids);
      case MessageCode.transactionsChunk3:
        return this.receiveTransactions(link, m.transactions);
      case MessageCode.getUnappliedTransactions:
        return this.answerTransactions(link, 0n, this.mempool.candidates(Number.MAX_SAFE_INTEGER).map((k) => k.id));
      case MessageCode.blockData2:
        return this.receiveBlock(link, m.block);
      case MessageCode.getBlocks:
        return this.answerBlocks(link, m.from, m.count);
      case MessageCode.getBlock3:
        return this.answerBlocks(link, m.height, 1);
      case MessageCode.blocks:
        return this.receiveBlocks(link, m.blocks);
      case MessageCode.s2data:
        return this.relay(link, m.recipient, m.message);
      case MessageCode.rejected:
        this.log.debug({ peer: link.peer?.addressText, reason: m.reason, txid: toHex(m.txid) }, 'peer rejected a transaction');
        return;
      default:
        // Signatures and the rest arrive with the consensus and messaging issues.
        return;
    }
  }

  private inventory(link: Link, items: InventoryItem[]): void {
    const wanted: Uint8Array[] = [];
    for (const it of items) {
      if (it.type === 0) {
        if (this.mempool.has(it.txid) || this.chain.hasTransaction(it.txid)) continue;
        if (this.seenTx.add(idKey(it.txid))) wanted.push(it.txid);
      } else if (it.type === 1) {
        if (it.height > link.peerHeight) link.peerHeight = it.height;
        if (it.height === this.chain.height + 1n && !this.syncing && this.seenBlock.add(idKey(it.checksum))) {
          link.send({ code: MessageCode.getBlocks, from: it.height, count: 1, txMode: 1 });
        }
      }
    }
    if (wanted.length > 0) link.send({ code: MessageCode.getTransactions2, tag: 0n, txids: wanted });
  }

  private answerTransactions(link: Link, tag: bigint, ids: readonly Uint8Array[]): void {
    const out: Uint8Array[] = [];
    for (const id of ids) {
      const k = this.mempool.get(id) ?? this.chain.getTransaction(id);
      if (k) out.push(k.bytes);
    }
    if (out.length === 0) return;
    for (const f of encodeTransactionBatches(tag, out)) link.sendFrame(f);
  }

  private async receiveTransactions(link: Link, batch: Uint8Array[]): Promise<void> {
    const peer = link.peer?.addressText ?? link.remote;
    const results = await Promise.all(
      batch.map(async (bytes) => {
        let k: KnownTx;
        try {
          k = knownTxFromBytes(bytes, this.o.network);
        } catch {
          link.penalize('malformedFrame', 'undecodable transaction');
          return;
        }
        this.seenTx.add(idKey(k.id));
        const error = await this.mempool.submit(k, { peer });
        if (error && error.action === 'REJECT') {
          link.penalize('invalidTransaction', `${error.code}: ${error.message}`);
          link.send({ code: MessageCode.rejected, reason: rejectedCodeOf(error), txid: k.id });
        }
      }),
    );
    void results;
  }

  /** A block pushed by its proposer: imported at once when we hold its transactions, else pulled whole. */
  private async receiveBlock(link: Link, bytes: Uint8Array): Promise<void> {
    let height: bigint;
    let txIds: Uint8Array[];
    try {
      const { block } = decodeBlockWire(bytes);
      height = block.num;
      txIds = block.txIds;
    } catch {
      link.penalize('malformedFrame', 'undecodable block');
      return;
    }
    if (height > link.peerHeight) link.peerHeight = height;
    if (height !== this.chain.height + 1n || this.syncing) return;
    const txs: KnownTx[] = [];
    for (const id of txIds) {
      const k = this.mempool.get(id);
      if (!k) {
        link.send({ code: MessageCode.getBlocks, from: height, count: 1, txMode: 1 });
        return;
      }
      txs.push(k);
    }
    await this.importFrom(link, bytes, txs, 'peer');
  }

  private answerBlocks(link: Link, from: bigint, count: number): void {
    // Only nodes that hold the chain answer, and a syncing master does not (§5.3, §6).
    if (this.role === 'client' || this.syncing) return;
    const tip = this.chain.height;
    const blocks: RangeBlock[] = [];
    for (let n = from; n <= tip && blocks.length < Math.min(count, MAX_BLOCKS_PER_RANGE); n++) {
      const stored = this.chain.getBlock(n);
      if (!stored) break;
      blocks.push({ block: stored.bytes, transactions: this.chain.blockTransactions(stored.block).map((k) => k.bytes) });
    }
    let at = 0;
    // Frames hold as many whole blocks as fit; the rest follow in the next frames.
    while (at < blocks.length || (at === 0 && blocks.length === 0)) {
      const { frame, count: n } = encodeBlocksFitting(from + BigInt(at), tip, blocks.slice(at));
      link.sendFrame(frame);
      if (n === 0) break;
      at += n;
      if (link.pendingBytes > MAX_SEND_QUEUE_BYTES / 2) break; // the peer asks again for the rest
    }
  }

  private async receiveBlocks(link: Link, blocks: RangeBlock[]): Promise<void> {
    for (const rb of blocks) {
      let height: bigint;
      try {
        height = decodeBlockWire(rb.block).block.num;
      } catch {
        link.penalize('malformedFrame', 'undecodable block');
        return;
      }
      if (height > link.peerHeight) link.peerHeight = height;
      if (height <= this.chain.height) continue;
      if (height !== this.chain.height + 1n) break;
      const txs: KnownTx[] = [];
      for (const bytes of rb.transactions) {
        try {
          txs.push(this.mempool.get(knownTxFromBytes(bytes, this.o.network).id) ?? knownTxFromBytes(bytes, this.o.network));
        } catch {
          link.penalize('invalidBlock', 'undecodable transaction in a block');
          return;
        }
      }
      if (!(await this.importFrom(link, rb.block, txs, this.syncing ? 'sync' : 'peer'))) break;
    }
    if (this.inflight?.link === link) this.inflight = null;
    this.syncTick();
  }

  /** Imports one block; false when it was refused (a REJECT scores the peer). */
  private async importFrom(link: Link, bytes: Uint8Array, txs: KnownTx[], source: 'peer' | 'sync'): Promise<boolean> {
    try {
      await this.chain.importBlock(bytes, txs, { source });
      return true;
    } catch (err) {
      if (err instanceof BlockError) {
        if (err.action === 'REJECT') {
          this.log.warn({ peer: link.peer?.addressText, code: err.code, reason: err.message }, 'invalid block from peer');
          link.penalize('invalidBlock', `${err.code}: ${err.message}`);
        } else {
          this.log.debug({ peer: link.peer?.addressText, code: err.code }, err.message);
        }
        return false;
      }
      throw err;
    }
  }

  /** Relays hand stream messages to the client connected to them (§7.1); nobody else forwards. */
  private relay(from: Link, recipient: Uint8Array, message: Uint8Array): void {
    if (this.role !== 'relay') return;
    const to = this.peers.registry.byIdentity(recipient);
    if (to && to !== from && to.peerType === 'C') to.send({ code: MessageCode.s2data, recipient, message });
  }

  // ---- sync ------------------------------------------------------------------------------

  private syncTick(): void {
    if (!this.running || this.role === 'client' && this.peers.links().length === 0) {
      this.syncing = false;
      return;
    }
    const tip = this.chain.height;
    const target = this.networkHeight();
    const now = this.clock.now();
    if (target <= tip) {
      if (this.syncing) {
        this.log.info({ height: Number(tip) }, 'synchronized with the network');
        this.syncing = false;
        // The pool of a node that was away: ask the masters for what is pending (§6 done).
        for (const l of this.peers.links(MASTER_TYPES)) l.send({ code: MessageCode.getUnappliedTransactions });
      }
      return;
    }
    // One block behind is the normal gossip path; more is sync.
    if (!this.syncing && target > tip + 1n) {
      this.syncing = true;
      this.syncStartedAt = now;
      this.syncStartHeight = tip;
      this.log.info({ height: Number(tip), networkHeight: Number(target) }, 'synchronizing');
    }
    if (this.syncing && now - this.lastSyncLog >= SYNC_LOG_MS) {
      this.lastSyncLog = now;
      const seconds = Math.max(0.001, (now - this.syncStartedAt) / 1000);
      this.log.info(
        { height: Number(tip), networkHeight: Number(target), blocksPerSecond: Math.round(Number(tip - this.syncStartHeight) / seconds) },
        `synchronizing: ${tip} / ${target}`,
      );
    }
    if (this.inflight && now - this.inflight.sentAt < SYNC_REQUEST_TIMEOUT_MS) return;
    const candidates = this.peers.links().filter((l) => l.peerHeight > tip && l.peerType !== 'C');
    if (candidates.length === 0) return;
    const masters = candidates.filter((l) => MASTER_TYPES.includes(l.peerType));
    const pool = masters.length > 0 ? masters : candidates;
    const previous = this.inflight?.link;
    const link = pool.find((l) => l !== previous) ?? pool[0]!;
    const count = Number(target - tip < BigInt(SYNC_RANGE_BLOCKS) ? target - tip : BigInt(SYNC_RANGE_BLOCKS));
    this.inflight = { link, from: tip + 1n, count, sentAt: now };
    link.send({ code: MessageCode.getBlocks, from: tip + 1n, count, txMode: 1 });
  }
}

/** The `rejected` reason byte for a refused transaction (reference §4.3). */
function rejectedCodeOf(err: TxError): number {
  if (err.code === TxErrorCode.AlreadyPending || err.code === TxErrorCode.AlreadyApplied) return RejectedCode.duplicate;
  if (/dust/i.test(err.message)) return RejectedCode.dust;
  if (/fee/i.test(err.message)) return RejectedCode.insufficientFee;
  return RejectedCode.invalid;
}

export { PEER_WS_PATH, MAX_FRAME_BYTES };
