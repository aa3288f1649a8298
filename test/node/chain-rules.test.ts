/**
 * A data directory remembers the consensus values its chain was made with (src/node/chain-rules.ts):
 * a restart with another --name-month-blocks, --name-grace-blocks or --mining-difficulty is refused
 * naming the option and both values, before anything there is written; options that decide no rule
 * of the stored chain (block interval, pool threads) stay free to change.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNode } from '../../src/node/node.js';
import type { NodeOptions } from '../../src/node/options.js';
import { inProcessNodeOptions } from './options-fixture.js';
import { ChainIdentityError } from '../../src/chain/errors.js';
import { openStore } from '../../src/state/store.js';
import { META } from '../../src/chain/chain.js';
import { silentLog } from '../chain/fixture.js';
import { KEYSTORE_FILE, writeKeystore } from '../../src/wallet/keystore.js';
import { generateWalletKey } from '../../src/formats/rsa.js';
import { newDataDir } from '../e2e/harness.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const optionsFor = (dataDir: string, o: { month?: number; grace?: number; difficulty?: bigint; interval?: number; threads?: number } = {}): NodeOptions => ({
  ...inProcessNodeOptions(dataDir),
  consensus: { blockIntervalSeconds: o.interval ?? 3600 },
  pool: { threads: o.threads ?? 0 },
  names: { ...(o.month !== undefined ? { monthBlocks: o.month } : {}), ...(o.grace !== undefined ? { graceBlocks: o.grace } : {}) },
  ...(o.difficulty !== undefined ? { mining: { difficulty: o.difficulty } } : {}),
});

/** Every file of the data directory (the chain's included) by name → sha256, the lock aside. */
function snapshot(dataDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, prefix: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      // lock.mdb holds LMDB's reader table, rewritten by every open.
      if (e.name === 'lock.mdb' || e.name.startsWith('dltnode.lock')) continue;
      if (e.isDirectory()) walk(join(dir, e.name), `${prefix}${e.name}/`);
      else out[`${prefix}${e.name}`] = createHash('sha256').update(readFileSync(join(dir, e.name))).digest('hex');
    }
  };
  walk(dataDir, '');
  return out;
}

async function startAndStop(opts: NodeOptions, blocks = 0): Promise<void> {
  const node = await createNode(opts, silentLog);
  for (let i = 0; i < blocks; i++) await node.modules.consensus.producer.produce();
  await node.close();
}

async function refusal(opts: NodeOptions): Promise<ChainIdentityError> {
  const err = await createNode(opts, silentLog).then(
    async (n) => {
      await n.close();
      return null;
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ChainIdentityError);
  expect((err as ChainIdentityError).code).toBe('CHAIN_OTHER_RULES');
  return err as ChainIdentityError;
}

describe('the consensus values a data directory was made with', () => {
  it('a restart with another --name-month-blocks is refused naming both values, and nothing on disk changes', async () => {
    const { dataDir } = await newDataDir();
    dirs.push(dataDir);
    await startAndStop(optionsFor(dataDir, { month: 100 }), 2);
    const before = snapshot(dataDir);
    const err = await refusal(optionsFor(dataDir, { month: 200 }));
    expect(err.message).toMatch(/was made with --name-month-blocks 100, not 200: .*start it with --name-month-blocks 100, or give another --data-dir/);
    expect(err.message).not.toMatch(/\n/);
    // Without the option: the consensus month, which the chain was not made with.
    expect((await refusal(optionsFor(dataDir))).message).toMatch(/--name-month-blocks 100, not 86400 \(the consensus value\)/);
    expect(snapshot(dataDir)).toEqual(before);
    // The same value again runs on, whatever else changed (interval, threads).
    await startAndStop(optionsFor(dataDir, { month: 100, interval: 1, threads: 1 }), 1);
  }, 60_000);

  it('the grace period and the fixed mining difficulty are remembered too; equal effective values pass', async () => {
    const { dataDir } = await newDataDir();
    dirs.push(dataDir);
    await startAndStop(optionsFor(dataDir, { month: 100, difficulty: 0n }), 1);
    // The grace period defaults to 1½ months: giving it as 150 is the same rule.
    await startAndStop(optionsFor(dataDir, { month: 100, grace: 150, difficulty: 0n }));
    expect((await refusal(optionsFor(dataDir, { month: 100, grace: 10, difficulty: 0n }))).message).toMatch(/--name-grace-blocks 150, not 10/);
    expect((await refusal(optionsFor(dataDir, { month: 100, difficulty: 5n }))).message).toMatch(/--mining-difficulty 0, not 5/);
    expect((await refusal(optionsFor(dataDir, { month: 100 }))).message).toMatch(/--mining-difficulty 0, not none \(computed from the chain\)/);
  }, 60_000);

  it('a chain made without them is refused with them, and told to start without', async () => {
    const { dataDir } = await newDataDir();
    dirs.push(dataDir);
    await startAndStop(optionsFor(dataDir), 1);
    expect((await refusal(optionsFor(dataDir, { difficulty: 7n }))).message).toMatch(/made with --mining-difficulty none \(computed from the chain\), not 7: .*start it without --mining-difficulty/);
    await startAndStop(optionsFor(dataDir), 1);
  }, 60_000);

  it('another --network is said as such, not as another rule, and a refused start leaves a plain keystore plain', async () => {
    const { dataDir } = await newDataDir();
    dirs.push(dataDir);
    await startAndStop(optionsFor(dataDir, { month: 100 }), 1);
    const before = snapshot(dataDir);
    const withPassword = (o: NodeOptions): NodeOptions => ({ ...o, walletPassword: 'pw' });
    const other = await createNode(withPassword({ ...optionsFor(dataDir), network: 'test' }), silentLog).then(
      async (n) => {
        await n.close();
        return null;
      },
      (e: unknown) => e,
    );
    expect(other).toMatchObject({ code: 'CHAIN_OTHER_NETWORK' });
    expect((other as Error).message).toMatch(/is one of the reg network, not test/);
    await refusal(withPassword(optionsFor(dataDir, { month: 200 })));
    // Another wallet's keystore: refused when block 1 is compared (after the store is open), still unencrypted.
    writeKeystore(dataDir, [{ privateKey: (await generateWalletKey()).privateKey, nonces: [] }]);
    const replaced = readFileSync(join(dataDir, KEYSTORE_FILE));
    const otherWallet = await createNode(withPassword(optionsFor(dataDir, { month: 100 })), silentLog).then(
      async (n) => {
        await n.close();
        return null;
      },
      (e: unknown) => e,
    );
    expect((otherWallet as Error).message).toMatch(/was made by another wallet/);
    expect(readFileSync(join(dataDir, KEYSTORE_FILE))).toEqual(replaced);
    delete before[KEYSTORE_FILE];
    const after = snapshot(dataDir);
    delete after[KEYSTORE_FILE];
    expect(after).toEqual(before);
  }, 60_000);

  it('a store from before the record takes the values of its next start', async () => {
    const { dataDir } = await newDataDir();
    dirs.push(dataDir);
    await startAndStop(optionsFor(dataDir, { month: 100 }), 1);
    const store = openStore(dataDir);
    await store.meta.remove(META.rules);
    await store.close();
    await startAndStop(optionsFor(dataDir, { month: 300 }));
    expect((await refusal(optionsFor(dataDir, { month: 100 }))).message).toMatch(/--name-month-blocks 300, not 100/);
  }, 60_000);
});
