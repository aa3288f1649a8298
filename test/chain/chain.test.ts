/**
 * Block application and the mempool over a real LMDB store: one write transaction per block,
 * balances and fee split, applied order, pending persistence and admission rules, extension hooks.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Transaction } from '../../src/codec/types.js';
import { addressFromText } from '../../src/formats/address.js';
import { FOUNDATION_ADDRESS } from '../../src/formats/constants.js';
import { TxError, TxErrorCode } from '../../src/chain/errors.js';
import type { ChainExtension } from '../../src/chain/extensions.js';
import { encodeStoredTx, knownTx, knownTxFromBytes, type KnownTx } from '../../src/chain/tx-codec.js';
import { readU64Key, u64Key } from '../../src/state/keys.js';
import { systemClock } from '../../src/clock.js';
import { admitReasons, commitBlock, GENESIS, openTestChain, verifyInProcess, type TestChain } from './fixture.js';

const STRANGER = addressFromText('4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr');
const FOUNDATION = addressFromText(FOUNDATION_ADDRESS);
const COIN = 100_000_000n;
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
const pay = (t: TestChain, amount: bigint, to = STRANGER): KnownTx =>
  t.builder.buildSigned({ key: t.wallet.primary, outputs: [{ address: to, amount }] });
const feeOf = (k: KnownTx) => k.tx.inputs.reduce((s, i) => s + i.amount, 0n) - k.tx.outputs.reduce((s, o) => s + o.amount, 0n);

describe('block application', () => {
  it('genesis credits the node; a block moves coins, pays the fee to the signer less 3% to the foundation', async () => {
    const t = await chainWith();
    const me = t.wallet.primary.primary;
    expect(t.chain.height).toBe(1n);
    expect(t.chain.wallet(me).balance).toBe(GENESIS);
    expect(t.chain.supply()).toBe(GENESIS);

    const k = pay(t, 10n * COIN);
    expect(await admitReasons(t, [k])).toEqual([null]);
    await t.producer.produce();
    const fee = feeOf(k);
    const foundation = (fee * 3n) / 100n;
    expect(t.chain.height).toBe(2n);
    expect(t.chain.wallet(STRANGER).balance).toBe(10n * COIN);
    expect(t.chain.wallet(FOUNDATION).balance).toBe(foundation);
    expect(t.chain.wallet(me).balance).toBe(GENESIS - 10n * COIN - foundation);
    expect(hex(t.chain.wallet(me).publicKey!)).toBe(hex(t.wallet.primary.publicKey));
    expect(t.chain.supply()).toBe(GENESIS);
    expect(t.chain.walletCount()).toBe(3);
    expect(t.mempool.size).toBe(0);
    const tip = t.chain.tip!;
    expect(tip.block.totalFee).toBe(fee);
    expect(tip.block.txIds).toEqual([k.id]);
    expect(t.chain.getTransaction(k.id)!.tx.applied).toBe(2n);
    // txa: newest first
    expect(t.chain.appliedPage(0, 10).map((x) => x.textId)).toEqual([k.textId, t.chain.appliedPage(1, 1)[0]!.textId]);
    expect(t.chain.appliedPage(1, 1)[0]!.tx.type).toBe(3);
    // Blocks link, and the stored block's checksum is the tip's.
    expect(hex(t.chain.getBlock(2n)!.block.lastBlockChecksum!)).toBe(hex(t.chain.getBlock(1n)!.checksum));
    expect(hex(t.chain.getBlock(2n)!.checksum)).toBe(hex(tip.checksum));
  });

  it('a candidate that breaks a state rule is left out without a trace; the rest of the block applies', async () => {
    const t = await chainWith();
    const ok = pay(t, 5n * COIN);
    // Two spends that each pass alone but not together: built against the same state, committed directly.
    const big1 = pay(t, GENESIS / 2n);
    const big2 = pay(t, GENESIS / 2n, FOUNDATION);
    const r = await commitBlock(t, [ok, big1, big2]);
    expect(r.applied.map((k) => k.textId)).toEqual([ok.textId, big1.textId]);
    expect(r.rejected).toEqual([{ tx: big2, reason: 'Balance is too low' }]);
    const fees = feeOf(ok) + feeOf(big1);
    expect(t.chain.wallet(FOUNDATION).balance).toBe((fees * 3n) / 100n); // not big2's output
    expect(t.chain.supply()).toBe(GENESIS);
    expect(t.chain.hasTransaction(big2.id)).toBe(false);
  });

  it('a transaction given twice in one block applies once', async () => {
    const t = await chainWith();
    const me = t.wallet.primary.primary;
    const k = pay(t, 2n * COIN);
    const r = await commitBlock(t, [k, k]);
    expect(r.applied).toEqual([k]);
    expect(r.rejected).toEqual([{ tx: k, reason: 'transaction is already applied' }]);
    expect(t.chain.wallet(STRANGER).balance).toBe(2n * COIN);
    expect(t.chain.tip!.block.txIds).toEqual([k.id]);
  });

  it('the wallet-state checksum follows the balances, and survives a reopen', async () => {
    const t = await chainWith();
    const before = hex(t.chain.walletStateChecksum());
    await t.mempool.admit([pay(t, COIN)]);
    await t.producer.produce();
    const after = hex(t.chain.walletStateChecksum());
    expect(after).not.toBe(before);
    expect(after).toHaveLength(128);
    expect(hex(t.chain.tip!.block.walletStateChecksum!)).toBe(after);
    const again = await t.reopen();
    open = [again];
    expect(hex(again.chain.walletStateChecksum())).toBe(after);
    expect(again.chain.height).toBe(2n);
  });

  it('extension hooks run inside the block: type validate/apply, onBlock, state checksum', async () => {
    const calls: string[] = [];
    const ext: ChainExtension = {
      name: 'test',
      subDatabases: [{ name: 'test-ext', encoding: 'msgpack', shape: 'string → count' }],
      txTypes: {
        4: {
          validate: (tx) => {
            if (tx.outputs[0]!.amount === 1_234_567n) throw new TxError(TxErrorCode.TypeRule, 'amount 0.01234567 is refused by the test extension');
            calls.push('validate');
          },
          apply: (_tx, block) => {
            const db = block.store.declare({ name: 'test-ext', encoding: 'msgpack', shape: '' });
            db.put(Buffer.from('n'), ((db.get(Buffer.from('n')) as number | undefined) ?? 0) + 1);
            calls.push('apply');
          },
        },
      },
      onBlock: (b) => calls.push(`block ${b.height}`),
      stateChecksum: () => new Uint8Array(64).fill(9),
    };
    const t = await chainWith([ext]);
    const k4 = t.builder.buildSigned({ key: t.wallet.primary, outputs: [{ address: STRANGER, amount: COIN }], type: 4 });
    const refused = t.builder.buildSigned({ key: t.wallet.primary, outputs: [{ address: STRANGER, amount: 1_234_567n }], type: 4 });
    const unknown = t.builder.buildSigned({ key: t.wallet.primary, outputs: [{ address: STRANGER, amount: COIN }], type: 5 });
    expect(await admitReasons(t, [k4, refused, unknown])).toEqual([
      null,
      'amount 0.01234567 is refused by the test extension',
      'transaction type 5 is not accepted by this node',
    ]);
    await t.producer.produce();
    // Block 1 is the genesis; the first 'validate' is the admission of k4. A block this node
    // produced runs its hooks once: its import replays the writes of that run.
    expect(calls).toEqual(['block 1', 'validate', 'validate', 'apply', 'block 2']);
    expect(t.chain.tip!.block.regNameStateChecksum).toEqual(new Uint8Array(64).fill(9));
    expect(t.store.declare({ name: 'test-ext', encoding: 'msgpack', shape: '' }).get(Buffer.from('n'))).toBe(1);
  });
});

describe('stored transactions', () => {
  it('are kept under their apply sequence with the txid pointing there; a store of the layout before reads the same and reverts', async () => {
    const t = await chainWith();
    const [a, b] = [pay(t, COIN), pay(t, 2n * COIN)];
    await commitBlock(t, [a, b]);
    const seqA = BigInt(t.chain.appliedCount() - 1);
    // The new layout: 8 bytes under the txid, the record under the sequence.
    expect(t.store.db('transactions').getBinary(Buffer.from(a.id))!).toEqual(u64Key(seqA));
    expect(t.store.db('applied').getBinary(u64Key(seqA))!).toEqual(encodeStoredTx(t.chain.getTransaction(a.id)!));
    // Block 2 rewritten as a store written before it holds it: the record under the txid, the txid
    // under the sequence.
    for (const [k, seq] of [[a, seqA], [b, seqA + 1n]] as const) {
      const record = t.store.db('applied').getBinary(u64Key(seq))!;
      await t.store.write(() => {
        t.store.db('transactions').put(Buffer.from(k.id), record);
        t.store.db('applied').put(u64Key(seq), Buffer.from(k.id));
      });
    }
    const again = await t.reopen();
    open = [again];
    const c = pay(again, 3n * COIN);
    await commitBlock(again, [c]);
    expect(again.chain.getTransaction(a.id)!.tx.applied).toBe(2n);
    expect(again.chain.getTransaction(c.id)!.tx.applied).toBe(3n);
    expect(again.chain.appliedPage(0, 3).map((k) => k.textId)).toEqual([c.textId, b.textId, a.textId]);
    expect(again.chain.blockTransactions(again.chain.getBlock(2n)!.block).map((k) => k.textId)).toEqual([a.textId, b.textId]);
    // What peers are sent, read without decoding: the same bytes in both layouts.
    expect(again.chain.blockTransactionBytes(again.chain.getBlock(2n)!.block).map(hex)).toEqual([a, b].map((k) => hex(k.bytes)));
    expect(again.chain.blockTransactionBytes(again.chain.getBlock(3n)!.block).map(hex)).toEqual([hex(c.bytes)]);
    // Both layouts revert: the records go, the pool has the transactions again.
    await again.chain.revertTip();
    await again.chain.revertTip();
    for (const k of [a, b, c]) expect(again.chain.getTransaction(k.id)).toBeNull();
    expect(again.chain.appliedPage(0, 10).map((k) => k.tx.type)).toEqual([3]);
    expect(again.chain.appliedTransaction(seqA)).toBeNull();
  });
});

describe("the tip's clock (TipInfo.receivedAtMs: the next block's interval counts from it)", () => {
  it('is when this node began producing its own block, never later than the import; a block it did not produce counts from its import', async () => {
    const t = await chainWith();
    const before = Date.now();
    await commitBlock(t, []);
    expect(t.chain.tip!.receivedAtMs).toBeGreaterThanOrEqual(before); // no production time given: the import
    const began = Date.now() - 5_000;
    await commitBlock(t, [], { producedAtMs: began });
    expect(t.chain.tip!.receivedAtMs).toBe(began);
    const after = Date.now();
    await commitBlock(t, [], { producedAtMs: after + 60_000 }); // a start after the import cannot be
    expect(t.chain.tip!.receivedAtMs).toBeLessThanOrEqual(Date.now());
  });

  it("the producer's block: an interval does not also take the block's production and import", async () => {
    let offset = 0;
    const clock = { now: () => Date.now() + offset, setTimer: systemClock.setTimer };
    const t = await openTestChain([], undefined, { clock });
    open.push(t);
    // Signing (and so the whole production) takes 5 s by this clock.
    const sign = t.signer.sign.bind(t.signer);
    t.signer.sign = (data) => {
      offset += 5_000;
      return sign(data);
    };
    const began = clock.now();
    await t.producer.produce();
    expect(t.chain.height).toBe(2n);
    expect(t.chain.tip!.receivedAtMs).toBeGreaterThanOrEqual(began);
    expect(t.chain.tip!.receivedAtMs).toBeLessThan(began + 5_000);
  });
});

describe('mempool', () => {
  it('admission rules: duplicates, signature, balance net of pending spends, fee, height window', async () => {
    const t = await chainWith();
    const a = pay(t, COIN);
    expect(await admitReasons(t, [a, a])).toEqual([null, 'transaction is already pending']);
    expect(await admitReasons(t, [a])).toEqual(['transaction is already pending']);

    const forged = pay(t, COIN);
    const bad: Transaction = { ...forged.tx, signature: new Uint8Array(forged.tx.signature!).map((b, i) => (i === 10 ? b ^ 1 : b)) };
    expect(await admitReasons(t, [knownTx(bad, 'reg')])).toEqual(['signature does not verify']);

    // The pool already spends 1 coin + fee: the rest of the balance is available, not more.
    const available = GENESIS - t.mempool.pendingSpendOf(t.wallet.primary.primary);
    const tooMuch = { ...pay(t, COIN).tx };
    tooMuch.inputs = [{ key: Uint8Array.of(0), amount: available + 1n }];
    tooMuch.outputs = [{ address: STRANGER, amount: available + 1n - 1_000_000n }];
    const signed = (tx: Transaction) => {
      tx.signature = t.wallet.primary.sign(knownTx({ ...tx, signature: null }, 'reg').checksum);
      return knownTx(tx, 'reg');
    };
    expect(await admitReasons(t, [signed({ ...tooMuch, signature: null })])).toEqual(['Balance is too low']);

    const lowFee = { ...pay(t, COIN).tx, signature: null };
    lowFee.inputs = [{ key: Uint8Array.of(0), amount: COIN + 1n }];
    expect((await admitReasons(t, [signed(lowFee)]))[0]).toMatch(/below the minimum/);

    const future = { ...pay(t, COIN).tx, signature: null, blockHeight: 100n };
    expect((await admitReasons(t, [signed(future)]))[0]).toMatch(/more than 10 blocks above the tip/);

    const dust = { ...pay(t, COIN).tx, signature: null };
    dust.outputs = [{ address: STRANGER, amount: 1n }];
    dust.inputs = [{ key: Uint8Array.of(0), amount: 1n + 1_000_000n }];
    expect((await admitReasons(t, [signed(dust)]))[0]).toMatch(/dust limit/);
    expect(t.mempool.size).toBe(1);
  });

  it('a transaction made above this node\'s window is ignored, not rejected: a node behind the network must not score its sender', async () => {
    // Seen on a devnet: a fifth master syncing from block 1 banned the master it synced from
    // (invalidTransaction, 10 points each) for the fresh payments that master pushed it, then
    // stayed 60 blocks behind with "Active" (reference-network §6: the sender is not to blame).
    const t = await chainWith();
    const future = { ...pay(t, COIN).tx, signature: null, blockHeight: 100n };
    future.signature = t.wallet.primary.sign(knownTx({ ...future, signature: null }, 'reg').checksum);
    const error = await t.mempool.submit(knownTx(future, 'reg'));
    expect(error?.message).toMatch(/more than 10 blocks above the tip/);
    expect(error?.action).toBe('IGNORE');
  });

  it('a duplicate submitted concurrently is already pending, not "Balance is too low"', async () => {
    const t = await chainWith();
    const big = pay(t, (GENESIS * 6n) / 10n); // two copies would not both fit the balance
    const [first, second] = await Promise.all([admitReasons(t, [big]), admitReasons(t, [big])]);
    expect([first[0], second[0]]).toEqual([null, 'transaction is already pending']);
    const copies = await Promise.all(Array.from({ length: 3 }, () => t.mempool.submit(pay(t, COIN))));
    expect(copies).toEqual([null, null, null]);
  });

  it('a copy submitted while another copy of the same id is refused gets its own answer, never "already pending" for what is not pending', async () => {
    // Found by a fresh-key user sending the same raw transaction twice at once (test/e2e/own-keys-fuzz.slow.test.ts):
    // the first was refused 'Balance is too low', the second told 'already pending', and nothing was pending.
    const t = await chainWith();
    const tooBig: Transaction = { ...pay(t, COIN).tx, signature: null };
    tooBig.inputs = [{ key: Uint8Array.of(0), amount: GENESIS + 1n }];
    tooBig.outputs = [{ address: STRANGER, amount: GENESIS + 1n - 1_000_000n }];
    tooBig.signature = t.wallet.primary.sign(knownTx(tooBig, 'reg').checksum);
    const k = knownTx(tooBig, 'reg');
    const sameBatch = await admitReasons(t, [k, k]);
    const apart = await Promise.all([admitReasons(t, [k]), admitReasons(t, [k])]);
    expect([...sameBatch, ...apart.flat()]).toEqual(Array(4).fill('Balance is too low'));

    // A txid does not cover the signature (formats §8.7): a copy with a broken signature that is
    // being checked must not turn the valid copy away; the valid one is pending afterwards.
    const good = pay(t, COIN);
    const broken = knownTx({ ...good.tx, signature: good.tx.signature!.map((b, i) => (i === 10 ? b ^ 1 : b)) }, 'reg');
    expect(await Promise.all([admitReasons(t, [broken]), admitReasons(t, [good])])).toEqual([['signature does not verify'], [null]]);
    const good2 = pay(t, 2n * COIN);
    const broken2 = knownTx({ ...good2.tx, signature: good2.tx.signature!.map((b, i) => (i === 10 ? b ^ 1 : b)) }, 'reg');
    expect(await admitReasons(t, [broken2, good2, good2])).toEqual(['signature does not verify', null, 'transaction is already pending']);
    expect(t.mempool.has(good.id) && t.mempool.has(good2.id)).toBe(true);
    expect(t.mempool.size).toBe(2);
  });

  it('identical copies that wait for one admission are judged once: a flood of one broken transaction costs one signature check', async () => {
    let checks = 0;
    const t = await openTestChain([], undefined, {
      verify: (items, o) => {
        checks += items.length;
        return verifyInProcess(items, o);
      },
    });
    open.push(t);
    const good = pay(t, COIN);
    const broken = knownTx({ ...good.tx, signature: good.tx.signature!.map((b, i) => (i === 10 ? b ^ 1 : b)) }, 'reg');
    checks = 0;
    const copies = Array.from({ length: 50 }, () => knownTx(broken.tx, 'reg'));
    expect(await admitReasons(t, copies)).toEqual(Array(50).fill('signature does not verify'));
    expect(checks).toBe(1);
    // And one good copy among them: judged apart from the broken ones (other bytes), admitted once.
    checks = 0;
    expect(await admitReasons(t, [broken, broken, good, good, broken])).toEqual([
      'signature does not verify',
      'signature does not verify',
      null,
      'transaction is already pending',
      'signature does not verify',
    ]);
    expect(checks).toBe(2);
  });

  it('a transaction sent again once its block is committed is already applied, also before blockImported prunes the pool', async () => {
    // Seen by a fresh-key user (test/e2e/own-keys.test.ts): getTransaction showed it applied, txu
    // no longer listed it, and sending it again answered 'already pending'.
    const t = await chainWith();
    const k = pay(t, COIN);
    expect(await admitReasons(t, [k])).toEqual([null]);
    let inWindow: Promise<(string | null)[]> | null = null;
    const emit = t.events.emit.bind(t.events) as (...a: unknown[]) => void;
    (t.events as { emit: unknown }).emit = (name: string, payload: unknown) => {
      // The block is committed (LMDB shows it) and the pool not yet pruned.
      if (name === 'blockImported' && !inWindow) {
        expect(t.chain.hasTransaction(k.id) && t.mempool.has(k.id)).toBe(true);
        inWindow = admitReasons(t, [k]);
      }
      emit(name, payload);
    };
    await t.producer.produce();
    expect(inWindow).not.toBeNull();
    expect(await inWindow).toEqual(['transaction is already applied']);
    expect(await admitReasons(t, [k])).toEqual(['transaction is already applied']);
  });

  it('persists in arrival order and reloads after a restart; a block drains it', async () => {
    const t = await chainWith();
    const ks = [pay(t, COIN), pay(t, 2n * COIN), pay(t, 3n * COIN)];
    for (const k of ks) expect(await admitReasons(t, [k])).toEqual([null]);
    expect(t.mempool.page(0, 10).map((k) => k.textId)).toEqual(ks.map((k) => k.textId));
    expect(t.mempool.page(1, 1).map((k) => k.textId)).toEqual([ks[1]!.textId]);
    const spent = t.mempool.pendingSpendOf(t.wallet.primary.primary);

    const again = await t.reopen();
    open = [again];
    expect(again.mempool.page(0, 10).map((k) => k.textId)).toEqual(ks.map((k) => k.textId));
    expect(again.mempool.pendingSpendOf(again.wallet.primary.primary)).toBe(spent);
    await again.producer.produce();
    expect(again.mempool.size).toBe(0);
    expect(again.store.db('pending').getCount()).toBe(0);
    expect(again.chain.wallet(STRANGER).balance).toBe(6n * COIN);
    expect(again.chain.appliedPage(0, 3).map((k) => k.textId)).toEqual([...ks].reverse().map((k) => k.textId));

    const third = await again.reopen();
    open = [third];
    expect(third.mempool.size).toBe(0);
  });

  it('stores one record per admitted chunk: what a block left of it stays pending across a restart, and the record goes with the last', async () => {
    const t = await chainWith();
    const ks = [pay(t, COIN), pay(t, 2n * COIN), pay(t, 3n * COIN)];
    expect(await admitReasons(t, ks)).toEqual([null, null, null]);
    expect(t.store.db('pending').getCount()).toBe(1);
    await commitBlock(t, [ks[0]!]);
    await t.mempool.pruned();
    expect(t.mempool.size).toBe(2);
    expect(t.store.db('pending').getCount()).toBe(1);

    const again = await t.reopen();
    open = [again];
    expect(again.mempool.page(0, 10).map((k) => k.textId)).toEqual([ks[1]!.textId, ks[2]!.textId]);
    await commitBlock(again, [ks[1]!, ks[2]!]);
    await again.mempool.pruned();
    expect(again.mempool.size).toBe(0);
    expect(again.store.db('pending').getCount()).toBe(0);
  });

  it("a peer's transaction is answered once the pool holds it, this node's own once its record is stored too", async () => {
    const t = await chainWith();
    const write = t.store.write;
    // The pending record's write held, as behind a block's commit in LMDB's one write queue.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    t.store.write = ((fn) => held.then(() => write(fn))) as typeof write;
    const admitted: string[] = [];
    const off = t.events.on('txAdmitted', (e) => admitted.push(e.source === 'rpc' ? 'rpc' : e.source.peer));
    try {
      const [a, b] = [pay(t, COIN), pay(t, 2n * COIN)];
      const fromPeer = t.mempool.submit(a, { peer: 'peer-1' });
      let ownAnswered = false;
      const own = t.mempool.submit(b).then((r) => ((ownAnswered = true), r));
      expect(await fromPeer).toBeNull();
      expect(t.mempool.has(a.id) && t.mempool.has(b.id)).toBe(true);
      await new Promise((r) => setImmediate(r));
      expect(ownAnswered).toBe(false);
      expect(admitted).toEqual(['peer-1']);
      expect(t.store.db('pending').getCount()).toBe(0);
      release();
      expect(await own).toBeNull();
      expect(admitted).toEqual(['peer-1', 'rpc']);
      expect(t.store.db('pending').getCount()).toBe(1);
    } finally {
      off();
      t.store.write = write;
    }
  });

  it('when the record cannot be stored, a peer\'s admitted transaction leaves the pool (txDropped) and the node\'s own submission fails', async () => {
    const t = await chainWith();
    const write = t.store.write;
    t.store.write = (() => Promise.reject(new Error('disk full'))) as typeof write;
    const dropped: string[] = [];
    const off = t.events.on('txDropped', (e) => dropped.push(...e.txs.map((k) => k.textId)));
    try {
      const [a, b] = [pay(t, COIN), pay(t, 2n * COIN)];
      const fromPeer = t.mempool.submit(a, { peer: 'peer-1' });
      const own = t.mempool.submit(b);
      expect(await fromPeer).toBeNull();
      await expect(own).rejects.toThrow('disk full');
      expect(t.mempool.size).toBe(0);
      expect(t.mempool.pendingSpendOf(t.wallet.primary.primary)).toBe(0n);
      expect(dropped).toEqual([a.textId]);
    } finally {
      off();
      t.store.write = write;
    }
  });

  it('a block the store already shows, before blockImported, is not counted twice against a balance', async () => {
    const t = await chainWith();
    const me = t.wallet.primary.primary;
    const first = pay(t, (GENESIS * 6n) / 10n);
    expect(await admitReasons(t, [first])).toEqual([null]);
    const before = t.chain.wallet(me).balance - t.mempool.pendingSpendOf(me);
    // The block's commit is held back from this event loop after LMDB's write thread made it:
    // readers see it from their next turn, and blockImported waits, as for a big block under load.
    const write = t.store.write;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    t.store.write = ((fn) => write(fn).then((r) => held.then(() => r))) as typeof write;
    const produced = t.producer.produce();
    try {
      for (let i = 0; i < 500 && t.chain.wallet(me).balance === GENESIS; i++) await new Promise((r) => setTimeout(r, 10));
      expect(t.chain.wallet(me).balance).toBeLessThan(GENESIS);
      expect(t.chain.height).toBe(1n); // not announced yet
      expect(t.mempool.has(first.id)).toBe(true);
      // The balance read now has `first` taken off already: nothing else withdraws from it.
      expect(t.mempool.pendingSpendOf(me)).toBe(0n);
      expect(t.chain.wallet(me).balance).toBeGreaterThanOrEqual(before);
      // A payment the remaining balance covers is admitted in this window (a peer's: its answer
      // does not wait for the held write).
      expect(await t.mempool.submit(pay(t, (GENESIS * 3n) / 10n), { peer: 'peer-1' })).toBeNull();
    } finally {
      release();
      t.store.write = write;
    }
    await produced;
    expect(t.chain.height).toBe(2n);
    expect(t.mempool.size).toBe(1);
  });

  it('the transactions of a reverted block count against their balance at once, not only once their signatures are checked again', async () => {
    let gate: Promise<void> | null = null;
    const t = await openTestChain([], undefined, { verify: async (items, o) => (gate && (await gate), verifyInProcess(items, o)) });
    open.push(t);
    const me = t.wallet.primary.primary;
    const first = pay(t, (GENESIS * 6n) / 10n);
    expect(await admitReasons(t, [first])).toEqual([null]);
    await t.producer.produce();
    expect(t.chain.height).toBe(2n);
    expect(t.mempool.size).toBe(0);
    let release!: () => void;
    gate = new Promise<void>((r) => (release = r));
    try {
      await t.chain.revertTip(t.chain.tip!.checksum);
      expect(t.chain.wallet(me).balance).toBe(GENESIS);
      expect(t.mempool.has(first.id)).toBe(false); // its signature is being checked again
      expect(t.mempool.pendingSpendOf(me)).toBe(first.tx.inputs[0]!.amount);
      // A payment only the balance before `first` covers cannot be made meanwhile.
      expect(() => pay(t, (GENESIS * 6n) / 10n)).toThrow(/Balance is too low/);
    } finally {
      gate = null;
      release();
    }
    for (let i = 0; i < 100 && !t.mempool.has(first.id); i++) await new Promise((r) => setTimeout(r, 10));
    expect(t.mempool.has(first.id)).toBe(true);
    expect(t.mempool.pendingSpendOf(me)).toBe(first.tx.inputs[0]!.amount);
  });

  it("asks the verifier to check this node's own submissions first, a peer's in turn", async () => {
    const asked: (boolean | undefined)[] = [];
    const t = await openTestChain([], undefined, { verify: async (items, opts) => (asked.push(opts?.first), verifyInProcess(items)) });
    open.push(t);
    asked.length = 0; // the genesis block's own checks
    expect(await t.mempool.submit(pay(t, COIN))).toBeNull();
    expect(await t.mempool.submit(pay(t, 2n * COIN), { peer: 'peer-1' })).toBeNull();
    expect(asked).toEqual([true, undefined]);
  });

  it('a transaction dropped from a chunk does not come back at a restart; its chunk-mates do', async () => {
    const t = await chainWith();
    const [a, b, c] = [pay(t, COIN), pay(t, 2n * COIN), pay(t, 3n * COIN)];
    expect(await admitReasons(t, [a!, b!, c!])).toEqual([null, null, null]);
    await t.mempool.drop([b!], 'refused by the producer');
    const again = await t.reopen();
    open = [again];
    expect(again.mempool.page(0, 10).map((k) => k.textId)).toEqual([a!.textId, c!.textId]);
    expect(again.mempool.pendingSpendOf(again.wallet.primary.primary)).toBe(t.mempool.pendingSpendOf(t.wallet.primary.primary));
  });

  it('loads a record of the form before chunks (one stored transaction), once even when a later record holds it too', async () => {
    const t = await chainWith();
    const [a, b] = [pay(t, COIN), pay(t, 2n * COIN)];
    expect(await admitReasons(t, [a!])).toEqual([null]);
    // The old form at keys after the pool's own: b alone, and a again (as a revert would store it twice).
    await t.store.db('pending').put(u64Key(500n), encodeStoredTx(b!));
    await t.store.db('pending').put(u64Key(501n), encodeStoredTx(a!));
    const again = await t.reopen();
    open = [again];
    expect(again.mempool.page(0, 10).map((k) => k.textId)).toEqual([a!.textId, b!.textId]);
    await again.mempool.pruned();
    await again.store.flushed();
    // The duplicate's record is gone; new admissions are keyed after every stored record.
    expect([...again.store.db('pending').getKeys({ snapshot: false })].map((k) => readU64Key(k as Uint8Array))).toEqual([1n, 500n]);
    const c = pay(again, 3n * COIN);
    expect(await admitReasons(again, [c])).toEqual([null]);
    expect([...again.store.db('pending').getKeys({ snapshot: false })].map((k) => readU64Key(k as Uint8Array))).toEqual([1n, 500n, 502n]);
    const third = await again.reopen();
    open = [third];
    expect(third.mempool.page(0, 10).map((k) => k.textId)).toEqual([a!.textId, b!.textId, c.textId]);
  });
});

describe('decoded transactions', () => {
  it("share one object for a sender's public key; a key that differs outside the lookup probe keeps its own bytes", async () => {
    const t = await chainWith();
    const [a, b] = [pay(t, COIN), pay(t, 2n * COIN)];
    const da = knownTxFromBytes(a.bytes, t.chain.network);
    const db = knownTxFromBytes(b.bytes, t.chain.network);
    expect(da.tx.pubKey).toBe(db.tx.pubKey);
    expect(Uint8Array.from(da.tx.pubKey!)).toEqual(Uint8Array.from(a.tx.pubKey!));
    // The same transaction with one key byte changed near the key's end (the probe reads bytes 16-48).
    const key = a.tx.pubKey!;
    const at = Buffer.from(a.bytes).indexOf(Buffer.from(key));
    expect(at).toBeGreaterThan(0);
    const other = Uint8Array.from(a.bytes);
    other[at + key.length - 10] ^= 0xff;
    const dother = knownTxFromBytes(other, t.chain.network);
    expect(dother.tx.pubKey).not.toBe(da.tx.pubKey);
    expect(Uint8Array.from(dother.tx.pubKey!)).toEqual(other.subarray(at, at + key.length));
    expect(knownTxFromBytes(a.bytes, t.chain.network).tx.pubKey).toBe(da.tx.pubKey);
  });
});
