/**
 * A stored chain damaged where LMDB cannot see it (its data pages carry no checksums) is refused at
 * start with one sentence naming the store and the damage (src/chain/store-check.ts), instead of
 * serving the changed block or balance and building on it.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNode } from '../../src/node/node.js';
import { inProcessNodeOptions } from './options-fixture.js';
import { StoreCorruptionError } from '../../src/chain/errors.js';
import { META } from '../../src/chain/chain.js';
import { openStore, type Store } from '../../src/state/store.js';
import { u64Key } from '../../src/state/keys.js';
import { checkStoredChain } from '../../src/chain/store-check.js';
import { decodeBlock, encodeBlock } from '../../src/chain/block.js';
import { silentLog } from '../chain/fixture.js';
import { newDataDir } from '../e2e/harness.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const optionsFor = inProcessNodeOptions;

/** A data directory holding a chain of 4 blocks, and its tip's stored bytes. */
async function chainOf4(): Promise<{ dataDir: string; tipBytes: Buffer }> {
  const { dataDir } = await newDataDir();
  dirs.push(dataDir);
  const node = await createNode(optionsFor(dataDir), silentLog);
  for (let i = 0; i < 3; i++) await node.modules.consensus.producer.produce();
  const tipBytes = Buffer.from(node.modules.chain.getBlock(4n)!.bytes);
  await node.close();
  return { dataDir, tipBytes };
}

async function damage(dataDir: string, change: (store: Store) => Promise<unknown>): Promise<void> {
  const store = openStore(dataDir);
  try {
    await change(store);
  } finally {
    await store.close();
  }
}

async function refusal(dataDir: string): Promise<string> {
  const err = await createNode(optionsFor(dataDir), silentLog).then(
    async (n) => {
      await n.close();
      return null;
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StoreCorruptionError);
  const message = (err as Error).message;
  expect(message).toMatch(new RegExp(`^the store in ${join(dataDir, 'chain')} is damaged: .*; restore the data directory from a backup`));
  expect(message).not.toMatch(/\n/);
  return message;
}

describe('the start-up check of the stored chain', () => {
  it('a byte flipped in the data file inside the tip block header is refused', async () => {
    const { dataDir, tipBytes } = await chainOf4();
    // The tip's header as LMDB holds it on its data page (every copy: freed pages may hold older ones).
    const file = join(dataDir, 'chain', 'data.mdb');
    const data = readFileSync(file);
    const needle = tipBytes.subarray(0, 32);
    let copies = 0;
    for (let at = data.indexOf(needle); at >= 0 && copies < 100; at = data.indexOf(needle, at + 1)) {
      data[at + 20]! ^= 0x01; // inside row 2, the previous block's checksum
      copies++;
    }
    expect(copies).toBeGreaterThan(0);
    writeFileSync(file, data);
    expect(await refusal(dataDir)).toMatch(/its tip, block 4, (hashes to|names)/);
  }, 60_000);

  it('a tip header changed where its parent link is intact is told by the recorded checksum', async () => {
    const { dataDir, tipBytes } = await chainOf4();
    // Its timestamp one second later: the parent link is unchanged, the header's checksum is not.
    const { block } = decodeBlock(tipBytes);
    const header = Buffer.from(encodeBlock({ ...block, timestamp: block.timestamp + 1n }).bytes);
    await damage(dataDir, (s) => s.db('blocks').put(u64Key(4n), header));
    expect(await refusal(dataDir)).toMatch(/its tip, block 4, hashes to \w+… but was stored as \w+…/);
  }, 60_000);

  it("a wallet's stored balance changed is refused by the recomputed wallet-state checksum", async () => {
    const { dataDir } = await chainOf4();
    await damage(dataDir, async (s) => {
      const [entry] = [...s.db('wallets').getRange({ limit: 1 })];
      const value = Buffer.from(entry!.value);
      value[2]! ^= 0x01; // inside the balance
      await s.db('wallets').put(entry!.key, value);
    });
    expect(await refusal(dataDir)).toMatch(/its wallets hash to .* a wallet's stored state was changed/);
  }, 60_000);

  it('over the wallet limit the recomputation is skipped, the cheap checks still made', async () => {
    const { dataDir } = await chainOf4();
    const node = await createNode(optionsFor(dataDir), silentLog);
    try {
      expect(checkStoredChain(node.modules.chain, { walletLimit: 0 })).toMatchObject({ wallets: 0, walletsSkipped: true });
      expect(checkStoredChain(node.modules.chain).walletsSkipped).toBe(false);
    } finally {
      await node.close();
    }
  }, 60_000);

  it('a tip height that reads lower than the blocks held, or as another type, is refused', async () => {
    const { dataDir } = await chainOf4();
    await damage(dataDir, (s) => s.meta.put(META.tip, 3));
    expect(await refusal(dataDir)).toMatch(/its tip is block 3, but it holds block 4 above it/);
    await damage(dataDir, (s) => s.meta.put(META.tip, 'x'));
    expect(await refusal(dataDir)).toMatch(/its tip height reads as "x"/);
    await damage(dataDir, (s) => s.meta.put(META.tip, 4));
    await damage(dataDir, (s) => s.meta.put(META.walletCount, -1));
    expect(await refusal(dataDir)).toMatch(/its wallet count reads as -1/);
  }, 60_000);

  it('a pending-pool record that cannot be decoded is named with the store and what to do', async () => {
    const { dataDir } = await chainOf4();
    await damage(dataDir, (s) => s.db('pending').put(u64Key(999n), Buffer.from([9, 1, 2])));
    expect(await refusal(dataDir)).toMatch(/its pending transactions record 999: pending record of unknown form 9/);
  }, 60_000);

  it('an undamaged chain starts, and one from before the recorded tip checksum too', async () => {
    const { dataDir } = await chainOf4();
    await damage(dataDir, (s) => s.meta.remove(META.tipChecksum));
    const node = await createNode(optionsFor(dataDir), silentLog);
    expect(node.modules.chain.height).toBe(4n);
    await node.modules.consensus.producer.produce();
    await node.close();
    const again = await createNode(optionsFor(dataDir), silentLog);
    expect(again.modules.chain.height).toBe(5n);
    await again.close();
  }, 60_000);
});
