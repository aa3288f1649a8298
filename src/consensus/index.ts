/**
 * Consensus: who proposes and signs when, and which signatures a block needs (reshape-for-peers
 * §4.3). On the embedded `reg` network this node alone proposes on an interval and signs with its
 * wallet key; a block is accepted with one valid signature (required consensus 1). The full rule of
 * reference-network §5 (signer proof of work, election, required consensus, freezing) plugs in
 * here through `BlockAcceptance` and the producer's schedule.
 */
import type { Network } from '../codec/types.js';
import type { Block } from '../chain/block.js';
import type { GenesisSpec } from '../chain/genesis.js';
import type { BlockAcceptance, Chain } from '../chain/chain.js';
import type { Clock } from '../clock.js';
import { NO_BLOCK_ERROR_SECONDS } from '../chain/constants.js';
import { equalBytes } from '../formats/bytes.js';
import type { Logger } from '../log/logger.js';
import type { Mempool } from '../mempool/mempool.js';
import { BlockProducer, type BlockSigner } from './producer.js';

export { BlockProducer, type BlockSigner } from './producer.js';

/** Shortest block interval the producer accepts (the option's own floor, 0.1 s). */
export const MIN_BLOCK_INTERVAL_MS = 100;

export interface ConsensusOptions {
  blockIntervalSeconds: number;
  genesisBalance: bigint;
  /** The network's genesis; absent on the embedded network. */
  genesis?: GenesisSpec;
}

export interface Consensus {
  readonly producer: BlockProducer;
  /** Is block production running (status `Block Processor Status`)? */
  readonly isRunning: boolean;
  /** Valid signatures a block needs (status `Required Consensus`). */
  requiredConsensus(block?: Block): number;
  /** `DLT Status` (interface.md status): Active, or ErrorLongTimeNoBlock past the limit. */
  dltStatus(): 'Active' | 'ErrorLongTimeNoBlock';
  /** Seconds since the tip was imported here (status `Block generated seconds ago`). */
  secondsSinceBlock(): number;
  /** Creates the genesis block when the chain is empty, then starts producing. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface ConsensusDeps {
  chain: Chain;
  mempool: Mempool;
  signer: BlockSigner;
  network: Network;
  clock: Clock;
  log: Logger;
  opts: ConsensusOptions;
}

/** The single-signer rule of the embedded network: one valid signature; the node's own key known. */
export function singleSignerAcceptance(signer: BlockSigner): BlockAcceptance {
  return {
    requiredSignatures: () => 1,
    signerKey: (address) => (equalBytes(address, signer.address) ? signer.publicKey : null),
  };
}

export function createConsensus(deps: ConsensusDeps): Consensus {
  const acceptance = singleSignerAcceptance(deps.signer);
  deps.chain.useAcceptance(acceptance);
  const secondsSinceBlock = (): number => {
    const tip = deps.chain.tip;
    return tip ? Math.max(0, Math.floor((deps.clock.now() - tip.receivedAtMs) / 1000)) : 0;
  };
  const producer = new BlockProducer({
    chain: deps.chain,
    mempool: deps.mempool,
    signer: deps.signer,
    network: deps.network,
    clock: deps.clock,
    intervalMs: Math.max(MIN_BLOCK_INTERVAL_MS, Math.round(deps.opts.blockIntervalSeconds * 1000)),
    log: deps.log,
  });
  return {
    producer,
    get isRunning() {
      return producer.isRunning;
    },
    requiredConsensus: (block) => (block ? acceptance.requiredSignatures(block) : 1),
    secondsSinceBlock,
    dltStatus: () => (secondsSinceBlock() > NO_BLOCK_ERROR_SECONDS ? 'ErrorLongTimeNoBlock' : 'Active'),
    async start() {
      await producer.genesis(deps.opts.genesisBalance, deps.opts.genesis);
      producer.start();
    },
    stop: () => producer.stop(),
  };
}
