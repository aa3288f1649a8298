/**
 * A new user's keys, made outside dltnode (node:crypto RSA, 2048 and 4096 bits, exponents 65537,
 * 3 and 2^31 − 1, v0/v1/v2 and headerless key layouts) and transactions signed by the user's own encoder (own-codec.ts, from the byte
 * formats alone), sent to a real node whose genesis (`dltnode init`) funds them. The node's own
 * wallet is also the user's key, imported as a keystore file. Each transaction is applied exactly
 * once or refused with a code and a message, and the balances are the user's own sums.
 * (The random sequences are in own-keys-fuzz.slow.test.ts.)
 */
import { verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COIN, minFee, newKey, signTx, varint, type OwnKey, type OwnTx } from './own-codec.js';
import { startOwnNode, type Envelope, type OwnNode } from './own-node.js';

const GENESIS = 1000n * COIN;
const toUnits = (s: string): bigint => {
  const [i, f = ''] = s.split('.');
  return BigInt(i!) * COIN + BigInt((f + '00000000').slice(0, 8));
};

describe('fresh keys from outside the node', () => {
  let node: OwnNode;
  let keys: OwnKey[];
  let master: OwnKey;
  const payee = newKey(2048);
  beforeAll(async () => {
    // Header byte 1 (v1 addresses) as current wallets make them; 0 and 2 (v0, v2) and the legacy headerless v0 key (§6.1, §7.2).
    // (One 4096-bit key, the headerless one, keeps key generation short; the fuzz pays from a v1 4096-bit key.)
    keys = [newKey(2048), newKey(2048, 3), newKey(2048, 2 ** 31 - 1), newKey(4096, 65537, 'headerless'), newKey(2048, 65537, 0), newKey(2048, 3, 2)];
    master = newKey(2048, 3, 2); // a v2 key (header byte 02): the wallet names its own v2 address
    node = await startOwnNode(Object.fromEntries(keys.map((k) => [k.text, '1000'])), { walletKey: master.privateBytes, fundMaster: '1000', blockInterval: 0.5 });
  }, 120_000);
  afterAll(async () => {
    await node?.stop();
  });

  /** A payment of `amount` with the minimum fee for its size. */
  const payment = async (k: OwnKey, amount: bigint, fee?: bigint): Promise<{ tx: OwnTx; signed: ReturnType<typeof signTx> }> => {
    const tx: OwnTx = { blockHeight: BigInt(await node.height()), nonce: Math.floor(Math.random() * 1e6), inputs: [{ key: Buffer.from([0]), amount: 0n }], outputs: [{ address: payee.address, amount }], pubKey: k.publicKey };
    let f = fee ?? 500_000n;
    for (let i = 0; i < 3 && fee === undefined; i++) {
      tx.inputs[0]!.amount = amount + f;
      f = minFee(signTx(tx, k).size);
    }
    tx.inputs[0]!.amount = amount + f;
    return { tx, signed: signTx(tx, k) };
  };
  const send = (hex: string): Promise<Envelope> => node.call('sendRawTransaction', { transaction: hex });
  const balance = async (text: string): Promise<bigint> => toUnits((await node.call('getWallet', { id: text })).result.balance);

  it('the node runs with the imported keystore: its address, and its signatures verify with node:crypto', async () => {
    expect(node.master).toBe(master.text);
    expect((await node.call('myPubKey')).result).toBe(master.publicKey.toString('hex'));
    const r = await node.call('addTransaction', { to: `${payee.text}_2.5` });
    expect(r.error).toBeNull();
    expect(verify('sha512', Buffer.from(r.result.checksum, 'hex'), master.privateKey, Buffer.from(r.result.signature, 'hex'))).toBe(true);
    await appliedWithin(r.result.id);
  });

  const appliedWithin = async (id: string, ms = 30_000): Promise<void> => {
    const end = Date.now() + ms;
    while (Number((await node.call('getTransaction', { id })).result.applied) === 0) {
      if (Date.now() > end) throw new Error(`${id} not applied in ${ms / 1000} s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  it('each key pays once; replays and a broken signature are refused with a code and a message; balances and supply are the sums', async () => {
    const supply0 = toUnits((await node.call('supply')).result);
    const sent: { id: string; fee: bigint; hex: string }[] = [];
    for (const [i, k] of keys.entries()) {
      const { tx, signed } = await payment(k, BigInt(i + 1) * COIN);
      const r = await send(signed.hex);
      expect(r.error, `${k.bits} bits, e ${k.exponent}`).toBeNull();
      expect(r.result.id).toBe(signed.id);
      sent.push({ id: signed.id, fee: tx.inputs[0]!.amount - BigInt(i + 1) * COIN, hex: signed.hex });
      // The same bytes again, and a copy whose signature is broken (same id: the id does not cover it).
      const again = await send(signed.hex);
      // (A block may have taken it meanwhile.)
      expect(again.error?.code).toBe(-32602);
      expect(again.error?.message).toMatch(/^The transaction was rejected: transaction is already (pending|applied)$/);
      const b = Buffer.from(signed.hex, 'hex');
      b[b.length - 20]! ^= 1;
      expect((await send(b.toString('hex'))).error?.code).toBe(-32602);
    }
    // More than the balance: refused, nothing pending, nothing found.
    const { signed: tooMuch } = await payment(keys[0]!, GENESIS);
    expect((await send(tooMuch.hex)).error).toEqual({ code: -32001, message: 'Balance is too low' });
    expect((await node.call('getTransaction', { id: tooMuch.id })).error?.code).toBe(-32602);

    for (const s of sent) {
      await appliedWithin(s.id);
      const replay = await send(s.hex);
      expect(replay.error).toEqual({ code: -32602, message: 'The transaction was rejected: transaction is already applied' });
    }
    for (const [i, k] of keys.entries()) expect(await balance(k.text)).toBe(GENESIS - BigInt(i + 1) * COIN - sent[i]!.fee);
    // 2.5 from the node's wallet (first test) and 1+2+…+6 from the keys, each once.
    expect(await balance(payee.text)).toBe(25n * COIN / 10n + 21n * COIN);
    const fees = sent.reduce((s, x) => s + x.fee, 0n);
    // Fees wait for the signers' reward (the genesis's reward maturity): they leave the supply meanwhile.
    expect(toUnits((await node.call('supply')).result)).toBe(supply0 - fees);
  });

  it('multisig from own keys (formats §8.10): add a signer, require 2, spend once co-signed; strangers and repeats refused', async () => {
    const [owner, cosigner, stranger] = [keys[4]!, keys[5]!, keys[0]!]; // a v0 wallet, a v2 co-signer
    const field = (b: Buffer): Buffer => Buffer.concat([varint(b.length), b]);
    const signer = (k: OwnKey): Buffer => Buffer.concat([field(k.publicKey), field(Buffer.from([0]))]);
    const fees: bigint[] = [];
    /** Signs with `k` for the owner's wallet, with the minimum fee taken from the wallet. */
    const build = async (type: number, k: OwnKey, to: Buffer, amount: bigint, data: Buffer): Promise<ReturnType<typeof signTx>> => {
      const tx: OwnTx = { type, blockHeight: BigInt(await node.height()), nonce: Math.floor(Math.random() * 1e6), inputs: [{ key: Buffer.from([0]), amount: amount + 500_000n }], outputs: [{ address: to, amount, data }], pubKey: owner.publicKey };
      for (let i = 0; i < 2; i++) tx.inputs[0]!.amount = amount + minFee(signTx(tx, k).size);
      fees.push(tx.inputs[0]!.amount - amount);
      return signTx(tx, k);
    };
    const before = await balance(owner.text);
    const add = await build(998, owner, owner.address, 0n, Buffer.concat([Buffer.from([1]), field(cosigner.address), signer(owner)]));
    expect((await send(add.hex)).error).toBeNull();
    await appliedWithin(add.id);
    const two = await build(998, owner, owner.address, 0n, Buffer.concat([Buffer.from([3, 2]), signer(owner)]));
    expect((await send(two.hex)).error).toBeNull();
    await appliedWithin(two.id);
    expect((await node.call('getWallet', { id: owner.text })).result).toMatchObject({ type: 'Multisig', requiredSigs: '2' });

    const spend = await build(997, owner, payee.address, 3n * COIN, Buffer.concat([Buffer.from([0]), signer(owner)]));
    expect((await send(spend.hex)).error).toBeNull();
    const origTxId = field(Buffer.concat([varint(1), varint(BigInt(spend.id.split('-')[0]!)), spend.checksum]));
    const byStranger = await build(999, stranger, owner.address, 0n, Buffer.concat([origTxId, signer(stranger)]));
    fees.pop();
    expect((await send(byStranger.hex)).error?.message).toMatch(/may not sign for wallet/);
    const cosign = await build(999, cosigner, owner.address, 0n, Buffer.concat([origTxId, signer(cosigner)]));
    expect((await send(cosign.hex)).error).toBeNull();
    const again = await build(999, cosigner, owner.address, 0n, Buffer.concat([origTxId, signer(cosigner)]));
    fees.pop();
    // (Refused either way; once the spend is applied, because there is nothing left to co-sign.)
    expect((await send(again.hex)).error?.message).toMatch(/has signed this transaction already|which is not pending on this node/);
    await appliedWithin(spend.id);
    await appliedWithin(cosign.id);
    expect((await send(spend.hex)).error?.message).toMatch(/already applied/);
    expect(await balance(owner.text)).toBe(before - 3n * COIN - fees.reduce((s, f) => s + f, 0n));
  });

  it('the same raw transaction sent twice at once is accepted once; a refused one is refused for both, never "already pending"', async () => {
    const { signed } = await payment(keys[1]!, COIN);
    const both = await Promise.all([send(signed.hex), send(signed.hex)]);
    expect(both.filter((r) => !r.error)).toHaveLength(1);
    expect(both.find((r) => r.error)!.error!.message).toMatch(/^The transaction was rejected: transaction is already (pending|applied)$/);
    const { signed: tooMuch } = await payment(keys[2]!, GENESIS);
    const refused = await Promise.all([send(tooMuch.hex), send(tooMuch.hex)]);
    expect(refused.map((r) => r.error)).toEqual([
      { code: -32001, message: 'Balance is too low' },
      { code: -32001, message: 'Balance is too low' },
    ]);
  });
});
