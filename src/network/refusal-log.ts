/**
 * Log lines for inbound links that ended before their hello (refused by us, dropped, timed out),
 * aggregated per host: the first REFUSAL_LOG_BURST of a host in an interval are written in full,
 * the others are counted and told in one line with the count and the reasons when the interval
 * ends; a host that goes on gets that one line per interval. (A flood of sockets from one host
 * wrote 5,315 lines, 1.4 MB, in 25 s when each refusal had its own line.)
 */
import type { NetClock, TimerHandle } from './clock.js';

/** One summary line per host per this interval at most. */
export const REFUSAL_LOG_INTERVAL_MS = 60_000;
/**
 * Lines written in full per host per interval. Loopback is one host: a devnet's or a test's
 * occasional refusals (a node of another genesis, a restarted peer) are each still logged.
 */
export const REFUSAL_LOG_BURST = 20;
/** Hosts counted separately per interval; refusals from more hosts than this share one line. */
export const REFUSAL_LOG_MAX_HOSTS = 1_000;
/** The host under which refusals beyond REFUSAL_LOG_MAX_HOSTS hosts are counted. */
export const OTHER_HOSTS = '(other hosts)';

export interface RefusalSummary {
  host: string;
  /** Links of this host that ended before their hello and were not logged one by one. */
  count: number;
  /** Those links by close reason (`capacity`, `helloTimeout`…; `code 1006` for a close without one of ours). */
  reasons: Record<string, number>;
  seconds: number;
}

export interface RefusalLogOptions {
  clock: NetClock;
  /** Writes one summary line. */
  summary: (s: RefusalSummary) => void;
  intervalMs?: number;
  maxHosts?: number;
  burst?: number;
}

interface HostEntry {
  /** Lines written in full this interval (a host still flooding from the last one starts at the burst). */
  logged: number;
  count: number;
  reasons: Map<string, number>;
}

export class RefusalLog {
  private readonly hosts = new Map<string, HostEntry>();
  private timer: TimerHandle | null = null;
  private readonly intervalMs: number;
  private readonly maxHosts: number;
  private readonly burst: number;

  constructor(private readonly o: RefusalLogOptions) {
    this.intervalMs = o.intervalMs ?? REFUSAL_LOG_INTERVAL_MS;
    this.maxHosts = o.maxHosts ?? REFUSAL_LOG_MAX_HOSTS;
    this.burst = o.burst ?? REFUSAL_LOG_BURST;
  }

  /** Records one link of `host` that ended with `reason`. True when the caller logs it in full now. */
  note(host: string, reason: string): boolean {
    let key = host.toLowerCase();
    let e = this.hosts.get(key);
    if (!e && this.hosts.size >= this.maxHosts) {
      key = OTHER_HOSTS;
      e = this.hosts.get(key);
    }
    if (!this.timer) this.timer = this.o.clock.setTimer(this.intervalMs, () => this.flush());
    if (!e) {
      e = { logged: key === OTHER_HOSTS ? this.burst : 0, count: 0, reasons: new Map() };
      this.hosts.set(key, e);
    }
    if (e.logged < this.burst) {
      e.logged++;
      return true;
    }
    e.count++;
    e.reasons.set(reason, (e.reasons.get(reason) ?? 0) + 1);
    return false;
  }

  /**
   * Ends the interval: a summary line per host with counted links. Those hosts stay counted from
   * the first link in the next interval (a flood goes on at one line per interval); the others
   * are forgotten (their next links are written in full again).
   */
  flush(): void {
    this.timer?.cancel();
    this.timer = null;
    const seconds = Math.round(this.intervalMs / 1000);
    for (const [host, e] of [...this.hosts]) {
      if (e.count === 0) {
        this.hosts.delete(host);
        continue;
      }
      this.o.summary({ host, count: e.count, reasons: Object.fromEntries(e.reasons), seconds });
      e.count = 0;
      e.reasons.clear();
    }
    if (this.hosts.size > 0) this.timer = this.o.clock.setTimer(this.intervalMs, () => this.flush());
  }

  /** Writes what is counted and stops the timer. */
  stop(): void {
    this.flush();
    this.timer?.cancel();
    this.timer = null;
    this.hosts.clear();
  }
}
