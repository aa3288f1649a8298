/**
 * The node's clock: the time and one-shot timers behind one interface, injected into every module
 * that reads time (chain header rules, block production, presence expiry, links, the dialer), so
 * tests drive it (ManualClock) and several nodes share a process; `systemClock` is the only place
 * that reads the system clock.
 */

/**
 * The longest delay, in whole seconds, a Node.js timer keeps (2^31 − 1 ms, ~24.8 days): a longer
 * one fires after 1 ms instead (TimeoutOverflowWarning). Options that become timers stop here.
 */
export const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Unix milliseconds. */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds (unless cancelled). */
  setTimer(ms: number, fn: () => void): TimerHandle;
}

/** The process clock; timers do not keep the process alive. */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  setTimer(ms: number, fn: () => void): TimerHandle {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  },
});

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** A clock that moves only when told to; timers fire in time order during `advance`. */
export class ManualClock implements Clock {
  private t: number;
  private seq = 0;
  private pending: Pending[] = [];

  constructor(startMs = 1_700_000_000_000) {
    this.t = startMs;
  }

  now(): number {
    return this.t;
  }

  setTimer(ms: number, fn: () => void): TimerHandle {
    const p: Pending = { at: this.t + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.pending.push(p);
    return { cancel: () => void (p.cancelled = true) };
  }

  /** Number of timers not yet fired or cancelled. */
  get timerCount(): number {
    return this.pending.filter((p) => !p.cancelled).length;
  }

  /** Moves time forward by `ms`, firing every timer due on the way (including ones set while firing). */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const live = this.pending.filter((p) => !p.cancelled && p.at <= end);
      if (live.length === 0) break;
      live.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = live[0]!;
      this.pending = this.pending.filter((p) => p !== next && !p.cancelled);
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = end;
  }
}

/** Unix seconds of `clock` as a bigint (block and transaction timestamps). */
export const unixSeconds = (clock: Pick<Clock, 'now'>): bigint => BigInt(Math.floor(clock.now() / 1000));
