/**
 * The adapters of light nodes (reference-network §1: relays and clients follow headers only) and
 * of the masters that answer them:
 *
 * - `headerSyncChain`: block sync's chain on a light node: a header store (chain/header-chain.ts);
 * - `forwardingPool`: gossip's mempool on a light node: it cannot check a transaction against a
 *   state it does not hold, so it takes what decodes and keeps it a while; a relay pushes it in
 *   full to its masters (its clients' transactions, reference-network §4.1, §7.3);
 * - `ClientTxPusher`: a relay pushes again what it holds for its clients (§4.1: after 40 s, and at
 *   once when a master links while one was taken with none linked);
 * - `masterLightState`: what a master answers light nodes, from its chain and mempool;
 * - `touches`: does a transaction concern one of these addresses (as signer, input or output)?
 */
import type { Chain } from '../chain/chain.js';
import { BlockError, BlockErrorCode } from '../chain/errors.js';
import type { HeaderChain, StoredHeader } from '../chain/header-chain.js';
import { encodeBlockHeader } from '../chain/block.js';
import { knownTxFromBytes, type KnownTx } from '../chain/tx-codec.js';
import type { Network, Transaction } from '../codec/types.js';
import { deriveAddress } from '../formats/address.js';
import type { ChainExtensions } from '../chain/extensions.js';
import { signerPrimaryOf } from '../chain/validate.js';
import { equalBytes, latin1Key } from '../formats/bytes.js';
import type { Logger } from '../log/logger.js';
import type { Mempool } from '../mempool/mempool.js';
import { revertTipOrRefuse, type SyncChain, type ImportOutcome } from './block-sync.js';
import type { LightState } from './light-queries.js';
import { RejectedCode, TxStatus, type HeaderEntry } from './protocol/messages.js';
import type { AdmitOutcome, GossipMempool } from './tx-gossip.js';

/** A header taken, with the transactions of interest that came with it (already checked against its txids). */
export type HeaderImported = (header: StoredHeader, transactions: KnownTx[], source: string) => void;

/** Block sync's chain on a light node: headers, and the transactions of interest that come with them. */
export function headerSyncChain(headers: HeaderChain, network: Network, log: Logger, onImported: HeaderImported): SyncChain {
  return {
    tip: () => ({ height: headers.height, checksum: headers.tip.checksum, timestampSeconds: Number(headers.tip.block.timestamp) }),
    blockBytes: () => null,
    blockTransactions: () => [],
    revertTip: (expected) => revertTipOrRefuse(() => headers.revertTip(expected), log),
    importBlock: async (header, transactions, source, txIds): Promise<ImportOutcome> => {
      let txs: KnownTx[];
      try {
        txs = transactions.map((bytes) => knownTxFromBytes(bytes, network));
      } catch (err) {
        return { ok: false, action: 'reject', reason: `a transaction sent with the header does not decode: ${(err as Error).message}` };
      }
      // The transactions of interest must be the block's: each id among the txids the header commits to.
      if (txs.length > 0) {
        const ids = new Set((txIds ?? []).map(latin1Key));
        if (!txs.every((k) => ids.has(latin1Key(k.id)))) return { ok: false, action: 'reject', reason: 'a transaction sent with a header is not in its block' };
      }
      try {
        const h = await headers.append(header, txIds);
        onImported(h, txs, source);
        return { ok: true };
      } catch (err) {
        if (!(err instanceof BlockError)) throw err;
        log.debug({ peer: source, code: err.code }, err.message);
        // The next header of a chain that left ours at the tip: the longer chain wins (§5.7).
        if (err.code === BlockErrorCode.ParentMismatch && (err.context.num as bigint | undefined) === headers.height + 1n) {
          return { ok: false, action: 'fork', reason: `${err.code}: ${err.message}` };
        }
        return { ok: false, action: err.action === 'REJECT' ? 'reject' : 'ignore', reason: `${err.code}: ${err.message}` };
      }
    },
  };
}

/** Transactions a light node keeps for the masters to pull, at most, and for how long. */
const FORWARD_CAPACITY = 50_000;
const FORWARD_TTL_MS = 600_000;
/**
 * The reference's interval for a pending transaction sent again (reference-network §4.1): S2's
 * relay pushes a client's transaction to its masters again 40 s after the last push, and a light
 * client (QuIXI `processPendingTransactions`) sends its own pending ones to its relays again 40 s
 * after the last send, until they are applied or expired. A relay takes a transaction handed over
 * again this long after the last time as new (and forwards it), so the masters judge it afresh.
 */
export const REFORWARD_AFTER_MS = 40_000;

/** A held transaction due for a push to the masters (`ForwardingPool.duePushes`). */
export interface DuePush {
  txid: Uint8Array;
  bytes: Uint8Array;
  /** Pushed to the masters before (else it was taken while no master was linked). */
  pushedBefore: boolean;
}

/** Gossip's mempool on a light node, and who handed it each transaction (for the masters' `rejected`). */
export interface ForwardingPool extends GossipMempool {
  /** The source (`admit`'s) that handed us `txid`, while it is kept. */
  sourceOf(txid: Uint8Array): string | null;
  /**
   * Held transactions to push to the masters now, oldest first, at most `max`: taken while no
   * master was linked, or pushed `REFORWARD_AFTER_MS` ago or more and not known to be applied.
   */
  duePushes(max: number): DuePush[];
  /** These were pushed to the masters now. */
  pushed(txids: readonly Uint8Array[]): void;
  /** A master holds this one applied: no more pushes (it stays held, for duplicates and `rejected`). */
  settled(txid: Uint8Array): void;
}

interface Held {
  txid: Uint8Array;
  bytes: Uint8Array;
  at: number;
  source: string;
  /** When it was last pushed to the masters; null: never (no master was linked). */
  pushedAt: number | null;
  settled: boolean;
}

/**
 * Gossip's mempool on a light node: a transaction that decodes is taken (the masters judge it) and
 * kept up to 10 minutes; the same one handed over again within 40 s is a duplicate, later it is
 * taken again (`REFORWARD_AFTER_MS`). Bounded: the oldest go first. `mastersLinked` tells whether
 * one taken now reaches a master at once (gossip pushes it on, `pushAccepted`).
 */
export function forwardingPool(network: Network, now: () => number = Date.now, mastersLinked: () => boolean = () => true): ForwardingPool {
  const kept = new Map<string, Held>();
  const trim = (): void => {
    const t = now();
    for (const [key, e] of kept) {
      if (kept.size <= FORWARD_CAPACITY && t - e.at < FORWARD_TTL_MS) break;
      kept.delete(key);
    }
  };
  return {
    admit: async (transactions, source) => {
      const out: AdmitOutcome[] = transactions.map((bytes) => {
        let k: KnownTx;
        try {
          k = knownTxFromBytes(bytes, network);
        } catch {
          return { action: 'reject', txid: null, rejectedCode: RejectedCode.invalid };
        }
        const key = latin1Key(k.id);
        const prior = kept.get(key);
        if (prior && now() - prior.at < REFORWARD_AFTER_MS) return { action: 'ignore', txid: k.id };
        kept.delete(key); // re-inserted: the trim walks from the oldest
        const t = now();
        kept.set(key, { txid: k.id, bytes: k.bytes, at: t, source, pushedAt: mastersLinked() ? t : null, settled: false });
        return { action: 'accept', txid: k.id };
      });
      trim();
      return out;
    },
    get: (txid) => kept.get(latin1Key(txid))?.bytes ?? null,
    all: () => [...kept.values()].map((e) => e.bytes),
    sourceOf: (txid) => kept.get(latin1Key(txid))?.source ?? null,
    duePushes: (max) => {
      trim();
      const t = now();
      const out: DuePush[] = [];
      for (const e of kept.values()) {
        if (out.length >= max) break;
        if (e.settled || (e.pushedAt !== null && t - e.pushedAt < REFORWARD_AFTER_MS)) continue;
        out.push({ txid: e.txid, bytes: e.bytes, pushedBefore: e.pushedAt !== null });
      }
      return out;
    },
    pushed: (txids) => {
      const t = now();
      for (const id of txids) {
        const e = kept.get(latin1Key(id));
        if (e) e.pushedAt = t;
      }
    },
    settled: (txid) => {
      const e = kept.get(latin1Key(txid));
      if (e) e.settled = true;
    },
  };
}

/** Held transactions a relay handles per round of `ClientTxPusher.run`, at most. */
export const CLIENT_PUSH_BATCH = 1_000;
/** How often a relay looks for held transactions due for a push again. */
export const CLIENT_PUSH_CHECK_MS = 5_000;

/**
 * A relay's pushes of the transactions it holds for its clients (reference-network §4.1; S2
 * `Node.processPendingTransactions`, which re-pushes a pending one every 40 s until it is applied,
 * asking the masters about it meanwhile): one taken while no master was linked goes to the masters
 * as soon as one is (`run` on a master link); one pushed before is pushed again 40 s later unless a
 * master answers that it is applied. It stops when the relay no longer holds it (10 minutes after
 * a client last handed it over: a client sends its own again every 40 s until it is applied).
 */
export class ClientTxPusher {
  private busy = false;

  constructor(
    private readonly o: {
      pool: ForwardingPool;
      mastersLinked: () => boolean;
      /** Full push to the masters. */
      push: (transactions: Uint8Array[]) => void;
      /** Whether a master holds it applied (a question to a master); a failed question counts as no. */
      isApplied: (txid: Uint8Array) => Promise<boolean>;
    },
  ) {}

  /** Pushes what is due now (one round at a time); returns how many were pushed. */
  async run(): Promise<number> {
    if (this.busy || !this.o.mastersLinked()) return 0;
    this.busy = true;
    try {
      const due = this.o.pool.duePushes(CLIENT_PUSH_BATCH);
      if (due.length === 0) return 0;
      const applied = await Promise.all(due.map((d) => (d.pushedBefore ? this.o.isApplied(d.txid).catch(() => false) : false)));
      const push: DuePush[] = [];
      due.forEach((d, i) => (applied[i] ? this.o.pool.settled(d.txid) : push.push(d)));
      if (push.length === 0 || !this.o.mastersLinked()) return 0;
      this.o.push(push.map((d) => d.bytes));
      this.o.pool.pushed(push.map((d) => d.txid));
      return push.length;
    } finally {
      this.busy = false;
    }
  }
}

/** Does `tx` concern one of `addresses`: its signer, an input address or an output address? */
export function touches(tx: Transaction, addresses: readonly Uint8Array[], extensions: ChainExtensions): boolean {
  if (addresses.length === 0) return false;
  const has = (a: Uint8Array): boolean => addresses.some((x) => equalBytes(x, a));
  if (tx.outputs.some((o) => has(o.address))) return true;
  let signer: Uint8Array;
  try {
    signer = signerPrimaryOf(tx, extensions);
  } catch {
    return false; // it names no signer
  }
  if (has(signer)) return true;
  return tx.inputs.some((i) => {
    try {
      return has(deriveAddress(signer, i.key));
    } catch {
      return false;
    }
  });
}

/** Transactions a master reads to filter one header answer, at most (plus the last block's). */
export const FILTER_SCAN_BUDGET = 20_000;

/** What a master answers light nodes, from its chain and mempool, and its name system (`nameRecord`). */
export function masterLightState(chain: Chain, mempool: Mempool, nameRecord: LightState['nameRecord']): LightState {
  return {
    nameRecord,
    tip: () => ({ height: chain.height, checksum: chain.tip?.checksum ?? new Uint8Array(0) }),
    balance: (address) => {
      const w = chain.wallet(address);
      return { balance: w.balance, walletType: w.type, hasPublicKey: w.publicKey !== null };
    },
    transaction: (txid) => {
      const pending = mempool.get(txid);
      if (pending) return { status: TxStatus.pending, height: 0n, bytes: pending.bytes };
      const applied = chain.getTransaction(txid);
      if (applied) return { status: TxStatus.applied, height: applied.tx.applied, bytes: applied.bytes };
      return { status: TxStatus.unknown, height: 0n, bytes: null };
    },
    headers: (from, count, addresses): HeaderEntry[] => {
      const out: HeaderEntry[] = [];
      const last = from + BigInt(count) - 1n;
      // Filtering reads every transaction of a block: an answer stops after the block that passes
      // the budget (the asker's next request continues), so a range of busy blocks does not hold the event loop.
      let scanned = 0;
      for (let h = from < 1n ? 1n : from; h <= last && h <= chain.height && scanned < FILTER_SCAN_BUDGET; h++) {
        // A block changed on disk ends the answer (chain.ts servedBlock).
        const stored = chain.servedBlockOrNone(h);
        if (!stored) break;
        const entry: HeaderEntry = { header: encodeBlockHeader(stored.block), txIds: [], transactions: [] };
        if (addresses.length > 0 && stored.block.txIds.length > 0) {
          scanned += stored.block.txIds.length;
          const relevant = chain.blockTransactions(stored.block).filter((k) => touches(k.tx, addresses, chain.extensions));
          if (relevant.length > 0) {
            entry.txIds = stored.block.txIds;
            entry.transactions = relevant.map((k) => k.bytes);
          }
        }
        out.push(entry);
      }
      return out;
    },
  };
}
