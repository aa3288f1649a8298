/**
 * Task `messagingCrypto`: the expensive steps of the contact handshake (reference-rpc-messaging.md
 * §3.5–§3.6) off the event loop — RSA-4096 signing of a contact request, the accept's secp521r1
 * and ML-KEM-1024 key generation with its rsa2 encryption and signature, and the authentication of
 * an incoming signed frame (RSA signature verification, rsa2 decryption, keys2's ECDH and ML-KEM
 * decapsulation) — by running the pure functions of src/messaging/handshake.ts in a worker.
 *
 * Items and results are structured data (contact records, stream messages), so they cross as one
 * `v8.serialize` buffer each way (owned, transferred). The private key crosses as PKCS#8 DER and
 * is parsed once per worker (cache). A MessagingError thrown by the handshake comes back as a
 * result `{ ok: false, code, message }`, never as a failed task.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import { MessagingError, type MessagingErrorCode } from '../../messaging/errors.js';
import { acceptContact, createContactRequest, receiveFrame, type ContactRecord, type ReceiveResult } from '../../messaging/handshake.js';
import { decodeStreamMessage, type StreamMessage } from '../../messaging/stream-message.js';
import type { PoolTask } from './types.js';

export interface MessagingIdentityItem {
  address: Uint8Array;
  publicKey: Uint8Array;
  /** PKCS#8 DER of the wallet's RSA private key. */
  privateKeyDer: Uint8Array;
}

export type MessagingCryptoItem =
  | { op: 'request'; identity: MessagingIdentityItem; contactAddress: Uint8Array; now: number }
  | { op: 'accept'; identity: MessagingIdentityItem; contact: ContactRecord; now: number }
  /** `nick`: our nick, for a getNick answered under rsa2 (ReceiveOptions.nick). */
  | { op: 'receive'; identity: MessagingIdentityItem; contact: ContactRecord | undefined; frame: Uint8Array; now: number; nick?: Uint8Array };

export type MessagingCryptoResult =
  | { ok: true; op: 'request'; contact: ContactRecord; request: StreamMessage }
  | { ok: true; op: 'accept'; contact: ContactRecord; accept: StreamMessage | null }
  /** `result.ignored` is null here; the refusal crosses as `ignored` (an Error loses its code in v8's serializer). */
  | { ok: true; op: 'receive'; result: ReceiveResult; ignored: { code: MessagingErrorCode; message: string } | null }
  | { ok: false; code: MessagingErrorCode; message: string };

const KEY_CACHE_SIZE = 8;
const keys = new Map<string, KeyObject>();

function keyOf(der: Uint8Array): KeyObject {
  const id = Buffer.from(der.buffer, der.byteOffset, der.byteLength).toString('base64');
  let key = keys.get(id);
  if (!key) {
    key = createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' });
    if (keys.size >= KEY_CACHE_SIZE) keys.delete(keys.keys().next().value!);
    keys.set(id, key);
  }
  return key;
}

/** Runs one item on this thread. */
export function runMessagingCrypto(item: MessagingCryptoItem): MessagingCryptoResult {
  const self = { address: item.identity.address, publicKey: item.identity.publicKey, privateKey: keyOf(item.identity.privateKeyDer) };
  try {
    switch (item.op) {
      case 'request': {
        const { contact, request } = createContactRequest(self, item.contactAddress, item.now);
        return { ok: true, op: 'request', contact, request };
      }
      case 'accept': {
        const contact = item.contact;
        const accept = acceptContact(self, contact, item.now);
        return { ok: true, op: 'accept', contact, accept };
      }
      case 'receive': {
        const m = decodeStreamMessage(item.frame);
        const result = receiveFrame(self, item.contact, m, { now: item.now, nick: item.nick });
        const ignored = result.ignored ? { code: result.ignored.code, message: result.ignored.message } : null;
        return { ok: true, op: 'receive', result: { ...result, ignored: null }, ignored };
      }
    }
  } catch (e) {
    if (e instanceof MessagingError) return { ok: false, code: e.code, message: e.message };
    throw e;
  }
}

const toBuffer = (value: unknown): ArrayBuffer => {
  const b = serialize(value);
  // A fresh, owned ArrayBuffer (safe to transfer).
  const out = new ArrayBuffer(b.byteLength);
  new Uint8Array(out).set(b);
  return out;
};

export const messagingCryptoTask: PoolTask<MessagingCryptoItem, MessagingCryptoResult> = {
  name: 'messagingCrypto',
  pack: (items) => toBuffer(items),
  unpack: (task) => deserialize(task instanceof Uint8Array ? task : new Uint8Array(task)) as MessagingCryptoItem[],
  handle(task) {
    return new Uint8Array(toBuffer(messagingCryptoTask.unpack(task).map(runMessagingCrypto)));
  },
  results(packed, count) {
    const out = deserialize(packed) as MessagingCryptoResult[];
    if (!Array.isArray(out) || out.length !== count) throw new RangeError(`messagingCrypto result: expected ${count} items`);
    return out;
  },
  runOne: (item) => runMessagingCrypto(item),
};
