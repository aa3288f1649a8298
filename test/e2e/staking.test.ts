/**
 * Signing rewards and superblocks end to end (issue 10 points 5–6; reference-network §5.1, §5.8):
 * three masters of a devnet whose genesis shortens the reward maturity to 12 blocks and the
 * superblock period to 20. Block n carries first the staking reward of block n − 12, paid to the
 * masters that signed it; superblocks 20 and 40 carry only theirs, point at block 1 and block 20
 * and set the signer bits; every master holds the same bytes; the wallets see signing rewards in
 * `activity`; a staking reward sent from outside is refused with a sentence naming the rule.
 */
import { u64le } from '../../src/chain/block.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareDevnet, type DevnetNode } from '../../src/cli/devnet.js';
import { encodeTransaction } from '../../src/codec/transaction.js';
import { buildStakingReward } from '../../src/consensus/rewards.js';
import { difficultyToBits } from '../../src/consensus/signer-pow.js';
import { addressFromText } from '../../src/formats/address.js';
import { toHex } from '../../src/formats/bytes.js';
import { freeFixedPort, nodeGroup, RpcCallError, startNode } from './harness.js';

const { dir, running } = nodeGroup('dltnode-staking');
const MATURITY = 12;
const PERIOD = 20;
const TOP = 2 * PERIOD + 4;
const STRANGER = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';
let plan: DevnetNode[];
let floor: bigint;

beforeAll(async () => {
  const prepared = await prepareDevnet({
    masters: 3, relays: 0, clients: 0, blockInterval: 0.5, dir, json: true, basePort: null,
    rewardMaturity: BigInt(MATURITY), superBlockPeriod: BigInt(PERIOD),
  });
  plan = prepared.nodes;
  floor = prepared.genesis.minSignerDifficulty!;
  expect(prepared.genesis).toMatchObject({ rewardMaturity: BigInt(MATURITY), superBlockPeriod: BigInt(PERIOD) });
  const ports = new Map<string, number>();
  for (const m of plan) ports.set(m.name, await freeFixedPort());
  for (const m of plan) {
    const peers = plan.filter((p) => p !== m).flatMap((p) => ['--peer', `127.0.0.1:${ports.get(p.name)}`]);
    running.set(m.name, await startNode({ dataDir: m.dataDir, args: ['--genesis', prepared.genesisPath, '--role', 'master', '--p2p-port', String(ports.get(m.name)), ...peers] }));
  }
}, 180_000);

describe('signing rewards and superblocks on a devnet (maturity 12, period 20)', () => {
  it('pays each block\'s signers 12 blocks later, makes superblocks every 20 blocks, and every master holds the same bytes', async () => {
    const m1 = running.get('master-1')!;
    // A payment early on: its fee is held back and paid with that block's signing reward.
    await m1.waitForHeight(3, 60_000);
    await m1.call('addTransaction', { to: `${STRANGER}_1.5` });
    await m1.waitForHeight(TOP, 150_000);
    const masters = new Set(plan.map((p) => p.address));
    for (let num = 2; num <= TOP; num++) {
      const b = await m1.call('getBlock', { num });
      const ids = JSON.parse(b['TX IDs']) as string[];
      const stk = ids.filter((id) => id.startsWith('stk-'));
      if (num <= MATURITY + 1) {
        expect(stk, `block ${num}`).toEqual([]);
        continue;
      }
      expect(ids[0], `block ${num}`).toMatch(/^stk-/);
      expect(stk).toHaveLength(1);
      const tx = await m1.call('getTransaction', { id: ids[0] });
      expect(tx.type).toBe('2');
      const rewarded = await m1.call('getBlock', { num: num - MATURITY });
      // The outputs go to the rewarded block's signers, and cover its fees.
      const signers = new Set((JSON.parse(rewarded.Signatures) as { recipientPubKeyOrAddress: { base58Address: string } }[]).map((s) => s.recipientPubKeyOrAddress.base58Address));
      for (const to of Object.keys(tx.to)) {
        expect(masters.has(to)).toBe(true);
        expect(signers.has(to)).toBe(true);
      }
      expect(Number(tx.amount)).toBeGreaterThan(Number(rewarded['Total fees']));
      if (num % PERIOD === 0) {
        expect(ids, `superblock ${num}`).toHaveLength(1);
        expect(b['Last Superblock']).toBe(String(num === PERIOD ? 1 : num - PERIOD));
        expect(b['Signer Bits']).toBe(Buffer.from(u64le(difficultyToBits(floor))).toString('hex'));
      }
    }
    // A block's row is final once block + 5 exists (§5.5): compare blocks every master has frozen.
    for (const m of running.values()) await m.waitForHeight(2 * PERIOD + 6, 60_000);
    const bytesOf = async (num: number) => new Set(await Promise.all([...running.values()].map((m) => m.call('getBlock', { num, bytes: true }) as Promise<string>)));
    for (const num of [MATURITY + 2, PERIOD, PERIOD + 1, 2 * PERIOD]) expect((await bytesOf(num)).size, `block ${num}`).toBe(1);
    const activity = await m1.call<Record<string, unknown>[]>('activity', { type: 201, count: 1000 });
    expect(activity.length).toBeGreaterThan(0);
    expect(activity[0]).toMatchObject({ type: 201, status: 2, wallet: plan[0]!.address });
    expect(await m1.call<Record<string, unknown>[]>('activity', { type: 202 })).toEqual([]);
  });

  it('refuses a staking reward sent from outside', async () => {
    const m1 = running.get('master-1')!;
    const forged = buildStakingReward(
      { targetBlockNum: 2n, tipHeight: BigInt(await m1.height()), timestamp: 0n, totalSupply: 0n, targetTotalFee: 1_000_000n, signers: [{ address: addressFromText(STRANGER), difficulty: 1n }] },
      'reg',
    )!;
    const err = await m1.call('sendRawTransaction', { transaction: toHex(encodeTransaction(forged.transaction)) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcCallError);
    expect((err as RpcCallError).code).toBe(-32602);
    expect((err as RpcCallError).message).toMatch(/staking reward \(type 2\)/);
  });
});
