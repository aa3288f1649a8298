// Typed client against a loopback server with the fake table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, RpcClientError } from '../../src/rpc/client.js';
import { createRpcServer, type RpcServer } from '../../src/rpc/server.js';
import { silentLogger } from '../../src/log/logger.js';
import { fakeMethods, type FakeContext } from './fake-table.js';

describe('RPC client', () => {
  let server: RpcServer<FakeContext>;
  let url: string;
  beforeAll(async () => {
    server = createRpcServer({ methods: fakeMethods, context: { height: 7n }, log: silentLogger(), port: 0, auth: { users: [{ user: 'u', password: 'p' }] } });
    url = await server.listen();
  });
  afterAll(() => server.close());

  it('calls operations with typed values (bigint and bytes on the wire as text)', async () => {
    const client = createClient({ url, auth: { user: 'u', password: 'p' } });
    expect(await client.status({ verbose: true })).toEqual({ 'Block Height': 7, verbose: true, vv: false });
    expect(await client.call('echo', { text: 't', big: 2n ** 64n, data: new Uint8Array([1, 2]) })).toEqual({ text: 't', count: 50, big: 18446744073709551616, dataLength: 2 });
  });

  it('throws RpcClientError with code, method and url', async () => {
    const client = createClient({ url, auth: { user: 'u', password: 'p' } });
    const e = (await client.call('fail', { kind: 'rpc' }).catch((x: unknown) => x)) as RpcClientError;
    expect(e).toBeInstanceOf(RpcClientError);
    expect([e.code, e.shortMessage, e.method, e.url, e.httpStatus]).toEqual([-32602, "contact doesn't exist", 'fail', `${url}/fail`, 200]);
    const unauth = (await createClient({ url }).call('status').catch((x: unknown) => x)) as RpcClientError;
    expect(unauth.httpStatus).toBe(401);
    const down = (await createClient({ url: 'http://127.0.0.1:1' }).call('status').catch((x: unknown) => x)) as RpcClientError;
    expect(down.code).toBe(0);
    expect(down.shortMessage).toMatch(/cannot reach the node/);
  });
});
