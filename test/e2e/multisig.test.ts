/**
 * Multisig wallets over a real node process (issue 12 §5; reference-client-methods.md, Ixian-Core
 * `GenericAPIServer.cs` multisig handlers; reference-formats.md §8.1, §8.10): d1, the primary
 * address of the node's second key (a multisig transaction needs a public key for the address in
 * pubKey, which a derived address never has), becomes a 2-of-3 wallet with signers d2 and d3
 * (derived addresses of the node's first key, two signers as the reference counts them); its
 * first change carries d1's key, which the block stores; a spend with one signature
 * stays pending block after block, a co-signature makes both apply in one block; a signer is
 * removed with two signatures. Every operation is called with GET and POST, its result checked
 * member by member, and every error it has answered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Address, addressToText, encodeBase58, primaryAddressFromPublicKey } from '../../src/formats/address.js';
import { formatAmount, parseAmount } from '../../src/formats/amount.js';
import { fromHex, toHex } from '../../src/formats/bytes.js';
import { formatExtendedAddress, ExtendedAddressFlag } from '../../src/formats/extended-address.js';
import { parseTransactionId } from '../../src/codec/transaction.js';
import { decodeMultisigChange, decodeMultisigTxData, MultisigChangeType } from '../../src/multisig/payload.js';
import { generateWalletKey } from '../../src/formats/rsa.js';
import { readKeystore, writeKeystore } from '../../src/wallet/keystore.js';
import { expectRpcError, newDataDir, startNode, type NodeProcess } from './harness.js';

let node: NodeProcess;
let d1: string;
let d2: string;
let d3: string;
let pubKey: string;
/** d1's key (hex): the node's second key. */
let d1Key: string;
/** A valid address of nobody. */
const STRANGER = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';
/** The string form's members in the reference order (`Transaction.toDictionary`), `data` present for multisig. */
const MEMBERS = ['id', 'version', 'blockHeight', 'nonce', 'signature', 'pubKey', 'data', 'timestamp', 'type', 'amount', 'applied', 'checksum', 'from', 'to', 'fee', 'totalAmount'];

const no = (a: string) => Address.fromText(a).addressNoChecksum;
const balanceOf = async (id: string): Promise<bigint> => parseAmount((await node.call('getWallet', { id })).balance);
const expectError = (method: string, params: Record<string, unknown>, code: number, message: string | RegExp, get = false) =>
  expectRpcError(node, method, params, code, message, get);
/** Both ways: GET and POST answer the same error. */
const expectErrorBoth = async (method: string, params: Record<string, unknown>, code: number, message: string | RegExp) => {
  await expectError(method, params, code, message, true);
  await expectError(method, params, code, message, false);
};

/** Checks a multisig transaction's string form member by member; returns it. */
function expectForm(tx: any, type: number, wallet: string, to: Record<string, string>, pubKeyText = wallet): any {
  expect(Object.keys(tx)).toEqual(MEMBERS);
  expect(tx.id).toMatch(/^\d+-[1-9A-HJ-NP-Za-km-z]+$/);
  expect(tx.version).toBe(7);
  expect(tx.blockHeight).toBe(tx.id.split('-')[0]);
  expect(tx.nonce).toMatch(/^\d+$/);
  expect(tx.signature).toMatch(/^[0-9a-f]{1024}$/);
  expect(tx.pubKey).toBe(pubKeyText); // the wallet's address (or its key while none is stored), not the signer's key
  expect(tx.data).toMatch(/^[0-9a-f]+$/);
  expect(tx.timestamp).toMatch(/^\d+$/);
  expect(tx.type).toBe(String(type));
  expect(tx.amount).toBe(formatAmount(Object.values(to).reduce((s, v) => s + parseAmount(v), 0n)));
  expect(tx.applied).toBe('0');
  expect(tx.checksum).toMatch(/^[0-9a-f]{88}$/);
  expect(tx.from).toEqual({ '1': tx.totalAmount }); // the wallet itself, nonce [0x00]
  expect(tx.to).toEqual(to);
  expect(parseAmount(tx.fee)).toBeGreaterThanOrEqual(parseAmount('0.005'));
  expect(parseAmount(tx.totalAmount)).toBe(parseAmount(tx.amount) + parseAmount(tx.fee));
  return tx;
}

beforeAll(async () => {
  // A second key in the node's keystore: its primary address d1 becomes the multisig wallet.
  const { dataDir } = await newDataDir();
  const second = await generateWalletKey();
  writeKeystore(dataDir, [...readKeystore(dataDir)!, { privateKey: second.privateKey, nonces: [] }]);
  d1 = addressToText(primaryAddressFromPublicKey(second.publicKey));
  d1Key = toHex(second.publicKey);
  node = await startNode({ dataDir });
  await node.waitForHeight(2);
  d2 = await node.call<string>('generateNewAddress');
  d3 = await node.call<string>('generateNewAddress');
  pubKey = await node.call<string>('myPubKey');
  const fund = await node.call('addTransaction', { to: `${d1}_1000` });
  await node.waitApplied(fund.id);
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

describe('a 2-of-3 multisig wallet from the node wallet addresses', () => {
  it('addMultiSigKey (GET, then POST) makes d1 a multisig wallet with signers d2 and d3', async () => {
    // d1 sent nothing yet: the wallet state holds no key for it, so the change carries it in pubKey.
    expect((await node.call('getWallet', { id: d1 })).publicKey).toBe('null');
    const add2 = expectForm(await node.call('addMultiSigKey', { wallet: d1, signer: d2 }, { get: true }), 998, d1, { [d1]: '0.00000000' }, encodeBase58(fromHex(d1Key)));
    expect(decodeMultisigChange(fromHex(add2.data))).toEqual({
      kind: MultisigChangeType.AddSigner,
      address: no(d2),
      signerPubKey: fromHex(d1Key), // d1 signs for itself
      signerNonce: Uint8Array.of(0),
    });
    await node.waitApplied(add2.id);
    expect(await node.call('getWallet', { id: d1 })).toMatchObject({ id: d1, type: 'Multisig', requiredSigs: '1', allowedSigners: `(2 keys): ${d1},${d2}` });
    const add3 = expectForm(await node.call('addMultiSigKey', { wallet: d1, signer: d3 }), 998, d1, { [d1]: '0.00000000' });
    await node.waitApplied(add3.id);
    const w = await node.call('getWallet', { id: d1 });
    expect(Object.keys(w)).toEqual(['id', 'balance', 'type', 'requiredSigs', 'allowedSigners', 'extraData', 'publicKey']);
    expect(w).toMatchObject({ type: 'Multisig', requiredSigs: '1', allowedSigners: `(3 keys): ${d1},${d2},${d3}`, extraData: 'null' });
    // The first change stored the key it carried.
    expect(w.publicKey).toBe(d1Key);
  });

  it('changeMultiSigs (POST, one signature suffices while 1 is required) sets 2 of 3', async () => {
    const ch = expectForm(await node.call('changeMultiSigs', { wallet: d1, sigs: '2' }), 998, d1, { [d1]: '0.00000000' });
    expect(decodeMultisigChange(fromHex(ch.data))).toMatchObject({ kind: MultisigChangeType.ChangeReqSigs, requiredSigs: 2 });
    await node.waitApplied(ch.id);
    expect(await node.call('getWallet', { id: d1 }, { get: true })).toMatchObject({ type: 'Multisig', requiredSigs: '2' });
  });

  it('a spend with one signature is not applied; the co-signature makes both apply in one block', async () => {
    const before = await balanceOf(d1);
    const meBefore = await balanceOf(node.address);
    const spend = expectForm(await node.call('addMultiSigTransaction', { to: `${STRANGER}_10`, from: d1 }, { get: true }), 997, d1, { [STRANGER]: '10.00000000' });
    expect(decodeMultisigTxData(fromHex(spend.data))).toMatchObject({ origTxId: null, signerPubKey: fromHex(d1Key) });
    // Three blocks later it is still pending, unapplied, and nothing moved.
    const h = await node.height();
    await node.waitForHeight(h + 3);
    expect(await node.appliedAt(spend.id)).toBe(0);
    expect(await node.call('txu')).toHaveProperty(spend.id);
    expect(await balanceOf(d1)).toBe(before);
    expect(await balanceOf(STRANGER)).toBe(0n);

    const co = expectForm(await node.call('addMultiSigTxSignature', { wallet: d1, origtx: spend.id }), 999, d1, { [d1]: '0.00000000' });
    const payload = decodeMultisigTxData(fromHex(co.data));
    expect(toHex(payload.origTxId!)).toBe(toHex(parseTransactionId(spend.id).binary));
    expect(payload.signerPubKey).toEqual(fromHex(pubKey)); // another signer: d2, of the node's first key
    expect(payload.signerNonce).not.toEqual(decodeMultisigTxData(fromHex(spend.data)).signerNonce);
    const block = await node.waitApplied(spend.id);
    expect(await node.appliedAt(co.id)).toBe(block);
    expect(await balanceOf(STRANGER)).toBe(parseAmount('10'));
    expect(await balanceOf(d1)).toBe(before - parseAmount(spend.totalAmount) - parseAmount(co.totalAmount));
    // The node's primary address signs the blocks: it gains the fees less the foundation share.
    const fees = parseAmount(spend.fee) + parseAmount(co.fee);
    expect(await balanceOf(node.address)).toBeGreaterThanOrEqual(meBefore + fees - (fees * 3n) / 100n);
  });

  it('delMultiSigKey (GET) needs two signatures too: d3 leaves, 2 of the remaining 2', async () => {
    const del = expectForm(await node.call('delMultiSigKey', { wallet: d1, signer: d3 }, { get: true }), 998, d1, { [d1]: '0.00000000' });
    expect(decodeMultisigChange(fromHex(del.data))).toMatchObject({ kind: MultisigChangeType.DelSigner, address: no(d3) });
    const h = await node.height();
    await node.waitForHeight(h + 2);
    expect(await node.appliedAt(del.id)).toBe(0);
    const co = expectForm(await node.call('addMultiSigTxSignature', { wallet: d1, origtx: del.id }, { get: true }), 999, d1, { [d1]: '0.00000000' });
    await node.waitApplied(del.id);
    expect(await node.appliedAt(co.id)).toBe(await node.appliedAt(del.id));
    expect(await node.call('getWallet', { id: d1 })).toMatchObject({ type: 'Multisig', requiredSigs: '2', allowedSigners: `(2 keys): ${d1},${d2}` });
  });
});

describe('errors of every multisig operation (GET and POST)', () => {
  it('addMultiSigTransaction', async () => {
    await expectErrorBoth('addMultiSigTransaction', { from: d1 }, -32602, 'to parameter is missing');
    await expectErrorBoth('addMultiSigTransaction', { to: `${STRANGER}_1` }, -32602, 'from parameter is missing');
    await expectErrorBoth('addMultiSigTransaction', { to: `${STRANGER}_1`, from: node.address }, -32602, "The specified 'from' wallet is not a multisig wallet.");
    await expectErrorBoth('addMultiSigTransaction', { to: `${STRANGER}_1`, from: 'abc' }, -32602, 'Invalid from address was specified: "abc"');
    await expectErrorBoth('addMultiSigTransaction', { to: 'abc_1', from: d1 }, -32602, 'Invalid to address was specified');
    await expectErrorBoth('addMultiSigTransaction', { to: `${STRANGER}_0`, from: d1 }, -32602, /^Invalid to amount was specified/);
    await expectErrorBoth('addMultiSigTransaction', { to: `${STRANGER}_1`, from: d1, fee: '0.001' }, -32602, /^Invalid fee was specified: the price per started kB must be at least 0\.005/);
    await expectErrorBoth('addMultiSigTransaction', { to: `${STRANGER}_1`, from: d1, fee: 'x' }, -32602, /^Invalid fee was specified/);
    await expectErrorBoth('addMultiSigTransaction', { to: `${STRANGER}_100000`, from: d1 }, -32001, 'Balance is too low');
    await expectErrorBoth('addMultiSigTransaction', { to: `${d1}_1`, from: d1 }, -32602, 'A multisig wallet cannot pay itself');
    const tagged = formatExtendedAddress({ address: Address.fromText(STRANGER), flag: ExtendedAddressFlag.OfflineTag, routingAddress: null, tag: Uint8Array.of(1) });
    await expectErrorBoth('addMultiSigTransaction', { to: `${tagged}_1`, from: d1 }, -32602, /cannot carry an extended-address tag/);
    // A normal payment from the multisig wallet is refused by the pool.
    await expectErrorBoth('addTransaction', { to: `${STRANGER}_1`, from: `${d1}_1`, primaryAddress: d1, autofee: true }, -32602, /is a multisig wallet: it spends only through multisig transactions/);
  });

  it('addMultiSigTxSignature', async () => {
    await expectErrorBoth('addMultiSigTxSignature', { origtx: '5-abc' }, -32602, 'wallet parameter is missing');
    await expectErrorBoth('addMultiSigTxSignature', { wallet: d1 }, -32602, 'origtx parameter is missing');
    await expectErrorBoth('addMultiSigTxSignature', { wallet: d1, origtx: 'nonsense' }, -32602, /^Invalid origtx was specified: invalid transaction id "nonsense"/);
    await expectErrorBoth('addMultiSigTxSignature', { wallet: 'abc', origtx: '5-abc' }, -32602, 'Invalid wallet address was specified: "abc"');
    const unknown = `7-${encodeBase58(new Uint8Array(44).fill(9))}`;
    await expectErrorBoth('addMultiSigTxSignature', { wallet: d1, origtx: unknown }, -32602, new RegExp(`^Transaction 7-.* is not pending on this node$`));
    const applied = Object.keys(await node.call('txa', { count: 1 }))[0]!;
    await expectErrorBoth('addMultiSigTxSignature', { wallet: d1, origtx: applied }, -32602, `Transaction ${applied} is already applied`);
    // A pending spend: co-signed by another wallet name, then by everyone.
    const spend = await node.call('addMultiSigTransaction', { to: `${STRANGER}_1`, from: d1 });
    await expectErrorBoth('addMultiSigTxSignature', { wallet: d2, origtx: spend.id }, -32602, `Transaction ${spend.id} is for wallet ${d1}, not ${d2}`);
    const pay = await node.call('addTransaction', { to: `${STRANGER}_1` });
    await expectErrorBoth('addMultiSigTxSignature', { wallet: d1, origtx: pay.id }, -32602, /is not a multisig transaction \(type 997 or 998\)|is already applied/);
    const co = await node.call('addMultiSigTxSignature', { wallet: d1, origtx: spend.id }, { get: true });
    // d1 and d2 signed, and d3 is no signer any more: nobody of this node is left (unless the block took both already).
    const r = await node.rpc('addMultiSigTxSignature', { wallet: d1, origtx: spend.id });
    expect(r.error?.code).toBe(-32602);
    expect(r.error?.message).toMatch(/has signed this transaction already|is already applied/);
    await node.waitApplied(co.id);
  });

  it('addMultiSigKey and delMultiSigKey', async () => {
    for (const method of ['addMultiSigKey', 'delMultiSigKey']) {
      await expectErrorBoth(method, { signer: d3 }, -32602, "Parameter 'wallet' is missing.");
      await expectErrorBoth(method, { wallet: d1 }, -32602, "Parameter 'signer' is missing.");
      await expectErrorBoth(method, { wallet: 'abc', signer: d3 }, -32602, 'Invalid wallet address was specified: "abc"');
      await expectErrorBoth(method, { wallet: d1, signer: 'abc' }, -32602, 'Invalid signer address was specified: "abc"');
      await expectErrorBoth(method, { wallet: STRANGER, signer: d3 }, -32602, `No address of this node's wallet may sign for wallet ${STRANGER}: it is neither that wallet nor one of its allowed signers`);
    }
    await expectErrorBoth('addMultiSigKey', { wallet: d1, signer: d2 }, -32602, `The transaction was rejected: ${d2} already signs for wallet ${d1}`);
    await expectErrorBoth('delMultiSigKey', { wallet: d1, signer: d1 }, -32602, `The transaction was rejected: the owner ${d1} cannot be removed from its own wallet`);
    await expectErrorBoth('delMultiSigKey', { wallet: d1, signer: d3 }, -32602, `The transaction was rejected: ${d3} is not an allowed signer of wallet ${d1}`);
    await expectErrorBoth('delMultiSigKey', { wallet: node.address, signer: d3 }, -32602, `The transaction was rejected: wallet ${node.address} is not a multisig wallet`);
    // A derived address has no public key in the wallet state: it cannot be a multisig wallet (reference v10+).
    const derived = await node.call<string>('generateNewAddress');
    await node.waitApplied((await node.call('addTransaction', { to: `${derived}_1` })).id);
    await expectErrorBoth('addMultiSigKey', { wallet: derived, signer: d3 }, -32602, `The transaction was rejected: the wallet state holds no public key for ${derived}, the address in pubKey: it must have sent a transaction of its own first (a derived address never has one)`);
  });

  it('changeMultiSigs', async () => {
    await expectErrorBoth('changeMultiSigs', { sigs: '2' }, -32602, "Parameter 'wallet' is missing.");
    await expectErrorBoth('changeMultiSigs', { wallet: d1 }, -32602, "Parameter 'sigs' is missing.");
    for (const sigs of ['abc', '0', '256', '-1', '1.5']) {
      await expectErrorBoth('changeMultiSigs', { wallet: d1, sigs }, -32602, "Parameter 'sigs' must be a number between 1 and 255.");
    }
    await expectErrorBoth('changeMultiSigs', { wallet: d1, sigs: '3' }, -32602, `The transaction was rejected: wallet ${d1} has 2 signers: its required signatures must be 1…2, got 3`);
    // A JSON number, as a JSON client sends an integer (DESIGN decision 1), reaches the same check.
    await expectError('changeMultiSigs', { wallet: d1, sigs: 3 }, -32602, `The transaction was rejected: wallet ${d1} has 2 signers: its required signatures must be 1…2, got 3`);
    await expectError('changeMultiSigs', { wallet: d1, sigs: 256 }, -32602, "Parameter 'sigs' must be a number between 1 and 255.");
    await expectErrorBoth('changeMultiSigs', { wallet: d1, sigs: '2' }, -32602, `The transaction was rejected: wallet ${d1} already requires 2 signatures`);
    await expectErrorBoth('changeMultiSigs', { wallet: STRANGER, sigs: '2' }, -32602, /^No address of this node's wallet may sign for wallet/);
  });
});
