/**
 * Extension points of the chain, so other areas (the name system, type 4) plug into block
 * application without the chain knowing them:
 *
 * - per transaction type: `validate(tx, view)` and `apply(tx, block)`; both run inside the block's
 *   single LMDB write transaction (reads through `view.store` see the writes of earlier
 *   transactions of the same block); `validate` also runs on mempool admission against the
 *   committed state;
 * - per block: `onBlock(block)`, once per block after its transactions and before the fees are
 *   shared out (reward pool payout into the fees with `block.addFee`, expiry);
 * - the block header's regNameStateChecksum (reference-formats.md §10.3 row 11):
 *   `stateChecksum(view)`;
 * - sub-databases: `subDatabases` are opened in the node's one LMDB environment before the chain
 *   starts; reach them with `view.store.declare(spec)`.
 *
 * An area registers a factory once at module load (`registerChainExtension`); `createNode`
 * instantiates every registered factory with the node's store, network and logger. Importing the
 * area's module before the node starts (the RPC method table imports every area) is enough.
 */
import type { Network, Transaction } from '../codec/types.js';
import type { Logger, NodeOptions } from '../node/options.js';
import type { SubDbSpec } from '../state/schema.js';
import type { Store } from '../state/store.js';

/** Read access to the chain state while validating a transaction. */
export interface TxView {
  readonly network: Network;
  /** Height of the block the transaction would enter (tip + 1). */
  readonly height: bigint;
  /** Unix seconds of that block. */
  readonly timestamp: bigint;
  readonly store: Store;
  /** Balance (raw CoinNumber) of an `addressNoChecksum`, including earlier transactions of this block. */
  balanceOf(address: Uint8Array): bigint;
}

/** Write access while applying a block (inside its one LMDB write transaction). */
export interface BlockWriter extends TxView {
  /** `addressNoChecksum` of the block's signer: the node's primary address, which signs its blocks. */
  readonly signer: Uint8Array;
  /**
   * Adds to the block's `totalFee` (header row, reference-formats §10.3), shared out with the
   * transaction fees after `onBlock` (the name reward payout, reference-names §5.5).
   */
  addFee(amount: bigint): void;
  credit(address: Uint8Array, amount: bigint): void;
  /** @throws TxRejectedError when the balance does not cover `amount`. */
  debit(address: Uint8Array, amount: bigint): void;
}

export interface TxTypeHook {
  /** Throws (preferably `TxRejectedError`) with a message naming the broken rule. */
  validate(tx: Transaction, view: TxView): void;
  /** Applies the type-specific effects; the chain has already moved the coins of inputs/outputs. */
  apply(tx: Transaction, block: BlockWriter): void;
}

export interface ChainExtension {
  name: string;
  subDatabases?: SubDbSpec[];
  txTypes?: Record<number, TxTypeHook>;
  onBlock?(block: BlockWriter): void;
  /** Contributes the regNameStateChecksum of the block header; null when there is no state. */
  stateChecksum?(view: TxView): Uint8Array | null;
  /** Counters for `status` (e.g. `Names`, `Names Reward Pool`), read at request time. */
  statusFields?(view: TxView): Record<string, unknown>;
}

export interface ExtensionEnv {
  store: Store;
  network: Network;
  options: NodeOptions;
  log: Logger;
}

export type ChainExtensionFactory = (env: ExtensionEnv) => ChainExtension;

const factories: ChainExtensionFactory[] = [];

/** Registers an extension factory; call once at module load. */
export function registerChainExtension(factory: ChainExtensionFactory): void {
  if (!factories.includes(factory)) factories.push(factory);
}

/** The extensions of one node, instantiated from the registered factories. */
export class ChainExtensions {
  readonly list: readonly ChainExtension[];
  private readonly txTypes = new Map<number, TxTypeHook>();

  constructor(list: ChainExtension[]) {
    this.list = list;
    for (const ext of list) {
      for (const [type, hook] of Object.entries(ext.txTypes ?? {})) {
        const t = Number(type);
        if (this.txTypes.has(t)) throw new Error(`transaction type ${t} is claimed by two chain extensions`);
        this.txTypes.set(t, hook);
      }
    }
  }

  static instantiate(env: ExtensionEnv): ChainExtensions {
    const list = factories.map((f) => f(env));
    for (const ext of list) for (const spec of ext.subDatabases ?? []) env.store.declare(spec);
    return new ChainExtensions(list);
  }

  txType(type: number): TxTypeHook | undefined {
    return this.txTypes.get(type);
  }

  onBlock(block: BlockWriter): void {
    for (const ext of this.list) ext.onBlock?.(block);
  }

  /** The first non-null contributor's checksum, or an empty array (no name state). */
  stateChecksum(view: TxView): Uint8Array {
    for (const ext of this.list) {
      const c = ext.stateChecksum?.(view);
      if (c) return c;
    }
    return new Uint8Array(0);
  }

  statusFields(view: TxView): Record<string, unknown> {
    return Object.assign({}, ...this.list.map((e) => e.statusFields?.(view) ?? {}));
  }
}
