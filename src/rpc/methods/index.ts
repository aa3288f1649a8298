/**
 * The method table: every RPC operation of the node, gathered from the per-area modules, plus `rpc.discover`, which serves the OpenRPC
 * document of this same table. Dispatch, validation, the OpenRPC document, the typed client and the
 * README list all derive from `METHODS`.
 */
import type { NodeModules } from '../../node/modules.js';
import { openRpcDocument } from '../openrpc.js';
import type { MethodDef } from '../types.js';
import * as blocks from './blocks.js';
import * as mining from './mining.js';
import * as names from './names.js';
import * as status from './status.js';
import * as transactions from './transactions.js';
import * as utilities from './utilities.js';
import * as wallet from './wallet.js';

export type NodeMethod = MethodDef<NodeModules>;

/**
 * The operation groups, listed explicitly (no collection by shape): each group's handlers take the
 * `Pick<NodeModules, …>` they declare, which the full module record satisfies.
 */
const operations: NodeMethod[] = [
  ...transactions.transactionMethods,
  ...wallet.walletMethods,
  ...names.nameMethods,
  ...mining.miningMethods,
  ...utilities.utilityMethods,
  ...status.statusMethods,
  ...blocks.blockMethods,
] as NodeMethod[];

/** `rpc.discover`: the OpenRPC document of the whole table (computed once, on first call). */
const discover: NodeMethod = {
  name: 'rpc.discover',
  group: 'Utilities',
  summary: 'The OpenRPC description of every operation of this node',
  params: [],
  result: { description: 'OpenRPC 1.2 document', schema: { $ref: 'https://meta.open-rpc.org/' } },
  handler: () => (document ??= openRpcDocument(METHODS)),
};
let document: Record<string, unknown> | undefined;

export const METHODS: readonly NodeMethod[] = [...operations, discover];
