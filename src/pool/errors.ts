/** Errors of the worker pool, with stable codes the RPC layer maps to its "busy"/unavailable errors. */
import type { PoolTaskName } from './tasks/types.js';

/** What each task's queue is called in messages. */
const TASK_LABELS: Record<PoolTaskName, { who: string; work: string }> = {
  verifyPow: { who: 'PoW verifier', work: 'verifications' },
  verifyRsa: { who: 'RSA verifier', work: 'verifications' },
  signRsa: { who: 'RSA signer', work: 'signatures' },
  searchPow: { who: 'miner', work: 'search jobs' },
  searchSignerPow: { who: 'signer miner', work: 'search jobs' },
  messagingCrypto: { who: 'messaging handshake crypto', work: 'handshake steps' },
};

/** A task's bounded queue is full: the caller should answer "busy" and let the client retry. */
export class PoolBusyError extends Error {
  override name = 'PoolBusyError';
  readonly code = 'POOL_BUSY';
  constructor(readonly pending: number, readonly limit: number, readonly requested: number, readonly task: PoolTaskName = 'verifyPow') {
    const { who, work } = TASK_LABELS[task];
    super(`${who} is busy: ${pending} ${work} pending, ${requested} more requested, limit ${limit}; retry later`);
  }
}

/** The pool was closed: no new work is accepted. */
export class PoolClosedError extends Error {
  override name = 'PoolClosedError';
  readonly code = 'POOL_CLOSED';
  constructor(readonly task: PoolTaskName = 'verifyPow') {
    const { who, work } = TASK_LABELS[task];
    super(`${who} is closed: no new ${work} are accepted`);
  }
}
