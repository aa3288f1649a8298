/**
 * A chain on a temporary LMDB store with the cached e2e wallet key (no RSA keygen per test):
 * store, extensions, chain, mempool (in-process RSA verification), producer with genesis.
 */
import { rmSync } from 'node:fs';
import { verifySignature } from '../../src/formats/rsa.js';
import { Chain } from '../../src/chain/chain.js';
import { ChainExtensions, type ChainExtension } from '../../src/chain/extensions.js';
import { Mempool, type SignatureVerifier } from '../../src/chain/mempool.js';
import { BlockProducer } from '../../src/chain/producer.js';
import { PaymentBuilder } from '../../src/chain/builder.js';
import type { Logger } from '../../src/node/options.js';
import { openStore, type Store } from '../../src/state/store.js';
import { NodeWallet } from '../../src/wallet/wallet.js';
import { newDataDir } from '../e2e/harness.js';

export const GENESIS = 1_000_000n * 100_000_000n;

export const silentLog: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
  child: () => silentLog,
};

export const verifyInProcess: SignatureVerifier = async (items) =>
  items.map((i) => {
    try {
      return verifySignature(i.publicKey, i.data, i.signature);
    } catch {
      return false;
    }
  });

export interface TestChain {
  dataDir: string;
  store: Store;
  chain: Chain;
  mempool: Mempool;
  wallet: NodeWallet;
  producer: BlockProducer;
  builder: PaymentBuilder;
  /** Reopens store, chain and mempool on the same directory (a restart). */
  reopen(): Promise<TestChain>;
  close(): Promise<void>;
}

export async function openTestChain(extensions: ChainExtension[] = [], dataDir?: string): Promise<TestChain> {
  const dir = dataDir ?? (await newDataDir()).dataDir;
  const store = openStore(dir);
  const exts = new ChainExtensions(extensions);
  for (const e of extensions) for (const spec of e.subDatabases ?? []) store.declare(spec);
  const wallet = await NodeWallet.open(dir);
  const chain = new Chain(store, 'reg', exts, silentLog);
  const mempool = new Mempool(chain, verifyInProcess);
  const key = wallet.primary;
  const producer = new BlockProducer(chain, mempool, { address: key.primary, sign: (d) => key.sign(d) }, 'reg', 60_000, silentLog);
  await producer.genesis(GENESIS);
  const t: TestChain = {
    dataDir: dir,
    store,
    chain,
    mempool,
    wallet,
    producer,
    builder: new PaymentBuilder(chain, mempool, 'reg'),
    async reopen() {
      await store.close();
      return openTestChain(extensions, dir);
    },
    async close() {
      await producer.stop();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return t;
}
