// Typed client against a loopback server with the fake table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, RpcClientError } from '../../src/client/index.js';
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

  it('encodes without Node Buffer: UTF-8 Basic credentials, bigints as decimal text, bytes as hex', async () => {
    const sent: { url: string; init: RequestInit }[] = [];
    const fakeFetch = (async (url: string, init: RequestInit) => {
      sent.push({ url, init });
      return new Response('{"result":"ok","id":1,"error":null}');
    }) as typeof fetch;
    const client = createClient({ url: 'http://node.test/', auth: { user: 'ü', password: 'pä:ß' }, fetch: fakeFetch });
    expect(await client.verifyMiningSolution({ nonce: new Uint8Array([0, 0xab, 0xff]), blocknum: 3, diff: 2n ** 64n - 1n })).toBe('ok');
    const { url: sentUrl, init } = sent[0]!;
    expect(sentUrl).toBe('http://node.test/verifyMiningSolution');
    expect((init.headers as Record<string, string>).authorization).toBe('Basic ' + Buffer.from('ü:pä:ß', 'utf8').toString('base64'));
    expect(JSON.parse(init.body as string)).toEqual({ method: 'verifyMiningSolution', params: { nonce: '00abff', blocknum: 3, diff: '18446744073709551615' }, id: 1 });
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
