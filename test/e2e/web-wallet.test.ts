// The web wallet in a real browser (issue 12 point 6): Debian's chromium driven by playwright-core
// against a real node process with an RPC user, so the page works through the browser's Basic
// authentication. The page is opened, the balance read, a payment sent (fee preview, confirm) and
// seen in the history once a block applied it; sign/verify, the status and miner panels, an RPC
// error in words, and the narrow layout are checked; a screenshot is taken.
//
// chromium comes from the operating system (`.ci/run` installs Debian's package); playwright-core
// downloads nothing. Without /usr/bin/chromium the suite fails with the command to install it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startNode, type NodeProcess } from './harness.js';
import { TRANSFER_TO, DOCS_KEY_ADDRESS } from '../codec/vectors.js';
import { createRpcServer, type RpcServer } from '../../src/rpc/server.js';
import type { MethodDef } from '../../src/rpc/types.js';
import { createLogger } from '../../src/log/logger.js';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The README's screenshot; rewritten when DLTNODE_UPDATE_SCREENSHOT=1 (the tree stays clean otherwise). */
const README_SCREENSHOT = join(ROOT, 'docs', 'web-wallet.png');
const USER = 'wallet';
const PASSWORD = 'correct horse battery';
const VIEWPORT = { width: 1280, height: 800 };
const UI_TIMEOUT_MS = 30_000;
/** 8-decimal CoinNumber text (with the page's thousands separators and minus sign) → units. */
const units = (text: string): bigint => {
  const m = /^([−-]?)([\d,]+)\.(\d{8})(?: coins)?$/.exec(text.trim());
  if (!m) throw new Error(`not an amount: ${JSON.stringify(text)}`);
  const v = BigInt(m[2]!.replace(/,/g, '')) * 100_000_000n + BigInt(m[3]!);
  return m[1] ? -v : v;
};

describe('web wallet in chromium', () => {
  let node: NodeProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let shotDir: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`${CHROMIUM} is missing: the web wallet's browser test needs Debian's chromium (apt-get install -y chromium; .ci/run installs it)`);
    }
    shotDir = mkdtempSync(join(tmpdir(), 'dltnode-web-shot-'));
    node = await startNode({ blockInterval: 1, args: ['--rpc-user', `${USER}:${PASSWORD}`] });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    context = await browser.newContext({ viewport: VIEWPORT, httpCredentials: { username: USER, password: PASSWORD }, colorScheme: 'light' });
    page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    page.on('pageerror', (e) => pageErrors.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(`console: ${m.text()}`);
    });
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await node?.stop();
    if (shotDir) rmSync(shotDir, { recursive: true, force: true });
  });

  it('asks for the RPC credentials before serving the page', async () => {
    const r = await node.http('/');
    expect(r.status).toBe(401);
    expect(r.text).not.toContain('<html');
  });

  it('opens, shows the status and reads the balance', async () => {
    const response = await page.goto(node.url + '/');
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
    await expect.poll(() => page.locator('#balance-total').textContent(), { timeout: UI_TIMEOUT_MS }).toMatch(/^[\d,]+\.\d{8}$/);
    // The embedded reg network credits the default genesis balance to the node's wallet.
    expect(units((await page.locator('#balance-total').textContent())!)).toBe(1_000_000n * 100_000_000n);
    await expect.poll(() => page.locator('#st-dlt').textContent(), { timeout: UI_TIMEOUT_MS }).toBe('Active');
    expect(Number(await page.locator('#st-height').textContent())).toBeGreaterThanOrEqual(1);
    expect(await page.locator('#st-pending').textContent()).toMatch(/^\d+ transactions?$/);
    expect(await page.locator('#st-peers').textContent()).toMatch(/^\d+ \(/);
    expect(await page.locator('#receive-address').textContent()).toBe(node.address);
    expect(await page.locator('#connection').textContent()).toMatch(/^Connected · block \d+$/);
  });

  it('shows an RPC error in words', async () => {
    await page.fill('#send-to', 'not-an-address');
    await page.fill('#send-amount', '1');
    await page.click('#send-preview');
    await expect.poll(() => page.locator('#send-error').textContent()).toMatch(/hyphens/);
    await page.fill('#send-to', 'xyz');
    await page.click('#send-preview');
    await expect.poll(() => page.locator('#send-error').textContent()).toBe('The payment cannot be prepared: Invalid to address was specified');
    await page.fill('#send-amount', '1.123456789');
    await page.click('#send-preview');
    await expect.poll(() => page.locator('#send-error').textContent()).toMatch(/at most 8 decimals/);
    expect(await page.locator('#confirm').isVisible()).toBe(false);
  });

  it('sends a payment after a fee preview and sees it in the history after the next block', async () => {
    const before = units((await page.locator('#balance-total').textContent())!);
    await page.fill('#send-to', TRANSFER_TO);
    await page.fill('#send-amount', '12.5');
    await page.click('#send-preview');
    const dialog = page.locator('#confirm');
    await dialog.waitFor({ state: 'visible' });
    const fee = units((await page.locator('#confirm-fee').textContent())!);
    expect(fee).toBeGreaterThan(0n);
    expect(await page.locator('#confirm-to').textContent()).toBe(TRANSFER_TO);
    expect(units((await page.locator('#confirm-amount').textContent())!)).toBe(1_250_000_000n);
    expect(units((await page.locator('#confirm-total').textContent())!)).toBe(1_250_000_000n + fee);
    await page.click('#confirm-send');
    await expect.poll(() => page.locator('#send-result').textContent(), { timeout: UI_TIMEOUT_MS }).toMatch(/^Sent\. Transaction \S+ is pending/);
    expect(await page.locator('#send-error').isVisible()).toBe(false);
    const txid = /Transaction (\S+) is pending/.exec((await page.locator('#send-result').textContent())!)![1]!;

    // The row appears (pending or already final), then turns final once a block applies it.
    const row = page.locator(`#history-rows tr[data-txid="${txid}"]`);
    await expect.poll(() => row.locator('td').nth(4).textContent(), { timeout: UI_TIMEOUT_MS }).toMatch(/^Final · block \d+$/);
    expect(await row.locator('td').nth(1).textContent()).toBe('Sent');
    expect(await row.locator('td').nth(3).textContent()).toBe('−12.50000000');
    expect(await row.locator('td').nth(2).getAttribute('title')).toBe(TRANSFER_TO);

    // The balance follows: at least the amount left the wallet (the node may earn part of the fee back as its reward).
    await expect.poll(async () => units((await page.locator('#balance-total').textContent())!), { timeout: UI_TIMEOUT_MS }).toBeLessThanOrEqual(before - 1_250_000_000n);
  });

  it('takes a screenshot at 1280×800', async () => {
    await page.evaluate(() => window.scrollTo(0, 0));
    const file = join(shotDir, 'web-wallet.png');
    await page.screenshot({ path: file, fullPage: true });
    const png = readFileSync(file);
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(png.readUInt32BE(16)).toBe(VIEWPORT.width);
    if (process.env.DLTNODE_UPDATE_SCREENSHOT === '1') {
      mkdirSync(dirname(README_SCREENSHOT), { recursive: true });
      copyFileSync(file, README_SCREENSHOT);
    }
  });

  it('sends nothing when the confirmation is cancelled (button or Escape)', async () => {
    const pendingBefore = await page.locator('#history-rows tr.pending').count();
    // Escape first, right after a confirmed payment: a stale "send" must not confirm a cancelled one.
    for (const cancel of [() => page.keyboard.press('Escape'), () => page.click('#confirm button[value=cancel]')]) {
      await page.fill('#send-to', TRANSFER_TO);
      await page.fill('#send-amount', '1');
      await page.click('#send-preview');
      await page.locator('#confirm').waitFor({ state: 'visible' });
      await cancel();
      await page.locator('#confirm').waitFor({ state: 'hidden' });
    }
    expect(await page.locator('#send-result').isVisible()).toBe(false);
    expect(await page.locator('#send-error').isVisible()).toBe(false);
    expect(await page.locator('#history-rows tr.pending').count()).toBe(pendingBefore);
    // The node's pending pool, asked directly: no payment was submitted.
    const txu = await node.http('/txu', { headers: { authorization: 'Basic ' + Buffer.from(`${USER}:${PASSWORD}`).toString('base64') } });
    expect(JSON.parse(txu.text)).toMatchObject({ result: {}, error: null });
  });

  it('signs a message and verifies it (and refuses a changed message)', async () => {
    await page.fill('#sign-message', 'dltnode web wallet');
    await page.click('#sign-form button[type=submit]');
    await expect.poll(() => page.locator('#sign-signature').inputValue()).toMatch(/^[0-9a-f]{64,}$/);
    const signature = await page.locator('#sign-signature').inputValue();
    const publicKey = await page.locator('#sign-pubkey').inputValue();
    await page.fill('#verify-message', 'dltnode web wallet');
    await page.fill('#verify-signature', signature);
    await page.fill('#verify-pubkey', publicKey);
    await page.click('#verify-form button[type=submit]');
    await expect.poll(() => page.locator('#verify-result').textContent()).toBe('Valid: this key signed this message.');
    await page.fill('#verify-message', 'dltnode web wallet!');
    await page.click('#verify-form button[type=submit]');
    await expect.poll(() => page.locator('#verify-result').textContent()).toMatch(/^Not valid/);
    await page.fill('#verify-signature', 'zz');
    await page.click('#verify-form button[type=submit]');
    await expect.poll(() => page.locator('#verify-error').textContent()).toMatch(/^Could not verify: \S/);
  });

  it('shows the miner panel or says the node has no miner statistics', async () => {
    await expect
      .poll(async () => (await page.locator('#miner-facts dt').count()) > 0 || /not available on this node/.test((await page.locator('#miner-note').textContent()) ?? ''), {
        timeout: UI_TIMEOUT_MS,
      })
      .toBe(true);
    expect(await page.locator('#miner-error').isVisible()).toBe(false);
  });

  it('makes a new receiving address that counts in the wallet', async () => {
    const first = await page.locator('#receive-address').textContent();
    await page.click('#new-address');
    await expect.poll(() => page.locator('#receive-address').textContent()).not.toBe(first);
    const fresh = (await page.locator('#receive-address').textContent())!;
    expect(fresh).toMatch(/^[1-9A-HJ-NP-Za-km-z]{40,}$/);
    await expect.poll(() => page.locator('#address-rows').textContent(), { timeout: UI_TIMEOUT_MS }).toContain(fresh);
  });

  it('fits a narrow screen without horizontal scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.setViewportSize(VIEWPORT);
  });

  it('raised no script error and no content-security-policy violation', () => {
    expect(pageErrors).toEqual([]);
  });
});

// The panels of operations another part of issue 12 adds (`activity`, `minerstats`), against a
// server whose method table has them, with the reference's record shapes.
describe('web wallet panels of activity and minerstats (in chromium, against a small method table)', () => {
  const MINE = TRANSFER_TO;
  const OTHER = DOCS_KEY_ADDRESS;
  const STATUS = {
    'Node Version': 'test', 'Network type': 'reg', 'DLT Status': 'Active', 'Block Height': 14, 'Block generated seconds ago': 1,
    'Node Type': 'M', 'Unapplied TX Count': 1, 'Network Clients': ['10.0.0.2:10234'], 'Network Servers': ['10.0.0.3:10234', '10.0.0.4:10234'],
  };
  const ACTIVITY = [
    { seedHash: '00', wallet: MINE, from: MINE, toList: { [OTHER]: '2.50000000' }, type: 101, data: null, value: '2.50000000', timestamp: '1795481740', status: 1, blockHeight: '0', txid: '0-pending' },
    { seedHash: '00', wallet: MINE, from: '', toList: { [MINE]: '0.00010000' }, type: 200, data: null, value: '0.00010000', timestamp: '1795481739', status: 2, blockHeight: '13', txid: '13-reward' },
    { seedHash: '00', wallet: MINE, from: OTHER, toList: { [MINE]: '5.00000000' }, type: 100, data: null, value: '5.00000000', timestamp: '1795481738', status: 2, blockHeight: '12', txid: '12-received' },
    { seedHash: '00', wallet: MINE, from: MINE, toList: { [OTHER]: '1.00000000' }, type: 101, data: null, value: '1.00000000', timestamp: '1795481737', status: 3, blockHeight: '0', txid: '0-error' },
  ];
  const MINER = {
    Hashrate: 1234, 'Search Mode': 'Random', 'Current Block': 14, 'Current Difficulty': '0', 'Solved Blocks (Local)': 2, 'Solved Blocks (Network)': 3,
    'Empty Blocks': 0, 'Last Solved Block': 13, 'Last Solved Block Time': '2026-11-24 01:00:00',
  };
  const methods: MethodDef<null>[] = [
    { name: 'status', group: 'Utilities', summary: 's', params: [{ name: 'verbose', kind: 'boolean', description: 'v' }], result: { description: 'r' }, handler: () => STATUS },
    { name: 'myWallet', group: 'Wallet', summary: 'w', params: [], result: { description: 'r' }, handler: () => ({ [MINE]: '123456.78901234' }) },
    {
      name: 'activity', group: 'Wallet', summary: 'a',
      params: [{ name: 'fromIndex', kind: 'string', description: 'i' }, { name: 'count', kind: 'string', description: 'c' }],
      result: { description: 'r' }, handler: () => ACTIVITY,
    },
    { name: 'minerstats', group: 'Mining', summary: 'm', params: [], result: { description: 'r' }, handler: () => MINER },
  ];
  let server: RpcServer<null>;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run installs it)`);
    server = createRpcServer({ methods, context: null, log: createLogger({ level: 'silent', format: 'json' }), port: 0, web: {} });
    await server.listen();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await browser.newPage({ viewport: VIEWPORT });
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    page.on('pageerror', (e) => pageErrors.push(`pageerror: ${e.message}`));
    await page.goto(server.url + '/');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows the history from activity: kinds, signs, states', async () => {
    await expect.poll(() => page.locator('#history-rows tr').count(), { timeout: UI_TIMEOUT_MS }).toBe(4);
    expect(await page.locator('#history-source').textContent()).toBe('(activity)');
    const rows = await page.locator('#history-rows tr').evaluateAll((trs) =>
      trs.map((tr) => ({ id: (tr as HTMLElement).dataset.txid, cells: Array.from(tr.querySelectorAll('td')).slice(1).map((td) => td.textContent) })),
    );
    expect(rows).toEqual([
      { id: '0-pending', cells: ['Sent', expect.stringContaining('…'), '−2.50000000', 'Pending'] },
      { id: '13-reward', cells: ['Mining reward', expect.any(String), '+0.00010000', 'Final · block 13'] },
      { id: '12-received', cells: ['Received', expect.stringContaining('…'), '+5.00000000', 'Final · block 12'] },
      { id: '0-error', cells: ['Sent', expect.any(String), '−1.00000000', 'Error'] },
    ]);
    expect(await page.locator('#history-rows tr[data-txid="12-received"] td').nth(2).getAttribute('title')).toBe(OTHER);
  });

  it('shows the balance, the status with peers and pending pool, and the miner counters', async () => {
    expect(await page.locator('#balance-total').textContent()).toBe('123,456.78901234');
    expect(await page.locator('#st-pending').textContent()).toBe('1 transaction');
    expect(await page.locator('#st-peers').textContent()).toBe('3 (2 out, 1 in)');
    await expect.poll(() => page.locator('#miner-facts dt').allTextContents()).toEqual(Object.keys(MINER));
    expect(await page.locator('#miner-facts dd').first().textContent()).toBe('1234');
    expect(await page.locator('#miner-note').isVisible()).toBe(false);
  });

  it('shows an operation the node lacks as "not available on this node" in words', async () => {
    await page.fill('#send-to', OTHER);
    await page.fill('#send-amount', '1');
    await page.click('#send-preview');
    await expect.poll(() => page.locator('#send-error').textContent()).toBe('The payment cannot be prepared: calculateTransactionFee is not available on this node.');
    await page.click('#new-address');
    await expect.poll(() => page.locator('#receive-error').textContent()).toBe('No new address: generateNewAddress is not available on this node.');
    expect(pageErrors).toEqual([]);
  });
});
