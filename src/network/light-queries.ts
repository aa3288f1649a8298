/**
 * What light nodes ask of the network (reference-network §1, §7.3): relays and clients hold only
 * block headers, so balances, transactions and the headers of the blocks that concern them come
 * from masters:
 *
 * - `getBalance2` → `balance2`: an address's balance, wallet type, whether its public key is
 *   stored, and the tip it was read at;
 * - `getTransaction3` → `transactionData2`: a transaction and its status (pending, applied at a
 *   height, unknown);
 * - `getNameRecord` → `nameRecord`: the name a lookup finds, with its data records;
 * - `getBlockHeaders4` → `blockHeaders4`: a header range filtered by addresses (TIV): a block
 *   holding a transaction that touches one of them comes with all its txids and those transactions.
 *
 * A master answers from its chain and mempool (never while synchronizing, §6). A relay passes its
 * clients' questions to a master under a request id of its own and routes the answer back by a
 * pending-request table (30 s; 120 s for headers, §7.3). An asker (`ask`) sends to a master link
 * when it has one, else to a relay, and gives up after a timeout. Each asking link has a budget of
 * questions (question-budget.ts): past it, a question is dropped unanswered.
 */
import { systemClock, type NetClock, type TimerHandle } from './clock.js';
import type { Link } from './link.js';
import { MASTER_TYPES, type PeerNetwork } from './peer-network.js';
import { MessageCode } from './protocol/codes.js';
import { encodeHeadersFitting, MAX_REQUEST_ID, type HeaderEntry, type Message, type MessageOf, type TxStatusValue } from './protocol/messages.js';
import { QuestionBudget, questionCost, type QuestionRate } from './question-budget.js';

/** The master's answers (the node adapts its chain and mempool). */
export interface LightState {
  tip(): { height: bigint; checksum: Uint8Array };
  balance(address: Uint8Array): { balance: bigint; walletType: number; hasPublicKey: boolean };
  transaction(txid: Uint8Array): { status: TxStatusValue; height: bigint; bytes: Uint8Array | null };
  /** The full serialization of the name a lookup of `id` finds (reference-names §6.3), or null. */
  nameRecord(id: Uint8Array, absolute: boolean): Uint8Array | null;
  /** Headers `from`…`from + count − 1` (up to the tip), filtered by `addresses`. */
  headers(from: bigint, count: number, addresses: readonly Uint8Array[]): HeaderEntry[];
}

export type BalanceAnswer = MessageOf<typeof MessageCode.balance2>;
export type TransactionAnswer = MessageOf<typeof MessageCode.transactionData2>;
export type NameRecordAnswer = MessageOf<typeof MessageCode.nameRecord>;

/** A question has no answer: no link to ask, or none answered in time. */
export class LightQueryError extends Error {
  override name = 'LightQueryError';
}

/** How long an asker waits for an answer per attempt (the relay's own table keeps 30 s). */
export const LIGHT_QUERY_TIMEOUT_MS = 4_000;
/** Attempts per question (see `ask`). */
export const LIGHT_QUERY_ATTEMPTS = 3;
/** How long a relay keeps a passed-on question: 30 s, 120 s for headers (reference S2, §7.3). */
const PROXY_TTL_MS = 30_000;
const PROXY_HEADERS_TTL_MS = 120_000;
/** Questions a relay passes on at once, at most (past it, new ones go unanswered until some expire). */
const MAX_PROXIED = 10_000;
/** Questions this node asks at once, at most. */
const MAX_ASKED = 10_000;
/** A server waits while a link has this much unsent before adding another header answer. */
const SERVE_PENDING_BYTES = 8 * 1024 * 1024;

/**
 * The links whose reported height is within a block of the highest: a master far behind is
 * synchronizing and answers nothing (§6), so questions go to the others.
 */
function inStep(links: Link[]): Link[] {
  let best = 0n;
  for (const l of links) if (l.peerHeight > best) best = l.peerHeight;
  return links.filter((l) => l.peerHeight + 1n >= best);
}

type Question =
  | MessageOf<typeof MessageCode.getBalance2>
  | MessageOf<typeof MessageCode.getTransaction3>
  | MessageOf<typeof MessageCode.getNameRecord>
  | MessageOf<typeof MessageCode.getBlockHeaders4>;
type Answer = BalanceAnswer | TransactionAnswer | NameRecordAnswer | MessageOf<typeof MessageCode.blockHeaders4>;

const ANSWER_OF: Record<Question['code'], Answer['code']> = {
  [MessageCode.getBalance2]: MessageCode.balance2,
  [MessageCode.getTransaction3]: MessageCode.transactionData2,
  [MessageCode.getNameRecord]: MessageCode.nameRecord,
  [MessageCode.getBlockHeaders4]: MessageCode.blockHeaders4,
};

interface Proxied {
  link: Link;
  requestId: number;
  answer: Answer['code'];
  expires: number;
}

interface Asked {
  answer: Answer['code'];
  resolve: (m: Answer) => void;
  reject: (err: Error) => void;
  timer: TimerHandle;
}

export class LightQueries {
  private readonly clock: NetClock;
  private nextId = 1;
  /** A relay's passed-on questions, by the id it gave them. */
  private readonly proxied = new Map<number, Proxied>();
  /** This node's own questions, by id. */
  private readonly asked = new Map<number, Asked>();
  /** Counters for status and tests. */
  readonly stats = { served: 0, proxied: 0, asked: 0, unanswered: 0, dropped: 0, offChain: 0 };
  private readonly budget: QuestionBudget;

  constructor(
    private readonly o: {
      network: PeerNetwork;
      /** A master's answers; absent on light nodes. */
      state?: LightState;
      /** Masters answer only while in step with the network (§6). */
      serving?: () => boolean;
      /** Relays pass their clients' questions on to a master. */
      proxy?: boolean;
      clock?: NetClock;
      timeoutMs?: number;
      /** Questions each asking link may put to this node (default QUESTION_RATES). */
      rates?: Readonly<Record<'client' | 'relay', QuestionRate>>;
      /**
       * A light node's check of the tip a balance answer was read at: false when it has a header at
       * that height with another checksum (the master answered from another chain). Such an answer
       * is refused and the question asked of another link.
       */
      onOurChain?: (height: bigint, checksum: Uint8Array) => boolean;
    },
  ) {
    this.clock = o.clock ?? systemClock;
    this.budget = new QuestionBudget(this.clock, o.rates);
  }

  /**
   * Handles the light-client codes; false for others, and for a `blockHeaders4` answering none of
   * ours or our clients' questions (block sync's own header requests use id 0).
   */
  handle(link: Link, m: Message): boolean | Promise<boolean> {
    switch (m.code) {
      case MessageCode.getBalance2:
      case MessageCode.getTransaction3:
      case MessageCode.getNameRecord:
      case MessageCode.getBlockHeaders4:
        return this.question(link, m);
      case MessageCode.balance2:
      case MessageCode.transactionData2:
      case MessageCode.nameRecord:
      case MessageCode.blockHeaders4:
        return this.answer(link, m);
      default:
        return false;
    }
  }

  /** Asks a master (or, without one, a relay) for an address's balance. @throws LightQueryError */
  balance(address: Uint8Array): Promise<BalanceAnswer> {
    return this.ask({ code: MessageCode.getBalance2, requestId: 0, address }) as Promise<BalanceAnswer>;
  }

  /** Asks for a transaction and its status. @throws LightQueryError */
  transaction(txid: Uint8Array): Promise<TransactionAnswer> {
    return this.ask({ code: MessageCode.getTransaction3, requestId: 0, txid }) as Promise<TransactionAnswer>;
  }

  /** Asks for the record of a name (reference-names §6.3 lookup). @throws LightQueryError */
  nameRecord(id: Uint8Array, absolute: boolean): Promise<NameRecordAnswer> {
    return this.ask({ code: MessageCode.getNameRecord, requestId: 0, id, absolute }) as Promise<NameRecordAnswer>;
  }

  /** Fails every question still waiting (the node is closing). */
  stop(): void {
    for (const [id, a] of this.asked) {
      a.timer.cancel();
      a.reject(new LightQueryError('the node is closing'));
      this.asked.delete(id);
    }
    this.proxied.clear();
  }

  /**
   * Asks up to LIGHT_QUERY_ATTEMPTS times, each time another link when there is one, waiting
   * `timeoutMs` per attempt: a master that is synchronizing answers nothing (§6), and a relay passes
   * each question to a master of its choice, so the next attempt usually finds one that answers.
   */
  private async ask(q: Question): Promise<Answer> {
    let last: Link | null = null;
    let failure: LightQueryError | null = null;
    for (let attempt = 0; attempt < LIGHT_QUERY_ATTEMPTS; attempt++) {
      const link = this.target(last);
      if (!link) throw failure ?? new LightQueryError('no master or relay is linked to this node yet');
      last = link;
      try {
        return await this.askOnce(q, link);
      } catch (err) {
        if (!(err instanceof LightQueryError)) throw err;
        failure = err;
      }
    }
    throw failure!;
  }

  private askOnce(q: Question, link: Link): Promise<Answer> {
    if (this.asked.size >= MAX_ASKED) return Promise.reject(new LightQueryError('too many questions to the network are waiting'));
    const requestId = this.freshId((id) => this.asked.has(id));
    const timeoutMs = this.o.timeoutMs ?? LIGHT_QUERY_TIMEOUT_MS;
    return new Promise<Answer>((resolve, reject) => {
      const timer = this.clock.setTimer(timeoutMs, () => {
        this.asked.delete(requestId);
        this.stats.unanswered++;
        reject(new LightQueryError(`no answer from ${link.peer?.addressText ?? link.remote} within ${timeoutMs / 1000} s`));
      });
      this.asked.set(requestId, { answer: ANSWER_OF[q.code], resolve, reject, timer });
      this.stats.asked++;
      if (!link.send({ ...q, requestId })) {
        timer.cancel();
        this.asked.delete(requestId);
        reject(new LightQueryError('the link closed before the question was sent'));
      }
    });
  }

  /** A master link if there is one (they answer directly), else a relay (it passes the question on); not `avoid` when another exists. */
  private target(avoid: Link | null): Link | null {
    const masters = inStep(this.o.network.links(MASTER_TYPES));
    const all = masters.length > 0 ? masters : this.o.network.links(['R']);
    const pool = all.length > 1 ? all.filter((l) => l !== avoid) : all;
    return pool.length > 0 ? pool[Math.floor(Math.random() * pool.length)]! : null;
  }

  private freshId(taken: (id: number) => boolean): number {
    for (let i = 0; i < 16; i++) {
      const id = this.nextId;
      this.nextId = this.nextId >= MAX_REQUEST_ID ? 1 : this.nextId + 1;
      if (!taken(id)) return id;
    }
    return this.nextId;
  }

  private async question(link: Link, q: Question): Promise<boolean> {
    // Past the asking link's budget: dropped unanswered (its timeout asks again later).
    if (!this.budget.take(link, link.peerType, questionCost(q.code === MessageCode.getBlockHeaders4 ? q.count : 0))) {
      this.stats.dropped++;
      return true;
    }
    const state = this.o.state;
    if (state) {
      if (this.o.serving?.() === false) return true;
      this.stats.served++;
      await this.serve(link, q, state);
      return true;
    }
    if (this.o.proxy && !MASTER_TYPES.includes(link.peerType)) this.passOn(link, q);
    return true;
  }

  private async serve(link: Link, q: Question, state: LightState): Promise<void> {
    switch (q.code) {
      case MessageCode.getBalance2: {
        const tip = state.tip();
        link.send({ code: MessageCode.balance2, requestId: q.requestId, address: q.address, ...state.balance(q.address), height: tip.height, checksum: tip.checksum });
        return;
      }
      case MessageCode.getTransaction3: {
        const t = state.transaction(q.txid);
        link.send({ code: MessageCode.transactionData2, requestId: q.requestId, txid: q.txid, status: t.status, height: t.height, transaction: t.bytes });
        return;
      }
      case MessageCode.getNameRecord:
        link.send({ code: MessageCode.nameRecord, requestId: q.requestId, id: q.id, record: state.nameRecord(q.id, q.absolute) });
        return;
      case MessageCode.getBlockHeaders4: {
        const tip = state.tip().height;
        let rest = state.headers(q.from, q.count, q.addresses);
        let start = q.from;
        do {
          while (link.state === 'open' && link.pendingBytes > SERVE_PENDING_BYTES) await new Promise<void>((r) => this.clock.setTimer(10, r));
          const { frame, count } = encodeHeadersFitting(q.requestId, start, tip, rest);
          if (!link.sendFrame(frame) || count === 0) return;
          rest = rest.slice(count);
          start += BigInt(count);
        } while (rest.length > 0);
      }
    }
  }

  /** A relay passes a client's question to a master under an id of its own (§7.3). */
  private passOn(from: Link, q: Question): void {
    const now = this.clock.now();
    for (const [id, p] of this.proxied) {
      if (p.expires > now) break; // insertion order ≈ expiry order
      this.proxied.delete(id);
    }
    const masters = inStep(this.o.network.links(MASTER_TYPES));
    if (masters.length === 0 || this.proxied.size >= MAX_PROXIED) return;
    const master = masters[Math.floor(Math.random() * masters.length)]!;
    const id = this.freshId((i) => this.proxied.has(i));
    const answer = ANSWER_OF[q.code];
    const ttl = q.code === MessageCode.getBlockHeaders4 ? PROXY_HEADERS_TTL_MS : PROXY_TTL_MS;
    if (master.send({ ...q, requestId: id })) {
      this.proxied.set(id, { link: from, requestId: q.requestId, answer, expires: now + ttl });
      this.stats.proxied++;
    }
  }

  private answer(link: Link, a: Answer): boolean {
    const mine = this.asked.get(a.requestId);
    if (mine && mine.answer === a.code) {
      this.asked.delete(a.requestId);
      mine.timer.cancel();
      if (a.code === MessageCode.balance2 && this.o.onOurChain?.(a.height, a.checksum) === false) {
        this.stats.offChain++;
        mine.reject(new LightQueryError(`${link.peer?.addressText ?? link.remote} answered from a block ${a.height} that is not on this node's chain`));
      } else mine.resolve(a);
      return true;
    }
    const passed = this.proxied.get(a.requestId);
    if (passed && passed.answer === a.code && MASTER_TYPES.includes(link.peerType)) {
      // A header range may come in several frames: the entry stays until it expires.
      if (a.code !== MessageCode.blockHeaders4) this.proxied.delete(a.requestId);
      if (passed.link.state === 'open') passed.link.send({ ...a, requestId: passed.requestId });
      return true;
    }
    // Block sync's own header ranges (id 0) are the caller's; other answers nobody waits for are dropped.
    return a.code !== MessageCode.blockHeaders4 || a.requestId !== 0;
  }
}
