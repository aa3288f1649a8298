/**
 * The method table: every RPC operation of the node, aggregated from the per-area modules (each
 * exports its operations as `MethodDef[]` arrays), plus `rpc.discover`, which serves the OpenRPC
 * document of this same table. Dispatch, validation, the OpenRPC document, the typed client and the
 * README list all derive from `METHODS`.
 */
import type { NodeContext } from '../../node/context.js';
import { openRpcDocument } from '../openrpc.js';
import type { MethodDef } from '../types.js';
import * as blocks from './blocks.js';
import * as mining from './mining.js';
import * as names from './names.js';
import * as status from './status.js';
import * as transactions from './transactions.js';
import * as utilities from './utilities.js';
import * as wallet from './wallet.js';

export type NodeMethod = MethodDef<NodeContext>;

/** Every `MethodDef[]` a module exports (other exports — helpers, constants — are skipped). */
export function methodsOf(mod: Record<string, unknown>): NodeMethod[] {
  const out: NodeMethod[] = [];
  for (const value of Object.values(mod)) {
    if (Array.isArray(value) && value.length > 0 && value.every(isMethodDef)) out.push(...(value as NodeMethod[]));
  }
  return out;
}

function isMethodDef(v: unknown): v is MethodDef<unknown> {
  const d = v as Partial<MethodDef<unknown>> | null;
  return typeof d === 'object' && d !== null && typeof d.name === 'string' && typeof d.handler === 'function' && Array.isArray(d.params);
}

const AREAS: Record<string, unknown>[] = [transactions, wallet, names, mining, utilities, status, blocks];

const operations: NodeMethod[] = AREAS.flatMap(methodsOf);

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
