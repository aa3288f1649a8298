/**
 * What a master answers light nodes (src/network/light-node.ts `masterLightState`, reference-network
 * §7.3) from a real chain and mempool, checked the way a light node takes it: every header it
 * serves appends to a header chain (its re-encoded header has the stored block's checksum), a
 * block holding a payment to a filtered address carries all its txids (their root is the header's)
 * and that payment, balances and transaction statuses are the chain's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { encodeBlockHeader } from '../../src/chain/block.js';
import { HeaderChain } from '../../src/chain/header-chain.js';
import { knownTxFromBytes } from '../../src/chain/tx-codec.js';
import { systemClock } from '../../src/clock.js';
import { equalBytes } from '../../src/formats/bytes.js';
import { masterLightState, touches } from '../../src/network/light-node.js';
import { TxStatus } from '../../src/network/protocol/messages.js';
import { commitBlock, openTestChain, type TestChain } from '../chain/fixture.js';

const COIN = 100_000_000n;
const RECIPIENT = Uint8Array.of(0, ...new Uint8Array(32).fill(9));
const STRANGER = Uint8Array.of(0, ...new Uint8Array(32).fill(4));

const open: TestChain[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

describe('masterLightState', () => {
  it('serves headers a header chain takes, filtered transactions with their block txids, balances and statuses', async () => {
    const t = await openTestChain();
    open.push(t);
    const pay = (coins: bigint, to = RECIPIENT) => t.builder.buildSigned({ key: t.wallet.primary, outputs: [{ address: to, amount: coins * COIN }] });
    await commitBlock(t, [pay(1n, STRANGER)]);
    const paid = pay(5n);
    await commitBlock(t, [pay(2n, STRANGER), paid]);
    await commitBlock(t, []);
    const pending = pay(3n);
    expect(await t.mempool.submit(pending)).toBeNull();
    const state = masterLightState(t.chain, t.mempool);

    // A light node (a second store) follows the served headers from its genesis header.
    const light = await openTestChain();
    open.push(light);
    const headers = new HeaderChain({ store: light.store, genesisHeader: encodeBlockHeader(t.chain.getBlock(1n)!.block), superBlockPeriod: t.chain.superBlockPeriod, clock: systemClock });
    const served = state.headers(2n, 2000, [RECIPIENT]);
    expect(served).toHaveLength(Number(t.chain.height) - 1);
    for (const e of served) await headers.append(e.header, e.txIds.length > 0 ? e.txIds : undefined);
    expect(headers.height).toBe(t.chain.height);
    expect(equalBytes(headers.tip.checksum, t.chain.tip!.checksum)).toBe(true);

    // Only the block holding the payment to RECIPIENT carries txids and transactions: exactly that payment.
    const withTxs = served.filter((e) => e.transactions.length > 0);
    expect(withTxs).toHaveLength(1);
    expect(withTxs[0]!.transactions.map((b) => knownTxFromBytes(b, 'reg').textId)).toEqual([paid.textId]);
    expect(withTxs[0]!.txIds).toHaveLength(2);
    // The signer's own address touches its funding in block 1 and every payment it made; an unrelated address none.
    expect(state.headers(1n, 10, [t.wallet.primary.primary]).filter((e) => e.transactions.length > 0).map((e) => e.transactions.length)).toEqual([1, 1, 2]);
    expect(state.headers(1n, 10, [Uint8Array.of(0, ...new Uint8Array(32).fill(1))]).every((e) => e.txIds.length === 0)).toBe(true);
    expect(touches(paid.tx, [RECIPIENT], t.chain.extensions)).toBe(true);
    expect(touches(paid.tx, [STRANGER], t.chain.extensions)).toBe(false);

    expect(state.balance(RECIPIENT)).toEqual({ balance: 5n * COIN, walletType: 0, hasPublicKey: false });
    expect(state.balance(t.wallet.primary.primary).hasPublicKey).toBe(true);
    const applied = state.transaction(paid.id);
    expect([applied.status, applied.height]).toEqual([TxStatus.applied, 3n]);
    expect(state.transaction(pending.id).status).toBe(TxStatus.pending);
    expect(state.transaction(new Uint8Array(40)).status).toBe(TxStatus.unknown);
    // A range past the tip is empty; heights below 1 are skipped.
    expect(state.headers(t.chain.height + 1n, 10, [])).toEqual([]);
    expect(state.headers(0n, 2, []).map((e) => e.header)).toEqual([encodeBlockHeader(t.chain.getBlock(1n)!.block)]);
  });
});

/** Bytes of a transaction that decodes (a relay's pool checks no more than that). */
async function decodableTransaction(nonce = 1): Promise<Uint8Array> {
  const { encodeTransaction } = await import('../../src/codec/transaction.js');
  const { makeIdentity } = await import('./helpers.js');
  const id = await makeIdentity();
  return encodeTransaction({
    version: 7, type: 0, blockHeight: 1n, nonce, pubKey: id.publicKey, signature: new Uint8Array(512).fill(1), applied: 0n, timestamp: 0n,
    inputs: [{ key: Uint8Array.of(0), amount: 2_000_000n }], outputs: [{ address: id.address, amount: 1_000_000n }],
  });
}

describe('forwardingPool (a light node\'s gossip mempool)', () => {
  it('takes what decodes, ignores the same transaction within 40 s, takes it again later, and rejects what does not decode', async () => {
    const { forwardingPool, REFORWARD_AFTER_MS } = await import('../../src/network/light-node.js');
    const bytes = await decodableTransaction();
    let now = 1_000_000;
    const pool = forwardingPool('reg', () => now);
    const first = await pool.admit([bytes, Uint8Array.of(1, 2, 3)], 'client-a');
    expect(first.map((o) => o.action)).toEqual(['accept', 'reject']);
    const txid = first[0]!.txid!;
    expect(pool.get(txid)).toEqual(bytes);
    expect(pool.sourceOf(txid)).toBe('client-a');
    now += REFORWARD_AFTER_MS - 1;
    expect((await pool.admit([bytes], 'client-a'))[0]!.action).toBe('ignore');
    now += 1;
    expect((await pool.admit([bytes], 'client-b'))[0]!.action).toBe('accept');
    expect(pool.sourceOf(txid)).toBe('client-b');
    expect([...pool.all()]).toHaveLength(1);
  });

  it("a relay pushes its clients' transactions again: at once when a master links after one was taken with none, then every 40 s until a master holds it applied", async () => {
    const { forwardingPool, ClientTxPusher, REFORWARD_AFTER_MS } = await import('../../src/network/light-node.js');
    const bytes = await decodableTransaction();
    let now = 1_000_000;
    let masters = 0;
    let applied = false;
    const pushes: Uint8Array[][] = [];
    const pool = forwardingPool('reg', () => now, () => masters > 0);
    const pusher = new ClientTxPusher({ pool, mastersLinked: () => masters > 0, push: (txs) => void pushes.push(txs), isApplied: async () => applied });

    // Taken while every master link is down (blacklisted): nothing can go, nothing is lost.
    expect((await pool.admit([bytes], 'client-a'))[0]!.action).toBe('accept');
    expect(await pusher.run()).toBe(0);
    // A master links again: pushed at once, not 40 s later.
    masters = 1;
    expect(await pusher.run()).toBe(1);
    expect(pushes).toEqual([[bytes]]);
    now += REFORWARD_AFTER_MS - 1;
    expect(await pusher.run()).toBe(0);
    // 40 s after the push, not applied: pushed again; again 40 s later.
    now += 1;
    expect(await pusher.run()).toBe(1);
    now += REFORWARD_AFTER_MS;
    expect(await pusher.run()).toBe(1);
    // A master holds it applied: no more pushes.
    applied = true;
    now += REFORWARD_AFTER_MS;
    expect(await pusher.run()).toBe(0);
    now += REFORWARD_AFTER_MS;
    expect(await pusher.run()).toBe(0);
    expect(pushes).toHaveLength(3);
    // One taken while a master is linked went on with the gossip's push: due 40 s later only.
    const other = await decodableTransaction(2);
    applied = false;
    expect((await pool.admit([other], 'client-a'))[0]!.action).toBe('accept');
    expect(await pusher.run()).toBe(0);
    now += REFORWARD_AFTER_MS;
    expect(await pusher.run()).toBe(1);
    expect(pushes.at(-1)).toEqual([other]);
  });
});
