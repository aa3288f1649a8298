/**
 * The chain: its tip, the wallet state, and the application of a block in ONE LMDB write
 * transaction (transactions, wallet balances, applied index, pending removal, extension hooks,
 * header with checksums, tip metadata). A crash before the commit leaves the previous block as tip
 * and the transactions still pending; after it, the new block and its effects are all there.
 */
import type { Network, Transaction } from '../codec/types.js';
import { sha3_512sq } from '../core/hash.js';
import { addressFromText } from '../formats/address.js';
import { concatBytes } from '../formats/bytes.js';
import type { Logger } from '../node/options.js';
import { bytesKey, latin1Key, u64Key } from '../state/keys.js';
import type { Store } from '../state/store.js';
import { type Block, blockChecksum, decodeBlock, encodeBlock, SUPERBLOCK_INTERVAL, txIdRoot } from './block.js';
import { FOUNDATION_ADDRESS, FOUNDATION_FEE_PERCENT } from '../formats/constants.js';
import { BLOCK_VERSION, REG_MINING_DIFFICULTY, REG_SIGNER_BITS } from './consensus.js';
import { TxRejectedError } from './errors.js';
import type { BlockWriter, ChainExtensions, TxView } from './extensions.js';
import { decodeStoredTx, encodeStoredTx, type KnownTx } from './tx-codec.js';
import { inputSources, resolveSigner, sumInputs, sumOutputs } from './validate.js';
import { decodeWalletState, emptyWallet, encodeWalletState, type WalletState } from './wallet-state.js';

/** Metadata keys of the `meta` sub-database, defined once. */
export const META = {
  tip: 'tipHeight',
  appliedSeq: 'appliedSequence',
  walletCount: 'walletCount',
  supply: 'supply',
  wsChecksum: 'walletStateChecksum',
} as const;

export interface BlockSigner {
  /** Signer `addressNoChecksum`. */
  address: Uint8Array;
  /** RSA PKCS#1 v1.5 SHA-512 signature with the node's key. */
  sign(data: Uint8Array): Uint8Array;
}

export interface TipInfo {
  block: Block;
  checksum: Uint8Array;
  /** Local time (ms) the block was made or loaded. */
  receivedAtMs: number;
}

export interface BlockResult {
  block: Block;
  checksum: Uint8Array;
  applied: KnownTx[];
  rejected: { tx: KnownTx; reason: string }[];
}

const WS_HASH_BYTES = 64;

function xorInto(acc: Uint8Array, h: Uint8Array): void {
  for (let i = 0; i < WS_HASH_BYTES; i++) acc[i]! ^= h[i]!;
}

/** A wallet touched by the block being applied. */
interface WalletEntry {
  address: Uint8Array;
  state: WalletState;
  /** Stored bytes before this block; null for a wallet the block creates. */
  before: Uint8Array | null;
  /** Number of the last transaction of the block that touched it (undo journal). */
  stamp: number;
}

/** Hash of one wallet entry; the wallet-state checksum is the XOR of these over all wallets. */
const walletEntryHash = (address: Uint8Array, encoded: Uint8Array): Uint8Array =>
  sha3_512sq(concatBytes(address, encoded));

export class Chain {
  private tipInfo: TipInfo | null = null;

  constructor(
    readonly store: Store,
    readonly network: Network,
    readonly extensions: ChainExtensions,
    private readonly log: Logger,
  ) {
    const height = this.store.meta.get(META.tip) as number | undefined;
    if (height !== undefined) {
      const found = this.getBlock(BigInt(height));
      if (!found) throw new TxRejectedError(`store names tip ${height} but holds no such block`);
      this.tipInfo = { block: found.block, checksum: found.checksum, receivedAtMs: Number(found.block.timestamp) * 1000 };
    }
  }

  get tip(): TipInfo | null {
    return this.tipInfo;
  }

  get height(): bigint {
    return this.tipInfo?.block.num ?? 0n;
  }

  wallet(address: Uint8Array): WalletState {
    const bytes = this.store.db('wallets').getBinary(bytesKey(address));
    return bytes ? decodeWalletState(bytes) : emptyWallet();
  }

  getBlock(num: bigint): { block: Block; checksum: Uint8Array; bytes: Uint8Array } | null {
    if (num < 1n) return null;
    const bytes = this.store.db('blocks').getBinary(u64Key(num));
    if (!bytes) return null;
    const { block, headerLength } = decodeBlock(bytes);
    return { block, checksum: blockChecksum(bytes.subarray(0, headerLength)), bytes };
  }

  getTransaction(id: Uint8Array): KnownTx | null {
    const rec = this.store.db('transactions').getBinary(bytesKey(id));
    return rec ? decodeStoredTx(rec, this.network) : null;
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
    return (this.store.meta.get(META.wsChecksum) as Uint8Array | undefined) ?? new Uint8Array(WS_HASH_BYTES);
  }

  /** Applied transactions, newest first: `fromIndex` 0 is the most recently applied (txa). */
  appliedPage(fromIndex: number, count: number): KnownTx[] {
    const out: KnownTx[] = [];
    if (count <= 0) return out;
    const ids = this.store.db('applied').getRange({ reverse: true, offset: Math.max(0, fromIndex), limit: count, snapshot: false });
    for (const { value } of ids) {
      const k = this.getTransaction(value);
      if (k) out.push(k);
    }
    return out;
  }

  /** A read view on committed state, for mempool admission. */
  view(): TxView {
    return {
      network: this.network,
      height: this.height + 1n,
      timestamp: BigInt(Math.floor(Date.now() / 1000)),
      store: this.store,
      balanceOf: (a) => this.wallet(a).balance,
    };
  }

  /**
   * Builds, applies and commits the next block from `candidates` (already signature-checked) in one
   * write transaction. Candidates that break a state rule are left out and reported in `rejected`;
   * all candidates leave the pending sub-database (`pendingKeys`).
   */
  async commitBlock(
    candidates: KnownTx[],
    pendingKeys: Buffer[],
    signer: BlockSigner,
    genesis?: { address: Uint8Array; amount: bigint; tx: KnownTx },
  ): Promise<BlockResult> {
    const num = this.height + 1n;
    const timestamp = BigInt(Math.floor(Date.now() / 1000));
    const result = await this.store.write(() => this.applyInTxn(num, timestamp, candidates, pendingKeys, signer, genesis));
    this.tipInfo = { block: result.block, checksum: result.checksum, receivedAtMs: Date.now() };
    return result;
  }

  private applyInTxn(
    num: bigint,
    timestamp: bigint,
    candidates: KnownTx[],
    pendingKeys: Buffer[],
    signer: BlockSigner,
    genesis?: { address: Uint8Array; amount: bigint; tx: KnownTx },
  ): BlockResult {
    const { store } = this;
    const wallets = store.db('wallets');
    const changed = new Map<string, WalletEntry>();
    // Undo journal of the transaction being applied: the first prior value of each entry it
    // touches (stamp = that transaction's number), and the entries it created.
    let stamp = 0;
    const journal: { e: WalletEntry; balance: bigint; publicKey: Uint8Array | null }[] = [];
    const created: string[] = [];
    const entry = (address: Uint8Array): WalletEntry => {
      const key = latin1Key(address);
      let e = changed.get(key);
      if (!e) {
        const before = wallets.getBinary(bytesKey(address)) ?? null;
        e = { address, state: before ? decodeWalletState(before) : emptyWallet(), before: before ? Uint8Array.from(before) : null, stamp: -1 };
        changed.set(key, e);
        created.push(key);
      }
      return e;
    };
    const touch = (address: Uint8Array): WalletEntry => {
      const e = entry(address);
      if (e.stamp !== stamp) {
        e.stamp = stamp;
        journal.push({ e, balance: e.state.balance, publicKey: e.state.publicKey });
      }
      return e;
    };
    let supply = this.supply();
    let totalFee = 0n;
    const writer: BlockWriter = {
      network: this.network,
      height: num,
      timestamp,
      store,
      signer: signer.address,
      addFee: (amount) => {
        if (amount < 0n) throw new RangeError(`a block fee addition must not be negative, got ${amount}`);
        totalFee += amount;
      },
      balanceOf: (a) => entry(a).state.balance,
      credit: (a, amount) => {
        touch(a).state.balance += amount;
      },
      debit: (a, amount) => {
        const e = touch(a);
        if (e.state.balance < amount) throw new TxRejectedError('Balance is too low');
        e.state.balance -= amount;
      },
    };

    const applied: KnownTx[] = [];
    const rejected: { tx: KnownTx; reason: string }[] = [];
    if (genesis) {
      writer.credit(genesis.address, genesis.amount);
      supply += genesis.amount;
      applied.push(genesis.tx);
    }
    // Ids of this block's transactions (stored after the loop, so `hasTransaction` cannot see them).
    const inBlock = new Set<string>();
    for (const k of candidates) {
      stamp++;
      journal.length = 0;
      created.length = 0;
      try {
        const id = latin1Key(k.id);
        if (inBlock.has(id) || this.hasTransaction(k.id)) throw new TxRejectedError('transaction is already applied');
        this.applyTransaction(k.tx, writer, touch);
        totalFee += sumInputs(k.tx) - sumOutputs(k.tx);
        inBlock.add(id);
        applied.push(k);
      } catch (err) {
        // A rejected transaction leaves no trace: restore what it touched, forget what it created.
        for (let j = journal.length - 1; j >= 0; j--) {
          const { e, balance, publicKey } = journal[j]!;
          e.state.balance = balance;
          e.state.publicKey = publicKey;
        }
        for (const key of created) changed.delete(key);
        rejected.push({ tx: k, reason: (err as Error).message });
      }
    }
    // Extensions first: what they add to the fees (name rewards, §5.5) is shared out with them.
    this.extensions.onBlock(writer);
    if (totalFee > 0n) {
      const foundationShare = (totalFee * BigInt(FOUNDATION_FEE_PERCENT)) / 100n;
      writer.credit(addressFromText(FOUNDATION_ADDRESS), foundationShare);
      writer.credit(signer.address, totalFee - foundationShare);
    }

    // Wallet state: write changed wallets, keep the XOR checksum and the wallet count current.
    const ws = Uint8Array.from(this.walletStateChecksum());
    let walletCount = this.walletCount();
    for (const e of changed.values()) {
      const encoded = encodeWalletState(e.state);
      if (e.before) xorInto(ws, walletEntryHash(e.address, e.before));
      else walletCount++;
      xorInto(ws, walletEntryHash(e.address, encoded));
      wallets.put(bytesKey(e.address), Buffer.from(encoded));
    }

    // Transactions: records with their applied height, the applied-order index, pending removal.
    let seq = this.appliedCount();
    const txs = store.db('transactions');
    const appliedIdx = store.db('applied');
    for (const k of applied) {
      k.tx.applied = num;
      txs.put(bytesKey(k.id), encodeStoredTx(k));
      appliedIdx.put(u64Key(++seq), Buffer.from(k.id));
    }
    const pending = store.db('pending');
    for (const key of pendingKeys) pending.remove(key);

    const block = this.buildBlock(num, timestamp, applied, totalFee, ws, writer);
    const header = encodeBlock({ ...block, signatures: [] });
    const checksum = blockChecksum(header.bytes.subarray(0, header.headerLength));
    block.signatures = [
      { signer: signer.address, powSolution: null, signature: signer.sign(sha3_512sq(checksum)) },
    ];
    store.db('blocks').put(u64Key(num), Buffer.from(encodeBlock(block).bytes));
    store.meta.put(META.tip, Number(num));
    store.meta.put(META.appliedSeq, seq);
    store.meta.put(META.walletCount, walletCount);
    store.meta.put(META.supply, supply.toString());
    store.meta.put(META.wsChecksum, ws);
    return { block, checksum, applied, rejected };
  }

  /** Moves the coins of one transaction and runs its type hook (§8.8, §8.11). */
  private applyTransaction(
    tx: Transaction,
    writer: BlockWriter,
    touch: (a: Uint8Array) => WalletEntry,
  ): void {
    const signer = resolveSigner(tx, (a) => touch(a).state);
    const hook = this.extensions.txType(tx.type);
    hook?.validate(tx, writer);
    for (const s of inputSources(tx, signer.primary)) writer.debit(s.address, s.amount);
    for (const o of tx.outputs) writer.credit(o.address, o.amount);
    const primary = touch(signer.primary).state;
    if (!primary.publicKey) primary.publicKey = signer.publicKey;
    hook?.apply(tx, writer);
  }

  private buildBlock(
    num: bigint,
    timestamp: bigint,
    applied: KnownTx[],
    totalFee: bigint,
    ws: Uint8Array,
    view: TxView,
  ): Block {
    const prev = this.tipInfo;
    const frozen = num > 5n ? this.getBlock(num - 5n) : null;
    const txIds = applied.map((k) => k.id);
    const block: Block = {
      version: BLOCK_VERSION,
      num,
      lastBlockChecksum: prev?.checksum ?? null,
      // Signatures of block − 5 (§10.3 row 4).
      signatureFreezeChecksum: frozen
        ? sha3_512sq(concatBytes(...frozen.block.signatures.map((s) => concatBytes(s.signer, s.signature ?? new Uint8Array(0)))))
        : null,
      pitRoot: txIdRoot(txIds),
      timestamp,
      difficulty: REG_MINING_DIFFICULTY,
      walletStateChecksum: ws,
      regNameStateChecksum: this.extensions.stateChecksum(view),
      totalFee,
      signatures: [],
      txIds,
    };
    if (num === 1n || num % SUPERBLOCK_INTERVAL === 0n) block.signerBits = REG_SIGNER_BITS;
    if (num > 1n && num % SUPERBLOCK_INTERVAL === 0n) {
      const last = num - SUPERBLOCK_INTERVAL;
      const segments: Uint8Array[] = [];
      for (let n = last + 1n; n < num; n++) segments.push(this.getBlock(n)?.checksum ?? new Uint8Array(0));
      block.superBlock = { lastSuperBlockNum: last, lastSuperBlockChecksum: this.getBlock(last)?.checksum ?? null, segments };
    }
    return block;
  }
}

