/**
 * calculateTransactionFee and createRawTransaction refuse what addTransaction refuses without state
 * (interface.md: "The same errors as addTransaction apply"), with the same error, at a master and
 * at a client (src/rpc/methods/transactions.ts, `checkStateless` of src/wallet/light-wallet.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { addressToText } from '../../src/formats/address.js';
import { RpcCode, RpcError } from '../../src/rpc/types.js';
import { openTestChain, type TestChain } from '../chain/fixture.js';
import { callOperation, rpcContexts, STRANGER } from '../wallet/light-fixture.js';
import { multisigMethods } from '../../src/rpc/methods/multisig.js';
import { toRpcError } from '../../src/rpc/errors.js';

const open: TestChain[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

/** A funded test chain with an RPC context of a master and of a client over it. */
async function contexts() {
  const t = await openTestChain();
  open.push(t);
  const { masterCtx, clientCtx } = rpcContexts(t);
  return { t, ctxs: [[masterCtx, false], [clientCtx, true]] as const };
}

const call = callOperation;

describe('calculateTransactionFee and createRawTransaction make addTransaction\'s checks', () => {
  it('below the dust limit, and an input address paid (from = to with autofee): addTransaction\'s -32602 error', async () => {
    const { t, ctxs } = await contexts();
    const own = t.wallet.primary.primaryText;
    const cases: [Record<string, unknown>, string][] = [
      [{ to: `${addressToText(STRANGER)}_0.005` }, 'The transaction was rejected: output 0 amount 0.00500000 is below the dust limit 0.01000000'],
      [{ to: `${own}_1`, from: `${own}_1`, autofee: true }, 'The transaction was rejected: an input address is also an output address'],
    ];
    for (const [ctx, light] of ctxs) {
      for (const [params, message] of cases) {
        const added = await call('addTransaction', params, ctx, light);
        expect([added.code, added.message], `addTransaction ${JSON.stringify(params)} light=${light}`).toEqual([RpcCode.InvalidParams, message]);
        for (const [name, extra] of [['calculateTransactionFee', {}], ['createRawTransaction', {}], ['createRawTransaction', { sign: true, json: true }]] as const) {
          const err = await call(name, { sign: false, json: false, ...params, ...extra }, ctx, light);
          expect(err, `${name} ${JSON.stringify(params)} light=${light}`).toBeInstanceOf(RpcError);
          expect([err.code, err.message]).toEqual([added.code, added.message]);
        }
      }
    }
  });

  it('an explicit fee with more than 8 decimals is truncated to 8, as the amounts of to and from are (the reference\'s IxiNumber(string))', async () => {
    const { ctxs } = await contexts();
    const to = `${addressToText(STRANGER)}_1`;
    for (const [ctx, light] of ctxs) {
      expect(await call('calculateTransactionFee', { to, fee: '0.250000009' }, ctx, light), `light=${light}`).toBe('0.25000000');
      const tx = await call('createRawTransaction', { to, fee: '0.0123456789', sign: false, json: true }, ctx, light);
      expect(tx.fee, `light=${light}`).toBe('0.01234567');
      // truncated below the size minimum: refused as a low fee, not as a malformed one
      const low = await call('calculateTransactionFee', { to, fee: '0.000000009' }, ctx, light);
      expect([low.code, low.message]).toEqual([RpcCode.InvalidParams, expect.stringMatching(/^The fee 0\.00000000 is below the minimum fee/)]);
    }
  });

  it('addMultiSigTransaction truncates a fee with more than 8 decimals too, rather than refusing it', async () => {
    const { t } = await contexts();
    const { masterCtx } = rpcContexts(t);
    const def = multisigMethods.find((m) => m.name === 'addMultiSigTransaction')! as any;
    const run = async (fee: string) => {
      try {
        return await def.handler({ to: `${addressToText(STRANGER)}_1`, from: t.wallet.primary.primaryText, fee }, masterCtx);
      } catch (err) {
        return toRpcError(err);
      }
    };
    // The fee is read first; the wallet, a normal one, is refused after it.
    expect((await run('0.0050000001')).message).toBe("The specified 'from' wallet is not a multisig wallet.");
    expect((await run('0.0049999999')).message).toMatch(/^Invalid fee was specified: the price per started kB must be at least 0\.005/);
  });

  it('a derived address given as the wallet is named as such, with the primary address to give instead', async () => {
    const { t, ctxs } = await contexts();
    const derived = addressToText(t.wallet.newAddress());
    const to = `${addressToText(STRANGER)}_1`;
    for (const [ctx, light] of ctxs) {
      const err = await call('calculateTransactionFee', { to, wallet: derived }, ctx, light);
      expect([err.code, err.message], `light=${light}`).toEqual([
        RpcCode.InvalidParams,
        `Unknown wallet ${derived}: it is a derived address of this node's wallet ${t.wallet.primary.primaryText}; give that primary address`,
      ]);
      const stranger = await call('calculateTransactionFee', { to, wallet: addressToText(STRANGER) }, ctx, light);
      expect(stranger.message).toBe(`Unknown wallet ${addressToText(STRANGER)}: not one of this node's wallets`);
    }
  });

  it('a valid payment: its fee, and the raw transaction unsigned or signed', async () => {
    const { ctxs } = await contexts();
    const to = `${addressToText(STRANGER)}_1`;
    for (const [ctx, light] of ctxs) {
      expect(await call('calculateTransactionFee', { to }, ctx, light)).toMatch(/^0\.\d{8}$/);
      const unsigned = await call('createRawTransaction', { to, sign: false, json: true }, ctx, light);
      const signed = await call('createRawTransaction', { to, sign: true, json: true }, ctx, light);
      expect([unsigned.signature ?? null, typeof signed.signature]).toEqual([null, 'string']);
      expect(await call('createRawTransaction', { to, sign: false, json: false }, ctx, light)).toMatch(/^[0-9a-f]+$/);
    }
  });
});
