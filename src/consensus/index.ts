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
import { BlockProducer, type BlockSigner, type ProposerSchedule } from './producer.js';

export { BlockProducer, type BlockSigner, type ProposerSchedule } from './producer.js';

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
  dltStatus(): 'Active' | 'Synchronizing' | 'ErrorLongTimeNoBlock';
  /** Seconds since the tip was imported here (status `Block generated seconds ago`). */
  secondsSinceBlock(): number;
  /** Creates the genesis block when the chain is empty, then starts producing. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** What consensus needs of the network (absent on a lone node). */
export interface ConsensusNetwork {
  /** A master proposes nothing while it synchronizes (reference-network §6). */
  readonly isSynchronizing: boolean;
  /** The RSA key of a peer wallet, from its hello or its presence. */
  keyOf(address: Uint8Array): Uint8Array | null;
  /** How many of these wallets this node has an open link to. */
  linkedCount(addresses: readonly Uint8Array[]): number;
}

export interface ConsensusDeps {
  /** Read when needed: the peer network starts after the genesis block exists. */
  peers?: () => ConsensusNetwork | undefined;
  /** This node proposes blocks (a master); relays and clients only follow. */
  proposes?: boolean;
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

/**
 * A genesis network's masters take turns (until the consensus issue's election, reference-network
 * §5.1): block h is proposed by masters[h mod n]; when its parent is older than one interval plus
 * 2k intervals, the k-th next master may propose instead, so a stopped master does not stall the
 * chain. Signatures count only from the genesis masters; their keys come from the network.
 */
export function rotationSchedule(masters: readonly Uint8Array[], me: Uint8Array, intervalMs: number, network: () => ConsensusNetwork | undefined): ProposerSchedule {
  const mine = masters.findIndex((m) => equalBytes(m, me));
  return {
    mayPropose(nextHeight, msSinceTip) {
      const net = network();
      if (mine < 0 || net?.isSynchronizing) return false;
      const others = masters.filter((_, i) => i !== mine);
      if (2 * (1 + (net?.linkedCount(others) ?? 0)) <= masters.length) return false;
      const late = Math.max(0, msSinceTip - intervalMs);
      const k = Math.floor(late / (2 * intervalMs));
      return Number((nextHeight + BigInt(k)) % BigInt(masters.length)) === mine;
    },
  };
}

export function createConsensus(deps: ConsensusDeps): Consensus {
  const masters = deps.opts.genesis?.masters;
  const acceptance: BlockAcceptance = masters
    ? {
        requiredSignatures: () => 1,
        signerKey: (address) => {
          if (!masters.some((m) => equalBytes(m, address))) return null; // only the genesis masters sign
          if (equalBytes(address, deps.signer.address)) return deps.signer.publicKey;
          return deps.peers?.()?.keyOf(address) ?? null;
        },
      }
    : singleSignerAcceptance(deps.signer);
  deps.chain.useAcceptance(acceptance);
  const secondsSinceBlock = (): number => {
    const tip = deps.chain.tip;
    return tip ? Math.max(0, Math.floor((deps.clock.now() - tip.receivedAtMs) / 1000)) : 0;
  };
  const intervalMs = Math.max(MIN_BLOCK_INTERVAL_MS, Math.round(deps.opts.blockIntervalSeconds * 1000));
  const producer = new BlockProducer({
    chain: deps.chain,
    mempool: deps.mempool,
    signer: deps.signer,
    network: deps.network,
    clock: deps.clock,
    intervalMs,
    log: deps.log,
    ...(masters ? { schedule: rotationSchedule(masters, deps.signer.address, intervalMs, () => deps.peers?.()) } : {}),
  });
  return {
    producer,
    get isRunning() {
      return producer.isRunning;
    },
    dltStatus: () => (secondsSinceBlock() > NO_BLOCK_ERROR_SECONDS ? 'ErrorLongTimeNoBlock' : deps.peers?.()?.isSynchronizing ? 'Synchronizing' : 'Active'),
    requiredConsensus: (block) => (block ? acceptance.requiredSignatures(block) : 1),
    secondsSinceBlock,
    async start() {
      await producer.genesis(deps.opts.genesisBalance, deps.opts.genesis);
      if (deps.proposes !== false) producer.start();
    },
    stop: () => producer.stop(),
  };
}
