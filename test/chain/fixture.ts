/**
 * A chain on a temporary LMDB store with the cached e2e wallet key (no RSA keygen per test),
 * wired like `createNode` wires it: store, event bus, extensions, chain, mempool (in-process RSA
 * verification), consensus with its producer and the genesis block.
 */
import { rmSync } from 'node:fs';
import { verifySignature } from '../../src/formats/rsa.js';
import { Chain, type SignatureVerifier } from '../../src/chain/chain.js';
import { ChainExtensions, type ChainExtension } from '../../src/chain/extensions.js';
import { BlockError, type TxError } from '../../src/chain/errors.js';
import { REG_SIGNER_BITS } from '../../src/chain/constants.js';
import type { KnownTx } from '../../src/chain/tx-codec.js';
import { systemClock, type Clock } from '../../src/clock.js';
import { sha3_512sq } from '../../src/core/hash.js';
import { createConsensus, type BlockProducer, type BlockSigner } from '../../src/consensus/index.js';
import { Mempool } from '../../src/mempool/mempool.js';
import { createNodeEvents, type NodeEventBus } from '../../src/node/events.js';
import type { Logger } from '../../src/log/logger.js';
import { openStore, type Store } from '../../src/state/store.js';
import { PaymentBuilder } from '../../src/wallet/payments.js';
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
  events: NodeEventBus;
  chain: Chain;
  mempool: Mempool;
  wallet: NodeWallet;
  signer: BlockSigner;
  producer: BlockProducer;
  builder: PaymentBuilder;
  /** Reopens store, chain and mempool on the same directory (a restart). */
  reopen(): Promise<TestChain>;
  close(): Promise<void>;
}

/** Extensions, or a function building them over the chain's store and wallet (the name system, the address index). */
export type TestExtensions = ChainExtension[] | ((store: Store, wallet: NodeWallet) => ChainExtension[]);

export async function openTestChain(extensions: TestExtensions = [], dataDir?: string, opts: { genesis?: boolean; verify?: SignatureVerifier; clock?: Clock } = {}): Promise<TestChain> {
  const verify = opts.verify ?? verifyInProcess;
  const clock = opts.clock ?? systemClock;
  const dir = dataDir ?? (await newDataDir()).dataDir;
  const store = openStore(dir);
  const wallet = await NodeWallet.open(dir);
  const exts = new ChainExtensions(typeof extensions === 'function' ? extensions(store, wallet) : extensions).declareIn(store);
  const events = createNodeEvents(silentLog);
  let mempool: Mempool | undefined;
  const chain = new Chain({
    store,
    network: 'reg',
    extensions: exts,
    log: silentLog,
    clock,
    events,
    verifySignatures: verify,
    signatureVerdict: (id, signature) => mempool?.signatureVerdict(id, signature),
  });
  mempool = new Mempool({ chain, verify, events, log: silentLog });
  const key = wallet.primary;
  const signer: BlockSigner = { address: key.primary, publicKey: key.publicKey, sign: (d) => key.sign(d) };
  const consensus = createConsensus({
    chain,
    mempool,
    signer,
    network: 'reg',
    clock,
    log: silentLog,
    opts: { blockIntervalSeconds: 60, genesisBalance: GENESIS },
  });
  if (opts.genesis !== false) await consensus.producer.genesis(GENESIS);
  const pool = mempool;
  const t: TestChain = {
    dataDir: dir,
    store,
    events,
    chain,
    mempool,
    wallet,
    signer,
    producer: consensus.producer,
    builder: new PaymentBuilder(chain, mempool, 'reg', systemClock),
    async reopen() {
      pool.close();
      await store.close();
      return openTestChain(extensions, dir, opts);
    },
    async close() {
      await consensus.stop();
      pool.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return t;
}

/** The messages of an admission's results (null = admitted). */
export async function admitReasons(t: Pick<TestChain, 'mempool'>, ks: KnownTx[]): Promise<(string | null)[]> {
  return (await t.mempool.admit(ks)).map((e: TxError | null) => e?.message ?? null);
}

/**
 * Produces a block from exactly `candidates` (not the mempool's), signs it with the node's key and
 * imports it: what the producer does, with the candidates chosen by the test.
 */
export async function commitBlock(t: TestChain, candidates: KnownTx[], opts: { producedAtMs?: number } = {}): Promise<{ applied: KnownTx[]; rejected: { tx: KnownTx; reason: string }[] }> {
  const produced = await t.chain.produceBlock({
    candidates,
    timestamp: BigInt(Math.floor(Date.now() / 1000)),
    proposer: t.signer.address,
    signerBits: REG_SIGNER_BITS,
  });
  produced.block.signatures = [{ signer: t.signer.address, powSolution: null, signature: await t.signer.sign(sha3_512sq(produced.checksum)) }];
  await t.chain.importBlock(produced.block, produced.txs, { source: 'local', ...opts });
  return { applied: produced.txs, rejected: produced.rejected.map((r) => ({ tx: r.tx, reason: r.error.message })) };
}

/** The code of the BlockError a chain operation fails with, or 'imported' when it succeeds. */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof BlockError) return err.code;
    throw err;
  }
  return 'imported';
}
