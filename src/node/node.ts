/**
 * Assembly of a node (the composition root; lodestar's `BeaconNode.init`): every module is built
 * here, explicitly, in dependency order — the data directory's lock, store, event bus, worker pool,
 * name system, mining claims and multisig (handed to the chain as its extensions), wallet, chain,
 * mempool, consensus — and each gets its own child logger.
 * Nothing registers itself by being imported, and nothing is process-wide, so several nodes run in
 * one process. `close()` stops in the reverse order (style P52): block production, mempool, pool,
 * then the store (flushed), then the lock.
 */
import { join } from 'node:path';
import { systemClock, type Clock } from '../clock.js';
import { Chain, checkStoredNetwork, META } from '../chain/chain.js';
import { checkStoredChain } from '../chain/store-check.js';
import { keystorePath } from '../wallet/keystore.js';
import { ChainExtensions } from '../chain/extensions.js';
import { createConsensus, type ReferenceAcceptance } from '../consensus/index.js';
import { SignerMiner } from '../consensus/signer-miner.js';
import { checkGenesisIdentity } from '../consensus/producer.js';
import { keepAlivePowExpired, keepAlivePowVerdict } from '../consensus/keep-alive-pow.js';
import { BLOCK_VERSION } from '../chain/constants.js';
import type { Logger } from '../log/logger.js';
import { Mempool } from '../mempool/mempool.js';
import { createNameSystem } from '../names/chain-extension.js';
import { createWorkerPool } from '../pool/index.js';
import { openStore } from '../state/store.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../version.js';
import { NodeWallet, WALLET_KEYGEN_LOG } from '../wallet/wallet.js';
import { createNodeEvents, type NodeEventBus } from './events.js';
import { lockDataDir } from './data-dir-lock.js';
import { checkChainRules, recordChainRules } from './chain-rules.js';
import { NodeNetwork } from '../network/node-network.js';
import { PEER_BOOK_FILE } from '../network/peer-book.js';
import { RELAY_MEMORY_FILE } from '../network/relay-choice.js';
import { listenForPeers, type PeerListener } from './peer-listener.js';
import { identityOf, MessagingService } from '../messaging/service.js';
import { createMqBridge } from '../messaging/mq/bridge.js';
import type { LightModules, NodeModules, NodePool } from './modules.js';
import { HeaderChain } from '../chain/header-chain.js';
import { encodeBlockHeader } from '../chain/block.js';
import { LightWallet } from '../wallet/light-wallet.js';
import { findName } from '../names/rules.js';
import { idSections } from '../names/id.js';
import type { NameState } from '../names/state.js';
import { encodeStoredName } from '../names/name-record.js';
import { MAX_FILTER_ADDRESSES, MAX_NAME_RECORD_BYTES, rejectedReasonText } from '../network/protocol/messages.js';
import { Mining } from '../mining/index.js';
import { createMiningExtension } from '../mining/chain-extension.js';
import { createMultisigExtension } from '../multisig/chain-extension.js';
import { Miner } from '../mining/miner.js';
import { buildClaim } from '../mining/claim.js';
import { powVerify } from '../core/pow.js';
import { ActivityIndex } from '../explorer/activity.js';
import { createAddressIndex, syncAddressIndex } from '../explorer/address-index.js';
import type { NodeOptions } from './options.js';
import type { NetworkMetricsSnapshot } from '../metrics/metrics.js';

export interface DltNode {
  modules: NodeModules;
  /** The peer network's counters for the metrics; null for a lone node. */
  networkMetrics(): NetworkMetricsSnapshot | null;
  /** Messaging counters for the metrics; null when the node runs no messaging service. */
  messagingCounters(): { received: number; dropped: number; sent: number; expired: number; mqPublished: number; mqDropped: number } | null;
  events: NodeEventBus;
  /** A one-line summary for the periodic status line (src/cli/start.ts). */
  summary(): { height: number; pending: number; dltStatus: string; damagedBlockReads: number };
  close(): Promise<void>;
  ready: boolean;
}

/**
 * The record a peer's name lookup finds (`getNameRecord`, reference-network §7.3) with its data
 * records (`encodeStoredName`; without them when they exceed one message), or null for "no such name". An id that is not a name id (sections whose length
 * bytes do not add up, as `idSections` checks it for getRegName's `id`) names no name: null too,
 * not a throw (a peer's bytes are not ours to trust).
 */
export function peerNameRecord(state: NameState, id: Uint8Array, absolute: boolean): Uint8Array | null {
  try {
    idSections(id);
  } catch {
    return null;
  }
  const r = findName(state, id, absolute);
  if (!r) return null;
  const bytes = encodeStoredName(r);
  // Records past one nameRecord message travel not at all (the light node says so), never cut short.
  return bytes.length <= MAX_NAME_RECORD_BYTES ? bytes : encodeStoredName({ ...r, dataRecords: [] });
}

export interface CreateNodeDeps {
  /** Time source of every module (default: the system clock). */
  clock?: Clock;
}

/**
 * @param log the process logger; each part gets a child with its own `module` field (a child of a
 * child with the same key would print the key twice).
 */
export async function createNode(opts: NodeOptions, log: Logger, deps: CreateNodeDeps = {}): Promise<DltNode> {
  const clock = deps.clock ?? systemClock;
  const nodeLog = log.child({ module: 'node' });
  // Before anything in the directory is opened: a second node on it would rewrite this one's
  // wallet and pending records from its own memory (src/node/data-dir-lock.ts).
  const lock = lockDataDir(opts.dataDir);
  let store: ReturnType<typeof openStore>;
  try {
    store = openStore(opts.dataDir);
  } catch (err) {
    lock.release();
    throw err;
  }
  const cleanup: (() => Promise<void> | void)[] = [() => store.close(), () => lock.release()];
  try {
    // Before anything is written: a chain of another network, or made under other consensus values, is refused as it is.
    checkStoredNetwork(store, opts.network);
    checkChainRules(store, opts);
    const events = createNodeEvents(nodeLog);
    // One pool for the node: threads = cores − 1 in total (named tasks, each with its own bound).
    const pool: NodePool = createWorkerPool({ threads: opts.pool.threads, ...(opts.mining?.minerThreads ? { minerThreads: opts.mining.minerThreads } : {}) });
    cleanup.unshift(() => pool.close());
    const names = createNameSystem({
      store,
      network: opts.network,
      scale: { nameMonthBlocks: opts.names.monthBlocks, nameGraceBlocks: opts.names.graceBlocks },
      log: log.child({ module: 'names' }),
    });
    // Claims' Argon2 checks run in the pool; the in-thread check is the fallback for a missing verdict.
    const mining = createMiningExtension({
      verify: (c) => powVerify(c),
      verifyInPool: (claims) => pool.verifyPow(claims),
      ...(opts.mining?.difficulty !== undefined && opts.network === 'reg' ? { fixedDifficulty: opts.mining.difficulty } : {}),
      // Claims are paid rewardMaturity blocks after their block, as the signing rewards (960 unless the genesis shortens it).
      ...(opts.chain.genesis?.rewardMaturity !== undefined ? { rewardMaturity: opts.chain.genesis.rewardMaturity } : {}),
    });
    // A chain in the directory was made with this directory's wallet (the embedded network's
    // block 1 pays it; a master signs with it): a lost keystore is said, never replaced by a new key.
    const chainHeight = store.meta.get(META.tip) as number | undefined;
    const wallet = await NodeWallet.open(opts.dataDir, opts.walletPassword, {
      ...(chainHeight !== undefined ? { mustExist: `but ${join(opts.dataDir, 'chain')} holds a chain of ${chainHeight} blocks made with it` } : {}),
      // First start: key generation takes seconds (tens on a loaded machine) with nothing else logged.
      onCreate: () => nodeLog.info({ keystore: keystorePath(opts.dataDir) }, WALLET_KEYGEN_LOG),
    });
    const extensions = new ChainExtensions([names.extension, mining, createMultisigExtension(), createAddressIndex(wallet)]).declareIn(store);
    let mempool: Mempool | undefined;
    const chain = new Chain({
      store,
      network: opts.network,
      extensions,
      log: log.child({ module: 'chain' }),
      clock,
      events,
      verifySignatures: (items) => pool.verifyRsa(items),
      verifyBlockSignatures: (items) => pool.verifyRsa(items, { urgent: true }),
      // The mempool verified the signatures of what it holds, or is verifying them now.
      signatureVerdict: (id, signature) => mempool?.signatureVerdict(id, signature),
      ...(opts.chain.genesis?.superBlockPeriod !== undefined ? { superBlockPeriod: opts.chain.genesis.superBlockPeriod } : {}),
    });
    // LMDB checks no data page: what the next block builds on is checked before anything is served.
    const checked = checkStoredChain(chain);
    if (chain.height > 0n) nodeLog.info({ height: Number(chain.height), wallets: checked.wallets, walletsSkipped: checked.walletsSkipped, ms: Math.round(checked.ms) }, 'stored chain checked');
    // Another genesis, or another wallet's embedded chain, is refused before the index and the pool write.
    if (chain.tip) checkGenesisIdentity(chain, wallet.primary.primary, opts.chain.genesis);
    // Wallet addresses the index has not followed yet (an older store, a new key) are indexed now.
    const indexed = await syncAddressIndex(chain, wallet);
    if (indexed > 0 && chain.height > 0n) nodeLog.info({ addresses: indexed, blocks: Number(chain.height) }, 'wallet addresses indexed from the stored blocks');
    mempool = new Mempool({ chain, verify: (items, o) => pool.verifyRsa(items, o), events, log: log.child({ module: 'mempool' }) });
    const pendingPool = mempool;
    cleanup.unshift(() => pendingPool.close());
    const key = wallet.primary;
    let network: NodeNetwork | undefined;
    const role = opts.p2p?.role ?? 'master';
    // Signer proof of work (issue 10) on a genesis network: a master mines solutions in the pool
    // at the lowest priority and signs blocks with them; master keep-alives carry one
    // (reference-network §3.3–§3.4, §5.2).
    const signerPow = opts.consensus.signerPow;
    let acceptance: ReferenceAcceptance | undefined;
    // §5.6: max(the network's floor, 23.4 % of the required signer difficulty ÷ 7000).
    const minSignerDifficulty = (): bigint => acceptance?.minSignatureDifficulty(chain.height + 1n) ?? signerPow!.minDifficulty;
    const tipVersion = (): number => chain.tip?.block.version ?? BLOCK_VERSION;
    const networkHeight = (): bigint => network?.networkHeight() ?? chain.height;
    let signerMiner: SignerMiner | undefined;
    if (signerPow && role === 'master') {
      signerMiner = new SignerMiner({
        pool,
        chain,
        address: key.primary,
        minDifficulty: minSignerDifficulty,
        clock,
        log: log.child({ module: 'signer-miner' }),
        networkHeight,
        paused: () => network?.isSynchronizing === true,
        blockIntervalSeconds: opts.consensus.blockIntervalSeconds,
        ...(signerPow.duty !== undefined ? { duty: signerPow.duty } : {}),
      });
    }
    const miner = signerMiner;
    const consensus = createConsensus({
      peers: () => network,
      proposes: role === 'master',
      chain,
      mempool,
      signer: { address: key.primary, publicKey: key.publicKey, sign: (d) => key.sign(d) },
      network: opts.network,
      clock,
      log: log.child({ module: 'consensus' }),
      events,
      ...(miner
        ? {
            powSigner: (rule: ReferenceAcceptance) => {
              acceptance = rule;
              return miner;
            },
          }
        : {}),
      opts: {
        blockIntervalSeconds: opts.consensus.blockIntervalSeconds, genesisBalance: opts.chain.genesisBalance, genesis: opts.chain.genesis,
      },
    });
    acceptance ??= consensus.acceptance;
    await consensus.start();
    // The chain exists now (block 1 at least): the values it was made with are remembered.
    await recordChainRules(store, opts);
    await store.markFormat();
    // A plain keystore given a password is encrypted now, the directory's checks passed (a refused start leaves it as it was).
    if (wallet.encryptAtRest()) nodeLog.info({ keystore: keystorePath(opts.dataDir) }, 'wallet keystore encrypted with the given wallet password');
    cleanup.unshift(() => consensus.stop());
    if (miner) {
      miner.start();
      cleanup.unshift(() => miner.stop());
    }

    // Relays and clients follow block headers only (reference-network §1) and keep their own
    // transactions; the chain beside them holds block 1, the network's definition, and nothing more.
    let light: LightModules | undefined;
    if (opts.p2p && role !== 'master') {
      const headers = new HeaderChain({ store, genesisHeader: encodeBlockHeader(chain.getBlock(1n)!.block), superBlockPeriod: chain.superBlockPeriod, clock, events });
      const lightWallet = new LightWallet({
        store,
        network: opts.network,
        extensions: chain.extensions,
        wallet,
        headers,
        clock,
        log: log.child({ module: 'light-wallet' }),
        events,
        asker: () => network?.queries ?? null,
        // Pending ones go to the links again until applied or expired (reference-network §4.1).
        resend: (txs) => network?.pushLocal(txs) ?? 0,
      });
      lightWallet.start();
      cleanup.unshift(() => lightWallet.stop());
      light = { headers, wallet: lightWallet };
    }

    // The peer network (issue 9): after the genesis block exists (its checksum is in every hello).
    let listener: PeerListener | undefined;
    if (opts.p2p) {
      const p2p = opts.p2p;
      let listeningPort = 0;
      network = new NodeNetwork({
        role: p2p.role,
        network: opts.network,
        chain,
        mempool,
        events,
        log: log.child({ module: 'network' }),
        clock,
        identity: { address: key.primary, publicKey: key.publicKey, sign: (d) => key.sign(d) },
        productVersion: `dltnode-${PACKAGE_VERSION}`.slice(0, 20),
        // Known once listening (port 0 picks one): the hello reads it when a link opens.
        get endpoint() {
          return p2p.listen && listeningPort ? `${p2p.publicHost ?? p2p.listen.host}:${listeningPort}` : '';
        },
        listeningPort: () => listeningPort,
        peers: p2p.peers,
        ...(p2p.seeds ? { seeds: p2p.seeds } : {}),
        peerBookFile: join(opts.dataDir, PEER_BOOK_FILE),
        relayMemoryFile: join(opts.dataDir, RELAY_MEMORY_FILE),
        ...(p2p.publicHost ? { publicHost: p2p.publicHost } : {}),
        blockIntervalSeconds: opts.consensus.blockIntervalSeconds,
        relayError: (message) => MessagingService.relayError(message, Math.floor(clock.now() / 1000)),
        consensus: () => consensus.engine,
        nameRecord: (id: Uint8Array, absolute: boolean) => peerNameRecord(names.state, id, absolute),
        ...(light
          ? {
              light: {
                headers: light.headers,
                addresses: () => light!.wallet.addresses().slice(0, MAX_FILTER_ADDRESSES),
                onHeader: (h: Parameters<LightWallet['headerTaken']>[0], txs: Parameters<LightWallet['headerTaken']>[1]) => light!.wallet.headerTaken(h, txs),
                onRejected: (txid: Uint8Array, reason: number) => {
                  light!.wallet.rejected(txid, rejectedReasonText(reason)).catch((err: unknown) => nodeLog.warn({ err }, 'a refused transaction could not be recorded'));
                },
              },
            }
          : {}),
        ...(consensus.acceptance ? { freeze: consensus.acceptance } : {}),
        ...(signerPow
          ? {
              masterPow: {
                // A master checks; while it synchronizes it cannot, and takes them as the reference's warm-up does.
                ...(role === 'master'
                  ? {
                      check: (solution: Uint8Array, address: Uint8Array) => {
                        if (network?.isSynchronizing) return true;
                        const v = keepAlivePowVerdict(solution, address, chain, minSignerDifficulty());
                        return v.ok || (v.reason === 'future' || v.reason === 'unknown-block' ? 'ignore' : false);
                      },
                    }
                  : {}),
                ...(signerMiner
                  ? {
                      own: () => signerMiner!.keepAliveSolution(networkHeight(), tipVersion()),
                      ownExpired: (solution: Uint8Array) => keepAlivePowExpired(solution, networkHeight(), tipVersion()),
                    }
                  : {}),
              },
            }
          : {}),
      });
      const net = network;
      if (p2p.listen) {
        listener = await listenForPeers(net.peers, p2p.listen.host, p2p.listen.port);
        listeningPort = listener.port;
        const l = listener;
        cleanup.unshift(() => l.close());
      }
      net.start();
      cleanup.unshift(() => net.stop());
    }

    // Contact messaging (issue 11) on a client: its relays carry the stream messages.
    let messaging: MessagingService | undefined;
    if (role === 'client') {
      const mqLog = log.child({ module: 'mq' });
      const bridge = opts.mq ? createMqBridge({ driver: opts.mq.driver, host: opts.mq.host, port: opts.mq.port, shape: opts.mq.shape, logger: mqLog }) : null;
      if (bridge) {
        await bridge.start();
        cleanup.unshift(() => bridge.close());
        // A sent transaction's inclusion, verified from the header of its block, or its drop (reference-quixi-events §1.7).
        const off = events.on('txInclusion', ({ txid, verified }) => {
          bridge.publishTransactionStatus(txid, verified).catch((err: unknown) => mqLog.warn({ err }, 'TransactionStatusUpdate not published'));
        });
        cleanup.unshift(off);
      }
      const service = new MessagingService({ store, identity: identityOf(key), network, events, log: log.child({ module: 'messaging' }), now: () => clock.now(), bridge, crypto: (items) => pool.messagingCrypto(items), nick: opts.messaging?.nick ?? '' });
      service.start();
      cleanup.unshift(() => service.stop());
      messaging = service;
    }

    const modules: NodeModules = {
      opts,
      network: opts.network,
      log: nodeLog,
      clock,
      info: { startedAtMs: clock.now(), version: `${PACKAGE_NAME}-${PACKAGE_VERSION}` },
      store,
      events,
      chain,
      names,
      mempool,
      pool,
      wallet,
      consensus,
      p2p: network,
      peerPort: listener?.port ?? 0,
      mining: new Mining(chain, (a) => wallet.keys.some((k) => k.nonceOf(a) !== null), events, clock),
      // A genesis network pays fees to the signers with its staking rewards, not to the proposer.
      activity: new ActivityIndex(chain, mempool, wallet, events, { proposerFees: !opts.chain.genesis }),
      messaging,
      signerMiner,
      light,
    };
    // The built-in miner (--miner-threads): claims go through the pool like submitminingsolution's.
    const minerThreads = opts.mining?.minerThreads ?? 0;
    if (minerThreads > 0 && pool.searchPow) {
      const search = pool.searchPow.bind(pool);
      const miner = new Miner({
        chain,
        stats: modules.mining.stats,
        threads: minerThreads,
        solver: key.primary,
        search,
        submit: async (blockNum, nonce) => {
          const error = await pendingPool.submit(buildClaim(chain, opts.network, key, { blockNum, nonce }, clock.now()));
          if (error) throw error;
          return true;
        },
        log: log.child({ module: 'miner' }),
      });
      miner.start();
      cleanup.unshift(() => miner.stop());
    }
    // A relay's or client's height is its headers' (its chain holds block 1 only), and its pending its wallet's.
    const summary: DltNode['summary'] = () =>
      light
        ? { height: Number(light.headers.height), pending: light.wallet.pendingList().length, dltStatus: network?.sync.status() ?? consensus.dltStatus(), damagedBlockReads: chain.damagedBlockReads }
        : { height: Number(chain.height), pending: pendingPool.size, dltStatus: consensus.dltStatus(), damagedBlockReads: chain.damagedBlockReads };
    const started = summary();
    nodeLog.info({ network: opts.network, height: started.height, address: key.primaryText, pending: started.pending }, 'node started');
    const node: DltNode = {
      modules,
      events,
      ready: true,
      networkMetrics: () => network?.metricsSnapshot() ?? null,
      messagingCounters: () => {
        if (!messaging) return null;
        const s = messaging.stats;
        const mq = messaging.bridgeStats();
        return { received: s.received, dropped: s.dropped, sent: s.sent, expired: s.expired, mqPublished: mq?.published ?? 0, mqDropped: mq?.dropped ?? 0 };
      },
      summary,
      close: async () => {
        node.ready = false;
        for (const step of cleanup.splice(0)) await step();
      },
    };
    return node;
  } catch (err) {
    for (const step of cleanup) await Promise.resolve(step()).catch(() => undefined);
    throw err;
  }
}
