/**
 * What every RPC handler receives: the node's modules, assembled once by `createNode`.
 */
import type { Network } from '../codec/types.js';
import type { PowClaim } from '../core/pow.js';
import type { Chain } from '../chain/chain.js';
import type { Mempool } from '../chain/mempool.js';
import type { BlockProducer } from '../chain/producer.js';
import type { KnownTx } from '../chain/tx-codec.js';
import type { Store } from '../state/store.js';
import type { NodeWallet } from '../wallet/wallet.js';
import type { Logger, NodeOptions } from './options.js';

/** Verifies mining PoW claims (reference-formats §11): for each, does the Argon2id hash meet the difficulty? */
export type PowVerify = (claims: PowClaim[]) => Promise<boolean[]>;

export interface NodeContext {
  readonly options: NodeOptions;
  readonly network: Network;
  readonly log: Logger;
  readonly store: Store;
  readonly chain: Chain;
  readonly mempool: Mempool;
  readonly wallet: NodeWallet;
  readonly producer: BlockProducer;
  readonly verifyPow: PowVerify;
  /** Unix ms the node started. */
  readonly startedAtMs: number;
  /** Admits transactions into the pool; each gets null or the rejection reason. */
  submit(txs: KnownTx[]): Promise<(string | null)[]>;
}
