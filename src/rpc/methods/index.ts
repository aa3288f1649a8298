/**
 * The method table: every RPC operation of the node, gathered from the per-area modules, plus `rpc.discover`, which serves the OpenRPC
 * document of this same table. Dispatch, validation, the OpenRPC document, the typed client and the
 * README list all derive from `METHODS`.
 */
import type { NodeModules } from '../../node/modules.js';
import { openRpcDocument } from '../openrpc.js';
import { forLightNode, methodFor, type MethodDef, type RpcSchemaOf } from '../types.js';
import { blockMethods } from './blocks.js';
import { messagingMethods } from './messaging.js';
import { miningMethods } from './mining.js';
import { nameMethods } from './names.js';
import { peerMethods } from './peers.js';
import { statusMethods } from './status.js';
import { transactionMethods } from './transactions.js';
import { utilityMethods } from './utilities.js';
import { walletMethods } from './wallet.js';
import { walletActivityMethods } from './wallet-activity.js';
import { minerMethods } from './miner.js';
import { miningClaimMethods } from './mining-claims.js';
import { multisigMethods } from './multisig.js';

/** A row of the run-time table: handlers take parameters by name and the full module record. */
export type NodeMethod = MethodDef<NodeModules>;

/** `rpc.discover`: the OpenRPC document of the whole table (computed once, on first call). */
const discover = methodFor<unknown>()({
  name: 'rpc.discover',
  group: 'Utilities',
  summary: 'The OpenRPC description of every operation of this node',
  params: [],
  result: { description: 'OpenRPC 1.2 document', schema: { $ref: 'https://meta.open-rpc.org/' } },
  handler: (): Record<string, unknown> => (document ??= openRpcDocument(METHODS)),
  light: 'same',
});

/** Groups whose operations read no chain state (utilities, peers, messaging): served alike on light nodes. */
const sameOnLightNodes = <const T extends readonly NodeMethod[]>(defs: T): T => defs.map((d) => ({ ...d, light: 'same' })) as unknown as T;
/** Groups only a client node serves (messaging): the same handler there, -32601 on masters and relays (see `clientOnly`). */
const onClientNodesOnly = <const T extends readonly NodeMethod[]>(defs: T): T => defs.map((d) => ({ ...d, light: 'same', clientOnly: true })) as unknown as T;
let document: Record<string, unknown> | undefined;

/**
 * The table: the operation groups, listed explicitly (no collection by shape), then `rpc.discover`.
 * Each group's handlers take the `Pick<NodeModules, …>` they declare, which the full module record
 * satisfies. Its element types keep every operation's parameter and result types, from which
 * {@link NodeRpcSchema} is derived.
 */
export const METHODS = [
  ...transactionMethods,
  ...walletMethods,
  ...nameMethods,
  ...miningMethods,
  ...sameOnLightNodes(utilityMethods),
  ...statusMethods,
  ...blockMethods,
  ...sameOnLightNodes(peerMethods),
  ...walletActivityMethods,
  ...minerMethods,
  ...miningClaimMethods,
  ...multisigMethods,
  ...onClientNodesOnly(messagingMethods),
  discover,
] as const satisfies readonly NodeMethod[];

/**
 * The table as a light node (`--role relay|client`: headers only, reference-network §1) serves it:
 * each operation's light form, or a refusal that says to call it on a master.
 */
export const LIGHT_METHODS: readonly NodeMethod[] = METHODS.map((d) => forLightNode(d as NodeMethod));

/**
 * The node's RPC schema (as viem's `RpcSchema`): for each operation name, the parameters a caller
 * sends and the JSON result it receives. The typed client (src/client/) is checked against it.
 */
export type NodeRpcSchema = RpcSchemaOf<typeof METHODS>;
