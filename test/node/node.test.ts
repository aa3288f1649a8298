/**
 * The composition root (issue 8; reshape-for-peers §3 P2, §4.4): a node created from the package
 * entry builds the name system itself, so its blocks are byte for byte the CLI node's; several
 * nodes run in one process, each with its own modules (no process-wide registry).
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createNode, type DltNode } from '../../src/index.js';
import { openStore } from '../../src/state/store.js';
import { systemClock } from '../../src/clock.js';
import { u64Key } from '../../src/state/keys.js';
import { decodeBlock } from '../../src/chain/block.js';
import { silentLog } from '../chain/fixture.js';
import { newDataDir, startNode } from '../e2e/harness.js';

const GENESIS = 1_000_000n * 100_000_000n;
const cleanup: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const optionsFor = (dataDir: string) => ({
  network: 'reg' as const,
  dataDir,
  chain: { genesisBalance: GENESIS },
  consensus: { blockIntervalSeconds: 3600 },
  pool: { threads: 0 },
  names: {},
});

/** Block `num`'s stored bytes in a (closed) data directory. */
async function storedBlock(dataDir: string, num: bigint): Promise<Buffer> {
  const store = openStore(dataDir);
  try {
    const bytes = store.db('blocks').getBinary(u64Key(num));
    if (!bytes) throw new Error(`no block ${num} in ${dataDir}`);
    return Buffer.from(bytes);
  } finally {
    await store.close();
  }
}

describe('createNode', () => {
  it('from the package entry produces the same block bytes as the CLI node', async () => {
    // The CLI node makes its genesis block; the package-entry node, with the same key and a clock
    // set to that block's time, must make exactly the same bytes (name-state checksum included).
    const cli = await startNode({ blockInterval: 3600 });
    await cli.waitForHeight(1);
    await cli.stop(true);
    cleanup.push(() => rmSync(cli.dataDir, { recursive: true, force: true }));
    const cliBlock = await storedBlock(cli.dataDir, 1n);
    const timestampMs = Number(decodeBlock(cliBlock).block.timestamp) * 1000;

    const { dataDir } = await newDataDir();
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const node = await createNode(optionsFor(dataDir), silentLog, { clock: { ...systemClock, now: () => timestampMs } });
    await node.close();
    const entryBlock = await storedBlock(dataDir, 1n);
    expect(Buffer.from(decodeBlock(entryBlock).block.regNameStateChecksum!).toString('hex')).toBe('00'.repeat(64));
    expect(entryBlock.toString('hex')).toBe(cliBlock.toString('hex'));
  });

  it('runs several nodes in one process, each with its own chain, names and pool', async () => {
    const nodes: DltNode[] = [];
    for (let i = 0; i < 3; i++) {
      const { dataDir } = await newDataDir();
      const node = await createNode(optionsFor(dataDir), silentLog);
      nodes.push(node);
      cleanup.push(async () => {
        await node.close();
        rmSync(dataDir, { recursive: true, force: true });
      });
    }
    // Each produces on its own; the others do not move.
    await nodes[1]!.modules.consensus.producer.produce();
    await nodes[1]!.modules.consensus.producer.produce();
    expect(nodes.map((n) => Number(n.modules.chain.height))).toEqual([1, 3, 1]);
    expect(new Set(nodes.map((n) => n.modules.names)).size).toBe(3);
    expect(new Set(nodes.map((n) => n.modules.store.path)).size).toBe(3);
    for (const n of nodes) expect(n.modules.chain.tip!.block.regNameStateChecksum).toEqual(new Uint8Array(64));
  });
});
