/**
 * Assembly of a node (style P3: options and collaborators in, a handle out): the LMDB store, the
 * chain extensions, the wallet, the chain with its mempool, the block producer of the embedded
 * network and the PoW verifier pool. `close()` stops in the order of style P52: block production,
 * pool, then the store (flushed).
 */
import { createRsaVerifier } from '../pool/rsa-handlers.js';
import { createPowVerifier } from '../pool/verifier.js';
import { Chain } from '../chain/chain.js';
import { ChainExtensions } from '../chain/extensions.js';
import { Mempool } from '../chain/mempool.js';
import { BlockProducer } from '../chain/producer.js';
import { openStore } from '../state/store.js';
import { NodeWallet } from '../wallet/wallet.js';
import type { NodeContext, PowVerify } from './context.js';
import type { Logger, NodeOptions } from './options.js';

/** Shortest block interval the producer accepts (the option's own floor, 0.1 s). */
const MIN_BLOCK_INTERVAL_MS = 100;

export interface DltNode {
  context: NodeContext;
  close(): Promise<void>;
  ready: boolean;
}

/**
 * @param log the process logger; each part gets a child with its own `module` field (a child of a
 * child with the same key would print the key twice).
 */
export async function createNode(options: NodeOptions, log: Logger): Promise<DltNode> {
  const nodeLog = log.child({ module: 'node' });
  const store = openStore(options.dataDir);
  const cleanup: (() => Promise<void>)[] = [() => store.close()];
  try {
    const extensions = ChainExtensions.instantiate({ store, network: options.network, options, log: log.child({ module: 'extensions' }) });
    const wallet = await NodeWallet.open(options.dataDir, options.walletPassword);
    const chain = new Chain(store, options.network, extensions, log.child({ module: 'chain' }));
    const rsa = createRsaVerifier({ threads: options.poolThreads });
    cleanup.unshift(() => rsa.close());
    const mempool = new Mempool(chain, (items) => rsa.verify(items));
    const signerKey = wallet.primary;
    const producer = new BlockProducer(
      chain,
      mempool,
      { address: signerKey.primary, sign: (d) => signerKey.sign(d) },
      options.network,
      Math.max(MIN_BLOCK_INTERVAL_MS, Math.round(options.blockIntervalSeconds * 1000)),
      log.child({ module: 'producer' }),
    );
    const pow = createPowVerifier({ threads: options.poolThreads });
    cleanup.unshift(() => pow.close());
    const verifyPow: PowVerify = (claims) => pow.verify(claims);
    await producer.genesis(options.genesisBalance);
    producer.start();
    cleanup.unshift(() => producer.stop());

    const context: NodeContext = {
      options,
      network: options.network,
      log: nodeLog,
      store,
      chain,
      mempool,
      wallet,
      producer,
      verifyPow,
      startedAtMs: Date.now(),
      // Per transaction, batched by the mempool with the others of the same macrotask.
      submit: (txs) => Promise.all(txs.map((k) => mempool.submit(k))),
    };
    nodeLog.info(
      { network: options.network, height: Number(chain.height), address: signerKey.primaryText, pending: mempool.size },
      'node started',
    );
    const node: DltNode = {
      context,
      ready: true,
      close: async () => {
        node.ready = false;
        for (const step of cleanup.splice(0)) await step();
      },
    };
    return node;
  } catch (err) {
    for (const step of cleanup) await step().catch(() => undefined);
    throw err;
  }
}
