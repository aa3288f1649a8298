/**
 * RSA keys and signatures (reference-formats.md §6): the reference key layout to and from Node
 * `crypto` KeyObjects, wallet key generation, RSASSA-PKCS1-v1_5 with SHA-512 signing and
 * verification, and the `verify` RPC rule.
 *
 * Key layout (§6.1): `version u8 ‖ formatVersion i32 LE (0) ‖ (i32 LE length ‖ big-endian bytes)`
 * for modulus and exponent; a private key continues with P, Q, DP, DQ, InverseQ, D. Keys of
 * exactly 523 (public) or 2339 (private) bytes are legacy v0 keys without the 5-byte header.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  KeyObject,
  sign as cryptoSign,
  verify as cryptoVerify,
  constants as cryptoConstants,
  type JsonWebKey,
} from 'node:crypto';
import { promisify } from 'node:util';
import { sha3_512sqTrunc } from '../core/hash.js';
import { assertBytes, describeType, latin1Key } from './bytes.js';
import { WALLET_RSA_BITS, WALLET_RSA_PUBLIC_EXPONENT } from './constants.js';
import { RsaKeyError } from './errors.js';

/** Length of a headerless legacy v0 public key (4096-bit, e = 65537). */
export const HEADERLESS_PUBLIC_KEY_LENGTH = 523;
/** Length of a headerless legacy v0 private key. */
export const HEADERLESS_PRIVATE_KEY_LENGTH = 2339;
/** Version byte + i32 format version. */
const HEADER_LENGTH = 5;
/** Bytes of the signed digest of the `sign`/`verify` RPC with `message` (§6.2). */
export const MESSAGE_DIGEST_LENGTH = 44;
/**
 * Accepted modulus sizes: 1024 to 16384 bits. Signer-PoW keys are 2048-bit and wallet keys
 * 4096-bit (§6.1); the bounds keep hostile keys from costing more than a normal verification.
 */
export const RSA_MIN_MODULUS_BYTES = 128;
export const RSA_MAX_MODULUS_BYTES = 2048;
/** Longest accepted public exponent, bytes (65537 needs 3). */
const RSA_MAX_EXPONENT_BYTES = 8;
/**
 * Parsed public keys kept for repeated verification (the same senders sign many transactions).
 * 4096 keys ≈ 2 MB of key bytes as map keys plus the OpenSSL objects; revisit if the hit rate
 * of a busy node drops.
 */
export const PUBLIC_KEY_CACHE_SIZE = 4096;
/** Parsed private keys (the node's own wallets sign repeatedly). */
const PRIVATE_KEY_CACHE_SIZE = 16;

const PADDING = cryptoConstants.RSA_PKCS1_PADDING;
const DIGEST = 'sha512';
/** Order of the private parts after modulus and exponent (§6.1). */
const PRIVATE_PARTS = ['p', 'q', 'dp', 'dq', 'qi', 'd'] as const;

export type KeyVersion = 0 | 1 | 2;

/** The fields of a serialized key. */
export interface RsaKeyLayout {
  /** Header byte (address version of the key), or null for a headerless legacy key. */
  version: number | null;
  /** The i32 key-format version of the header (always 0 in practice), or null. */
  formatVersion: number | null;
  modulus: Uint8Array;
  exponent: Uint8Array;
  /** P, Q, DP, DQ, InverseQ, D of a private key; absent for a public key. */
  privateParts?: Uint8Array[];
}

/** Bounded least-recently-used map. */
class LruCache<V> {
  readonly #map = new Map<string, V>();
  constructor(readonly capacity: number) {}
  get(key: string): V | undefined {
    const value = this.#map.get(key);
    if (value !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, value);
    }
    return value;
  }
  set(key: string, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.capacity) this.#map.delete(this.#map.keys().next().value!);
  }
}

/** Bytes 16–48 of a serialized key lie inside its modulus (random-looking): a short Map key. */
const PROBE_START = 16;
const PROBE_END = 48;

/**
 * A short Map key that finds a serialized key (§6.1): its length and 32 bytes of its modulus;
 * shorter inputs are keyed whole. Two keys can share a probe: a cache confirms a hit by comparing
 * the whole key.
 */
export function keyProbe(bytes: Uint8Array): string {
  return bytes.length < PROBE_END * 2 ? `s${latin1Key(bytes)}` : `p${bytes.length}:${latin1Key(bytes.subarray(PROBE_START, PROBE_END))}`;
}

/**
 * Parsed keys by serialized bytes: found by a 32-byte probe and confirmed by comparing the whole
 * key (the worker meets each key as a fresh view; hashing its ~700-char text cost ~3 µs a verify).
 */
class KeyCache<V> {
  readonly #lru: LruCache<{ bytes: Uint8Array; value: V }>;
  constructor(capacity: number) {
    this.#lru = new LruCache(capacity);
  }
  get(bytes: Uint8Array): V | undefined {
    const hit = this.#lru.get(keyProbe(bytes));
    return hit && Buffer.compare(hit.bytes, bytes) === 0 ? hit.value : undefined;
  }
  set(bytes: Uint8Array, value: V): void {
    this.#lru.set(keyProbe(bytes), { bytes: Uint8Array.from(bytes), value });
  }
}

/** Parses the layout; `kind` decides how many parts and which headerless length applies. */
export function parseKeyLayout(bytes: Uint8Array, kind: 'public' | 'private'): RsaKeyLayout {
  assertBytes(bytes, `${kind} key`);
  const headerless = bytes.length === (kind === 'public' ? HEADERLESS_PUBLIC_KEY_LENGTH : HEADERLESS_PRIVATE_KEY_LENGTH);
  if (!headerless && bytes.length < HEADER_LENGTH) {
    throw new RsaKeyError(`${kind} key is ${bytes.length} bytes, too short for the 5-byte header`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = headerless ? 0 : HEADER_LENGTH;
  const readPart = (name: string): Uint8Array => {
    if (offset + 4 > bytes.length) throw new RsaKeyError(`${kind} key ends at ${bytes.length} bytes before the length of ${name}`);
    const length = view.getInt32(offset, true);
    if (length <= 0 || offset + 4 + length > bytes.length) {
      throw new RsaKeyError(
        `${kind} key: ${name} length ${length} at offset ${offset} does not fit the ${bytes.length - offset - 4} remaining bytes`,
      );
    }
    const part = bytes.slice(offset + 4, offset + 4 + length);
    offset += 4 + length;
    return part;
  };
  const modulus = readPart('modulus');
  const exponent = readPart('exponent');
  const privateParts = kind === 'private' ? PRIVATE_PARTS.map((name) => readPart(name)) : undefined;
  if (offset !== bytes.length) {
    throw new RsaKeyError(`${kind} key has ${bytes.length - offset} unexpected bytes after offset ${offset}`);
  }
  return {
    version: headerless ? null : bytes[0]!,
    formatVersion: headerless ? null : view.getInt32(1, true),
    modulus,
    exponent,
    ...(privateParts && { privateParts }),
  };
}

const stripZeros = (b: Uint8Array): Uint8Array => {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  return b.subarray(i);
};
const b64url = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64url');
const fromB64url = (s: string | undefined, name: string): Uint8Array => {
  if (s === undefined) throw new RsaKeyError(`the key has no ${name} component`);
  return new Uint8Array(Buffer.from(s, 'base64url'));
};

/** Checks sizes and builds the JWK of a parsed layout. */
function layoutToJwk(layout: RsaKeyLayout): JsonWebKey {
  const n = stripZeros(layout.modulus);
  const e = stripZeros(layout.exponent);
  if (n.length < RSA_MIN_MODULUS_BYTES || n.length > RSA_MAX_MODULUS_BYTES) {
    throw new RsaKeyError(
      `RSA modulus is ${n.length * 8} bits (rounded to bytes), expected ${RSA_MIN_MODULUS_BYTES * 8}…${RSA_MAX_MODULUS_BYTES * 8}`,
    );
  }
  if (e.length > RSA_MAX_EXPONENT_BYTES || (e[e.length - 1]! & 1) === 0 || (e.length === 1 && e[0]! < 3)) {
    throw new RsaKeyError('RSA public exponent must be odd, at least 3 and at most 8 bytes');
  }
  const jwk: JsonWebKey = { kty: 'RSA', n: b64url(n), e: b64url(e) };
  layout.privateParts?.forEach((part, i) => {
    jwk[PRIVATE_PARTS[i]!] = b64url(stripZeros(part));
  });
  return jwk;
}

const publicKeyCache = new KeyCache<KeyObject | RsaKeyError>(PUBLIC_KEY_CACHE_SIZE);
const privateKeyCache = new KeyCache<KeyObject>(PRIVATE_KEY_CACHE_SIZE);

/**
 * A Node public KeyObject from a serialized public key (cached by key bytes).
 * @throws RsaKeyError when the bytes are not a usable key; TypeError for a non-Uint8Array.
 */
export function publicKeyFromBytes(bytes: Uint8Array): KeyObject {
  assertBytes(bytes, 'public key');
  let cached = publicKeyCache.get(bytes);
  if (cached === undefined) {
    try {
      cached = createPublicKey({ key: layoutToJwk(parseKeyLayout(bytes, 'public')), format: 'jwk' });
    } catch (e) {
      cached = e instanceof RsaKeyError ? e : new RsaKeyError(`public key rejected by OpenSSL: ${(e as Error).message}`);
    }
    publicKeyCache.set(bytes, cached);
  }
  if (cached instanceof RsaKeyError) throw cached;
  return cached;
}

/** A Node private KeyObject from a serialized private key (§6.1 layout; cached). */
export function privateKeyFromBytes(bytes: Uint8Array): KeyObject {
  assertBytes(bytes, 'private key');
  let key = privateKeyCache.get(bytes);
  if (key === undefined) {
    const jwk = layoutToJwk(parseKeyLayout(bytes, 'private'));
    try {
      key = createPrivateKey({ key: jwk, format: 'jwk' });
    } catch (e) {
      throw new RsaKeyError(`private key rejected by OpenSSL: ${(e as Error).message}`);
    }
    privateKeyCache.set(bytes, key);
  }
  return key;
}

function checkRsaKeyObject(key: KeyObject, type: 'public' | 'private'): void {
  if (!(key instanceof KeyObject)) throw new TypeError(`key must be a KeyObject, got ${describeType(key)}`);
  if (key.asymmetricKeyType !== 'rsa' || (type === 'private' && key.type !== 'private')) {
    throw new TypeError(`key must be an RSA ${type} KeyObject, got ${key.asymmetricKeyType ?? key.type}`);
  }
}

function checkVersion(version: number): void {
  if (version !== 0 && version !== 1 && version !== 2) throw new RangeError(`key version must be 0, 1 or 2, got ${version}`);
}

/** Writes header (unless headerless) and (length, bytes) parts, each part left-padded to its width. */
function writeLayout(version: number | null, parts: { bytes: Uint8Array; width: number }[]): Uint8Array {
  const total = (version === null ? 0 : HEADER_LENGTH) + parts.reduce((s, p) => s + 4 + p.width, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  let offset = 0;
  if (version !== null) {
    out[0] = version;
    view.setInt32(1, 0, true);
    offset = HEADER_LENGTH;
  }
  for (const { bytes, width } of parts) {
    view.setInt32(offset, width, true);
    out.set(bytes, offset + 4 + width - bytes.length);
    offset += 4 + width;
  }
  return out;
}

export interface KeyLayoutOptions {
  /** Header byte = address version the key maps to (§7.2). Default 1, as current wallets. */
  version?: KeyVersion;
  /** Write the legacy headerless form (only for 4096-bit keys with e = 65537). Default false. */
  headerless?: boolean;
}

function headerFor(options: KeyLayoutOptions, expectedLength: number, actualLength: number): number | null {
  const { version = 1, headerless = false } = options;
  checkVersion(version);
  if (!headerless) return version;
  if (actualLength !== expectedLength) {
    throw new RangeError('the headerless key form exists only for 4096-bit keys with exponent 65537');
  }
  return null;
}

/** Serializes a public (or private) RSA KeyObject's public part in the reference layout (§6.1). */
export function publicKeyToBytes(key: KeyObject, options: KeyLayoutOptions = {}): Uint8Array {
  checkRsaKeyObject(key, 'public');
  const jwk = key.export({ format: 'jwk' });
  const n = fromB64url(jwk.n, 'modulus');
  const e = fromB64url(jwk.e, 'exponent');
  const parts = [
    { bytes: n, width: n.length },
    { bytes: e, width: e.length },
  ];
  const version = headerFor(options, HEADERLESS_PUBLIC_KEY_LENGTH, 8 + n.length + e.length);
  return writeLayout(version, parts);
}

/**
 * Serializes a private KeyObject in the reference layout (§6.1), with the fixed widths of .NET
 * `RSAParameters`: P, Q, DP, DQ, InverseQ half the modulus length, D the modulus length.
 */
export function privateKeyToBytes(key: KeyObject, options: KeyLayoutOptions = {}): Uint8Array {
  checkRsaKeyObject(key, 'private');
  const jwk = key.export({ format: 'jwk' });
  const n = fromB64url(jwk.n, 'modulus');
  const e = fromB64url(jwk.e, 'exponent');
  const half = Math.ceil(n.length / 2);
  const parts = [
    { bytes: n, width: n.length },
    { bytes: e, width: e.length },
    ...PRIVATE_PARTS.map((name) => {
      const bytes = stripZeros(fromB64url(jwk[name] as string | undefined, name));
      return { bytes, width: Math.max(bytes.length, name === 'd' ? n.length : half) };
    }),
  ];
  const length = parts.reduce((s, p) => s + 4 + p.width, 0);
  return writeLayout(headerFor(options, HEADERLESS_PRIVATE_KEY_LENGTH, length), parts);
}

/**
 * The serialized public key of a private key: for reference-layout bytes, the public prefix
 * (§6.1 "a public key is a prefix of the private key"); for a KeyObject, its public part with
 * header version 1.
 */
export function publicKeyOf(privateKey: Uint8Array | KeyObject): Uint8Array {
  if (privateKey instanceof KeyObject) return publicKeyToBytes(privateKey);
  const layout = parseKeyLayout(privateKey, 'private');
  const headerless = layout.version === null;
  const length = (headerless ? 0 : HEADER_LENGTH) + 8 + layout.modulus.length + layout.exponent.length;
  const publicKey = privateKey.slice(0, length);
  // A 523-byte prefix of a headered key would be read as headerless; refuse that ambiguity.
  if (!headerless && length === HEADERLESS_PUBLIC_KEY_LENGTH) {
    throw new RsaKeyError('the public part of this key would be 523 bytes with a header, which readers take as headerless');
  }
  return publicKey;
}

export interface WalletKey {
  /** Private key in the reference layout (§6.1), e.g. for the keystore. */
  privateKey: Uint8Array;
  privateKeyObject: KeyObject;
  /** Serialized public key (528 bytes for the default 4096-bit, version-1 key). */
  publicKey: Uint8Array;
}

const generateKeyPairAsync = promisify(generateKeyPair);

/**
 * A new wallet key: RSA-4096, e = 65537, header version 1 (§6.1, what current wallets make).
 * Generation runs in OpenSSL's thread pool; it takes about a second.
 */
export async function generateWalletKey(
  options: { bits?: number; version?: KeyVersion } = {},
): Promise<WalletKey> {
  const { bits = WALLET_RSA_BITS, version = 1 } = options;
  checkVersion(version);
  if (!Number.isInteger(bits) || bits < RSA_MIN_MODULUS_BYTES * 8 || bits > RSA_MAX_MODULUS_BYTES * 8 || bits % 8 !== 0) {
    throw new RangeError(`bits must be a multiple of 8 in ${RSA_MIN_MODULUS_BYTES * 8}…${RSA_MAX_MODULUS_BYTES * 8}, got ${bits}`);
  }
  const { privateKey } = await generateKeyPairAsync('rsa', { modulusLength: bits, publicExponent: WALLET_RSA_PUBLIC_EXPONENT });
  return {
    privateKey: privateKeyToBytes(privateKey, { version }),
    privateKeyObject: privateKey,
    publicKey: publicKeyToBytes(privateKey, { version }),
  };
}

/**
 * RSASSA-PKCS1-v1_5 with SHA-512 over `data` as given (§6.2). The signature has the modulus length.
 * @param privateKey a private KeyObject or reference-layout private key bytes.
 */
export function signBytes(privateKey: KeyObject | Uint8Array, data: Uint8Array): Uint8Array {
  const key = privateKey instanceof Uint8Array ? privateKeyFromBytes(privateKey) : privateKey;
  checkRsaKeyObject(key, 'private');
  assertBytes(data, 'data');
  return new Uint8Array(cryptoSign(DIGEST, data, { key, padding: PADDING }));
}

/** Same as `signBytes` (the name the wallet module uses). */
export const signWithKey = signBytes;

/**
 * Verifies an RSASSA-PKCS1-v1_5 SHA-512 signature of `data` under a serialized public key (§6.2).
 * Returns false for a wrong signature or an unusable key; never throws on content.
 * @throws TypeError when an argument is not a Uint8Array.
 */
export function verifySignature(publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array): boolean {
  assertBytes(publicKey, 'publicKey');
  assertBytes(data, 'data');
  assertBytes(signature, 'signature');
  let key: KeyObject;
  try {
    key = publicKeyFromBytes(publicKey);
  } catch (e) {
    if (e instanceof RsaKeyError) return false;
    throw e;
  }
  try {
    return cryptoVerify(DIGEST, data, { key, padding: PADDING }, signature);
  } catch {
    return false; // e.g. a signature longer than the modulus
  }
}

/** The digest the `sign`/`verify` RPC signs for a `message` (§6.2): `sha3_512sqTrunc(UTF-8(message), 44)`. */
export function messageDigest(message: string): Uint8Array {
  if (typeof message !== 'string') throw new TypeError(`message must be a string, got ${describeType(message)}`);
  return sha3_512sqTrunc(new TextEncoder().encode(message), MESSAGE_DIGEST_LENGTH);
}

/** Signs a text message as the `sign` RPC does: `signBytes(key, messageDigest(message))`. */
export function signMessage(privateKey: KeyObject | Uint8Array, message: string): Uint8Array {
  return signBytes(privateKey, messageDigest(message));
}

export interface VerifyRequest {
  publicKey: Uint8Array;
  signature: Uint8Array;
  /** UTF-8 text; the signed data is `messageDigest(message)`. Wins over `hash` when both are given. */
  message?: string;
  /** The signed data itself. */
  hash?: Uint8Array;
}

/**
 * The `verify` RPC rule (reference-rpc-messaging.md §2.7): with `message` the signed bytes are
 * `sha3_512sqTrunc(UTF-8(message), 44)`, otherwise the `hash` bytes. True for "OK", false for
 * "FAIL" (any unusable key or signature).
 * @throws TypeError when neither `message` nor `hash` is given, or on wrong argument types.
 */
export function verifyMessage(request: VerifyRequest): boolean {
  if (typeof request !== 'object' || request === null) throw new TypeError(`request must be an object, got ${describeType(request)}`);
  const { publicKey, signature, message, hash } = request;
  let data: Uint8Array;
  if (message !== undefined) data = messageDigest(message);
  else if (hash !== undefined) data = hash;
  else throw new TypeError("verifyMessage needs 'message' or 'hash'");
  return verifySignature(publicKey, data, signature);
}
