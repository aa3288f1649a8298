/**
 * The wallet history of the node's own addresses as the reference's Activity records
 * (reference-client-methods.md `activity`): received (100), sent (101), mining reward (200),
 * signing reward (201), transaction-fee reward (202); status pending (1), final (2), error (3).
 * Fee rewards (202) exist on the embedded network, whose proposer takes a block's fees; on a
 * genesis network the fees reach the signers inside the staking reward (201), as in the reference.
 *
 * Final records come from the blocks the per-address index (src/explorer/address-index.ts) names
 * for the node's addresses (newest first, stopping once a page is full), pending ones from the
 * mempool, error ones from the transactions the mempool dropped since the node started (kept in
 * memory, bounded).
 */
import type { Chain } from '../chain/chain.js';
import type { KnownTx } from '../chain/tx-codec.js';
import { addressToText } from '../formats/address.js';
import { formatAmount } from '../formats/amount.js';
import { toHex } from '../formats/bytes.js';
import { decodeVarUint } from '../formats/varint.js';
import { FOUNDATION_FEE_PERCENT, TransactionType } from '../formats/constants.js';
import type { Mempool, MempoolEvents } from '../mempool/mempool.js';
import type { Emitter } from '../events.js';
import { claimPayout } from '../mining/payout.js';
import { miningReward } from '../mining/reward.js';
import { latin1Key } from '../state/keys.js';
import { indexedBlocks, senderOf, type IndexedBlock } from './address-index.js';
import type { NodeWallet, WalletKey } from '../wallet/wallet.js';
import type { OwnTransaction } from '../wallet/light-wallet.js';

export const ActivityType = { Received: 100, Sent: 101, MiningReward: 200, SigningReward: 201, TxFeeReward: 202 } as const;
export const ActivityStatus = { Pending: 1, Final: 2, Error: 3 } as const;

/** One Activity record (reference member names). */
export interface Activity {
  /** Hex of the wallet's primary address (this node's stand-in for the reference's seed hash). */
  seedHash: string;
  /** The node's own address concerned (Base58). */
  wallet: string;
  /** Sender address (Base58); empty for the genesis and reward transactions. */
  from: string;
  /** Recipient address → amount. */
  toList: Record<string, string>;
  type: number;
  /** Hex of the first output's data; empty when none. */
  data: string;
  value: string;
  timestamp: number;
  status: number;
  blockHeight: number;
  txid: string;
}

/** Dropped transactions remembered for error records. */
const MAX_DROPPED = 1000;

export interface ActivityQuery {
  fromIndex: number;
  count: number;
  /** −1 every type. */
  type: number;
  descending: boolean;
  /** Only this wallet (a key of the node). */
  key?: WalletKey;
}

export class ActivityIndex {
  private readonly dropped: { k: KnownTx; at: number }[] = [];

  constructor(
    private readonly chain: Chain,
    private readonly mempool: Pick<Mempool, 'page' | 'size'>,
    private readonly wallet: NodeWallet,
    events: Emitter<MempoolEvents>,
    /** Does a block pay its fees to its proposer (the embedded network)? On a genesis network the signers get them in a staking reward (201). */
    private readonly opts: { proposerFees: boolean } = { proposerFees: true },
  ) {
    events.on('txDropped', ({ txs }) => {
      const own = ownAddresses(this.wallet, );
      for (const k of txs) {
        const s = senderOf(k);
        if (s && own.has(latin1Key(s))) this.dropped.push({ k, at: Math.floor(Date.now() / 1000) });
      }
      if (this.dropped.length > MAX_DROPPED) this.dropped.splice(0, this.dropped.length - MAX_DROPPED);
    });
  }

  /** Fee reward of a block proposed by an own address (§8.9: the foundation's 3 % apart). */
  private feeRecord(b: IndexedBlock, own: Map<string, WalletKey>): Activity | null {
    if (!this.opts.proposerFees || !b.fee) return null;
    const proposer = b.fee.address;
    const key = own.get(latin1Key(proposer));
    if (!key) return null;
    const value = b.fee.totalFee - (b.fee.totalFee * BigInt(FOUNDATION_FEE_PERCENT)) / 100n;
    return {
      seedHash: toHex(key.primary), wallet: addressToText(proposer), from: '', toList: { [addressToText(proposer)]: formatAmount(value) },
      type: ActivityType.TxFeeReward, data: '', value: formatAmount(value), timestamp: Number(b.timestamp),
      status: ActivityStatus.Final, blockHeight: Number(b.height), txid: `fee-${b.height}`,
    };
  }

  /** The final records of the own addresses' blocks, newest first, or all reversed (oldest first). */
  private *finalRecords(own: Map<string, WalletKey>, newestFirst: boolean): Generator<Activity> {
    const addresses = [...own.keys()].map((k) => Buffer.from(k, 'latin1'));
    for (const b of indexedBlocks(this.chain.store, addresses, newestFirst)) {
      const records: Activity[] = [];
      const fee = this.feeRecord(b, own);
      if (fee) records.push(fee);
      for (let i = b.txIds.length - 1; i >= 0; i--) {
        const k = this.chain.getTransaction(b.txIds[i]!);
        if (k) records.push(...activityRecords(k, own, ActivityStatus.Final, b.height, Number(b.timestamp), (id) => claimPayout(this.chain.store, id)));
      }
      if (!newestFirst) records.reverse();
      yield* records;
    }
  }

  /** Records not yet in a block: pending (newest first), then dropped ones (newest first). */
  private unconfirmed(own: Map<string, WalletKey>): Activity[] {
    const out: Activity[] = [];
    const pending = this.mempool.page(0, this.mempool.size);
    for (let i = pending.length - 1; i >= 0; i--) {
      const k = pending[i]!;
      out.push(...activityRecords(k, own, ActivityStatus.Pending, 0n, Number(k.tx.timestamp)));
    }
    for (let i = this.dropped.length - 1; i >= 0; i--) {
      const d = this.dropped[i]!;
      out.push(...activityRecords(d.k, own, ActivityStatus.Error, 0n, d.at));
    }
    return out;
  }

  /**
   * A page of records of the node's own addresses: newest first (pending, dropped, then the blocks
   * from the tip down), or that whole order reversed.
   */
  query(q: ActivityQuery): Activity[] {
    const own = ownAddresses(this.wallet, q.key);
    const unconfirmed = this.unconfirmed(own);
    const records = q.descending ? concat(unconfirmed, this.finalRecords(own, true)) : concat(this.finalRecords(own, false), unconfirmed.reverse());
    return activityPage(records, q);
  }
}

/** A page of `records` (already in the asked order): those of the asked type, from `fromIndex`, at most `count`. */
export function activityPage(records: Iterable<Activity>, q: Pick<ActivityQuery, 'fromIndex' | 'count' | 'type'>): Activity[] {
  const match = (a: Activity) => q.type === -1 || a.type === q.type;
  const out: Activity[] = [];
  let skipped = 0;
  for (const a of records) {
    if (!match(a)) continue;
    if (skipped < q.fromIndex) {
      skipped++;
      continue;
    }
    if (out.length >= q.count) break;
    out.push(a);
  }
  return out;
}

/**
 * A light node's Activity (relays and clients hold no blocks): from its own transactions
 * (src/wallet/light-wallet.ts), pending and dropped ones newest sent first, then the applied ones
 * from the highest block down (their time is their block header's), or that whole order reversed.
 * A mining claim keeps its block's full reward after it is paid: the payment is no transaction and
 * the share depends on other solvers' claims, which the headers do not carry (Ixian-S2's activity
 * is never updated either; only the DLT node's `rewardMinersV10` calls `updateValue`).
 */
export function lightActivity(wallet: NodeWallet, txs: readonly OwnTransaction[], blockTime: (height: bigint) => number, q: ActivityQuery): Activity[] {
  const own = ownAddresses(wallet, q.key);
  const unconfirmed = txs.filter((t) => t.height === 0n).sort((a, b) => b.sent - a.sent || Number(b.k.tx.timestamp - a.k.tx.timestamp));
  const applied = txs.filter((t) => t.height > 0n).sort((a, b) => (a.height === b.height ? 0 : a.height > b.height ? -1 : 1));
  const records = [...unconfirmed, ...applied].flatMap((t) =>
    activityRecords(t.k, own, t.height > 0n ? ActivityStatus.Final : t.dropped ? ActivityStatus.Error : ActivityStatus.Pending, t.height, t.height > 0n ? blockTime(t.height) : Number(t.k.tx.timestamp)),
  );
  return activityPage(q.descending ? records : records.reverse(), q);
}

/** latin1 key of each own address → the wallet key holding it. */
export function ownAddresses(wallet: NodeWallet, only?: WalletKey): Map<string, WalletKey> {
  const out = new Map<string, WalletKey>();
  for (const key of only ? [only] : wallet.keys) for (const a of key.addresses()) out.set(latin1Key(a.address), key);
  return out;
}

/**
 * The records of one transaction for the own addresses, newest member first. A mining claim's value
 * is the block's full reward until the claim is paid, then the share it was paid (`paidShare`: the
 * reference's `ActivityStorage.updateValue` when `rewardMinersV10` pays it).
 */
export function activityRecords(
  k: KnownTx,
  own: Map<string, WalletKey>,
  status: number,
  blockHeight: bigint,
  timestamp: number,
  paidShare?: (txid: Uint8Array) => bigint | null,
): Activity[] {
  const tx = k.tx;
  const out: Activity[] = [];
  const toList: Record<string, string> = {};
  for (const o of tx.outputs) toList[addressToText(o.address)] = formatAmount(o.amount);
  const data = tx.outputs[0]?.data ? toHex(tx.outputs[0].data) : '';
  const sender = senderOf(k);
  const record = (key: WalletKey, address: Uint8Array, type: number, value: bigint, from: string): Activity => ({
    seedHash: toHex(key.primary), wallet: addressToText(address), from, toList, type, data, value: formatAmount(value),
    timestamp, status, blockHeight: Number(blockHeight), txid: k.textId,
  });
  if (tx.type === TransactionType.PoWSolution) {
    const key = sender && own.get(latin1Key(sender));
    if (key && sender) out.push(record(key, sender, ActivityType.MiningReward, paidShare?.(k.id) ?? claimBlockReward(tx.outputs[0]?.data), ''));
    return out;
  }
  const fromText = sender ? addressToText(sender) : '';
  const senderKey = sender ? own.get(latin1Key(sender)) : undefined;
  if (senderKey && sender) {
    const amount = tx.outputs.reduce((s, o) => s + o.amount, 0n);
    out.push(record(senderKey, sender, ActivityType.Sent, amount, fromText));
  }
  // Received: per own recipient address (not the sender's own change).
  const received = new Map<string, { key: WalletKey; address: Uint8Array; amount: bigint }>();
  for (const o of tx.outputs) {
    const id = latin1Key(o.address);
    const key = own.get(id);
    if (!key || (sender && id === latin1Key(sender))) continue;
    const r = received.get(id) ?? { key, address: o.address, amount: 0n };
    r.amount += o.amount;
    received.set(id, r);
  }
  const type = tx.type === TransactionType.StakingReward ? ActivityType.SigningReward : ActivityType.Received;
  for (const r of received.values()) out.push(record(r.key, r.address, type, r.amount, fromText));
  return out;
}


function* concat<T>(...parts: Iterable<T>[]): Generator<T> {
  for (const p of parts) yield* p;
}

/** Reward of a claim from its data (§8.10: varint blockNum first); 0 when unreadable. */
function claimBlockReward(data: Uint8Array | undefined): bigint {
  if (!data || !data.length) return 0n;
  try {
    return miningReward(decodeVarUint(data).value);
  } catch {
    return 0n;
  }
}
