/**
 * The node's clock, injected into every module that reads time (chain header rules, block
 * production, presence expiry), so tests and several nodes in one process control it.
 */
export interface Clock {
  /** Unix milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Unix seconds of `clock` as a bigint (block and transaction timestamps). */
export const unixSeconds = (clock: Clock): bigint => BigInt(Math.floor(clock.now() / 1000));
