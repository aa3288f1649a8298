/**
 * The payment builder (src/wallet/payments.ts) on a stated set of balances: a client's relay
 * outputs when a relay is also a recipient (one output per address, the share added to it), in
 * every mode (inputs chosen, `from`, `from` with `autofee`); and a payment to an address of the
 * paying wallet (funded by its other addresses, or refused saying so, not "Balance is too low").
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TxError, TxErrorCode } from '../../src/chain/errors.js';
import { WalletType } from '../../src/chain/wallet-state.js';
import { encodeTransaction } from '../../src/codec/transaction.js';
import type { Transaction } from '../../src/codec/types.js';
import { systemClock } from '../../src/clock.js';
import { addressToText } from '../../src/formats/address.js';
import { equalBytes, latin1Key, toHex } from '../../src/formats/bytes.js';
import { TRANSACTION_DUST_LIMIT } from '../../src/formats/constants.js';
import { toRpcError } from '../../src/rpc/errors.js';
import { RpcCode } from '../../src/rpc/types.js';
import { PaymentBuilder, type PaymentRequest } from '../../src/wallet/payments.js';
import { NodeWallet, type WalletKey } from '../../src/wallet/wallet.js';
import { newDataDir } from '../e2e/harness.js';

const COIN = 100_000_000n;
const RELAY = Uint8Array.of(0, ...new Uint8Array(32).fill(7));
const OTHER_RELAY = Uint8Array.of(0, ...new Uint8Array(32).fill(8));
const STRANGER = Uint8Array.of(0, ...new Uint8Array(32).fill(4));

let dataDir: string;
let wallet: NodeWallet;
let key: WalletKey;
/** A second address of the wallet's key. */
let derived: Uint8Array;

beforeAll(async () => {
  ({ dataDir } = await newDataDir());
  wallet = await NodeWallet.open(dataDir);
  key = wallet.primary;
  derived = wallet.newAddress(key);
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** A builder over these balances (address → coins), nothing pending. */
function builderWith(balances: [Uint8Array, bigint][]): PaymentBuilder {
  const byKey = new Map(balances.map(([a, b]) => [latin1Key(a), b]));
  const state = { height: 10n, wallet: (a: Uint8Array) => ({ balance: byKey.get(latin1Key(a)) ?? 0n, type: WalletType.Normal, publicKey: null }) };
  return new PaymentBuilder(state, { pendingSpendOf: () => 0n }, 'reg', systemClock);
}

const amountTo = (tx: Transaction, address: Uint8Array): bigint | undefined => tx.outputs.find((o) => equalBytes(o.address, address))?.amount;
const sum = (xs: readonly { amount: bigint }[]): bigint => xs.reduce((s, x) => s + x.amount, 0n);
const shareOf = (fee: bigint): bigint => (fee > TRANSACTION_DUST_LIMIT ? fee : TRANSACTION_DUST_LIMIT);

/** Builds (and signs: the encoder refuses an address twice) and checks the amounts add up. */
function built(b: PaymentBuilder, req: PaymentRequest): { tx: Transaction; fee: bigint } {
  const { tx, fee } = b.build(req);
  b.buildSigned(req);
  expect(encodeTransaction(tx).length).toBeGreaterThan(0);
  const addresses = tx.outputs.map((o) => toHex(o.address));
  expect(new Set(addresses).size, 'each address once').toBe(addresses.length);
  expect(sum(tx.inputs)).toBe(sum(tx.outputs) + fee);
  return { tx, fee };
}

describe('relay outputs of a client payment', () => {
  it('a relay that is also a recipient gets its share added to that output, inputs chosen by the builder', () => {
    const b = builderWith([[key.primary, 100n * COIN]]);
    const { tx, fee } = built(b, { key, outputs: [{ address: RELAY, amount: COIN }], relays: [RELAY, OTHER_RELAY] });
    expect(tx.outputs).toHaveLength(2);
    expect(amountTo(tx, RELAY)).toBe(COIN + shareOf(fee));
    expect(amountTo(tx, OTHER_RELAY)).toBe(shareOf(fee));
  });

  it('the same with from, and with from and autofee', () => {
    const b = builderWith([[key.primary, 100n * COIN]]);
    const outputs = [{ address: STRANGER, amount: 2n * COIN }, { address: RELAY, amount: COIN }];
    const auto = built(b, { key, outputs, relays: [RELAY], from: [{ address: key.primary, amount: 3n * COIN }], autofee: true });
    expect(auto.tx.outputs).toHaveLength(2);
    expect(amountTo(auto.tx, RELAY)).toBe(COIN + shareOf(auto.fee));
    expect(amountTo(auto.tx, STRANGER)).toBe(2n * COIN);
    // The exact sum autofee found, given as `from`: the same outputs.
    const exact = built(b, { key, outputs, relays: [RELAY], from: [{ address: key.primary, amount: sum(auto.tx.inputs) }] });
    expect(exact.fee).toBe(auto.fee);
    expect(amountTo(exact.tx, RELAY)).toBe(COIN + shareOf(exact.fee));
  });

  it('a relay named twice is paid once with both shares; recipients alone (a master) are left as given', () => {
    const b = builderWith([[key.primary, 100n * COIN]]);
    const twice = built(b, { key, outputs: [{ address: STRANGER, amount: COIN }], relays: [RELAY, RELAY] });
    expect(twice.tx.outputs).toHaveLength(2);
    expect(amountTo(twice.tx, RELAY)).toBe(2n * shareOf(twice.fee));
    const outputs = [{ address: STRANGER, amount: COIN }, { address: RELAY, amount: COIN }];
    const master = built(b, { key, outputs });
    expect(master.tx.outputs).toEqual(outputs);
  });
});

describe('a payment to an address of the paying wallet', () => {
  const errorOf = (f: () => unknown): TxError => {
    try {
      f();
    } catch (err) {
      if (err instanceof TxError) return err;
      throw err;
    }
    throw new Error('no error');
  };

  it('is funded by the wallet\'s other addresses when they cover it', () => {
    const b = builderWith([[key.primary, 10n * COIN]]);
    const { tx } = built(b, { key, outputs: [{ address: derived, amount: COIN }] });
    expect(tx.inputs.map((i) => toHex(i.key))).toEqual(['00']);
    expect(amountTo(tx, derived)).toBe(COIN);
  });

  it('is refused as such (-32602), not as a low balance, when only the paid address holds the funds', () => {
    const b = builderWith([[key.primary, 10n * COIN], [derived, COIN / 2n]]);
    const err = errorOf(() => b.build({ key, outputs: [{ address: key.primary, amount: COIN }] }));
    expect(err.code).toBe(TxErrorCode.BadPayment);
    expect(err.message).toMatch(new RegExp(`^Cannot pay ${addressToText(key.primary)} from the same wallet: a payment cannot spend from an address it pays, and the wallet's other addresses hold 0\\.50000000 of the 1\\.\\d{8} needed$`));
    expect(toRpcError(err)?.code).toBe(RpcCode.InvalidParams);
    // Short of funds whatever the inputs: still "Balance is too low".
    expect(errorOf(() => b.build({ key, outputs: [{ address: key.primary, amount: 20n * COIN }] })).code).toBe(TxErrorCode.BalanceTooLow);
    expect(errorOf(() => b.build({ key, outputs: [{ address: STRANGER, amount: 20n * COIN }] })).code).toBe(TxErrorCode.BalanceTooLow);
  });
});
