import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KeystoreError, keystorePath, readKeystore, writeKeystore } from '../../src/wallet/keystore.js';

const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'dltnode-ks-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const keys = [{ privateKey: Uint8Array.from([1, 2, 3, 250]), nonces: [new Uint8Array(16).fill(7)] }];

describe('keystore', () => {
  it('returns null when no keystore exists', () => {
    expect(readKeystore(tempDir())).toBeNull();
  });

  it('round-trips plain keys', () => {
    const dir = tempDir();
    writeKeystore(dir, keys);
    expect(readKeystore(dir)).toEqual(keys);
  });

  it('encrypts at rest with a password and refuses a wrong or missing one', () => {
    const dir = tempDir();
    writeKeystore(dir, keys, 'correct horse');
    const text = readFileSync(keystorePath(dir), 'utf8');
    expect(text).not.toContain('010203fa');
    expect(JSON.parse(text).cipher.name).toBe('aes-256-gcm');
    expect(readKeystore(dir, 'correct horse')).toEqual(keys);
    expect(() => readKeystore(dir, 'wrong')).toThrow(KeystoreError);
    expect(() => readKeystore(dir)).toThrow(/encrypted: give the wallet password/);
  });
});
