/**
 * Transaction gossip (reference-network.md §4, §10 keep 4): announce-then-pull with a processed
 * set, batched both ways, a transaction validated by the mempool before it is announced, REJECT
 * scored and answered with `rejected`, IGNORE silent; full push only for locally created
 * transactions, pushed again while they stay pending (§4.1, a master's own); the whole mempool on
 * request (`getUnappliedTransactions`, after sync).
 *
 * It knows the mempool only through `GossipMempool`, a small interface the node adapts its
 * mempool to (the mempool's own error codes map to the three actions).
 */
import { AdmissionGate, DEFAULT_ADMISSION_LIMITS, type AdmissionGateLimits } from './admission-gate.js';
import { systemClock, type NetClock, type TimerHandle } from './clock.js';
import { PullTracker } from './inventory.js';
import type { Link } from './link.js';
import { MASTER_TYPES, type PeerNetwork } from './peer-network.js';
import { MessageCode } from './protocol/codes.js';
import { encodeTransactionBatches, MAX_TXIDS_PER_REQUEST, RejectedCode, type Message } from './protocol/messages.js';
import { latin1Key } from '../formats/bytes.js';
import { BLOCK_INTERVAL_SECONDS } from '../formats/constants.js';
import { SeenSet } from './seen.js';

/** What the mempool says about one transaction from a peer. */
export type AdmitOutcome =
  | { action: 'accept'; txid: Uint8Array }
  /** Not wrong, just not taken now (already known, balance differs in the peer's view…): no penalty. */
  | { action: 'ignore'; txid: Uint8Array | null }
  /** Invalid whatever the state (bad signature, malformed…): the peer is scored and told. */
  | { action: 'reject'; txid: Uint8Array | null; rejectedCode?: number };

export interface GossipMempool {
  /** Validates and admits transactions (v7 bytes) received from `source`; one outcome per input, in order. */
  admit(transactions: Uint8Array[], source: string): Promise<AdmitOutcome[]>;
  /** The bytes of a pending transaction, or null. */
  get(txid: Uint8Array): Uint8Array | null;
  /** Every pending transaction's bytes. */
  all(): Iterable<Uint8Array>;
}

/** Processed txids remembered (the reference keeps 1,000,000). */
export const TX_SEEN_CAPACITY = 1_000_000;
/** …for up to this long. */
export const TX_SEEN_TTL_MS = 3_600_000;
/** How often timed-out pulls are re-asked elsewhere. */
const PULL_CHECK_MS = 1_000;
/** Announcements held while synchronizing, at most (past it, the mempool's later requests serve them). */
const MAX_HELD_ANNOUNCEMENTS = 100_000;
/** A bulk sender waits while a link has this much unsent. */
const BULK_PENDING_BYTES = 8 * 1024 * 1024;
/** Announced transactions kept to pull once admission drains, at most (past it, their pull retries when due). */
export const MAX_DEFERRED_PULLS = 100_000;
/** Txids asked per deferred pull: one per completed batch, so admission clocks the pulls. */
const DEFERRED_PULL_BATCH = 1_000;
/** Own pending transactions remembered for their next push, at most (past it, the oldest are forgotten). */
export const MAX_OWN_PENDING = 100_000;
/** Own transactions pushed again per check, at most (the rest are due at the next check). */
const MAX_REPUSH_PER_CHECK = 10_000;
/** The reference pushes an own pending transaction again 60 s after the last push, two of its blocks. */
const REPUSH_OWN_SECONDS = 60;
/**
 * …and never sooner than this here, whatever the block interval (a 1 s devnet): under a backlog of
 * thousands of own transactions each push again is a full copy to every master.
 */
const MIN_REPUSH_OWN_MS = 30_000;

/** `repushAfterMs` for a network of this block interval: the reference's 60 s, scaled as its blocks are (at least 30 s). */
export function repushOwnAfterMs(blockIntervalSeconds: number): number {
  return Math.max(MIN_REPUSH_OWN_MS, Math.round((REPUSH_OWN_SECONDS * 1000 * blockIntervalSeconds) / BLOCK_INTERVAL_SECONDS));
}

export class TxGossip {
  readonly seen: SeenSet;
  readonly pulls: PullTracker<Link>;
  private readonly clock: NetClock;
  private timer: TimerHandle | null = null;
  /** Announcements held while the node synchronizes (by txid). */
  private readonly held = new Map<string, { txid: Uint8Array; except: Link | undefined }>();
  /** Flow control of what peers push: bounded admission, bounded waiting. */
  readonly admission: AdmissionGate<Link>;
  /** Announced while admission was congested, not pulled yet, in arrival order (from `deferredHead`). */
  private deferred: { link: Link; txid: Uint8Array }[] = [];
  private deferredHead = 0;
  /** Own transactions (`pushLocal`) by txid key, in the order of their last push, while `repushAfterMs` is set. */
  private readonly own = new Map<string, { txid: Uint8Array; sentAt: number }>();

  constructor(
    private readonly o: {
      network: PeerNetwork;
      mempool: GossipMempool;
      clock?: NetClock;
      /** False while syncing: a syncing node relays no transactions (§6). */
      relaying?: () => boolean;
      admissionLimits?: AdmissionGateLimits;
      /** Told when a pushed batch is refused because too many transactions wait for admission. */
      onRefused?: (link: Link, count: number) => void;
      /**
       * Push an own transaction again, in full, when it is still pending this long after its last
       * push (the reference's 60 s, DLT `TransactionPool.processPendingTransactions`); unset: never.
       * A peer that refused it then (a block it had not yet) or was not linked takes it this way.
       */
      repushAfterMs?: number;
      /**
       * Send what peers hand us and the mempool takes in full to the masters (not an announcement):
       * a relay with its clients' transactions, as S2 does (reference-network §4.1). A master
       * checks a pushed transaction whatever its processed set says, so one it refused before
       * (a client sending it again) is judged afresh.
       */
      pushAccepted?: boolean;
    },
  ) {
    this.clock = o.clock ?? systemClock;
    this.admission = new AdmissionGate<Link>(o.admissionLimits ?? DEFAULT_ADMISSION_LIMITS);
    this.seen = new SeenSet({ capacity: TX_SEEN_CAPACITY, ttlMs: TX_SEEN_TTL_MS, clock: this.clock });
    this.pulls = new PullTracker<Link>({ clock: this.clock, seen: this.seen });
  }

  start(): void {
    const tick = () => {
      this.timer = this.clock.setTimer(PULL_CHECK_MS, () => {
        this.retryPulls();
        this.releaseHeld();
        this.pullDeferred();
        this.repushOwn();
        tick();
      });
    };
    if (!this.timer) tick();
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  /**
   * Handles the transaction messages; returns false for messages that are not about
   * transactions (the caller passes them on).
   */
  handle(link: Link, m: Message): boolean | Promise<boolean> {
    switch (m.code) {
      case MessageCode.inventory2: {
        const want: Uint8Array[] = [];
        // While many transactions wait for admission, new announcements are kept and pulled as
        // admission drains (`pullDeferred`), so a busy node asks only for what it can check.
        const congested = this.admission.congested || this.deferredCount > 0;
        for (const it of m.items) {
          if (it.type !== 0 || !this.pulls.announced('transaction', latin1Key(it.txid), link)) continue;
          if (!congested) want.push(it.txid);
          else if (this.deferredCount < MAX_DEFERRED_PULLS) this.deferred.push({ link, txid: it.txid });
        }
        this.ask([[link, want]]);
        return m.items.every((it) => it.type === 0);
      }
      case MessageCode.getTransactions2: {
        const found: Uint8Array[] = [];
        for (const id of m.txids) {
          const tx = this.o.mempool.get(id);
          if (tx) found.push(tx);
        }
        for (const f of encodeTransactionBatches(m.tag, found)) link.sendFrame(f);
        return true;
      }
      case MessageCode.getUnappliedTransactions:
        return this.sendMempool(link).then(() => true);
      case MessageCode.transactionsChunk3:
        return this.receive(link, m.transactions).then(() => true);
      default:
        return false;
    }
  }

  /** A transaction created on this node (RPC): full push to the masters (§4.1). */
  pushLocal(transaction: Uint8Array, txid: Uint8Array): number {
    const key = latin1Key(txid);
    this.seen.mark(key);
    if (this.o.repushAfterMs !== undefined) {
      this.own.delete(key);
      this.own.set(key, { txid, sentAt: this.clock.now() });
      if (this.own.size > MAX_OWN_PENDING) this.own.delete(this.own.keys().next().value!);
    }
    return this.o.network.broadcast({ code: MessageCode.transactionsChunk3, tag: 0n, transactions: [transaction] }, MASTER_TYPES);
  }

  /**
   * Announces an admitted transaction to the masters except `except` (the mempool's txAdmitted
   * event). While the node synchronizes it relays nothing (§6): the announcement waits, and goes
   * out with the others once the node is in step again (a node that falls a few blocks behind for
   * a moment loses nothing it was given).
   */
  announce(txid: Uint8Array, except?: Link): void {
    this.seen.mark(latin1Key(txid));
    if (this.o.relaying?.() === false) {
      if (this.held.size < MAX_HELD_ANNOUNCEMENTS) this.held.set(latin1Key(txid), { txid, except });
      return;
    }
    this.o.network.announce({ type: 0, txid }, MASTER_TYPES, except);
  }

  /**
   * Gossip dedup hits since start: announcements of a transaction already seen or being pulled,
   * and copies of one already received (the metric; not the node's own marking of what it took).
   */
  get dedupHits(): number {
    return this.seen.hits + this.pulls.announcedAgain;
  }

  /** Own transactions the node is pushing again while pending (`repushAfterMs`). */
  get ownPending(): number {
    return this.own.size;
  }

  /**
   * Pushes again, in full to the masters, the own transactions still pending `repushAfterMs` after
   * their last push; those the mempool no longer holds (applied, dropped, expired) are forgotten.
   * Not while synchronizing (§6: nothing is relayed then). With no master linked the push reaches
   * nobody, and the next one is due an interval later all the same.
   */
  private repushOwn(): void {
    const after = this.o.repushAfterMs;
    if (after === undefined || this.own.size === 0 || this.o.relaying?.() === false) return;
    const now = this.clock.now();
    const due: Uint8Array[] = [];
    // Oldest push first; one pushed now moves to the end with `sentAt` now, which ends the walk.
    for (const [key, o] of this.own) {
      if (now - o.sentAt < after || due.length >= MAX_REPUSH_PER_CHECK) break;
      this.own.delete(key);
      const bytes = this.o.mempool.get(o.txid);
      if (!bytes) continue;
      due.push(bytes);
      this.own.set(key, { txid: o.txid, sentAt: now });
    }
    if (due.length > 0) this.pushToMasters(due);
  }

  /** Sends the announcements held while synchronizing, for what is still pending. */
  private releaseHeld(): void {
    if (this.held.size === 0 || this.o.relaying?.() === false) return;
    const held = [...this.held.values()];
    this.held.clear();
    for (const h of held) if (this.o.mempool.get(h.txid)) this.o.network.announce({ type: 0, txid: h.txid }, MASTER_TYPES, h.except);
  }

  private get deferredCount(): number {
    return this.deferred.length - this.deferredHead;
  }

  /**
   * Asks for up to one batch of the announcements kept while admission was congested, once it no
   * longer is (after each admitted batch, and each second). Those that arrived meanwhile, or whose
   * announcer left, are skipped (the tracker asks another announcer when their retry falls due).
   */
  private pullDeferred(): void {
    if (this.deferredCount === 0 || this.admission.congested) return;
    const asks: { link: Link; txid: Uint8Array }[] = [];
    while (asks.length < DEFERRED_PULL_BATCH && this.deferredHead < this.deferred.length) {
      const d = this.deferred[this.deferredHead++]!;
      if (d.link.state === 'open' && this.pulls.isPending(latin1Key(d.txid))) asks.push(d);
    }
    if (this.deferredHead === this.deferred.length) {
      this.deferred = [];
      this.deferredHead = 0;
    } else if (this.deferredHead > 4_096 && this.deferredHead * 2 > this.deferred.length) {
      this.deferred = this.deferred.slice(this.deferredHead);
      this.deferredHead = 0;
    }
    this.ask(byLink(asks));
  }

  private async receive(link: Link, transactions: Uint8Array[]): Promise<void> {
    if (transactions.length === 0) return;
    const outcomes = await this.admission.run(link, transactions.length, () => this.o.mempool.admit(transactions, link.peer?.addressText ?? link.remote));
    this.pullDeferred();
    // Not received (not marked seen): the next announcement of these transactions pulls them.
    if (outcomes === 'refused') return this.o.onRefused?.(link, transactions.length);
    const push: Uint8Array[] = [];
    for (const r of outcomes) {
      if (r.txid) this.pulls.received(latin1Key(r.txid));
      if (r.action === 'accept') {
        const bytes = this.o.pushAccepted ? this.o.mempool.get(r.txid) : null;
        if (bytes) push.push(bytes);
        else this.announce(r.txid, link);
      } else if (r.action === 'reject') {
        if (r.txid) link.send({ code: MessageCode.rejected, reason: r.rejectedCode ?? RejectedCode.invalid, txid: r.txid });
        // A relay forwards its clients' transactions unchecked (it holds no state, §7.3): told, not scored.
        if (link.peerType !== 'R') link.penalize('invalidTransaction');
        if (link.state === 'closed') break;
      }
    }
    if (push.length > 0) this.pushToMasters(push, link);
  }

  /** Full push (`transactionsChunk3`, batched) to the masters, except the link they came from. */
  pushToMasters(transactions: readonly Uint8Array[], except?: Link): void {
    const links = this.o.network.links(MASTER_TYPES).filter((l) => l !== except);
    if (links.length === 0) return;
    const frames = encodeTransactionBatches(0n, transactions);
    for (const l of links) for (const f of frames) if (!l.sendFrame(f)) break;
  }

  private async sendMempool(link: Link): Promise<void> {
    const all = [...this.o.mempool.all()];
    for (const frame of encodeTransactionBatches(0n, all)) {
      while (link.state === 'open' && link.pendingBytes > BULK_PENDING_BYTES) await new Promise<void>((r) => this.clock.setTimer(10, r));
      if (!link.sendFrame(frame)) return;
    }
  }

  private retryPulls(): void {
    const due = this.pulls.due().filter((d) => d.peer.state === 'open');
    this.ask(byLink(due.map((d) => ({ link: d.peer, txid: Uint8Array.from(Buffer.from(d.key, 'latin1')) }))));
  }

  /** Pull requests (`getTransactions2`) for these txids, per link, at most MAX_TXIDS_PER_REQUEST each. */
  private ask(byLink: Iterable<[Link, Uint8Array[]]>): void {
    for (const [link, txids] of byLink) {
      for (let i = 0; i < txids.length; i += MAX_TXIDS_PER_REQUEST) link.send({ code: MessageCode.getTransactions2, tag: 0n, txids: txids.slice(i, i + MAX_TXIDS_PER_REQUEST) });
    }
  }
}

/** Txids grouped by the link to ask, in order. */
function byLink(asks: readonly { link: Link; txid: Uint8Array }[]): Map<Link, Uint8Array[]> {
  const out = new Map<Link, Uint8Array[]>();
  for (const a of asks) {
    const list = out.get(a.link);
    if (list) list.push(a.txid);
    else out.set(a.link, [a.txid]);
  }
  return out;
}
