/**
 * `verifyMiningSolution` and `submitMiningSolution` as a pool checks its miners' shares
 * (reference-rpc-messaging.md §2.10; reference-formats.md §11): the nonce is hashed with the
 * current algorithm (Argon2id t=2, m=2048 KiB, p=2, expanded salt) whatever the block's version
 * (the reference's onVerifyMiningSolution / onSubmitMiningSolution call Miner.verifyNonce_v3 for
 * every block); only the solver address form follows the version (with checksum below v10).
 * The verification runs for real (powVerify in-process) on a stubbed chain and wallet.
 */
import { describe, expect, it } from 'vitest';
import { powClaimVariant, powVerify, type PowClaim } from '../../src/core/pow.js';
import { validateParams } from '../../src/rpc/dispatch.js';
import { toRpcError } from '../../src/rpc/errors.js';
import { miningClaimMethods } from '../../src/rpc/methods/mining-claims.js';
import { miningMethods } from '../../src/rpc/methods/mining.js';

const fromHex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
// §11.4: a real v1 address (addressWithChecksum needs a well-formed one) and a 64-byte checksum.
const ADDRESS = fromHex('01bec1923ea08fa066e56ba46557a9b5ecf3da82c484b7010d77a1650e7cdda12e4dd6fe9fbf004331aa46a645');
const CHECKSUM_64 = fromHex('45fdf916e326ec11be583c11547a6b77271fccaca6589ae8033a64cea0e296c23a8624f08502d2212ba0176dc0bb1c8aa83ddccb0052abcadf1c86952262bada');

interface StubBlock { checksum: Uint8Array; version: number; difficulty: bigint }

/** Calls one mining RPC on stubbed modules; returns the result or { code, message }; records the claims sent to the pool. */
function rpc(blocks: Map<bigint, StubBlock>, address = ADDRESS) {
  const sent: PowClaim[] = [];
  const stored = (n: bigint) => {
    const b = blocks.get(n);
    return b && { checksum: b.checksum, block: { version: b.version, difficulty: b.difficulty } };
  };
  const ctx = {
    // servedBlock: what the mining RPCs hand out and check against (stored blocks here are sound).
    chain: { getBlock: stored, servedBlock: stored },
    wallet: { primary: { primary: address } },
    pool: { verifyPow: async (claims: readonly PowClaim[]) => { sent.push(...claims); return claims.map((c) => powVerify(c)); } },
    // submitMiningSolution past a valid nonce (not reached by these shares): nothing pending, nothing solved.
    store: undefined, mempool: { page: () => [], size: 0 }, mining: { pendingClaimFor: () => null },
  };
  const call = async (name: string, params: Record<string, unknown>): Promise<any> => {
    const def = [...miningMethods, ...miningClaimMethods].find((m) => m.name === name)! as any;
    try {
      return await def.handler(validateParams(def, params), ctx);
    } catch (err) {
      const e = toRpcError(err);
      if (e) return { code: e.code, message: e.message };
      throw err;
    }
  };
  return { call, sent };
}

describe('mining RPCs: the algorithm by block version', () => {
  it.each([0, 1, 4, 9])('a v%i block: the current algorithm (v3 variant) with the address with checksum', async (version) => {
    const blocks = new Map([[5n, { checksum: CHECKSUM_64.subarray(0, version >= 3 ? 44 : 32), version, difficulty: 0n }]]);
    const { call, sent } = rpc(blocks);
    // A 4-byte nonce: a share for the v3 algorithm (1..64 bytes), too short for the old unexpanded salt.
    expect(await call('verifyMiningSolution', { nonce: '01020304', blocknum: '5', diff: '0' })).toBe(false);
    expect(await call('submitMiningSolution', { nonce: '01020304', blocknum: '5' })).toBe(false);
    expect(sent).toHaveLength(2);
    for (const claim of sent) {
      expect(powClaimVariant(claim)).toBe('v3');
      expect(claim.solverAddress.length).toBe(48);
      expect(Array.from(claim.nonce)).toEqual([1, 2, 3, 4]);
    }
  });

  it('a v10+ block: the current algorithm with the address without checksum', async () => {
    const { call, sent } = rpc(new Map([[5n, { checksum: CHECKSUM_64, version: 13, difficulty: 0n }]]));
    expect(await call('verifyMiningSolution', { nonce: '0102', blocknum: '5', diff: '0' })).toBe(false);
    expect(powClaimVariant(sent[0]!)).toBe('v3');
    expect(sent[0]!.solverAddress).toEqual(ADDRESS);
  });
});

describe('verifyMiningSolution: a real share at the edges a pool meets', () => {
  // A solution found by search (test/core/pow-differential.test.ts): its hash 0000b8e8070e4ce03b4a…
  // meets difficulties up to EDGE = ~0xb8e8070e4ce03b4a.
  const CHECKSUM = fromHex('9456159980b36552b51544a8c87909e3ca44cc8d55dce27e999a29301cee57f982431e40bf7ca3d915616cd4404bb63fc2565dfabe26d14125b4c98190d936e0');
  const WALLET = fromHex('f75552d04b402656ba5a45a24bf3c2ac7db3680fee8d83a88cd788e1e709c39a5210c3de67393803b0fe3a45d5');
  const NONCE = 'c5e9b73c7fae33d20d0efbfb4550112d0f65be421ddf3e2ba3bfd18704e4000a9fe2bed8fec3f82265a3c798e166d6503da9d82791a5b613e042c9c30000d958';
  const EDGE = 0x4717f8f1b31fc4b5n;
  const { call } = rpc(new Map([[7n, { checksum: CHECKSUM, version: 13, difficulty: EDGE + 1n }]]), WALLET);
  const verify = (nonce: string, diff: unknown, blocknum: unknown = '7') => call('verifyMiningSolution', { nonce, blocknum, diff });

  it('the difficulty as given: 0 and the edge pass, edge + 1 and 2^64 − 1 fail (decimal strings or JSON numbers)', async () => {
    expect(await verify(NONCE, '0')).toBe(true);
    expect(await verify(NONCE, String(EDGE))).toBe(true);
    expect(await verify(NONCE, String(EDGE + 1n))).toBe(false);
    expect(await verify(NONCE, '18446744073709551615')).toBe(false);
    expect(await verify(NONCE, 0)).toBe(true);
    expect(await verify(NONCE.toUpperCase(), String(EDGE))).toBe(true); // hex digits in either case
  });

  it('difficulties outside u64 or not integers are refused, not wrapped', async () => {
    for (const diff of ['18446744073709551616', '-1', '1.5', 'abc', '0x10', '']) {
      const r = await verify(NONCE, diff);
      expect(r?.code, diff).toBe(-32602);
    }
  });

  it('a nonce changed in one byte, cut short, or for another block fails', async () => {
    expect(await verify(`${NONCE.slice(0, -2)}59`, '0')).toBe(false);
    expect(await verify(NONCE.slice(0, -2), '0')).toBe(false);
  });

  it('malformed nonces and unknown blocks are errors, as the reference answers them', async () => {
    expect(await verify('ab'.repeat(65), '0')).toEqual({ code: -32602, message: 'Invalid nonce was specified' });
    expect(await verify('', '0')).toEqual({ code: -32602, message: 'Invalid nonce was specified' });
    for (const nonce of ['abc', 'zz', '0x12', 'xOnR', 'q83v']) expect((await verify(nonce, '0')).code, nonce).toBe(-32602); // odd, non-hex, base64
    expect(await verify(NONCE, '0', '8')).toEqual({ code: -32602, message: 'Invalid block number specified' }); // a future block
    expect(await verify(NONCE, '0', '1')).toEqual({ code: -32602, message: 'Invalid block number specified' }); // not stored
    expect((await verify(NONCE, '0', '18446744073709551616')).code).toBe(-32602);
    expect(await call('verifyMiningSolution', { blocknum: '7', diff: '0' })).toEqual({ code: -32602, message: "Parameter 'nonce' is missing" });
  });
});
