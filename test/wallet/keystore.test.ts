import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KeystoreError, keystorePath, readKeystore, writeKeystore } from '../../src/wallet/keystore.js';
import { NodeWallet } from '../../src/wallet/wallet.js';

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
    // The operator is told how to give it (dltnode start and wallet address read both).
    expect(() => readKeystore(dir)).toThrow('give the wallet password (--wallet-password, or the DLTNODE_WALLET_PASSWORD environment variable)');
  });

  it('names a damaged keystore and what is wrong in it, never a TypeError', () => {
    const dir = tempDir();
    const cases: [string, RegExp][] = [
      ['null', /is not a keystore: it holds null instead of an object/],
      ['[]', /is not a keystore: it holds \[\] instead of an object/],
      ['{}', /is not a keystore: it has no "version" member$/],
      ['{"version":2}', /has version 2; this node reads version 1$/],
      ['{"version":1,"encrypted":false,"secret":{"keys":[]}}', /lacks its keys/],
      ['{"version":1,"encrypted":false,"secret":{}}', /lacks its keys/],
      ['{"version":1,"encrypted":false,"secret":{"keys":[{"privateKey":"zz","nonces":[]}]}}', /key 1: "privateKey" is not a hex string/],
      ['{"version":1,"encrypted":false,"secret":{"keys":[{"privateKey":"0011"}]}}', /key 1: "nonces" is not a list/],
      ['{"version":1,"encrypted":false,"secret":{"keys":[{"privateKey":"0011","nonces":["07"]}]}}', /key 1: nonce 1 is not 16 bytes of hex/],
    ];
    for (const [text, message] of cases) {
      writeFileSync(keystorePath(dir), text);
      expect(() => readKeystore(dir), text).toThrow(KeystoreError);
      expect(() => readKeystore(dir), text).toThrow(message);
    }
  });

  it('a password encrypts a plain keystore at the node start only; a command that reads it leaves it as it is', async () => {
    const dir = tempDir();
    await NodeWallet.open(dir);
    const plain = readFileSync(keystorePath(dir), 'utf8');
    // `dltnode init --sign-with DIR --wallet-password …` and `wallet address` only read it.
    const read = await NodeWallet.open(dir, 'pw');
    expect(read.encryptedNow).toBe(false);
    expect(readFileSync(keystorePath(dir), 'utf8')).toBe(plain);
    const started = await NodeWallet.open(dir, 'pw', { encryptPlain: true });
    expect(started.encryptedNow).toBe(true);
    expect(JSON.parse(readFileSync(keystorePath(dir), 'utf8')).encrypted).toBe(true);
    expect(() => readKeystore(dir)).toThrow(/encrypted: give the wallet password/);
    expect((await NodeWallet.open(dir, 'pw', { encryptPlain: true })).encryptedNow).toBe(false);
    expect(started.primary.primaryText).toBe(read.primary.primaryText);
  }, 60_000);
});
