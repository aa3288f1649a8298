/**
 * A client's payments (src/wallet/light-wallet.ts, the light forms of src/rpc/methods/transactions.ts)
 * on the balances a master reports (here: a test chain's, through `masterLightState`): what a
 * master refuses without reading its state (dust, a fee below the minimum, an input address paid)
 * is refused before anything is sent, with the master's error; a payment to the relay it pays
 * anyway is one output; a payment to its own address says so.
 */
import { describe, expect, it } from 'vitest';
import { COIN } from '../../src/formats/amount.js';
import { TxError, TxErrorCode } from '../../src/chain/errors.js';
import { knownTx, type KnownTx } from '../../src/chain/tx-codec.js';
import type { Transaction } from '../../src/codec/types.js';
import { addressToText } from '../../src/formats/address.js';
import { equalBytes } from '../../src/formats/bytes.js';
import { RpcCode, RpcError } from '../../src/rpc/types.js';
import { GENESIS, type TestChain } from '../chain/fixture.js';
import { callOperation, RELAY, rpcContexts, STRANGER, testChains } from './light-fixture.js';

const openChain = testChains();

/** A client over a funded test chain: its light wallet, what it handed to the network, and an RPC context of each kind. */
async function client() {
  const t = await openChain();
  const sent: KnownTx[] = [];
  t.events.on('txAdmitted', (e) => {
    if (e.source === 'rpc') sent.push(...e.txs);
  });
  return { t, sent, ...rpcContexts(t) };
}

const call = callOperation;

/** `tx`, changed by `change`, signed again by the wallet's key. */
function resigned(t: TestChain, tx: Transaction, change: (tx: Transaction) => void): KnownTx {
  change(tx);
  tx.signature = null;
  tx.signature = t.wallet.primary.sign(knownTx(tx, 'reg').checksum);
  return knownTx(tx, 'reg');
}

async function refusal(p: Promise<unknown>): Promise<TxError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof TxError) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe('a light wallet refuses what a master refuses without state, before sending it', () => {
  it('dust, a fee below the minimum, an input address paid: the master\'s TX_INVALID reason, nothing sent or pending', async () => {
    const { t, wallet, sent } = await client();
    const key = t.wallet.primary;
    const pay = (amount: bigint, to = STRANGER) => t.builder.build({ key, outputs: [{ address: to, amount }] }).tx;
    const cases: [KnownTx, RegExp][] = [
      [resigned(t, pay(100_000n), () => undefined), /^output 0 amount 0\.00100000 is below the dust limit 0\.01000000$/],
      [resigned(t, pay(COIN), (tx) => void (tx.inputs[0]!.amount -= 100_000n)), /^the fee 0\.00\d+ is below the minimum/],
      [resigned(t, pay(COIN), (tx) => void (tx.outputs[0]!.address = key.primary)), /^an input address is also an output address$/],
    ];
    for (const [k, reason] of cases) {
      const err = await refusal(wallet.submit(k));
      expect([err.code, err.message], reason.source).toEqual([TxErrorCode.Invalid, expect.stringMatching(reason)]);
      // A master refuses it for the same reason.
      expect((await t.mempool.submit(k))?.message).toBe(err.message);
    }
    expect(sent).toEqual([]);
    expect(wallet.pendingList()).toEqual([]);
    // A valid one is sent.
    await wallet.submit(resigned(t, pay(COIN), () => undefined));
    expect(sent).toHaveLength(1);
  });

  it('addTransaction below the dust limit: the master\'s -32602 error at a client too, and nothing sent', async () => {
    const { sent, clientCtx, masterCtx } = await client();
    const to = `${addressToText(STRANGER)}_0.001`;
    const atMaster = await call('addTransaction', { to }, masterCtx, false);
    const atClient = await call('addTransaction', { to }, clientCtx, true);
    expect(atMaster).toBeInstanceOf(RpcError);
    expect([atClient.code, atClient.message]).toEqual([RpcCode.InvalidParams, atMaster.message]);
    expect(atClient.message).toBe('The transaction was rejected: output 0 amount 0.00100000 is below the dust limit 0.01000000');
    expect(sent).toEqual([]);
  });

  it('addTransaction paying the relay the client pays anyway: one output with the payment and the relay\'s share', async () => {
    const { sent, clientCtx } = await client();
    const tx = JSON.parse((await call('addTransaction', { to: `${addressToText(RELAY)}_1` }, clientCtx, true)).json);
    expect(Object.keys(tx.to)).toEqual([addressToText(RELAY)]);
    const share = Number(tx.fee) > 0.01 ? Number(tx.fee) : 0.01;
    expect(Number(tx.to[addressToText(RELAY)])).toBeCloseTo(1 + share, 8);
    expect(sent.map((k) => k.textId)).toEqual([tx.id]);
    expect(sent[0]!.tx.outputs.filter((o) => equalBytes(o.address, RELAY))).toHaveLength(1);
  });

  it('addTransaction to the wallet\'s own (only funded) address: -32602 saying so, at a client and at a master', async () => {
    const { t, clientCtx, masterCtx } = await client();
    const to = `${t.wallet.primary.primaryText}_1`;
    for (const [ctx, light] of [[clientCtx, true], [masterCtx, false]] as const) {
      const err = await call('addTransaction', { to }, ctx, light);
      expect(err).toBeInstanceOf(RpcError);
      expect([err.code, err.message]).toEqual([RpcCode.InvalidParams, expect.stringMatching(/^Cannot pay \w+ from the same wallet: a payment cannot spend from an address it pays/)]);
    }
  });
});

describe('a light wallet\'s payments sent at once', () => {
  it('never spend the same coins twice: the second payment built while the first is being stored counts it as pending', async () => {
    // Seen in a devnet under load: two addTransaction calls on one client, both acknowledged with
    // a txid, both spending one address's balance; the masters ignore the second (balance too low)
    // and it stays pending for the 10,000 blocks of the redacted window.
    const { wallet, clientCtx } = await client();
    const to = `${addressToText(STRANGER)}_${Number((GENESIS * 6n) / 10n / COIN)}`;
    const answers = await Promise.all([call('addTransaction', { to }, clientCtx, true), call('addTransaction', { to }, clientCtx, true)]);
    const sent = answers.filter((a) => !(a instanceof RpcError));
    expect(sent).toHaveLength(1);
    expect(answers.find((a) => a instanceof RpcError)?.message).toBe('Balance is too low');
    expect(wallet.pendingList()).toHaveLength(1);
  });
});
