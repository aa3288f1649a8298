/**
 * A multisig wallet across two real master processes of one genesis (issue 12 §5): the primary
 * address of a second key in master-1's keystore (a derived address has no public key, which the
 * address in a multisig transaction's pubKey needs) becomes a 2-of-2 wallet with master-2's address as the second signer. The spend
 * made on master-1 reaches master-2's pool and waits on both; master-2 co-signs it with its own
 * key; both apply in one block, which each master imports from the other in its turn (the import
 * path checks the co-signatures of a block it did not make), and both end on the same chain.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { prepareDevnet, type DevnetNode } from '../../src/cli/devnet.js';
import { addressToText, primaryAddressFromPublicKey } from '../../src/formats/address.js';
import { parseAmount } from '../../src/formats/amount.js';
import { generateWalletKey } from '../../src/formats/rsa.js';
import { readKeystore, writeKeystore } from '../../src/wallet/keystore.js';
import { freeFixedPort, startNode, type NodeProcess } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'dltnode-msig-net-'));
const STRANGER = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';
let plan: DevnetNode[];
let m1: NodeProcess;
let m2: NodeProcess;
/** The multisig wallet: the primary address of master-1's second key. */
let wallet: string;

afterAll(async () => {
  await m1?.stop(true);
  await m2?.stop(true);
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

afterEach((ctx) => {
  if (ctx.task.result?.state !== 'fail') return;
  const logs = mkdtempSync(join(tmpdir(), 'dltnode-msig-net-logs-'));
  for (const [name, n] of [['master-1', m1], ['master-2', m2]] as const) if (n) writeFileSync(join(logs, `${name}.log`), n.output());
  console.error(`node logs of the failed test: ${logs}`);
});

const waitApplied = (n: NodeProcess, id: string) => n.waitApplied(id, { timeoutMs: 30_000, unknownIsPending: true });
/** Each step is checked against the submitting node's own tip, so a step waits until both masters applied the one before. */
const waitAppliedOnBoth = async (id: string): Promise<void> => {
  await waitApplied(m1, id);
  await waitApplied(m2, id);
};

beforeAll(async () => {
  const prepared = await prepareDevnet({ masters: 2, relays: 0, clients: 0, blockInterval: 0.5, dir, json: true, basePort: null });
  plan = prepared.nodes;
  const second = await generateWalletKey();
  writeKeystore(plan[0]!.dataDir, [...readKeystore(plan[0]!.dataDir)!, { privateKey: second.privateKey, nonces: [] }]);
  wallet = addressToText(primaryAddressFromPublicKey(second.publicKey));
  const port1 = await freeFixedPort();
  const port2 = await freeFixedPort();
  m1 = await startNode({ dataDir: plan[0]!.dataDir, args: ['--genesis', prepared.genesisPath, '--role', 'master', '--p2p-port', String(port1)] });
  m2 = await startNode({
    dataDir: plan[1]!.dataDir,
    args: ['--genesis', prepared.genesisPath, '--role', 'master', '--p2p-port', String(port2), '--peer', `127.0.0.1:${port1}`],
  });
  await m2.waitForHeight(3, 60_000);
}, 120_000);

describe('a 2-of-2 multisig wallet shared by two masters', () => {
  it('the spend waits on both pools; the co-signature made on the other master applies both on both nodes', async () => {
    const cosigner = plan[1]!.address;
    const fund = await m1.call('addTransaction', { to: `${wallet}_100` });
    await waitAppliedOnBoth(fund.id);

    const add = await m1.call('addMultiSigKey', { wallet, signer: cosigner });
    await waitAppliedOnBoth(add.id);
    const sigs = await m1.call('changeMultiSigs', { wallet, sigs: '2' });
    await waitAppliedOnBoth(sigs.id);
    for (const n of [m1, m2]) {
      expect(await n.call('getWallet', { id: wallet })).toMatchObject({ type: 'Multisig', requiredSigs: '2', allowedSigners: `(2 keys): ${wallet},${cosigner}` });
    }

    const spend = await m1.call('addMultiSigTransaction', { to: `${STRANGER}_7`, from: wallet });
    await m2.waitFor(async () => (await m2.call('txu'))[spend.id] !== undefined, 'the spend in master-2 pool');
    const h = await m2.height();
    await m2.waitForHeight(h + 3);
    expect(await m1.appliedAt(spend.id)).toBe(0);
    expect(await m2.appliedAt(spend.id)).toBe(0);

    const co = await m2.call('addMultiSigTxSignature', { wallet, origtx: spend.id });
    const block = await waitApplied(m1, spend.id);
    await waitApplied(m2, spend.id);
    for (const n of [m1, m2]) {
      expect(await n.appliedAt(spend.id)).toBe(block);
      expect(await n.appliedAt(co.id)).toBe(block);
      expect(parseAmount((await n.call('getWallet', { id: STRANGER })).balance)).toBe(parseAmount('7'));
    }
    expect(await m1.call('getWallet', { id: wallet })).toEqual(await m2.call('getWallet', { id: wallet }));
    const checksum = async (n: NodeProcess) => (await n.call('getBlock', { num: block }))['Block Checksum'];
    expect(await checksum(m1)).toBe(await checksum(m2));
  }, 120_000);
});
