/**
 * `submitminingsolution` as pools and miners meet it (reference-client-methods.md: result true or
 * false; errors only for a missing parameter, a bad nonce or an unknown block). The reference
 * answers false, not an error, when the pool refuses the claim of a valid nonce (Ixian-DLT
 * APIServer onSubmitMiningSolution → Miner.sendSolution): a second solution for the same block, a
 * block solved already. The Argon2 verification is injected: a nonce solves iff its first byte is
 * 0x42 (the real hashing is covered by test/e2e/mining.slow.test.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { PowClaim } from '../../src/core/pow.js';
import { createMiningExtension } from '../../src/mining/chain-extension.js';
import { decodeClaimData } from '../../src/mining/claim.js';
import { Mining } from '../../src/mining/index.js';
import { powFieldOf } from '../../src/mining/pow-field.js';
import { validateParams } from '../../src/rpc/dispatch.js';
import { toRpcError } from '../../src/rpc/errors.js';
import { miningClaimMethods } from '../../src/rpc/methods/mining-claims.js';
import { commitBlock, openTestChain, silentLog, type TestChain } from '../chain/fixture.js';

const fakeVerify = (c: PowClaim): boolean => c.nonce[0] === 0x42;

describe('submitminingsolution', () => {
  let t: TestChain;
  let mining: Mining;
  const submit = async (params: Record<string, unknown>): Promise<any> => {
    const def = miningClaimMethods.find((m) => m.name === 'submitMiningSolution')! as any;
    const ctx = {
      chain: t.chain, wallet: t.wallet, mempool: t.mempool, mining, clock: systemClock, network: 'reg', log: silentLog,
      pool: { verifyPow: async (claims: readonly PowClaim[]) => claims.map(fakeVerify) },
    };
    try {
      return await def.handler(validateParams(def, params), ctx);
    } catch (err) {
      const rpc = toRpcError(err);
      if (rpc) return { code: rpc.code, message: rpc.message };
      throw err;
    }
  };

  beforeEach(async () => {
    t = await openTestChain([createMiningExtension({ verify: fakeVerify })]);
    mining = new Mining(t.chain, (a) => t.wallet.keys.some((k) => k.nonceOf(a) !== null), t.events, systemClock);
    for (let i = 0; i < 3; i++) await commitBlock(t, []);
  });
  afterEach(async () => {
    await t.close();
  });

  it('a valid nonce (upper-case hex, its zero bytes kept) is claimed: true; a nonce that does not solve: false', async () => {
    expect(await submit({ nonce: '41AB', blocknum: '3' })).toBe(false);
    expect(t.mempool.size).toBe(0);
    expect(await submit({ nonce: '42000A00', blocknum: '3' })).toBe(true);
    const [claim] = t.mempool.page(0, 1);
    expect(decodeClaimData(claim!.tx.outputs[0]!.data!)).toEqual({ blockNum: 3n, nonce: Uint8Array.of(0x42, 0, 0x0a, 0) });
  });

  it('a second solution for a block with a claim pending, and one for a block solved already, answer false (not an error) and claim nothing', async () => {
    expect(await submit({ nonce: '4201', blocknum: '3' })).toBe(true);
    expect(await submit({ nonce: '4202', blocknum: '3' })).toBe(false);
    expect(await submit({ nonce: '4201', blocknum: '3' })).toBe(false);
    expect(t.mempool.size).toBe(1);
    await commitBlock(t, t.mempool.page(0, 1));
    expect(powFieldOf(t.store, 3n)).not.toBeNull();
    expect(t.mempool.size).toBe(0);
    expect(await submit({ nonce: '4203', blocknum: '3' })).toBe(false);
    expect(t.mempool.size).toBe(0);
  });

  it('errors stay for what the reference refuses as errors: no nonce, a bad nonce, an unknown block', async () => {
    expect(await submit({ blocknum: '3' })).toEqual({ code: -32602, message: "Parameter 'nonce' is missing" });
    expect(await submit({ nonce: '42', blocknum: '99' })).toEqual({ code: -32602, message: 'Invalid block number specified' });
    expect((await submit({ nonce: '42'.repeat(65), blocknum: '3' })).message).toBe('Invalid nonce was specified');
  });
});
