/**
 * The adapters of light nodes (reference-network §1: relays and clients follow headers only) and
 * of the masters that answer them:
 *
 * - `headerSyncChain`: block sync's chain on a light node: a header store (chain/header-chain.ts);
 * - `forwardingPool`: gossip's mempool on a light node: it cannot check a transaction against a
 *   state it does not hold, so it takes what decodes and keeps it a while; a relay pushes it in
 *   full to its masters (its clients' transactions, reference-network §4.1, §7.3);
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
 * A transaction handed over again this long after the last time is taken (and forwarded) again:
 * S2's relay pushes a client's transaction again after 40 s until masters confirm it; here the
 * client sends again (a dropped payment re-sent), and the masters judge it afresh.
 */
export const REFORWARD_AFTER_MS = 40_000;

/** Gossip's mempool on a light node, and who handed it each transaction (for the masters' `rejected`). */
export interface ForwardingPool extends GossipMempool {
  /** The source (`admit`'s) that handed us `txid`, while it is kept. */
  sourceOf(txid: Uint8Array): string | null;
}

/**
 * Gossip's mempool on a light node: a transaction that decodes is taken (the masters judge it) and
 * kept up to 10 minutes; the same one handed over again within 40 s is a duplicate, later it is
 * taken again (`REFORWARD_AFTER_MS`). Bounded: the oldest go first.
 */
export function forwardingPool(network: Network, now: () => number = Date.now): ForwardingPool {
  const kept = new Map<string, { bytes: Uint8Array; at: number; source: string }>();
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
        kept.set(key, { bytes: k.bytes, at: now(), source });
        return { action: 'accept', txid: k.id };
      });
      trim();
      return out;
    },
    get: (txid) => kept.get(latin1Key(txid))?.bytes ?? null,
    all: () => [...kept.values()].map((e) => e.bytes),
    sourceOf: (txid) => kept.get(latin1Key(txid))?.source ?? null,
  };
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
        const stored = chain.getBlock(h);
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
