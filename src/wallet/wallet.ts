/**
 * The node's wallets: RSA keypairs from the keystore (an RSA-4096 one created on first start), each
 * with the primary address its key's header byte selects (reference-formats.md §7.2: v1 for the
 * header byte 01 current wallets write, and the node too) and the addresses derived from it with
 * 16-byte nonces (§7.3).
 */
import { randomBytes } from 'node:crypto';
import { addressToText, deriveAddress, primaryAddressFromPublicKey } from '../formats/address.js';
import { equalBytes } from '../formats/bytes.js';
import type { KeyObject } from 'node:crypto';
import { generateWalletKey, privateKeyFromBytes, publicKeyOf, signBytes } from '../formats/rsa.js';
import { KeystoreError, keystoreIsEncrypted, keystorePath, readKeystore, type StoredKey, writeKeystore } from './keystore.js';

const NONCE_BYTES = 16;
/** The 1-byte nonce key of a primary address in a transaction's fromList (§8.3). */
export const PRIMARY_NONCE = Uint8Array.of(0);

/**
 * Derived addresses one wallet key may hold (`generateNewAddress`). Every address is re-derived
 * when the wallet looks one up (`nonceOf`, balances over all addresses) and the whole keystore is
 * rewritten (and re-encrypted) for each new address, so an unbounded count would make each call
 * slower than the last and let one caller grow the keystore without end. 1,000 addresses keep a
 * lookup under a millisecond and the keystore under 100 kB.
 */
export const MAX_DERIVED_ADDRESSES = 1000;

/** `generateNewAddress` on a key that already holds {@link MAX_DERIVED_ADDRESSES} derived addresses. */
export class WalletLimitError extends RangeError {
  override name = 'WalletLimitError';
  readonly code = 'WALLET_ADDRESS_LIMIT';
}

export class WalletKey {
  readonly publicKey: Uint8Array;
  readonly primary: Uint8Array;
  readonly primaryText: string;
  /** Parsed once: signing with a KeyObject skips re-reading the layout on every signature. */
  private readonly keyObject: KeyObject;

  constructor(readonly stored: StoredKey) {
    this.keyObject = privateKeyFromBytes(stored.privateKey);
    // The stored key's own public prefix (§6.1), header byte included: it selects the address
    // version (§7.2), so a key re-serialized with the default header 01 named another address.
    this.publicKey = publicKeyOf(stored.privateKey);
    this.primary = primaryAddressFromPublicKey(this.publicKey);
    this.primaryText = addressToText(this.primary);
  }

  /** Every address of this key: the primary one first, then the derived ones, with their nonce keys. */
  addresses(): { address: Uint8Array; nonce: Uint8Array }[] {
    return [
      { address: this.primary, nonce: PRIMARY_NONCE },
      ...this.stored.nonces.map((nonce) => ({ address: deriveAddress(this.primary, nonce), nonce })),
    ];
  }

  /** The nonce key of one of this key's addresses, or null when the address is not this key's. */
  nonceOf(address: Uint8Array): Uint8Array | null {
    return this.addresses().find((a) => equalBytes(a.address, address))?.nonce ?? null;
  }

  /** Bytes of this key's signatures: the modulus length (reference-formats.md §6.2). */
  get signatureLength(): number {
    return Math.ceil(this.keyObject.asymmetricKeyDetails!.modulusLength! / 8);
  }

  /** RSA PKCS#1 v1.5 with SHA-512 over `data` (reference-formats.md §6.2). */
  sign(data: Uint8Array): Uint8Array {
    return signBytes(this.keyObject, data);
  }
}

/** The node's log line before it generates the key of a new keystore (seconds of silence otherwise). */
export const WALLET_KEYGEN_LOG = 'generating the wallet key (RSA-4096) for a new keystore; this takes a few seconds';

export class NodeWallet {
  private constructor(
    private readonly dataDir: string,
    private readonly password: string | undefined,
    readonly keys: WalletKey[],
  ) {}

  /**
   * Loads the keystore, creating it with one new RSA-4096 key on first start.
   * @param opts.mustExist a reason the keystore may not be created (the directory already holds a
   *   chain made with its key): a missing keystore is then a KeystoreError saying so
   * @param opts.encryptPlain a plain keystore opened with a password is encrypted with it at once
   *   (`encryptedNow`), not at its next write (the node's start; never a command that only reads it)
   * @param opts.onCreate called before a new key is generated (seconds of RSA-4096 key generation,
   *   which a node's log says rather than stay silent)
   * @throws KeystoreError naming the file when it is missing (with mustExist), damaged, or the password is wrong
   */
  static async open(dataDir: string, password?: string, opts: { mustExist?: string; encryptPlain?: boolean; onCreate?: () => void } = {}): Promise<NodeWallet> {
    let stored = readKeystore(dataDir, password);
    if (!stored) {
      if (opts.mustExist) throw new KeystoreError(`keystore ${keystorePath(dataDir)} is missing, ${opts.mustExist}: restore wallet.json (from a backup), or give another --data-dir`);
      opts.onCreate?.();
      const key = await generateWalletKey();
      stored = [{ privateKey: key.privateKey, nonces: [] }];
      writeKeystore(dataDir, stored, password);
    }
    const keys = stored.map((s, i) => {
      try {
        return new WalletKey(s);
      } catch (err) {
        throw new KeystoreError(`keystore ${keystorePath(dataDir)}, key ${i + 1}: not a usable RSA private key (${(err as Error).message})`);
      }
    });
    const wallet = new NodeWallet(dataDir, password, keys);
    if (opts.encryptPlain) wallet.encryptAtRest();
    return wallet;
  }

  /** True when `open` or `encryptAtRest` encrypted a plain keystore with the password it was given. */
  encryptedNow = false;

  /**
   * Encrypts a plain keystore with the wallet's password, if it was opened with one: true when it
   * did. The node calls it once the data directory passed its checks, so a refused start leaves
   * the keystore as it was.
   */
  encryptAtRest(): boolean {
    if (!this.password || keystoreIsEncrypted(this.dataDir)) return false;
    writeKeystore(this.dataDir, this.keys.map((k) => k.stored), this.password);
    this.encryptedNow = true;
    return true;
  }

  /** The main wallet: the first key of the keystore. */
  get primary(): WalletKey {
    return this.keys[0]!;
  }

  /** How many addresses the wallet holds (primary and derived, over every key); it only grows. */
  addressCount(): number {
    return this.keys.reduce((n, k) => n + 1 + k.stored.nonces.length, 0);
  }

  /** Every address of every key (`addressNoChecksum`). */
  allAddresses(): Uint8Array[] {
    return this.keys.flatMap((k) => k.addresses().map((a) => a.address));
  }

  /** The key whose primary address is `text` (the `wallet` / `primaryAddress` parameters). */
  byPrimaryText(text: string): WalletKey | undefined {
    return this.keys.find((k) => k.primaryText === text);
  }

  /**
   * Derives and stores a new address of `key` (nonce = random 16 bytes), returning it.
   * @throws WalletLimitError when `key` already holds {@link MAX_DERIVED_ADDRESSES} derived addresses
   */
  newAddress(key: WalletKey = this.primary): Uint8Array {
    if (key.stored.nonces.length >= MAX_DERIVED_ADDRESSES) {
      throw new WalletLimitError(
        `The wallet ${key.primaryText} already holds ${MAX_DERIVED_ADDRESSES} derived addresses, the most one wallet may have; use one of them or another wallet`,
      );
    }
    const nonce = new Uint8Array(randomBytes(NONCE_BYTES));
    key.stored.nonces.push(nonce);
    writeKeystore(this.dataDir, this.keys.map((k) => k.stored), this.password);
    return deriveAddress(key.primary, nonce);
  }
}
