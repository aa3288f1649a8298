/**
 * A node's first start generates its wallet's RSA-4096 key (seconds; tens on a loaded machine):
 * the log says so before it starts, rather than stay silent after "starting node".
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNode } from '../../src/node/node.js';
import { inProcessNodeOptions } from './options-fixture.js';
import type { Logger } from '../../src/log/logger.js';
import { keystorePath } from '../../src/wallet/keystore.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const optionsFor = inProcessNodeOptions;

/** A logger that records info messages and whether the keystore existed when each was logged. */
function recorder(dataDir: string): { log: Logger; lines: { msg: string; keystoreExisted: boolean }[] } {
  const lines: { msg: string; keystoreExisted: boolean }[] = [];
  const log: Logger = {
    info: (_fields, msg) => void lines.push({ msg: msg ?? '', keystoreExisted: existsSync(keystorePath(dataDir)) }),
    warn: () => undefined,
    error: () => undefined,
    debug: () => undefined,
    child: () => log,
  };
  return { log, lines };
}

describe('first start', () => {
  it('logs that it generates the wallet key before it does, and not on a later start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dltnode-first-'));
    dirs.push(dataDir);
    const first = recorder(dataDir);
    const node = await createNode(optionsFor(dataDir), first.log);
    await node.close();
    const keygen = first.lines.filter((l) => /generating the wallet key \(RSA-4096\)/.test(l.msg));
    expect(keygen).toEqual([{ msg: 'generating the wallet key (RSA-4096) for a new keystore; this takes a few seconds', keystoreExisted: false }]);
    expect(existsSync(keystorePath(dataDir))).toBe(true);

    const again = recorder(dataDir);
    const restarted = await createNode(optionsFor(dataDir), again.log);
    await restarted.close();
    expect(again.lines.filter((l) => /generating the wallet key/.test(l.msg))).toEqual([]);
  }, 120_000);
});
