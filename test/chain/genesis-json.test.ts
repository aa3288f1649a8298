// The Genesis transaction in the reference's shape (Ixian-DLT `Node.distributeGenesisFunds`;
// reference-formats §9.2): pubKey the InfiniMine address, one input [0x00] giving the whole
// allocation, fee 0; on the embedded network signed by the node (src/chain/genesis.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { genesisSignature, genesisTransaction } from '../../src/chain/genesis.js';
import { knownTx } from '../../src/chain/tx-codec.js';
import { toDecodedForm, toStringForm, toStringFormJson } from '../../src/chain/tx-json.js';
import { COIN } from '../../src/formats/amount.js';
import { INFINIMINE_ADDRESS } from '../../src/formats/constants.js';
import { verifySignature } from '../../src/formats/rsa.js';
import { GENESIS, openTestChain, type TestChain } from './fixture.js';

describe('genesis transaction JSON', () => {
  const A = new Uint8Array(45).fill(1);
  const B = new Uint8Array(45).fill(2);
  const k = knownTx(genesisTransaction([{ address: A, amount: 1_000_000n * COIN }, { address: B, amount: 5n * COIN }], 0n), 'reg');

  it('string form: pubKey InfiniMine, from {"1": total}, fee 0, total = amount; no signature member when unsigned', () => {
    const form = toStringForm(k);
    expect(form.pubKey).toBe(INFINIMINE_ADDRESS);
    expect(form.from).toEqual({ '1': '1000005.00000000' });
    expect(form.type).toBe('3');
    expect(form.fee).toBe('0.00000000');
    expect(form.amount).toBe('1000005.00000000');
    expect(form.totalAmount).toBe('1000005.00000000');
    expect('signature' in form).toBe(false);
    expect(JSON.parse(toStringFormJson(k))).toEqual(form);
  });

  it('decoded form: fee 0, the InfiniMine address as pubKey', () => {
    const d = toDecodedForm(k);
    expect(d.fee).toEqual({ amount: 0n });
    expect(d.pubKey?.base58Address).toBe(INFINIMINE_ADDRESS);
    expect(Object.keys(d.fromList)).toEqual(['AA==']);
  });

  it('a genesis signature is over the transaction checksum and changes neither the checksum nor the id', () => {
    const spec = { network: 'reg' as const, allocations: [{ address: A, amount: COIN }], timestamp: 7n };
    const signature = genesisSignature(spec, (c) => Uint8Array.from(c.subarray(0, 4)));
    const signed = knownTx(genesisTransaction(spec.allocations, spec.timestamp, signature), 'reg');
    const unsigned = knownTx(genesisTransaction(spec.allocations, spec.timestamp), 'reg');
    expect(signature).toEqual(unsigned.checksum.subarray(0, 4));
    expect(signed.textId).toBe(unsigned.textId);
    expect(toStringForm(signed).signature).toBe(Buffer.from(signature).toString('hex'));
  });
});

describe('the embedded network\'s block 1', () => {
  let t: TestChain;
  beforeAll(async () => {
    t = await openTestChain();
  });
  afterAll(async () => {
    await t.close();
  });

  it('carries the genesis transaction signed by the node, crediting its wallet', () => {
    const one = t.chain.getBlock(1n)!;
    const [g] = t.chain.blockTransactions(one.block);
    const form = toStringForm(g!);
    expect(form).toMatchObject({ type: '3', pubKey: INFINIMINE_ADDRESS, from: { '1': '1000000.00000000' }, to: { [t.wallet.primary.primaryText]: '1000000.00000000' } });
    expect(form.signature).toMatch(/^[0-9a-f]{1024}$/);
    expect(verifySignature(t.wallet.primary.publicKey, g!.checksum, g!.tx.signature!)).toBe(true);
    expect(t.chain.wallet(t.wallet.primary.primary).balance).toBe(GENESIS);
    expect(t.chain.supply()).toBe(GENESIS);
  });
});
