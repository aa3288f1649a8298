/**
 * Light-client questions over in-process links (src/network/light-queries.ts, reference-network
 * §7.3): a client linked only to a relay asks; the relay passes each question to a master that is
 * in step (one far behind is synchronizing and answers nothing) under its own id and routes the
 * answer back; an unanswered question is asked again, then fails with LightQueryError.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { LocalNode } from '../../src/network/link.js';
import { LightQueries, LightQueryError, type LightState } from '../../src/network/light-queries.js';
import { PeerNetwork } from '../../src/network/peer-network.js';
import { QUESTION_RATES, QuestionBudget, questionCost } from '../../src/network/question-budget.js';
import { TxStatus, type NodeType } from '../../src/network/protocol/messages.js';
import { GENESIS, makeIdentity, ManualClock, MemorySocket, pump, type TestIdentity, wire } from './helpers.js';

let ids: TestIdentity[];
beforeAll(async () => {
  ids = await Promise.all(Array.from({ length: 4 }, () => makeIdentity()));
});

const ADDRESS = Uint8Array.of(0, ...new Uint8Array(32).fill(5));

/** A master's answers: a fixed balance, every transaction pending, no names, no headers. */
const stateOf = (balance: bigint, height: bigint): LightState => ({
  tip: () => ({ height, checksum: new Uint8Array(64).fill(1) }),
  balance: () => ({ balance, walletType: 0, hasPublicKey: true }),
  transaction: (txid) => ({ status: TxStatus.pending, height: 0n, bytes: txid }),
  nameRecord: () => null,
  headers: () => [],
});

function node(id: TestIdentity, type: NodeType, port: number, clock: ManualClock, height: bigint, light: (n: PeerNetwork) => LightQueries) {
  let queries!: LightQueries;
  const local: LocalNode = {
    network: 'reg', genesisChecksum: GENESIS, nodeType: type, address: id.address, publicKey: id.publicKey,
    productVersion: 't', endpoint: `127.0.0.1:${port}`, sign: id.sign,
    tip: () => ({ height, checksum: new Uint8Array(64) }), networkHeight: () => height, acceptingPeers: () => true,
  };
  const network = new PeerNetwork({ local, clock, onMessage: async (link, m) => void (await queries.handle(link, m)) });
  queries = light(network);
  network.start();
  return { network, queries };
}


/** Pumps the sockets until `p` settles (the manual clock advances 100 ms a round, at most 200 rounds). */
async function until<T>(p: Promise<T>, clock: ManualClock, sockets: MemorySocket[]): Promise<T> {
  let done = false;
  const watched = p.finally(() => (done = true));
  for (let i = 0; i < 200 && !done; i++) {
    await pump(...sockets);
    clock.advance(100);
  }
  return watched;
}

describe('LightQueries', () => {
  it('a client asks through its relay; the relay picks the master in step, and the answer comes back under the client id', async () => {
    const clock = new ManualClock();
    const behind = node(ids[0]!, 'M', 1, clock, 30n, (network) => new LightQueries({ network, clock, state: stateOf(1n, 30n), serving: () => false }));
    const inStep = node(ids[1]!, 'M', 2, clock, 40n, (network) => new LightQueries({ network, clock, state: stateOf(777n, 40n), serving: () => true }));
    const relay = node(ids[2]!, 'R', 3, clock, 40n, (network) => new LightQueries({ network, clock, proxy: true }));
    const client = node(ids[3]!, 'C', 4, clock, 40n, (network) => new LightQueries({ network, clock, timeoutMs: 1_000 }));
    const sockets = [
      ...wire(relay.network, behind.network, '127.0.0.1:1'),
      ...wire(relay.network, inStep.network, '127.0.0.1:2'),
      ...wire(client.network, relay.network, '127.0.0.1:3'),
    ];
    for (let i = 0; i < 5; i++) {
      await pump(...sockets);
      clock.advance(200);
    }
    expect(relay.network.links(['M'])).toHaveLength(2);

    // Many questions: every one answered by the master in step, none lost to the one behind.
    for (let i = 0; i < 8; i++) {
      const answer = await until(client.queries.balance(ADDRESS), clock, sockets);
      expect([answer.balance, answer.height]).toEqual([777n, 40n]);
    }
    expect(behind.queries.stats.served).toBe(0);
    expect(relay.queries.stats.proxied).toBe(8);
    const tx = await until(client.queries.transaction(Uint8Array.of(9, 9, 9)), clock, sockets);
    expect([tx.status, [...tx.transaction!]]).toEqual([TxStatus.pending, [9, 9, 9]]);
    expect((await until(client.queries.nameRecord(Uint8Array.of(1, 2), true), clock, sockets)).record).toBeNull();

    // With only the master that answers nothing left, the question is asked three times, then fails.
    inStep.network.stop();
    await until(Promise.resolve(), clock, sockets);
    const failed = await until(client.queries.balance(ADDRESS).catch((e: unknown) => e), clock, sockets);
    expect(failed).toBeInstanceOf(LightQueryError);
    expect(client.queries.stats.unanswered).toBe(3);
    for (const n of [behind, relay, client]) {
      n.queries.stop();
      n.network.stop();
    }
  });

  it('drops the questions a link asks past its budget, unanswered; the budget refills with time', async () => {
    const clock = new ManualClock();
    const rates = { client: { perSecond: 5, burst: 10 }, relay: { perSecond: 100, burst: 100 } };
    const master = node(ids[0]!, 'M', 1, clock, 40n, (network) => new LightQueries({ network, clock, state: stateOf(5n, 40n), serving: () => true, rates }));
    const client = node(ids[3]!, 'C', 4, clock, 40n, (network) => new LightQueries({ network, clock, timeoutMs: 60_000 }));
    const sockets = wire(client.network, master.network, '127.0.0.1:1');
    for (let i = 0; i < 5; i++) {
      await pump(...sockets);
      clock.advance(200);
    }
    // 30 questions at once (the clock stands still): the first 10 are answered, 20 dropped.
    const answered: bigint[] = [];
    for (let i = 0; i < 30; i++) void client.queries.balance(ADDRESS).then((a) => answered.push(a.balance), () => undefined);
    for (let i = 0; i < 10; i++) await pump(...sockets);
    expect(answered).toHaveLength(10);
    expect([master.queries.stats.served, master.queries.stats.dropped]).toEqual([10, 20]);
    // Two seconds later the link has 10 units again; a header range of 1,000 costs 6 of them.
    clock.advance(2_000);
    await pump(...sockets);
    void client.queries.balance(ADDRESS).then((a) => answered.push(a.balance));
    for (let i = 0; i < 10; i++) await pump(...sockets);
    expect(answered).toHaveLength(11);
    expect(master.queries.stats.served).toBe(11);
    for (const n of [master, client]) {
      n.queries.stop();
      n.network.stop();
    }
  });

  it("refuses a balance read at a block this node holds with another checksum, and asks another master", async () => {
    const clock = new ManualClock();
    const forked = node(ids[0]!, 'M', 1, clock, 40n, (network) => new LightQueries({ network, clock, state: { ...stateOf(1n, 40n), tip: () => ({ height: 40n, checksum: new Uint8Array(64).fill(2) }) }, serving: () => true }));
    const client = node(ids[3]!, 'C', 4, clock, 40n, (network) => new LightQueries({ network, clock, timeoutMs: 1_000, onOurChain: (_height, checksum) => checksum[0] === 1 }));
    const sockets = [...wire(client.network, forked.network, '127.0.0.1:1')];
    for (let i = 0; i < 5; i++) {
      await pump(...sockets);
      clock.advance(200);
    }
    // Only the master on another chain: every attempt is refused, then the question fails.
    const failed = await until(client.queries.balance(ADDRESS).catch((e: unknown) => e), clock, sockets);
    expect(failed).toBeInstanceOf(LightQueryError);
    expect((failed as Error).message).toMatch(/not on this node's chain/);
    expect(client.queries.stats.offChain).toBe(3);
    // With a master on our chain as well, the answer is its own.
    const good = node(ids[1]!, 'M', 2, clock, 40n, (network) => new LightQueries({ network, clock, state: stateOf(777n, 40n), serving: () => true }));
    sockets.push(...wire(client.network, good.network, '127.0.0.1:2'));
    for (let i = 0; i < 5; i++) {
      await pump(...sockets);
      clock.advance(200);
    }
    for (let i = 0; i < 4; i++) expect((await until(client.queries.balance(ADDRESS), clock, sockets)).balance).toBe(777n);
    for (const n of [forked, good, client]) {
      n.queries.stop();
      n.network.stop();
    }
  });

  it('a question costs one unit, and one more per 200 headers asked for', () => {
    expect([questionCost(), questionCost(1), questionCost(200), questionCost(1_000), questionCost(2_000)]).toEqual([1, 2, 2, 6, 11]);
    const clock = new ManualClock();
    const budget = new QuestionBudget(clock);
    const client = {};
    const relay = {};
    let taken = 0;
    while (budget.take(client, 'C', 1)) taken++;
    expect(taken).toBe(QUESTION_RATES.client.burst);
    clock.advance(1_000);
    expect(budget.take(client, 'C', QUESTION_RATES.client.perSecond)).toBe(true);
    expect(budget.take(client, 'C', 1)).toBe(false);
    expect(budget.take(relay, 'R', QUESTION_RATES.relay.burst)).toBe(true);
  });

  it('fails at once without a master or relay link', async () => {
    const clock = new ManualClock();
    const lone = node(ids[3]!, 'C', 5, clock, 1n, (network) => new LightQueries({ network, clock }));
    await expect(lone.queries.balance(ADDRESS)).rejects.toThrow(/no master or relay is linked/);
    lone.network.stop();
  });
});
