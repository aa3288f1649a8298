// Typed client against a loopback server with the fake table.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
    expect(await client.call('echo', { text: 't', big: 2n ** 64n, data: new Uint8Array([1, 2]) })).toEqual({ text: 't', count: 50, big: 2n ** 64n, dataLength: 2 });
    expect(await client.call('echo', { text: 't', big: 2n ** 53n - 1n })).toMatchObject({ big: 2 ** 53 - 1 });
  });

  it('reads integers beyond 2^53 in results as exact bigints, and hands them back to the node as they came', async () => {
    // getMiningBlock's `dif` is a u64 written as a JSON number (reference-rpc-messaging §1.4):
    // JSON.parse made 11730489520294945089 into 11730489520294945000, another difficulty, which
    // verifyMiningSolution then refused as a JSON number above 2^53.
    const sent: string[] = [];
    const body =
      '{"result":{"num":57,"dif":11730489520294945089,"neg":-9223372036854775808,"f":1.5e300,"list":[18446744073709551615,2],' +
      '"s":"12345678901234567890 \\" 99999999999999999999","nul":"\\u0000n5"},"id":1,"error":null}';
    const fakeFetch = (async (_url: string, init: RequestInit) => {
      sent.push(init.body as string);
      return new Response(sent.length === 1 ? body : '{"result":false,"id":2,"error":null}');
    }) as typeof fetch;
    const client = createClient({ url: 'http://node.test', fetch: fakeFetch });
    const block = await client.getMiningBlock();
    expect(block).toEqual({
      num: 57,
      dif: 11730489520294945089n,
      neg: -9223372036854775808n,
      f: 1.5e300,
      list: [18446744073709551615n, 2],
      s: '12345678901234567890 " 99999999999999999999',
      nul: '\u0000n5',
    });
    await client.verifyMiningSolution({ nonce: 'aa', blocknum: block.num, diff: block.dif });
    expect(JSON.parse(sent[1]!).params.diff).toBe('11730489520294945089');
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

  it('says in `kind` what failed: rpc, network, timeout or http', async () => {
    const kindOf = (p: Promise<unknown>) => p.then(() => 'no error', (e: unknown) => (e instanceof RpcClientError ? [e.kind, e.code] : e));
    expect(await kindOf(createClient({ url, auth: { user: 'u', password: 'p' } }).call('fail', { kind: 'rpc' }))).toEqual(['rpc', -32602]);
    expect(await kindOf(createClient({ url: 'http://127.0.0.1:1' }).status())).toEqual(['network', 0]);
    const html = (async () => new Response('<html>502 Bad Gateway</html>', { status: 502 })) as unknown as typeof fetch;
    expect(await kindOf(createClient({ url: 'http://node.test', fetch: html }).status())).toEqual(['http', 0]);
    // A node that never answers, and one that sends its headers and then stalls mid-body: both are
    // timeouts (the body read used to escape as a bare DOMException, not an RpcClientError).
    const stalls = http.createServer((req, res) => {
      if (req.url === '/status') return; // no answer at all
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"result":');
    });
    await new Promise<void>((r) => stalls.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(stalls.address() as AddressInfo).port}`;
    try {
      const client = createClient({ url: base, timeoutMs: 300 });
      expect(await kindOf(client.status())).toEqual(['timeout', 0]);
      const midBody = await client.getBalance({ address: 'a' }).catch((e: unknown) => e);
      expect(midBody).toBeInstanceOf(RpcClientError);
      expect([(midBody as RpcClientError).kind, (midBody as RpcClientError).httpStatus]).toEqual(['timeout', 200]);
    } finally {
      stalls.closeAllConnections();
      stalls.close();
    }
    // A body cut off by the connection: a network failure, as an RpcClientError.
    const cut = (async () => new Response(new ReadableStream({ start: (c) => c.error(new TypeError('terminated')) }))) as unknown as typeof fetch;
    const broken = await createClient({ url: 'http://node.test', fetch: cut }).status().catch((e: unknown) => e);
    expect(broken).toBeInstanceOf(RpcClientError);
    expect((broken as RpcClientError).kind).toBe('network');
    expect((broken as RpcClientError).shortMessage).toMatch(/connection broke while reading the answer \(terminated\)/);
  });
});
