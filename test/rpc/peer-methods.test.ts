/** The peer operations' parameter checks (h2: `blacklistpeer?host=notahost` answered OK). */
import { describe, expect, it } from 'vitest';
import { blacklistHostParam, peerMethods } from '../../src/rpc/methods/peers.js';
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
