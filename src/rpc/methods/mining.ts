/**
 * Mining (interface.md "Mining"; reference-formats.md §11.3; reference-rpc-messaging.md §2.10).
 */
import { POW_MAX_NONCE } from '../../core/pow.js';
import { addressWithChecksum } from '../../formats/address.js';
import { toBase64 } from '../../formats/bytes.js';
import { BLOCK_VERSION_V10 } from '../../formats/constants.js';
import { MAX_MINING_DIFFICULTY } from '../../mining/difficulty.js';
import { SEARCH_MODES } from '../../mining/index.js';
import { pickMiningBlock } from '../../mining/miner.js';
import type { NodeModules } from '../../node/modules.js';

import { invalidParams, methodFor } from '../types.js';

/** The modules these operations use. */
export type MiningModules = Pick<NodeModules, 'chain' | 'pool' | 'wallet' | 'mempool' | 'mining'>;

const method = methodFor<MiningModules>();

/** `getminingblock` without `algo`: the latest unsolved block (what miners calling it bare expect). */
const LATEST_BLOCK = SEARCH_MODES.indexOf('latestBlock');

/** Solver address of the hash input: without checksum from block v10, with it before. */
const solverAddress = (ctx: MiningModules, blockVersion: number): Uint8Array =>
  blockVersion >= BLOCK_VERSION_V10 ? ctx.wallet.primary.primary : addressWithChecksum(ctx.wallet.primary.primary);

export const miningMethods = [
  method({
    name: 'verifyMiningSolution',
    group: 'Mining',
    maturity: 'Finalized',
    summary: "Verifies an Argon2id PoW nonce for a stored block and the node's own address",
    params: [
      { name: 'nonce', kind: 'hex', required: true, description: 'PoW nonce, hex (1–64 bytes)', missingMessage: "Parameter 'nonce' is missing" },
      { name: 'blocknum', kind: 'integer', required: true, bigint: true, min: 0n, max: (1n << 64n) - 1n, description: 'Block number (u64)', missingMessage: "Parameter 'blocknum' is missing" },
      { name: 'diff', kind: 'integer', required: true, bigint: true, min: 0n, max: (1n << 64n) - 1n, description: 'Difficulty (u64)', missingMessage: "Parameter 'diff' is missing" },
    ],
    result: { description: 'boolean' },
    handler: async (p, ctx) => {
      const nonce = p.nonce;
      if (nonce.length < 1 || nonce.length > POW_MAX_NONCE) throw invalidParams('Invalid nonce was specified');
      // Checked as served: a nonce for a block damaged on disk is refused (-32006, chain.ts servedBlock).
      const found = ctx.chain.servedBlock(p.blocknum);
      if (!found) throw invalidParams('Invalid block number specified');
      // A full PoW queue answers -32005 with the pool's retry-later message (rpc/errors.ts).
      // The current algorithm whatever the block's version (no blockVersion: rpc-messaging §2.10
      // step 5, the reference's Miner.verifyNonce_v3); only the address form follows the version.
      const [ok] = await ctx.pool.verifyPow([
        { blockChecksum: found.checksum, solverAddress: solverAddress(ctx, found.block.version), nonce, difficulty: p.diff },
      ]);
      return ok === true;
    },
  }),
  method({
    name: 'getMiningBlock',
    group: 'Mining',
    summary: 'A block to mine, chosen by `algo` among the unsolved blocks without a pending claim and below the maximum difficulty: number, version, difficulty, checksum and solver address',
    params: [
      {
        name: 'algo', kind: 'integer', min: 0, max: SEARCH_MODES.length - 1, default: LATEST_BLOCK, invalidMessage: 'Invalid algorithm was specified',
        description: `Block selection: 0–3 ${SEARCH_MODES.join(', ')} (as setBlockSelectionAlgorithm); default 2, the latest unsolved block`,
      },
    ],
    result: { description: '{num, ver, dif, chk, adr}' },
    handler: (p, ctx) => {
      if (!ctx.chain.tip) throw invalidParams('The node has no block yet');
      // A block whose claim waits in the pool is solved already: a second solution would be refused.
      // A block at the maximum difficulty is passed over, as the reference's Miner.getMiningBlock does
      // (the built-in miner's own search keeps it).
      const claimed = ctx.mining.pendingClaimBlocks(ctx.mempool.page(0, ctx.mempool.size));
      const unsolvable = (n: bigint): boolean => ctx.chain.getBlock(n)?.block.difficulty === MAX_MINING_DIFFICULTY;
      const block = pickMiningBlock(ctx.chain, p.algo, (n) => claimed.has(n) || unsolvable(n));
      if (!block) throw invalidParams('Cannot retrieve mining block: every block of the claim window is solved or has a pending claim');
      // Handed to a miner or pool: a block damaged on disk is refused (-32006), not mined.
      ctx.chain.servedBlock(block.num);
      return {
        num: block.num,
        ver: block.version,
        dif: block.difficulty,
        chk: toBase64(block.checksum),
        adr: toBase64(solverAddress(ctx, block.version)),
      };
    },
  }),
];
