/**
 * Blocks as block explorers, pools and miners read them (reference-formats.md §10;
 * reference-client-methods.md `getblock`, `getfullblock`, `getblockcount`, `getlastblocks`,
 * `getbestblockhash`, `blockheight`).
 */
import { toStringFormJson } from '../../chain/tx-json.js';
import { StoreCorruptionError } from '../../chain/errors.js';
import { inSlices } from '../heavy.js';
import { toHex } from '../../formats/bytes.js';
import { U64_MAX } from '../../formats/varint.js';
import type { NodeModules } from '../../node/modules.js';

import { invalidParams, methodFor } from '../types.js';
import { blockDictionary, headerDictionary, superBlockSegmentsText, type BlockDictDeps, type BlockDictionary, type HeaderDictionary } from './block-dict.js';
import type { HeaderChain, StoredHeader } from '../../chain/header-chain.js';

/** The reference's answer for a block it does not hold, getblock and getfullblock alike (APIServer). */
const BLOCK_NOT_FOUND = 'Block not found.';

/** A light node's headers (its light handlers run only there). */
const headersOf = (ctx: BlockModules): HeaderChain => ctx.light!.headers;

function storedHeader(ctx: BlockModules, num: bigint): StoredHeader {
  const h = headersOf(ctx).get(num);
  if (!h) throw invalidParams(BLOCK_NOT_FOUND);
  return h;
}

const headerDict = (h: StoredHeader): HeaderDictionary => headerDictionary(h.block, h.checksum, h.txCount);

/** The modules these operations use. */
export type BlockModules = Pick<NodeModules, 'chain' | 'consensus' | 'light'>;

const method = methodFor<BlockModules>();

/** Blocks `getlastblocks` lists (the reference's count). */
export const LAST_BLOCKS = 10;

const dictDeps = (ctx: BlockModules): BlockDictDeps => ({
  chain: ctx.chain,
  requiredSignatures: (b) => ctx.consensus.requiredConsensus(b),
  signatureChecksum: (b, checksum) => ctx.consensus.signatureChecksum(b, checksum),
  frozen: (b) => ctx.consensus.frozen(b.num),
});

/** A stored block to answer with, checked against the chain (a damaged one: -32006, rpc/errors.ts). */
function stored(ctx: BlockModules, num: bigint) {
  const found = ctx.chain.servedBlock(num);
  if (!found) throw invalidParams(BLOCK_NOT_FOUND);
  return found;
}

const numParam = { name: 'num', kind: 'integer', required: true, bigint: true, min: 1n, max: U64_MAX, description: 'Block number', missingMessage: "Parameter 'num' is missing" } as const;

export const blockMethods = [
  method({
    name: 'getBlock',
    group: 'Blocks',
    summary: "A stored block as the reference's dictionary (string values, JSON-text `Signatures` and `TX IDs`); `bytes` returns its hex",
    params: [numParam, { name: 'bytes', kind: 'boolean', description: 'Return the block bytes as hex' }],
    result: { description: 'Block dictionary or hex' },
    handler: (p, ctx): BlockDictionary | HeaderDictionary | string => {
      const found = stored(ctx, p.num);
      return p.bytes ? toHex(found.bytes) : blockDictionary(dictDeps(ctx), found.block, found.checksum);
    },
    // A light node holds the header only: its members, or its bytes.
    light: (p, ctx) => {
      const h = storedHeader(ctx, p.num);
      return p.bytes ? toHex(h.bytes) : headerDict(h);
    },
  }),
  method({
    name: 'getFullBlock',
    group: 'Blocks',
    summary: 'The getBlock dictionary plus `Transactions` (JSON text of the string forms) and `Superblock segments` (JSON text)',
    // Without `num` the reference reads block 0, which no chain has: "Block not found." (APIServer.cs onGetFullBlock).
    params: [{ ...numParam, required: false, default: 0n, min: 0n, description: 'Block number (absent: 0, which is no block: "Block not found.", as the reference)' }],
    result: { description: 'Block dictionary with Transactions' },
    // A block holds up to thousands of transactions (16 MB of string forms for 10,000): a heavy
    // reply, its transactions read and written in slices (src/rpc/heavy.ts).
    heavy: () => true,
    handler: async (p, ctx): Promise<BlockDictionary & { Transactions: string; 'Superblock segments': string }> => {
      const found = p.num === 0n ? null : ctx.chain.servedBlock(p.num);
      if (!found) throw invalidParams(BLOCK_NOT_FOUND);
      const b = found.block;

      const forms: string[] = [];
      await inSlices(b.txIds, (id) => {
        const k = ctx.chain.getTransaction(id);
        if (!k) throw new StoreCorruptionError(`block ${b.num} lists a transaction the store does not hold`);
        forms.push(toStringFormJson(k));
      });
      return {
        ...blockDictionary(dictDeps(ctx), b, found.checksum),
        Transactions: `[${forms.join(',')}]`,
        'Superblock segments': superBlockSegmentsText(b),
      };
    },
  }),
  method({
    name: 'getLastBlocks',
    group: 'Blocks',
    summary: `The last ${LAST_BLOCKS} blocks as getBlock dictionaries, the tip first`,
    params: [],
    result: { description: 'Array of block dictionaries' },
    handler: (_p, ctx): (BlockDictionary | HeaderDictionary)[] => {
      const out: BlockDictionary[] = [];
      for (let n = ctx.chain.height; n >= 1n && out.length < LAST_BLOCKS; n--) {
        const found = ctx.chain.servedBlock(n);
        if (found) out.push(blockDictionary(dictDeps(ctx), found.block, found.checksum));
      }
      return out;
    },
    light: (_p, ctx) => {
      const out: HeaderDictionary[] = [];
      for (let n = headersOf(ctx).height; n >= 1n && out.length < LAST_BLOCKS; n--) out.push(headerDict(storedHeader(ctx, n)));
      return out;
    },
  }),
  method({
    name: 'getBestBlockHash',
    group: 'Blocks',
    summary: 'Hex checksum of the last block',
    params: [],
    result: { description: 'Hex string' },
    handler: (_p, ctx) => {
      const tip = ctx.chain.tip;
      if (!tip) throw invalidParams('The node has no block yet');
      return toHex(tip.checksum);
    },
    light: (_p, ctx) => toHex(headersOf(ctx).tip.checksum),
  }),
  method({
    name: 'getBlockCount',
    group: 'Blocks',
    summary: 'Height of the last block (a number)',
    params: [],
    result: { description: 'number' },
    handler: (_p, ctx) => ctx.chain.height,
    light: (_p, ctx) => headersOf(ctx).height,
  }),
  method({
    name: 'blockHeight',
    group: 'Blocks',
    summary: 'Height of the last block (a number)',
    params: [],
    result: { description: 'number' },
    handler: (_p, ctx) => ctx.chain.height,
    light: (_p, ctx) => headersOf(ctx).height,
  }),
];
