/**
 * Mining claims over the RPC (reference-client-methods.md `submitminingsolution`;
 * reference-formats.md §8.10, §11.3): a nonce that solves a stored block for the node's own
 * address, at the block's own difficulty, becomes a signed type-1 claim submitted to the pool and
 * gossiped like any other transaction.
 */
import { TxErrorCode } from '../../chain/errors.js';
import { addressWithChecksum } from '../../formats/address.js';
import { BLOCK_VERSION_V10 } from '../../formats/constants.js';
import { POW_MAX_NONCE } from '../../core/pow.js';
import { buildClaim } from '../../mining/claim.js';
import { powFieldOf } from '../../mining/pow-field.js';
import type { NodeModules } from '../../node/modules.js';

import { submissionError } from '../errors.js';
import { invalidParams, methodFor } from '../types.js';

/** The modules these operations use. */
export type MiningClaimModules = Pick<NodeModules, 'chain' | 'pool' | 'wallet' | 'mempool' | 'mining' | 'clock' | 'network' | 'log'>;

const method = methodFor<MiningClaimModules>();

export const miningClaimMethods = [
  method({
    name: 'submitMiningSolution',
    group: 'Mining',
    summary: "Verifies a nonce for a stored block at the block's own difficulty and the node's address; a valid one becomes a type-1 claim in the pool",
    params: [
      { name: 'nonce', kind: 'hex', required: true, description: 'PoW nonce, hex (1–64 bytes)', missingMessage: "Parameter 'nonce' is missing" },
      { name: 'blocknum', kind: 'integer', required: true, bigint: true, min: 0n, max: (1n << 64n) - 1n, description: 'Block number', missingMessage: "Parameter 'blocknum' is missing" },
    ],
    result: { description: 'boolean: true when the claim was submitted; false when the nonce does not solve the block or its claim is refused (block solved already, a claim pending, out of the claim window)' },
    handler: async (p, ctx) => {
      if (p.nonce.length < 1 || p.nonce.length > POW_MAX_NONCE) throw invalidParams('Invalid nonce was specified');
      // Checked as served: no claim for a block damaged on disk (-32006, chain.ts servedBlock).
      const found = ctx.chain.servedBlock(p.blocknum);
      if (!found) throw invalidParams('Invalid block number specified');
      const key = ctx.wallet.primary;
      const solver = found.block.version >= BLOCK_VERSION_V10 ? key.primary : addressWithChecksum(key.primary);
      // A full PoW queue answers -32005 (rpc/errors.ts). The current algorithm whatever the block's
      // version, as verifyMiningSolution (the reference's onSubmitMiningSolution → verifyNonce_v3).
      const [ok] = await ctx.pool.verifyPow([{ blockChecksum: found.checksum, solverAddress: solver, nonce: p.nonce, difficulty: found.block.difficulty }]);
      if (ok !== true) return false;
      // A valid nonce whose claim the pool's rules refuse (block solved already, a claim pending,
      // out of the claim window) answers false as the reference's does (Miner.sendSolution: the
      // pool refuses, the answer is false, not an error); the reason goes to the log.
      const refused = (reason: string): false => {
        ctx.log.info({ block: String(p.blocknum), reason }, 'mining solution refused');
        return false;
      };
      if (powFieldOf(ctx.chain.store, p.blocknum)) return refused(`block ${p.blocknum} is already solved: its PoW field is set`);
      const pending = ctx.mining.pendingClaimFor(ctx.mempool.page(0, ctx.mempool.size), p.blocknum);
      if (pending) return refused(`block ${p.blocknum} already has a pending claim ${pending.textId}`);
      const claim = buildClaim(ctx.chain, ctx.network, key, { blockNum: p.blocknum, nonce: p.nonce }, ctx.clock.now());
      const error = await ctx.mempool.submit(claim);
      if (error?.code === TxErrorCode.TypeRule) return refused(error.message);
      // A full pool stays an error (-32005, retry later): the solution is not refused, only not taken now.
      if (error) throw submissionError(error);
      return true;
    },
  }),
];
