// updateNameRecord refuses records that cannot fit the name's capacity before it hashes and
// encrypts every entry: a 1 MiB request of small entries held the event loop for seconds of that
// work (minutes, with the merge's list search) only to answer 'the records use … bytes'.
// The encryptions are counted (no timing).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const counter = vi.hoisted(() => ({ encryptions: 0 }));
vi.mock('../../src/names/record-crypto.js', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('../../src/names/record-crypto.js')>();
  return {
    ...crypto,
    encryptRecordValue: (...args: Parameters<typeof crypto.encryptRecordValue>) => {
      counter.encryptions++;
      return crypto.encryptRecordValue(...args);
    },
  };
});

const { createNode } = await import('../../src/node/node.js');
const { validateParams } = await import('../../src/rpc/dispatch.js');
const { nameMethods } = await import('../../src/rpc/methods/names.js');
type DltNode = import('../../src/node/node.js').DltNode;
type NodeModules = import('../../src/node/modules.js').NodeModules;
type Logger = import('../../src/log/logger.js').Logger;

const silent: Logger = { info() {}, warn() {}, error: (o: unknown) => console.error(o), debug() {}, child: () => silent };
const dir = mkdtempSync(join(tmpdir(), 'names-precheck-'));
let node: DltNode;
let ctx: NodeModules;
const MONTH = 10;
const call = async (name: string, params: Record<string, unknown>): Promise<any> => {
  const m = nameMethods.find((d) => d.name === name)!;
  return (m.handler as (p: unknown, c: NodeModules) => unknown)(validateParams(m, params), ctx);
};

beforeAll(async () => {
  node = await createNode(
    { network: 'reg', dataDir: dir, chain: { genesisBalance: 10n ** 15n }, consensus: { blockIntervalSeconds: 3600 }, pool: { threads: 0 }, names: { monthBlocks: MONTH, graceBlocks: 5 } },
    silent,
  );
  ctx = node.modules;
}, 60_000);
afterAll(async () => {
  await node?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('updateNameRecord capacity pre-check', () => {
  it('refuses entries whose values alone exceed the capacity without encrypting any of them; an update that fits encrypts each value once', async () => {
    await call('registerName', { name: 'tiny', registrationTime: 6 * MONTH, capacity: 10 });
    await ctx.consensus.producer.produce();
    const many = Array.from({ length: 2_000 }, (_, i) => `k${i},1,value ${i}`);
    counter.encryptions = 0;
    await expect(call('updateNameRecord', { name: 'tiny', 'records[]': many })).rejects.toThrow(/^the records use \d+ bytes; a capacity of 10 kB holds 10240$/);
    expect(counter.encryptions).toBe(0);
    expect(ctx.mempool.size).toBe(0);
    await call('updateNameRecord', { name: 'tiny', 'records[]': many.slice(0, 50) });
    expect(counter.encryptions).toBe(50);
  });
});
