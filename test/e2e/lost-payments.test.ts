/**
 * A payment lost on its way is not the end of it, end to end on loopback (a master, a relay, a
 * client of one devnet genesis): a relay that took a client's payment while it had no master link
 * (its master blacklisted) pushes it as soon as a master links again (reference-network §4.1: S2
 * tracks its clients' transactions and pushes them again), and the master applies it; the client
 * still lists it as its own pending payment meanwhile, never dropped.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { masterRelayClient } from './harness.js';

const { byName, node, startAll } = masterRelayClient('dltnode-lost-pay');

beforeAll(startAll, 120_000);

describe('a payment lost on its way', () => {
  it('taken by a relay with no master link: pushed when the master links again, and applied', async () => {
    const client = node('client-1');
    const relay = node('relay-1');
    const master = node('master-1');
    // Made while the relay can still ask the master for the client's balance.
    const raw: string = await client.call('createRawTransaction', { to: `${byName('master-1').address}_1`, sign: true });

    await relay.call('blacklistpeer', { wallet: byName('master-1').address });
    await relay.waitFor(async () => (await relay.call('status'))['Network Servers'].length === 0, 'the relay without its master', 10_000);
    const sent = await client.call('sendRawTransaction', { transaction: raw });
    // The relay holds it with nowhere to push it; the master does not know it.
    await new Promise((r) => setTimeout(r, 2_000));
    await expect(master.call('getTransaction', { id: sent.id })).rejects.toThrow(/was not found/);

    // The master comes back: the relay pushes what it holds for its client, and the master applies it.
    await relay.call('clearpeerblacklist');
    await relay.call('reconnect');
    await master.waitApplied(sent.id, { timeoutMs: 30_000, unknownIsPending: true });
    expect(relay.output()).toMatch(/clients' pending transactions pushed to the masters again/);
    expect((await client.call('activity')).find((a: any) => a.txid === sent.id)?.status).not.toBe(3);
    // activity2 on the client (its own transactions, as the reference's light nodes): listed, not rejected (5) or expired (3).
    const own = (await client.call('activity2', { descending: 'true' }, { get: true })).find((a: any) => a.id === sent.id);
    expect(own).toMatchObject({ id: sent.id, type: 101, toAddressList: { [byName('master-1').address]: '1.00000000' } });
    expect([1, 2]).toContain(own.status);
  }, 60_000);
});
