/**
 * Block-explorer, pool and web-wallet reads over a real node process (reference-client-methods.md:
 * `getblockcount`, `blockheight`, `getbestblockhash`, `getblock`, `getfullblock`, `getlastblocks`,
 * `activity`, `gettotalbalance`, `walletlist`, `supply`, `listwallets`, `minerstats`,
 * `setBlockSelectionAlgorithm`), GET and POST, with their error rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRpcError, startNode, type NodeProcess } from './harness.js';
import { randomBytes } from 'node:crypto';
import { encodeTransaction } from '../../src/codec/transaction.js';
import { INFINIMINE_ADDRESS } from '../../src/formats/constants.js';
import { fromHex, toHex } from '../../src/formats/bytes.js';
import { encodeClaimData, INFINIMINE } from '../../src/mining/claim.js';
import { targetHashcountPerBlock } from '../../src/mining/difficulty.js';

let node: NodeProcess;
const STRANGER = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';

const expectError = (method: string, params: Record<string, unknown>, code: number, message: string | RegExp, get = false) =>
  expectRpcError(node, method, params, code, message, get);

/** The reference's getblock keys, in order (RegName State Checksum appears on v11+ blocks with name state). */
const REFERENCE_KEYS = [
  'Block Number', 'Version', 'Block Checksum', 'Last Block Checksum', 'Wallet State Checksum', 'RegName State Checksum',
  'Sig freeze Checksum', 'PoW field', 'Timestamp', 'Difficulty', 'Hashrate', 'Compacted Sigs', 'Signature count',
  'Required Signature count', 'Total Signer Difficulty', 'Required Signer Difficulty', 'Transaction count',
  'Transaction amount', 'Total fees', 'Signatures', 'Sig Checksum', 'Signer Bits', 'TX IDs', 'Last Superblock',
  'Last Superblock checksum',
];

beforeAll(async () => {
  node = await startNode();
  await node.waitForHeight(12);
});
afterAll(async () => {
  await node?.stop();
});

describe('block reads', () => {
  it('getblockcount and blockheight: the tip height as a JSON number, GET and POST', async () => {
    for (const get of [false, true]) {
      const before = await node.height();
      const n = await node.call('getblockcount', {}, { get });
      expect(typeof n).toBe('number');
      expect(n).toBeGreaterThanOrEqual(before);
      const h = await node.call('blockheight', {}, { get });
      expect(typeof h).toBe('number');
      expect(h).toBeGreaterThanOrEqual(n);
    }
  });

  it('getbestblockhash: the hex checksum of a block at the tip', async () => {
    const before = await node.height();
    const hash = await node.call<string>('getbestblockhash', {}, { get: true });
    const after = await node.height();
    expect(hash).toMatch(/^[0-9a-f]{128}$/);
    // POST gives the same shape.
    expect(await node.call<string>('getbestblockhash')).toMatch(/^[0-9a-f]{128}$/);
    const candidates: string[] = [];
    for (let n = before; n <= after; n++) candidates.push((await node.call('getblock', { num: n }))['Block Checksum']);
    expect(candidates).toContain(hash);
  });

  it('getblock: exactly the reference dictionary, keys in order, string values, JSON-text Signatures and TX IDs', async () => {
    for (const get of [false, true]) {
      const b = await node.call<Record<string, unknown>>('getblock', { num: 3 }, { get });
      const keys = Object.keys(b);
      // Only the reference's keys (RegName State Checksum only when the block has name state).
      expect(keys).toEqual(REFERENCE_KEYS.filter((k) => k in b));
      expect(keys.length).toBeGreaterThanOrEqual(REFERENCE_KEYS.length - 1);
      for (const k of keys) expect(typeof b[k], k).toBe('string');
      expect(b['Block Number']).toBe('3');
      expect(b.Version).toMatch(/^\d+$/);
      expect(b['PoW field']).toBe('null');
      expect(b['Compacted Sigs']).toBe('False'); // .NET's Boolean.ToString()
      expect(b['Signature count']).toBe('1');
      expect(Number(b['Required Signature count'])).toBeGreaterThanOrEqual(1);
      expect(b['Total Signer Difficulty']).toMatch(/^\d+\.\d{8}$/);
      expect(b['Required Signer Difficulty']).toMatch(/^\d+\.\d{8}$/);
      expect(b['Transaction amount']).toMatch(/^\d+\.\d{8}$/);
      expect(b['Total fees']).toMatch(/^\d+\.\d{8}$/);
      // Hashes per solution of the difficulty ÷ 60 (MiningUtils); the signer bits as 8 little-endian bytes in hex.
      expect(b.Hashrate).toBe(String(targetHashcountPerBlock(BigInt(b.Difficulty as string)) / 60n));
      expect(b['Signer Bits']).toBe('0000000000000000');
      // The reference's BlockSignature objects (Newtonsoft): a stored block's entries have blockNum 0 and blockHash null.
      const sigs = JSON.parse(b.Signatures as string) as Record<string, any>[];
      expect(sigs).toHaveLength(1);
      expect(Object.keys(sigs[0]!)).toEqual(['blockNum', 'blockHash', 'signature', 'recipientPubKeyOrAddress', 'powSolution']);
      expect(sigs[0]).toMatchObject({ blockNum: 0, blockHash: null, signature: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/), powSolution: null });
      expect(sigs[0]!.recipientPubKeyOrAddress.base58Address).toBe(node.address);
      expect((JSON.parse(b['TX IDs'] as string) as string[]).length).toBe(Number(b['Transaction count']));
      expect(b['Sig Checksum']).toMatch(/^[0-9a-f]{128}$/);
      expect(b['Last Superblock']).toBe('0');
      expect(b['Last Superblock checksum']).toBe('null');
    }
    const prev = await node.call('getblock', { num: 2 });
    expect((await node.call('getblock', { num: 3 }))['Last Block Checksum']).toBe(prev['Block Checksum']);
    const first = await node.call('getblock', { num: 1 });
    expect(first['Signer Bits']).toBe('ffffffffffffff39'); // maxTargetBits, little-endian
    expect(first['Last Block Checksum']).toBe('null');
    expect(first['Sig freeze Checksum']).toBe('null');
    expect(await node.call<string>('getblock', { num: 1, bytes: '1' }, { get: true })).toMatch(/^[0-9a-f]+$/);
    await expectError('getblock', {}, -32602, "Parameter 'num' is missing", true);
    await expectError('getblock', { num: 0 }, -32602, /num/);
    // The reference's message, as getfullblock's (explorers walking the chain stop on it).
    await expectError('getblock', { num: 10_000_000 }, -32602, 'Block not found.');
    await expectError('getblock', { num: 10_000_000, bytes: 1 }, -32602, 'Block not found.');
  });

  it('getfullblock: the dictionary plus Transactions and Superblock segments (JSON text); num 0 or absent is block 0: "Block not found." as the reference', async () => {
    const b = await node.call<Record<string, string>>('getfullblock', { num: 1 }, { get: true });
    expect(Object.keys(b).slice(-2)).toEqual(['Transactions', 'Superblock segments']);
    const txs = JSON.parse(b.Transactions!) as Record<string, unknown>[];
    expect(txs.map((t) => t.id)).toEqual(JSON.parse(b['TX IDs']!));
    // The genesis transaction in the reference's shape: from InfiniMine, signed by the node.
    expect(txs[0]).toMatchObject({ type: '3', pubKey: INFINIMINE_ADDRESS, from: { '1': '1000000.00000000' }, to: { [node.address]: '1000000.00000000' }, fee: '0.00000000' });
    expect(txs[0]!.signature).toMatch(/^[0-9a-f]{1024}$/);
    expect(await node.call('getTransaction', { id: txs[0]!.id }, { get: true })).toMatchObject({ pubKey: INFINIMINE_ADDRESS, signature: txs[0]!.signature });
    expect(JSON.parse(b['Superblock segments']!)).toEqual({});
    // The reference reads an absent num as 0 (APIServer.cs onGetFullBlock), and no chain has block 0.
    await expectError('getfullblock', {}, -32602, 'Block not found.');
    await expectError('getfullblock', {}, -32602, 'Block not found.', true);
    await expectError('getfullblock', { num: 0 }, -32602, 'Block not found.', true);
    await expectError('getfullblock', { num: 10_000_000 }, -32602, 'Block not found.');
    await expectError('getfullblock', { num: 'x' }, -32602, /num/, true);
  });

  it("getfullblock / getBlock as Ixian-Explorer walks them: block n's Sig freeze Checksum is block n−5's Sig Checksum (else the explorer rolls n−5 back and never stores n)", async () => {
    // include/ixian.php addBlock (getfullblock in ProjectIxian's, getBlock in ixian-platform's):
    // strcmp(stored sigChecksum of n−5, "Sig freeze Checksum" of n) !== 0 → rollback, return false.
    for (const method of ['getfullblock', 'getBlock']) {
      for (let n = 6; n <= 12; n++) {
        const frozen = await node.call<Record<string, string>>(method, { num: String(n - 5) }, { get: true });
        const block = await node.call<Record<string, string>>(method, { num: String(n) }, { get: true });
        expect(block['Sig freeze Checksum'], `${method} ${n}`).toBe(frozen['Sig Checksum']);
      }
    }
  });

  it('getlastblocks: the last 10 dictionaries, the tip first', async () => {
    for (const get of [false, true]) {
      const list = await node.call<Record<string, string>[]>('getlastblocks', {}, { get });
      expect(list).toHaveLength(10);
      const nums = list.map((b) => Number(b['Block Number']));
      for (let i = 1; i < nums.length; i++) expect(nums[i]).toBe(nums[i - 1]! - 1);
      expect(list[1]!['Block Checksum']).toBe(list[0]!['Last Block Checksum']);
    }
  });
});

describe('wallet reads', () => {
  it('listwallets, supply, walletlist, gettotalbalance', async () => {
    expect(await node.call('listwallets', {}, { get: true })).toEqual([node.address]);
    expect(await node.call('listwallets')).toEqual([node.address]);
    const supply = await node.call<string>('supply');
    expect(supply).toMatch(/^\d+\.\d{8}$/);
    expect(await node.call<string>('supply', {}, { get: true })).toMatch(/^\d+\.\d{8}$/);
    expect((await node.call<Record<string, string>[]>('walletlist')).map((w) => w.id)).toContain(node.address);
    const list = await node.call<Record<string, string>[]>('walletlist', {}, { get: true });
    const mine = list.find((w) => w.id === node.address);
    expect(Object.keys(mine!)).toEqual(['id', 'balance', 'type', 'requiredSigs', 'allowedSigners', 'extraData', 'publicKey']);
    expect(mine!.type).toBe('Normal');
    expect(await node.call('gettotalbalance', {}, { get: true })).toMatch(/^\d+\.\d{8}$/);
    expect(await node.call('gettotalbalance', { wallet: node.address })).toMatch(/^\d+\.\d{8}$/);
    await expectError('gettotalbalance', { wallet: STRANGER }, -32602, /^Unknown wallet/);
  });

  it('a payout with more than 8 decimals arrives truncated to 8; one that truncates to 0 is refused', async () => {
    const tx = await node.call('addTransaction', { to: `${STRANGER}_0.023337339174081` });
    expect(tx.to).toEqual({ [STRANGER]: '0.02333733' });
    expect(tx.amount).toBe('0.02333733');
    await expectError('addTransaction', { to: `${STRANGER}_0.000000001` }, -32602, /must be greater than 0/);
    // gettotalbalance counts the pending spend: balance − amount − fee.
    const total = await node.call<string>('gettotalbalance');
    const balance = await node.call<string>('getBalance', { address: node.address });
    expect(Number(total)).toBeLessThan(Number(balance));
    // activity: the send is pending, then final in a block.
    // activity: the send is pending (status 1, block 0) until a block applies it (status 2).
    const first = await node.waitFor(async () => {
      const a = await node.call<Record<string, unknown>[]>('activity', { type: 101 }, { get: true });
      return a.find((r) => r.txid === tx.id);
    }, 'the payment in activity');
    expect(first).toMatchObject({ txid: tx.id, type: 101, value: '0.02333733', from: node.address, wallet: node.address });
    expect(first.status === 1 ? first.blockHeight : 'final').toBe(first.status === 1 ? 0 : 'final');
    expect(Object.keys(first)).toEqual(['seedHash', 'wallet', 'from', 'toList', 'type', 'data', 'value', 'timestamp', 'status', 'blockHeight', 'txid']);
    const final = await node.waitFor(async () => {
      const a = await node.call<Record<string, unknown>[]>('activity', { type: 101, descending: 'true' });
      return a[0]?.status === 2 ? a[0] : undefined;
    }, 'the payment applied');
    expect(final).toMatchObject({ txid: tx.id, toList: { [STRANGER]: '0.02333733' } });
    expect(final.blockHeight as number).toBeGreaterThan(1);
  });

  it('activity: the genesis funds are a final received record at block 1; paging, order and type filter', async () => {
    const asc = await node.call<Record<string, unknown>[]>('activity', { descending: 'false', count: 1 }, { get: true });
    expect(asc[0]).toMatchObject({ type: 100, status: 2, blockHeight: 1, wallet: node.address, from: '' });
    // Without `descending` the reference lists oldest first; only exactly 'true' reverses it (GenericAPIServer onActivity).
    expect((await node.call<Record<string, unknown>[]>('activity', { count: 1 }, { get: true }))[0]).toEqual(asc[0]);
    expect((await node.call<Record<string, unknown>[]>('activity', { count: 1, descending: 'true' }))[0]?.blockHeight).not.toBe(1);
    const all = await node.call<Record<string, unknown>[]>('activity', { count: 1000 });
    const second = await node.call<Record<string, unknown>[]>('activity', { fromIndex: 1, count: 1 });
    expect(second[0]?.txid).toBe(all[1]?.txid);
    for (const a of all) expect([100, 101, 200, 201, 202]).toContain(a.type);
    expect(await node.call('activity', { type: 200 })).toEqual([]);
    await expectError('activity', { count: -1 }, -32602, /count/);
    await expectError('activity', { wallet: STRANGER }, -32602, /^Unknown wallet/, true);
  });
});

describe('miner', () => {
  it('minerstats: the reference members; setBlockSelectionAlgorithm changes the search mode', async () => {
    const s = await node.call<Record<string, unknown>>('minerstats', {}, { get: true });
    expect(Object.keys(s)).toEqual([
      'Hashrate', 'Search Mode', 'Current Block', 'Current Difficulty', 'Solved Blocks (Local)', 'Solved Blocks (Network)',
      'Empty Blocks', 'Last Solved Block', 'Last Solved Block Time',
    ]);
    expect(s['Solved Blocks (Network)']).toBe(0);
    expect(s['Last Solved Block Time']).toBe('Never');
    expect(s['Empty Blocks'] as number).toBeGreaterThanOrEqual(12);
    expect(await node.call('setBlockSelectionAlgorithm', { algorithm: '-1' }, { get: true })).toBe('');
    // The reference's pause leaves the search mode, which Search Mode keeps showing.
    expect((await node.call('minerstats'))['Search Mode']).toBe('lowestDifficulty');
    expect(await node.call('setBlockSelectionAlgorithm', { algorithm: '2' })).toBe('');
    expect((await node.call('minerstats'))['Search Mode']).toBe('latestBlock');
    await expectError('setBlockSelectionAlgorithm', { algorithm: '4' }, -32602, 'Invalid algorithm was specified');
    await expectError('setBlockSelectionAlgorithm', { algorithm: 'x' }, -32602, 'Invalid algorithm was specified', true);
    await expectError('setBlockSelectionAlgorithm', {}, -32602, "Parameter 'algorithm' is missing");
    // A JSON client sends the integer as a JSON number (DESIGN decision 1), the reference's own wording kept for a bad one.
    expect(await node.call('setBlockSelectionAlgorithm', { algorithm: 0 })).toBe('');
    expect((await node.call('minerstats'))['Search Mode']).toBe('lowestDifficulty');
    await expectError('setBlockSelectionAlgorithm', { algorithm: 4 }, -32602, 'Invalid algorithm was specified');
    await expectError('setBlockSelectionAlgorithm', { algorithm: 1.5 }, -32602, 'Invalid algorithm was specified');
  });

  it('getminingblock: algo as a miner sends it (GET text, POST number), the latest unsolved block by default; a bad algo refused as the reference does', async () => {
    const tip = await node.call<number>('getblockcount');
    const bare = await node.call<{ num: number }>('getminingblock', {}, { get: true });
    expect(bare.num).toBeGreaterThanOrEqual(tip);
    expect((await node.call<{ num: number }>('getminingblock', { algo: 2 })).num).toBeGreaterThanOrEqual(tip);
    expect(Object.keys(await node.call('getminingblock', { algo: '0' }, { get: true }))).toEqual(['num', 'ver', 'dif', 'chk', 'adr']);
    for (const algo of ['4', '-1', 'x']) await expectError('getminingblock', { algo }, -32602, 'Invalid algorithm was specified', true);
    await expectError('getminingblock', { algo: 9 }, -32602, 'Invalid algorithm was specified');
  });

  it('forged mining claims sent with sendRawTransaction are refused for their signature (checked before any Argon2); status answers meanwhile', async () => {
    const pubKey = fromHex(await node.call<string>('myPubKey'));
    const height = BigInt(await node.call<number>('getblockcount'));
    // Claims for block 2 whose nonce does not solve it, each with a garbage signature.
    const raw = (i: number): string =>
      toHex(encodeTransaction({
        version: 7, type: 1, blockHeight: height, nonce: i, pubKey, signature: randomBytes(512), applied: 0n, timestamp: 0n,
        inputs: [{ key: Uint8Array.of(0), amount: 0n }],
        outputs: [{ address: INFINIMINE, amount: 0n, data: encodeClaimData({ blockNum: 2n, nonce: Uint8Array.of(1, 2, i & 0xff, i >> 8) }) }],
      }));
    const claims = Array.from({ length: 300 }, (_, i) => node.rpc('sendRawTransaction', { transaction: raw(i) }));
    const statuses = Array.from({ length: 5 }, () => node.call<Record<string, unknown>>('status'));
    for (const r of await Promise.all(claims)) expect(r.error?.message).toMatch(/signature does not verify$/);
    for (const s of await Promise.all(statuses)) expect(s['DLT Status']).toBe('Active');
    const pending = await node.call<Record<string, { type: string }>>('txu');
    expect(Object.values(pending).filter((t) => t.type === '1')).toEqual([]);
  });

  it('submitminingsolution: false for a nonce that does not solve; the reference error rows', async () => {
    expect(await node.call('submitminingsolution', { nonce: '0102', blocknum: 2 }, { get: true })).toBe(false);
    expect(await node.call('submitminingsolution', { nonce: '0102', blocknum: 2 })).toBe(false);
    await expectError('submitminingsolution', { blocknum: 2 }, -32602, "Parameter 'nonce' is missing");
    await expectError('submitminingsolution', { nonce: '01' }, -32602, "Parameter 'blocknum' is missing", true);
    await expectError('submitminingsolution', { nonce: 'ab'.repeat(65), blocknum: 2 }, -32602, 'Invalid nonce was specified');
    await expectError('submitminingsolution', { nonce: '0102', blocknum: 10_000_000 }, -32602, 'Invalid block number specified');
    await expectError('submitminingsolution', { nonce: 'xyz', blocknum: 2 }, -32602, /nonce/);
  });
});
