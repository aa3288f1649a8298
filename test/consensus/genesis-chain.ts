/**
 * A genesis network's chain in one process, wired as `createNode` wires a relay (the reference
 * acceptance installed, no engine, no presence check), with blocks signed by several masters
 * through `InlineSignerPow` and frozen as the engine freezes them (block n − 5's row when block n
 * is made, reference-network §5.5). The node's wallet is master 1 and holds the genesis funds, so
 * payments carry fees and the wallet sees its signing rewards.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { Chain, type ImportResult } from '../../src/chain/chain.js';
import { ChainExtensions } from '../../src/chain/extensions.js';
import { createAddressIndex } from '../../src/explorer/address-index.js';
import type { GenesisSpec } from '../../src/chain/genesis.js';
import type { KnownTx } from '../../src/chain/tx-codec.js';
import { systemClock } from '../../src/clock.js';
import { createConsensus, type ReferenceAcceptance } from '../../src/consensus/index.js';
import { InlineSignerPow } from '../../src/consensus/inline-signer.js';
import { addressFromText, primaryAddressFromPublicKey } from '../../src/formats/address.js';
import { Mempool } from '../../src/mempool/mempool.js';
import { createNodeEvents } from '../../src/node/events.js';
import { openStore } from '../../src/state/store.js';
import { PaymentBuilder } from '../../src/wallet/payments.js';
import { NodeWallet } from '../../src/wallet/wallet.js';
import { newDataDir } from '../e2e/harness.js';
import { silentLog, verifyInProcess, type TestChain } from '../chain/fixture.js';

export const COIN = 100_000_000n;
/** A small signer-PoW floor: a few hundred hashes per solution. */
export const TEST_MIN_SIGNER_DIFFICULTY = 200n * COIN;

export interface GenesisChain extends Pick<TestChain, 'dataDir' | 'store' | 'events' | 'chain' | 'mempool' | 'wallet' | 'producer' | 'builder'> {
  acceptance: ReferenceAcceptance;
  /** Master addresses (addressNoChecksum), the node's wallet first. */
  masters: Uint8Array[];
  close(): Promise<void>;
}

/** A genesis with the node's wallet (every test data directory holds the same cached key) funded, and `others` extra fake masters. */
export async function testGenesis(opts: { rewardMaturity?: bigint; superBlockPeriod?: bigint; others?: number } = {}): Promise<GenesisSpec> {
  const { dataDir, address } = await newDataDir();
  rmSync(dataDir, { recursive: true, force: true });
  const node = addressFromText(address);
  const others = Array.from({ length: opts.others ?? 2 }, () => primaryAddressFromPublicKey(Uint8Array.of(2, ...randomBytes(63))));
  return {
    name: 'staking-test',
    network: 'reg',
    timestamp: BigInt(Math.floor(Date.now() / 1000) - 60),
    blockIntervalSeconds: 1,
    allocations: [{ address: node, amount: 1_000_000n * COIN }],
    masters: [node, ...others],
    minSignerDifficulty: TEST_MIN_SIGNER_DIFFICULTY,
    ...(opts.rewardMaturity !== undefined ? { rewardMaturity: opts.rewardMaturity } : {}),
    ...(opts.superBlockPeriod !== undefined ? { superBlockPeriod: opts.superBlockPeriod } : {}),
  };
}

/** Opens a node of `genesis` on a fresh directory; `build`: create block 1 (false: stay empty, to import another's blocks). */
export async function openGenesisChain(genesis: GenesisSpec, build = true): Promise<GenesisChain> {
  const { dataDir } = await newDataDir();
  const store = openStore(dataDir);
  const wallet = await NodeWallet.open(dataDir);
  // The wallet's activity index, as createNode builds it (activity reads it).
  const extensions = new ChainExtensions([createAddressIndex(wallet)]).declareIn(store);
  const events = createNodeEvents(silentLog);
  let mempool: Mempool | undefined;
  const chain = new Chain({
    store, network: genesis.network, extensions, log: silentLog, clock: systemClock, events, verifySignatures: verifyInProcess,
    signatureVerdict: (id, signature) => mempool?.signatureVerdict(id, signature),
    ...(genesis.superBlockPeriod !== undefined ? { superBlockPeriod: genesis.superBlockPeriod } : {}),
  });
  mempool = new Mempool({ chain, verify: verifyInProcess, events, log: silentLog });
  const key = wallet.primary;
  const consensus = createConsensus({
    proposes: false,
    chain, mempool, network: genesis.network, clock: systemClock, log: silentLog,
    signer: { address: key.primary, publicKey: key.publicKey, sign: (d) => key.sign(d) },
    opts: { blockIntervalSeconds: genesis.blockIntervalSeconds, genesisBalance: 0n, genesis },
  });
  if (build) await consensus.producer.genesis(0n, genesis);
  const pool = mempool;
  return {
    dataDir, store, events, chain, mempool, wallet, producer: consensus.producer, acceptance: consensus.acceptance!,
    builder: new PaymentBuilder(chain, mempool, genesis.network, systemClock),
    masters: genesis.masters,
    async close() {
      await consensus.stop();
      pool.close();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Signers for the masters of `g` (each with its own ephemeral RSA-2048 key). */
export function masterSigners(g: GenesisChain): InlineSignerPow[] {
  return g.masters.map((address) => new InlineSignerPow({ chain: g.chain, address, minDifficulty: (n) => g.acceptance.minSignatureDifficulty(n) }));
}

/**
 * The next block as a master network makes it: block n − 5's row frozen (the engine's step), the
 * producer's unsigned block from `candidates` (default: the pool's), signed by every master,
 * imported.
 */
export async function nextBlock(g: GenesisChain, signers: InlineSignerPow[], candidates?: KnownTx[]): Promise<ImportResult> {
  const n = g.chain.height + 1n;
  if (n > 11n) {
    const row = await g.acceptance.frozenRow(n - 5n);
    if (row) await g.chain.setBlockSignatures(n - 5n, row);
  }
  const produced = await g.producer.produceUnsigned(BigInt(Math.floor(Date.now() / 1000)), candidates);
  const sigs = [];
  for (const s of signers) {
    const sig = await s.signBlock(n, produced.block.version, produced.checksum);
    if (sig) sigs.push(sig);
  }
  return g.chain.importBlock({ ...produced.block, signatures: sigs }, produced.txs, { source: 'local' });
}
