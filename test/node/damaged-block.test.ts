/**
 * An older stored block whose bytes changed on disk but still decode is not served as valid
 * (src/chain/chain.ts `servedBlock`): RPC getBlock answers -32006 naming the block, a peer's range
 * request is answered up to the block below it, the damage is logged once and counted. The mining
 * RPCs that hand a block to a miner or pool (getMiningBlock, verifyMiningSolution,
 * submitMiningSolution) refuse it the same way.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeBlock } from '../../src/chain/block.js';
import { encodeVarUint } from '../../src/formats/varint.js';
import { StoredBlockDamagedError } from '../../src/chain/errors.js';
import type { Logger } from '../../src/log/logger.js';
import { NodeNetwork } from '../../src/network/node-network.js';
import { PeerNetwork } from '../../src/network/peer-network.js';
import { MessageCode } from '../../src/network/protocol/codes.js';
import type { Message } from '../../src/network/protocol/messages.js';
import { blockMethods } from '../../src/rpc/methods/blocks.js';
import { miningMethods } from '../../src/rpc/methods/mining.js';
import { miningClaimMethods } from '../../src/rpc/methods/mining-claims.js';
import { toRpcError } from '../../src/rpc/errors.js';
import { validateParams } from '../../src/rpc/dispatch.js';
import { commitBlock, openTestChain, silentLog, type TestChain } from '../chain/fixture.js';
import { makeIdentity, ManualClock, settle, wire } from '../network/helpers.js';
import { addressFromText } from '../../src/formats/address.js';

const STRANGER = addressFromText('4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr');

const open: TestChain[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

/**
 * A chain of 6 blocks whose block 3 had one bit of its header flipped on disk, reopened: its
 * timestamp (the block still decodes, one second off), or with `parentField` a byte of the parent
 * checksum it names.
 */
async function chainWithDamagedBlock3(o: { log?: Logger; parentField?: boolean } = {}): Promise<TestChain> {
  const t = await openTestChain();
  for (let i = 0; i < 5; i++) await commitBlock(t, []);
  const bytes = Buffer.from(t.chain.getBlock(3n)!.bytes);
  // The timestamp (row 7) is a varint of a prefix byte and 4 bytes little-endian: its low byte after the prefix.
  const at = o.parentField ? 20 : bytes.indexOf(Buffer.from(encodeVarUint(t.chain.getBlock(3n)!.block.timestamp)), 67) + 1;
  if (!o.parentField) expect(at).toBeGreaterThan(67);
  const changed = Buffer.from(bytes);
  changed[at]! ^= 0x01;
  const decoded = decodeBlock(changed).block;
  if (!o.parentField) expect(decoded.timestamp).not.toBe(t.chain.getBlock(3n)!.block.timestamp);
  t.mempool.close();
  await t.store.close();
  const file = join(t.dataDir, 'chain', 'data.mdb');
  const data = readFileSync(file);
  const needle = bytes.subarray(0, 80);
  let copies = 0;
  // Every copy (freed pages may hold older ones); bounded.
  for (let found = data.indexOf(needle); found >= 0 && copies < 100; found = data.indexOf(needle, found + 1)) {
    data[found + at]! ^= 0x01;
    copies++;
  }
  expect(copies).toBeGreaterThan(0);
  writeFileSync(file, data);
  const reopened = await openTestChain([], t.dataDir, { genesis: false });
  if (o.log) (reopened.chain as unknown as { log: Logger }).log = o.log;
  open.push(reopened);
  return reopened;
}

function errorOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return null;
}

async function asyncErrorOf(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  return null;
}

describe('a damaged older block', () => {
  it('still decodes, but is refused when read for serving: logged once, counted, -32006 over RPC', async () => {
    const errors: { fields: unknown; msg: string }[] = [];
    const log: Logger = { ...silentLog, error: (fields, msg) => void errors.push({ fields, msg: msg ?? '' }), child: () => log };
    const t = await chainWithDamagedBlock3({ log });
    expect(t.chain.height).toBe(6n);
    // It decodes: a plain read does not see the damage.
    expect(t.chain.getBlock(3n)!.block.num).toBe(3n);
    const err = errorOf(() => t.chain.servedBlock(3n));
    expect(err).toBeInstanceOf(StoredBlockDamagedError);
    expect((err as Error).message).toMatch(/^block 3 in .*chain is damaged: it hashes to [0-9a-f]{16}…, but block 4 names [0-9a-f]{16}… as its parent \(one of the two changed\); it is not served/);
    for (const n of [1n, 2n, 4n, 5n, 6n]) expect(t.chain.servedBlock(n)?.block.num).toBe(n);
    expect(t.chain.servedBlockOrNone(3n)).toBeNull();
    // Logged once, counted at every refusal.
    expect(errors).toHaveLength(1);
    expect(errors[0]!.msg).toMatch(/^block 3 in /);
    expect(t.chain.damagedBlockReads).toBe(2);

    const getBlock = blockMethods.find((m) => m.name === 'getBlock')!;
    const ctx = { chain: t.chain } as never;
    for (const bytes of [true, false]) {
      const rpcErr = toRpcError(errorOf(() => getBlock.handler(validateParams(getBlock as never, { num: '3', bytes: String(bytes) }) as never, ctx)));
      expect(rpcErr?.code).toBe(-32006);
      expect(rpcErr?.message).toMatch(/^block 3 in .* is damaged/);
    }
    expect(getBlock.handler(validateParams(getBlock as never, { num: '2', bytes: 'true' }) as never, ctx)).toMatch(/^[0-9a-f]+$/);
  }, 60_000);

  it('a changed parent field of block 3 makes blocks 2 and 3 unservable (either may be the changed one), the rest served', async () => {
    const t = await chainWithDamagedBlock3({ parentField: true });
    expect(errorOf(() => t.chain.servedBlock(2n))).toBeInstanceOf(StoredBlockDamagedError);
    expect(errorOf(() => t.chain.servedBlock(3n))).toBeInstanceOf(StoredBlockDamagedError);
    for (const n of [1n, 4n, 5n, 6n]) expect(t.chain.servedBlock(n)?.block.num).toBe(n);
  }, 60_000);

  it('a changed transaction id (row 13, outside the checksum) is found by the transaction root', async () => {
    const t = await openTestChain();
    await commitBlock(t, [t.builder.buildSigned({ key: t.wallet.primary, outputs: [{ address: STRANGER, amount: 100_000_000n }] })]);
    await commitBlock(t, []);
    const bytes = Buffer.from(t.chain.getBlock(2n)!.bytes);
    expect(t.chain.getBlock(2n)!.block.txIds).toHaveLength(1);
    t.mempool.close();
    await t.store.close();
    const file = join(t.dataDir, 'chain', 'data.mdb');
    const data = readFileSync(file);
    let copies = 0;
    // The txid is the block's last bytes.
    for (let found = data.indexOf(bytes); found >= 0 && copies < 100; found = data.indexOf(bytes, found + 1)) {
      data[found + bytes.length - 1]! ^= 0x01;
      copies++;
    }
    expect(copies).toBeGreaterThan(0);
    writeFileSync(file, data);
    const reopened = await openTestChain([], t.dataDir, { genesis: false });
    open.push(reopened);
    const err = errorOf(() => reopened.chain.servedBlock(2n));
    expect(err).toBeInstanceOf(StoredBlockDamagedError);
    expect((err as Error).message).toMatch(/^block 2 in .* is damaged: its transaction ids do not give its transaction root;/);
    expect(reopened.chain.servedBlock(3n)?.block.num).toBe(3n);
  }, 60_000);

  it('a peer asking for blocks 1–6 is sent 1–2, not the damaged block nor those above it', async () => {
    const t = await chainWithDamagedBlock3();
    const clock = new ManualClock();
    const [me, other] = await Promise.all([makeIdentity(), makeIdentity()]);
    const node = new NodeNetwork({
      role: 'master', network: 'reg', chain: t.chain, mempool: t.mempool, events: t.events, log: silentLog, clock,
      identity: me, productVersion: 'dltnode-test', endpoint: '', listeningPort: () => 0, peers: [], blockIntervalSeconds: 30,
    });
    const genesis = t.chain.getBlock(1n)!.checksum;
    const received: Message[] = [];
    const peer = new PeerNetwork({
      local: {
        network: 'reg', genesisChecksum: genesis, nodeType: 'M', address: other.address, publicKey: other.publicKey,
        productVersion: 'dltnode-test', endpoint: '', sign: other.sign,
        tip: () => ({ height: 1n, checksum: genesis }), networkHeight: () => 1n, acceptingPeers: () => true,
      },
      clock,
      onMessage: (_link, m) => void received.push(m),
    });
    try {
      const sockets = wire(peer, node.peers, '127.0.0.1:10001');
      await settle(clock, sockets, 2);
      const link = sockets[0]!.link!;
      expect(link.state).toBe('open');
      link.send({ code: MessageCode.getBlocks, from: 1n, count: 6, txMode: 0 });
      await settle(clock, sockets, 2);
      const answers = received.filter((m): m is Extract<Message, { code: typeof MessageCode.blocks }> => m.code === MessageCode.blocks);
      expect(answers).toHaveLength(1);
      expect(answers[0]!.from).toBe(1n);
      expect(answers[0]!.blocks).toHaveLength(2);
      expect(t.chain.damagedBlockReads).toBe(1);
    } finally {
      peer.stop();
      node.stop();
    }
  }, 60_000);

  it('is not handed to a miner or pool: getMiningBlock, verifyMiningSolution and submitMiningSolution answer -32006', async () => {
    const t = await chainWithDamagedBlock3();
    const powChecks: unknown[] = [];
    // Blocks 4–6 have pending claims (stub), so the latest unsolved block is the damaged block 3.
    let claimed = new Set([4n, 5n, 6n]);
    const ctx = {
      chain: t.chain, mempool: t.mempool, wallet: t.wallet,
      mining: { pendingClaimBlocks: () => claimed, pendingClaimFor: () => undefined },
      // A nonce that solves whatever it is asked about: only the block read decides the answer.
      pool: { verifyPow: async (jobs: unknown[]) => { powChecks.push(...jobs); return jobs.map(() => true); } },
      log: silentLog,
    } as never;
    const all = [...miningMethods, ...miningClaimMethods];
    const call = (name: string, params: Record<string, string>): Promise<unknown> => {
      const m = all.find((x) => x.name === name)!;
      return Promise.resolve(m.handler(validateParams(m as never, params) as never, ctx));
    };
    for (const [name, params] of [
      ['getMiningBlock', { algo: '2' }],
      ['verifyMiningSolution', { nonce: 'aa', blocknum: '3', diff: '1' }],
      ['submitMiningSolution', { nonce: 'aa', blocknum: '3' }],
    ] as const) {
      const rpcErr = toRpcError(await asyncErrorOf(() => call(name, params)));
      expect(rpcErr?.code, name).toBe(-32006);
      expect(rpcErr?.message, name).toMatch(/^block 3 in .* is damaged/);
    }
    // No PoW was checked against the damaged block's checksum.
    expect(powChecks).toHaveLength(0);
    // A sound block is handed out as before.
    claimed = new Set([3n, 4n, 5n, 6n]);
    expect(await call('getMiningBlock', { algo: '2' })).toMatchObject({ num: 2n });
    expect(await call('verifyMiningSolution', { nonce: 'aa', blocknum: '2', diff: '1' })).toBe(true);
    expect(powChecks).toHaveLength(1);
  }, 60_000);
});
