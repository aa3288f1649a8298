/**
 * `dltnode wallet address` and `dltnode init --sign-with` on a data directory without a keystore
 * generate an RSA-4096 key (seconds): they say so on stderr first, as devnet and start do; stdout
 * stays the address (or init's line), and nothing is said when the keystore exists.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { initCommand, walletCommand } from '../../src/cli/network-setup.js';
import { WALLET_KEYGEN_LOG } from '../../src/wallet/wallet.js';

const tmp = mkdtempSync(join(tmpdir(), 'dltnode-keygen-notice-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** Runs `fn` with stdout (console.log) and stderr captured, in the order written. */
async function captured(fn: () => Promise<number>): Promise<{ code: number; out: string[]; err: string[]; order: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const order: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void (out.push(a.join(' ')), order.push('out')));
  vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: string | Uint8Array) => (err.push(String(chunk)), order.push('err'), true)) as never);
  const code = await fn();
  return { code, out, err, order };
}

describe('a new wallet key is announced on stderr', () => {
  it('wallet address: the notice first on stderr, the address alone on stdout; a second run says nothing', async () => {
    const dir = join(tmp, 'node');
    const first = await captured(() => walletCommand(['address', '--data-dir', dir], {}));
    expect(first.code).toBe(0);
    expect(first.err).toEqual([`${WALLET_KEYGEN_LOG}\n`]);
    expect(first.out).toHaveLength(1);
    expect(first.out[0]).toMatch(/^[1-9A-HJ-NP-Za-km-z]+$/);
    expect(first.order).toEqual(['err', 'out']);
    const again = await captured(() => walletCommand(['address', '--data-dir', dir], {}));
    expect(again.err).toEqual([]);
    expect(again.out).toEqual(first.out);
  }, 120_000);

  it('init --sign-with a new data directory: the notice on stderr before init writes its line', async () => {
    const dir = join(tmp, 'creator');
    const A = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';
    const r = await captured(() => initCommand(['--out', join(tmp, 'genesis.json'), '--fund', `${A}=1`, '--master', A, '--sign-with', dir], {}));
    expect(r.code).toBe(0);
    expect(r.err).toEqual([`${WALLET_KEYGEN_LOG}\n`]);
    expect(r.out).toHaveLength(1);
    expect(r.out[0]).toMatch(/^genesis of network .* genesis transaction signed$/);
  }, 120_000);
});
