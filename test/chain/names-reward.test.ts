/**
 * The chain side of the name system: the reward pool is paid out block by block
 * (reference-names.md §5.5) — the block's share leaves the pool address, joins the block's
 * totalFee and reaches the signer (less the foundation share) like any fee; the whole pool once no
 * name lasts beyond the block. And the PaymentBuilder funds name operations that send 0 (§4.2).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { addressFromText } from '../../src/formats/address.js';
import { FOUNDATION_ADDRESS, FOUNDATION_FEE_PERCENT, TransactionType } from '../../src/formats/constants.js';
import { createNameSystem, NAME_POOL_ADDRESS, type NameSystem } from '../../src/names/chain-extension.js';
import { openTestChain, silentLog, type TestChain } from './fixture.js';

const COIN = 100_000_000n;
const FOUNDATION = addressFromText(FOUNDATION_ADDRESS);

let t: TestChain | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A chain with the real name system, built over the chain's store as createNode builds it. */
async function chainWithNames(): Promise<{ t: TestChain; names: NameSystem }> {
  let names!: NameSystem;
  const chain = await openTestChain((store) => {
    names = createNameSystem({ store, network: 'reg', log: silentLog });
    return [names.extension];
  });
  return { t: chain, names };
}

describe('names reward pool payout (§5.5)', () => {
  it('pays pool ÷ (highest expiration − height) per block into the fees, then the rest once nothing lasts longer', async () => {
    const setup = await chainWithNames();
    t = setup.t;
    const { chain, mempool, producer, builder, wallet } = t;
    const me = wallet.primary.primary;
    const pool = 90n * COIN;
    // A plain payment to the pool's address lands in a wallet of that address, as in the
    // reference, and stays there: the pool itself is no wallet (§5.2), only the names' books,
    // set here directly. What it pays out joins the supply.
    const fund = builder.buildSigned({ key: wallet.primary, outputs: [{ address: NAME_POOL_ADDRESS, amount: pool }] });
    expect(await mempool.admit([fund])).toEqual([null]);
    await producer.produce();
    expect(chain.height).toBe(2n);
    const highestExpiration = 12n;
    await t.store.write(() => setup.names.state.setMeta({ rewardPool: pool, highestExpiration }));

    let expectedPool = pool;
    for (let height = 3n; height <= highestExpiration + 1n; height++) {
      const signerBefore = chain.wallet(me).balance;
      const foundationBefore = chain.wallet(FOUNDATION).balance;
      const supplyBefore = chain.supply();
      await producer.produce();
      expect(chain.height).toBe(height);
      const left = highestExpiration - height;
      const reward = left > 0n ? expectedPool / left : expectedPool;
      expectedPool -= reward;
      const foundationShare = (reward * BigInt(FOUNDATION_FEE_PERCENT)) / 100n;
      expect(chain.tip!.block.totalFee).toBe(reward);
      expect(setup.names.state.getMeta().rewardPool).toBe(expectedPool);
      expect(chain.wallet(NAME_POOL_ADDRESS).balance).toBe(pool);
      expect(chain.wallet(me).balance - signerBefore).toBe(reward - foundationShare);
      expect(chain.wallet(FOUNDATION).balance - foundationBefore).toBe(foundationShare);
      expect(chain.supply() - supplyBefore).toBe(reward);
    }
    // Block 3 paid 90/9 = 10 coins; by block 12 the pool is empty and stays so.
    expect(expectedPool).toBe(0n);
    expect(chain.getBlock(3n)!.block.totalFee).toBe(10n * COIN);
    await producer.produce();
    expect(chain.tip!.block.totalFee).toBe(0n);
  });
});

describe('funding a name operation that sends 0 (updateRecord, recover)', () => {
  it('the builder pays just the fee for a type-4 zero output; other types still refuse a zero total', async () => {
    const setup = await chainWithNames();
    t = setup.t;
    const { builder, wallet, mempool, producer, chain } = t;
    const outputs = [{ address: NAME_POOL_ADDRESS, amount: 0n, data: Uint8Array.of(1, 2, 3) }];
    const k = builder.buildSigned({ key: wallet.primary, outputs, type: TransactionType.RegName });
    const inputs = k.tx.inputs.reduce((s, i) => s + i.amount, 0n);
    expect(k.tx.type).toBe(TransactionType.RegName);
    expect(inputs).toBeGreaterThan(0n); // the fee, nothing else
    expect(builder.build({ key: wallet.primary, outputs, type: TransactionType.RegName }).fee).toBe(inputs);
    expect(() => builder.build({ key: wallet.primary, outputs })).toThrow('Invalid to amount was specified');
    expect(() => builder.build({ key: wallet.primary, outputs: [{ address: NAME_POOL_ADDRESS, amount: -1n }], type: TransactionType.RegName })).toThrow(
      'Invalid to amount was specified',
    );
    // A plain payment to the pool address builds as before and applies.
    const pay = builder.buildSigned({ key: wallet.primary, outputs: [{ address: NAME_POOL_ADDRESS, amount: COIN }] });
    expect(await mempool.admit([pay])).toEqual([null]);
    await producer.produce();
    expect(chain.wallet(NAME_POOL_ADDRESS).balance).toBe(COIN);
  });
});
