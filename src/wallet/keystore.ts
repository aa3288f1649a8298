/**
 * The keystore file `<dataDir>/wallet.json`: the node's RSA wallet keys (reference private-key
 * layout, reference-formats.md §6.1) and the 16-byte nonces of the addresses derived from each key
 * (§7.3). With a password the secret part is encrypted at rest: scrypt (N = 2^15, r = 8, p = 1)
 * derives a 256-bit key, AES-256-GCM encrypts; the file stores salt, iv and tag.
 *
 * Writes go to a temporary file, are fsynced, then renamed over the old file, so a crash leaves
 * either the old or the new keystore, never a torn one.
 */
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../state/files.js';

export const KEYSTORE_FILE = 'wallet.json';
const KEYSTORE_VERSION = 1;
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 2 ** 20 } as const;
const SALT_BYTES = 16;
const IV_BYTES = 12;

/** One keypair of the keystore. */
export interface StoredKey {
  /** Private key in the reference layout (§6.1); its prefix is the public key. */
  privateKey: Uint8Array;
  /** 16-byte nonces of the derived addresses, in creation order. */
  nonces: Uint8Array[];
}

interface SecretJson {
  keys: { privateKey: string; nonces: string[] }[];
}

interface FileJson {
  version: number;
  encrypted: boolean;
  secret?: SecretJson;
  kdf?: { name: 'scrypt'; N: number; r: number; p: number; salt: string };
  cipher?: { name: 'aes-256-gcm'; iv: string; tag: string; data: string };
}

export class KeystoreError extends Error {
  override name = 'KeystoreError';
}

export const keystorePath = (dataDir: string): string => join(dataDir, KEYSTORE_FILE);

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const unhex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'hex'));

/** Reads the keystore, or returns null when the file does not exist. */
export function readKeystore(dataDir: string, password?: string): StoredKey[] | null {
  const path = keystorePath(dataDir);
  if (!existsSync(path)) return null;
  let file: FileJson;
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as FileJson;
  } catch (err) {
    throw new KeystoreError(`keystore ${path} is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof file !== 'object' || file === null || Array.isArray(file)) {
    throw new KeystoreError(`keystore ${path} is not a keystore: it holds ${JSON.stringify(file)} instead of an object`);
  }
  if (file.version === undefined) throw new KeystoreError(`keystore ${path} is not a keystore: it has no "version" member`);
  if (file.version !== KEYSTORE_VERSION) {
    throw new KeystoreError(`keystore ${path} has version ${file.version}; this node reads version ${KEYSTORE_VERSION}`);
  }
  let secret: SecretJson;
  if (file.encrypted) {
    if (!password) throw new KeystoreError(`keystore ${path} is encrypted: give the wallet password (--wallet-password, or the DLTNODE_WALLET_PASSWORD environment variable)`);
    const { kdf, cipher } = file;
    if (!kdf || !cipher) throw new KeystoreError(`keystore ${path} is encrypted but lacks its kdf/cipher members`);
    const key = scryptSync(password, Buffer.from(kdf.salt, 'hex'), 32, { N: kdf.N, r: kdf.r, p: kdf.p, maxmem: SCRYPT.maxmem });
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(cipher.iv, 'hex'));
    decipher.setAuthTag(Buffer.from(cipher.tag, 'hex'));
    try {
      const plain = Buffer.concat([decipher.update(Buffer.from(cipher.data, 'hex')), decipher.final()]);
      secret = JSON.parse(plain.toString('utf8')) as SecretJson;
    } catch {
      throw new KeystoreError(`wrong wallet password for keystore ${path}`);
    }
  } else {
    if (!file.secret) throw new KeystoreError(`keystore ${path} lacks its keys`);
    secret = file.secret;
  }
  return storedKeys(secret, path);
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;

/** The keys of a decoded secret, each member checked: a damaged file is named, never half-read. */
function storedKeys(secret: SecretJson, path: string): StoredKey[] {
  const keys = (secret as Partial<SecretJson> | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0) throw new KeystoreError(`keystore ${path} lacks its keys (its "keys" list is missing or empty)`);
  return keys.map((k, i) => {
    const where = `keystore ${path}, key ${i + 1}`;
    if (typeof k?.privateKey !== 'string' || !HEX.test(k.privateKey)) throw new KeystoreError(`${where}: "privateKey" is not a hex string`);
    if (!Array.isArray(k.nonces)) throw new KeystoreError(`${where}: "nonces" is not a list`);
    k.nonces.forEach((n, j) => {
      if (typeof n !== 'string' || !/^[0-9a-fA-F]{32}$/.test(n)) throw new KeystoreError(`${where}: nonce ${j + 1} is not 16 bytes of hex`);
    });
    return { privateKey: unhex(k.privateKey), nonces: k.nonces.map(unhex) };
  });
}

/** True when the keystore file exists and is encrypted (read after a successful readKeystore). */
export function keystoreIsEncrypted(dataDir: string): boolean {
  try {
    return (JSON.parse(readFileSync(keystorePath(dataDir), 'utf8')) as FileJson).encrypted === true;
  } catch {
    return false;
  }
}

/** Writes the keystore atomically (temp file, fsync, rename), encrypted when `password` is set. */
export function writeKeystore(dataDir: string, keys: StoredKey[], password?: string): void {
  const secret: SecretJson = { keys: keys.map((k) => ({ privateKey: hex(k.privateKey), nonces: k.nonces.map(hex) })) };
  let file: FileJson;
  if (password) {
    const salt = randomBytes(SALT_BYTES);
    const iv = randomBytes(IV_BYTES);
    const key = scryptSync(password, salt, 32, SCRYPT);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const data = Buffer.concat([cipher.update(JSON.stringify(secret), 'utf8'), cipher.final()]);
    file = {
      version: KEYSTORE_VERSION,
      encrypted: true,
      kdf: { name: 'scrypt', N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, salt: salt.toString('hex') },
      cipher: { name: 'aes-256-gcm', iv: iv.toString('hex'), tag: cipher.getAuthTag().toString('hex'), data: data.toString('hex') },
    };
  } else {
    file = { version: KEYSTORE_VERSION, encrypted: false, secret };
  }
  writeFileAtomic(keystorePath(dataDir), JSON.stringify(file, null, 2), 0o600);
}
