/**
 * The one write path for blocks (issue 8; reshape-for-peers §3 P1): a second node imports, through
 * `importBlock`, every block a first node produced and ends on the same chain, state and name
 * state; a block with one invalid transaction, a wrong checksum or signature, an unknown parent or
 * malformed bytes is refused with its code and leaves nothing behind; a block retried at the same
 * height after an aborted import gives the same state as a clean import.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { blockChecksum, encodeBlock, encodeBlockHeader, type Block } from '../../src/chain/block.js';
import { BlockError, BlockErrorCode } from '../../src/chain/errors.js';
import type { KnownTx } from '../../src/chain/tx-codec.js';
import { sha3_512sq } from '../../src/core/hash.js';
import { addressFromText } from '../../src/formats/address.js';
import { checksumLockBytes, TransactionType } from '../../src/formats/constants.js';
import { createNameSystem, NAME_POOL_ADDRESS, type NameSystem } from '../../src/names/chain-extension.js';
import { registrationCost } from '../../src/names/fees.js';
import { nameId } from '../../src/names/id.js';
import { encodeNamePayload, NameOp } from '../../src/names/payloads.js';
import type { SignatureVerifier } from '../../src/chain/chain.js';
import { codeOf, openTestChain, silentLog, verifyInProcess, type TestChain } from './fixture.js';
import { SUB_DATABASES } from '../../src/state/schema.js';
import { u64Key } from '../../src/state/keys.js';
import type { UndoEntry } from '../../src/state/store.js';

const STRANGER = addressFromText('4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr');
const COIN = 100_000_000n;
const hex = (b: Uint8Array | null | undefined) => (b ? Buffer.from(b).toString('hex') : '');

const open: TestChain[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

/** A chain with the real name system; `genesis: false` starts empty, to import another's blocks. */
async function chainWithNames(genesis = true, verify?: SignatureVerifier): Promise<{ t: TestChain; names: NameSystem }> {
  let names!: NameSystem;
  const t = await openTestChain(
    (store) => {
      names = createNameSystem({ store, network: 'reg', log: silentLog });
      return [names.extension];
    },
    undefined,
    { genesis, verify },
  );
  open.push(t);
  return { t, names };
}

/** Blocks 1..tip of `t` as wire bytes with their transactions, in order. */
function blocksOf(t: TestChain): { bytes: Uint8Array; block: Block; txs: KnownTx[] }[] {
  const out = [];
  for (let n = 1n; n <= t.chain.height; n++) {
    const { block, bytes } = t.chain.getBlock(n)!;
    out.push({ bytes: Uint8Array.from(bytes), block, txs: t.chain.blockTransactions(block) });
  }
  return out;
}

/** A name registration (type 4) from the node's wallet (`capacity` in kB: two registrations of one name differ by it). */
function registration(t: TestChain, names: NameSystem, name: string, capacity = 10): KnownTx {
  const me = t.wallet.primary.primary;
  const months = 6;
  const payload = {
    op: NameOp.Register,
    id: nameId(name, checksumLockBytes('reg')),
    registrationTimeInBlocks: months * names.env.params.monthBlocks,
    capacity,
    recoveryHash: me,
    nextPkHash: me,
  } as const;
  const cost = registrationCost(payload.registrationTimeInBlocks, payload.capacity, names.env.params);
  return t.builder.buildSigned({ key: t.wallet.primary, outputs: [{ address: NAME_POOL_ADDRESS, amount: cost, data: encodeNamePayload(payload) }], type: TransactionType.RegName });
}

/** Produces a few blocks on `a`: payments, a name registration, empty blocks. */
async function history(a: TestChain, names: NameSystem): Promise<void> {
  for (let round = 0; round < 3; round++) {
    const ks = [1n, 2n, 3n].map((c) => a.builder.buildSigned({ key: a.wallet.primary, outputs: [{ address: STRANGER, amount: c * COIN + BigInt(round) }] }));
    if (round === 1) ks.push(registration(a, names, 'imported'));
    for (const k of ks) expect(await a.mempool.submit(k)).toBeNull();
    await a.producer.produce();
    await a.producer.produce(); // an empty block
  }
}


/** Re-signs a modified block with the node's key (its checksum changes with the header). */
async function resign(t: TestChain, block: Block): Promise<Block> {
  const checksum = blockChecksum(encodeBlockHeader(block));
  return { ...block, signatures: [{ signer: t.signer.address, powSolution: null, signature: await t.signer.sign(sha3_512sq(checksum)) }] };
}

/** Every committed entry of the chain's state (all sub-databases but the undo records and the pool), as text. */
function stateDump(t: TestChain): string {
  const lines: string[] = [];
  const show = (v: unknown): string => (v instanceof Uint8Array ? hex(v) : JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x instanceof Uint8Array ? hex(x) : x)));
  for (const name of ['blocks', 'transactions', 'applied', 'wallets', 'names', 'name-expiry', 'meta']) {
    const db = name === 'meta' ? t.store.meta : t.store.declare({ name, encoding: name === 'meta' ? 'msgpack' : 'binary', shape: '' });
    for (const { key, value } of db.getRange({ snapshot: false })) lines.push(`${name} ${show(key)} ${show(value)}`);
  }
  return lines.join('\n');
}

describe('revertTip (reference-network §5.7)', () => {
  it('takes blocks back to the exact prior state, hands their transactions to the pool, and re-imports to the same chain', async () => {
    const { t: a, names } = await chainWithNames();
    await history(a, names);
    const blocks = blocksOf(a);
    const { t: b, names: namesB } = await chainWithNames(false);
    // Up to the block before the name registration.
    const withName = blocks.findIndex((x) => x.txs.some((k) => k.tx.type === TransactionType.RegName));
    const base = withName - 1;
    for (const x of blocks.slice(0, base + 1)) await b.chain.importBlock(x.bytes, x.txs, { source: 'peer' });
    const dumpAtBase = stateDump(b);
    const tipAtBase = hex(b.chain.tip!.checksum);
    const reverted: bigint[] = [];
    b.events.on('blockReverted', ({ block }) => reverted.push(block.num));
    const depth = 4;
    for (const x of blocks.slice(base + 1, base + 1 + depth)) await b.chain.importBlock(x.bytes, x.txs, { source: 'peer' });
    expect(namesB.state.count()).toBe(1);
    const paymentIds = blocks.slice(base + 1, base + 1 + depth).flatMap((x) => x.txs.map((k) => k.textId));
    // A tip block imported by an older version journaled its own records too (its transactions,
    // their applied sequence, the block): such an undo record still reverts exactly.
    const undoDb = b.store.declare(SUB_DATABASES.undo);
    const tipNum = b.chain.height;
    const tipTxs = b.chain.blockTransactions(b.chain.tip!.block);
    const seq = b.chain.appliedCount();
    undoDb.putSync(u64Key(tipNum), [
      ...(undoDb.get(u64Key(tipNum)) as UndoEntry[]),
      ...tipTxs.map((k, i): UndoEntry[] => [['transactions', Buffer.from(k.id), undefined], ['applied', u64Key(seq - i), undefined]]).flat(),
      ['blocks', u64Key(tipNum), undefined],
    ]);
    for (let i = 0; i < depth; i++) await b.chain.revertTip(b.chain.tip!.checksum);
    expect(reverted).toEqual([...Array(depth).keys()].map((i) => BigInt(base + depth - i + 1)));
    expect(b.chain.height).toBe(BigInt(base + 1));
    expect(hex(b.chain.tip!.checksum)).toBe(tipAtBase);
    expect(stateDump(b)).toBe(dumpAtBase);
    expect(namesB.state.count()).toBe(0);
    // The reverted blocks' transactions are pending again (admission runs after the event).
    await b.mempool.pruned();
    await new Promise((r) => setTimeout(r, 200));
    expect(b.mempool.page(0, 100).map((k) => k.textId).sort()).toEqual([...paymentIds].sort());
    // Re-imported, the chain and state are the other node's again.
    for (const x of blocks.slice(base + 1)) await b.chain.importBlock(x.bytes, x.txs, { source: 'peer' });
    expect(b.mempool.size).toBe(0);
    for (let n = 1n; n <= a.chain.height; n++) expect(hex(b.chain.getBlock(n)!.bytes)).toBe(hex(a.chain.getBlock(n)!.bytes));
    expect(hex(b.chain.walletStateChecksum())).toBe(hex(a.chain.walletStateChecksum()));
    expect(namesB.state.getMeta()).toEqual(names.state.getMeta());
  });

  it('refuses a moved tip, block 1 and blocks deeper than the undo window; survives a restart', async () => {
    const { t: a } = await chainWithNames();
    for (let i = 0; i < 8; i++) await a.producer.produce();
    const tip = a.chain.tip!;
    expect(await codeOf(a.chain.revertTip(new Uint8Array(64)))).toBe(BlockErrorCode.RevertUnavailable);
    // The undo records are in the store: a restarted node can still revert.
    const again = await a.reopen();
    open.splice(open.indexOf(a), 1, again);
    let n = 0;
    while ((await codeOf(again.chain.revertTip())) === 'imported') n++;
    expect(n).toBe(5);
    expect(again.chain.height).toBe(tip.block.num - 5n);
    const { t: lone } = await chainWithNames();
    expect(await codeOf(lone.chain.revertTip())).toBe(BlockErrorCode.RevertUnavailable);
  });
});

describe('the pool after a peer\'s block (issue 8 §2)', () => {
  it('drops a pending payment that a spend in a peer\'s block left uncovered, with txDropped', async () => {
    const { t: a } = await chainWithNames();
    const { t: b } = await chainWithNames(false);
    for (const { bytes, txs } of blocksOf(a)) await b.chain.importBlock(bytes, txs, { source: 'peer' });
    const dropped: { ids: string[]; reason: string }[] = [];
    b.events.on('txDropped', ({ txs, reason }) => dropped.push({ ids: txs.map((k) => k.textId), reason }));
    // The same wallet on both nodes (one key): B holds a payment of 600,000 coins pending; A's
    // block spends 600,001 from the same address, a transaction B's pool never saw.
    const pay = (t: TestChain, coins: bigint) => t.builder.buildSigned({ key: t.wallet.primary, outputs: [{ address: STRANGER, amount: coins * COIN }] });
    const t1 = pay(b, 600_000n);
    expect(await b.mempool.submit(t1)).toBeNull();
    const other = pay(b, 1n); // still covered after the block
    expect(await b.mempool.submit(other)).toBeNull();
    const t2 = pay(a, 600_001n);
    expect(await a.mempool.submit(t2)).toBeNull();
    await a.producer.produce();
    const [, block2] = blocksOf(a);
    expect(block2!.txs.map((k) => k.textId)).toEqual([t2.textId]);
    await b.chain.importBlock(block2!.bytes, block2!.txs, { source: 'peer' });
    await b.mempool.pruned();
    expect(b.mempool.has(t1.id)).toBe(false);
    expect(b.mempool.has(other.id)).toBe(true);
    expect(dropped).toEqual([{ ids: [t1.textId], reason: 'Balance is too low' }]);
    expect(b.mempool.pendingSpendOf(b.wallet.primary.primary)).toBe(other.tx.inputs[0]!.amount);
  });

  /** A and B (one wallet key) with B synced to A; B's `txDropped` events are collected. */
  async function twoMastersWithNames() {
    const { t: a, names: namesA } = await chainWithNames();
    const { t: b, names: namesB } = await chainWithNames(false);
    for (const { bytes, txs } of blocksOf(a)) await b.chain.importBlock(bytes, txs, { source: 'peer' });
    const dropped: { ids: string[]; reason: string }[] = [];
    b.events.on('txDropped', ({ txs, reason }) => dropped.push({ ids: txs.map((k) => k.textId), reason }));
    /** A produces a block of what it holds; B imports it. */
    const blockFromA = async (): Promise<KnownTx[]> => {
      await a.producer.produce();
      const last = blocksOf(a).at(-1)!;
      await b.chain.importBlock(last.bytes, last.txs, { source: 'peer' });
      await b.mempool.pruned();
      return last.txs;
    };
    return { a, b, namesA, namesB, dropped, blockFromA };
  }

  it("drops a pending name transaction that a peer's block made invalid (the same name registered there), with txDropped", async () => {
    const { a, b, namesA, namesB, dropped, blockFromA } = await twoMastersWithNames();
    // Two registrations of one name submitted through two masters: A applies its own, so B's can
    // never apply (and, pending, made B refuse every other operation on the name).
    const onA = registration(a, namesA, 'contested', 10);
    const onB = registration(b, namesB, 'contested', 11);
    expect(await a.mempool.submit(onA)).toBeNull();
    expect(await b.mempool.submit(onB)).toBeNull();
    expect((await blockFromA()).map((k) => k.textId)).toEqual([onA.textId]);
    expect(b.mempool.has(onB.id)).toBe(false);
    expect(dropped.map((d) => d.ids)).toEqual([[onB.textId]]);
    expect(dropped[0]!.reason).toMatch(/is already registered/);
    // Its spend left with it.
    expect(b.mempool.pendingSpendOf(b.wallet.primary.primary)).toBe(0n);
  });

  it("keeps a pending name transaction that a peer's block with name transactions left valid", async () => {
    const { a, b, namesA, namesB, dropped, blockFromA } = await twoMastersWithNames();
    const onA = registration(a, namesA, 'registered-on-a');
    const stillValid = registration(b, namesB, 'pending-on-b');
    expect(await a.mempool.submit(onA)).toBeNull();
    expect(await b.mempool.submit(stillValid)).toBeNull();
    expect((await blockFromA()).map((k) => k.textId)).toEqual([onA.textId]);
    expect(b.mempool.has(stillValid.id)).toBe(true);
    expect(dropped).toEqual([]);
    expect(b.mempool.pendingSpendOf(b.wallet.primary.primary)).toBe(stillValid.tx.inputs[0]!.amount);
  });
});

describe('importBlock', () => {
  it("imports every block another node produced: same checksums, balances, wallet and name state", async () => {
    const { t: a, names: namesA } = await chainWithNames();
    await history(a, namesA);
    const { t: b, names: namesB } = await chainWithNames(false);
    const imported: bigint[] = [];
    b.events.on('blockImported', ({ block, source }) => {
      expect(source).toBe('peer');
      imported.push(block.num);
    });
    for (const { bytes, txs } of blocksOf(a)) await b.chain.importBlock(bytes, txs, { source: 'peer' });
    expect(imported).toEqual(blocksOf(a).map((x) => x.block.num));
    expect(b.chain.height).toBe(a.chain.height);
    for (let n = 1n; n <= a.chain.height; n++) expect(hex(b.chain.getBlock(n)!.bytes)).toBe(hex(a.chain.getBlock(n)!.bytes));
    expect(hex(b.chain.walletStateChecksum())).toBe(hex(a.chain.walletStateChecksum()));
    for (const addr of [STRANGER, a.wallet.primary.primary, NAME_POOL_ADDRESS]) expect(b.chain.wallet(addr).balance).toBe(a.chain.wallet(addr).balance);
    expect(b.chain.supply()).toBe(a.chain.supply());
    expect(namesB.state.count()).toBe(1);
    expect(hex(b.chain.tip!.block.regNameStateChecksum)).toBe(hex(a.chain.tip!.block.regNameStateChecksum));
    expect(namesB.state.getMeta()).toEqual(namesA.state.getMeta());
  });

  it('refuses bad blocks with their codes and writes nothing', async () => {
    const { t: a, names } = await chainWithNames();
    await history(a, names);
    const blocks = blocksOf(a);
    const { t: b } = await chainWithNames(false);
    for (const x of blocks.slice(0, 5)) await b.chain.importBlock(x.bytes, x.txs, { source: 'peer' });
    const state = () => [b.chain.height, hex(b.chain.walletStateChecksum()), b.chain.supply(), b.chain.appliedCount()];
    const before = state();
    const third = blocks[5]!; // block 6: three payments
    expect(third.txs.length).toBe(3);

    // Parent unknown: a block above tip + 1; already known: a block at or below the tip.
    expect(await codeOf(b.chain.importBlock(blocks[6]!.bytes, blocks[6]!.txs, { source: 'peer' }))).toBe(BlockErrorCode.ParentUnknown);
    expect(await codeOf(b.chain.importBlock(blocks[1]!.bytes, blocks[1]!.txs, { source: 'peer' }))).toBe(BlockErrorCode.AlreadyKnown);

    // One invalid transaction (its signature altered: same id, so the header still matches) fails the block.
    const forged = third.txs.map((k, i) => (i === 1 ? { ...k, textId: k.textId, tx: { ...k.tx, signature: k.tx.signature!.map((v, j) => (j === 7 ? v ^ 1 : v)) } } : k));
    const err = await b.chain.importBlock(third.bytes, forged, { source: 'peer' }).catch((e: unknown) => e as BlockError);
    expect(err).toBeInstanceOf(BlockError);
    expect(err.code).toBe(BlockErrorCode.InvalidTransaction);
    expect(err.context.txid).toBe(third.txs[1]!.textId);

    // Transactions that are not the block's.
    expect(await codeOf(b.chain.importBlock(third.bytes, third.txs.slice(0, 2), { source: 'peer' }))).toBe(BlockErrorCode.TxMismatch);

    // A wrong signature.
    const badSig: Block = { ...third.block, signatures: [{ ...third.block.signatures[0]!, signature: third.block.signatures[0]!.signature!.map((v, j) => (j === 3 ? v ^ 1 : v)) }] };
    expect(await codeOf(b.chain.importBlock(badSig, third.txs, { source: 'peer' }))).toBe(BlockErrorCode.BadSignature);
    // A header row changed without re-signing: the signature no longer covers the checksum.
    const moved: Block = { ...third.block, totalFee: third.block.totalFee + 1n };
    expect(await codeOf(b.chain.importBlock(moved, third.txs, { source: 'peer' }))).toBe(BlockErrorCode.BadSignature);
    // Re-signed, the wrong checksums and fee are caught by the state transition.
    expect(await codeOf(b.chain.importBlock(await resign(a, moved), third.txs, { source: 'peer' }))).toBe(BlockErrorCode.TotalFeeMismatch);
    const wrongWs = await resign(a, { ...third.block, walletStateChecksum: new Uint8Array(64).fill(1) });
    expect(await codeOf(b.chain.importBlock(wrongWs, third.txs, { source: 'peer' }))).toBe(BlockErrorCode.WalletStateMismatch);
    const wrongNames = await resign(a, { ...third.block, regNameStateChecksum: new Uint8Array(64).fill(2) });
    expect(await codeOf(b.chain.importBlock(wrongNames, third.txs, { source: 'peer' }))).toBe(BlockErrorCode.NameStateMismatch);
    // A block that does not follow our tip.
    const fork = await resign(a, { ...third.block, lastBlockChecksum: new Uint8Array(64).fill(3) });
    expect(await codeOf(b.chain.importBlock(fork, third.txs, { source: 'peer' }))).toBe(BlockErrorCode.ParentMismatch);
    // No signature at all.
    expect(await codeOf(b.chain.importBlock({ ...third.block, signatures: [] }, third.txs, { source: 'peer' }))).toBe(BlockErrorCode.InsufficientSignatures);

    // Malformed wire bytes: a codec error with the byte offset.
    const truncated = third.bytes.subarray(0, third.bytes.length - 3);
    const malformed = await b.chain.importBlock(truncated, third.txs, { source: 'peer' }).catch((e: unknown) => e as BlockError);
    expect(malformed.code).toBe(BlockErrorCode.Malformed);
    expect(typeof malformed.context.offset).toBe('number');
    expect(malformed.message).toMatch(/at byte \d+/);

    expect(state()).toEqual(before);
    // The good block still imports afterwards.
    await b.chain.importBlock(third.bytes, third.txs, { source: 'peer' });
    expect(hex(b.chain.walletStateChecksum())).toBe(hex(a.chain.getBlock(6n)!.block.walletStateChecksum));
  });

  it("checks a transaction's signature once, whichever of a block import and an admission checks it first; a verdict counts only for the same signature", async () => {
    const { t: a, names } = await chainWithNames();
    await history(a, names);
    const blocks = blocksOf(a);
    const checked: string[] = [];
    const third = blocks[5]!;
    const ofThird = new Set(third.txs.map((k) => hex(k.checksum)));
    // Holds checks of block 6's transactions while `hold` is set (block signatures pass at once).
    let hold: Promise<void> | null = null;
    const verify: SignatureVerifier = async (items) => {
      for (const i of items) checked.push(hex(i.data));
      if (hold && items.some((i) => ofThird.has(hex(i.data)))) await hold;
      return verifyInProcess(items);
    };
    const { t: b } = await chainWithNames(false, verify);
    for (const x of blocks.slice(0, 5)) await b.chain.importBlock(x.bytes, x.txs, { source: 'peer' });
    const [t0, t1, t2] = third.txs as [KnownTx, KnownTx, KnownTx];

    // The pool holds t1 with its real signature; a block carrying t1 with another signature (same
    // txid: the id does not cover the signature) is still checked, and refused.
    expect(await b.mempool.submit(t1)).toBeNull();
    const forged = [t0, { ...t1, textId: t1.textId, tx: { ...t1.tx, signature: t1.tx.signature!.map((v, j) => (j === 9 ? v ^ 1 : v)) } }, t2];
    const err = await b.chain.importBlock(third.bytes, forged, { source: 'peer' }).catch((e: unknown) => e as BlockError);
    expect([err.code, err.context.txid]).toEqual([BlockErrorCode.InvalidTransaction, t1.textId]);

    // The block comes while the pool's admission of t0 and t2 waits for its verifier: the import
    // takes those verdicts instead of checking the signatures a second time (and t1's is held).
    checked.length = 0;
    let release!: () => void;
    hold = new Promise<void>((r) => (release = r));
    const admitting = b.mempool.admit([t0, t2]);
    const importing = b.chain.importBlock(third.bytes, third.txs, { source: 'peer' });
    // (Time for the import to reach its transactions' signatures; were it slower, the test would
    // pass without telling, never fail.)
    await new Promise((r) => setTimeout(r, 50));
    release();
    await importing;
    await admitting;
    expect(b.chain.height).toBe(6n);
    const txChecks = checked.filter((d) => third.txs.some((k) => hex(k.checksum) === d));
    expect(txChecks.sort()).toEqual([hex(t0.checksum), hex(t2.checksum)].sort());

    // The other way round, on a third node: the import checks the block's signatures, and an
    // admission of two of its transactions meanwhile takes those verdicts.
    hold = null;
    const { t: c } = await chainWithNames(false, verify);
    for (const x of blocks.slice(0, 5)) await c.chain.importBlock(x.bytes, x.txs, { source: 'peer' });
    checked.length = 0;
    hold = new Promise<void>((r) => (release = r));
    const imported = c.chain.importBlock(third.bytes, third.txs, { source: 'peer' });
    await new Promise((r) => setTimeout(r, 50)); // (as above: slower, the test passes without telling)
    const admitted = c.mempool.admit([t0, t2]);
    release();
    await imported;
    await admitted;
    expect(c.chain.height).toBe(6n);
    expect(checked.filter((d) => ofThird.has(d)).sort()).toEqual(third.txs.map((k) => hex(k.checksum)).sort());
  });

  it('a block retried at the same height after an aborted import gives the state of a clean import', async () => {
    const { t: a, names } = await chainWithNames();
    await history(a, names);
    const blocks = blocksOf(a);
    // The name registration's block: its transition writes name state before the checksum check fails.
    const withName = blocks.find((x) => x.txs.some((k) => k.tx.type === TransactionType.RegName))!;
    const { t: b, names: namesB } = await chainWithNames(false);
    for (const x of blocks) {
      if (x === withName) {
        const broken = await resign(a, { ...x.block, walletStateChecksum: new Uint8Array(64).fill(7) });
        expect(await codeOf(b.chain.importBlock(broken, x.txs, { source: 'peer' }))).toBe(BlockErrorCode.WalletStateMismatch);
        expect(namesB.state.count()).toBe(0);
        expect(await codeOf(b.chain.importBlock(broken, x.txs, { source: 'peer' }))).toBe(BlockErrorCode.WalletStateMismatch);
      }
      await b.chain.importBlock(x.bytes, x.txs, { source: 'peer' });
    }
    for (let n = 1n; n <= a.chain.height; n++) expect(hex(b.chain.getBlock(n)!.bytes)).toBe(hex(a.chain.getBlock(n)!.bytes));
    expect(namesB.state.count()).toBe(1);
    expect(hex(b.chain.walletStateChecksum())).toBe(hex(a.chain.walletStateChecksum()));
  });

  it('produceBlock writes nothing; addBlockSignatures adds a verified signature without changing the checksum', async () => {
    const { t: a } = await chainWithNames();
    const k = a.builder.buildSigned({ key: a.wallet.primary, outputs: [{ address: STRANGER, amount: COIN }] });
    expect(await a.mempool.submit(k)).toBeNull();
    const before = [a.chain.height, hex(a.chain.walletStateChecksum()), a.chain.wallet(STRANGER).balance];
    const produced = await a.chain.produceBlock({ candidates: [k], timestamp: a.chain.tip!.block.timestamp, proposer: a.signer.address, difficulty: 1n, signerBits: 1n });
    expect(produced.txs).toEqual([k]);
    expect([a.chain.height, hex(a.chain.walletStateChecksum()), a.chain.wallet(STRANGER).balance]).toEqual(before);

    await a.producer.produce();
    const tip = a.chain.tip!;
    // A second signature by the same signer is not added twice.
    expect(await a.chain.addBlockSignatures(tip.block.num, tip.block.signatures)).toEqual([]);
    await expect(a.chain.addBlockSignatures(99n, tip.block.signatures)).rejects.toMatchObject({ code: BlockErrorCode.NotFound });
    expect(hex(encodeBlock(a.chain.getBlock(tip.block.num)!.block).bytes)).toBe(hex(a.chain.getBlock(tip.block.num)!.bytes));
  });
});
