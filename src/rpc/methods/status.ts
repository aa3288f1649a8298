/**
 * `status` (interface.md "status"; reference-rpc-messaging.md §2.9): every member computed from
 * the node's state. This node runs the embedded single-node network: it has no peers, so the
 * network members report what is true of it (no clients/servers, its own height as network height).
 */
import { signerStatusMembers } from '../../consensus/signer-status.js';
import { formatAmount } from '../../formats/amount.js';
import { toHex } from '../../formats/bytes.js';
import { BLOCK_VERSION_V10 } from '../../formats/constants.js';
import type { NodeModules } from '../../node/modules.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../../version.js';
import { methodFor } from '../types.js';
import { totalSignerDifficultyOf } from './block-dict.js';

/** Node software version, from package.json, reported as Node Version. */
export const NODE_VERSION = `${PACKAGE_NAME}-${PACKAGE_VERSION}`;
/** Reference core version whose byte formats the node follows (reference-formats.md §0, §14). */
export const CORE_VERSION = 'xcore-0.9.8h';
/** Core Status values (reference §2.9): 1 ready, 2 stalled (no block for 30 min). */
const CORE_STATUS = { ready: 1, stalled: 2 } as const;

/** Frames queued for peers of one direction (vv `Queues`). */
const sendQueue = (ctx: Pick<NodeModules, 'p2p'>, direction: 'inbound' | 'outbound'): number =>
  ctx.p2p?.peers.links().filter((l) => l.direction === direction).reduce((n, l) => n + l.queued, 0) ?? 0;

/** The modules `status` reads. */
export type StatusModules = Pick<NodeModules, 'chain' | 'mempool' | 'consensus' | 'network' | 'clock' | 'p2p'> & Partial<Pick<NodeModules, 'signerMiner' | 'light'>>;

/** The tip as status reports it: the chain's, or on a light node its header chain's (reference-network §1). */
interface StatusHead {
  height: bigint;
  version: number;
  signatureCount: number;
  totalDifficulty: bigint;
  secondsAgo: number;
  dltStatus: ReturnType<NodeModules['consensus']['dltStatus']>;
  pending: number;
  walletStateChecksum: Uint8Array;
  regNameStateChecksum: Uint8Array | null;
}

function headOf(ctx: StatusModules): StatusHead {
  const light = ctx.light;
  if (light) {
    const tip = light.headers.tip;
    return {
      height: tip.num,
      version: tip.block.version,
      signatureCount: 0,
      totalDifficulty: 0n,
      // §9: since the tip was appended here (its timestamp at start and after a revert, §6), as on a master.
      secondsAgo: ctx.p2p?.sync.secondsSinceBlock() ?? Math.max(0, Math.floor(ctx.clock.now() / 1000) - Number(tip.block.timestamp)),
      dltStatus: ctx.p2p?.sync.status() ?? 'Synchronizing',
      pending: light.wallet.pendingList().length,
      walletStateChecksum: tip.block.walletStateChecksum ?? new Uint8Array(0),
      regNameStateChecksum: tip.block.regNameStateChecksum,
    };
  }
  const tip = ctx.chain.tip;
  const tally = ctx.consensus.tipTally();
  return {
    height: ctx.chain.height,
    version: tip?.block.version ?? 0,
    signatureCount: tally.count,
    // getBlock's sum for the same block: a signature without a solution counts 1 (the embedded network's tally said 0).
    totalDifficulty: tip ? totalSignerDifficultyOf(ctx.chain, tip.block) : 0n,
    secondsAgo: ctx.consensus.secondsSinceBlock(),
    dltStatus: ctx.consensus.dltStatus(),
    pending: ctx.mempool.size,
    walletStateChecksum: ctx.chain.walletStateChecksum(),
    regNameStateChecksum: tip?.block.regNameStateChecksum ?? null,
  };
}

const method = methodFor<StatusModules>();

/**
 * The status record's first members, typed; `verbose` and `vv` add more members
 * (Wallets, Supply, Queues, the checksums, …), reachable through the index signature.
 */
export interface StatusHeadRecord {
  'Core Version': string;
  'Node Version': string;
  'Network type': string;
  'My time': number;
  'Network time difference': number;
  'My External IP': string;
  'My Listening Port': number;
  'Node Deprecation Block Limit': number;
  Update: string;
  'DLT Status': 'Active' | 'Synchronizing' | 'ErrorLongTimeNoBlock';
  'Core Status': number;
  'Block Processor Status': 'Running' | 'Stopped';
  'Block Height': number;
  'Block Version': number;
  'Block Signature Count': number;
  'Block Total Signer Difficulty': string;
  'Block generated seconds ago': number;
  'Network Block Height': number;
  'Node Type': string;
  Connectable: boolean;
  [member: string]: unknown;
}

/** The members every answer ends with (after the verbose ones, in the reference's order). */
export interface StatusTail {
  /** Always false and 0: this node keeps no activity scanner (the reference's members, kept for their readers). */
  'Blockchain Scanning Active': boolean;
  'Activity Scanner Last Block': number;
  /** Incoming and outgoing peer links as ip:port (as the `clients` and `servers` operations). */
  'Network Clients': string[];
  'Network Servers': string[];
}

export type StatusRecord = StatusHeadRecord & StatusTail;

export const statusMethods = [
  method({
    name: 'status',
    group: 'Utilities',
    maturity: 'Finalized',
    summary: 'Node status; verbose and vv add more members',
    params: [
      { name: 'verbose', kind: 'boolean', description: 'Add the verbose members' },
      { name: 'vv', kind: 'boolean', description: 'Add the verbose and very verbose members' },
    ],
    result: { description: 'Status record' },
    // One handler for both kinds of node: the tip is the chain's or the headers' (headOf).
    light: 'same',
    handler: (p, ctx): StatusRecord => {
      const nowS = Math.floor(ctx.clock.now() / 1000);
      const head = headOf(ctx);
      const agoS = head.secondsAgo;
      const dltStatus = head.dltStatus;
      const noBlock = dltStatus === 'ErrorLongTimeNoBlock';
      const verbose = p.verbose || p.vv;
      // A lone node (no peer network) reports what is true of it: no peers, its own height, itself as the one master.
      const net = ctx.p2p?.statusMembers();
      const networkHeight = ctx.p2p ? ctx.p2p.networkHeight() : head.height;
      const out: StatusHeadRecord = {
        'Core Version': CORE_VERSION,
        'Node Version': NODE_VERSION,
        'Network type': ctx.network,
        'My time': nowS,
        'Network time difference': 0,
        'My External IP': net?.['My External IP'] ?? '',
        // 0 without a peer listener, as the reference reports for clients.
        'My Listening Port': net?.['My Listening Port'] ?? 0,
        'Node Deprecation Block Limit': 0,
        Update: '',
        'DLT Status': dltStatus,
        'Core Status': noBlock ? CORE_STATUS.stalled : CORE_STATUS.ready,
        'Block Processor Status': ctx.consensus.isRunning ? 'Running' : 'Stopped',
        'Block Height': Number(head.height),
        'Block Version': head.version,
        'Block Signature Count': head.signatureCount,
        'Block Total Signer Difficulty': formatAmount(head.totalDifficulty),
        'Block generated seconds ago': agoS,
        'Network Block Height': Number(networkHeight),
        'Node Type': ctx.p2p?.nodeType ?? 'M',
        Connectable: net?.Connectable ?? false,
      };
      if (verbose && ctx.light) {
        // A light node holds no wallet state: the members that count it are left out.
        Object.assign(out, {
          Presences: net?.Presences ?? 1,
          'Unapplied TX Count': head.pending,
          Masters: net?.Masters ?? 0,
          Relays: net?.Relays ?? 0,
          Clients: net?.Clients ?? 0,
        });
      } else if (verbose) {
        const tip = ctx.chain.tip;
        const ext = ctx.chain.extensions.statusFields(ctx.chain.view());
        out['Required Consensus'] = ctx.consensus.requiredConsensus();
        // The required signer difficulty and bits from the chain; the miner's members from the
        // signer miner (a master of a genesis network), else 0 and {} (the lone reg node mines nothing).
        if ((tip?.block.version ?? 0) >= BLOCK_VERSION_V10) Object.assign(out, signerStatusMembers(ctx.chain, ctx.signerMiner));
        Object.assign(out, {
          Wallets: ctx.chain.walletCount(),
          Presences: net?.Presences ?? 1,
          Supply: formatAmount(ctx.chain.supply()),
          'Applied TX Count': ctx.chain.appliedCount(),
          'Unapplied TX Count': ctx.mempool.size,
          Names: ext.Names ?? 0,
          'Names Reward Pool': ext['Names Reward Pool'] ?? formatAmount(0n),
          Masters: net?.Masters ?? 1,
          Relays: net?.Relays ?? 0,
          Clients: net?.Clients ?? 0,
        });
      }
      if (p.vv) {
        Object.assign(out, {
          Queues: {
            RcvLow: 0, RcvMedium: 0, RcvHigh: 0, SendClients: sendQueue(ctx, 'inbound'), SendServers: sendQueue(ctx, 'outbound'), Logging: 0,
            'Pending Transactions': head.pending, Storage: 0, Inventory: 0, 'Inventory Processed': 0,
          },
          'WS Checksum': toHex(head.walletStateChecksum),
          // The whole name state (reference: calculateRegNameStateChecksum(0)); a light node holds
          // none, so it shows its tip header's (the per-block checksum).
          'RN Checksum': (ctx.light ? undefined : ctx.chain.extensions.statusFields(ctx.chain.view())['RN Checksum']) ?? toHex(head.regNameStateChecksum ?? new Uint8Array(0)),
        });
      }
      const tail: StatusTail = {
        'Blockchain Scanning Active': false,
        'Activity Scanner Last Block': 0,
        'Network Clients': net?.['Network Clients'] ?? [],
        'Network Servers': net?.['Network Servers'] ?? [],
      };
      return Object.assign(out, tail);
    },
  }),
];
