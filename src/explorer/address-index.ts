/**
 * The index of the node wallet's addresses in the chain (what `activity` reads instead of scanning
 * every block): for each own address a block concerns — as the sender of a transaction, as a
 * recipient, as the proposer that earns the block's fees — one entry under (address, height)
 * holding the block's time, the fee total when the address proposed it, and the positions and ids
 * of the block's transactions that concern the address.
 *
 * Only the wallet's addresses are indexed (`activity` is about them, reference-client-methods.md):
 * a block costs a set lookup per output, not a write per address. A chain extension
 * (src/chain/extensions.ts) writes the entries inside the block's write transaction, so a reverted
 * block (Chain.revertTip, the store's undo journal) takes them back, and a crash never leaves the
 * index ahead of or behind the chain. The addresses indexed so far are recorded (`meta`); an
 * address the wallet holds that the index has not followed (a store kept before the index existed,
 * a key added to the keystore) is indexed from the stored blocks when the node opens
 * (`syncAddressIndex`). An address derived while the node runs has no earlier history (its nonce
 * is new), so it is followed from then on.
 */
import type { Chain } from '../chain/chain.js';
import type { ChainExtension } from '../chain/extensions.js';
import type { KnownTx } from '../chain/tx-codec.js';
import { signerAddressOf } from '../consensus/signer-pow.js';
import { TransactionType } from '../formats/constants.js';
import { latin1Key, u64Key } from '../state/keys.js';
import { SUB_DATABASES, type SubDbSpec } from '../state/schema.js';
import type { Store, UndoEntry } from '../state/store.js';

export const ADDRESS_INDEX_DB: SubDbSpec = {
  name: 'addressActivity',
  encoding: 'binary',
  shape:
    'u8 address length ‖ addressNoChecksum (a node wallet address) ‖ u64 BE height → u64 BE block timestamp ‖ u64 BE block totalFee when the ' +
    'address proposed it (else 0) ‖ per transaction of the block that concerns the address, in block order: u32 BE position ‖ u8 id length ‖ binary txid',
};

/** `meta` key: the wallet addresses the index follows (an array of `addressNoChecksum`). */
const INDEXED_META_KEY = 'addressIndexAddresses';

/** The addresses to index: the node wallet's, a list that only grows. */
export interface IndexedAddresses {
  /** How many there are (cheap: asked once per block). */
  addressCount(): number;
  /** All of them (`addressNoChecksum`). */
  allAddresses(): Uint8Array[];
}

/** Sender primary addresses of recently met public keys (decoded keys are interned objects). */
const senders = new WeakMap<Uint8Array, Uint8Array | null>();

/** Sender primary address of a signed transaction, or null (genesis, staking, unreadable key). */
export function senderOf(k: KnownTx): Uint8Array | null {
  const pk = k.tx.pubKey;
  if (!pk || k.tx.type === TransactionType.Genesis || k.tx.type === TransactionType.StakingReward) return null;
  let sender = senders.get(pk);
  if (sender === undefined) {
    try {
      sender = signerAddressOf(pk);
    } catch {
      sender = null;
    }
    senders.set(pk, sender);
  }
  return sender;
}

/** Proposer address of a block from its signer field (an address or a key), or null. */
function proposerOf(signer: Uint8Array): Uint8Array | null {
  if (signer.length === 0) return null;
  try {
    return signerAddressOf(signer);
  } catch {
    return null;
  }
}

const HEADER_BYTES = 16;

function entryKey(address: Uint8Array, height: bigint): Buffer {
  const key = Buffer.allocUnsafe(1 + address.length + 8);
  key[0] = address.length;
  key.set(address, 1);
  key.writeBigUInt64BE(height, 1 + address.length);
  return key;
}

/** One block of the chain as the index reads it. */
interface BlockFacts {
  height: bigint;
  timestamp: bigint;
  /** The block's first signer field (its proposer), empty when unsigned. */
  signer: Uint8Array;
  totalFee: bigint;
  txs: readonly KnownTx[];
}

/** Bytes 1–4 of an address (after its version byte) as a number: a cheap first test before the full key. */
const prefixOf = (a: Uint8Array): number => ((a[1]! << 24) | (a[2]! << 16) | (a[3]! << 8) | a[4]!) >>> 0;

/** A set of addresses (latin1 keys) with the prefixes of its members, so most non-members cost no string. */
class AddressSet {
  readonly ids: ReadonlySet<string>;
  private readonly prefixes: ReadonlySet<number>;
  constructor(addresses: readonly Uint8Array[]) {
    this.ids = new Set(addresses.map(latin1Key));
    this.prefixes = new Set(addresses.filter((a) => a.length > 4).map(prefixOf));
  }
  /** The latin1 key of `a` when it is a member, else null. */
  idOf(a: Uint8Array): string | null {
    if (a.length <= 4 || !this.prefixes.has(prefixOf(a))) return null;
    const id = latin1Key(a);
    return this.ids.has(id) ? id : null;
  }
}

/** Writes the entries of the addresses of `indexed` that `b` concerns; returns their keys. */
function indexBlock(store: Store, b: BlockFacts, indexed: AddressSet): Buffer[] {
  const touched = new Map<string, { address: Uint8Array; at: number[] }>();
  const add = (address: Uint8Array, at: number): void => {
    const id = indexed.idOf(address);
    if (id === null) return;
    let t = touched.get(id);
    if (!t) touched.set(id, (t = { address, at: [] }));
    if (t.at[t.at.length - 1] !== at) t.at.push(at);
  };
  b.txs.forEach((k, i) => {
    const sender = senderOf(k);
    if (sender) add(sender, i);
    for (const o of k.tx.outputs) add(o.address, i);
  });
  const proposer = b.totalFee > 0n ? proposerOf(b.signer) : null;
  const proposerId = proposer ? indexed.idOf(proposer) : null;
  if (proposer && proposerId !== null && !touched.has(proposerId)) touched.set(proposerId, { address: proposer, at: [] });
  const db = store.declare(ADDRESS_INDEX_DB);
  const keys: Buffer[] = [];
  for (const [id, { address, at }] of touched) {
    let size = HEADER_BYTES;
    for (const i of at) size += 5 + b.txs[i]!.id.length;
    const value = Buffer.allocUnsafe(size);
    value.writeBigUInt64BE(b.timestamp, 0);
    value.writeBigUInt64BE(id === proposerId ? b.totalFee : 0n, 8);
    let o = HEADER_BYTES;
    for (const i of at) {
      const txid = b.txs[i]!.id;
      value.writeUInt32BE(i, o);
      value[o + 4] = txid.length;
      value.set(txid, o + 5);
      o += 5 + txid.length;
    }
    const key = entryKey(address, b.height);
    db.put(key, value);
    keys.push(key);
  }
  return keys;
}

/** The chain extension that keeps the index of `wallet`'s addresses. */
export function createAddressIndex(wallet: IndexedAddresses): ChainExtension {
  let count = -1;
  let indexed = new AddressSet([]);
  return {
    name: 'addressIndex',
    subDatabases: [ADDRESS_INDEX_DB],
    onApplied(txs, totalFee, block) {
      const n = wallet.addressCount();
      if (n !== count) {
        // A new address (derived meanwhile): followed from this block on, and recorded as followed.
        const all = wallet.allAddresses();
        indexed = new AddressSet(all);
        block.store.meta.put(INDEXED_META_KEY, all.map((a) => Buffer.from(a)));
        count = n;
      }
      indexBlock(block.store, { height: block.height, timestamp: block.timestamp, signer: block.signer, totalFee, txs }, indexed);
    },
  };
}

/** Blocks indexed per write transaction when stored blocks are indexed. */
const SYNC_BLOCKS_PER_WRITE = 1000;

/**
 * Indexes, from the stored blocks, the wallet addresses the index has not followed yet (a store
 * kept before the index existed, a key added to the keystore). The entries of blocks that can
 * still be reverted join those blocks' undo records, so a revert takes them back too.
 * @returns the number of addresses indexed.
 */
export async function syncAddressIndex(chain: Chain, wallet: IndexedAddresses): Promise<number> {
  const { store } = chain;
  const all = wallet.allAddresses();
  const followed = new Set(((store.meta.get(INDEXED_META_KEY) as Uint8Array[] | undefined) ?? []).map(latin1Key));
  const missing = new AddressSet(all.filter((a) => !followed.has(latin1Key(a))));
  if (missing.ids.size === 0) return 0;
  const height = chain.height;
  const undoDb = store.declare(SUB_DATABASES.undo);
  for (let from = 1n; from <= height; from += BigInt(SYNC_BLOCKS_PER_WRITE)) {
    const last = from + BigInt(SYNC_BLOCKS_PER_WRITE) - 1n;
    const to = last < height ? last : height;
    await store.write(() => {
      for (let n = from; n <= to; n++) {
        const found = chain.getBlock(n);
        if (!found) continue;
        const b = found.block;
        const facts = { height: n, timestamp: b.timestamp, signer: b.signatures[0]?.signer ?? new Uint8Array(0), totalFee: b.totalFee, txs: chain.blockTransactions(b) };
        const keys = indexBlock(store, facts, missing);
        const undo = undoDb.get(u64Key(n)) as UndoEntry[] | undefined;
        if (undo && keys.length > 0) undoDb.put(u64Key(n), [...undo, ...keys.map((k): UndoEntry => [ADDRESS_INDEX_DB.name, k, undefined])]);
      }
    });
  }
  await store.write(() => store.meta.put(INDEXED_META_KEY, all.map((a) => Buffer.from(a))));
  return missing.ids.size;
}

/** The index's view of one block for a set of addresses. */
export interface IndexedBlock {
  height: bigint;
  timestamp: bigint;
  /** The block's totalFee when one of the addresses proposed it, with that address; else null. */
  fee: { address: Uint8Array; totalFee: bigint } | null;
  /** Ids of the block's transactions that concern any of the addresses, in block order. */
  txIds: Uint8Array[];
}

interface Cursor {
  address: Uint8Array;
  entries: Iterator<{ key: unknown; value: Buffer }>;
  head: { height: bigint; value: Buffer } | null;
}

function advance(c: Cursor): void {
  const next = c.entries.next();
  if (next.done) {
    c.head = null;
    return;
  }
  const key = next.value.key as Buffer;
  c.head = { height: key.readBigUInt64BE(key.length - 8), value: next.value.value };
}

/**
 * The blocks that concern any of `addresses` (wallet addresses), newest first (or oldest first),
 * each once: the addresses' entries merged by height.
 */
export function* indexedBlocks(store: Store, addresses: readonly Uint8Array[], newestFirst: boolean): Generator<IndexedBlock> {
  const db = store.declare(ADDRESS_INDEX_DB);
  const low = (a: Uint8Array) => entryKey(a, 0n);
  const high = (a: Uint8Array) => entryKey(a, 0xffff_ffff_ffff_ffffn);
  const cursors: Cursor[] = addresses.map((address) => {
    const range = newestFirst
      ? db.getRange({ start: high(address), end: low(address), reverse: true, snapshot: false, inclusiveEnd: true })
      : db.getRange({ start: low(address), end: high(address), snapshot: false, inclusiveEnd: true });
    const c: Cursor = { address, entries: range[Symbol.iterator]() as Iterator<{ key: unknown; value: Buffer }>, head: null };
    advance(c);
    return c;
  });
  for (;;) {
    let height: bigint | null = null;
    for (const c of cursors) {
      if (c.head && (height === null || (newestFirst ? c.head.height > height : c.head.height < height))) height = c.head.height;
    }
    if (height === null) return;
    const byPosition = new Map<number, Uint8Array>();
    let timestamp = 0n;
    let fee: IndexedBlock['fee'] = null;
    for (const c of cursors) {
      if (!c.head || c.head.height !== height) continue;
      const v = c.head.value;
      timestamp = v.readBigUInt64BE(0);
      const totalFee = v.readBigUInt64BE(8);
      if (totalFee > 0n) fee = { address: c.address, totalFee };
      for (let o = HEADER_BYTES; o < v.length; ) {
        const at = v.readUInt32BE(o);
        const len = v[o + 4]!;
        if (!byPosition.has(at)) byPosition.set(at, Uint8Array.from(v.subarray(o + 5, o + 5 + len)));
        o += 5 + len;
      }
      advance(c);
    }
    const txIds = [...byPosition.entries()].sort((a, b) => a[0] - b[0]).map(([, id]) => id);
    yield { height, timestamp, fee, txIds };
  }
}
