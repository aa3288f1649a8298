// Issue 13 §1 and §3, against a real node over HTTP: the count limit of txa/tx/txu, names of four
// or more labels and full-width digits, the genesis fee, the wallet's address limit, and the exit
// code of a refused public bind. Each failed before: -32603 with a stack in the log, a fee of
// −1,000,000, no limit, and exit code 1.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRpcError, startNode, type NodeProcess } from '../e2e/harness.js';
import { internalLogLines } from './lib.js';

let node: NodeProcess;
beforeAll(async () => {
  node = await startNode({ blockInterval: 1 });
  await node.waitForHeight(1);
});
afterAll(async () => {
  await node?.stop();
});

describe('bounded replies', () => {
  it('txa, tx and txu take a count of at most 1000, shown by rpc.discover', async () => {
    for (const method of ['txa', 'tx', 'txu']) {
      await expectRpcError(node, method, { count: 1001 }, -32602, "Parameter 'count' must be at most 1000", true);
      expect((await node.rpc(method, { count: 1000 })).error).toBeNull();
    }
    const doc = await node.call('rpc.discover');
    const txa = doc.methods.find((m: { name: string }) => m.name === 'txa');
    expect(txa.params.find((p: { name: string }) => p.name === 'count').schema.oneOf[0].maximum).toBe(1000);
  });
});

describe('clean errors for odd names', () => {
  it('registerName with four or more labels is -32602 naming the rule', async () => {
    for (const name of ['a.b.c.d', 'a.b.c.d.e']) {
      await expectRpcError(node, 'registerName', { name, registrationTime: 86400 * 12, capacity: 1 }, -32602, /at most 3 labels/);
    }
  });

  it('getRegName* with full-width digits and useAbsoluteId=false is -32602 (the digits map to ASCII)', async () => {
    for (const method of ['getRegName', 'getRegNameDataRecords']) {
      for (const name of ['１２３', '０', 'ab.１２３', '１.２.３.４']) {
        const r = await node.rpc(method, { name, useAbsoluteId: false });
        expect(r.error?.code, `${method} ${name}: ${r.error?.message}`).toBe(-32602);
      }
    }
    // "１２３" is the name "123" (IDNA maps full-width digits), not the IPv4 address 0.0.0.123.
    const a = await node.rpc('getRegName', { name: '１２３' });
    const b = await node.rpc('getRegName', { name: '123' });
    expect(a.error?.message).toBe(b.error?.message);
    expect(internalLogLines(node)).toEqual([]);
  });
});

describe('genesis transaction', () => {
  it('shows fee 0 and a total equal to its amount', async () => {
    const genesis = Object.values(await node.call<Record<string, any>>('txa', { count: 1000 })).find((t) => t.type === '3');
    expect(genesis).toBeDefined();
    expect(genesis.fee).toBe('0.00000000');
    expect(genesis.totalAmount).toBe(genesis.amount);
    const byId = await node.call('getTransaction', { id: genesis.id });
    expect(byId.fee).toBe('0.00000000');
  });
});

describe('wallet address limit', () => {
  it('generateNewAddress stops at 1000 derived addresses with -32602', async () => {
    for (let i = 0; i < 1000; i += 50) {
      const batch = await Promise.all(Array.from({ length: 50 }, () => node.rpc('generateNewAddress')));
      for (const r of batch) expect(r.error).toBeNull();
    }
    await expectRpcError(node, 'generateNewAddress', {}, -32602, /already holds 1000 derived addresses/);
    expect(internalLogLines(node)).toEqual([]);
  }, 120_000);
});

describe('refused public bind', () => {
  it('exits with the usage code 2 and says why', () => {
    const cli = join(__dirname, '..', '..', 'dist', 'cli', 'main.js');
    const r = spawnSync(process.execPath, [cli, 'start', '--rpc-host', '0.0.0.0', '--rpc-port', '0', '--data-dir', join(node.dataDir, 'unused')], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/Refusing to serve RPC on 0\.0\.0\.0 without authentication/);
  });
});

describe('found by the campaign', () => {
  it('verifyMiningSolution with a block number beyond u64 is -32602, not -32603', async () => {
    await expectRpcError(node, 'verifyMiningSolution', { nonce: 'deadbeef', blocknum: '1'.repeat(100), diff: '0' }, -32602, /^Parameter 'blocknum' must be at most/);
    await expectRpcError(node, 'verifyMiningSolution', { nonce: 'deadbeef', blocknum: '18446744073709551616', diff: '0' }, -32602, /^Parameter 'blocknum' must be at most/);
    await expectRpcError(node, 'verifyMiningSolution', { nonce: 'deadbeef', blocknum: '18446744073709551615', diff: '0' }, -32602, 'Invalid block number specified');
    expect(internalLogLines(node)).toEqual([]);
  });
});
