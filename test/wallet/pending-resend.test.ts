/**
 * A light wallet's pending transactions (src/wallet/light-wallet.ts) after they were sent: a sending
 * lost in transit is not the end of them. As the reference's light client does (reference-network
 * §4.1; QuIXI `processPendingTransactions`), a pending one is handed to the links again 40 s after
 * its last sending until it is applied or expired, also when the masters do not know it; it is
 * dropped only when a master refuses it or when it is older than the redacted window.
 */
import { describe, expect, it } from 'vitest';
import { COIN } from '../../src/formats/amount.js';
import { knownTx, type KnownTx } from '../../src/chain/tx-codec.js';
import { REDACTED_WINDOW } from '../../src/formats/constants.js';
import { REFORWARD_AFTER_MS } from '../../src/network/light-node.js';
import { TxStatus } from '../../src/network/protocol/messages.js';
import { LightWallet } from '../../src/wallet/light-wallet.js';
import { silentLog } from '../chain/fixture.js';
import { RpcError } from '../../src/rpc/types.js';
import { callOperation, rpcContexts, STRANGER, testChains } from './light-fixture.js';

const openChain = testChains();

/** A client's wallet over a funded test chain whose masters know none of its transactions (they were lost on the way). */
async function client() {
  const t = await openChain();
  let now = 1_000_000;
  const clock = { now: () => now, setTimer: () => ({ cancel: () => undefined }) };
  let tip = t.chain.height;
  const headers = { get height() {
    return tip;
  } };
  const resent: KnownTx[][] = [];
  let links = 1;
  const wallet = new LightWallet({
    store: t.store,
    network: 'reg',
    extensions: t.chain.extensions,
    wallet: t.wallet,
    headers: headers as never,
    clock,
    log: silentLog,
    events: t.events,
    asker: () => ({
      balance: async () => ({ balance: 10n * COIN, walletType: 0, hasPublicKey: true, height: tip }),
      transaction: async () => ({ status: TxStatus.unknown, height: 0n }),
    }),
    resend: (txs) => {
      if (links > 0) resent.push([...txs]);
      return links;
    },
  });
  const pay = (): KnownTx => {
    const { tx } = t.builder.build({ key: t.wallet.primary, outputs: [{ address: STRANGER, amount: COIN }] });
    tx.signature = t.wallet.primary.sign(knownTx(tx, 'reg').checksum);
    return knownTx(tx, 'reg');
  };
  return {
    t,
    wallet,
    resent,
    pay,
    advance: async (ms: number) => {
      now += ms;
      await wallet.tick();
    },
    setTip: (h: bigint) => void (tip = h),
    setLinks: (n: number) => void (links = n),
  };
}

describe('a light wallet sends its pending transactions again until they are applied or expired', () => {
  it('40 s after the last sending, again and again, also when the masters do not know it; never dropped for that', async () => {
    const c = await client();
    const k = c.pay();
    await c.wallet.submit(k);
    await c.advance(REFORWARD_AFTER_MS / 2);
    expect(c.resent).toEqual([]);
    await c.advance(REFORWARD_AFTER_MS / 2);
    expect(c.resent.map((b) => b.map((x) => x.textId))).toEqual([[k.textId]]);
    // A minute after it was sent the masters are asked: none knows it (lost on its way). It stays pending and goes again.
    for (let i = 0; i < 12; i++) await c.advance(10_000);
    expect(c.wallet.pendingList().map((x) => x.textId)).toEqual([k.textId]);
    expect(c.wallet.get(k.id)?.dropped).toBeUndefined();
    expect(c.resent.length).toBeGreaterThanOrEqual(4);
    expect(c.resent.every((b) => b.length === 1 && b[0]!.textId === k.textId)).toBe(true);
  });

  it('with no link to take it, it is sent as soon as a link is back', async () => {
    const c = await client();
    const k = c.pay();
    await c.wallet.submit(k);
    c.setLinks(0);
    await c.advance(REFORWARD_AFTER_MS + 1_000);
    await c.advance(5_000);
    expect(c.resent).toEqual([]);
    c.setLinks(1);
    await c.advance(5_000);
    expect(c.resent.map((b) => b.map((x) => x.textId))).toEqual([[k.textId]]);
  });

  it('dropped once its blockHeight is more than the redacted window below the tip (the reference expiry), and no longer sent', async () => {
    const c = await client();
    const k = c.pay();
    await c.wallet.submit(k);
    c.setTip(k.tx.blockHeight + BigInt(REDACTED_WINDOW));
    await c.advance(1_000);
    expect(c.wallet.pendingList()).toHaveLength(1);
    c.setTip(k.tx.blockHeight + BigInt(REDACTED_WINDOW) + 1n);
    await c.advance(REFORWARD_AFTER_MS);
    expect(c.wallet.pendingList()).toEqual([]);
    expect(c.wallet.get(k.id)?.dropped).toMatch(/^expired: /);
    expect(c.resent).toEqual([]);
  });
});

describe('getTransaction at a client, for a payment its own wallet sent and that was dropped', () => {
  it('"not found" as for any transaction no master holds (-32602), saying that this wallet sent it and why it was dropped', async () => {
    const t = await openChain();
    const { wallet, clientCtx } = rpcContexts(t);
    const { tx } = t.builder.build({ key: t.wallet.primary, outputs: [{ address: STRANGER, amount: COIN }] });
    tx.signature = t.wallet.primary.sign(knownTx(tx, 'reg').checksum);
    const k = knownTx(tx, 'reg');
    await wallet.submit(k);
    await wallet.rejected(k.id, 'invalid');
    const queries = { transaction: async () => ({ status: TxStatus.unknown, height: 0n, transaction: null }) };
    const ctx = { ...clientCtx, p2p: { ...clientCtx.p2p, queries } };
    const err = await callOperation('getTransaction', { id: k.textId }, ctx, true);
    expect(err).toBeInstanceOf(RpcError);
    expect([err.code, err.message]).toEqual([-32602, `Transaction ${k.textId} was not found: this wallet sent it, and it was dropped (refused by a master: invalid)`]);
  });
});
