// HTTP/1.1 framing as RFC 9112 asks, checked byte by byte over raw sockets against a real node
// process with its default transport (issue 13). Each case failed on the uWebSockets.js transport:
// HTTP/1.0 hung until the idle timeout, differing Content-Length headers ran the leftover bytes as a
// second request, Content-Length with Transfer-Encoding and unknown methods got a bare close, a
// malformed request line got silence, and 47 of 50 clients writing an over-limit body saw EPIPE.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNode, type NodeProcess } from '../e2e/harness.js';
import { countResponses, firstStatus, portOf, rawExchange } from './raw-http.js';

const MAX_BODY = 64 * 1024;
const STATUS_BODY = '{"method":"status","params":{},"id":1}';
const SMUGGLED = 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

let node: NodeProcess;
let port: number;

beforeAll(async () => {
  node = await startNode({ blockInterval: 5, args: ['--max-body-bytes', String(MAX_BODY)] });
  port = portOf(node.url);
});
afterAll(async () => {
  await node?.stop();
});

describe('HTTP framing (RFC 9112) on the default transport', () => {
  it('answers an HTTP/1.0 request, without Host, and closes', async () => {
    const r = await rawExchange(port, 'GET /status HTTP/1.0\r\n\r\n');
    expect(firstStatus(r.text)).toBe(200);
    expect(r.text).toContain('"Block Height"');
    expect(r.closed).toBe(true);
  });

  it('answers an HTTP/1.0 POST with a body', async () => {
    const r = await rawExchange(port, `POST / HTTP/1.0\r\nContent-Length: ${STATUS_BODY.length}\r\n\r\n${STATUS_BODY}`);
    expect(firstStatus(r.text)).toBe(200);
    expect(r.text).toContain('"Block Height"');
  });

  it('refuses two different Content-Length headers with 400, closes, and runs no leftover bytes', async () => {
    const r = await rawExchange(port, `POST /status HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${STATUS_BODY.length}\r\nContent-Length: 5\r\n\r\n${STATUS_BODY}${SMUGGLED}`);
    expect(firstStatus(r.text)).toBe(400);
    expect(countResponses(r.text)).toBe(1);
    expect(r.closed).toBe(true);
  });

  it('refuses Content-Length with Transfer-Encoding with 400 and closes', async () => {
    const r = await rawExchange(port, `POST /status HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${SMUGGLED}`);
    expect(firstStatus(r.text)).toBe(400);
    expect(countResponses(r.text)).toBe(1);
    expect(r.closed).toBe(true);
  });

  it.each([
    ['no method, target or version', 'GARBAGE\r\n\r\n'],
    ['no version (HTTP/0.9 form)', 'GET /status\r\n\r\n'],
    ['a protocol that is not HTTP', 'GET /status XTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'],
    ['bare LF line ends', 'GET /status HTTP/1.1\nHost: 127.0.0.1\n\n'],
    ['a control character in a header', 'GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\nX: \x01\r\n\r\n'],
  ])('answers a malformed request (%s) with 400 at once and closes', async (_what, payload) => {
    const r = await rawExchange(port, payload);
    expect(firstStatus(r.text)).toBe(400);
    expect(r.closed).toBe(true);
    expect(r.ms).toBeLessThan(2000);
  });

  it('says why a request target with raw non-ASCII bytes is refused, and how to send it', async () => {
    // curl "$B/registerName?name=münchen&…" sends the UTF-8 bytes as they are; RFC 3986 asks for
    // percent-encoding, and llhttp refuses them. A bare "Malformed HTTP request" left the user guessing.
    const r = await rawExchange(port, Buffer.from('GET /getRegName?name=m\u00fcnchen HTTP/1.1\r\nHost: x\r\n\r\n', 'utf8'));
    expect(firstStatus(r.text)).toBe(400);
    expect(r.text).toContain('must be percent-encoded');
    expect(r.closed).toBe(true);
  });

  it('answers an unknown method token with 405 and Allow, like PUT', async () => {
    for (const method of ['FOO', 'PUT', 'BREW']) {
      const r = await rawExchange(port, `${method} /status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, { responses: 1 });
      expect(firstStatus(r.text), method).toBe(405);
      expect(r.text).toMatch(/\r\nAllow: GET, POST\r\n/i);
    }
  });

  it('answers a major version other than 1 with 505', async () => {
    const r = await rawExchange(port, 'GET /status HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n');
    expect(firstStatus(r.text)).toBe(505);
  });

  it('gives every client that writes its whole over-limit body before reading its 413', async () => {
    const body = Buffer.alloc(MAX_BODY * 8, 0x61);
    const head = `POST /status HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const results = await Promise.all(
      Array.from({ length: 30 }, () => rawExchange(port, Buffer.concat([Buffer.from(head), body]), { writeFirst: true, timeoutMs: 10_000 })),
    );
    const statuses = results.map((r) => `${firstStatus(r.text)} ${r.error ?? ''}`.trim());
    expect(statuses).toEqual(results.map(() => '413'));
  });

  it('gives a chunked body that grows over the limit its 413', async () => {
    const chunk = Buffer.alloc(16 * 1024, 0x61);
    const parts = [`POST /status HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n`];
    for (let i = 0; i < 8; i++) parts.push(`${chunk.length.toString(16)}\r\n${chunk.toString('latin1')}\r\n`);
    parts.push('0\r\n\r\n');
    const r = await rawExchange(port, parts.join(''), { writeFirst: true, timeoutMs: 10_000 });
    expect(firstStatus(r.text)).toBe(413);
    expect(r.error).toBeNull();
  });

  it('still serves keep-alive requests pipelined on one connection', async () => {
    const r = await rawExchange(port, `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`.repeat(3), { responses: 3 });
    expect(countResponses(r.text)).toBe(3);
  });
});
