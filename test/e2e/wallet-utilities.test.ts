/**
 * Wallet, Mining and Utilities operations and `status` over a real node process (interface.md
 * "Wallet", "Mining", "Utilities"; reference-rpc-messaging.md §2.6–§2.10), with their error rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { powVerify } from '../../src/core/pow.js';
import { DOCS_VERIFY_MESSAGE, DOCS_VERIFY_PUBLIC_KEY_HEX, DOCS_VERIFY_SIGNATURE_HEX } from '../formats/docs-vectors.js';
import { expectRpcError, startNode, type NodeProcess } from './harness.js';

let node: NodeProcess;
const STRANGER = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';
const INVALID_CHECKSUM = STRANGER.slice(0, -1) + 's';

const expectError = (method: string, params: Record<string, unknown>, code: number, message: string | RegExp, get = false) =>
  expectRpcError(node, method, params, code, message, get);

beforeAll(async () => {
  node = await startNode();
  await node.waitForHeight(2);
});
afterAll(async () => {
  await node?.stop();
});

describe('wallet', () => {
  it('getWallet: the node wallet holds the genesis balance; unknown addresses are empty wallets', async () => {
    const w = await node.call('getWallet', { id: node.address }, { get: true });
    expect(w).toEqual({
      id: node.address, balance: '1000000.00000000', type: 'Normal', requiredSigs: '1', allowedSigners: 'null', extraData: 'null', publicKey: 'null',
    });
    expect(await node.call('getWallet', { id: STRANGER })).toMatchObject({ id: STRANGER, balance: '0.00000000', publicKey: 'null' });
    await expectError('getWallet', {}, -32602, "Parameter 'id' is missing");
    await expectError('getWallet', {}, -32602, "Parameter 'id' is missing", true);
    await expectError('getWallet', { id: INVALID_CHECKSUM }, -32602, 'Invalid address was specified');
    await expectError('getWallet', { id: 'not base58 0OIl' }, -32602, 'Invalid address was specified');
  });

  it('getBalance, myWallet, myPubKey, generateNewAddress', async () => {
    expect(await node.call('getBalance', { address: node.address })).toBe('1000000.00000000');
    await expectError('getBalance', {}, -32602, "Parameter 'address' is missing");
    const fresh = await node.call<string>('generateNewAddress', {}, { get: true });
    expect(await node.call('validateAddress', { address: fresh })).toBe('OK');
    const mine = await node.call<Record<string, string>>('myWallet');
    expect(mine[node.address]).toBe('1000000.00000000');
    expect(mine[fresh]).toBe('0.00000000');
    expect(await node.call<string>('myPubKey')).toMatch(/^[0-9a-f]{1000,}$/);
    await expectError('generateNewAddress', { address: STRANGER }, -32602, /^Unknown wallet/);
  });
});

describe('utilities', () => {
  it('verify: the documentation example is OK; a changed message FAILs', async () => {
    const ok = { publicKey: DOCS_VERIFY_PUBLIC_KEY_HEX, signature: DOCS_VERIFY_SIGNATURE_HEX, message: DOCS_VERIFY_MESSAGE };
    expect(await node.call('verify', ok, { get: true })).toBe('OK');
    expect(await node.call('verify', { ...ok, message: 'tesT' })).toBe('FAIL');
  });

  it('sign and verify round-trip over a message and a hash', async () => {
    const signed = await node.call('sign', { message: 'hello' });
    expect(await node.call('verify', { ...signed, message: 'hello' })).toBe('OK');
    expect(await node.call('verify', { ...signed, message: 'hellO' })).toBe('FAIL');
    const byHash = await node.call('sign', { hash: 'abcdef' });
    expect(await node.call('verify', { ...byHash, hash: 'abcdef' })).toBe('OK');
    expect(await node.call('verify', { ...byHash, hash: 'abcdee' })).toBe('FAIL');
    await expectError('sign', {}, -32602, "Missing parameter 'message' or 'hash'.");
  });

  it('verify error rows', async () => {
    await expectError('verify', { signature: 'ab', message: 'x' }, -32602, "Missing parameter 'publicKey'.");
    await expectError('verify', { signature: 'ab', message: 'x' }, -32602, "Missing parameter 'publicKey'.", true);
    await expectError('verify', { publicKey: 'ab', message: 'x' }, -32602, "Missing parameter 'signature'.");
    await expectError('verify', { publicKey: 'ab', signature: 'ab' }, -32602, "Missing parameter 'message' or 'hash'.");
    await expectError('verify', { publicKey: 'xyz', signature: 'ab', message: 'x' }, -32602, /publicKey/);
    // A key that does not parse is a failed verification, not a crash.
    const r = await node.rpc('verify', { publicKey: 'abcd', signature: 'ab', message: 'x' });
    expect(r.error === null ? r.result : r.error.code).toSatisfy((v: unknown) => v === 'FAIL' || v === -32602);
  });

  it('validateAddress: OK, or -32602 Invalid address was specified', async () => {
    expect(await node.call('validateAddress', { address: node.address }, { get: true })).toBe('OK');
    expect(await node.call('validateAddress', { address: '4qX7Uot9BbweZh56gVeXWRwoe2Wb6vesNJtZJzm672uHUqucsHENe1849Vy5V4mHg' })).toBe('OK');
    for (const address of [INVALID_CHECKSUM, '', 'abc', '0OIl', STRANGER + STRANGER]) {
      await expectError('validateAddress', { address }, -32602, 'Invalid address was specified');
    }
    await expectError('validateAddress', {}, -32602, 'Invalid address was specified');
  });
});

describe('mining', () => {
  it('verifyMiningSolution checks a nonce against the stored block and the node address, as the local PoW check does', async () => {
    const mb = await node.call('getMiningBlock');
    expect(mb).toMatchObject({ ver: 13 });
    const nonce = 'ca82dacd91' + '00'.repeat(27);
    const expected = powVerify({
      blockChecksum: new Uint8Array(Buffer.from(mb.chk, 'base64')),
      solverAddress: new Uint8Array(Buffer.from(mb.adr, 'base64')),
      nonce: new Uint8Array(Buffer.from(nonce, 'hex')),
      difficulty: 18442206887586635022n,
      blockVersion: mb.ver,
    });
    const r = await node.call('verifyMiningSolution', { nonce, blocknum: mb.num, diff: '18442206887586635022' }, { get: true });
    expect(r).toBe(expected);
    expect(typeof r).toBe('boolean');
  });

  it('verifyMiningSolution error rows', async () => {
    await expectError('verifyMiningSolution', { blocknum: 1, diff: 1 }, -32602, "Parameter 'nonce' is missing");
    await expectError('verifyMiningSolution', { blocknum: 1, diff: 1 }, -32602, "Parameter 'nonce' is missing", true);
    await expectError('verifyMiningSolution', { nonce: 'ab', diff: 1 }, -32602, "Parameter 'blocknum' is missing");
    await expectError('verifyMiningSolution', { nonce: 'ab', blocknum: 1 }, -32602, "Parameter 'diff' is missing");
    await expectError('verifyMiningSolution', { nonce: 'ab'.repeat(65), blocknum: 1, diff: 1 }, -32602, 'Invalid nonce was specified');
    await expectError('verifyMiningSolution', { nonce: 'ab', blocknum: 999999, diff: 1 }, -32602, 'Invalid block number specified');
    await expectError('verifyMiningSolution', { nonce: 'zz', blocknum: 1, diff: 1 }, -32602, /nonce/);
    await expectError('verifyMiningSolution', { nonce: 'ab', blocknum: 1, diff: '18446744073709551616' }, -32602, /diff/);
  });
});

describe('status and blocks', () => {
  const BASE = [
    'Core Version', 'Node Version', 'Network type', 'My time', 'Network time difference', 'My External IP', 'My Listening Port',
    'Node Deprecation Block Limit', 'Update', 'DLT Status', 'Core Status', 'Block Processor Status', 'Block Height', 'Block Version',
    'Block Signature Count', 'Block Total Signer Difficulty', 'Block generated seconds ago', 'Network Block Height', 'Node Type',
    'Connectable',
  ];
  const TAIL = ['Blockchain Scanning Active', 'Activity Scanner Last Block', 'Network Clients', 'Network Servers'];
  const VERBOSE = [
    'Required Consensus', 'Signer Difficulty', 'Signer Bits', 'Signer Hashrate', 'Signer Last PoW Solution', 'Signer Active PoW Solution',
    'Wallets', 'Presences', 'Supply', 'Applied TX Count', 'Unapplied TX Count', 'Names', 'Names Reward Pool', 'Masters', 'Relays', 'Clients',
  ];
  const VV = ['Queues', 'WS Checksum', 'RN Checksum'];

  it('plain, verbose and vv carry exactly their members, computed from state', async () => {
    const plain = await node.call('status', {}, { get: true });
    expect(Object.keys(plain)).toEqual([...BASE, ...TAIL]);
    expect(plain).toMatchObject({ 'Network type': 'reg', 'DLT Status': 'Active', 'Core Status': 1, 'Block Processor Status': 'Running', 'Block Version': 13, 'Node Type': 'M' });
    expect(Math.abs(plain['My time'] - Date.now() / 1000)).toBeLessThan(5);
    expect(plain['Network Block Height']).toBe(plain['Block Height']);

    const verbose = await node.call('status', { verbose: true });
    expect(Object.keys(verbose)).toEqual([...BASE, ...VERBOSE, ...TAIL]);
    expect(verbose.Supply).toBe('1000000.00000000');
    // The lone reg node signs alone, without a signer PoW: it mines nothing.
    expect(verbose).toMatchObject({ 'Signer Hashrate': 0, 'Signer Last PoW Solution': {}, 'Signer Active PoW Solution': {}, 'Signer Difficulty': '1.00000000' });
    expect(verbose['Applied TX Count']).toBeGreaterThanOrEqual(1);

    const vv = await node.call('status', { vv: '1' }, { get: true });
    expect(Object.keys(vv)).toEqual([...BASE, ...VERBOSE, ...VV, ...TAIL]);
    expect(vv['WS Checksum']).toMatch(/^[0-9a-f]{128}$/);
    expect(Object.keys(vv.Queues)).toContain('Pending Transactions');

    // GET flag present without a value counts as true (DESIGN.md decision 1)
    const bare = await node.http('/status?verbose');
    expect(Object.keys(JSON.parse(bare.text).result)).toContain('Supply');
  });

  it('the wallet-state checksum changes when a block moves coins', async () => {
    const before = (await node.call('status', { vv: true }))['WS Checksum'];
    const tx = await node.call('addTransaction', { to: `${STRANGER}_1` });
    await node.waitApplied(tx.id);
    expect((await node.call('status', { vv: true }))['WS Checksum']).not.toBe(before);
  });

  it('getBlock links every block to its predecessor', async () => {
    const h = await node.height();
    let next: any;
    for (let n = h; n >= Math.max(1, h - 3); n--) {
      const b = await node.call('getBlock', { num: n });
      expect(b['Block Number']).toBe(String(n));
      if (next) expect(next['Last Block Checksum']).toBe(b['Block Checksum']);
      next = b;
    }
    expect((await node.call('getBlock', { num: 1 }))['Last Block Checksum']).toBe('null');
    expect(await node.call<string>('getBlock', { num: 1, bytes: true })).toMatch(/^[0-9a-f]+$/);
    await expectError('getBlock', { num: h + 1000 }, -32602, /^Block not found\.$/);
    await expectError('getBlock', {}, -32602, "Parameter 'num' is missing");
    await expectError('getBlock', { num: '18446744073709551616' }, -32602, "Parameter 'num' must be at most 18446744073709551615");
  });
});
