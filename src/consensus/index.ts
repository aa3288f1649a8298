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
import { frozenRowChecksum, singleSignerAcceptance } from './single-signer.js';
import { ReferenceAcceptance } from './acceptance.js';
import { ConsensusEngine, type BlockPowSigner, type EnginePeers } from './engine.js';
import { InlineSignerPow } from './inline-signer.js';
import { genesisBodyRule } from './body-rule.js';
import { REWARD_MATURITY } from '../formats/constants.js';
import { consensusTiming, MIN_REQUIRED_CONSENSUS, type SignatureTally } from './rules.js';
import type { ChainEvents } from '../chain/chain.js';
import type { Emitter } from '../events.js';

export { BlockProducer, type BlockSigner } from './producer.js';
export { ReferenceAcceptance } from './acceptance.js';
export { ConsensusEngine, type BlockPowSigner, type EnginePeers } from './engine.js';

type DltStatus = 'Active' | 'Synchronizing' | 'ErrorLongTimeNoBlock';

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
  /** The master's consensus engine on a genesis network (null on the embedded network and on relays and clients). */
  readonly engine: ConsensusEngine | null;
  /** The reference's acceptance rule on a genesis network. */
  readonly acceptance?: ReferenceAcceptance;
  /** Is block production running (status `Block Processor Status`)? */
  readonly isRunning: boolean;
  /** Valid signatures a block needs; without a block, the next one (status `Required Consensus`). */
  requiredConsensus(block?: Block): number;
  /** Signatures of the tip and their total signer difficulty (status `Block Signature Count`, `Block Total Signer Difficulty`). */
  tipTally(): SignatureTally;
  /**
   * What header row 4 of block num + 5 holds for this block (getblock `Sig Checksum`; explorers
   * compare the two): its signature row's checksum as the freeze computes it, null without signatures.
   */
  signatureChecksum(block: Block, checksum: Uint8Array): Uint8Array | null;
  /** Is block num's row final, its frozen list (§5.5; never on the embedded network, which freezes nothing)? */
  frozen(num: bigint): boolean;
  /** `DLT Status` (interface.md status): Active, or ErrorLongTimeNoBlock past the limit. */
  dltStatus(): DltStatus;
  /** Seconds since the tip was imported here (status `Block generated seconds ago`). */
  secondsSinceBlock(): number;
  /** Creates the genesis block when the chain is empty, then starts producing. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** What consensus needs of the network (absent on a lone node). */
export interface ConsensusNetwork extends EnginePeers {
  /** Does this wallet have a fresh master presence (reference-network §5.2: only their signatures count)? */
  isFreshMaster(address: Uint8Array): boolean;
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
  /** The chain's events (a master's engine follows imports and reverts). */
  events?: Emitter<ChainEvents>;
  /** This master's block signer with signer PoW (default: a search on demand, inline-signer.ts). */
  powSigner?: (acceptance: ReferenceAcceptance) => BlockPowSigner;
}

export function createConsensus(deps: ConsensusDeps): Consensus {
  const genesis = deps.opts.genesis;
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
  });
  const dltStatus = (): DltStatus => (secondsSinceBlock() > NO_BLOCK_ERROR_SECONDS ? 'ErrorLongTimeNoBlock' : deps.peers?.()?.isSynchronizing ? 'Synchronizing' : 'Active');

  if (!genesis) {
    // The embedded network: this node alone, one signature per block.
    const acceptance = singleSignerAcceptance({ chain: deps.chain, signerKey: (a) => (equalBytes(a, deps.signer.address) ? deps.signer.publicKey : null) });
    deps.chain.useAcceptance(acceptance);
    return {
      producer,
      engine: null,
      get isRunning() {
        return producer.isRunning;
      },
      dltStatus,
      requiredConsensus: () => 1,
      tipTally: () => ({ count: deps.chain.tip?.block.signatures.length ?? 0, totalDifficulty: 0n }),
      // What block num + 5 freezes for this block (single-signer.ts: no signature freezing here).
      signatureChecksum: (b, checksum) => frozenRowChecksum(b.num, checksum),
      frozen: () => false,
      secondsSinceBlock,
      async start() {
        await producer.genesis(deps.opts.genesisBalance);
        if (deps.proposes !== false) producer.start();
      },
      stop: () => producer.stop(),
    };
  }

  // A genesis network: the reference's consensus among masters (reference-network §5).
  const timing = consensusTiming(genesis.blockIntervalSeconds);
  const peers = () => deps.peers?.();
  const acceptance = new ReferenceAcceptance({
    chain: deps.chain,
    isFreshMaster: (a) => equalBytes(a, deps.signer.address) || (peers()?.isFreshMaster(a) ?? false),
    requirePresence: deps.proposes !== false,
    missingPresence: (a) => peers()?.askPresence(a),
    networkHeight: () => peers()?.networkHeight() ?? deps.chain.height,
    clock: deps.clock,
    timing,
    // One master alone keeps going (its network has nobody else to sign); otherwise the reference's 2.
    minimumConsensus: genesis.masters.length === 1 ? 1 : MIN_REQUIRED_CONSENSUS,
    ...(genesis.minSignerDifficulty !== undefined ? { minSignerDifficulty: genesis.minSignerDifficulty } : {}),
    superBlockPeriod: deps.chain.superBlockPeriod,
  });
  deps.chain.useAcceptance(acceptance);
  // Signing rewards and superblocks (§5.1, §5.8): the chain builds and checks them through this rule.
  deps.chain.useBodyRule(
    genesisBodyRule({
      chain: deps.chain,
      network: deps.network,
      rewardMaturity: genesis.rewardMaturity ?? BigInt(REWARD_MATURITY),
      rowTotalDifficulty: (k) => acceptance.rowTally(k).totalDifficulty,
      ...(genesis.minSignerDifficulty !== undefined ? { minSignerDifficulty: genesis.minSignerDifficulty } : {}),
    }),
  );
  const powSigner = deps.powSigner?.(acceptance) ?? new InlineSignerPow({ chain: deps.chain, address: deps.signer.address, minDifficulty: (n) => acceptance.minSignatureDifficulty(n) });
  const engine =
    deps.proposes === false || !deps.events
      ? null
      : new ConsensusEngine({
          chain: deps.chain,
          mempool: deps.mempool,
          producer,
          acceptance,
          signer: powSigner,
          me: deps.signer.address,
          genesisNode: equalBytes(genesis.masters[0]!, deps.signer.address),
          peers,
          timing,
          network: deps.network,
          clock: deps.clock,
          log: deps.log,
        });
  const events = deps.events;
  let running = false;
  return {
    producer,
    engine,
    acceptance,
    get isRunning() {
      return running;
    },
    dltStatus,
    requiredConsensus: (block) => acceptance.required(block?.num ?? deps.chain.height + 1n),
    tipTally: () => acceptance.rowTally(deps.chain.height),
    signatureChecksum: (b) => (b.signatures.length ? acceptance.rowChecksum(b.num, b.signatures) : null),
    frozen: (num) => num + 5n <= deps.chain.height,
    secondsSinceBlock,
    async start() {
      await producer.genesis(deps.opts.genesisBalance, genesis);
      if (engine && events) {
        engine.start(events);
        running = true;
      }
    },
    async stop() {
      running = false;
      await engine?.stop();
      await producer.stop();
    },
  };
}
