/**
 * The multisig rules as pure functions (src/multisig/rules.ts): the shape of each type, who may
 * sign, each wallet change and its effect (type, signers, required signatures), the co-signature
 * count, and garbage → a MultisigRuleError naming the rule, never another error.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Transaction, TxOutput } from '../../src/codec/types.js';
import { emptyWallet, WalletType, type WalletState } from '../../src/chain/wallet-state.js';
import { addressWithChecksum, deriveAddress, primaryAddressFromPublicKey } from '../../src/formats/address.js';
import { TransactionType } from '../../src/formats/constants.js';
import { encodeMultisigChange, encodeMultisigTxData, MultisigChangeType, type MultisigChange } from '../../src/multisig/payload.js';
import { checkAgainstWallet, conflictWithPending, countCoSignatures, MultisigRuleError, readMultisigTx, signerAddressOf } from '../../src/multisig/rules.js';
import { runs } from '../fuzz-scale.js';

/** A structurally valid v1 public key (header byte 1): its address is all that matters here. */
const key = (fill: number) => Uint8Array.from([1, ...new Uint8Array(527).fill(fill)]);
const K1 = key(1);
const K2 = key(2);
const P1 = primaryAddressFromPublicKey(K1);
const P2 = primaryAddressFromPublicKey(K2);
const N = (fill: number) => new Uint8Array(16).fill(fill);
const WALLET = deriveAddress(P1, N(9));
const ZERO = Uint8Array.of(0);

function tx(type: number, outputs: TxOutput[], data: Uint8Array, over: Partial<Transaction> = {}): Transaction {
  return {
    version: 7,
    type,
    blockHeight: 5n,
    inputs: [{ key: ZERO, amount: 1_000_000n }],
    outputs: outputs.map((o, i) => (i === 0 ? { ...o, data } : o)),
    nonce: 1,
    pubKey: WALLET,
    signature: new Uint8Array(512),
    applied: 0n,
    timestamp: 0n,
    ...over,
  };
}
const spendData = (k = K1, nonce = N(9)) => encodeMultisigTxData({ origTxId: null, signerPubKey: k, signerNonce: nonce });
const changeTx = (c: MultisigChange) => tx(TransactionType.ChangeMultisigWallet, [{ address: WALLET, amount: 0n }], encodeMultisigChange(c));
/** A wallet change without its signer (each kind keeps its own fields: `Omit` over the union would merge them). */
type ChangeBody = MultisigChange extends infer C ? (C extends MultisigChange ? Omit<C, 'signerPubKey' | 'signerNonce'> : never) : never;
const multisig = (signers: Uint8Array[], requiredSigs: number): WalletState => ({ ...emptyWallet(), type: WalletType.Multisig, allowedSigners: signers, requiredSigs, balance: 10n ** 10n });

describe('reading a multisig transaction', () => {
  it('names the wallet (pubKey with the input key) and the signer (payload key with its nonce)', () => {
    const m = readMultisigTx(tx(TransactionType.MultisigTx, [{ address: P2, amount: 5n }], spendData(K2, ZERO)));
    expect(m.wallet).toEqual(WALLET);
    expect(m.signer).toEqual(P2);
    expect(m.signerPubKey).toEqual(K2);
    expect(signerAddressOf({ signerPubKey: K1, signerNonce: N(9) })).toEqual(WALLET);
    // A full key in pubKey names its primary address; the input key derives from it.
    expect(readMultisigTx(tx(TransactionType.MultisigTx, [{ address: P2, amount: 5n }], spendData(), { pubKey: K1, inputs: [{ key: N(9), amount: 1n }] })).wallet).toEqual(WALLET);
  });

  it('refuses each broken shape with a sentence', () => {
    const to = [{ address: P2, amount: 5n }];
    const self = [{ address: WALLET, amount: 0n }];
    const cases: [Transaction, RegExp][] = [
      [tx(TransactionType.MultisigTx, to, spendData(), { inputs: [{ key: ZERO, amount: 1n }, { key: N(3), amount: 1n }] }), /exactly one input/],
      [tx(TransactionType.MultisigTx, to, spendData(), { pubKey: null }), /names its wallet in pubKey/],
      [tx(TransactionType.MultisigTx, [], spendData()), /at least one output/],
      [tx(TransactionType.MultisigTx, to, new Uint8Array(3)), /3 bytes, at least 6/],
      [tx(TransactionType.MultisigTx, to, encodeMultisigTxData({ origTxId: Uint8Array.of(1, 2, 3), signerPubKey: K1, signerNonce: ZERO })), /carries no origTxId/],
      [tx(TransactionType.MultisigAddTxSignature, self, spendData()), /names the transaction it signs/],
      [tx(TransactionType.MultisigAddTxSignature, self, encodeMultisigTxData({ origTxId: new Uint8Array(12).fill(7), signerPubKey: K1, signerNonce: ZERO })), /origTxId is not a transaction id/],
      [tx(TransactionType.MultisigTx, to, spendData(K1, new Uint8Array(5))), /signer nonce must be \[0x00\] or 16 bytes, got 5/],
      [tx(TransactionType.MultisigTx, to, spendData(new Uint8Array(40).fill(9))), /signer public key is not a public key/],
      [tx(TransactionType.ChangeMultisigWallet, [{ address: WALLET, amount: 1n }], encodeMultisigChange({ kind: MultisigChangeType.ChangeReqSigs, requiredSigs: 2, signerPubKey: K1, signerNonce: N(9) })), /exactly one output, to its wallet .* of amount 0/],
      [tx(TransactionType.ChangeMultisigWallet, [{ address: P2, amount: 0n }], encodeMultisigChange({ kind: MultisigChangeType.ChangeReqSigs, requiredSigs: 2, signerPubKey: K1, signerNonce: N(9) })), /exactly one output, to its wallet/],
      [tx(TransactionType.Normal, to, spendData()), /not a multisig type/],
    ];
    for (const [t, message] of cases) {
      expect(() => readMultisigTx(t), message.source).toThrow(MultisigRuleError);
      expect(() => readMultisigTx(t)).toThrow(message);
    }
  });

  it('garbage in the payload, pubKey or input key is a MultisigRuleError, nothing else', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(TransactionType.MultisigTx, TransactionType.ChangeMultisigWallet, TransactionType.MultisigAddTxSignature),
        fc.uint8Array({ maxLength: 200 }),
        fc.option(fc.uint8Array({ maxLength: 80 }), { nil: null }),
        fc.uint8Array({ maxLength: 20 }),
        (type, data, pubKey, inputKey) => {
          try {
            readMultisigTx(tx(type, [{ address: WALLET, amount: 0n }], data, { pubKey, inputs: [{ key: inputKey, amount: 1n }] }));
          } catch (err) {
            expect(err).toBeInstanceOf(MultisigRuleError);
          }
        },
      ),
      { numRuns: runs(2000) },
    );
  });
});

describe('wallet rules', () => {
  const ch = (c: ChangeBody, k = K1, n = N(9)) => readMultisigTx(changeTx({ ...c, signerPubKey: k, signerNonce: n } as MultisigChange));

  it('adding a signer makes a normal wallet multisig (requiring 1); only the owner signs that first change', () => {
    const add = ch({ kind: MultisigChangeType.AddSigner, address: P2 });
    expect(checkAgainstWallet(add, emptyWallet())).toEqual({ type: WalletType.Multisig, requiredSigs: 1, allowedSigners: [P2] });
    // The address may come with its checksum (48 bytes).
    expect(checkAgainstWallet(ch({ kind: MultisigChangeType.AddSigner, address: addressWithChecksum(P2) }), emptyWallet()).allowedSigners).toEqual([P2]);
    expect(() => checkAgainstWallet(ch({ kind: MultisigChangeType.AddSigner, address: P1 }, K2, ZERO), emptyWallet())).toThrow(/may not sign for wallet/);
    expect(() => checkAgainstWallet(add, multisig([P2], 1))).toThrow(/already signs for wallet/);
    expect(() => checkAgainstWallet(add, multisig(Array.from({ length: 250 }, (_, i) => deriveAddress(P1, N(i + 10))), 1))).toThrow(/most allowed signers, 250/);
  });

  it('removing a signer lowers the required signatures to what remains; the last one gone, the wallet is normal', () => {
    const del = ch({ kind: MultisigChangeType.DelSigner, address: P2 }, K2, ZERO); // P2 signs its own removal
    expect(checkAgainstWallet(del, multisig([P2, P1], 3))).toEqual({ type: WalletType.Multisig, requiredSigs: 2, allowedSigners: [P1] });
    expect(checkAgainstWallet(del, multisig([P2, P1], 2))).toMatchObject({ requiredSigs: 2 });
    expect(checkAgainstWallet(del, multisig([P2], 2))).toEqual({ type: WalletType.Normal, requiredSigs: 1, allowedSigners: [] });
    expect(() => checkAgainstWallet(ch({ kind: MultisigChangeType.DelSigner, address: WALLET }), multisig([P2], 1))).toThrow(/cannot be removed/);
    expect(() => checkAgainstWallet(ch({ kind: MultisigChangeType.DelSigner, address: P1 }), multisig([P2], 1))).toThrow(/is not an allowed signer/);
    expect(() => checkAgainstWallet(del, emptyWallet())).toThrow(/is not a multisig wallet$/);
  });

  it('required signatures: 1 … signers, and a change', () => {
    const set = (n: number) => ch({ kind: MultisigChangeType.ChangeReqSigs, requiredSigs: n });
    expect(checkAgainstWallet(set(2), multisig([P2], 1))).toEqual({ type: WalletType.Multisig, requiredSigs: 2, allowedSigners: [P2] });
    expect(() => checkAgainstWallet(set(3), multisig([P2], 1))).toThrow(/must be 1…2, got 3/);
    expect(() => checkAgainstWallet(set(0), multisig([P2], 1))).toThrow(/must be 1…2, got 0/);
    expect(() => checkAgainstWallet(set(1), multisig([P2], 1))).toThrow(/already requires 1 signatures/);
  });

  it('a change conflicts with the pending ones when it fails once all of them apply, in arrival order', () => {
    const P3 = deriveAddress(P1, N(4));
    const add = (a: Uint8Array) => ch({ kind: MultisigChangeType.AddSigner, address: a });
    const del = (a: Uint8Array) => ch({ kind: MultisigChangeType.DelSigner, address: a });
    const set = (n: number) => ch({ kind: MultisigChangeType.ChangeReqSigs, requiredSigs: n });
    const w = multisig([P2], 1);
    expect(conflictWithPending(add(P3), w, [])).toBeNull();
    expect(conflictWithPending(add(P3), w, [add(P3)])).toEqual({ index: 0, reason: expect.stringContaining('already signs for wallet') });
    expect(conflictWithPending(del(P2), multisig([P2, deriveAddress(P1, N(5))], 1), [del(P2)])).toEqual({ index: 0, reason: expect.stringContaining('is not an allowed signer') });
    expect(conflictWithPending(set(2), w, [set(2)])).toEqual({ index: 0, reason: expect.stringContaining('already requires 2 signatures') });
    // Different changes hold one after the other; a pending one that would fail itself is skipped.
    expect(conflictWithPending(add(P3), w, [set(2), add(P2)])).toBeNull();
    // Added, removed, added again: the third holds after the first two.
    expect(conflictWithPending(add(P3), w, [add(P3), del(P3)])).toBeNull();
    // The conflict names the pending change after which it fails for good: the second add.
    expect(conflictWithPending(add(P3), w, [add(P3), del(P3), add(P3)])).toMatchObject({ index: 2 });
    // Another wallet's pending changes do not count.
    const elsewhere = readMultisigTx(changeTx({ kind: MultisigChangeType.AddSigner, address: P3, signerPubKey: K2, signerNonce: ZERO }));
    expect(conflictWithPending(add(P3), w, [{ ...elsewhere, wallet: P2 }])).toBeNull();
  });

  it('a spend needs a multisig wallet and an allowed signer', () => {
    const spend = readMultisigTx(tx(TransactionType.MultisigTx, [{ address: P2, amount: 5n }], spendData(K2, ZERO)));
    expect(() => checkAgainstWallet(spend, emptyWallet())).toThrow(/is not a multisig wallet; spend from it with an ordinary transaction/);
    expect(() => checkAgainstWallet(spend, multisig([P1], 1))).toThrow(/may not sign for wallet/);
    expect(checkAgainstWallet(spend, multisig([P2], 2))).toEqual({ type: WalletType.Multisig, requiredSigs: 2, allowedSigners: [P2] });
  });

  it('co-signatures count once per signer, not the spend’s own signer, only for the same wallet and by allowed signers', () => {
    const spend = readMultisigTx(tx(TransactionType.MultisigTx, [{ address: P2, amount: 5n }], spendData()));
    const co = (k: Uint8Array, n: Uint8Array, over: Partial<Transaction> = {}) =>
      tx(TransactionType.MultisigAddTxSignature, [{ address: (over.pubKey as Uint8Array) ?? WALLET, amount: 0n }], encodeMultisigTxData({ origTxId: Uint8Array.of(1, 5, ...new Uint8Array(44)), signerPubKey: k, signerNonce: n }), over);
    const w = multisig([P2, deriveAddress(P1, N(4))], 3);
    const verdicts = countCoSignatures(spend, w, [
      co(K1, N(9)), // the spend's own signer
      co(K2, ZERO), // counts
      co(K2, ZERO), // the same signer again
      co(K2, N(1)), // not a signer
      co(K1, N(4), { pubKey: P2 }), // another wallet
      co(K1, N(4)), // counts
    ]);
    expect(verdicts.map((v) => v.counted)).toEqual([false, true, false, false, false, true]);
    expect(verdicts.map((v) => (v.counted ? '' : v.reason))).toEqual([
      expect.stringContaining('has signed this transaction already'),
      '',
      expect.stringContaining('has signed this transaction already'),
      expect.stringContaining('may not sign for wallet'),
      expect.stringContaining('it is for wallet'),
      '',
    ]);
  });
});
