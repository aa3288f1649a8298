import { beforeAll, describe, expect, it } from 'vitest';
import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { sha3_512 } from '@noble/hashes/sha3.js';
import { fromHex, toHex } from '../../src/formats/bytes.js';
import { RsaKeyError } from '../../src/formats/errors.js';
import {
  generateWalletKey,
  messageDigest,
  parseKeyLayout,
  privateKeyFromBytes,
  privateKeyToBytes,
  publicKeyFromBytes,
  publicKeyOf,
  publicKeyToBytes,
  signBytes,
  signMessage,
  verifyMessage,
  verifySignature,
  type WalletKey,
} from '../../src/formats/rsa.js';
import { Address } from '../../src/formats/address.js';
import { DOCS_VERIFY_MESSAGE, DOCS_VERIFY_PUBLIC_KEY_HEX, DOCS_VERIFY_SIGNATURE_HEX } from './docs-vectors.js';

const publicKey = fromHex(DOCS_VERIFY_PUBLIC_KEY_HEX);
const signature = fromHex(DOCS_VERIFY_SIGNATURE_HEX);
const flip = (b: Uint8Array, i: number, mask = 1) => {
  const c = b.slice();
  c[i] = c[i]! ^ mask;
  return c;
};

describe('§6.3 docs verify example [VERIFIED]', () => {
  it('parses the key layout', () => {
    const layout = parseKeyLayout(publicKey, 'public');
    expect(layout.version).toBe(1);
    expect(layout.formatVersion).toBe(0);
    expect(layout.modulus.length).toBe(512);
    expect(toHex(layout.modulus.subarray(0, 4))).toBe('ec677464');
    expect(toHex(layout.exponent)).toBe('010001');
    expect(publicKeyFromBytes(publicKey).asymmetricKeyDetails).toEqual({ modulusLength: 4096, publicExponent: 65537n });
  });

  it('the message digest is sha3_512sqTrunc("test", 44)', () => {
    const expected = '946f77802240fe1c0f070a36db896022be809609f79ccbf52679c525bd0681209569be6210a2119973daf894';
    expect(toHex(messageDigest('test'))).toBe(expected);
    // independent: two rounds of noble's SHA3-512
    expect(toHex(sha3_512(sha3_512(new TextEncoder().encode('test'))).subarray(0, 44))).toBe(expected);
  });

  it('verifies with message, and with the hash', () => {
    expect(verifyMessage({ publicKey, signature, message: DOCS_VERIFY_MESSAGE })).toBe(true);
    expect(verifyMessage({ publicKey, signature, hash: messageDigest('test') })).toBe(true);
    expect(verifySignature(publicKey, messageDigest('test'), signature)).toBe(true);
    // `message` wins over `hash`
    expect(verifyMessage({ publicKey, signature, message: 'test', hash: new Uint8Array(44) })).toBe(true);
  });

  it('fails for a flipped bit in the key, the message or the signature', () => {
    expect(verifyMessage({ publicKey, signature, message: 'tesu' })).toBe(false);
    expect(verifyMessage({ publicKey, signature, message: 'test ' })).toBe(false);
    expect(verifyMessage({ publicKey, signature: flip(signature, 100), message: 'test' })).toBe(false);
    expect(verifyMessage({ publicKey, signature: flip(signature, 511, 0x80), message: 'test' })).toBe(false);
    expect(verifyMessage({ publicKey: flip(publicKey, 300), signature, message: 'test' })).toBe(false);
    expect(verifyMessage({ publicKey, signature, hash: flip(messageDigest('test'), 43) })).toBe(false);
    // the raw UTF-8 message and the pre-2022 hashing are not what was signed (§6.3)
    expect(verifyMessage({ publicKey, signature, hash: new TextEncoder().encode('test') })).toBe(false);
  });

  it('a cached key is found only for the same bytes: a key differing outside the cache probe is another key', () => {
    // The parsed-key cache finds keys by bytes 16-48 (inside the modulus) and compares the rest.
    const sameProbe = flip(publicKey, 300);
    expect(sameProbe.subarray(16, 48)).toEqual(publicKey.subarray(16, 48));
    for (const order of [[publicKey, sameProbe], [sameProbe, publicKey]]) {
      for (const key of order) expect(verifySignature(key, messageDigest('test'), signature)).toBe(key === publicKey);
    }
    // A view into a larger buffer (as a worker unpacks it) finds the same key.
    const view = new Uint8Array(publicKey.length + 7);
    view.set(publicKey, 3);
    expect(verifySignature(view.subarray(3, 3 + publicKey.length), messageDigest('test'), signature)).toBe(true);
  });

  it('the key maps to the documented v1 address', () => {
    expect(Address.fromPublicKey(publicKey).base58Address).toBe(
      '4iMKArchGjmLsZFsj2tYrBgPjjypvEwquB2pnbEvYAyihSeEi1FN5XBsWru2iKDXK',
    );
  });

  it('the headerless 523-byte form of the key verifies too', () => {
    const headerless = publicKey.slice(5);
    expect(verifyMessage({ publicKey: headerless, signature, message: 'test' })).toBe(true);
    expect(parseKeyLayout(headerless, 'public').version).toBeNull();
  });

  it('re-serializing the parsed key gives the same bytes', () => {
    const key = publicKeyFromBytes(publicKey);
    expect(toHex(publicKeyToBytes(key))).toBe(DOCS_VERIFY_PUBLIC_KEY_HEX);
    expect(toHex(publicKeyToBytes(key, { headerless: true }))).toBe(DOCS_VERIFY_PUBLIC_KEY_HEX.slice(10));
    expect(publicKeyToBytes(key, { version: 2 })[0]).toBe(2);
  });
});

describe('malformed keys and signatures give false, wrong types throw', () => {
  it.each([
    ['empty', new Uint8Array(0)],
    ['header only', fromHex('0100000000')],
    ['truncated', publicKey.subarray(0, 527)],
    ['trailing byte', Uint8Array.from([...publicKey, 0])],
    ['modulus length too big', (() => { const k = publicKey.slice(); k[8] = 0x7f; return k; })()],
    ['negative length', (() => { const k = publicKey.slice(); k[8] = 0xff; return k; })()],
    ['even exponent', (() => { const k = publicKey.slice(); k[527] = 0; return k; })()],
  ])('%s key → false', (_name, key) => {
    expect(verifyMessage({ publicKey: key, signature, message: 'test' })).toBe(false);
    expect(() => publicKeyFromBytes(key)).toThrow(RsaKeyError);
  });

  it('small modulus is refused with a reason', () => {
    const { publicKey: small } = generateKeyPairSync('rsa', { modulusLength: 512 });
    expect(() => publicKeyFromBytes(publicKeyToBytes(small))).toThrow(/modulus is 512 bits/);
  });

  it('wrong signature lengths → false', () => {
    expect(verifySignature(publicKey, messageDigest('test'), signature.subarray(1))).toBe(false);
    expect(verifySignature(publicKey, messageDigest('test'), new Uint8Array(0))).toBe(false);
    expect(verifySignature(publicKey, messageDigest('test'), new Uint8Array(513).fill(0xff))).toBe(false);
  });

  it('TypeErrors', () => {
    expect(() => verifySignature('00' as unknown as Uint8Array, new Uint8Array(1), signature)).toThrow(TypeError);
    expect(() => verifyMessage({ publicKey, signature } as never)).toThrow(/'message' or 'hash'/);
    expect(() => verifyMessage({ publicKey, signature, message: 5 } as never)).toThrow(TypeError);
    expect(() => verifyMessage(null as never)).toThrow(TypeError);
    expect(() => signBytes(createPublicKey(publicKeyToPem()), new Uint8Array(1))).toThrow(TypeError);
  });
});

function publicKeyToPem(): string {
  return publicKeyFromBytes(publicKey).export({ format: 'pem', type: 'spki' }) as string;
}

describe('key generation, layouts, signing', () => {
  let wallet: WalletKey;
  let signer: { privateKey: KeyObject };
  beforeAll(async () => {
    wallet = await generateWalletKey();
    signer = generateKeyPairSync('rsa', { modulusLength: 2048 });
  }, 60_000);

  it('a wallet key is RSA-4096, e = 65537, header 01, 528-byte public key, 2344-byte private key', () => {
    expect(wallet.publicKey.length).toBe(528);
    expect(wallet.publicKey[0]).toBe(1);
    expect(toHex(wallet.publicKey.subarray(1, 9))).toBe('0000000000020000');
    expect(wallet.privateKey.length).toBe(2339 + 5);
    expect(wallet.privateKeyObject.asymmetricKeyDetails).toEqual({ modulusLength: 4096, publicExponent: 65537n });
    expect(publicKeyOf(wallet.privateKey)).toEqual(wallet.publicKey);
    expect(publicKeyOf(wallet.privateKeyObject)).toEqual(wallet.publicKey);
    expect(Address.fromPublicKey(wallet.publicKey).version).toBe(1);
  });

  it('private layout round trip (headered and headerless) signs the same', () => {
    const bytes = privateKeyToBytes(wallet.privateKeyObject);
    expect(bytes).toEqual(wallet.privateKey);
    const back = privateKeyFromBytes(bytes);
    const data = messageDigest('round trip');
    // PKCS#1 v1.5 is deterministic: same key → same signature
    expect(signBytes(back, data)).toEqual(signBytes(wallet.privateKeyObject, data));
    const headerless = privateKeyToBytes(wallet.privateKeyObject, { headerless: true });
    expect(headerless.length).toBe(2339);
    expect(publicKeyOf(headerless).length).toBe(523);
    expect(signBytes(headerless, data)).toEqual(signBytes(bytes, data));
  });

  it('sign → verify; tampering fails', () => {
    const sig = signMessage(wallet.privateKey, 'hello');
    expect(sig.length).toBe(512);
    expect(verifyMessage({ publicKey: wallet.publicKey, signature: sig, message: 'hello' })).toBe(true);
    expect(verifyMessage({ publicKey: wallet.publicKey, signature: sig, message: 'hellp' })).toBe(false);
    expect(verifyMessage({ publicKey, signature: sig, message: 'hello' })).toBe(false);
    const checksum = new Uint8Array(44).fill(3);
    const txSig = signBytes(wallet.privateKeyObject, checksum);
    expect(verifySignature(wallet.publicKey, checksum, txSig)).toBe(true);
    expect(verifySignature(wallet.publicKey, flip(checksum, 0), txSig)).toBe(false);
  });

  it('2048-bit signer keys (§6.1: 272-byte public key with header 02)', () => {
    const pub = publicKeyToBytes(signer.privateKey, { version: 2 });
    expect(pub.length).toBe(272);
    const sig = signBytes(signer.privateKey, new Uint8Array(64));
    expect(sig.length).toBe(256);
    expect(verifySignature(pub, new Uint8Array(64), sig)).toBe(true);
  });

  it('headerless form only for 4096-bit, e = 65537', () => {
    expect(() => publicKeyToBytes(signer.privateKey, { headerless: true })).toThrow(/only for 4096-bit/);
    expect(() => publicKeyToBytes(signer.privateKey, { version: 3 as 1 })).toThrow(/0, 1 or 2/);
  });

  it('malformed private keys are refused with RsaKeyError', async () => {
    expect(() => privateKeyFromBytes(wallet.privateKey.subarray(0, 2000))).toThrow(RsaKeyError);
    expect(() => signBytes(wallet.publicKey, new Uint8Array(1))).toThrow(RsaKeyError);
    await expect(generateWalletKey({ bits: 100 })).rejects.toThrow(RangeError);
  });
});
