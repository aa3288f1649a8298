import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHash, createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  deriveMessageKey,
  deriveSessionKeys,
  ecdhKeyPair,
  ecdhSharedSecret,
  hkdfSha3_512,
  HKDF_INFO_AES,
  mlkemDecapsulate,
  mlkemEncapsulate,
  mlkemKeyPair,
  noble,
  rsa2Decrypt,
  rsa2Encrypt,
  secureRandom,
  spixi2Decrypt,
  spixi2Encrypt,
  stripLeadingZeros,
} from '../../src/messaging/crypto.js';
import { MessagingError } from '../../src/messaging/errors.js';
import { privateKeyToBytes, publicKeyToBytes } from '../../src/formats/rsa.js';
import { toHex } from '../../src/formats/bytes.js';

const code = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (e) {
    return e instanceof MessagingError ? e.code : `not a MessagingError: ${String(e)}`;
  }
  return undefined;
};

/** HKDF written out from RFC 5869 with node's HMAC-SHA3-512: a third, independent implementation. */
function rfc5869(ikm: Uint8Array, salt: Uint8Array, info: Uint8Array, length: number): Uint8Array {
  const prk = createHmac('sha3-512', salt.length ? salt : new Uint8Array(64)).update(ikm).digest();
  const out: Buffer[] = [];
  let t = Buffer.alloc(0);
  for (let i = 1; out.length * 64 < length; i++) {
    t = createHmac('sha3-512', prk).update(Buffer.concat([t, info, Buffer.of(i)])).digest();
    out.push(t);
  }
  return new Uint8Array(Buffer.concat(out).subarray(0, length));
}

describe('ECDH secp521r1', () => {
  it('node:crypto and @noble agree on public keys and secrets; keys are compressed points', () => {
    for (let i = 0; i < 8; i++) {
      const a = ecdhKeyPair();
      const b = noble.ecdhKeyPair();
      expect(a.publicKey).toHaveLength(67);
      expect([2, 3]).toContain(a.publicKey[0]);
      expect(noble.ecdhPublicKey(a.privateKey)).toEqual(a.publicKey);
      const s = ecdhSharedSecret(a.privateKey, b.publicKey);
      expect(s).toEqual(ecdhSharedSecret(b.privateKey, a.publicKey));
      expect(s).toEqual(noble.ecdhSharedSecret(a.privateKey, b.publicKey));
      expect(s[0]).not.toBe(0);
    }
  });

  it('drops the leading zero bytes of the x-coordinate (reference QUIRK), so secrets can be 65 bytes', () => {
    // The x-coordinate's top byte holds one bit (521 = 65·8 + 1): about half the secrets start with 0.
    let found = 0;
    for (let i = 0; i < 64 && found < 2; i++) {
      const a = ecdhKeyPair();
      const b = ecdhKeyPair();
      const s = ecdhSharedSecret(a.privateKey, b.publicKey);
      if (s.length < 66) {
        found++;
        const full = noble.ecdhSharedSecret(a.privateKey, b.publicKey);
        expect(full).toEqual(s);
        const ml = new Uint8Array(32).fill(5);
        const salt = new Uint8Array(32);
        const padded = new Uint8Array(66);
        padded.set(s, 66 - s.length);
        // the keys differ from what an unstripped secret would give: the quirk matters for bytes
        expect(deriveSessionKeys(s, ml, salt, salt).aesKey).not.toEqual(deriveSessionKeys(padded, ml, salt, salt).aesKey);
      }
    }
    expect(found).toBeGreaterThan(0);
    expect(stripLeadingZeros(Uint8Array.of(0, 0, 1, 0))).toEqual(Uint8Array.of(1, 0));
  });

  it('bad keys give ERR_KEY', () => {
    const a = ecdhKeyPair();
    expect(code(() => ecdhSharedSecret(a.privateKey, new Uint8Array(67).fill(2)))).toBe('ERR_KEY');
    expect(code(() => ecdhSharedSecret(a.privateKey, new Uint8Array(65)))).toBe('ERR_KEY');
    expect(code(() => ecdhSharedSecret(new Uint8Array(0), a.publicKey))).toBe('ERR_KEY');
  });
});

describe('ML-KEM-1024', () => {
  it('encapsulate / decapsulate agree; a changed ciphertext gives another secret (implicit rejection)', () => {
    const k = mlkemKeyPair();
    expect(k.publicKey).toHaveLength(1568);
    const { ciphertext, sharedSecret } = mlkemEncapsulate(k.publicKey);
    expect(ciphertext).toHaveLength(1568);
    expect(mlkemDecapsulate(k.privateKey, ciphertext)).toEqual(sharedSecret);
    const bad = ciphertext.slice();
    bad[5]! ^= 1;
    expect(mlkemDecapsulate(k.privateKey, bad)).not.toEqual(sharedSecret);
    expect(code(() => mlkemEncapsulate(new Uint8Array(100)))).toBe('ERR_KEY');
    expect(code(() => mlkemDecapsulate(k.privateKey, new Uint8Array(100)))).toBe('ERR_KEY');
  });
});

describe('HKDF-SHA3-512', () => {
  it('node:crypto, @noble/hashes and RFC 5869 written out agree (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 200 }), fc.uint8Array({ maxLength: 80 }), fc.string(), fc.integer({ min: 1, max: 200 }), (ikm, salt, info, n) => {
        const ours = hkdfSha3_512(ikm, salt, info, n);
        expect(ours).toEqual(noble.hkdfSha3_512(ikm, salt, info, n));
        expect(ours).toEqual(rfc5869(ikm, salt, new TextEncoder().encode(info), n));
      }),
      { numRuns: 200 },
    );
  });

  it('session keys use the reference labels and separate salts', () => {
    const ecdh = randomBytes(66);
    const ml = randomBytes(32);
    const aesSalt = randomBytes(32);
    const chachaSalt = randomBytes(32);
    const k = deriveSessionKeys(ecdh, ml, aesSalt, chachaSalt);
    const ikm = Buffer.concat([ecdh, ml]);
    expect(k.aesKey).toEqual(rfc5869(ikm, aesSalt, Buffer.from('IXI AES Key'), 32));
    expect(k.chachaKey).toEqual(rfc5869(ikm, chachaSalt, Buffer.from('IXI ChaCha Key'), 32));
    expect(HKDF_INFO_AES).toBe('IXI AES Key');
  });
});

describe('spixi2 (AES-256-GCM inside ChaCha20-Poly1305)', () => {
  const aes = new Uint8Array(32).fill(0x0a);
  const cha = new Uint8Array(32).fill(0x0c);
  const aad = Uint8Array.of(1, 2, 3);

  it('per-message key and IV = SHA3-512(SHA3-512(K ‖ nonce)) split 32 | 12', () => {
    const nonce = new Uint8Array(64).fill(7);
    const h = createHash('sha3-512').update(createHash('sha3-512').update(Buffer.concat([aes, nonce])).digest()).digest();
    const d = deriveMessageKey(aes, nonce);
    expect(toHex(d.key)).toBe(h.subarray(0, 32).toString('hex'));
    expect(toHex(d.iv)).toBe(h.subarray(32, 44).toString('hex'));
  });

  it('node:crypto and @noble/ciphers give the same bytes, and each decrypts the other (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 500 }), fc.uint8Array({ minLength: 64, maxLength: 64 }), fc.uint8Array({ maxLength: 40 }), (plain, nonce, ad) => {
        const a = spixi2Encrypt(plain, aes, cha, ad, nonce);
        const b = noble.spixi2Encrypt(plain, aes, cha, ad, nonce);
        expect(a).toEqual(b);
        expect(a).toHaveLength(1 + 64 + (plain.length + 32 < 0xf8 ? 1 : 3) + plain.length + 32);
        expect(spixi2Decrypt(b, aes, cha, ad)).toEqual(plain);
        expect(noble.spixi2Decrypt(a, aes, cha, ad)).toEqual(plain);
      }),
      { numRuns: 200 },
    );
  });

  it('framing: lp(64-byte nonce) ‖ lp(ChaCha20-Poly1305(AES-GCM(plain)))', () => {
    const nonce = new Uint8Array(64).fill(1);
    const sealed = spixi2Encrypt(Uint8Array.of(0x68, 0x69), aes, cha, aad, nonce);
    expect(sealed[0]).toBe(64);
    expect(sealed.subarray(1, 65)).toEqual(nonce);
    expect(sealed[65]).toBe(2 + 16 + 16);
  });

  it('any flipped bit, a wrong AAD or a wrong key is ERR_DECRYPT', () => {
    const sealed = spixi2Encrypt(new TextEncoder().encode('hello'), aes, cha, aad);
    for (let i = 0; i < sealed.length; i++) {
      const t = sealed.slice();
      t[i]! ^= 0x10;
      expect(code(() => spixi2Decrypt(t, aes, cha, aad))).toBe('ERR_DECRYPT');
    }
    expect(code(() => spixi2Decrypt(sealed, aes, cha, Uint8Array.of(1, 2, 4)))).toBe('ERR_DECRYPT');
    expect(code(() => spixi2Decrypt(sealed, cha, cha, aad))).toBe('ERR_DECRYPT');
    expect(code(() => spixi2Decrypt(sealed, aes, new Uint8Array(31), aad))).toBe('ERR_KEY');
  });

  it('random bytes only ever give ERR_DECRYPT (property)', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), (b) => {
      expect(code(() => spixi2Decrypt(b, aes, cha, aad))).toBe('ERR_DECRYPT');
    }), { numRuns: 1000 });
  });
});

describe('rsa2', () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pub = publicKeyToBytes(privateKey);
  const priv = privateKeyToBytes(privateKey);
  const aad = Uint8Array.of(9, 1, 5);

  it('round-trips; the RSA-OAEP block is modulus-sized and comes first', () => {
    const plain = randomBytes(3000);
    const sealed = rsa2Encrypt(plain, pub, aad);
    expect(toHex(sealed.subarray(0, 3))).toBe('fc0001'); // lp length 256
    expect(rsa2Decrypt(sealed, priv, aad)).toEqual(new Uint8Array(plain));
    expect(rsa2Decrypt(sealed, privateKey, aad)).toEqual(new Uint8Array(plain));
  });

  it('a wrong private key, tampering or a wrong AAD is ERR_DECRYPT', () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const sealed = rsa2Encrypt(Uint8Array.of(1, 2, 3), pub, aad);
    expect(code(() => rsa2Decrypt(sealed, other, aad))).toBe('ERR_DECRYPT');
    expect(code(() => rsa2Decrypt(sealed, privateKey, Uint8Array.of(0)))).toBe('ERR_DECRYPT');
    for (const i of [3, 100, 258, sealed.length - 1]) {
      const t = sealed.slice();
      t[i]! ^= 1;
      expect(code(() => rsa2Decrypt(t, privateKey, aad))).toBe('ERR_DECRYPT');
    }
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (b) => {
      expect(code(() => rsa2Decrypt(b, privateKey, aad))).toBe('ERR_DECRYPT');
    }), { numRuns: 300 });
  });
});

describe('secureRandom', () => {
  it('hands out each pooled byte once, across refills, at any size', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const r = secureRandom(16);
      expect(r).toHaveLength(16);
      seen.add(toHex(r));
    }
    expect(seen.size).toBe(2000);
    expect(secureRandom(5000)).toHaveLength(5000);
    expect(secureRandom(0)).toHaveLength(0);
  });
});
