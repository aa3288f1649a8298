/** Errors of the worker pool, with stable codes the RPC layer maps to its "busy"/unavailable errors. */

/** The bounded queue is full: the caller should answer "busy" and let the client retry. */
export class PoolBusyError extends Error {
  override name = 'PoolBusyError';
  readonly code = 'POOL_BUSY';
  constructor(readonly pending: number, readonly limit: number, readonly requested: number) {
    super(`PoW verifier is busy: ${pending} verifications pending, ${requested} more requested, limit ${limit}; retry later`);
  }
}

/** The pool was closed: no new work is accepted. */
export class PoolClosedError extends Error {
  override name = 'PoolClosedError';
  readonly code = 'POOL_CLOSED';
  constructor() {
    super('PoW verifier is closed: no new verifications are accepted');
  }
}
