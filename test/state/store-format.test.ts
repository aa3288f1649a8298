/**
 * A data directory written by a newer build, in a store layout this one does not read, is refused
 * when the store opens (src/state/store.ts STORE_FORMAT), naming both formats, instead of misread;
 * a node records the format of a store it has started on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, STORE_FORMAT, STORE_FORMAT_KEY, StoreFormatError } from '../../src/state/store.js';
import { StoreDamagedError } from '../../src/state/lmdb-file.js';
import { createNode } from '../../src/node/node.js';
import { silentLog } from '../chain/fixture.js';
import { newDataDir } from '../e2e/harness.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function withFormat(value: unknown): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'dltnode-format-'));
  dirs.push(dir);
  const store = openStore(dir);
  await store.meta.put(STORE_FORMAT_KEY, value);
  await store.close();
  return dir;
}

describe('the store format', () => {
  it('a store of a newer format is refused naming both formats', async () => {
    const dir = await withFormat(STORE_FORMAT + 1);
    expect(() => openStore(dir)).toThrow(StoreFormatError);
    expect(() => openStore(dir)).toThrow(
      new RegExp(`^the store in ${join(dir, 'chain')} was written by a newer dltnode \\(store format ${STORE_FORMAT + 1}; this one reads formats up to ${STORE_FORMAT}\\): start it with that version, or give another --data-dir$`),
    );
  });

  it('a format record that is no number is damage', async () => {
    const dir = await withFormat('x');
    expect(() => openStore(dir)).toThrow(StoreDamagedError);
    expect(() => openStore(dir)).toThrow(/its format record reads as "x"/);
  });

  it('this format opens, and a node records it on a store it started on', async () => {
    const dir = await withFormat(STORE_FORMAT);
    await openStore(dir).close();
    const { dataDir } = await newDataDir();
    dirs.push(dataDir);
    const node = await createNode({ network: 'reg', dataDir, chain: { genesisBalance: 1n }, consensus: { blockIntervalSeconds: 3600 }, pool: { threads: 0 }, names: {} }, silentLog);
    await node.close();
    const store = openStore(dataDir);
    expect(store.meta.get(STORE_FORMAT_KEY)).toBe(STORE_FORMAT);
    await store.close();
  }, 60_000);
});
