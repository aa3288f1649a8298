/**
 * The cryptography of contact messaging (reference-rpc-messaging.md §3.5–§3.6):
 *
 * - secp521r1 ECDH, public keys as compressed points (67 bytes); the shared secret is the
 *   x-coordinate as an unsigned big-endian integer with its leading zero bytes DROPPED (QUIRK of
 *   the reference's BigInteger.ToByteArrayUnsigned; the derived keys depend on it);
 * - ML-KEM-1024 (FIPS 203) from @noble/post-quantum (node 20 has no ML-KEM);
 * - HKDF-SHA3-512 with the labels `IXI AES Key` / `IXI ChaCha Key`, 32-byte outputs;
 * - spixi2: per message a random 64-byte nonce; for each base key K, h = SHA3-512(SHA3-512(K ‖ nonce)),
 *   key = h[0..32), IV = h[32..44); AES-256-GCM (no AAD) inside ChaCha20-Poly1305 (AAD = id ‖
 *   varint type ‖ varint timestamp); output lp(nonce) ‖ lp(ChaCha20-Poly1305 output), tags 16 bytes;
 * - rsa2: fresh AES and ChaCha keys, spixi2 with them, the keys under RSA-OAEP-SHA-1:
 *   lp(RSA-OAEP(lp(aesKey) ‖ lp(chachaKey))) ‖ lp(spixi2 output).
 *
 * The default implementations use node:crypto (OpenSSL) where it gives the same bytes and is
 * faster (ECDH, AES-GCM, ChaCha20-Poly1305, HKDF, RSA); `noble` holds the @noble equivalents the
 * tests compare against. All functions are synchronous and pure so the node can run them as named
 * tasks in its worker pool.
 */
import { concatBytes } from '../formats/bytes.js';
import {
  createCipheriv,
  createDecipheriv,
  createECDH,
  hkdfSync,
  publicEncrypt,
  privateDecrypt,
  randomFillSync,
  constants as cryptoConstants,
  type KeyObject,
} from 'node:crypto';
import { p521 } from '@noble/curves/nist.js';
import { ml_kem1024 } from '@noble/post-quantum/ml-kem.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha3_512 as nobleSha3_512 } from '@noble/hashes/sha3.js';
import { gcm } from '@noble/ciphers/aes.js';
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { assertBytes } from '../formats/bytes.js';
import { encodeVarUint } from '../formats/varint.js';
import { privateKeyFromBytes, publicKeyFromBytes } from '../formats/rsa.js';
import { RsaKeyError } from '../formats/errors.js';
import { sha3_512sq } from '../core/hash.js';
import { ByteReader, varBytesSize, writeVarBytes } from './reader.js';
import { MessagingError } from './errors.js';

/** secp521r1 scalar length and compressed public key length. */
export const ECDH_PRIVATE_KEY_LENGTH = 66;
export const ECDH_PUBLIC_KEY_LENGTH = 67;
/** ML-KEM-1024 sizes (FIPS 203). */
export const MLKEM_PUBLIC_KEY_LENGTH = 1568;
export const MLKEM_CIPHERTEXT_LENGTH = 1568;
/** AES salt, ChaCha salt and the symmetric keys are 32 bytes (§3.5). */
export const SALT_LENGTH = 32;
export const SYMMETRIC_KEY_LENGTH = 32;
/** spixi2 per-message nonce (§3.6). */
export const SPIXI2_NONCE_LENGTH = 64;
const IV_LENGTH = 12;
const TAG_LENGTH = 16;
export const HKDF_INFO_AES = 'IXI AES Key';
export const HKDF_INFO_CHACHA = 'IXI ChaCha Key';

/**
 * Pool of CSPRNG bytes handed out once each. One OpenSSL call per 4 KiB instead of one per id and
 * nonce: a sync randomBytes(16) costs ~5 µs of job overhead, as much as the rest of a chat seal.
 */
const RANDOM_POOL_SIZE = 4096;
const randomPool = new Uint8Array(RANDOM_POOL_SIZE);
let randomPoolOffset = RANDOM_POOL_SIZE;

/** `n` fresh cryptographically secure random bytes (a copy; never handed out twice). */
export function secureRandom(n: number): Uint8Array {
  if (n > RANDOM_POOL_SIZE / 4) return randomFillSync(new Uint8Array(n));
  if (randomPoolOffset + n > RANDOM_POOL_SIZE) {
    randomFillSync(randomPool);
    randomPoolOffset = 0;
  }
  const out = randomPool.slice(randomPoolOffset, randomPoolOffset + n);
  randomPool.fill(0, randomPoolOffset, randomPoolOffset + n);
  randomPoolOffset += n;
  return out;
}

const dec = (code: 'ERR_DECRYPT' | 'ERR_KEY', message: string, offset = -1): MessagingError => new MessagingError(code, message, offset);

function checkLength(b: Uint8Array, n: number, what: string): void {
  assertBytes(b, what);
  if (b.length !== n) throw dec('ERR_KEY', `${what} must be ${n} bytes, got ${b.length}`);
}

/** Removes leading zero bytes (the reference's unsigned BigInteger encoding). */
export function stripLeadingZeros(b: Uint8Array): Uint8Array {
  let i = 0;
  while (i < b.length && b[i] === 0) i++;
  return b.slice(i);
}

function leftPad(b: Uint8Array, n: number): Uint8Array {
  if (b.length >= n) return b;
  const out = new Uint8Array(n);
  out.set(b, n - b.length);
  return out;
}

// ——— ECDH secp521r1 ———

export interface KeyPair {
  publicKey: Uint8Array;
  privateKey: Uint8Array;
}

/** A fresh secp521r1 pair: 66-byte private scalar, 67-byte compressed public point. */
export function ecdhKeyPair(): KeyPair {
  const ecdh = createECDH('secp521r1');
  ecdh.generateKeys();
  return {
    privateKey: leftPad(new Uint8Array(ecdh.getPrivateKey()), ECDH_PRIVATE_KEY_LENGTH),
    publicKey: new Uint8Array(ecdh.getPublicKey(null, 'compressed')),
  };
}

/**
 * ECDH shared secret as the reference computes it: x-coordinate, unsigned, leading zeros dropped.
 * @param privateKey up to 66 bytes (a shorter, zero-stripped scalar is padded).
 * @throws MessagingError ERR_KEY for a bad private key or a public key that is not a curve point.
 */
export function ecdhSharedSecret(privateKey: Uint8Array, peerPublicKey: Uint8Array): Uint8Array {
  assertBytes(privateKey, 'privateKey');
  assertBytes(peerPublicKey, 'peerPublicKey');
  if (privateKey.length === 0 || privateKey.length > ECDH_PRIVATE_KEY_LENGTH) throw dec('ERR_KEY', `ECDH private key must be 1…66 bytes, got ${privateKey.length}`);
  if (peerPublicKey.length !== ECDH_PUBLIC_KEY_LENGTH) throw dec('ERR_KEY', `ECDH public key must be a 67-byte compressed point, got ${peerPublicKey.length} bytes`);
  try {
    const ecdh = createECDH('secp521r1');
    ecdh.setPrivateKey(leftPad(privateKey, ECDH_PRIVATE_KEY_LENGTH));
    return stripLeadingZeros(new Uint8Array(ecdh.computeSecret(peerPublicKey)));
  } catch (e) {
    throw dec('ERR_KEY', `ECDH failed: ${(e as Error).message}`);
  }
}

// ——— ML-KEM-1024 ———

/** A fresh ML-KEM-1024 pair (public 1568 bytes; secret in @noble's expanded 3168-byte form). */
export function mlkemKeyPair(): KeyPair {
  const { publicKey, secretKey } = ml_kem1024.keygen();
  return { publicKey, privateKey: secretKey };
}

/** Encapsulates to a 1568-byte public key. @throws MessagingError ERR_KEY for a malformed key. */
export function mlkemEncapsulate(publicKey: Uint8Array): { ciphertext: Uint8Array; sharedSecret: Uint8Array } {
  checkLength(publicKey, MLKEM_PUBLIC_KEY_LENGTH, 'ML-KEM public key');
  try {
    const { cipherText, sharedSecret } = ml_kem1024.encapsulate(publicKey);
    return { ciphertext: cipherText, sharedSecret };
  } catch (e) {
    throw dec('ERR_KEY', `ML-KEM public key rejected: ${(e as Error).message}`);
  }
}

/** Decapsulates (implicit rejection: a wrong ciphertext gives a different secret, not an error). */
export function mlkemDecapsulate(privateKey: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  checkLength(ciphertext, MLKEM_CIPHERTEXT_LENGTH, 'ML-KEM ciphertext');
  assertBytes(privateKey, 'ML-KEM private key');
  try {
    return ml_kem1024.decapsulate(ciphertext, privateKey);
  } catch (e) {
    throw dec('ERR_KEY', `ML-KEM decapsulation failed: ${(e as Error).message}`);
  }
}

// ——— HKDF-SHA3-512 and the session keys ———

/** HKDF (RFC 5869) with SHA3-512. */
export function hkdfSha3_512(ikm: Uint8Array, salt: Uint8Array, info: string, length: number): Uint8Array {
  assertBytes(ikm, 'ikm');
  assertBytes(salt, 'salt');
  return new Uint8Array(hkdfSync('sha3-512', ikm, salt, info, length));
}

export interface SessionKeys {
  aesKey: Uint8Array;
  chachaKey: Uint8Array;
}

/**
 * The two session keys of §3.5: ikm = ECDH secret (zero-stripped) ‖ ML-KEM secret;
 * AES key = HKDF(ikm, aesSalt, "IXI AES Key"), ChaCha key = HKDF(ikm, chachaSalt, "IXI ChaCha Key").
 */
export function deriveSessionKeys(ecdhSecret: Uint8Array, mlkemSecret: Uint8Array, aesSalt: Uint8Array, chachaSalt: Uint8Array): SessionKeys {
  const ikm = concatBytes(ecdhSecret, mlkemSecret);
  return {
    aesKey: hkdfSha3_512(ikm, aesSalt, HKDF_INFO_AES, SYMMETRIC_KEY_LENGTH),
    chachaKey: hkdfSha3_512(ikm, chachaSalt, HKDF_INFO_CHACHA, SYMMETRIC_KEY_LENGTH),
  };
}


const lp = (b: Uint8Array): Uint8Array => concatBytes(encodeVarUint(b.length), b);

// ——— spixi2 ———

/** Per-message key and IV for one base key (§3.6): SHA3-512²(K ‖ nonce) → key, IV. */
export function deriveMessageKey(baseKey: Uint8Array, nonce: Uint8Array): { key: Uint8Array; iv: Uint8Array } {
  const h = sha3_512sq(concatBytes(baseKey, nonce));
  return { key: h.slice(0, baseKey.length), iv: h.slice(baseKey.length, baseKey.length + IV_LENGTH) };
}

function aesGcmEncrypt(key: Uint8Array, iv: Uint8Array, plain: Uint8Array): Uint8Array {
  const c = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_LENGTH });
  return concatBytes(c.update(plain), c.final(), c.getAuthTag());
}

function aesGcmDecrypt(key: Uint8Array, iv: Uint8Array, sealed: Uint8Array): Uint8Array | null {
  if (sealed.length < TAG_LENGTH) return null;
  try {
    const d = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_LENGTH });
    d.setAuthTag(sealed.subarray(sealed.length - TAG_LENGTH));
    return concatBytes(d.update(sealed.subarray(0, sealed.length - TAG_LENGTH)), d.final());
  } catch {
    return null;
  }
}

function chachaEncrypt(key: Uint8Array, iv: Uint8Array, aad: Uint8Array, plain: Uint8Array): Uint8Array {
  const c = createCipheriv('chacha20-poly1305', key, iv, { authTagLength: TAG_LENGTH });
  c.setAAD(aad, { plaintextLength: plain.length });
  return concatBytes(c.update(plain), c.final(), c.getAuthTag());
}

function chachaDecrypt(key: Uint8Array, iv: Uint8Array, aad: Uint8Array, sealed: Uint8Array): Uint8Array | null {
  if (sealed.length < TAG_LENGTH) return null;
  try {
    const d = createDecipheriv('chacha20-poly1305', key, iv, { authTagLength: TAG_LENGTH });
    d.setAAD(aad, { plaintextLength: sealed.length - TAG_LENGTH });
    d.setAuthTag(sealed.subarray(sealed.length - TAG_LENGTH));
    return concatBytes(d.update(sealed.subarray(0, sealed.length - TAG_LENGTH)), d.final());
  } catch {
    return null;
  }
}

/** The symmetric primitives, so the noble and node:crypto variants share the framing code. */
export interface AeadImpl {
  aesGcmEncrypt(key: Uint8Array, iv: Uint8Array, plain: Uint8Array): Uint8Array;
  aesGcmDecrypt(key: Uint8Array, iv: Uint8Array, sealed: Uint8Array): Uint8Array | null;
  chachaEncrypt(key: Uint8Array, iv: Uint8Array, aad: Uint8Array, plain: Uint8Array): Uint8Array;
  chachaDecrypt(key: Uint8Array, iv: Uint8Array, aad: Uint8Array, sealed: Uint8Array): Uint8Array | null;
}

export const nodeAead: AeadImpl = { aesGcmEncrypt, aesGcmDecrypt, chachaEncrypt, chachaDecrypt };

const orNull = (f: () => Uint8Array): Uint8Array | null => {
  try {
    return f();
  } catch {
    return null;
  }
};

export const nobleAead: AeadImpl = {
  aesGcmEncrypt: (key, iv, plain) => gcm(key, iv).encrypt(plain),
  aesGcmDecrypt: (key, iv, sealed) => orNull(() => gcm(key, iv).decrypt(sealed)),
  chachaEncrypt: (key, iv, aad, plain) => chacha20poly1305(key, iv, aad).encrypt(plain),
  chachaDecrypt: (key, iv, aad, sealed) => orNull(() => chacha20poly1305(key, iv, aad).decrypt(sealed)),
};

function checkKeys(aesKey: Uint8Array, chachaKey: Uint8Array, aad: Uint8Array): void {
  checkLength(aesKey, SYMMETRIC_KEY_LENGTH, 'AES key');
  checkLength(chachaKey, SYMMETRIC_KEY_LENGTH, 'ChaCha key');
  assertBytes(aad, 'aad');
}

/**
 * spixi2 encryption (§3.6). `nonce` is for tests (known answers); it defaults to 64 random bytes.
 */
export function spixi2Encrypt(plain: Uint8Array, aesKey: Uint8Array, chachaKey: Uint8Array, aad: Uint8Array, nonce: Uint8Array = secureRandom(SPIXI2_NONCE_LENGTH), impl: AeadImpl = nodeAead): Uint8Array {
  checkKeys(aesKey, chachaKey, aad);
  assertBytes(plain, 'plain');
  checkLength(nonce, SPIXI2_NONCE_LENGTH, 'spixi2 nonce');
  const a = deriveMessageKey(aesKey, nonce);
  const inner = impl.aesGcmEncrypt(a.key, a.iv, plain);
  const c = deriveMessageKey(chachaKey, nonce);
  const outer = impl.chachaEncrypt(c.key, c.iv, aad, inner);
  const out = new Uint8Array(varBytesSize(nonce) + varBytesSize(outer));
  writeVarBytes(out, writeVarBytes(out, 0, nonce), outer);
  return out;
}

const decFail = (message: string, offset: number): MessagingError => dec('ERR_DECRYPT', message, offset);

/**
 * spixi2 decryption. @throws MessagingError ERR_DECRYPT when the framing is bad or either tag fails.
 */
export function spixi2Decrypt(sealed: Uint8Array, aesKey: Uint8Array, chachaKey: Uint8Array, aad: Uint8Array, impl: AeadImpl = nodeAead): Uint8Array {
  checkKeys(aesKey, chachaKey, aad);
  assertBytes(sealed, 'sealed');
  const r = new ByteReader(sealed, decFail);
  const nonceAt = r.offset;
  const nonce = r.varBytes('spixi2 nonce', 1024);
  if (nonce === null) throw decFail(`spixi2 without a nonce at offset ${nonceAt}`, nonceAt);
  const outerAt = r.offset;
  const outer = r.varBytes('spixi2 ciphertext', sealed.length);
  r.end('spixi2 ciphertext');
  if (outer === null) throw decFail(`spixi2 without ciphertext at offset ${outerAt}`, outerAt);
  const c = deriveMessageKey(chachaKey, nonce);
  const inner = impl.chachaDecrypt(c.key, c.iv, aad, outer);
  if (inner === null) throw decFail('spixi2: ChaCha20-Poly1305 authentication failed', outerAt);
  const a = deriveMessageKey(aesKey, nonce);
  const plain = impl.aesGcmDecrypt(a.key, a.iv, inner);
  if (plain === null) throw decFail('spixi2: AES-GCM authentication failed', outerAt);
  return plain;
}

// ——— rsa2 ———

const OAEP = { padding: cryptoConstants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' } as const;

/** rsa2 encryption to a serialized RSA public key (§3.6). */
export function rsa2Encrypt(plain: Uint8Array, rsaPublicKey: Uint8Array, aad: Uint8Array): Uint8Array {
  const key = publicKeyFromBytes(rsaPublicKey);
  const aesKey = secureRandom(SYMMETRIC_KEY_LENGTH);
  const chachaKey = secureRandom(SYMMETRIC_KEY_LENGTH);
  const inner = spixi2Encrypt(plain, aesKey, chachaKey, aad);
  const wrapped = publicEncrypt({ key, ...OAEP }, concatBytes(lp(aesKey), lp(chachaKey)));
  return concatBytes(lp(new Uint8Array(wrapped)), lp(inner));
}

/**
 * rsa2 decryption with our RSA private key (reference bytes or KeyObject).
 * @throws MessagingError ERR_DECRYPT when anything fails.
 */
export function rsa2Decrypt(sealed: Uint8Array, rsaPrivateKey: KeyObject | Uint8Array, aad: Uint8Array): Uint8Array {
  assertBytes(sealed, 'sealed');
  let key: KeyObject;
  try {
    key = rsaPrivateKey instanceof Uint8Array ? privateKeyFromBytes(rsaPrivateKey) : rsaPrivateKey;
  } catch (e) {
    if (e instanceof RsaKeyError) throw dec('ERR_KEY', `bad RSA private key: ${e.message}`);
    throw e;
  }
  const r = new ByteReader(sealed, decFail);
  const wrappedAt = r.offset;
  const wrapped = r.varBytes('rsa2 wrapped keys', 4096);
  if (wrapped === null) throw decFail(`rsa2 without wrapped keys at offset ${wrappedAt}`, wrappedAt);
  const innerAt = r.offset;
  const inner = r.varBytes('rsa2 inner ciphertext', sealed.length);
  r.end('rsa2 ciphertext');
  if (inner === null) throw decFail(`rsa2 without ciphertext at offset ${innerAt}`, innerAt);
  let keys: Uint8Array;
  try {
    keys = new Uint8Array(privateDecrypt({ key, ...OAEP }, wrapped));
  } catch {
    throw decFail('rsa2: RSA-OAEP decryption failed', wrappedAt);
  }
  const kr = new ByteReader(keys, decFail);
  const aesKey = kr.varBytes('rsa2 AES key', 64);
  const chachaKey = kr.varBytes('rsa2 ChaCha key', 64);
  if (aesKey?.length !== SYMMETRIC_KEY_LENGTH || chachaKey?.length !== SYMMETRIC_KEY_LENGTH) throw decFail('rsa2: wrapped keys are not two 32-byte keys', wrappedAt);
  return spixi2Decrypt(inner, aesKey, chachaKey, aad);
}

/** The @noble implementations the tests and the benchmark compare the defaults against. */
export const noble = {
  ecdhKeyPair(): KeyPair {
    const privateKey = p521.utils.randomSecretKey();
    return { privateKey: leftPad(privateKey, ECDH_PRIVATE_KEY_LENGTH), publicKey: p521.getPublicKey(privateKey, true) };
  },
  ecdhPublicKey(privateKey: Uint8Array): Uint8Array {
    return p521.getPublicKey(leftPad(privateKey, ECDH_PRIVATE_KEY_LENGTH), true);
  },
  ecdhSharedSecret(privateKey: Uint8Array, peerPublicKey: Uint8Array): Uint8Array {
    return stripLeadingZeros(p521.getSharedSecret(leftPad(privateKey, ECDH_PRIVATE_KEY_LENGTH), peerPublicKey, true).slice(1));
  },
  hkdfSha3_512(ikm: Uint8Array, salt: Uint8Array, info: string, length: number): Uint8Array {
    return hkdf(nobleSha3_512, ikm, salt, new TextEncoder().encode(info), length);
  },
  spixi2Encrypt(plain: Uint8Array, aesKey: Uint8Array, chachaKey: Uint8Array, aad: Uint8Array, nonce?: Uint8Array): Uint8Array {
    return spixi2Encrypt(plain, aesKey, chachaKey, aad, nonce ?? secureRandom(SPIXI2_NONCE_LENGTH), nobleAead);
  },
  spixi2Decrypt(sealed: Uint8Array, aesKey: Uint8Array, chachaKey: Uint8Array, aad: Uint8Array): Uint8Array {
    return spixi2Decrypt(sealed, aesKey, chachaKey, aad, nobleAead);
  },
};
