/**
 * Tasks `verifyRsa` and `signRsa`: RSASSA-PKCS1-v1_5 with SHA-512 (reference-formats.md §6.2).
 *
 * - `verifyRsa`: transaction admission (and, later, block import). 3 parts per item: serialized
 *   public key (§6.1), signed data, signature. Result: one byte per item (1 = valid). A worker
 *   keeps parsed public keys in the formats module's cache (senders repeat).
 * - `signRsa`: the node's own signatures. 2 parts per item: private key as PKCS#8 DER, data.
 *   Result, packed with the same codec, 2 parts per item: status (1 = signed) and the signature,
 *   or the UTF-8 reason the key was refused. A worker parses each key once (SIGNING_KEY_CACHE).
 */
import { createPrivateKey, sign as cryptoSign, constants as cryptoConstants, type KeyObject } from 'node:crypto';
import { RsaKeyError } from '../../formats/errors.js';
import { verifySignature } from '../../formats/rsa.js';
import { checkResultBytes, packParts, unpackParts } from './codec.js';
import type { PoolTask } from './types.js';

export interface RsaItem {
  /** Serialized public key (§6.1). */
  publicKey: Uint8Array;
  /** The signed bytes (a transaction checksum). */
  data: Uint8Array;
  signature: Uint8Array;
}

export interface RsaSignItem {
  /** The private key as PKCS#8 DER (`keyObject.export({ format: 'der', type: 'pkcs8' })`). */
  privateKeyDer: Uint8Array;
  /** The bytes to sign (e.g. a block or transaction checksum). */
  data: Uint8Array;
}

/** In-process check of one item: an unusable key or malformed signature is simply invalid. */
function verifyOne(item: RsaItem): boolean {
  try {
    return verifySignature(item.publicKey, item.data, item.signature);
  } catch {
    return false;
  }
}

export const verifyRsaTask: PoolTask<RsaItem, boolean> = {
  name: 'verifyRsa',
  pack(items) {
    return packParts(items.map((i) => [i.publicKey, i.data, i.signature]), 3, 'verifyRsa');
  },
  unpack(task) {
    return unpackParts(task, 3, 'verifyRsa').map(([publicKey, data, signature]) => ({ publicKey: publicKey!, data: data!, signature: signature! }));
  },
  handle(task) {
    const items = verifyRsaTask.unpack(task);
    const out = new Uint8Array(items.length);
    for (let i = 0; i < items.length; i++) out[i] = verifyOne(items[i]!) ? 1 : 0;
    return out;
  },
  results(packed, count) {
    return Array.from(checkResultBytes(packed, count, 'verifyRsa'), (b) => b === 1);
  },
  runOne: verifyOne,
};

/**
 * Parsed signing keys of this thread, by DER bytes. A node signs with its few wallet keys (and
 * later a messaging key); 16 covers them with room, and an evicted key costs one parse (~0.1 ms).
 */
export const SIGNING_KEY_CACHE_SIZE = 16;
const signingKeys = new Map<string, KeyObject>();

function signingKey(der: Uint8Array): KeyObject {
  const id = Buffer.from(der.buffer, der.byteOffset, der.byteLength).toString('base64');
  let key = signingKeys.get(id);
  if (key !== undefined) {
    signingKeys.delete(id); // most recently used last
  } else {
    try {
      key = createPrivateKey({ key: Buffer.from(der.buffer, der.byteOffset, der.byteLength), format: 'der', type: 'pkcs8' });
    } catch (e) {
      throw new RsaKeyError(`private key (PKCS#8 DER, ${der.length} bytes) rejected: ${(e as Error).message}`);
    }
    if (key.asymmetricKeyType !== 'rsa') throw new RsaKeyError(`private key is ${key.asymmetricKeyType ?? key.type}, expected rsa`);
    if (signingKeys.size >= SIGNING_KEY_CACHE_SIZE) signingKeys.delete(signingKeys.keys().next().value!);
  }
  signingKeys.set(id, key);
  return key;
}

/** Signs one item; a refused key is returned as its error (the other items of a task still sign). */
function signOne(item: RsaSignItem): Uint8Array | RsaKeyError {
  try {
    const key = signingKey(item.privateKeyDer);
    return new Uint8Array(cryptoSign('sha512', item.data, { key, padding: cryptoConstants.RSA_PKCS1_PADDING }));
  } catch (e) {
    return e instanceof RsaKeyError ? e : new RsaKeyError(`signing failed: ${(e as Error).message}`);
  }
}

const SIGNED = Uint8Array.of(1);
const REFUSED = Uint8Array.of(0);

export const signRsaTask: PoolTask<RsaSignItem, Uint8Array | RsaKeyError> = {
  name: 'signRsa',
  pack(items) {
    return packParts(items.map((i) => [i.privateKeyDer, i.data]), 2, 'signRsa');
  },
  unpack(task) {
    return unpackParts(task, 2, 'signRsa').map(([privateKeyDer, data]) => ({ privateKeyDer: privateKeyDer!, data: data! }));
  },
  handle(task) {
    const results = signRsaTask.unpack(task).map((item) => {
      const out = signOne(item);
      return out instanceof RsaKeyError ? [REFUSED, new TextEncoder().encode(out.message)] : [SIGNED, out];
    });
    return new Uint8Array(packParts(results, 2, 'signRsa result'));
  },
  results(packed, count) {
    const items = unpackParts(packed, 2, 'signRsa result');
    if (items.length !== count) throw new RangeError(`signRsa result: expected ${count} items, got ${items.length}`);
    return items.map(([status, bytes]) =>
      status!.length === 1 && status![0] === 1 ? bytes!.slice() : new RsaKeyError(new TextDecoder().decode(bytes)),
    );
  },
  runOne: signOne,
};
