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
 * memory, bounded, with the reason).
 *
 * Both answers, `activity` (Activity) and `activity2` (Activity2, the 2026 reference's
 * ActivityObject), are built from one ordered walk of entries (a transaction where it stands, or a
 * block's fee reward), so they list the same history in the same order.
 */
import type { Chain } from '../chain/chain.js';
import type { KnownTx } from '../chain/tx-codec.js';
import { addressToText } from '../formats/address.js';
import { formatAmount } from '../formats/amount.js';
import { toBase64, toHex } from '../formats/bytes.js';
import { decodeVarUint } from '../formats/varint.js';
import { FOUNDATION_FEE_PERCENT, TransactionType } from '../formats/constants.js';
import type { Mempool, MempoolEvents } from '../mempool/mempool.js';
import type { Emitter } from '../events.js';
import { claimPayout } from '../mining/payout.js';
import { miningReward } from '../mining/reward.js';
import { latin1Key } from '../state/keys.js';
import { indexedBlocks, senderOf, type IndexedBlock } from './address-index.js';
import { inputSources, sumInputs, sumOutputs, type InputSource } from '../chain/validate.js';
import { signerAddressOf } from '../consensus/signer-pow.js';
import type { NodeWallet, WalletKey } from '../wallet/wallet.js';
import { droppedByExpiry, type OwnTransaction } from '../wallet/light-wallet.js';

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

/** One transaction of the own addresses where it stands. */
interface TxEntry {
  k: KnownTx;
  /** {@link ActivityStatus}: pending, final, or error (dropped). */
  status: number;
  /** Applied height; 0 unless final. */
  height: bigint;
  /** Unix seconds: the block's for a final one, the transaction's for a pending one, when it was dropped for a dropped one. */
  time: number;
  /** Why a dropped one was dropped. */
  dropped?: string;
}

/** A block proposed by an own address, whose fees it took (the embedded network). */
interface FeeEntry {
  fee: { key: WalletKey; proposer: Uint8Array; value: bigint; height: bigint; time: number };
}

/** What the records of both answers are built from, in their order. */
export type ActivityEntry = TxEntry | FeeEntry;

/** The share a paid mining claim was paid (the reference's ActivityStorage.updateValue), or null while unpaid. */
type PaidShare = (txid: Uint8Array) => bigint | null;

export class ActivityIndex {
  private readonly dropped: { k: KnownTx; at: number; reason: string }[] = [];

  constructor(
    private readonly chain: Chain,
    private readonly mempool: Pick<Mempool, 'page' | 'size'>,
    private readonly wallet: NodeWallet,
    events: Emitter<MempoolEvents>,
    /** Does a block pay its fees to its proposer (the embedded network)? On a genesis network the signers get them in a staking reward (201). */
    private readonly opts: { proposerFees: boolean } = { proposerFees: true },
  ) {
    events.on('txDropped', ({ txs, reason }) => {
      const own = ownAddresses(this.wallet, );
      for (const k of txs) {
        const s = senderOf(k);
        if (s && own.has(latin1Key(s))) this.dropped.push({ k, at: Math.floor(Date.now() / 1000), reason });
      }
      if (this.dropped.length > MAX_DROPPED) this.dropped.splice(0, this.dropped.length - MAX_DROPPED);
    });
  }

  /** Fee reward of a block proposed by an own address (§8.9: the foundation's 3 % apart). */
  private feeEntry(b: IndexedBlock, own: Map<string, WalletKey>): FeeEntry | null {
    if (!this.opts.proposerFees || !b.fee) return null;
    const proposer = b.fee.address;
    const key = own.get(latin1Key(proposer));
    if (!key) return null;
    const value = b.fee.totalFee - (b.fee.totalFee * BigInt(FOUNDATION_FEE_PERCENT)) / 100n;
    return { fee: { key, proposer, value, height: b.height, time: Number(b.timestamp) } };
  }

  /** The entries of the own addresses' blocks, newest first, or all reversed (oldest first). */
  private *finalEntries(own: Map<string, WalletKey>, newestFirst: boolean): Generator<ActivityEntry> {
    const addresses = [...own.keys()].map((k) => Buffer.from(k, 'latin1'));
    for (const b of indexedBlocks(this.chain.store, addresses, newestFirst)) {
      const entries: ActivityEntry[] = [];
      const fee = this.feeEntry(b, own);
      if (fee) entries.push(fee);
      for (let i = b.txIds.length - 1; i >= 0; i--) {
        const k = this.chain.getTransaction(b.txIds[i]!);
        if (k) entries.push({ k, status: ActivityStatus.Final, height: b.height, time: Number(b.timestamp) });
      }
      if (!newestFirst) entries.reverse();
      yield* entries;
    }
  }

  /** Transactions not yet in a block: pending (newest first), then dropped ones (newest first). */
  private unconfirmed(): TxEntry[] {
    const out: TxEntry[] = [];
    const pending = this.mempool.page(0, this.mempool.size);
    for (let i = pending.length - 1; i >= 0; i--) {
      const k = pending[i]!;
      out.push({ k, status: ActivityStatus.Pending, height: 0n, time: Number(k.tx.timestamp) });
    }
    for (let i = this.dropped.length - 1; i >= 0; i--) {
      const d = this.dropped[i]!;
      out.push({ k: d.k, status: ActivityStatus.Error, height: 0n, time: d.at, dropped: d.reason });
    }
    return out;
  }

  /** Newest first (pending, dropped, then the blocks from the tip down), or that whole order reversed. */
  private entries(own: Map<string, WalletKey>, newestFirst: boolean): Iterable<ActivityEntry> {
    const unconfirmed = this.unconfirmed();
    return newestFirst ? concat(unconfirmed, this.finalEntries(own, true)) : concat(this.finalEntries(own, false), unconfirmed.reverse());
  }

  private readonly paidShare: PaidShare = (id) => claimPayout(this.chain.store, id);

  /** A page of `activity` records of the node's own addresses. */
  query(q: ActivityQuery): Activity[] {
    const own = ownAddresses(this.wallet, q.key);
    return activityPage(activityOfEntries(this.entries(own, q.descending), own, q.descending, this.paidShare), q);
  }

  /** A page of `activity2` records of one wallet. */
  query2(q: Activity2Query): Activity2[] {
    const own = ownAddresses(this.wallet, q.key);
    return activity2Page(activity2OfEntries(this.entries(own, q.descending), q.key, own, this.paidShare), q);
  }
}

/** The `activity` records of entries in their order (a transaction's own records reversed when oldest first). */
function* activityOfEntries(entries: Iterable<ActivityEntry>, own: Map<string, WalletKey>, newestFirst: boolean, paidShare?: PaidShare): Generator<Activity> {
  for (const e of entries) {
    if ('fee' in e) {
      yield feeActivity(e.fee);
      continue;
    }
    const records = activityRecords(e.k, own, e.status, e.height, e.time, e.status === ActivityStatus.Final ? paidShare : undefined);
    if (!newestFirst) records.reverse();
    yield* records;
  }
}

function feeActivity(f: FeeEntry['fee']): Activity {
  const to = addressToText(f.proposer);
  return {
    seedHash: toHex(f.key.primary), wallet: to, from: '', toList: { [to]: formatAmount(f.value) },
    type: ActivityType.TxFeeReward, data: '', value: formatAmount(f.value), timestamp: f.time,
    status: ActivityStatus.Final, blockHeight: Number(f.height), txid: `fee-${f.height}`,
  };
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
 * A light node's entries (relays and clients hold no blocks): from its own transactions
 * (src/wallet/light-wallet.ts), pending and dropped ones newest sent first, then the applied ones
 * from the highest block down (their time is their block header's), or that whole order reversed.
 */
function lightEntries(txs: readonly OwnTransaction[], blockTime: (height: bigint) => number, newestFirst: boolean): TxEntry[] {
  const unconfirmed = txs.filter((t) => t.height === 0n).sort((a, b) => b.sent - a.sent || Number(b.k.tx.timestamp - a.k.tx.timestamp));
  const applied = txs.filter((t) => t.height > 0n).sort((a, b) => (a.height === b.height ? 0 : a.height > b.height ? -1 : 1));
  const entries = [...unconfirmed, ...applied].map((t): TxEntry => ({
    k: t.k,
    status: t.height > 0n ? ActivityStatus.Final : t.dropped ? ActivityStatus.Error : ActivityStatus.Pending,
    height: t.height,
    time: t.height > 0n ? blockTime(t.height) : Number(t.k.tx.timestamp),
    ...(t.dropped ? { dropped: t.dropped } : {}),
  }));
  return newestFirst ? entries : entries.reverse();
}

/**
 * A light node's Activity. A mining claim keeps its block's full reward after it is paid: the
 * payment is no transaction and the share depends on other solvers' claims, which the headers do
 * not carry (Ixian-S2's activity is never updated either; only the DLT node's `rewardMinersV10`
 * calls `updateValue`).
 */
export function lightActivity(wallet: NodeWallet, txs: readonly OwnTransaction[], blockTime: (height: bigint) => number, q: ActivityQuery): Activity[] {
  const own = ownAddresses(wallet, q.key);
  return activityPage(activityOfEntries(lightEntries(txs, blockTime, q.descending), own, q.descending), q);
}

/** A light node's Activity2 records of one wallet (the claims as in {@link lightActivity}). */
export function lightActivity2(wallet: NodeWallet, txs: readonly OwnTransaction[], blockTime: (height: bigint) => number, q: Activity2Query): Activity2[] {
  const own = ownAddresses(wallet, q.key);
  return activity2Page(activity2OfEntries(lightEntries(txs, blockTime, q.descending), q.key, own), q);
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
    out.push(record(senderKey, sender, ActivityType.Sent, sumOutputs(tx), fromText));
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

/**
 * Activity2 types: the 2026 reference's ActivityType (Ixian-Core Activity/Activity.cs) with this
 * node's transaction-fee reward (202, the embedded network's proposer fees), which the reference's
 * web wallet (ixian.js) still shows.
 */
export const Activity2Type = { ...ActivityType, IxiName: 400 } as const;
/** Activity2 states (the reference's ActivityStatus): a dropped transaction is rejected, or expired when it left the redacted window. */
export const Activity2Status = { Pending: 1, Final: 2, Expired: 3, Reverted: 4, Rejected: 5 } as const;

/**
 * One `activity2` record: the reference's ActivityObject as its API writes it (Newtonsoft, members
 * in declaration order): `id` the text txid, `seedHash` Base64 of the first 16 bytes of the wallet's
 * seed hash (for a key wallet, as this node's, its primary address), address lists as
 * address → amount, `transaction` null in a list (ActivityStorage.getActivitiesBySeedHashAndType
 * reads no transaction bytes).
 */
export interface Activity2 {
  id: string;
  seedHash: string;
  type: number;
  timestamp: number;
  status: number;
  fromAddressList: Record<string, string>;
  toAddressList: Record<string, string>;
  value: string;
  fee: string;
  appliedBlockHeight: number;
  transaction: null;
}

export interface Activity2Query {
  /** Text id of the record the page starts after; absent or unknown, from the first. */
  fromId?: string;
  /** 0 means 50 (the reference's default). */
  count: number;
  /** −1 and 0 every type. */
  type: number;
  descending: boolean;
  /** The wallet (the reference lists one seed's activity; its default the main wallet). */
  key: WalletKey;
}

/** The reference's page size when `count` is 0 or less. */
export const ACTIVITY2_DEFAULT_COUNT = 50;

/** The `activity2` records of one wallet from entries in their order. */
function* activity2OfEntries(entries: Iterable<ActivityEntry>, key: WalletKey, own: Map<string, WalletKey>, paidShare?: PaidShare): Generator<Activity2> {
  const seedHash = toBase64(key.primary.subarray(0, 16));
  for (const e of entries) {
    if ('fee' in e) {
      if (e.fee.key !== key) continue;
      const value = formatAmount(e.fee.value);
      yield {
        id: `fee-${e.fee.height}`, seedHash, type: Activity2Type.TxFeeReward, timestamp: e.fee.time, status: Activity2Status.Final,
        fromAddressList: {}, toAddressList: { [addressToText(e.fee.proposer)]: value }, value, fee: formatAmount(0n),
        appliedBlockHeight: Number(e.fee.height), transaction: null,
      };
      continue;
    }
    const r = activity2Record(e, seedHash, own, e.status === ActivityStatus.Final ? paidShare : undefined);
    if (r) yield r;
  }
}

/**
 * The record of one transaction for one wallet, as the reference's addTransactionToActivityStorage
 * (Ixian-Core Meta/IxianNode.cs) makes it: sent by the wallet (101; a mining claim 200 with the
 * block's reward, or the share paid; a name transaction 400), valued amount + fee less what it pays
 * the wallet itself, with every recipient; else received (100, a staking reward 201), valued and
 * listing the wallet's own recipients only. Null when the wallet is neither.
 */
function activity2Record(e: TxEntry, seedHash: string, own: Map<string, WalletKey>, paidShare?: PaidShare): Activity2 | null {
  const tx = e.k.tx;
  const isOwn = (a: Uint8Array) => own.has(latin1Key(a));
  const list = (entries: readonly { address: Uint8Array; amount: bigint }[]): Record<string, string> => {
    const sums = new Map<string, { address: Uint8Array; amount: bigint }>();
    for (const x of entries) {
      const s = sums.get(latin1Key(x.address)) ?? { address: x.address, amount: 0n };
      s.amount += x.amount;
      sums.set(latin1Key(x.address), s);
    }
    return Object.fromEntries([...sums.values()].map((s) => [addressToText(s.address), formatAmount(s.amount)]));
  };
  const inputs = sumInputs(tx);
  const outputs = sumOutputs(tx);
  const fee = inputs > outputs ? inputs - outputs : 0n;
  const sender = senderOf(e.k);
  let type: number;
  let value: bigint;
  let to: readonly { address: Uint8Array; amount: bigint }[];
  if (sender && isOwn(sender)) {
    to = tx.outputs;
    if (tx.type === TransactionType.PoWSolution) {
      type = Activity2Type.MiningReward;
      value = paidShare?.(e.k.id) ?? claimBlockReward(tx.outputs[0]?.data);
    } else {
      type = tx.type === TransactionType.RegName ? Activity2Type.IxiName : Activity2Type.Sent;
      value = outputs + fee - tx.outputs.reduce((s, o) => s + (isOwn(o.address) ? o.amount : 0n), 0n);
    }
  } else {
    to = tx.outputs.filter((o) => isOwn(o.address));
    if (to.length === 0) return null;
    type = tx.type === TransactionType.StakingReward ? Activity2Type.SigningReward : Activity2Type.Received;
    value = to.reduce((s, o) => s + o.amount, 0n);
  }
  const final = e.status === ActivityStatus.Final;
  const txTime = Number(tx.timestamp);
  return {
    id: e.k.textId,
    seedHash,
    type,
    // The transaction's time; once applied, the block's when that is earlier or the transaction has none (TransactionPool applyTransaction).
    timestamp: final ? (txTime !== 0 && txTime <= e.time ? txTime : e.time) : txTime || e.time,
    status: final ? Activity2Status.Final : e.status === ActivityStatus.Pending ? Activity2Status.Pending : droppedByExpiry(e.dropped) ? Activity2Status.Expired : Activity2Status.Rejected,
    fromAddressList: list(fromAddresses(tx)),
    toAddressList: list(to),
    value: formatAmount(value),
    fee: formatAmount(fee),
    appliedBlockHeight: final ? Number(e.height) : 0,
    transaction: null,
  };
}

/** Input addresses and amounts (§8.3: nonce keys relative to the signer, the reward's signer included); none when unreadable. */
function fromAddresses(tx: KnownTx['tx']): readonly InputSource[] {
  const signer = tx.pubKey ? signerAddressOf(tx.pubKey) : null;
  if (!signer) return [];
  try {
    return inputSources(tx, signer);
  } catch {
    return [];
  }
}

/**
 * A page of `records` (already in the asked order): those of the asked type (−1 and 0 every type)
 * after the record `fromId` (exclusive; an id not listed starts from the first, as the reference's
 * cursor), at most `count` (0: 50).
 */
export function activity2Page(records: Iterable<Activity2>, q: Pick<Activity2Query, 'fromId' | 'count' | 'type'>): Activity2[] {
  const count = q.count > 0 ? q.count : ACTIVITY2_DEFAULT_COUNT;
  const match = (a: Activity2) => q.type === -1 || q.type === 0 || a.type === q.type;
  // Until the cursor is met, the first page is kept in case it never is.
  const first: Activity2[] = [];
  const after: Activity2[] = [];
  let found = q.fromId === undefined;
  for (const a of records) {
    if (!found) {
      if (a.id === q.fromId) found = true;
      else if (first.length < count && match(a)) first.push(a);
      continue;
    }
    if (!match(a)) continue;
    after.push(a);
    if (after.length >= count) break;
  }
  return found ? after : first;
}
