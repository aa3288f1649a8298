/**
 * A keystore key made outside the node (node:crypto, laid out by the user's own encoder from
 * reference-formats §6.1) keeps its identity: the public key is the stored key's prefix, so the
 * address is the one the chain derives from the same key in a transaction (§7.2, §7.3).
 */
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { addressToText } from '../../src/formats/address.js';
import { WalletKey } from '../../src/wallet/wallet.js';
import { addressText, derivedAddress, newKey, type KeyVersion } from '../e2e/own-codec.js';

describe('a wallet key imported from a keystore file', () => {
  for (const version of [0, 1, 2, 'headerless'] as KeyVersion[]) {
    it(`header byte ${String(version)}: its public key, primary and derived addresses are the stored key's`, () => {
      const own = version === 'headerless' ? newKey(4096, 65537, 'headerless') : newKey(1024, 3, version);
      const nonce = randomBytes(16);
      const key = new WalletKey({ privateKey: own.privateBytes, nonces: [nonce] });
      expect(Buffer.from(key.publicKey).toString('hex')).toBe(own.publicKey.toString('hex'));
      expect(key.primaryText).toBe(own.text);
      expect(key.addresses().map((a) => addressToText(a.address))).toEqual([own.text, addressText(derivedAddress(own.address, nonce))]);
      const data = randomBytes(44);
      expect(verify('sha512', data, createPublicKey(own.privateKey), key.sign(data))).toBe(true);
    });
  }
});
