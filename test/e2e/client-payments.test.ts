/**
 * A client's payments end to end, real node processes on loopback (a master, a relay, a client of
 * one devnet genesis): a payment to the relay the client pays anyway is one output, taken and
 * applied; a payment a master would refuse for dust is refused by the client at once with the
 * master's error; a negative amount and a payment to the wallet's own address say what is wrong;
 * payments sent at once never spend the same coins twice; a relay and a client restarted log their
 * header height in "node started".
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectRpcError, masterRelayClient, type NodeProcess } from './harness.js';

const { running, byName, node, start, startAll } = masterRelayClient('dltnode-client-pay');

/** The height of the process's "node started" log line. */
function startedHeight(p: NodeProcess): number | undefined {
  for (const line of p.output().split('\n')) {
    try {
      const l = JSON.parse(line) as { msg?: string; height?: number };
      if (l.msg === 'node started') return l.height;
    } catch {
      // not a log line
    }
  }
  return undefined;
}

beforeAll(startAll, 120_000);

describe('a client\'s payments', () => {
  it('paying the relay it pays anyway: one output holding the payment and the relay\'s share, applied', async () => {
    const relay = byName('relay-1').address;
    const tx = await node('client-1').call('addTransaction', { to: `${relay}_1` });
    expect(Object.keys(tx.to)).toEqual([relay]);
    const share = Math.max(Number(tx.fee), 0.01);
    expect(Number(tx.to[relay])).toBeCloseTo(1 + share, 8);
    await node('master-1').waitApplied(tx.id, { timeoutMs: 20_000, unknownIsPending: true });
  });

  it('below the dust limit: refused by the client at once with the master\'s error, nothing sent', async () => {
    const client = node('client-1');
    const to = `${byName('master-1').address}_0.001`;
    const message = 'The transaction was rejected: output 0 amount 0.00100000 is below the dust limit 0.01000000';
    const pendingBefore = Object.keys(await client.call('txu'));
    await expectRpcError(node('master-1'), 'addTransaction', { to: `${byName('client-1').address}_0.001` }, -32602, message);
    await expectRpcError(client, 'addTransaction', { to }, -32602, message);
    // Nothing new pending (the previous test's payment may have been applied meanwhile).
    expect(Object.keys(await client.call('txu')).filter((id) => !pendingBefore.includes(id))).toEqual([]);
    expect(client.output()).not.toMatch(/dust/);
  });

  it('a negative amount and a payment to the wallet\'s own address say what is wrong (-32602)', async () => {
    for (const [name, own] of [['client-1', byName('client-1').address], ['master-1', byName('master-1').address]] as const) {
      await expectRpcError(node(name), 'addTransaction', { to: `${byName('relay-1').address}_-5` }, -32602, 'Invalid to amount was specified: invalid amount "-5": negative amounts are not allowed', true);
      await expectRpcError(node(name), 'addTransaction', { to: `${own}_1` }, -32602, new RegExp(`^Cannot pay ${own} from the same wallet: a payment cannot spend from an address it pays`));
    }
  });
});

describe('a client\'s payments sent at once', () => {
  it('never spend the same coins twice: each acknowledged payment is applied, one the balance cannot cover is refused', async () => {
    // Seen in a devnet under load: concurrent addTransaction calls on a client were all answered with
    // a txid while spending the same coins; the masters ignored all but one and the others stayed
    // pending (sent again every 40 s) for the 10,000 blocks of the redacted window.
    const client = node('client-1');
    const balance = Number(await client.call('getBalance', { address: byName('client-1').address }));
    const to = `${byName('master-1').address}_${Math.floor(balance * 0.3)}`;
    const answers = await Promise.allSettled([1, 2, 3, 4].map(() => client.call('addTransaction', { to })));
    const sent = answers.flatMap((a) => (a.status === 'fulfilled' ? [a.value.id as string] : []));
    const refused = answers.flatMap((a) => (a.status === 'rejected' ? [String(a.reason.message)] : []));
    expect(sent).toHaveLength(3);
    expect(refused).toEqual(['addTransaction: -32001 Balance is too low']);
    for (const id of sent) await node('master-1').waitApplied(id, { timeoutMs: 20_000, unknownIsPending: true });
  }, 60_000);
});

describe('a light node restarted', () => {
  it('logs its header height in "node started", not the 1 of its chain', async () => {
    for (const name of ['relay-1', 'client-1']) {
      const before = node(name);
      await before.waitForHeight(4, 20_000);
      const height = await before.height();
      await before.stop(true);
      running.delete(name);
      const again = await start(name);
      const logged = await again.waitFor(async () => startedHeight(again), `the "node started" line of ${name}`, 10_000);
      expect(logged, name).toBeGreaterThanOrEqual(height);
    }
  });
});
