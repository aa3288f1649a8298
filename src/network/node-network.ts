/**
 * The node on the network (issue 9): the peer network (`peer-network.ts`: links, presence,
 * keep-alives), transaction gossip (`tx-gossip.ts`) and block sync (`block-sync.ts`), wired to
 * this node's chain and mempool through two small adapters, plus what depends on the node's role:
 *
 * - a master pushes the transactions created here to the masters and pushes each block it
 *   produced, with its transactions, to the masters (full push for fresh objects, §4.1, §10 keep
 *   4); every accepted block is announced to relays and clients (§10 keep 2);
 * - a relay follows the chain from the masters, serves it to its clients, forwards stream
 *   messages (`s2data`) to the clients connected to it (§7.1), and answers its clients' sector
 *   queries (asking a master first, §3.5);
 * - a client links to the relays nearest its sector (`relay-choice.ts`, §3.5), hands its
 *   transactions to the relays and masters it is linked to and follows the chain from them.
 *
 * Simplified until the consensus issue: a block is accepted on its proposer's signature; competing
 * blocks for one height are not reverted (the first imported stays).
 */
import { blockChecksum, decodeBlockWire, type Block, type BlockSignature } from '../chain/block.js';
import type { Chain, ChainEvents } from '../chain/chain.js';
import { addressToText } from '../formats/address.js';
import { equalBytes } from '../formats/bytes.js';
import { BlockError, BlockErrorCode, TxError, TxErrorCode } from '../chain/errors.js';
import { knownTxFromBytes, type KnownTx } from '../chain/tx-codec.js';
import type { Network } from '../codec/types.js';
import type { Emitter } from '../events.js';
import type { Logger } from '../log/logger.js';
import type { Mempool, MempoolEvents } from '../mempool/mempool.js';
import { BlockSync, revertTipOrRefuse, type ImportOutcome, type SyncChain } from './block-sync.js';
import { systemClock, type NetClock, type TimerHandle } from './clock.js';
import { targetKey, type DialTarget } from './dial.js';
import type { Link } from './link.js';
import { CONNECT_DIAL_ATTEMPTS, MASTER_TYPES, PeerNetwork } from './peer-network.js';
import { PeerBook } from './peer-book.js';
import { RefusalLog } from './refusal-log.js';
import { hostOf } from './scoring.js';
import { RelayChooser } from './relay-choice.js';
import { MessageCode, messageCodeName } from './protocol/codes.js';
import { CLOSE_REASONS } from './protocol/close.js';
import type { NetworkMetricsSnapshot } from '../metrics/metrics.js';
import { encodeTransactionBatches, MAX_SIGNATURES_PER_CHUNK, RejectedCode, TxStatus, type Message, type NodeType } from './protocol/messages.js';
import type { NetworkStatusMembers } from './status.js';
import { repushOwnAfterMs, TxGossip, type AdmitOutcome, type GossipMempool } from './tx-gossip.js';
import type { MasterPowCheck } from './presence.js';
import type { HeaderChain } from '../chain/header-chain.js';
import { CLIENT_PUSH_CHECK_MS, ClientTxPusher, forwardingPool, headerSyncChain, masterLightState, type ForwardingPool, type HeaderImported } from './light-node.js';
import { LightQueries } from './light-queries.js';

export type NodeRole = 'master' | 'relay' | 'client';
export const NODE_TYPE_OF_ROLE: Record<NodeRole, NodeType> = { master: 'M', relay: 'R', client: 'C' };

export interface NodeNetworkOptions {
  role: NodeRole;
  network: Network;
  chain: Chain;
  mempool: Mempool;
  events: Emitter<ChainEvents & MempoolEvents>;
  log: Logger;
  clock?: NetClock;
  identity: { address: Uint8Array; publicKey: Uint8Array; sign(data: Uint8Array): Uint8Array };
  productVersion: string;
  /** Where peers reach us (`host:port`), '' without a listener; read when a hello is built. */
  readonly endpoint: string;
  /** Port the peer listener is bound to (0 = none), for `status`. */
  listeningPort: () => number;
  /** `--public-host`: `status` shows it as `My External IP` (else the address peers saw us at). */
  publicHost?: string;
  peers: DialTarget[];
  /** Seeds (`--seed`): masters put in the peer book at start, dialled only when needed (peer-network.ts). */
  seeds?: DialTarget[];
  /**
   * Where the masters heard of are kept across restarts (the data directory's `peers.json`):
   * masters and relays dial from them besides `peers` (§2.2). None = in memory only.
   */
  peerBookFile?: string;
  /** Where a client keeps the relays it chose across restarts (`relays.json`, relay-choice.ts). None = in memory only. */
  relayMemoryFile?: string;
  /** Seconds between blocks of this network (scales the network-height cap, §6). */
  blockIntervalSeconds: number;
  /**
   * A relay's answer to a client whose recipient is not connected to it (§7.1 step 6): the error
   * stream message for `message` and whom it goes to, or null to answer nothing (undecodable, or
   * itself an error). Given by the node from the messaging codec (network does not import it).
   */
  relayError?: (message: Uint8Array) => { recipient: Uint8Array; message: Uint8Array } | null;
  /**
   * Master signer PoW in presence (reference-network §3.3–§3.4, §10 keep 3), on a network whose
   * masters prove work: master keep-alives must carry a solution (`check` verifies received ones;
   * a relay or client passes none and accepts them unchecked, as the reference does), and a master
   * attaches `own()` (no keep-alive without one) and renews its keep-alive when `ownExpired`.
   * Absent: no PoW in presence (the embedded network).
   */
  masterPow?: {
    check?: MasterPowCheck;
    own?: () => Uint8Array | null;
    ownExpired?: (solution: Uint8Array) => boolean;
  };
  /** A master's consensus engine on a reference network (read when a message arrives). */
  consensus?: () => ConsensusPort | null;
  /** The freeze override on a reference network. */
  freeze?: FreezePort;
  /**
   * A light node (relays and clients, reference-network §1): the headers it follows instead of
   * blocks, the addresses whose transactions it wants with them, and who hears of each header taken.
   */
  light?: {
    headers: HeaderChain;
    addresses: () => Uint8Array[];
    onHeader: HeaderImported;
    /** A master refused a transaction of ours (`rejected`, §4.3; on a client, passed back by its relay). */
    onRejected?: (txid: Uint8Array, reason: number) => void;
  };
  /** A master's name lookups for light nodes (the full serialization of the record found, or null). */
  nameRecord?: (id: Uint8Array, absolute: boolean) => Uint8Array | null;
}

/**
 * Consensus as the network hands it what masters send (reference-network §5.2–5.3): blocks for
 * the next height and recent ones, and block signatures. The node adapts its consensus engine.
 */
export interface ConsensusPort {
  receiveBlock(block: Uint8Array, txs: Uint8Array[], from: Link): Promise<{ action: 'accept' | 'ignore' } | { action: 'reject'; reason: string }>;
  receiveSignatures(num: bigint, checksum: Uint8Array, sigs: BlockSignature[], from: Link): Promise<{ action: 'accept' | 'ignore' } | { action: 'reject'; reason: string }>;
}

/**
 * The signature-freeze override of reference-network §5.5 as sync needs it (every role on a
 * reference network): a block whose sig-freeze checksum is not ours names what block n − 5's row
 * must give; a copy of n − 5 whose row gives it replaces ours.
 */
export interface FreezePort {
  expectFreeze(m: bigint, checksum: Uint8Array): void;
  /** The row to store for our block m, when this copy's row is the one expected; else null. */
  offerRow(m: bigint, checksum: Uint8Array, sigs: readonly BlockSignature[]): Promise<BlockSignature[] | null>;
}

/** A stream message that reached this client (issue 11): the link it came on, its recipient and bytes. */
export type StreamMessageHandler = (link: Link, recipient: Uint8Array, message: Uint8Array) => void | Promise<void>;

/** The `rejected` reason byte for a refused transaction (reference §4.3). */
function rejectedCodeOf(err: TxError): number {
  if (err.code === TxErrorCode.AlreadyPending || err.code === TxErrorCode.AlreadyApplied) return RejectedCode.duplicate;
  if (/dust/i.test(err.message)) return RejectedCode.dust;
  if (/fee/i.test(err.message)) return RejectedCode.insufficientFee;
  return RejectedCode.invalid;
}

/** The mempool as gossip sees it: v7 bytes in, accept / ignore / reject out (the error codes' actions). */
export function gossipMempool(mempool: Mempool, network: Network, log: Logger): GossipMempool {
  return {
    admit: async (transactions, source) => {
      let failure: unknown = null;
      const outcomes = await Promise.all(
        transactions.map(async (bytes): Promise<AdmitOutcome> => {
          let k: KnownTx;
          try {
            k = knownTxFromBytes(bytes, network);
          } catch {
            return { action: 'reject', txid: null, rejectedCode: RejectedCode.invalid };
          }
          let error: TxError | null;
          try {
            error = await mempool.submit(k, { peer: source });
          } catch (err) {
            // Not the transaction's fault (the verifier's queue is full, the node is closing): not
            // taken now, no penalty; its announcers are asked again.
            failure = err;
            return { action: 'ignore', txid: null };
          }
          if (!error) return { action: 'accept', txid: k.id };
          return error.action === 'REJECT' ? { action: 'reject', txid: k.id, rejectedCode: rejectedCodeOf(error) } : { action: 'ignore', txid: k.id };
        }),
      );
      if (failure) log.warn({ peer: source, count: outcomes.filter((o) => o.action === 'ignore' && o.txid === null).length, err: (failure as Error).message }, 'transactions from a peer could not be checked now; not taken');
      return outcomes;
    },
    get: (txid) => mempool.get(txid)?.bytes ?? null,
    all: () => mempool.candidates(Number.MAX_SAFE_INTEGER).map((k) => k.bytes),
  };
}

/**
 * Adds the signatures of `bytes` to our block at its height when both are the same block (one
 * checksum; the signature row is not covered by it): two masters that made identical blocks, or a
 * block that gathered signatures since we took it.
 */
async function mergeSignatures(chain: Chain, bytes: Uint8Array, freeze?: FreezePort): Promise<ImportOutcome> {
  let block: Block;
  let checksum: Uint8Array;
  try {
    const decoded = decodeBlockWire(bytes, chain.superBlockPeriod);
    block = decoded.block;
    checksum = blockChecksum(bytes.subarray(0, decoded.headerLength));
  } catch (err) {
    return { ok: false, action: 'reject', reason: `the block does not decode: ${(err as Error).message}` };
  }
  const ours = chain.getBlock(block.num);
  if (!ours || !equalBytes(ours.checksum, checksum)) return { ok: false, action: 'ignore', reason: `another block ${block.num} than ours` };
  try {
    const row = await freeze?.offerRow(block.num, checksum, block.signatures);
    if (row) {
      await chain.setBlockSignatures(block.num, row);
      return { ok: false, action: 'ignore', reason: `block ${block.num}'s frozen signatures taken from the proposer's copy` };
    }
    await chain.addBlockSignatures(block.num, block.signatures);
    return { ok: false, action: 'ignore', reason: `block ${block.num} is known` };
  } catch (err) {
    if (!(err instanceof BlockError)) throw err;
    return { ok: false, action: err.action === 'REJECT' ? 'reject' : 'ignore', reason: `${err.code}: ${err.message}` };
  }
}

/** The chain as sync sees it: block bytes and transaction bytes, one import path. */
function syncChain(chain: Chain, mempool: Mempool, network: Network, log: Logger, unknownSigner: (address: Uint8Array) => void, freeze?: FreezePort): SyncChain {
  return {
    tip: () => ({ height: chain.height, checksum: chain.tip?.checksum ?? new Uint8Array(0), timestampSeconds: Number(chain.tip?.block.timestamp ?? 0n) }),
    // Checked against the chain: a block changed on disk is not sent (chain.ts servedBlock).
    blockBytes: (h) => chain.servedBlockOrNone(h)?.bytes ?? null,
    blockTransactions: (h) => {
      const found = chain.getBlock(h);
      return found ? chain.blockTransactionBytes(found.block) : [];
    },
    ...(freeze
      ? {
          rowOverlap: 5,
          refreshRows: async (range: readonly { height: bigint; block: Uint8Array }[]) => {
            const byHeight = new Map(range.map((r) => [r.height, r.block]));
            for (const [m, bytes] of byHeight) {
              const later = byHeight.get(m + 5n);
              if (!later || m > chain.height) continue;
              try {
                const carried = decodeBlockWire(later, chain.superBlockPeriod).block.signatureFreezeChecksum;
                if (!carried) continue;
                freeze.expectFreeze(m, carried);
                await mergeSignatures(chain, bytes, freeze);
              } catch (err) {
                log.debug({ err: (err as Error).message, height: Number(m) }, 'a row of the range could not be refreshed');
              }
            }
          },
        }
      : {}),
    revertTip: (expected) => revertTipOrRefuse(() => chain.revertTip(expected), log),
    importBlock: async (block, transactions, source): Promise<ImportOutcome> => {
      let txs: KnownTx[];
      try {
        // The pool's own objects where it has them: their signatures are verified already.
        txs = transactions.map((bytes) => {
          const k = knownTxFromBytes(bytes, network);
          return mempool.get(k.id) ?? k;
        });
      } catch (err) {
        return { ok: false, action: 'reject', reason: `a transaction of the block does not decode: ${(err as Error).message}` };
      }
      try {
        await chain.importBlock(block, txs, { source: 'sync' });
        return { ok: true };
      } catch (err) {
        if (!(err instanceof BlockError)) throw err;
        log.debug({ peer: source, code: err.code }, err.message);
        // The same block (header) we hold, maybe with signatures we lack: merge them.
        if (err.code === BlockErrorCode.AlreadyKnown) return mergeSignatures(chain, block, freeze);
        // Its freeze of block n − 5 is not ours: the sender's copy of n − 5 decides (§5.5).
        const num = err.context.num as bigint | undefined;
        if (err.code === BlockErrorCode.SignatureFreezeMismatch && freeze && num !== undefined && num > 5n) {
          const carried = decodeBlockWire(block, chain.superBlockPeriod).block.signatureFreezeChecksum;
          if (carried) {
            freeze.expectFreeze(num - 5n, carried);
            return { ok: false, action: 'refetch', reason: `${err.code}: ${err.message}`, height: num - 5n };
          }
        }
        // The next block of a chain that left ours at the tip: a fork, if it is signed as a block must be (§5.7).
        if (err.code === BlockErrorCode.ParentMismatch && (err.context.num as bigint | undefined) === chain.height + 1n) {
          try {
            await chain.verifyBlockSigners(block);
            return { ok: false, action: 'fork', reason: `${err.code}: ${err.message}` };
          } catch (e) {
            if (!(e instanceof BlockError)) throw e;
            // Judged by our chain's blocks (the signers' proofs name them), a fork from below those
            // counts no valid signature: not a fault of the sender, and a fork we cannot follow.
            if (e.code === BlockErrorCode.InsufficientSignatures) return { ok: false, action: 'fork', reason: `${e.code}: ${e.message}`, signed: false };
            return { ok: false, action: e.action === 'REJECT' ? 'reject' : 'ignore', reason: `${e.code}: ${e.message}` };
          }
        }
        // A signer not met yet: ask for its presence (its key); the next sync tick asks for the block again.
        if (err.code === BlockErrorCode.SignerUnknown) unknownSigner(err.context.signer as Uint8Array);
        return { ok: false, action: err.action === 'REJECT' ? 'reject' : 'ignore', reason: `${err.code}: ${err.message}` };
      }
    },
  };
}

export class NodeNetwork {
  readonly peers: PeerNetwork;
  readonly gossip: TxGossip;
  readonly sync: BlockSync;
  /** A light node's gossip mempool (what it forwards to masters, and from whom); null on masters. */
  private readonly forwarding: ForwardingPool | null;
  /** Light-client questions: answered on a master, passed on by a relay, asked by relays and clients. */
  readonly queries: LightQueries;
  /** A client's relay choice by sector (§3.5); null on masters and relays. */
  readonly relayChoice: RelayChooser | null;
  /** A relay's pushes again of its clients' transactions (§4.1); null on masters and clients. */
  private readonly clientPushes: ClientTxPusher | null;
  private clientPushTimer: TimerHandle | null = null;
  private readonly clock: NetClock;
  readonly role: NodeRole;
  readonly nodeType: NodeType;
  private readonly unsubscribe: (() => void)[] = [];
  /** Inbound links that ended before their hello, logged per host at most once per interval. */
  private readonly refusals: RefusalLog;
  private running = false;
  /** Set by the messaging service of a client: every `s2data` that reaches this client. */
  onStreamMessage: StreamMessageHandler | null = null;
  /** `s2data` frames a relay forwarded (bench, metrics). */
  streamMessagesForwarded = 0;

  constructor(private readonly o: NodeNetworkOptions) {
    this.role = o.role;
    this.nodeType = NODE_TYPE_OF_ROLE[o.role];
    const clock = o.clock ?? systemClock;
    this.clock = clock;
    const genesis = o.chain.getBlock(1n);
    if (!genesis) throw new Error('the network starts after the genesis block exists');
    const light = o.light;
    this.forwarding = light ? forwardingPool(o.network, () => clock.now(), () => this.peers.links(MASTER_TYPES).length > 0) : null;
    // The chain as sync sees it: a light node's headers, or the chain and mempool. The hello
    // reports its tip. (Its callbacks reach the peers, built below, only when called.)
    const syncSource: SyncChain = light
      ? headerSyncChain(light.headers, o.network, o.log, (h, txs, source) => {
          // A relay tells its clients of each header it takes (§10 keep 2: accepted blocks to R and C).
          if (this.role === 'relay') this.peers.announce({ type: 1, height: h.num, checksum: h.checksum }, ['C']);
          light.onHeader(h, txs, source);
        })
      : syncChain(
          o.chain,
          o.mempool,
          o.network,
          o.log,
          (address) => {
            for (const l of this.peers.links()) l.send({ code: MessageCode.getPresence2, address });
          },
          o.freeze,
        );
    this.refusals = new RefusalLog({
      clock,
      summary: ({ host, count, reasons, seconds }) =>
        o.log.info({ host, count, reasons }, `${count} more inbound peer links from this host ended before their hello in the last ${seconds} s`),
    });
    this.peers = new PeerNetwork({
      local: {
        network: o.network,
        genesisChecksum: genesis.checksum,
        nodeType: this.nodeType,
        address: o.identity.address,
        publicKey: o.identity.publicKey,
        productVersion: o.productVersion,
        get endpoint() {
          return o.endpoint;
        },
        sign: (d) => o.identity.sign(d),
        tip: () => {
          const t = syncSource.tip();
          return { height: t.height, checksum: t.checksum };
        },
        networkHeight: (withPeer) => this.sync.networkHeight(withPeer),
        // A master refuses new links until its start-up sync is done (notReady, §1, §2.3 step 6).
        acceptingPeers: () => this.role !== 'master' || this.sync.acceptsLinks,
      },
      clock,
      peers: o.peers,
      ...(o.seeds ? { seeds: o.seeds } : {}),
      peerBook: new PeerBook({
        clock,
        ...(o.peerBookFile ? { file: o.peerBookFile } : {}),
        onFileError: (err, action) => o.log.warn({ err, file: o.peerBookFile }, action === 'read' ? 'the peer book could not be read; starting from the configured peers' : 'the peer book could not be written'),
      }),
      clientMasterLinks: () => this.relayChoice?.mastersWanted() ?? 0,
      onMessage: (link, m) => this.message(link, m),
      onOpen: (link) => {
        o.log.info({ peer: link.peer?.addressText, type: link.peerType, remote: link.remote, height: Number(link.peerHeight) }, 'peer connected');
        this.relayChoice?.linkOpened(link);
        // A relay's clients' transactions taken while no master was linked go now (§4.1).
        if (MASTER_TYPES.includes(link.peerType)) this.pushForClients();
        this.sync.tick();
      },
      onClose: (link, info) => {
        if (link.peer) {
          o.log.info({ peer: link.peer.addressText, remote: link.remote, code: info.code, reason: info.text, byUs: info.byUs }, 'peer disconnected');
          this.relayChoice?.linkClosed(link, info);
          return;
        }
        // Closed before the hello completed: a refusal (by us or by the peer) or a failed handshake.
        // A permanent refusal of a link we dialled is a configuration the operator must see.
        const permanent = info.reason !== null && CLOSE_REASONS[info.reason].permanent;
        // Refused after its hello was read: who it said it is, so an operator can tell whom.
        const named = link.helloNamed ? { peer: link.helloNamed.addressText, type: link.helloNamed.nodeType } : {};
        const fields = { ...named, remote: link.remote, direction: link.direction, code: info.code, reason: info.text, byUs: info.byUs };
        // A close with no code of ours (1006 dropped, 1009 frame over the limit…) is not a refusal by the peer.
        const what = info.byUs ? (link.direction === 'outbound' ? 'refused the peer we dialled' : 'refused a peer link') : info.reason !== null ? 'the peer refused our link' : 'a peer link closed before its hello completed';
        if (permanent && link.direction === 'outbound') o.log.warn(fields, what);
        // Inbound: the first of a host per interval in full, the rest counted (a socket flood).
        else if (link.direction === 'outbound' || this.refusals.note(hostOf(link.remote), info.reason ?? `code ${info.code}`)) o.log.info(fields, what);
        this.relayChoice?.linkClosed(link, info);
      },
      onConnectFailed: (target, detail, givenUp) =>
        givenUp
          ? o.log.warn({ remote: targetKey(target), reason: detail }, 'not dialling the peer given to connect again: it was never reached')
          : o.log.warn({ remote: targetKey(target), reason: detail, attempts: CONNECT_DIAL_ATTEMPTS }, 'the peer given to connect could not be reached; dialling it again a few times'),
      onPeerUnreachable: (target, detail) => o.log.info({ remote: targetKey(target), reason: detail }, 'the peer given by --peer could not be reached; dialling it again'),
      onGiveUp: (target, reason) => {
        const { code, text } = CLOSE_REASONS[reason];
        o.log.warn({ remote: targetKey(target), code, reason: text }, 'not dialling this peer again: its refusal is permanent');
      },
      onError: (link, err) => o.log.error({ err, peer: link?.peer?.addressText }, 'peer message handler failed'),
      ...(o.masterPow
        ? {
            presence: {
              requireMasterPow: true,
              ...(o.masterPow.check ? { checkMasterPow: o.masterPow.check } : {}),
              ...(o.masterPow.own ? { ownPowSolution: o.masterPow.own } : {}),
              ...(o.masterPow.ownExpired ? { ownPowExpired: o.masterPow.ownExpired } : {}),
            },
          }
        : {}),
    });
    this.relayChoice =
      this.role === 'client'
        ? new RelayChooser({
            peers: this.peers,
            address: o.identity.address,
            clock,
            onChange: ({ relay, host, action }) => o.log.info({ relay: addressToText(relay), host }, `sector relay ${action}`),
            ...(o.relayMemoryFile ? { memoryFile: o.relayMemoryFile } : {}),
            onFileError: (err, action) => o.log.warn({ err, file: o.relayMemoryFile }, action === 'read' ? 'the relays chosen before could not be read' : 'the relays chosen could not be written'),
          })
        : null;
    this.gossip = new TxGossip({
      network: this.peers,
      mempool: this.forwarding ?? gossipMempool(o.mempool, o.network, o.log),
      clock,
      relaying: () => this.role === 'relay' || !this.sync.synchronizing,
      // A master's own transactions (its RPC's) go again while pending; a light node's wallet follows its own.
      ...(this.role === 'master' ? { repushAfterMs: repushOwnAfterMs(o.blockIntervalSeconds) } : {}),
      // A relay hands its clients' transactions to the masters in full, as S2 does (§4.1).
      ...(this.role === 'relay' ? { pushAccepted: true } : {}),
      onRefused: (link, count) =>
        o.log.warn({ peer: link.peer?.addressText ?? link.remote, count, waiting: this.gossip.admission.load.waiting }, 'transactions pushed faster than they are checked; batch not taken'),
    });
    this.clientPushes =
      this.role === 'relay' && this.forwarding
        ? new ClientTxPusher({
            pool: this.forwarding,
            mastersLinked: () => this.peers.links(MASTER_TYPES).length > 0,
            push: (txs) => this.gossip.pushToMasters(txs),
            isApplied: async (txid) => (await this.queries.transaction(txid)).status === TxStatus.applied,
          })
        : null;
    this.queries = new LightQueries({
      network: this.peers,
      clock,
      ...(light ? {} : { state: masterLightState(o.chain, o.mempool, o.nameRecord ?? (() => null)), serving: () => !this.sync.synchronizing }),
      proxy: this.role === 'relay',
      // A balance read at a block this node holds with another checksum comes from another chain.
      ...(light
        ? {
            onOurChain: (height: bigint, checksum: Uint8Array) => {
              const ours = light.headers.get(height);
              return !ours || equalBytes(ours.checksum, checksum);
            },
          }
        : {}),
    });
    this.sync = new BlockSync({
      network: this.peers,
      chain: syncSource,
      clock,
      // Only masters hold blocks to serve; light nodes ask masters (a client also its relays, which pass the question on).
      serve: !light,
      sources: this.role === 'client' ? ['M', 'H', 'R'] : MASTER_TYPES,
      ...(light ? { headers: { addresses: light.addresses } } : {}),
      secondsPerBlock: Math.max(o.blockIntervalSeconds, 0.001),
      log: o.log,
      onProgress: (p) => {
        if (p.status === 'Synchronizing') o.log.info({ height: Number(p.height), networkHeight: Number(p.networkHeight), blocksPerSecond: Math.round(p.blocksPerSecond) }, `synchronizing: ${p.height} / ${p.networkHeight}`);
        else {
          o.log.info({ height: Number(p.height), status: p.status }, 'synchronized with the network');
          // What the network holds pending while we were away (§6: the mempool is fetched after sync).
          if (!light) for (const l of this.peers.links(MASTER_TYPES)) l.send({ code: MessageCode.getUnappliedTransactions });
        }
      },
    });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe.push(this.o.events.on('txAdmitted', ({ txs, source }) => source === 'rpc' && this.pushLocal(txs)));
    this.unsubscribe.push(this.o.events.on('blockImported', ({ block, checksum, source }) => {
      this.gossipBlock(block.num, checksum, source);
      // Master keep-alives whose PoW is over this block can be checked now.
      this.peers.chainGrew().catch((err: unknown) => this.o.log.warn({ err }, 'deferred keep-alives failed'));
    }));
    this.peers.start();
    this.relayChoice?.start();
    // A relay or client learns the chain only from links: with nothing to dial it waits for inbound
    // links (a client gets none) at its genesis height, which looks like a hang without this line.
    if (this.role !== 'master' && !this.peers.hasPeersToDial && (this.relayChoice?.rememberedCount ?? 0) === 0) {
      this.o.log.warn(
        { role: this.role },
        `this ${this.role} has no peer to dial (no --peer or --seed, no "peer" or "seed" in the config file, none remembered in its data directory): it stays at its genesis height until a peer links to it`,
      );
    }
    this.gossip.start();
    if (this.clientPushes) {
      const tick = (): void => {
        this.clientPushTimer = this.clock.setTimer(CLIENT_PUSH_CHECK_MS, () => {
          this.pushForClients();
          tick();
        });
      };
      tick();
    }
    this.sync.start();
  }

  /** Stops everything; resolves once a block import under way has ended (the store closes next). */
  async stop(): Promise<void> {
    this.running = false;
    for (const u of this.unsubscribe.splice(0)) u();
    const syncStopped = this.sync.stop();
    this.queries.stop();
    this.gossip.stop();
    this.relayChoice?.stop();
    this.clientPushTimer?.cancel();
    this.clientPushTimer = null;
    this.peers.stop();
    this.refusals.stop();
    await syncStopped;
  }

  /** `DLT Status` Synchronizing while the tip is behind the network height (§6). */
  get isSynchronizing(): boolean {
    return this.sync.synchronizing;
  }

  /** §6 network height, never below our tip. */
  networkHeight(): bigint {
    return this.sync.networkHeight();
  }

  // ---- what consensus asks of the network (EnginePeers) ----

  /**
   * Does this wallet have a fresh master presence (§5.2)? A master linked to us proved its key and
   * a fresh timestamp in its hello, which is as good as a keep-alive it has not sent yet.
   */
  isFreshMaster(address: Uint8Array): boolean {
    const link = this.peers.registry.byIdentity(address);
    if (link?.isOpen && MASTER_TYPES.includes(link.peerType)) return true;
    const entry = this.peers.presence.get(address);
    if (!entry) return false;
    for (const d of entry.devices.values()) if (d.type === 'M' || d.type === 'H') return true;
    return false;
  }

  /** Asks the masters for the presence of a signer whose signatures do not count without it (§5.2). */
  askPresence(address: Uint8Array): void {
    this.peers.askPresenceOfMasters(address);
  }

  /**
   * Drops every link and dials the configured peers again (§5.7; RPC `reconnect`). A client's
   * relays lost before are chosen again too (relay-choice.ts), so it gets relay links back.
   */
  redial(): void {
    this.relayChoice?.reconnect();
    this.peers.reconnect();
  }

  /** A fresh candidate, in full with its transactions, to the masters (§5.1). */
  pushBlock(num: bigint, block: Uint8Array, txs: readonly Uint8Array[], except?: unknown): void {
    this.peers.broadcast({ code: MessageCode.blocks, from: num, tip: num, blocks: [{ block, transactions: [...txs] }] }, MASTER_TYPES, except as Link | undefined);
  }

  /** Signatures of a block to the masters (§5.2), in chunks. */
  pushSignatures(num: bigint, checksum: Uint8Array, sigs: readonly BlockSignature[], except?: unknown): void {
    const entries = sigs.filter((s) => s.signature).map((s) => ({ signer: s.signer, powSolution: s.powSolution, signature: s.signature! }));
    for (let i = 0; i < entries.length; i += MAX_SIGNATURES_PER_CHUNK) {
      this.peers.broadcast({ code: MessageCode.signaturesChunk2, height: num, checksum, signatures: entries.slice(i, i + MAX_SIGNATURES_PER_CHUNK) }, MASTER_TYPES, except as Link | undefined);
    }
  }

  /** Asks a link for our block `num` with its signature row (§5.5). */
  requestBlock(num: bigint, from: unknown): void {
    (from as Link).send({ code: MessageCode.getBlocks, from: num, count: 1, txMode: 0 });
  }

  /** How many of these wallets this node has an open link to. */
  linkedCount(addresses: readonly Uint8Array[]): number {
    return addresses.filter((a) => this.peers.registry.byIdentity(a)?.isOpen === true).length;
  }

  /** The RSA key of a peer wallet: from its link's hello, else from its presence. */
  keyOf(address: Uint8Array): Uint8Array | null {
    return this.peers.registry.byIdentity(address)?.peer?.publicKey ?? this.peers.presence.get(address)?.publicKey ?? null;
  }

  /** Counters for the metrics (read at scrape time). */
  metricsSnapshot(): NetworkMetricsSnapshot {
    const links = this.peers.links();
    const lag = this.sync.progress();
    const peersByType: Record<string, number> = {};
    for (const l of links) peersByType[l.peerType] = (peersByType[l.peerType] ?? 0) + 1;
    const named = (m: Map<number, number>): Record<string, number> => Object.fromEntries([...m].map(([code, n]) => [messageCodeName(code), n]));
    return {
      peersByType,
      framesIn: named(this.peers.stats.framesIn),
      framesOut: named(this.peers.stats.framesOut),
      dedupHits: this.gossip.dedupHits + this.sync.dedupHits,
      admissionRefused: this.gossip.admission.refused,
      admissionWaiting: this.gossip.admission.load.waiting,
      lightQuestions: { ...this.queries.stats },
      syncLagBlocks: Number(lag.networkHeight - lag.height),
      syncDeepFork: this.sync.deepFork ? 1 : 0,
      sendQueueBytes: links.reduce((n, l) => n + l.pendingBytes, 0),
    };
  }

  statusMembers(): NetworkStatusMembers {
    return this.peers.statusMembers(this.o.listeningPort(), this.o.publicHost);
  }

  private pushSignaturesTo(link: Link, num: bigint, checksum: Uint8Array, sigs: readonly BlockSignature[]): void {
    const entries = sigs.filter((s) => s.signature).map((s) => ({ signer: s.signer, powSolution: s.powSolution, signature: s.signature! }));
    for (let i = 0; i < entries.length; i += MAX_SIGNATURES_PER_CHUNK) {
      link.send({ code: MessageCode.signaturesChunk2, height: num, checksum, signatures: entries.slice(i, i + MAX_SIGNATURES_PER_CHUNK) });
    }
  }

  /**
   * Transactions created here: a client hands them to every link; others push them to the masters.
   * The light wallet sends its pending ones again this way (§4.1). Returns the links they went to.
   */
  pushLocal(txs: readonly KnownTx[]): number {
    if (this.role === 'client') {
      const frames = encodeTransactionBatches(0n, txs.map((k) => k.bytes));
      let reached = 0;
      for (const l of this.peers.links()) {
        let sent = true;
        for (const f of frames) if (!(sent = l.sendFrame(f))) break;
        if (sent) reached++;
      }
      return reached;
    }
    let reached = 0;
    for (const k of txs) reached = Math.max(reached, this.gossip.pushLocal(k.bytes, k.id));
    return reached;
  }

  /** A relay pushes the transactions of its clients that are due (`ClientTxPusher`); errors are logged. */
  private pushForClients(): void {
    if (!this.running || !this.clientPushes) return;
    this.clientPushes
      .run()
      .then((n) => n > 0 && this.o.log.info({ count: n }, "clients' pending transactions pushed to the masters again"))
      .catch((err: unknown) => this.o.log.warn({ err }, "pushing clients' transactions again failed"));
  }

  /** A block we produced goes in full, with its transactions, to the masters; every block is announced to all. */
  private gossipBlock(height: bigint, checksum: Uint8Array, source: string): void {
    if (source === 'genesis') return;
    if (source === 'local' && !this.o.consensus?.()) {
      const stored = this.o.chain.getBlock(height);
      if (stored) {
        const transactions = this.o.chain.blockTransactionBytes(stored.block);
        this.peers.broadcast({ code: MessageCode.blocks, from: height, tip: height, blocks: [{ block: stored.bytes, transactions }] }, MASTER_TYPES);
      }
      this.peers.announce({ type: 1, height, checksum }, ['W', 'R', 'C']);
      return;
    }
    this.peers.announce({ type: 1, height, checksum });
  }

  private async message(link: Link, m: Message): Promise<void> {
    if (m.code === MessageCode.s2data) return this.relay(link, m.recipient, m.message);
    if (m.code === MessageCode.sectorNodes) return this.relayChoice?.sectorNodes(m.prefix);
    if (m.code === MessageCode.rejected) {
      this.o.log.debug({ peer: link.peer?.addressText, reason: m.reason }, 'peer rejected a transaction');
      if (!MASTER_TYPES.includes(link.peerType) && !(this.role === 'client' && link.peerType === 'R')) return;
      // A relay passes a master's refusal back to the client that handed it the transaction; a client's wallet drops it.
      const source = this.forwarding?.sourceOf(m.txid);
      const client = source && this.role === 'relay' ? this.peers.links(['C']).find((l) => l.peer?.addressText === source) : undefined;
      client?.send({ code: MessageCode.rejected, reason: m.reason, txid: m.txid });
      // "duplicate" says it is known (pending or applied) elsewhere: nothing to drop.
      if (this.role === 'client' && m.reason !== RejectedCode.duplicate) this.o.light?.onRejected?.(m.txid, m.reason);
      return;
    }
    const asked = this.queries.handle(link, m);
    if (asked === true || (asked !== false && (await asked))) return;
    const consensus = this.o.consensus?.();
    if (consensus && !this.sync.synchronizing) {
      // A master's engine takes what masters push: candidates and recent blocks, and signatures (§5.2–5.3).
      if (m.code === MessageCode.blocks && m.blocks.length === 1 && MASTER_TYPES.includes(link.peerType)) {
        const b = m.blocks[0]!;
        if (m.tip > link.peerHeight) link.peerHeight = m.tip;
        const r = await consensus.receiveBlock(b.block, b.transactions, link);
        if (r.action === 'reject') link.penalize('invalidBlock', r.reason);
        return;
      }
      if ((m.code === MessageCode.signaturesChunk2 || m.code === MessageCode.blockSignature2) && MASTER_TYPES.includes(link.peerType)) {
        const sigs = m.code === MessageCode.signaturesChunk2 ? m.signatures : [m.signature];
        await consensus.receiveSignatures(m.height, m.checksum, sigs.map((s) => ({ signer: s.signer, powSolution: s.powSolution, signature: s.signature })), link);
        return;
      }
    }
    if (m.code === MessageCode.getBlockSignatures2) {
      const stored = this.o.chain.getBlock(m.height);
      if (stored && equalBytes(stored.checksum, m.checksum)) this.pushSignaturesTo(link, m.height, m.checksum, stored.block.signatures);
      return;
    }
    // Both see inventories: sync takes the block items, gossip the transaction items.
    const bySync = await this.sync.handle(link, m);
    if (bySync && m.code !== MessageCode.inventory2) return;
    await this.gossip.handle(link, m);
  }

  /**
   * Relays hand stream messages to the client connected to them (§7.1); nobody else forwards (no
   * relay-to-relay hop, §10 keep 7). A client's message for a recipient not connected here is
   * answered with the error stream message. A client hands what reaches it to `onStreamMessage`.
   */
  private async relay(from: Link, recipient: Uint8Array, message: Uint8Array): Promise<void> {
    if (this.role === 'client') {
      if (this.onStreamMessage) await this.onStreamMessage(from, recipient, message);
      return;
    }
    if (this.role !== 'relay') return;
    const to = this.peers.registry.byIdentity(recipient);
    if (to && to !== from && to.peerType === 'C') {
      if (to.send({ code: MessageCode.s2data, recipient, message })) this.streamMessagesForwarded++;
      return;
    }
    if (from.peerType !== 'C' || !this.o.relayError) return;
    const answer = this.o.relayError(message);
    if (answer) from.send({ code: MessageCode.s2data, recipient: answer.recipient, message: answer.message });
  }

  /**
   * Sends a stream message on a link (a client to a relay). False when the link is not open.
   */
  sendStream(link: Link, recipient: Uint8Array, message: Uint8Array): boolean {
    return link.send({ code: MessageCode.s2data, recipient, message });
  }
}
