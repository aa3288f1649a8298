/** The peer operations' parameter checks (h2: `blacklistpeer?host=notahost` answered OK). */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodeSignerPowSolution, hashToBits, signerPowDifficulty } from '../../src/consensus/signer-pow.js';
import { Address } from '../../src/formats/address.js';
import { formatAmount } from '../../src/formats/amount.js';
import { encodeVarUint } from '../../src/formats/varint.js';
import { toJson } from '../../src/rpc/envelope.js';
import { blacklistHostParam, peerMethods } from '../../src/rpc/methods/peers.js';
import { messagingMethods } from '../../src/rpc/methods/messaging.js';
import { RpcError } from '../../src/rpc/types.js';

const blacklistpeer = peerMethods.find((m) => m.name === 'blacklistpeer')!;

describe('blacklistpeer', () => {
  it('refuses a host that is no IP address with -32602 naming the expected form', () => {
    const calls: unknown[] = [];
    const modules = { p2p: { peers: { blacklistPeer: (p: unknown) => void calls.push(p) } } } as never;
    const call = (params: Record<string, string>) => (blacklistpeer.handler as (p: unknown, m: unknown) => unknown)(params, modules);
    for (const bad of ['notahost', 'example.org', '10.0.0.1:99999', '[2001:db8::1]', '']) {
      let err: unknown = null;
      try {
        blacklistHostParam(bad);
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(RpcError);
      expect((err as RpcError).code).toBe(-32602);
      expect((err as RpcError).message).toContain('expected an IP address, ip:port or [ipv6]:port');
    }
    expect(() => call({ host: 'notahost' })).toThrow(/Invalid 'host' "notahost": expected an IP address/);
    expect(calls).toEqual([]);
    expect(call({ host: '10.0.0.1' })).toBe('OK');
    expect(call({ host: '10.0.0.1:4000' })).toBe('OK');
    expect(call({ host: '2001:db8::1' })).toBe('OK');
    expect(call({ host: '[2001:db8::1]:4000' })).toBe('OK');
    expect(calls).toEqual([{ host: '10.0.0.1' }, { host: '10.0.0.1:4000' }, { host: '2001:db8::1' }, { host: '[2001:db8::1]:4000' }]);
  });
});

/**
 * `pl` / `getpresence` (hj: `powSolution` was always null): the reference serialises the presence's
 * SignerPowSolution (CORE Pow/SignerPowSolution.cs, Newtonsoft: fields then computed properties).
 */
describe('pl powSolution', () => {
  const pl = peerMethods.find((m) => m.name === 'pl')!;
  const getpresence = peerMethods.find((m) => m.name === 'getpresence')!;
  const sha3sq = (b: Uint8Array) => createHash('sha3-512').update(createHash('sha3-512').update(b).digest()).digest();
  const wallet = Address.fromBytes(new Uint8Array(Buffer.from(`01${'ab'.repeat(44)}`, 'hex')));
  const blockChecksum = new Uint8Array(64).fill(7);
  const solution = { blockNum: 300n, solution: new Uint8Array(32).fill(9), signingPubKey: new Uint8Array(40).fill(5) };
  const device = (lastSeen: number, powSolution: Uint8Array | null) => ({
    deviceId: new Uint8Array([lastSeen]), host: `10.0.0.1:${lastSeen}`, type: 'M', nodeVersion: 'dlt-0.1', lastSeen,
    powSolution, signature: new Uint8Array([1]), keepAlive: new Uint8Array(0),
  });
  const entry = (devices: ReturnType<typeof device>[]) => ({
    address: wallet.addressNoChecksum, publicKey: new Uint8Array(300).fill(3),
    devices: new Map(devices.map((d) => [String(d.lastSeen), d])),
  });
  const modules = (e: unknown, blocks: Map<bigint, Uint8Array>) => ({
    p2p: { peers: { presence: { all: () => [e], get: () => e } } },
    chain: { getBlock: (n: bigint) => (blocks.has(n) ? { checksum: blocks.get(n) } : null) },
    light: undefined,
  }) as never;
  const run = (def: { handler: unknown }, params: unknown, m: unknown) => (def.handler as (p: unknown, m: unknown) => unknown)(params, m);

  it('shows blockNum, solution, signingPubKey, checksum, difficulty and bits of the newest keep-alive', () => {
    const e = entry([device(10, null), device(20, encodeSignerPowSolution(solution))]);
    const [presence] = run(pl, {}, modules(e, new Map([[300n, blockChecksum]]))) as Record<string, unknown>[];
    // The challenge as §12 writes it, hashed here with node:crypto: varint(300) ‖ block checksum ‖ wallet ‖ key ‖ solution.
    const hash = sha3sq(Buffer.concat([encodeVarUint(300n), blockChecksum, wallet.addressNoChecksum, solution.signingPubKey, solution.solution]));
    const pow = presence!.powSolution as Record<string, unknown>;
    expect(Object.keys(pow)).toEqual(['blockNum', 'solution', 'signingPubKey', 'checksum', 'difficulty', 'bits']);
    expect(pow).toEqual({
      blockNum: 300n,
      solution: Buffer.from(solution.solution).toString('base64'),
      signingPubKey: Buffer.from(solution.signingPubKey).toString('base64'),
      checksum: hash.toString('base64'),
      difficulty: formatAmount(signerPowDifficulty(hash)),
      bits: hashToBits(hash),
    });
    expect(toJson(pow)).toMatch(/^\{"blockNum":300,.*"difficulty":"\d+\.\d{8}","bits":\d+\}$/);
    expect((run(getpresence, { wallet: wallet.base58Address }, modules(e, new Map([[300n, blockChecksum]]))) as Record<string, unknown>).powSolution).toEqual(pow);
  });

  it('is null when the newest keep-alive carries none, and has no hash over a block this node does not hold', () => {
    const bytes = encodeSignerPowSolution(solution);
    const [none] = run(pl, {}, modules(entry([device(30, null), device(20, bytes)]), new Map())) as Record<string, unknown>[];
    expect(none!.powSolution).toBeNull();
    const [unknown] = run(pl, {}, modules(entry([device(20, bytes)]), new Map())) as Record<string, unknown>[];
    expect(unknown!.powSolution).toMatchObject({ blockNum: 300n, checksum: null, difficulty: null, bits: null });
  });
});

/**
 * An operation this node cannot serve answers -32601, the code a program reads as "not here" (the
 * web wallet does; a light node's refusals use it): peer operations on a node without a peer
 * network, messaging on a node that is not a client. They answered -32602, "fix your parameters".
 */
describe('operations this node does not serve', () => {
  const run = (def: { handler: unknown }, params: unknown, m: unknown) => (def.handler as (p: unknown, m: unknown) => unknown)(params, m);
  const codeOf = async (f: () => unknown): Promise<number | undefined> => {
    try {
      await f();
    } catch (e) {
      return e instanceof RpcError ? e.code : undefined;
    }
    return undefined;
  };
  it('peer operations without a peer network answer -32601', async () => {
    for (const name of ['connect', 'isolate', 'reconnect', 'blacklistpeer', 'clearpeerblacklist']) {
      const def = peerMethods.find((m) => m.name === name)!;
      expect(await codeOf(() => run(def, { to: '127.0.0.1:1', host: '10.0.0.1' }, {})), name).toBe(-32601);
    }
  });
  it('messaging without the messaging service (a master or relay) answers -32601', async () => {
    for (const def of messagingMethods) {
      const params = { address: '4qGpsaNAo2KDBe456a7L671Vd5jwEDubtNXVufG8jiaMGgJhSH9xwdiUWN4vPiR41', message: 'm', channel: 0, type: 0, data: new Uint8Array(1), appId: 'a', count: 1 };
      expect(await codeOf(() => run(def, params, {})), def.name).toBe(-32601);
    }
  });
});
