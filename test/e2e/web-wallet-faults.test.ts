// The web wallet in chromium when the node behind it misbehaves: a node that stops answering
// (paused, overloaded) and a light node (client or relay) that has no master linked yet. Each case
// checks that the page says what went wrong in words instead of keeping a stale "Connected" or a
// placeholder. A small RPC server with the node's method names and error shapes stands in for the
// node (test/e2e/web-wallet.test.ts covers the real node process).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page, type Route } from 'playwright-core';
import { DOCS_KEY_ADDRESS, TRANSFER_TO } from '../codec/vectors.js';
import { createRpcServer, type RpcServer } from '../../src/rpc/server.js';
import { RpcCode, RpcError } from '../../src/rpc/types.js';
import type { MethodDef } from '../../src/rpc/types.js';
import { createLogger } from '../../src/log/logger.js';

const CHROMIUM = '/usr/bin/chromium';
const VIEWPORT = { width: 1280, height: 800 };
const UI_TIMEOUT_MS = 60_000;
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function status(nodeType: string): Record<string, unknown> {
  return {
    'Node Version': 'test', 'Network type': 'reg', 'DLT Status': 'Active', 'Block Height': 7, 'Block generated seconds ago': 1,
    'Node Type': nodeType, 'Unapplied TX Count': 0, 'Network Clients': [], 'Network Servers': [],
  };
}

async function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run installs it)`);
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

async function openPage(browser: Browser, url: string, errors: string[]): Promise<Page> {
  const page = await browser.newPage({ viewport: VIEWPORT });
  page.setDefaultTimeout(UI_TIMEOUT_MS);
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(url + '/');
  return page;
}

/**
 * The page in chromium in front of a stand-in node answering `methods`, for one describe block
 * (opened in its beforeAll, closed in its afterAll). `ready` runs once the page is open (routes).
 */
function pageBehind(methods: MethodDef<null>[], hooks: { ready?: (page: Page) => Promise<unknown>; closing?: () => Promise<void> } = {}) {
  const view = { page: undefined as unknown as Page, errors: [] as string[] };
  let server: RpcServer<null> | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    server = createRpcServer({ methods, context: null, log: createLogger({ level: 'silent', format: 'json' }), port: 0, web: {} });
    await server.listen();
    browser = await launch();
    view.page = await openPage(browser, server.url, view.errors);
    await hooks.ready?.(view.page);
  });
  afterAll(async () => {
    await hooks.closing?.();
    await browser?.close();
    await server?.close();
  });
  return view;
}

describe('web wallet when the node stops answering', () => {
  const methods: MethodDef<null>[] = [
    { name: 'status', group: 'Utilities', summary: 's', params: [{ name: 'verbose', kind: 'boolean', description: 'v' }], result: { description: 'r' }, handler: () => status('M') },
    { name: 'myWallet', group: 'Wallet', summary: 'w', params: [], result: { description: 'r' }, handler: () => ({ [TRANSFER_TO]: '5.00000000' }) },
    { name: 'calculateTransactionFee', group: 'Transactions', summary: 'f', params: [{ name: 'to', kind: 'string', description: 't' }], result: { description: 'r' }, handler: () => '0.00010000' },
    { name: 'addTransaction', group: 'Transactions', summary: 'a', params: [{ name: 'to', kind: 'string', description: 't' }, { name: 'fee', kind: 'string', description: 'f' }], result: { description: 'r' }, handler: () => ({ id: '8-x' }) },
  ];
  /** While true, every RPC call of the page is held unanswered (a paused or overloaded node). */
  let hold = false;
  /** Calls of this method are held unanswered. */
  let holdMethod = '';
  const held: Route[] = [];
  const view = pageBehind(methods, {
    ready: (page) =>
      page.route(
        (u) => u.pathname === '/',
        (route) => {
          const post = route.request().method() === 'POST';
          if (post && (hold || (holdMethod !== '' && String(route.request().postDataJSON()?.method) === holdMethod))) held.push(route);
          else void route.continue();
        },
      ),
    closing: async () => {
      for (const r of held) await r.abort().catch(() => undefined);
    },
  });

  it('stops saying "Connected" and says the node does not answer, then recovers', async () => {
    await expect.poll(() => view.page.locator('#connection').textContent(), { timeout: UI_TIMEOUT_MS }).toBe('Connected · block 7');
    hold = true;
    await expect.poll(() => view.page.locator('#status-error').textContent(), { timeout: UI_TIMEOUT_MS }).toMatch(/^Could not read the node status: The node did not answer within \d+ s/);
    expect(await view.page.locator('#connection').textContent()).toBe('Not connected');
    expect(await view.page.locator('#global-error').textContent()).toMatch(/did not answer within/);
    hold = false;
    await expect.poll(() => view.page.locator('#connection').textContent(), { timeout: UI_TIMEOUT_MS }).toBe('Connected · block 7');
    expect(await view.page.locator('#global-error').isVisible()).toBe(false);
    expect(view.errors).toEqual([]);
  });

  it('says a payment without an answer may still have been sent', async () => {
    await view.page.fill('#send-to', TRANSFER_TO);
    await view.page.fill('#send-amount', '1');
    await view.page.click('#send-preview');
    await view.page.locator('#confirm').waitFor({ state: 'visible' });
    holdMethod = 'addTransaction';
    await view.page.click('#confirm-send');
    await expect.poll(() => view.page.locator('#send-error').textContent(), { timeout: UI_TIMEOUT_MS }).toMatch(/^No answer to the payment: .*may still have been sent; check the history before sending again\.$/);
    expect(await view.page.locator('#send-result').isVisible()).toBe(false);
    holdMethod = '';
    expect(view.errors).toEqual([]);
  });

  it('shows the whole amount, fee and total in the confirmation on a narrow screen', async () => {
    await view.page.setViewportSize({ width: 320, height: 640 });
    await view.page.fill('#send-to', TRANSFER_TO);
    await view.page.fill('#send-amount', '21000000.12345678');
    await view.page.click('#send-preview');
    await view.page.locator('#confirm').waitFor({ state: 'visible' });
    // A value wider than its cell is cut off by the dialog: the user would confirm a total it cannot read.
    const clipped = await view.page.locator('#confirm dd').evaluateAll((dds) => dds.filter((dd) => dd.scrollWidth > dd.clientWidth).map((dd) => `${dd.id}: ${dd.textContent}`));
    expect(clipped).toEqual([]);
    expect(await view.page.locator('#confirm-total').textContent()).toBe('21,000,000.12355678 coins');
    await view.page.click('#confirm button[value=cancel]');
    await view.page.locator('#confirm').waitFor({ state: 'hidden' });
    await view.page.setViewportSize(VIEWPORT);
  });
});

describe('web wallet on a light node with no master linked', () => {
  const PRIMARY = TRANSFER_TO;
  const MINER_ON_LIGHT = "'minerStats' needs the chain state, which this node does not hold (relays and clients follow block headers only); call it on a master";
  /** False: listWallets fails too, so the page has no address yet. */
  let knowsAddress = false;
  const noMaster = () => {
    throw new RpcError(RpcCode.ServerBusy, 'The network did not answer: no master or relay is linked to this node yet; try again');
  };
  const methods: MethodDef<null>[] = [
    { name: 'status', group: 'Utilities', summary: 's', params: [{ name: 'verbose', kind: 'boolean', description: 'v' }], result: { description: 'r' }, handler: () => status('C') },
    { name: 'myWallet', group: 'Wallet', summary: 'w', params: [], result: { description: 'r' }, handler: noMaster },
    { name: 'listWallets', group: 'Wallet', summary: 'l', params: [], result: { description: 'r' }, handler: () => (knowsAddress ? [PRIMARY] : noMaster()) },
    { name: 'activity', group: 'Wallet', summary: 'a', params: [{ name: 'fromIndex', kind: 'string', description: 'i' }, { name: 'count', kind: 'string', description: 'c' }, { name: 'descending', kind: 'string', description: 'd' }], result: { description: 'r' }, handler: () => [] },
    // As a light node answers it (src/rpc/types.ts): the operation exists but needs the chain state.
    { name: 'minerstats', group: 'Mining', summary: 'm', params: [], result: { description: 'r' }, handler: () => { throw new RpcError(RpcCode.MethodNotFound, MINER_ON_LIGHT); } },
  ];
  const view = pageBehind(methods);

  it('says there is no address to copy while it knows none', async () => {
    await expect.poll(() => view.page.locator('#balance-error').textContent(), { timeout: UI_TIMEOUT_MS }).toMatch(/no master or relay is linked/);
    await view.page.click('#copy-address');
    await expect.poll(() => view.page.locator('#receive-note').textContent()).toMatch(/^No address to copy yet/);
  });

  it('shows the wallet\u2019s own address to receive with, though the balance needs a master', async () => {
    knowsAddress = true;
    await expect.poll(() => view.page.locator('#receive-address').textContent(), { timeout: UI_TIMEOUT_MS }).toBe(PRIMARY);
    expect(view.errors).toEqual([]);
  });

  it('says why the miner statistics are missing in the node\u2019s words (a light node has no chain to count from)', async () => {
    await expect.poll(() => view.page.locator('#miner-note').textContent(), { timeout: UI_TIMEOUT_MS }).toBe(`Miner statistics are not available on this node: ${MINER_ON_LIGHT}`);
  });
});

describe('web wallet when another wallet comes behind the page (the node restarted on another data directory)', () => {
  let wallet: string = TRANSFER_TO;
  const methods: MethodDef<null>[] = [
    { name: 'status', group: 'Utilities', summary: 's', params: [{ name: 'verbose', kind: 'boolean', description: 'v' }], result: { description: 'r' }, handler: () => status('M') },
    { name: 'myWallet', group: 'Wallet', summary: 'w', params: [], result: { description: 'r' }, handler: () => ({ [wallet]: '1.00000000' }) },
  ];
  const view = pageBehind(methods);

  it('shows the new wallet\u2019s address to receive with, not the old one', async () => {
    await expect.poll(() => view.page.locator('#receive-address').textContent(), { timeout: UI_TIMEOUT_MS }).toBe(TRANSFER_TO);
    wallet = DOCS_KEY_ADDRESS;
    await expect.poll(() => view.page.locator('#address-rows').textContent(), { timeout: UI_TIMEOUT_MS }).toContain(DOCS_KEY_ADDRESS);
    await expect.poll(() => view.page.locator('#receive-address').textContent(), { timeout: UI_TIMEOUT_MS }).toBe(DOCS_KEY_ADDRESS);
    expect(view.errors).toEqual([]);
  });
});
