/**
 * How many light-client questions (reference-network §7.3: getBalance2, getTransaction3,
 * getNameRecord, getBlockHeaders4) a link may ask: a master answers each from its state on its
 * event loop, and a relay passes each on to a master, so a client asking in a loop would take a
 * master's time from blocks and transactions. Each link has a token bucket; a question past it is
 * dropped unanswered (the asker's own timeout then asks again later, through another link when it
 * has one). Nothing is scored: a relay carries many clients' questions and cannot tell a busy
 * client from a greedy one, and a question is valid protocol.
 *
 * A relay's bucket is larger than a client's: it asks for all of its clients.
 */
import type { NetClock } from './clock.js';
import { MASTER_TYPES } from './peer-network.js';
import type { NodeType } from './protocol/messages.js';

export interface QuestionRate {
  /** Units a link regains per second. */
  perSecond: number;
  /** Units a link may spend at once (a full bucket). */
  burst: number;
}

/** Budgets by the asking peer's type: clients ask for themselves, relays and masters for many clients. */
export const QUESTION_RATES: Readonly<Record<'client' | 'relay', QuestionRate>> = Object.freeze({
  client: { perSecond: 100, burst: 400 },
  relay: { perSecond: 5_000, burst: 20_000 },
});

/**
 * Headers per extra unit of a getBlockHeaders4: filtering a range reads its blocks' transactions
 * (at most ~20,000 per answer). A client's header sync (ranges of 1,000) still gets ~16 ranges a
 * second from its budget.
 */
const HEADERS_PER_UNIT = 200;

/** Units a question costs: one, plus one per HEADERS_PER_UNIT headers a header range asks for. */
export function questionCost(headersAsked = 0): number {
  return 1 + Math.ceil(Math.max(0, headersAsked) / HEADERS_PER_UNIT);
}

interface Bucket {
  units: number;
  atMs: number;
}

export class QuestionBudget {
  private readonly buckets = new WeakMap<object, Bucket>();

  constructor(
    private readonly clock: NetClock,
    private readonly rates: Readonly<Record<'client' | 'relay', QuestionRate>> = QUESTION_RATES,
  ) {}

  /** Spends `cost` units of `link`'s budget; false (nothing spent) when it has not that many. */
  take(link: object, peerType: NodeType, cost: number): boolean {
    const rate = peerType === 'R' || MASTER_TYPES.includes(peerType) ? this.rates.relay : this.rates.client;
    const now = this.clock.now();
    let b = this.buckets.get(link);
    if (!b) {
      b = { units: rate.burst, atMs: now };
      this.buckets.set(link, b);
    } else {
      b.units = Math.min(rate.burst, b.units + ((now - b.atMs) / 1000) * rate.perSecond);
      b.atMs = now;
    }
    if (b.units < cost) return false;
    b.units -= cost;
    return true;
  }
}
