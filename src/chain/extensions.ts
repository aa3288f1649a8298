/**
 * Extension points of the chain, so other areas (the name system, type 4) plug into block
 * application without the chain knowing them:
 *
 * - per transaction type: `validate(tx, view)` and `apply(tx, block)`; both run inside the block's
 *   single LMDB write transaction (reads through `view.store` see the writes of earlier
 *   transactions of the same block); `validate` also runs on mempool admission against the
 *   committed state;
 * - per block: `onBlock(block)`, once per block after its transactions and before the fees are
 *   shared out (reward pool payout into the fees with `block.addFee`, expiry); `onApplied(txs,
 *   totalFee, block)` once the block's transactions and fees are settled (indexes of the block);
 * - the block header's regNameStateChecksum (reference-formats.md §10.3 row 11):
 *   `stateChecksum(view)`;
 * - sub-databases: `subDatabases` are opened in the node's one LMDB environment before the chain
 *   starts; reach them with `view.store.declare(spec)`.
 *
 * - per transaction type, optionally: `signer(tx)` for a type that names its signer in its payload
 *   (multisig: the co-signer's key, not the wallet's), and `leader(tx)` for a transaction that only
 *   enters a block right after another one (a multisig co-signature after the transaction it signs):
 *   the mempool keeps such a follower only while its leader is pending and hands it to the
 *   producer right behind it.
 *
 * Extensions are built explicitly by `createNode` (the name system: `createNameSystem`) and handed
 * to the chain as a list: no registry, no import side effects (reshape-for-peers §3 P2). State that
 * belongs to one block's application lives in the block's write context (`BlockWriter.local`), so a
 * block retried at the same height, or a second candidate for a height, starts from a clean state.
 */
import type { Network, Transaction } from '../codec/types.js';
import type { SubDbSpec } from '../state/schema.js';
import type { Store } from '../state/store.js';
import type { KnownTx } from './tx-codec.js';
import type { WalletState } from './wallet-state.js';

/** The pending pool as a type hook sees it on admission (absent inside a block). */
export interface PendingView {
  /** A pending transaction (or one admitted earlier in the same batch). */
  get(id: Uint8Array): KnownTx | undefined;
  /** The pending transactions that follow `id` (its `leader`), in arrival order. */
  followers(id: Uint8Array): readonly KnownTx[];
  /**
   * The pending transactions of `type` not applied yet, in arrival order (then those admitted
   * earlier in the same batch). For the types of a chain extension's hooks (multisig wallet
   * changes): the pool keeps those apart, so payments are never walked.
   */
  ofType(type: number): readonly KnownTx[];
}

/** Read access to the chain state while validating a transaction. */
export interface TxView {
  readonly network: Network;
  /** Height of the block the transaction would enter (tip + 1). */
  readonly height: bigint;
  /** Unix seconds of that block. */
  readonly timestamp: bigint;
  readonly store: Store;
  /** The network's superblock period (reference-network §5.8): block layout, name-state checksum form. */
  readonly superBlockPeriod: bigint;
  /** Balance (raw CoinNumber) of an `addressNoChecksum`, including earlier transactions of this block. */
  balanceOf(address: Uint8Array): bigint;
  /** The whole state of a wallet (type, signers…), including earlier transactions of this block. Do not modify it. */
  wallet(address: Uint8Array): Readonly<WalletState>;
  /** Mempool admission only: the pending pool. */
  readonly pending?: PendingView;
}

/** The multisig members of a wallet state, as a block changes them. */
export type WalletMultisig = Pick<WalletState, 'type' | 'requiredSigs' | 'allowedSigners'>;

/** Write access while applying a block (inside its one LMDB write transaction). */
export interface BlockWriter extends TxView {
  /** `addressNoChecksum` of the block's proposer (its first signer), who receives the fees on the embedded network. */
  readonly signer: Uint8Array;
  /**
   * Per-block state of an extension, created by `init` on first use within this block's
   * application and dropped with it (an aborted or retried block starts again from `init`).
   */
  local<T>(key: string, init: () => T): T;
  /**
   * Adds coins held outside the wallets to the block's `totalFee` (header row, reference-formats
   * §10.3), shared out with the transaction fees after `onBlock`: the name reward payout
   * (reference-names §5.5), from a pool no wallet holds, so the supply grows by `amount`.
   */
  addFee(amount: bigint): void;
  credit(address: Uint8Array, amount: bigint): void;
  /** Credits newly created coins (a mining reward, reference-formats §11.3): the supply grows by `amount`. */
  mint(address: Uint8Array, amount: bigint): void;
  /** @throws TxError TX_BALANCE_TOO_LOW when the balance does not cover `amount`. */
  debit(address: Uint8Array, amount: bigint): void;
  /** Sets a wallet's multisig members (type, required signatures, allowed signers). */
  setMultisig(address: Uint8Array, multisig: WalletMultisig): void;
  /**
   * The block's transactions in block order and the position of the one being validated or
   * applied. In produce mode these are the candidates: the ones after `index` may yet be left out.
   */
  position(): { txs: readonly KnownTx[]; index: number };
}

export interface TxTypeHook {
  /**
   * The part of `validate` too costly for the event loop (a mining claim's Argon2 check), done in
   * the worker pool and remembered, so that `validate` and `apply` find its verdict instead of
   * computing it. The mempool runs it after the signature verified, the chain before a block's
   * transition. Rejects with a `TxError` when the check cannot run now (the pool is busy).
   */
  prepare?(tx: Transaction, view: TxView): Promise<void>;
  /** Throws a `TxError` (TX_TYPE_RULE) with a message naming the broken rule. */
  validate(tx: Transaction, view: TxView): void;
  /** Applies the type-specific effects; the chain has already moved the coins of inputs/outputs. */
  apply(tx: Transaction, block: BlockWriter): void;
  /**
   * Whether output `index` is credited to its address (default yes). A name transaction's first
   * output goes to the name reward pool, which no wallet holds (reference-names §5.2): its coins
   * leave the wallets, and the supply, until the pool pays them out (`addFee`).
   */
  credits?(tx: Transaction, index: number): boolean;
  /**
   * For a type whose signer is named in its payload (multisig, reference-formats §8.8): the
   * primary address its inputs resolve against (the wallet) and the key that signed it. The
   * key is not stored with the wallet. Throws a `TxError` for an unreadable payload.
   */
  signer?(tx: Transaction): { primary: Uint8Array; publicKey: Uint8Array };
  /** For a transaction that enters a block only right after another one: that one's binary txid. */
  leader?(tx: Transaction): Uint8Array | null;
}

export interface ChainExtension {
  name: string;
  subDatabases?: SubDbSpec[];
  txTypes?: Record<number, TxTypeHook>;
  onBlock?(block: BlockWriter): void;
  /**
   * After the block's transactions applied and its fees were shared out: the transactions in block
   * order and the block's totalFee (paid to `block.signer`). Writes nothing the header checks.
   */
  onApplied?(txs: readonly KnownTx[], totalFee: bigint, block: BlockWriter): void;
  /**
   * Contributes the regNameStateChecksum of the block header; null when there is no state.
   * Called with the block's writer after `onBlock`, or with a read view (status).
   */
  stateChecksum?(view: TxView | BlockWriter): Uint8Array | null;
  /**
   * The Argon2 mining difficulty (header row 8, reference-formats §10.3) the block at `view.height`
   * must carry, from the committed chain: produced blocks get it, imported ones must have it
   * (reference-network §5.3). The first extension that gives one decides.
   */
  miningDifficulty?(view: TxView): bigint;
  /** Counters for `status` (e.g. `Names`, `Names Reward Pool`), read at request time. */
  statusFields?(view: TxView): Record<string, unknown>;
}

/** The extensions of one node, in the order `createNode` lists them. */
export class ChainExtensions {
  readonly list: readonly ChainExtension[];
  private readonly txTypes = new Map<number, TxTypeHook>();
  /** The extension that claims each transaction type (`txTypes`). */
  private readonly owners = new Map<number, ChainExtension>();

  constructor(list: ChainExtension[]) {
    this.list = list;
    for (const ext of list) {
      for (const [type, hook] of Object.entries(ext.txTypes ?? {})) {
        const t = Number(type);
        if (this.txTypes.has(t)) throw new Error(`transaction type ${t} is claimed by two chain extensions`);
        this.txTypes.set(t, hook);
        this.owners.set(t, ext);
      }
    }
  }

  /** Opens every extension's sub-databases in the node's store (before the chain starts). */
  declareIn(store: Store): this {
    for (const ext of this.list) for (const spec of ext.subDatabases ?? []) store.declare(spec);
    return this;
  }

  txType(type: number): TxTypeHook | undefined {
    return this.txTypes.get(type);
  }

  /** The extension whose hook handles transaction type `type`, if any. */
  ownerOf(type: number): ChainExtension | undefined {
    return this.owners.get(type);
  }

  /** The type hook's `prepare` of `tx`; null when its type has none. */
  prepare(tx: Transaction, view: TxView): Promise<void> | null {
    return this.txTypes.get(tx.type)?.prepare?.(tx, view) ?? null;
  }

  /** `prepare` of every transaction that has one (a block's), in parallel; a failure leaves the check to `validate`/`apply`. */
  async prepareAll(txs: readonly Transaction[], view: TxView): Promise<void> {
    const pending: Promise<void>[] = [];
    for (const tx of txs) {
      const p = this.prepare(tx, view);
      if (p) pending.push(p.catch(() => undefined));
    }
    if (pending.length > 0) await Promise.all(pending);
  }

  onBlock(block: BlockWriter): void {
    for (const ext of this.list) ext.onBlock?.(block);
  }

  onApplied(txs: readonly KnownTx[], totalFee: bigint, block: BlockWriter): void {
    for (const ext of this.list) ext.onApplied?.(txs, totalFee, block);
  }

  /** The first non-null contributor's checksum, or an empty array (no name state). */
  stateChecksum(view: TxView | BlockWriter): Uint8Array {
    for (const ext of this.list) {
      const c = ext.stateChecksum?.(view);
      if (c) return c;
    }
    return new Uint8Array(0);
  }

  /** The mining difficulty of the block at `view.height`; null when no extension computes one. */
  miningDifficulty(view: TxView): bigint | null {
    for (const ext of this.list) if (ext.miningDifficulty) return ext.miningDifficulty(view);
    return null;
  }

  statusFields(view: TxView): Record<string, unknown> {
    return Object.assign({}, ...this.list.map((e) => e.statusFields?.(view) ?? {}));
  }
}
