// The browser guard's decision (src/rpc/origin.ts): Host (DNS rebinding), Origin and Sec-Fetch-Site.
import { describe, expect, it } from 'vitest';
import { BrowserGuard, checkCorsEntry, checkVhostEntry, hostName, type BrowserHead } from '../../src/rpc/origin.js';

const head = (h: Partial<BrowserHead>): BrowserHead => ({ method: 'GET', host: '127.0.0.1:8081', origin: '', secFetchSite: '', ...h });

describe('browser guard: Host', () => {
  const guard = new BrowserGuard({ listenHost: '127.0.0.1' });
  it.each(['127.0.0.1:8081', '127.0.0.1', 'localhost:8081', 'LOCALHOST', 'wallet.localhost:8081', '192.168.1.20:8081', '[::1]:8081', '[fe80::1]', ''])(
    'answers %j (IP literals, localhost, no Host at all)',
    (host) => expect(guard.judge(head({ host }))).toEqual({ ok: true }),
  );
  it.each(['evil.test:8081', 'evil.test', 'node.lan:8081', 'x', '127.0.0.1.evil.test', 'localhost.evil.test:8081'])('refuses %j naming the option', (host) => {
    const v = guard.judge(head({ host }));
    expect(v).toMatchObject({ ok: false, message: expect.stringContaining(`Host '${host}' is not allowed`) });
    expect(v.ok === false && v.message).toContain(`--rpc-vhost ${hostName(host)}`);
  });
  it('answers --rpc-vhost names (any case), the --rpc-host name, and every name with --rpc-vhost *', () => {
    const named = new BrowserGuard({ vhosts: ['Node.Lan'], listenHost: 'wallet.example' });
    expect(named.judge(head({ host: 'node.lan:8081' }))).toEqual({ ok: true });
    expect(named.judge(head({ host: 'NODE.LAN' }))).toEqual({ ok: true });
    expect(named.judge(head({ host: 'wallet.example:8081' }))).toEqual({ ok: true });
    expect(named.judge(head({ host: 'evil.test' })).ok).toBe(false);
    expect(new BrowserGuard({ vhosts: ['*'] }).judge(head({ host: 'evil.test:8081' }))).toEqual({ ok: true });
  });
});

describe('browser guard: Origin and Sec-Fetch-Site', () => {
  const guard = new BrowserGuard();
  it('answers clients without Origin (curl, scripts, QuIXI) and browser requests of its own page or typed in', () => {
    expect(guard.judge(head({}))).toEqual({ ok: true });
    for (const secFetchSite of ['same-origin', 'none']) expect(guard.judge(head({ secFetchSite }))).toEqual({ ok: true });
  });
  it('answers its own origin (scheme://Host, http or https behind a proxy) without CORS headers', () => {
    expect(guard.judge(head({ origin: 'http://127.0.0.1:8081' }))).toEqual({ ok: true });
    expect(guard.judge(head({ host: 'localhost:8081', origin: 'http://localhost:8081' }))).toEqual({ ok: true });
    expect(guard.judge(head({ host: 'localhost', origin: 'https://localhost' }))).toEqual({ ok: true });
  });
  it('refuses another origin, another port of the same host, and the opaque origin null', () => {
    for (const origin of ['http://127.0.0.1:31000', 'http://evil.test', 'null', 'http://localhost:8081']) {
      expect(guard.judge(head({ origin })), origin).toMatchObject({ ok: false, message: expect.stringContaining(`Origin '${origin}' is not allowed`) });
    }
  });
  it('refuses a browser request without Origin that the browser marks as from another site (<img>, <iframe>, link)', () => {
    for (const secFetchSite of ['cross-site', 'same-site', 'Cross-Site']) {
      expect(guard.judge(head({ secFetchSite })), secFetchSite).toMatchObject({ ok: false, message: expect.stringContaining('--rpc-cors') });
    }
  });
  it('answers an origin of --rpc-cors with its CORS headers, and every origin with --rpc-cors *', () => {
    const cors = new BrowserGuard({ cors: ['https://Wallet.Example/'] });
    expect(cors.judge(head({ origin: 'https://wallet.example' }))).toEqual({ ok: true, cors: { 'Access-Control-Allow-Origin': 'https://wallet.example', Vary: 'Origin' } });
    expect(cors.judge(head({ origin: 'https://wallet.example:444' })).ok).toBe(false);
    expect(cors.judge(head({ secFetchSite: 'cross-site' })).ok).toBe(false);
    const any = new BrowserGuard({ cors: ['*'] });
    expect(any.judge(head({ origin: 'http://a.example' }))).toEqual({ ok: true, cors: { 'Access-Control-Allow-Origin': 'http://a.example', Vary: 'Origin' } });
    expect(any.judge(head({ secFetchSite: 'cross-site' }))).toEqual({ ok: true });
  });
  it('checks Host before Origin: a rebound name is refused even as its own origin', () => {
    expect(guard.judge(head({ host: 'evil.test:8081', origin: 'http://evil.test:8081' }))).toMatchObject({ ok: false, message: expect.stringContaining("Host 'evil.test:8081'") });
  });
});

describe('browser guard options', () => {
  it('takes origins scheme://host[:port] or *, and host names or *', () => {
    expect(checkCorsEntry('https://Wallet.Example')).toBe('https://wallet.example');
    expect(checkCorsEntry('http://127.0.0.1:3000/')).toBe('http://127.0.0.1:3000');
    expect(checkCorsEntry('*')).toBe('*');
    // As a browser sends Origin: a default port left out, a non-ASCII name in its punycode form.
    expect(checkCorsEntry('https://wallet.example:443')).toBe('https://wallet.example');
    expect(checkCorsEntry('http://wallet.example:80/')).toBe('http://wallet.example');
    expect(checkCorsEntry('https://münchen.example')).toBe('https://xn--mnchen-3ya.example');
    for (const bad of ['wallet.example', 'https://wallet.example/path', 'https://wallet.example?x=1', 'https://u:p@wallet.example', 'null', '']) expect(() => checkCorsEntry(bad), bad).toThrow(/must be scheme:\/\/host\[:port\]/);
    expect(checkVhostEntry('Node.Lan')).toBe('node.lan');
    expect(checkVhostEntry('*')).toBe('*');
    for (const bad of ['node.lan:8081', 'http://node.lan', '', 'a b']) expect(() => checkVhostEntry(bad), bad).toThrow(/must be a host name without port/);
  });
});
