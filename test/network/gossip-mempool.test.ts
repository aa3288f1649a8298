/**
 * The mempool as gossip sees it (src/network/node-network.ts `gossipMempool`): when admission
 * itself fails (the verifier's queue is full, PoolBusyError), a peer's transactions are "not taken
 * now" — ignore, no penalty, not marked received so their announcers are asked again — with one
 * warning for the batch, never an error that escapes; undecodable bytes are still REJECT.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressFromText } from '../../src/formats/address.js';
import type { Logger } from '../../src/log/logger.js';
import { Mempool } from '../../src/mempool/mempool.js';
import { gossipMempool } from '../../src/network/node-network.js';
import { PoolBusyError } from '../../src/pool/errors.js';
import { openTestChain, silentLog, verifyInProcess, type TestChain } from '../chain/fixture.js';

const STRANGER = addressFromText('4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr');
let t: TestChain;
beforeAll(async () => {
  t = await openTestChain();
});
afterAll(async () => {
  await t?.close();
});

describe('gossipMempool', () => {
  it('a full verifier makes the batch "not taken now" with one warning; the same transaction is accepted once the verifier has room', async () => {
    let busy = true;
    const mempool = new Mempool({
      chain: t.chain,
      events: t.events,
      log: silentLog,
      verify: async (items) => {
        if (busy) throw new PoolBusyError(16_384, 16_384, items.length, 'verifyRsa');
        return verifyInProcess(items);
      },
    });
    const warnings: { fields: Record<string, unknown>; msg: string }[] = [];
    const log: Logger = { ...silentLog, warn: (fields: Record<string, unknown>, msg: string) => void warnings.push({ fields, msg }), child: () => log } as Logger;
    const gossip = gossipMempool(mempool, 'reg', log);
    const k = t.builder.buildSigned({ key: t.wallet.primary, outputs: [{ address: STRANGER, amount: 100_000_000n }] });

    const first = await gossip.admit([k.bytes, Uint8Array.of(1, 2, 3)], 'peer-a');
    expect(first).toEqual([{ action: 'ignore', txid: null }, { action: 'reject', txid: null, rejectedCode: expect.any(Number) }]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.fields).toMatchObject({ peer: 'peer-a', count: 1 });
    expect(String(warnings[0]!.fields.err)).toMatch(/busy/);
    expect(mempool.has(k.id)).toBe(false);

    busy = false;
    const second = await gossip.admit([k.bytes], 'peer-a');
    expect(second).toEqual([{ action: 'accept', txid: k.id }]);
    expect(mempool.has(k.id)).toBe(true);
    expect(warnings).toHaveLength(1);
    mempool.close();
  });
});
