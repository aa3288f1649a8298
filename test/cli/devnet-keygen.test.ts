/**
 * A first `dltnode devnet` generates one RSA-4096 wallet key per node before it prints anything
 * (seconds; tens on a loaded machine): it says so first, and not when the wallets exist.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { devnetKeygenLine, prepareDevnet } from '../../src/cli/devnet.js';
import { keystorePath } from '../../src/wallet/keystore.js';

const tmp = mkdtempSync(join(tmpdir(), 'dltnode-devnet-keygen-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('devnet wallet creation', () => {
  it('tells how many keys it is about to generate, before any exists, and nothing once they do', async () => {
    const dir = join(tmp, 'net');
    const told: { count: number; keystores: number }[] = [];
    const names = ['master-1', 'client-1'];
    const onKeygen = (count: number) => void told.push({ count, keystores: names.filter((n) => existsSync(keystorePath(join(dir, n)))).length });
    const o = { masters: 1, relays: 0, clients: 1, blockInterval: 1, dir, json: true, basePort: null, onKeygen };
    await prepareDevnet(o);
    expect(told).toEqual([{ count: 2, keystores: 0 }]);
    await prepareDevnet(o);
    expect(told).toHaveLength(1);
    expect(devnetKeygenLine(2)).toBe('generating 2 wallet keys (RSA-4096) for the new nodes; this takes a few seconds');
    expect(devnetKeygenLine(1)).toBe('generating 1 wallet key (RSA-4096) for the new nodes; this takes a few seconds');
  }, 120_000);
});
