/**
 * Flow control for transactions peers push (reference-network §4; issue 9 "transactions travel in
 * batches so a busy master moves thousands per second"): at most `admitting` transactions are in
 * admission at once (validation, the RSA check in the pool), so a peer pushing faster than the
 * pool verifies never overflows the verifier's bounded queue (a PoolBusyError would lose the whole
 * batch). Batches past that wait in arrival order; what waits is bounded per link and in total,
 * and a batch past those bounds is refused (the caller drops it without marking it seen, so a
 * later announcement pulls it), so a flood costs a bounded amount of memory.
 */

export interface AdmissionGateLimits {
  /** Transactions in admission at once. */
  admitting: number;
  /** Transactions waiting, all links together. */
  waiting: number;
  /** Transactions waiting from one link. */
  waitingPerSource: number;
}

/**
 * Defaults: half the verifier's queue (16,384) for gossip, enough to keep its workers' posted tasks
 * (src/pool/index.ts TASKS_PER_WORKER, ~0.4 s of checks) full while a block holds the event loop;
 * ~36 MB of 1.1 KB transactions waiting at most.
 */
export const DEFAULT_ADMISSION_LIMITS: AdmissionGateLimits = { admitting: 8_192, waiting: 32_768, waitingPerSource: 16_384 };

interface Waiter<S> {
  source: S;
  n: number;
  go(): void;
}

export class AdmissionGate<S = unknown> {
  private inAdmission = 0;
  private waitingTotal = 0;
  private readonly waitingBySource = new Map<S, number>();
  private readonly queue: Waiter<S>[] = [];
  /** Transactions refused because too many waited (since start). */
  refused = 0;

  constructor(private readonly limits: AdmissionGateLimits = DEFAULT_ADMISSION_LIMITS) {}

  /** Transactions in admission and waiting now (metrics, tests). */
  get load(): { admitting: number; waiting: number } {
    return { admitting: this.inAdmission, waiting: this.waitingTotal };
  }

  /** Half the waiting allowance is taken: pull no more for now. */
  get congested(): boolean {
    return this.waitingTotal * 2 >= this.limits.waiting;
  }

  /**
   * Runs `task` for a batch of `n` transactions from `source` once it fits, or returns
   * `'refused'` at once when the batch would wait past the bounds.
   */
  async run<T>(source: S, n: number, task: () => Promise<T>): Promise<T | 'refused'> {
    // A batch larger than the whole allowance runs alone rather than never.
    const fits = this.queue.length === 0 && (this.inAdmission === 0 || this.inAdmission + n <= this.limits.admitting);
    if (fits) this.inAdmission += n;
    else {
      const mine = this.waitingBySource.get(source) ?? 0;
      if (this.waitingTotal + n > this.limits.waiting || mine + n > this.limits.waitingPerSource) {
        this.refused += n;
        return 'refused';
      }
      this.waitingTotal += n;
      this.waitingBySource.set(source, mine + n);
      await new Promise<void>((go) => this.queue.push({ source, n, go }));
    }
    try {
      return await task();
    } finally {
      this.inAdmission -= n;
      this.release();
    }
  }

  /** Starts the waiting batches that now fit, in arrival order (admission counted here). */
  private release(): void {
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      if (this.inAdmission > 0 && this.inAdmission + next.n > this.limits.admitting) return;
      this.queue.shift();
      this.waitingTotal -= next.n;
      const left = (this.waitingBySource.get(next.source) ?? 0) - next.n;
      if (left > 0) this.waitingBySource.set(next.source, left);
      else this.waitingBySource.delete(next.source);
      this.inAdmission += next.n;
      next.go();
    }
  }
}
