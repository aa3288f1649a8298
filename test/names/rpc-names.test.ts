// The name operations of the RPC table against a real in-process node (reg network, scaled name
// month = 10 blocks, grace = 5 blocks; blocks produced on demand).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNode, type DltNode } from '../../src/node/node.js';
import type { Logger } from '../../src/log/logger.js';
import type { NodeModules } from '../../src/node/modules.js';
import { validateParams } from '../../src/rpc/dispatch.js';
import { nameMethods } from '../../src/rpc/methods/names.js';
import { statusMethods } from '../../src/rpc/methods/status.js';
import { nameStateChecksum } from '../../src/names/block-rules.js';
import { decryptRecordValue, encryptRecordValue, recordValueNonce } from '../../src/names/record-crypto.js';
import { recordKeyId } from '../../src/names/id.js';
import { decodeNameRecord } from '../../src/names/name-record.js';
import { NameOp } from '../../src/names/payloads.js';
import { signingDigest } from '../../src/names/rules.js';
import { checksumLockBytes } from '../../src/formats/constants.js';
import type { DataRecord } from '../../src/names/data-record.js';
import { fromHex } from '../../src/formats/bytes.js';
import { decodeDataRecord } from '../../src/names/data-record.js';
import { NAME_REWARD_POOL_ADDRESS } from '../../src/formats/constants.js';
import { toRpcError } from '../../src/rpc/errors.js';
import { Address } from '../../src/formats/address.js';
import { sign } from 'node:crypto';
import { newKey } from '../e2e/own-codec.js';

const silent: Logger = { info() {}, warn: (o: unknown, m?: string) => console.warn(m, JSON.stringify(o, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))), error: (o: unknown) => console.error(o), debug() {}, child: () => silent };
const dir = mkdtempSync(join(tmpdir(), 'names-rpc-'));
let node: DltNode;
let ctx: NodeModules;
const MONTH = 10;

const call = async (name: string, params: Record<string, unknown>): Promise<any> => {
  const m = nameMethods.find((d) => d.name === name)!;
  // The server's own validation (defaults, required parameters, coercion), then the handler.
  return m.handler(validateParams(m, params), ctx);
};
const block = () => ctx.consensus.producer.produce();

beforeAll(async () => {
  node = await createNode(
    {
      network: 'reg',
      dataDir: dir,
      chain: { genesisBalance: 10n ** 15n },
      consensus: { blockIntervalSeconds: 3600 },
      pool: { threads: 0 },
      names: { monthBlocks: MONTH, graceBlocks: 5 },
    },
    silent,
  );
  ctx = node.modules;
}, 60_000);
afterAll(async () => {
  await node?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('name RPC operations on a running node', () => {
  it('registers, reads, adds and removes records, extends, changes capacity, transfers and recovers', async () => {
    const tx = await call('registerName', { name: 'example', registrationTime: 6 * MONTH, capacity: 10 });
    expect(tx.type).toBe('4');
    expect(tx.amount).toBe('30000.00000000');
    expect(Object.keys(tx.to)).toEqual([NAME_REWARD_POOL_ADDRESS]);
    await expect(call('getRegName', { name: 'example' })).rejects.toThrow(/does not exist/);
    await block();
    const reg = await call('getRegName', { name: 'example' });
    expect(reg).toMatchObject({ capacity: 10, sequence: '0', nextPkHash: ctx.wallet.primary.primaryText });
    await expect(call('registerName', { name: 'example', registrationTime: 6 * MONTH, capacity: 10 })).rejects.toThrow(/already registered/);
    await expect(call('registerName', { name: 'other', registrationTime: 6 * MONTH + 1, capacity: 10 })).rejects.toThrow(/multiple of 10/);
    await expect(call('registerName', { name: 'other', registrationTime: 6 * MONTH, capacity: 5 })).rejects.toThrow(/at least 10 kB/);

    const upd = await call('updateNameRecord', { name: 'example', 'records[]': ['www,1,hello, world', 'mail,2,m@example'] });
    expect(upd.amount).toBe('0.00000000');
    await block();
    let records = await call('getRegNameDataRecords', { name: 'example' });
    expect(records.map((r: { type: number }) => r.type)).toEqual([1, 2]);
    const raw = await call('getRegNameDataRecords', { name: 'example', asBytes: true });
    const www = decodeDataRecord(fromHex(raw[0]));
    expect(Buffer.from(decryptRecordValue('example', 'www', www.data!)!).toString()).toBe('hello, world');

    await call('updateNameRecord', { name: 'example', 'records[]': ['mail,2,null'] });
    await block();
    records = await call('getRegNameDataRecords', { name: 'example' });
    expect(records).toHaveLength(1);
    await expect(call('updateNameRecord', { name: 'example', 'records[]': ['nope,2,null'] })).rejects.toThrow(/no record with key/);
    await expect(call('updateNameRecord', { name: 'example' })).rejects.toThrow("Missing parameter 'records[]'");

    const ext = await call('extendName', { name: 'example', extensionTime: 6 * MONTH });
    expect(ext.amount).toBe('30000.00000000');
    await block();
    const cap = await call('updateNameCapacity', { name: 'example', newCapacity: 20 });
    expect(BigInt(cap.amount.replace('.', ''))).toBeGreaterThan(0n);
    await block();
    expect((await call('getRegName', { name: 'example' })).capacity).toBe(20);

    // Transfer to an address this node has no key for; then recover with the node's recovery key.
    const stranger = '4iMKArchGjmLsZFsj2tYrBgPjjypvEwquB2pnbEvYAyihSeEi1FN5XBsWru2iKDXK';
    await call('updateNameCapacity', { name: 'example', newCapacity: 20, nextPkHash: stranger });
    await block();
    expect((await call('getRegName', { name: 'example' })).nextPkHash).toBe(stranger);
    await expect(call('updateNameRecord', { name: 'example', 'records[]': ['a,1,b'] })).rejects.toThrow(/does not hold the owner key/);
    await call('recoverName', { name: 'example' });
    await block();
    const rec = await call('getRegName', { name: 'example' });
    expect(rec.nextPkHash).toBe(ctx.wallet.primary.primaryText);
    expect(rec.sequence).toBe('5');
    expect(await call('getRegName', { id: rec.id, asBytes: true })).toMatch(/^01/);
  });
  it('refuses a second operation on a name while one is pending, then accepts one once it is applied', async () => {
    const pendingOf = (id: string) => ({ code: -32602, message: expect.stringMatching(new RegExp(`pending transaction ${id}; wait for it to be applied`)) });
    const reg = await call('registerName', { name: 'münchen', registrationTime: 6 * MONTH, capacity: 10 });
    // The same name id under other spellings, and an update of the name not registered yet.
    for (const name of ['münchen', 'MÜNCHEN', 'xn--mnchen-3ya']) {
      await expect(call('registerName', { name, registrationTime: 6 * MONTH, capacity: 10 })).rejects.toMatchObject(pendingOf(reg.id));
    }
    await expect(call('updateNameRecord', { name: 'münchen', 'records[]': ['k,1,a'] })).rejects.toMatchObject(pendingOf(reg.id));
    await call('registerName', { name: 'other-name', registrationTime: 6 * MONTH, capacity: 10 }); // another name is not held up
    await block();

    const upd = await call('updateNameRecord', { name: 'münchen', 'records[]': ['k,1,a'] });
    await expect(call('updateNameRecord', { name: 'münchen', 'records[]': ['j,1,b'] })).rejects.toMatchObject(pendingOf(upd.id));
    await expect(call('extendName', { name: 'münchen', extensionTime: 6 * MONTH })).rejects.toMatchObject(pendingOf(upd.id));
    await block();
    await call('updateNameRecord', { name: 'münchen', 'records[]': ['j,1,b'] });
    await block();
    expect(await call('getRegNameDataRecords', { name: 'münchen' })).toHaveLength(2);

    // Two calls at once: the second is refused while the first is being admitted.
    const both = await Promise.allSettled([
      call('updateNameRecord', { name: 'münchen', 'records[]': ['x,1,a'] }),
      call('updateNameRecord', { name: 'münchen', 'records[]': ['y,1,a'] }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(both.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: -32602, message: expect.stringMatching(/wait for it to be applied/) } });
    await block();
    expect(await call('getRegNameDataRecords', { name: 'münchen' })).toHaveLength(3);
  });
  it('refuses one update that names a record key twice', async () => {
    await call('registerName', { name: 'twice', registrationTime: 6 * MONTH, capacity: 10 });
    await block();
    for (const pair of [['k,1,a', 'k,1,b'], ['k,1,a', 'K,2,b']]) {
      await expect(call('updateNameRecord', { name: 'twice', 'records[]': pair })).rejects.toMatchObject({ code: -32602, message: 'Invalid records[] entry 1: record key "' + pair[1]![0] + '" appears twice in one update' });
    }
    await call('updateNameRecord', { name: 'twice', 'records[]': ['k,1,a', 'j,1,b'] });
    await block();
    expect(await call('getRegNameDataRecords', { name: 'twice' })).toHaveLength(2);
    // Replacing a stored key once per call still works.
    await call('updateNameRecord', { name: 'twice', 'records[]': ['k,1,c'] });
    await block();
    expect(await call('getRegNameDataRecords', { name: 'twice' })).toHaveLength(2);
  });
  it('refuses a record update whose transaction would pass the 512,000-byte limit with -32602 (was -32603 internal error); nothing is charged', async () => {
    // A capacity above 500 kB lets records exceed one transaction's size (reference-formats: 512,000 bytes).
    await call('registerName', { name: 'bulky', registrationTime: 6 * MONTH, capacity: 600 });
    await block();
    const balance = ctx.chain.wallet(ctx.wallet.primary.primary).balance;
    const pending = ctx.mempool.size;
    const err = await call('updateNameRecord', { name: 'bulky', 'records[]': [`big,1,${'v'.repeat(520_000)}`] }).then(() => null, (e: unknown) => e);
    expect(toRpcError(err)).toMatchObject({ code: -32602, message: expect.stringMatching(/^The transaction would have 5\d{5} bytes; a transaction has at most 512,000 bytes$/) });
    expect(ctx.mempool.size).toBe(pending);
    expect(ctx.chain.wallet(ctx.wallet.primary.primary).balance).toBe(balance);
    // Just under the limit the same update goes through.
    await call('updateNameRecord', { name: 'bulky', 'records[]': [`big,1,${'v'.repeat(500_000)}`] });
    await block();
    expect(await call('getRegNameDataRecords', { name: 'bulky' })).toHaveLength(1);
  });
  it("accepts updateNameRecord signed by the caller (sig, sigPk): the values' ciphertexts, hence the signed digest, are computable in advance", async () => {
    await call('registerName', { name: 'Signed', registrationTime: 6 * MONTH, capacity: 10 });
    await block();
    await call('updateNameRecord', { name: 'Signed', 'records[]': ['old,1,before'] });
    await block();
    // What a caller holding the owner key does: read the name as bytes, build the proposed update
    // (README "Names": nonce = recordValueNonce(name, key, value, sequence)), sign its digest.
    const lock = checksumLockBytes('reg');
    const header = decodeNameRecord(fromHex(await call('getRegName', { name: 'Signed', asBytes: true })));
    header.dataRecords = (await call('getRegNameDataRecords', { name: 'Signed', asBytes: true })).map((h: string) => decodeDataRecord(fromHex(h)));
    const sequence = header.sequence + 1n;
    const value = (key: string, text: string) => encryptRecordValue('Signed', key, text, recordValueNonce('Signed', key, text, sequence));
    const records: DataRecord[] = [
      { key: recordKeyId(header.id, 'old', lock), ttl: 3, data: value('old', 'after'), checksum: header.dataRecords[0]!.checksum },
      { key: recordKeyId(header.id, 'new', lock), ttl: 2, data: value('new', 'hello, world'), checksum: null },
    ];
    const owner = ctx.wallet.primary;
    const proposed = { op: NameOp.UpdateRecord, id: header.id, records, sequence, nextPkHash: owner.primary, sigPk: owner.publicKey, sig: new Uint8Array(0) } as const;
    const sig = Buffer.from(owner.sign(signingDigest(header, proposed))).toString('base64');
    await call('updateNameRecord', { name: 'Signed', 'records[]': ['old,3,after', 'new,2,hello, world'], sig, sigPk: Buffer.from(owner.publicKey).toString('hex') });
    await block();
    const stored = (await call('getRegNameDataRecords', { name: 'Signed', asBytes: true })).map((h: string) => decodeDataRecord(fromHex(h)));
    expect(stored.map((r: DataRecord) => Buffer.from(decryptRecordValue('Signed', r.ttl === 3 ? 'old' : 'new', r.data!)!).toString())).toEqual(['after', 'hello, world']);
  });
  it("status vv 'RN Checksum' is the checksum of the whole name state, as the reference's calculateRegNameStateChecksum(0), not the last header's per-block one", async () => {
    await call('registerName', { name: 'checksummed', registrationTime: 6 * MONTH, capacity: 10 });
    await block();
    await block(); // a block that touches no name: its header's name checksum is 64 zero bytes
    const m = statusMethods.find((d) => d.name === 'status')!;
    const status = (await m.handler(validateParams(m, { vv: true }), ctx as never)) as Record<string, unknown>;
    const whole = Buffer.from(nameStateChecksum(ctx.names.state, 0n, [])).toString('hex');
    expect(whole).not.toBe('0'.repeat(128));
    expect(status['RN Checksum']).toBe(whole);
  });
  it("getRegName, getRegNameDataRecords and status 'Names' read the tip's state: a name stays readable and counted through tip = expiration + grace, and all say it is gone at the next block (the reference removes it at the start of block E + grace + 1)", async () => {
    const statusM = statusMethods.find((d) => d.name === 'status')!;
    const count = async () => ((await statusM.handler(validateParams(statusM, { verbose: true }) as never, ctx as never)) as Record<string, any>).Names as number;
    // Every name status counts is one getRegName reads, and the reverse.
    const readable = async () => {
      let n = 0;
      for (const r of ctx.names.state.all()) if (await call('getRegName', { id: Buffer.from(r.id).toString('hex') }).then(() => true, () => false)) n++;
      return n;
    };
    await call('registerName', { name: 'edge', registrationTime: 6 * MONTH, capacity: 10 });
    await block();
    const E = BigInt((await call('getRegName', { name: 'edge' })).expirationBlockHeight);
    const G = 5n;
    for (let i = 0; i < 200 && ctx.chain.height < E + G; i++) await block();
    expect(ctx.chain.height).toBe(E + G);
    expect((await call('getRegName', { name: 'edge' })).expirationBlockHeight).toBe(E.toString());
    expect(await call('getRegNameDataRecords', { name: 'edge' })).toEqual([]);
    expect(await readable()).toBe(await count());
    // An operation would enter the block that removes the name: refused, saying so.
    await expect(call('extendName', { name: 'edge', extensionTime: 6 * MONTH })).rejects.toThrow(new RegExp(`expired at block ${E} and block ${E + G + 1n} removes it`));
    await expect(call('updateNameRecord', { name: 'edge', 'records[]': ['a,1,b'] })).rejects.toThrow(/removes it before any transaction/);
    await block();
    expect(await readable()).toBe(await count());
    await expect(call('getRegName', { name: 'edge' })).rejects.toThrow(/does not exist/);
    await expect(call('getRegNameDataRecords', { name: 'edge' })).rejects.toThrow(/does not exist/);
  });
  it('registers a name again at tip = expiration + grace (the next block removes the old one first), exactly once; an operation on it meanwhile names the pending registration', async () => {
    await call('registerName', { name: 'again', registrationTime: 6 * MONTH, capacity: 10 });
    await block();
    const E = BigInt((await call('getRegName', { name: 'again' })).expirationBlockHeight);
    for (let i = 0; i < 200 && ctx.chain.height < E + 5n; i++) await block();
    expect(ctx.chain.height).toBe(E + 5n);
    const tx = await call('registerName', { name: 'again', registrationTime: 6 * MONTH, capacity: 20 });
    await expect(call('extendName', { name: 'again', extensionTime: 6 * MONTH })).rejects.toThrow(`has a pending transaction ${tx.id}`);
    await block();
    expect(await call('getRegName', { name: 'again' })).toMatchObject({ registrationBlockHeight: (E + 6n).toString(), capacity: 20, sequence: '0' });
    expect(ctx.mempool.size).toBe(0);
  });
  it('refuses names the reference cannot map (an xn-- label that is not punycode, @ in a non-ASCII label) with -32602 and submits nothing; @ in an ASCII label is a name', async () => {
    const pending = ctx.mempool.size;
    for (const name of ['xn--zz', 'b@ü']) {
      for (const [m, extra] of [['registerName', { registrationTime: 6 * MONTH, capacity: 10 }], ['getRegName', {}]] as const) {
        const err = await call(m, { name, ...extra }).then(() => null, (e: unknown) => toRpcError(e));
        expect(err, `${m} ${name}`).toMatchObject({ code: -32602, message: expect.stringMatching(/^Invalid name .*(not valid punycode|ASCII labels only)/) });
      }
    }
    expect(ctx.mempool.size).toBe(pending);
    await call('registerName', { name: 'a@b c', registrationTime: 6 * MONTH, capacity: 10 });
    await block();
    expect((await call('getRegName', { name: 'A@B C' })).capacity).toBe(10);
  });
  it("refuses one of the wallet's derived addresses as owner or recovery address with -32602 naming the primary address (no key signs for a derived address, §5.2), and submits nothing", async () => {
    const derived = new Address(ctx.wallet.newAddress()).base58Address;
    const primary = ctx.wallet.primary.primaryText;
    const pending = ctx.mempool.size;
    const refused = async (m: string, params: Record<string, unknown>) => {
      const err = await call(m, params).then(() => null, (e: unknown) => toRpcError(e));
      expect(err, m).toMatchObject({ code: -32602, message: expect.stringContaining(`is an address derived from this node's key ${primary}`) });
    };
    await refused('registerName', { name: 'derived', registrationTime: 6 * MONTH, capacity: 10, pkHash: derived });
    await refused('registerName', { name: 'derived', registrationTime: 6 * MONTH, capacity: 10, recoveryHash: derived });
    await call('registerName', { name: 'derived', registrationTime: 6 * MONTH, capacity: 10 });
    await block();
    await refused('updateNameRecord', { name: 'derived', 'records[]': ['a,1,b'], nextPkHash: derived });
    await refused('updateNameCapacity', { name: 'derived', newCapacity: 10, nextPkHash: derived });
    await refused('recoverName', { name: 'derived', nextRecoveryHash: derived });
    expect(ctx.mempool.size).toBe(pending);
    // The primary address itself is taken as before.
    await call('updateNameRecord', { name: 'derived', 'records[]': ['a,1,b'], nextPkHash: primary });
    await block();
    expect((await call('getRegName', { name: 'derived' })).sequence).toBe('1');
  });
  it("a name owned and recoverable by a fresh v2 key (header byte 02) made outside the node: its signed capacity change and recovery apply once; a signature over another owner than the one sent is refused naming the owner it had to cover", async () => {
    const k = newKey(2048, 65537, 2);
    await call('registerName', { name: 'vtwo', registrationTime: 6 * MONTH, capacity: 10, pkHash: k.text, recoveryHash: k.text });
    await block();
    const read = async () => decodeNameRecord(fromHex(await call('getRegName', { name: 'vtwo', asBytes: true })));
    const header = await read();
    expect(Buffer.from(header.nextPkHash).equals(k.address)).toBe(true);
    const sigPk = k.publicKey.toString('hex');
    const proposed = { op: NameOp.ChangeCapacity, id: header.id, newCapacity: 20, sequence: 1n, nextPkHash: new Uint8Array(k.address), sigPk: new Uint8Array(k.publicKey), sig: new Uint8Array(0) } as const;
    const sig = sign('sha512', signingDigest(header, proposed), k.privateKey).toString('base64');
    const pending = ctx.mempool.size;
    // nextPkHash omitted: the node sends its own address, which the signature does not cover.
    await expect(call('updateNameCapacity', { name: 'vtwo', newCapacity: 20, sig, sigPk })).rejects.toThrow(
      `does not verify over the proposed state (sequence 1, owner ${ctx.wallet.primary.primaryText})`,
    );
    expect(ctx.mempool.size).toBe(pending);
    await call('updateNameCapacity', { name: 'vtwo', newCapacity: 20, sig, sigPk, nextPkHash: k.text });
    await block();
    expect(await call('getRegName', { name: 'vtwo' })).toMatchObject({ capacity: 20, sequence: '1', nextPkHash: k.text });
    // The v2 recovery key hands the name to the node; the same signature again is refused.
    const me = ctx.wallet.primary;
    const h1 = await read();
    const recover = { op: NameOp.Recover, id: h1.id, newRecoveryHash: me.primary, sequence: 2n, nextPkHash: me.primary, sigPk: new Uint8Array(k.publicKey), sig: new Uint8Array(0) } as const;
    const rsig = sign('sha512', signingDigest(h1, recover), k.privateKey).toString('base64');
    await call('recoverName', { name: 'vtwo', sig: rsig, sigPk });
    await block();
    expect(await call('getRegName', { name: 'vtwo' })).toMatchObject({ sequence: '2', nextPkHash: me.primaryText, recoveryHash: me.primaryText });
    await expect(call('recoverName', { name: 'vtwo', sig: rsig, sigPk })).rejects.toThrow(/must be signed by the name's recovery address/);
  });
  it('expires names after the grace period and frees them', async () => {
    await call('registerName', { name: 'short', registrationTime: 6 * MONTH, capacity: 10 });
    await block();
    const { expirationBlockHeight } = await call('getRegName', { name: 'short' });
    while (ctx.chain.height <= BigInt(expirationBlockHeight) + 5n) await block();
    await expect(call('getRegName', { name: 'short' })).rejects.toThrow(/does not exist/);
    await call('registerName', { name: 'short', registrationTime: 6 * MONTH, capacity: 10 });
  });
});
