/**
 * Which wallets a block leaves in the wallet state, by the reference's rule (Ixian-DLT
 * `WalletState.setWalletBalance`/`setWalletBalanceInternal`, `getWallet`; Ixian-Core
 * `Wallet.isEmptyWallet`): reading a wallet never stores it; setting a balance stores the wallet,
 * and a balance set to 0 removes it (block v8+, whatever key or signers it held); setting a public
 * key stores it. The wallet count and the wallet-state checksum (XOR over the stored wallets)
 * follow that set.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sha3_512sq } from '../../src/core/hash.js';
import { addressFromText } from '../../src/formats/address.js';
import { concatBytes } from '../../src/formats/bytes.js';
import { FOUNDATION_ADDRESS } from '../../src/formats/constants.js';
import type { ChainExtension } from '../../src/chain/extensions.js';
import { commitBlock, GENESIS, openTestChain, type TestChain } from './fixture.js';

const STRANGER = addressFromText('4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr');
const FOUNDATION = addressFromText(FOUNDATION_ADDRESS);
const COIN = 100_000_000n;
const FEE = COIN / 100n;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

let open: TestChain[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});
async function chainWith(extensions: ChainExtension[] = []): Promise<TestChain> {
  const t = await openTestChain(extensions);
  open.push(t);
  return t;
}

/** The stored wallets (hex address → value bytes). */
function storedWallets(t: TestChain): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const { key, value } of t.store.db('wallets').getRange({ snapshot: false })) {
    out.set(hex(key as Uint8Array), Uint8Array.from(value as Uint8Array));
  }
  return out;
}

/** The wallet-state checksum of exactly the stored wallets: XOR of sha3_512sq(address ‖ value). */
function checksumOf(wallets: Map<string, Uint8Array>): string {
  const acc = new Uint8Array(64);
  for (const [address, value] of wallets) {
    const h = sha3_512sq(concatBytes(Buffer.from(address, 'hex'), value));
    for (let i = 0; i < 64; i++) acc[i]! ^= h[i]!;
  }
  return hex(acc);
}

/** The stored set is `expected`, and the count and checksum the chain keeps are those of that set. */
function expectWalletSet(t: TestChain, expected: Uint8Array[]): void {
  const stored = storedWallets(t);
  expect([...stored.keys()].sort()).toEqual(expected.map(hex).sort());
  expect(t.chain.walletCount()).toBe(expected.length);
  expect(hex(t.chain.walletStateChecksum())).toBe(checksumOf(stored));
  expect(hex(t.chain.tip!.block.walletStateChecksum!)).toBe(checksumOf(stored));
}

describe('the wallets a block stores (reference WalletState rules)', () => {
  it('a wallet whose balance is spent to 0 is removed from the wallet state', async () => {
    const t = await chainWith();
    const me = t.wallet.primary.primary;
    const a = t.wallet.newAddress();
    await commitBlock(t, [t.builder.buildSigned({ key: t.wallet.primary, outputs: [{ address: a, amount: 5n * COIN }] })]);
    expectWalletSet(t, [me, a, FOUNDATION]);

    // `a` pays out everything it holds: the reference sets its balance to 0 and removes it.
    const spendAll = t.builder.buildSigned({ key: t.wallet.primary, from: [{ address: a, amount: 5n * COIN }], outputs: [{ address: STRANGER, amount: 5n * COIN - FEE }], fee: FEE });
    const r = await commitBlock(t, [spendAll]);
    expect(r.rejected).toEqual([]);
    expect(t.chain.wallet(a).balance).toBe(0n);
    expectWalletSet(t, [me, FOUNDATION, STRANGER]);
    expect(t.chain.supply()).toBe(GENESIS);
  });

  it('a sender that spends all it holds loses the key its transaction stored: key first, then balance 0 removes the wallet', async () => {
    const t = await chainWith();
    const me = t.wallet.primary.primary;
    const a = t.wallet.newAddress();
    expect(t.chain.wallet(me).publicKey).toBeNull();
    const k = t.builder.buildSigned({ key: t.wallet.primary, from: [{ address: me, amount: GENESIS }], outputs: [{ address: a, amount: GENESIS - FEE }], fee: FEE });
    expect(k.tx.pubKey!.length).toBeGreaterThan(45);
    const r = await commitBlock(t, [k]);
    expect(r.rejected).toEqual([]);
    // The proposer's fee share (embedded network) stores `me` again: a new wallet, without the key.
    const foundation = (FEE * 3n) / 100n;
    expect(t.chain.wallet(me)).toMatchObject({ balance: FEE - foundation, publicKey: null });
    expectWalletSet(t, [me, a, FOUNDATION]);
  });

  it('an input of 0 from an address that holds nothing creates no wallet', async () => {
    const t = await chainWith();
    const me = t.wallet.primary.primary;
    const empty = t.wallet.newAddress();
    const k = t.builder.buildSigned({
      key: t.wallet.primary,
      from: [
        { address: me, amount: 2n * COIN + FEE },
        { address: empty, amount: 0n },
      ],
      outputs: [{ address: STRANGER, amount: 2n * COIN }],
      fee: FEE,
    });
    const r = await commitBlock(t, [k]);
    expect(r.applied.map((x) => x.textId)).toEqual([k.textId]);
    expectWalletSet(t, [me, FOUNDATION, STRANGER]);
  });

  it('a wallet an extension only reads is not stored', async () => {
    const nobody = t0Address();
    const ext: ChainExtension = {
      name: 'reader',
      onBlock(block) {
        expect(block.balanceOf(nobody)).toBe(0n);
        expect(block.wallet(nobody).publicKey).toBeNull();
      },
    };
    const t = await chainWith([ext]);
    const me = t.wallet.primary.primary;
    await commitBlock(t, []);
    expect(t.chain.height).toBe(2n);
    expectWalletSet(t, [me]);
  });
});

/** An address nobody pays in these tests. */
function t0Address(): Uint8Array {
  const a = Uint8Array.from(STRANGER);
  a[5] = a[5]! ^ 0xff;
  return a;
}
