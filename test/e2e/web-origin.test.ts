// A web page from another origin attacks the node's RPC through the operator's browser (Debian's
// chromium driven by playwright-core, as test/e2e/web-wallet.test.ts): the requests a browser sends
// without a preflight (<img>, <iframe>, no-cors fetch, form POSTs text/plain and urlencoded), a
// cross-origin read, a WebSocket to /events, and DNS rebinding (evil.test resolved to 127.0.0.1 by
// chromium's --host-resolver-rules). Each payment attempt uses its own amount so a failure names
// the vector; the node's pending pool, asked without an Origin (as curl), must stay empty. Both
// transports (node:http and uWebSockets.js).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startNode, type NodeProcess } from './harness.js';
import { TRANSFER_TO } from '../codec/vectors.js';

const CHROMIUM = '/usr/bin/chromium';
const UI_TIMEOUT_MS = 30_000;
/** How long the evil page waits for a WebSocket to open or fail (it fails at once when refused). */
const WS_WAIT_MS = 10_000;

/** The attacker's page: every no-preflight way to make the node pay, then report what happened. */
function evilPage(node: string): string {
  const pay = (amount: string) => `${node}/addTransaction?to=${TRANSFER_TO}_${amount}`;
  const textPlainName = JSON.stringify(`{"jsonrpc":"2.0","id":1,"method":"addTransaction","params":{"to":"${TRANSFER_TO}_1.00000003"},"x":"`);
  return `<!doctype html><html><body>
<iframe name="sink1"></iframe><iframe name="sink2"></iframe>
<form id="plain" method="POST" enctype="text/plain" action="${node}/" target="sink1"><input name=${textPlainName.replace(/"/g, '&quot;')} value='"}'></form>
<form id="urlenc" method="POST" action="${pay('1.00000004')}" target="sink2"></form>
<script>
window.attack = async () => {
  const loaded = (el) => new Promise((r) => { el.onload = () => r('load'); el.onerror = () => r('error'); });
  const img = new Image(); const imgDone = loaded(img); img.src = ${JSON.stringify(pay('1.00000001'))};
  const noCors = fetch(${JSON.stringify(pay('1.00000002'))}, { mode: 'no-cors' }).then((r) => r.type, (e) => 'error ' + e);
  const f1 = loaded(document.querySelector('iframe[name=sink1]')); document.getElementById('plain').submit();
  const f2 = loaded(document.querySelector('iframe[name=sink2]')); document.getElementById('urlenc').submit();
  const frame = document.createElement('iframe'); const frameDone = loaded(frame); frame.src = ${JSON.stringify(pay('1.00000005'))}; document.body.appendChild(frame);
  const read = fetch(${JSON.stringify(node + '/mywallet')}).then((r) => r.text(), (e) => 'error ' + e);
  const ws = new Promise((r) => {
    const s = new WebSocket(${JSON.stringify(node.replace('http', 'ws') + '/events?topics=blocks')});
    const t = setTimeout(() => r('timeout'), ${WS_WAIT_MS});
    s.onopen = () => { clearTimeout(t); s.close(); r('open'); };
    s.onerror = () => { clearTimeout(t); r('error'); };
  });
  return { img: await imgDone, noCors: await noCors, plain: await f1, urlenc: await f2, frame: await frameDone, read: await read, ws: await ws };
};
</script></body></html>`;
}

describe.each(['http', 'uws'])('a page from another origin against the node RPC (--rpc-transport %s) in chromium', (transport) => {
  let node: NodeProcess;
  let evil: Server;
  let evilUrl: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run installs it)`);
    node = await startNode({ blockInterval: 1, args: ['--rpc-transport', transport] });
    evil = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(evilPage(node.url));
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const addr = evil.address();
    evilUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--host-resolver-rules=MAP evil.test 127.0.0.1'],
    });
    context = await browser.newContext();
    page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await new Promise((resolve) => (evil ? evil.close(resolve) : resolve(undefined)));
    await node?.stop();
  });

  /** Amounts of the node's pending transactions (each vector pays its own amount). */
  const pending = async (): Promise<string[]> => {
    const txu = await node.call<Record<string, { amount: string }>>('txu');
    return Object.values(txu).map((t) => t.amount);
  };

  it('makes no payment from requests sent without a preflight, cannot read answers nor open /events', async () => {
    const answers: string[] = [];
    page.on('response', (r) => {
      if (r.url().startsWith(node.url)) answers.push(`${r.request().method()} ${new URL(r.url()).pathname} ${r.status()}`);
    });
    await page.goto(evilUrl);
    const outcome = await page.evaluate(() => (window as unknown as { attack(): Promise<Record<string, string>> }).attack());
    // Every request has been answered (or refused) by now: the pool shows what the node did.
    expect(await pending()).toEqual([]);
    // Every answer the browser reports (frames and forms at least; CORS failures are not reported)
    // is the node's refusal.
    expect(answers.filter((a) => !a.endsWith(' 403'))).toEqual([]);
    expect(answers).toEqual(expect.arrayContaining(['POST / 403', 'POST /addTransaction 403', 'GET /addTransaction 403']));
    expect(outcome.read).toMatch(/^error /); // no CORS header for a foreign origin
    expect(outcome.ws).toBe('error'); // the upgrade is refused (WebSocket has no CORS of its own)
    // The node is still usable by a client without Origin (curl, scripts) and by its own page.
    expect((await node.call<{ 'DLT Status'?: string }>('status')) ?? {}).toBeTruthy();
    page.removeAllListeners('response');
    const own = await page.goto(node.url + '/status');
    expect(own?.status()).toBe(200);
  });

  it('refuses a request whose Host is a name that resolved to it (DNS rebinding)', async () => {
    const port = new URL(node.url).port;
    const r = await page.goto(`http://evil.test:${port}/addTransaction?to=${TRANSFER_TO}_1.00000006`);
    expect(r?.status()).toBe(403);
    expect(await r?.text()).toMatch(/Host 'evil\.test:\d+' is not allowed/);
    expect(await pending()).toEqual([]);
    // The same node by its IP literal and by localhost still answers.
    expect((await page.goto(`http://localhost:${port}/status`))?.status()).toBe(200);
  });
});

describe('a page from an origin the operator allowed (--rpc-cors) in chromium', () => {
  let node: NodeProcess;
  let app: Server;
  let appOrigin: string;
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run installs it)`);
    app = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><body>app</body></html>');
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const addr = app.address();
    appOrigin = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    node = await startNode({ blockInterval: 1, args: ['--rpc-cors', appOrigin] });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (app ? app.close(resolve) : resolve(undefined)));
    await node?.stop();
  });

  it('reads answers with CORS (a JSON POST after its preflight), while an <img> GET of the same page is still refused', async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    await page.goto(appOrigin + '/');
    const out = await page.evaluate(async ({ url, to }) => {
      const r = await fetch(url + '/', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"method":"blockheight"}' });
      // An <img> fails on any JSON answer: its load tells nothing; the pool below does.
      await new Promise((resolve) => {
        const i = new Image();
        i.onload = i.onerror = resolve;
        i.src = url + '/addTransaction?to=' + to + '_1.00000007';
      });
      return { status: r.status, body: await r.json() }; // readable only with the node's CORS headers
    }, { url: node.url, to: TRANSFER_TO });
    expect(out).toMatchObject({ status: 200, body: { error: null, result: expect.any(Number) } });
    expect(await node.call('txu')).toEqual({});
  });
});
