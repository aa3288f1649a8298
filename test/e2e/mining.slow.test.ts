/**
 * Mining end to end (reference-formats.md §11; reference-client-methods.md `submitminingsolution`,
 * `minerstats`) on a one-master devnet of the `reg` network whose genesis shortens the reward
 * maturity to 6 blocks: blocks produced at `--mining-difficulty 0`, the easiest target of §11.2 (a
 * hash passes with probability 2^-16, ~65 000 Argon2id hashes, minutes on two cores: hence the
 * slow suite). The test searches a nonce itself through the worker pool's `searchPow` task, checks
 * it with `powHash`, and claims it; the claim's block sets the PoW field and block claim + 6 pays
 * the reward (DLT `rewardMinersV10`); then the node's built-in miner finds and claims a block by
 * itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { powCheck, powHash } from '../../src/core/pow.js';
import { Address } from '../../src/formats/address.js';
import { fromHex, toHex } from '../../src/formats/bytes.js';
import { formatAmount, parseAmount } from '../../src/formats/amount.js';
import { miningReward } from '../../src/mining/reward.js';
import { prepareDevnet } from '../../src/cli/devnet.js';
import { createWorkerPool, type WorkerPool } from '../../src/pool/index.js';
import { freeFixedPort, nodeGroup, startNode, type NodeProcess } from './harness.js';

const { dir, running } = nodeGroup('dltnode-mining');
let node: NodeProcess;
/** The master's primary address (Base58): its wallet is the devnet's, not the harness's cached one. */
let address: string;
let pool: WorkerPool;
const MINUTES = 60_000;
/** The genesis's reward maturity: block n pays the claims applied in block n − 6. */
const MATURITY = 6;

beforeAll(async () => {
  const prepared = await prepareDevnet({ masters: 1, relays: 0, clients: 0, blockInterval: 2, dir, json: true, basePort: null, rewardMaturity: BigInt(MATURITY) });
  const m = prepared.nodes[0]!;
  address = m.address;
  node = await startNode({
    dataDir: m.dataDir,
    args: ['--genesis', prepared.genesisPath, '--role', 'master', '--p2p-port', String(await freeFixedPort()), '--mining-difficulty', '0', '--miner-threads', '1'],
  });
  running.set(m.name, node);
  // The built-in miner waits while the test mines by hand.
  expect(await node.call('setBlockSelectionAlgorithm', { algorithm: '-1' })).toBe('');
  await node.waitForHeight(2);
  pool = createWorkerPool({ threads: 2 });
});
afterAll(async () => {
  await pool?.close();
});

/** Searches nonces for a block until one passes (through the pool's searchPow task). */
async function searchNonce(checksum: Uint8Array, solver: Uint8Array, difficulty: bigint): Promise<Uint8Array> {
  for (;;) {
    const jobs = [0, 1].map(() => ({ blockChecksum: checksum, solverAddress: solver, difficulty, prefix: randomBytes(28), start: 0, count: 200 }));
    const found = (await pool.searchPow(jobs)).find((r) => r.nonce);
    if (found?.nonce) return found.nonce;
  }
}

describe('mining on reg at difficulty 0', () => {
  it('getminingblock, a nonce searched and checked with powHash, verifyminingsolution and submitminingsolution true, the claim applied, the PoW field set, the reward paid rewardMaturity blocks later, minerstats counting it, a second claim refused', async () => {
    const mb = await node.call<{ num: number; ver: number; dif: number; chk: string; adr: string }>('getminingblock');
    expect(mb.dif).toBe(0);
    const checksum = Uint8Array.from(Buffer.from(mb.chk, 'base64'));
    const solver = Uint8Array.from(Buffer.from(mb.adr, 'base64'));
    expect(toHex(solver)).toBe(toHex(Address.fromText(address).addressNoChecksum));
    const nonce = await searchNonce(checksum, solver, 0n);
    expect(powCheck(powHash(checksum, solver, nonce), 0n)).toBe(true);
    const nonceHex = toHex(nonce);
    expect(await node.call('verifyminingsolution', { nonce: nonceHex, blocknum: mb.num, diff: 0 }, { get: true })).toBe(true);
    const balanceBefore = parseAmount(await node.call<string>('getBalance', { address: address }));
    expect(await node.call('submitminingsolution', { nonce: nonceHex, blocknum: mb.num })).toBe(true);
    // A second claim for the same block: refused (pending, then solved) with false, as the reference.
    expect(await node.call('submitminingsolution', { nonce: nonceHex, blocknum: mb.num })).toBe(false);
    const block = await node.waitFor(async () => {
      const b = await node.call<Record<string, string>>('getblock', { num: mb.num });
      return b['PoW field'] !== 'null' ? b : undefined;
    }, 'the PoW field set', 60_000);
    // As the reference shows it: the number of the block that applied the claim, 8 bytes little-endian.
    expect(block['PoW field']).toMatch(/^[0-9a-f]{16}$/);
    const claims = await node.call<Record<string, unknown>[]>('activity', { type: 200 });
    const claimBlock = claims[0]!.blockHeight as number;
    expect(Buffer.from(block['PoW field']!, 'hex').readBigUInt64LE(0)).toBe(BigInt(claimBlock));
    expect(claims[0]).toMatchObject({ type: 200, status: 2, value: formatAmount(miningReward(BigInt(mb.num))), wallet: address });
    expect(claimBlock).toBeGreaterThan(mb.num);
    // Paid by block claimBlock + 6. The master's signing rewards meanwhile are a few thousandths of
    // an IXI per block (supply × 0.1 / 10⁸), far below the ~10 IXI of the mining reward.
    await node.waitForHeight(claimBlock + MATURITY, 60_000);
    const balanceAfter = parseAmount(await node.call<string>('getBalance', { address: address }));
    expect(balanceAfter - balanceBefore).toBeGreaterThanOrEqual(miningReward(BigInt(mb.num)));
    expect(balanceAfter - balanceBefore).toBeLessThan(miningReward(BigInt(mb.num)) + 10n ** 8n);
    const stats = await node.call<Record<string, unknown>>('minerstats');
    expect(stats['Solved Blocks (Local)']).toBe(1);
    expect(stats['Solved Blocks (Network)']).toBe(1);
    expect(stats['Last Solved Block']).toBe(mb.num);
    expect(await node.call('submitminingsolution', { nonce: nonceHex, blocknum: mb.num })).toBe(false);
    expect(fromHex(nonceHex)).toEqual(nonce);
  }, 30 * MINUTES);

  it('the built-in miner finds and claims a block by itself', async () => {
    expect(await node.call('setBlockSelectionAlgorithm', { algorithm: '2' })).toBe('');
    const stats = await node.waitFor(async () => {
      const s = await node.call<Record<string, number | string>>('minerstats');
      return (s['Solved Blocks (Local)'] as number) >= 2 ? s : undefined;
    }, 'the built-in miner solving a block', 30 * MINUTES);
    expect(stats['Search Mode']).toBe('latestBlock');
    expect(stats.Hashrate as number).toBeGreaterThan(0);
    expect(stats['Solved Blocks (Network)'] as number).toBeGreaterThanOrEqual(2);
    const solved = await node.call<Record<string, string>>('getblock', { num: stats['Last Solved Block'] });
    expect(solved['PoW field']).not.toBe('null');
  }, 31 * MINUTES);
});
