/**
 * Block production on the embedded network (DESIGN.md decision 3): the genesis block crediting
 * the node's wallet, then one block every interval with the pool's transactions, signed by the
 * node. One block at a time; a slow commit delays the next tick instead of overlapping it.
 */
import type { Network, Transaction } from '../codec/types.js';
import type { Logger } from '../node/options.js';
import type { BlockSigner, Chain } from './chain.js';
import { MAX_TRANSACTIONS_PER_BLOCK, TransactionType } from '../formats/constants.js';
import { TX_VERSION } from './consensus.js';
import type { Mempool } from './mempool.js';
import { knownTx } from './tx-codec.js';

/** The Genesis transaction (type 3) of block 1: one output crediting `address`. */
export function genesisTransaction(address: Uint8Array, amount: bigint): Transaction {
  return {
    version: TX_VERSION,
    type: TransactionType.Genesis,
    blockHeight: 1n,
    inputs: [],
    outputs: [{ address, amount }],
    nonce: 0,
    pubKey: null,
    signature: null,
    applied: 0n,
    timestamp: BigInt(Math.floor(Date.now() / 1000)),
  };
}

export class BlockProducer {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = false;

  constructor(
    private readonly chain: Chain,
    private readonly mempool: Mempool,
    private readonly signer: BlockSigner,
    private readonly network: Network,
    private readonly intervalMs: number,
    private readonly log: Logger,
  ) {}

  /** Creates block 1 when the chain is empty. */
  async genesis(amount: bigint): Promise<void> {
    if (this.chain.tip) return;
    const tx = knownTx(genesisTransaction(this.signer.address, amount), this.network);
    const r = await this.chain.commitBlock([], [], this.signer, { address: this.signer.address, amount, tx });
    this.log.info({ height: Number(r.block.num), amount: amount.toString() }, 'genesis block created');
  }

  get isRunning(): boolean {
    return this.timer !== null;
  }

  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.produce().finally(() => (this.running = null));
    }, this.intervalMs);
  }

  /** Produces one block now from the pool's transactions. */
  async produce(): Promise<void> {
    const { txs, keys } = this.mempool.candidates(MAX_TRANSACTIONS_PER_BLOCK);
    try {
      const r = await this.chain.commitBlock(txs, keys, this.signer);
      this.mempool.remove(txs);
      for (const { tx, reason } of r.rejected) this.log.warn({ id: tx.textId, reason }, 'pending transaction dropped');
      this.log.debug({ height: Number(r.block.num), txs: r.applied.length }, 'block produced');
    } catch (err) {
      this.log.error({ err }, 'block production failed');
    }
  }

  /** Stops the interval and waits for a block being committed. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
