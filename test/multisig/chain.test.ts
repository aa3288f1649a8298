/**
 * Multisig wallets on a real chain (LMDB, mempool, producer; in-process RSA): a wallet becomes
 * multisig by adding a signer, a spend waits in the pool until a co-signature joins it and then
 * both enter one block, wallet changes need the current required signatures, and every refusal
 * names its rule. Signers are addresses of the node's wallet (its key with different nonces, which
 * the reference counts as different signers) and, where a stranger is needed, a second key.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Transaction, TxOutput } from '../../src/codec/types.js';
import { TX_VERSION } from '../../src/chain/constants.js';
import { TxError, TxErrorCode } from '../../src/chain/errors.js';
import { applyBlockBody } from '../../src/chain/state-transition.js';
import { knownTx, type KnownTx } from '../../src/chain/tx-codec.js';
import { WalletType } from '../../src/chain/wallet-state.js';
import { systemClock } from '../../src/clock.js';
import { addressToText, deriveAddress, primaryAddressFromPublicKey } from '../../src/formats/address.js';
import { FORCE_TRANSACTION_PRICE, TransactionType } from '../../src/formats/constants.js';
import { estimateFee } from '../../src/formats/fees.js';
import { generateWalletKey, privateKeyFromBytes, publicKeyOf, signBytes } from '../../src/formats/rsa.js';
import { encodeTransaction } from '../../src/codec/transaction.js';
import { MultisigBuilder } from '../../src/multisig/builder.js';
import { createMultisigExtension } from '../../src/multisig/chain-extension.js';
import { encodeMultisigChange, encodeMultisigTxData, MultisigChangeType } from '../../src/multisig/payload.js';
import { PRIMARY_NONCE, WalletKey } from '../../src/wallet/wallet.js';
import { walletDictionary } from '../../src/rpc/methods/wallet.js';
import { toRpcError } from '../../src/rpc/errors.js';
import { RpcCode } from '../../src/rpc/types.js';
import { commitBlock, openTestChain, type TestChain } from '../chain/fixture.js';

const COIN = 100_000_000n;

let t: TestChain | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A second RSA key, not the node's: a stranger (made once for the file). */
let stranger: { publicKey: Uint8Array; sign(d: Uint8Array): Uint8Array; address: Uint8Array };
/** A third RSA key, added to the node's wallet in `setup`: its primary address is the multisig wallet. */
let walletKey: Uint8Array;
beforeAll(async () => {
  const k = await generateWalletKey();
  const obj = privateKeyFromBytes(k.privateKey);
  const publicKey = publicKeyOf(obj);
  stranger = { publicKey, sign: (d) => signBytes(obj, d), address: primaryAddressFromPublicKey(publicKey) };
  walletKey = (await generateWalletKey()).privateKey;
}, 120_000);
afterAll(() => undefined);

interface Setup {
  t: TestChain;
  ms: MultisigBuilder;
  /** The node's primary address (genesis funds). */
  p: Uint8Array;
  /**
   * d1 becomes the multisig wallet: the primary address of the node's second key (a multisig
   * transaction needs a public key for the address in pubKey; a derived address never has one).
   * d2 and d3, its signers, are derived addresses of the node's first key.
   */
  d1: Uint8Array;
  d2: Uint8Array;
  d3: Uint8Array;
}

async function setup(): Promise<Setup> {
  t = await openTestChain([createMultisigExtension()]);
  const { wallet, builder, mempool, producer } = t;
  const second = new WalletKey({ privateKey: walletKey, nonces: [] });
  wallet.keys.push(second);
  const d1 = second.primary;
  const d2 = wallet.newAddress();
  const d3 = wallet.newAddress();
  const fund = builder.buildSigned({ key: wallet.primary, outputs: [{ address: d1, amount: 100n * COIN }] });
  expect(await mempool.admit([fund])).toEqual([null]);
  await producer.produce();
  return { t, ms: new MultisigBuilder(t.chain, mempool, wallet, 'reg', systemClock), p: wallet.primary.primary, d1, d2, d3 };
}

/** Admits one transaction; the refusal's code and message, or null. */
async function admit(s: Setup, k: KnownTx): Promise<{ code: string; message: string } | null> {
  const [e] = await s.t.mempool.admit([k]);
  return e ? { code: e.code, message: e.message } : null;
}

/** One block from the pool; the ids it applied. */
async function block(s: Setup): Promise<string[]> {
  const before = s.t.chain.height;
  await s.t.producer.produce();
  expect(s.t.chain.height).toBe(before + 1n);
  return s.t.chain.blockTransactions(s.t.chain.tip!.block).map((k) => k.textId);
}

const fee = (k: KnownTx): bigint => k.tx.inputs.reduce((a, i) => a + i.amount, 0n) - k.tx.outputs.reduce((a, o) => a + o.amount, 0n);

/** A 2-of-3 wallet d1 (signers d1, d2, d3), built through the pool as the RPC does. */
async function twoOfThree(s: Setup): Promise<void> {
  for (const signer of [s.d2, s.d3]) {
    expect(await admit(s, s.ms.change(s.d1, { kind: MultisigChangeType.AddSigner, address: signer }))).toBeNull();
    await block(s);
  }
  expect(await admit(s, s.ms.change(s.d1, { kind: MultisigChangeType.ChangeReqSigs, requiredSigs: 2 }))).toBeNull();
  await block(s);
  const w = s.t.chain.wallet(s.d1);
  expect(w.type).toBe(WalletType.Multisig);
  expect(w.requiredSigs).toBe(2);
  expect(w.allowedSigners.map(addressToText)).toEqual([addressToText(s.d2), addressToText(s.d3)]);
}

/** A hand-made multisig transaction from `wallet` (input [0x00]) with `payload` on the first output, signed by `sign`. */
function handMade(opts: {
  type: number;
  wallet: Uint8Array;
  outputs: TxOutput[];
  payload: Uint8Array;
  sign: (d: Uint8Array) => Uint8Array;
  height: bigint;
}): KnownTx {
  const amount = opts.outputs.reduce((a, o) => a + o.amount, 0n);
  const tx: Transaction = {
    version: TX_VERSION,
    type: opts.type,
    blockHeight: opts.height,
    inputs: [{ key: PRIMARY_NONCE, amount }],
    outputs: opts.outputs.map((o, i) => (i === 0 ? { ...o, data: opts.payload } : o)),
    nonce: Math.floor(Math.random() * 1e6),
    pubKey: opts.wallet,
    signature: null,
    applied: 0n,
    timestamp: 0n,
  };
  tx.inputs[0]!.amount = amount + estimateFee(encodeTransaction(tx).length, FORCE_TRANSACTION_PRICE);
  tx.signature = opts.sign(knownTx(tx, 'reg').checksum);
  return knownTx(tx, 'reg');
}

describe('multisig wallets on the chain', () => {
  it('a 2-of-3 spend waits in the pool with one signature and applies with the second, both in one block', async () => {
    const s = await setup();
    await twoOfThree(s);
    const before = s.t.chain.wallet(s.d1).balance;
    const pBefore = s.t.chain.wallet(s.p).balance;
    const spend = s.ms.spend(s.d1, [{ address: s.p, amount: 10n * COIN }]);
    expect(await admit(s, spend)).toBeNull();
    // One signature of two: the producer leaves it out and keeps it pending, block after block.
    for (let i = 0; i < 2; i++) {
      expect(await block(s)).not.toContain(spend.textId);
      expect(s.t.mempool.has(spend.id)).toBe(true);
      expect(s.t.chain.wallet(s.d1).balance).toBe(before);
    }
    const cosig = s.ms.coSign(s.d1, spend.id);
    expect(await admit(s, cosig)).toBeNull();
    // The candidates put the co-signature right behind its spend.
    const c = s.t.mempool.candidates(100).map((k) => k.textId);
    expect(c.indexOf(cosig.textId)).toBe(c.indexOf(spend.textId) + 1);
    const applied = await block(s);
    expect(applied).toEqual([spend.textId, cosig.textId]);
    expect(s.t.mempool.size).toBe(0);
    expect(s.t.chain.wallet(s.d1).balance).toBe(before - 10n * COIN - fee(spend) - fee(cosig));
    // The node's primary address receives the 10 coins and, as the proposer, 97 % of the fees.
    const fees = fee(spend) + fee(cosig);
    expect(s.t.chain.wallet(s.p).balance).toBe(pBefore + 10n * COIN + fees - (fees * 3n) / 100n);
  });

  it('the co-signer is an address that has not signed yet: d1 signed the spend, so d2 co-signs; then nobody is left but d3', async () => {
    const s = await setup();
    await twoOfThree(s);
    const spend = s.ms.spend(s.d1, [{ address: s.p, amount: COIN }]);
    expect(await admit(s, spend)).toBeNull();
    const first = s.ms.coSign(s.d1, spend.id);
    const second = s.ms.coSign(s.d1, spend.id); // before `first` is pending: d2 again
    expect(await admit(s, first)).toBeNull();
    expect(await admit(s, second)).toMatchObject({ code: TxErrorCode.TypeRule, message: expect.stringContaining('has signed this transaction already') });
    const third = s.ms.coSign(s.d1, spend.id); // d1 and d2 have signed: d3
    expect(await admit(s, third)).toBeNull();
    // A 2-of-3 with three signatures: all three apply (the surplus co-signature counts and pays its fee).
    expect(await block(s)).toEqual([spend.textId, first.textId, third.textId]);
  });

  it('a wallet change needs the current required signatures; removing signers lowers them and the last removal makes the wallet normal', async () => {
    const s = await setup();
    await twoOfThree(s);
    const del3 = s.ms.change(s.d1, { kind: MultisigChangeType.DelSigner, address: s.d3 });
    expect(await admit(s, del3)).toBeNull();
    expect(await block(s)).not.toContain(del3.textId);
    const co = s.ms.coSign(s.d1, del3.id);
    expect(await admit(s, co)).toBeNull();
    expect(await block(s)).toEqual([del3.textId, co.textId]);
    let w = s.t.chain.wallet(s.d1);
    expect(w.requiredSigs).toBe(2);
    expect(w.allowedSigners.map(addressToText)).toEqual([addressToText(s.d2)]);
    // d2 co-signs its own removal (it is a signer until the change applies); 2 of 1+0 signers → 1, normal.
    const del2 = s.ms.change(s.d1, { kind: MultisigChangeType.DelSigner, address: s.d2 });
    expect(await admit(s, del2)).toBeNull();
    const co2 = s.ms.coSign(s.d1, del2.id);
    expect(await admit(s, co2)).toBeNull();
    expect(await block(s)).toEqual([del2.textId, co2.textId]);
    w = s.t.chain.wallet(s.d1);
    expect(w).toMatchObject({ type: WalletType.Normal, requiredSigs: 1, allowedSigners: [] });
    expect(walletDictionary(addressToText(s.d1), w)).toMatchObject({ type: 'Normal', requiredSigs: '1', allowedSigners: 'null' });
  });

  it('a block that changes the wallet keeps the spend, co-signature and change still waiting for signatures: each is judged again as on admission, without itself', async () => {
    const s = await setup();
    await twoOfThree(s);
    const req3 = s.ms.change(s.d1, { kind: MultisigChangeType.ChangeReqSigs, requiredSigs: 3 });
    expect(await admit(s, req3)).toBeNull();
    expect(await admit(s, s.ms.coSign(s.d1, req3.id))).toBeNull();
    await block(s);
    expect(s.t.chain.wallet(s.d1).requiredSigs).toBe(3);
    // Waiting: a spend with one co-signature of the two it needs, and a change with none.
    const spend = s.ms.spend(s.d1, [{ address: s.p, amount: COIN }]);
    expect(await admit(s, spend)).toBeNull();
    const spendCo = s.ms.coSign(s.d1, spend.id);
    expect(await admit(s, spendCo)).toBeNull();
    const req2 = s.ms.change(s.d1, { kind: MultisigChangeType.ChangeReqSigs, requiredSigs: 2 });
    expect(await admit(s, req2)).toBeNull();
    // A change with all its signatures enters the next block; the others wait on.
    const d4 = s.t.wallet.newAddress();
    const add4 = s.ms.change(s.d1, { kind: MultisigChangeType.AddSigner, address: d4 });
    expect(await admit(s, add4)).toBeNull();
    const add4Co = [s.ms.coSign(s.d1, add4.id)];
    expect(await admit(s, add4Co[0]!)).toBeNull();
    add4Co.push(s.ms.coSign(s.d1, add4.id));
    expect(await admit(s, add4Co[1]!)).toBeNull();
    const dropped: string[] = [];
    s.t.events.on('txDropped', ({ txs }) => dropped.push(...txs.map((k) => k.textId)));
    expect(await block(s)).toEqual([add4.textId, ...add4Co.map((k) => k.textId)]);
    await s.t.mempool.pruned();
    expect(s.t.chain.wallet(s.d1).allowedSigners).toHaveLength(3);
    expect(dropped).toEqual([]);
    for (const k of [spend, spendCo, req2]) expect(s.t.mempool.has(k.id)).toBe(true);
  });

  it('a change whose fee empties the wallet removes it with its members (reference: members first, then the fee; balance 0 removes the wallet)', async () => {
    const s = await setup();
    const add = () => s.ms.change(s.d1, { kind: MultisigChangeType.AddSigner, address: s.d2 });
    const spendFee = COIN / 100n;
    const key2 = s.t.wallet.keys[1]!;
    // d1 sends first (its key is stored: the change names d1 by its address, as sized below).
    const first = s.t.builder.buildSigned({ key: key2, from: [{ address: s.d1, amount: COIN + spendFee }], outputs: [{ address: s.p, amount: COIN }], fee: spendFee });
    expect(await admit(s, first)).toBeNull();
    await block(s);
    const changeFee = fee(add());
    // Leave d1 exactly the change's fee.
    const held = s.t.chain.wallet(s.d1).balance;
    const drain = s.t.builder.buildSigned({ key: key2, from: [{ address: s.d1, amount: held - changeFee }], outputs: [{ address: s.p, amount: held - changeFee - spendFee }], fee: spendFee });
    expect(await admit(s, drain)).toBeNull();
    await block(s);
    expect(s.t.chain.wallet(s.d1).balance).toBe(changeFee);
    const c = add();
    expect(fee(c)).toBe(changeFee);
    const count = s.t.chain.walletCount();
    const r = await commitBlock(s.t, [c]);
    expect(r.rejected).toEqual([]);
    expect(s.t.chain.wallet(s.d1)).toMatchObject({ type: WalletType.Normal, balance: 0n, allowedSigners: [], requiredSigs: 1 });
    expect(s.t.store.db('wallets').getBinary(Buffer.from(s.d1))).toBeUndefined();
    expect(s.t.chain.walletCount()).toBe(count - 1);
  });

  it('getWallet members come from the state: type, requiredSigs and the reference allowedSigners text', async () => {
    const s = await setup();
    await twoOfThree(s);
    const id = addressToText(s.d1);
    expect(walletDictionary(id, s.t.chain.wallet(s.d1))).toMatchObject({
      id,
      type: 'Multisig',
      requiredSigs: '2',
      allowedSigners: `(3 keys): ${id},${addressToText(s.d2)},${addressToText(s.d3)}`,
    });
  });

  it('a multisig wallet spends only through multisig transactions; the node picks other inputs', async () => {
    const s = await setup();
    expect(await admit(s, s.ms.change(s.d1, { kind: MultisigChangeType.AddSigner, address: s.d2 }))).toBeNull();
    await block(s);
    const key2 = s.t.wallet.keys[1]!;
    const normal = s.t.builder.buildSigned({ key: key2, from: [{ address: s.d1, amount: COIN }], outputs: [{ address: s.p, amount: COIN }], autofee: true });
    expect(await admit(s, normal)).toMatchObject({ code: TxErrorCode.Invalid, message: expect.stringContaining('is a multisig wallet') });
    // Automatic input selection leaves the multisig wallet out (it holds more than e, key2's other address).
    const e = s.t.wallet.newAddress(key2);
    expect(await admit(s, s.t.builder.buildSigned({ key: s.t.wallet.primary, outputs: [{ address: e, amount: 5n * COIN }] }))).toBeNull();
    await block(s);
    const auto = s.t.builder.buildSigned({ key: key2, outputs: [{ address: s.d3, amount: COIN }] });
    expect(auto.tx.inputs.map((i) => addressToText(deriveAddress(s.d1, i.key)))).toEqual([addressToText(e)]);
  });

  it('refusals name their rule: not multisig, not a signer, no pending transaction, a stranger', async () => {
    const s = await setup();
    expect(() => s.ms.spend(s.d1, [{ address: s.p, amount: COIN }])).toThrow("The specified 'from' wallet is not a multisig wallet.");
    expect(() => s.ms.change(stranger.address, { kind: MultisigChangeType.AddSigner, address: s.d2 })).toThrow(/No address of this node's wallet may sign/);
    expect(await admit(s, s.ms.change(s.d1, { kind: MultisigChangeType.AddSigner, address: s.d2 }))).toBeNull();
    await block(s);
    const height = s.t.chain.height;
    // A stranger's key signing a change of d1.
    const byStranger = handMade({
      type: TransactionType.ChangeMultisigWallet,
      wallet: s.d1,
      outputs: [{ address: s.d1, amount: 0n }],
      payload: encodeMultisigChange({ kind: MultisigChangeType.ChangeReqSigs, requiredSigs: 2, signerPubKey: stranger.publicKey, signerNonce: PRIMARY_NONCE }),
      sign: stranger.sign,
      height,
    });
    expect(await admit(s, byStranger)).toMatchObject({ code: TxErrorCode.TypeRule, message: expect.stringMatching(/may not sign for wallet/) });
    // A co-signature of nothing pending.
    const orphan = handMade({
      type: TransactionType.MultisigAddTxSignature,
      wallet: s.d1,
      outputs: [{ address: s.d1, amount: 0n }],
      payload: encodeMultisigTxData({ origTxId: Uint8Array.of(1, 5, ...new Uint8Array(44).fill(7)), signerPubKey: s.t.wallet.primary.publicKey, signerNonce: s.t.wallet.primary.nonceOf(s.d2)! }),
      sign: (d) => s.t.wallet.primary.sign(d),
      height,
    });
    expect(await admit(s, orphan)).toMatchObject({ code: TxErrorCode.TypeRule, message: expect.stringMatching(/which is not pending on this node/) });
    // A signature by a key other than the payload's.
    const forged = handMade({
      type: TransactionType.MultisigTx,
      wallet: s.d1,
      outputs: [{ address: s.p, amount: COIN }],
      payload: encodeMultisigTxData({ origTxId: null, signerPubKey: s.t.wallet.primary.publicKey, signerNonce: s.t.wallet.primary.nonceOf(s.d2)! }),
      sign: stranger.sign,
      height,
    });
    expect(await admit(s, forged)).toMatchObject({ code: TxErrorCode.BadSignature });
    // Changes that break the wallet rules.
    const cases: [Parameters<MultisigBuilder['change']>[1], RegExp][] = [
      [{ kind: MultisigChangeType.AddSigner, address: s.d2 }, /already signs for wallet/],
      [{ kind: MultisigChangeType.AddSigner, address: s.d1 }, /already signs for wallet/],
      [{ kind: MultisigChangeType.DelSigner, address: s.d1 }, /cannot be removed from its own wallet/],
      [{ kind: MultisigChangeType.DelSigner, address: s.d3 }, /is not an allowed signer/],
      [{ kind: MultisigChangeType.ChangeReqSigs, requiredSigs: 3 }, /required signatures must be 1…2, got 3/],
      [{ kind: MultisigChangeType.ChangeReqSigs, requiredSigs: 1 }, /already requires 1 signatures/],
    ];
    for (const [req, message] of cases) {
      expect(await admit(s, s.ms.change(s.d1, req)), JSON.stringify(req.kind)).toMatchObject({ code: TxErrorCode.TypeRule, message: expect.stringMatching(message) });
    }
  });

  it('in a block (import mode), a spend without its co-signatures fails the block; with them it passes', async () => {
    const s = await setup();
    await twoOfThree(s);
    const spend = s.ms.spend(s.d1, [{ address: s.p, amount: COIN }]);
    expect(await admit(s, spend)).toBeNull();
    const co = s.ms.coSign(s.d1, spend.id);
    const run = (txs: KnownTx[], height = s.t.chain.height + 1n) =>
      s.t.store.dryRun(() =>
        applyBlockBody({
          store: s.t.store,
          network: 'reg',
          superBlockPeriod: s.t.chain.superBlockPeriod,
          extensions: s.t.chain.extensions,
          mode: 'import',
          height,
          timestamp: BigInt(Math.floor(Date.now() / 1000)),
          proposer: s.p,
          txs,
          hasTransaction: (id) => s.t.chain.hasTransaction(id),
          walletStateChecksum: s.t.chain.walletStateChecksum(),
          walletCount: s.t.chain.walletCount(),
          supply: s.t.chain.supply(),
        }).applied.length,
      );
    await expect(run([spend])).rejects.toMatchObject({ code: 'BLOCK_INVALID_TRANSACTION', context: { code: TxErrorCode.NotReady } });
    await expect(run([co, spend])).rejects.toMatchObject({ context: { code: TxErrorCode.NotReady } });
    await expect(run([spend, co])).resolves.toBe(2);
    // Waiting longer than the redacted window, it expires (a rule break: the producer drops it).
    await expect(run([spend, co], spend.tx.blockHeight + 10_001n)).rejects.toMatchObject({ message: expect.stringContaining('expired waiting for co-signatures'), context: { code: TxErrorCode.TypeRule } });
    // A co-signature that is not right behind its spend does not count.
    const other = s.t.builder.buildSigned({ key: s.t.wallet.primary, outputs: [{ address: s.d3, amount: COIN }] });
    await expect(run([spend, other, co])).rejects.toMatchObject({ context: { code: TxErrorCode.NotReady } });
  });

  it('pubKey must name a wallet with a public key (DLT applyTransactionsFromBlock, v10+): a derived address is refused everywhere; a primary address without one carries its key, which the block stores', async () => {
    const s = await setup();
    const x = s.t.wallet.newAddress();
    expect(await admit(s, s.t.builder.buildSigned({ key: s.t.wallet.primary, outputs: [{ address: x, amount: 10n * COIN }] }))).toBeNull();
    await block(s);
    const fromDerived = s.ms.change(x, { kind: MultisigChangeType.AddSigner, address: s.d2 });
    expect(addressToText(fromDerived.tx.pubKey!)).toBe(addressToText(x));
    expect(await admit(s, fromDerived)).toMatchObject({ code: TxErrorCode.UnknownSigner, message: expect.stringContaining(`no public key for ${addressToText(x)}`) });
    // The producer leaves it out; a block carrying it fails.
    const r = await commitBlock(s.t, [fromDerived]);
    expect(r.rejected.map((e) => e.tx.textId)).toEqual([fromDerived.textId]);
    await expect(
      s.t.store.dryRun(() =>
        applyBlockBody({
          store: s.t.store,
          network: 'reg',
          superBlockPeriod: s.t.chain.superBlockPeriod,
          extensions: s.t.chain.extensions,
          mode: 'import',
          height: s.t.chain.height + 1n,
          timestamp: BigInt(Math.floor(Date.now() / 1000)),
          proposer: s.p,
          txs: [fromDerived],
          hasTransaction: (id) => s.t.chain.hasTransaction(id),
          walletStateChecksum: s.t.chain.walletStateChecksum(),
          walletCount: s.t.chain.walletCount(),
          supply: s.t.chain.supply(),
        }),
      ),
    ).rejects.toMatchObject({ code: 'BLOCK_INVALID_TRANSACTION', context: { code: TxErrorCode.UnknownSigner } });
    expect(s.t.chain.wallet(x).type).toBe(WalletType.Normal);
    // d1 sent nothing yet: the change carries d1's key in pubKey and its block stores it.
    const key2 = s.t.wallet.keys[1]!;
    expect(s.t.chain.wallet(s.d1).publicKey).toBeNull();
    const c = s.ms.change(s.d1, { kind: MultisigChangeType.AddSigner, address: s.d2 });
    expect(Buffer.from(c.tx.pubKey!).equals(Buffer.from(key2.publicKey))).toBe(true);
    expect(await admit(s, c)).toBeNull();
    expect(await block(s)).toContain(c.textId);
    const w = s.t.chain.wallet(s.d1);
    expect(w.type).toBe(WalletType.Multisig);
    expect(Buffer.from(w.publicKey!).equals(Buffer.from(key2.publicKey))).toBe(true);
    // Stored now: the next change names d1 by its address.
    expect(addressToText(s.ms.change(s.d1, { kind: MultisigChangeType.AddSigner, address: s.d3 }).tx.pubKey!)).toBe(addressToText(s.d1));
  });

  it('a pending spend and its co-signature survive a restart; a dropped spend takes its co-signature with it', async () => {
    const s = await setup();
    await twoOfThree(s);
    const spend = s.ms.spend(s.d1, [{ address: s.p, amount: COIN }]);
    expect(await admit(s, spend)).toBeNull();
    const co = s.ms.coSign(s.d1, spend.id);
    expect(await admit(s, co)).toBeNull();
    t = await s.t.reopen();
    expect(t.mempool.candidates(10).map((k) => k.textId)).toEqual([spend.textId, co.textId]);
    await t.mempool.drop([spend], 'test');
    expect(t.mempool.size).toBe(0);
  });
});

/**
 * A wallet change that a pending change of the same wallet would make fail is refused on
 * admission (TX_PENDING_CONFLICT), not admitted and then dropped by the producer: the submitter is
 * told at once and pays nothing.
 */
describe('multisig wallet changes against the changes already pending', () => {
  /** `build()` again until its id differs from `other`'s (the nonce has 1,000 random values per millisecond). */
  const another = (other: KnownTx, build: () => KnownTx): KnownTx => {
    for (;;) {
      const k = build();
      if (k.textId !== other.textId) return k;
    }
  };

  it('the same signer added twice before a block: the second is refused and charged nothing; after the block a third is refused by the wallet state', async () => {
    const s = await setup();
    const addD2 = () => s.ms.change(s.d1, { kind: MultisigChangeType.AddSigner, address: s.d2 });
    const first = addD2();
    expect(await admit(s, first)).toBeNull();
    const second = another(first, addD2);
    expect(await admit(s, second)).toMatchObject({
      code: TxErrorCode.PendingConflict,
      message: expect.stringMatching(new RegExp(`pending change ${first.textId} .*once that applies, ${addressToText(s.d2)} already signs for wallet`)),
    });
    expect(toRpcError(new TxError(TxErrorCode.PendingConflict, 'x'))?.code).toBe(RpcCode.InvalidParams);
    // Not pending, so nothing withdrawn for it: d1 pays the first change's fee only.
    expect(s.t.mempool.has(second.id)).toBe(false);
    expect(s.t.mempool.pendingSpendOf(s.d1)).toBe(first.tx.inputs[0]!.amount);
    const before = s.t.chain.wallet(s.d1).balance;
    expect(await block(s)).toEqual([first.textId]);
    expect(s.t.chain.wallet(s.d1).balance).toBe(before - fee(first));
    expect(s.t.chain.wallet(s.d1).allowedSigners.map(addressToText)).toEqual([addressToText(s.d2)]);
    // The first applied: the state check refuses the repeat, as before.
    expect(await admit(s, addD2())).toMatchObject({ code: TxErrorCode.TypeRule, message: expect.stringContaining('already signs for wallet') });
  });

  it('the same signer removed twice, and the same required signatures set twice, while the first waits for co-signatures', async () => {
    const s = await setup();
    await twoOfThree(s);
    const delD3 = () => s.ms.change(s.d1, { kind: MultisigChangeType.DelSigner, address: s.d3 });
    const del = delD3();
    expect(await admit(s, del)).toBeNull();
    expect(await admit(s, another(del, delD3))).toMatchObject({
      code: TxErrorCode.PendingConflict,
      message: expect.stringContaining(`once that applies, ${addressToText(s.d3)} is not an allowed signer of wallet`),
    });
    const setOne = () => s.ms.change(s.d1, { kind: MultisigChangeType.ChangeReqSigs, requiredSigs: 1 });
    const sigs = setOne();
    expect(await admit(s, sigs)).toBeNull();
    expect(await admit(s, another(sigs, setOne))).toMatchObject({ code: TxErrorCode.PendingConflict, message: expect.stringContaining('already requires 1 signatures') });
    expect(s.t.mempool.size).toBe(2);
  });

  it('changes that hold after the pending ones are admitted: two different signers added before a block, both apply', async () => {
    const s = await setup();
    const add2 = s.ms.change(s.d1, { kind: MultisigChangeType.AddSigner, address: s.d2 });
    const add3 = s.ms.change(s.d1, { kind: MultisigChangeType.AddSigner, address: s.d3 });
    expect(await s.t.mempool.admit([add2, add3])).toEqual([null, null]);
    expect(await block(s)).toEqual([add2.textId, add3.textId]);
    expect(s.t.chain.wallet(s.d1).allowedSigners.map(addressToText)).toEqual([addressToText(s.d2), addressToText(s.d3)]);
  });

  it("a pending change that a block made invalid (the same signer added by another master's change) leaves the pool with txDropped", async () => {
    const s = await setup();
    const addD2 = () => s.ms.change(s.d1, { kind: MultisigChangeType.AddSigner, address: s.d2 });
    const pending = addD2();
    expect(await admit(s, pending)).toBeNull();
    const dropped: { ids: string[]; reason: string }[] = [];
    s.t.events.on('txDropped', ({ txs, reason }) => dropped.push({ ids: txs.map((k) => k.textId), reason }));
    // The same change signed again (as through another master) enters a block this pool did not build.
    const elsewhere = another(pending, addD2);
    expect((await commitBlock(s.t, [elsewhere])).applied.map((k) => k.textId)).toEqual([elsewhere.textId]);
    await s.t.mempool.pruned();
    expect(s.t.mempool.has(pending.id)).toBe(false);
    expect(dropped).toEqual([{ ids: [pending.textId], reason: expect.stringContaining('already signs for wallet') }]);
    expect(s.t.mempool.pendingSpendOf(s.d1)).toBe(0n);
  });

  it('two identical changes in one batch: the second is refused', async () => {
    const s = await setup();
    const addD2 = () => s.ms.change(s.d1, { kind: MultisigChangeType.AddSigner, address: s.d2 });
    const first = addD2();
    const second = another(first, addD2);
    const [a, b] = await s.t.mempool.admit([first, second]);
    expect(a).toBeNull();
    expect(b).toMatchObject({ code: TxErrorCode.PendingConflict });
  });
});

