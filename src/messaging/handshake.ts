/**
 * The contact handshake and the per-message sealing of reference-rpc-messaging.md §3.5–§3.6, as
 * pure state transitions on a contact record: no storage, no network, no clock of its own.
 *
 *   requester                                   acceptor
 *   addContact: status 0, RequestSent, approved
 *     ── requestAdd2 [0] (none, signed) ──▶     unknown sender: new contact, RequestReceived,
 *                                               approved false, status 1 (event RequestAdd2)
 *     ◀── msgReceived [0] (only known senders) ─ (a re-sent copy: replay, but acknowledged)
 *   status 0 → 1
 *                                               acceptContact: approved, Approved, ECDH +
 *     ◀── acceptAdd2 [1] (rsa2, signed) ──────  ML-KEM pairs and AES salt kept, status stays 1
 *   keys derived, Approved, status 2
 *     ── keys2 [2] (rsa2, signed) ──────────▶   keys derived, secrets dropped, status 3
 *     ◀── msgReceived [2] ─────────────────────
 *   status 2 → 3
 *
 * `receiveFrame` authenticates a frame (recipient, signature or AEAD, sender key) and applies it;
 * anything that fails authentication throws a MessagingError and must be dropped (no receipt).
 * An authenticated frame that the state does not allow (a replay, a late accept) comes back with
 * `ignored` set to a MessagingError, plus the receipt the reference would still send.
 * Every function that signs, encrypts or runs ECDH/ML-KEM is synchronous, for the worker pool.
 */
import type { KeyObject } from 'node:crypto';
import { Address } from '../formats/address.js';
import { assertBytes, equalBytes } from '../formats/bytes.js';
import { AddressError, RsaKeyError } from '../formats/errors.js';
import { MessagingError } from './errors.js';
import {
  deriveSessionKeys,
  ecdhKeyPair,
  ecdhSharedSecret,
  mlkemDecapsulate,
  mlkemEncapsulate,
  mlkemKeyPair,
  rsa2Decrypt,
  rsa2Encrypt,
  SALT_LENGTH,
  secureRandom,
  spixi2Decrypt,
  spixi2Encrypt,
} from './crypto.js';
import {
  decodeAcceptAdd2,
  decodeKeys2,
  decodeRequestAdd2,
  decodeSpixiMessage,
  encodeAcceptAdd2,
  encodeKeys2,
  encodeRequestAdd2,
  encodeSpixiMessage,
  NON_CHAT_RECEIPT_CHANNEL,
  OUR_CAPABILITIES,
  PROTOCOL_VERSION,
  SpixiMessageCode,
  type SpixiMessage,
} from './spixi-message.js';
import {
  EncryptionType,
  signStreamMessage,
  STREAM_MESSAGE_VERSION,
  streamMessageAad,
  StreamMessageCode,
  verifyStreamMessage,
  type StreamMessage,
} from './stream-message.js';

/** FriendState (§3.3). */
export const FriendState = { requestSent: 0, requestReceived: 1, approved: 2, ignored: 3, unknown: 4 } as const;
export type FriendState = (typeof FriendState)[keyof typeof FriendState];

/** The single-byte reserved message ids of the handshake (§3.5). */
export const HandshakeId = { request: 0, accept: 1, keys: 2, getNick: 3, getAvatar: 4, nick: 5, avatar: 6 } as const;
/** Length of ordinary message ids (a GUID). */
export const MESSAGE_ID_LENGTH = 16;

export type HandshakeStatus = 0 | 1 | 2 | 3;

/** Our side: wallet address, serialized RSA public key, RSA private key. */
export interface Identity {
  /** Address without checksum. */
  address: Uint8Array;
  publicKey: Uint8Array;
  privateKey: KeyObject | Uint8Array;
}

/** The handshake and key fields of a contact (the persistent part that matters for bytes). */
export interface ContactRecord {
  /** Contact's address without checksum. */
  address: Uint8Array;
  /** Contact's serialized RSA public key; null until learned. */
  publicKey: Uint8Array | null;
  approved: boolean;
  handshakeStatus: HandshakeStatus;
  state: FriendState;
  protocolVersion: number;
  streamCapabilities: number;
  /** Network Unix seconds when added. */
  addedTimestamp: number;
  /** Replay guard: timestamp of the last accepted handshake message from the contact. */
  lastReceivedHandshakeMessageTimestamp: number;
  /** Timestamp of our last handshake message to the contact (kept strictly increasing, see `handshakeTimestamp`). */
  lastSentHandshakeTimestamp: number;
  /** Set when we sent acceptAdd2; cleared by a new request unless that accept still waits for keys2. */
  acceptSent: boolean;
  aesKey: Uint8Array | null;
  chachaKey: Uint8Array | null;
  /** Acceptor's ephemeral secrets between acceptAdd2 and keys2. */
  ecdhPrivateKey: Uint8Array | null;
  mlkemPrivateKey: Uint8Array | null;
  aesSalt: Uint8Array | null;
}

/**
 * interface.md's `approved`: "true once a secure channel is established with the contact" — our
 * consent (the reference's `approved` flag, `ContactRecord.approved`) and the session keys. The
 * requester is false until the accept arrives, the acceptor until keys2 arrives. This is also the
 * condition for `sendAppMessage` (DESIGN decision 6).
 */
export const isChannelEstablished = (c: ContactRecord): boolean => c.approved && c.aesKey !== null && c.chachaKey !== null;

/** Capabilities a new contact starts with (§3.3). */
export const NEW_CONTACT_CAPABILITIES = 15;

function newContact(address: Uint8Array, now: number): ContactRecord {
  return {
    address: address.slice(),
    publicKey: null,
    approved: true,
    handshakeStatus: 0,
    state: FriendState.requestSent,
    protocolVersion: PROTOCOL_VERSION,
    streamCapabilities: NEW_CONTACT_CAPABILITIES,
    addedTimestamp: now,
    lastReceivedHandshakeMessageTimestamp: 0,
    lastSentHandshakeTimestamp: 0,
    acceptSent: false,
    aesKey: null,
    chachaKey: null,
    ecdhPrivateKey: null,
    mlkemPrivateKey: null,
    aesSalt: null,
  };
}

function checkNow(now: number): void {
  if (!Number.isSafeInteger(now) || now < 0) throw new TypeError(`now must be non-negative integer seconds, got ${now}`);
}

/**
 * Timestamp for our next handshake message to `contact`: max(now, last + 1). The reference
 * receiver drops handshake messages whose timestamp is not strictly newer than the last one it
 * took (seconds), so a request and a keys2 sent within one second would lose the keys2.
 */
function handshakeTimestamp(contact: ContactRecord, now: number): number {
  const t = Math.max(now, contact.lastSentHandshakeTimestamp + 1);
  contact.lastSentHandshakeTimestamp = t;
  return t;
}

function baseMessage(self: Identity, to: Uint8Array, id: Uint8Array, type: StreamMessageCode, encryptionType: EncryptionType, data: Uint8Array, timestamp: number, requireRcvConfirmation = true): StreamMessage {
  return { version: STREAM_MESSAGE_VERSION, id, type, encryptionType, sender: self.address, recipient: to, data, timestamp, signature: null, requireRcvConfirmation };
}

/** Encrypts `m.data` (plain SpixiMessage bytes) with rsa2 to `publicKey`, then signs (v1: sign after encrypting). */
function rsa2Seal(self: Identity, m: StreamMessage, publicKey: Uint8Array): StreamMessage {
  const sealed = { ...m, encryptionType: EncryptionType.rsa2, data: rsa2Encrypt(m.data!, publicKey, streamMessageAad(m)) };
  return signStreamMessage(sealed, self.privateKey);
}

/**
 * A handshake-class info frame (id [1] accept, [2] keys2, [3] getNick, [5] nick before session
 * keys): `spixi` rsa2-encrypted to `publicKey`, signed, kept until its receipt.
 */
function rsa2InfoFrame(self: Identity, to: Uint8Array, id: number, spixi: SpixiMessage, timestamp: number, publicKey: Uint8Array): StreamMessage {
  const m = baseMessage(self, to, Uint8Array.of(id), StreamMessageCode.info, EncryptionType.none, encodeSpixiMessage(spixi), timestamp);
  return rsa2Seal(self, m, publicKey);
}

function checkIdentity(self: Identity): void {
  if (typeof self !== 'object' || self === null) throw new TypeError('identity must be an object');
  assertBytes(self.address, 'identity.address');
  assertBytes(self.publicKey, 'identity.publicKey');
}

/**
 * `addContact` (step 1): a new contact record (RequestSent, approved, status 0) and the signed,
 * unencrypted contact request with id [0], which the caller queues until its receipt arrives.
 */
export function createContactRequest(self: Identity, contactAddress: Uint8Array, now: number): { contact: ContactRecord; request: StreamMessage } {
  checkIdentity(self);
  assertBytes(contactAddress, 'contactAddress');
  checkNow(now);
  try {
    new Address(contactAddress);
  } catch (e) {
    if (e instanceof AddressError) throw new MessagingError('ERR_RECIPIENT', `contact address: ${e.message}`);
    throw e;
  }
  const contact = newContact(contactAddress, now);
  const payload = encodeRequestAdd2({ maxProtocolVersion: PROTOCOL_VERSION, pubKey: self.publicKey });
  const spixi = encodeSpixiMessage({ type: SpixiMessageCode.requestAdd2, data: payload, channel: 0 });
  const m = baseMessage(self, contact.address, Uint8Array.of(HandshakeId.request), StreamMessageCode.info, EncryptionType.none, spixi, handshakeTimestamp(contact, now));
  return { contact, request: signStreamMessage(m, self.privateKey) };
}

/**
 * `acceptContact` (step 3): sets `approved`; when the handshake allows it (status ≤ 1, a public key
 * known, no accept sent yet) generates the ECDH pair, ML-KEM pair and AES salt, moves the contact to
 * Approved and returns the signed rsa2 acceptAdd2 with id [1]; otherwise returns null (a no-op,
 * as the reference). Mutates `contact`.
 */
export function acceptContact(self: Identity, contact: ContactRecord, now: number): StreamMessage | null {
  checkIdentity(self);
  checkNow(now);
  contact.approved = true;
  if (contact.handshakeStatus > 1 || contact.acceptSent || contact.publicKey === null) return null;
  const ecdh = ecdhKeyPair();
  const kem = mlkemKeyPair();
  const aesSalt = secureRandom(SALT_LENGTH);
  contact.aesKey = null;
  contact.chachaKey = null;
  contact.ecdhPrivateKey = ecdh.privateKey;
  contact.mlkemPrivateKey = kem.privateKey;
  contact.aesSalt = aesSalt;
  contact.state = FriendState.approved;
  contact.acceptSent = true;
  const payload = encodeAcceptAdd2({ version: PROTOCOL_VERSION, rsaPubKey: self.publicKey, ecdhPubKey: ecdh.publicKey, mlkemPubKey: kem.publicKey, aesSalt, capabilities: OUR_CAPABILITIES });
  return rsa2InfoFrame(self, contact.address, HandshakeId.accept, { type: SpixiMessageCode.acceptAdd2, data: payload, channel: 0 }, handshakeTimestamp(contact, now), contact.publicKey);
}

/**
 * Spixi codes the reference sends in `info` stream messages (its send functions in
 * CoreStreamProcessor): handshake, nick, avatar, receipts, typing, leave, bot actions, protocol lists.
 */
const INFO_CODES: ReadonlySet<number> = new Set([
  SpixiMessageCode.getNick, SpixiMessageCode.nick, SpixiMessageCode.requestAdd, SpixiMessageCode.acceptAdd, SpixiMessageCode.keys,
  SpixiMessageCode.msgTyping, SpixiMessageCode.leave, SpixiMessageCode.botAction, SpixiMessageCode.getPubKey, SpixiMessageCode.pubKey,
  SpixiMessageCode.msgRead, SpixiMessageCode.msgReceived, SpixiMessageCode.getAvatar, SpixiMessageCode.avatar,
  SpixiMessageCode.requestAdd2, SpixiMessageCode.acceptAdd2, SpixiMessageCode.keys2, SpixiMessageCode.getAppProtocols, SpixiMessageCode.appProtocols,
]);

/** StreamMessageCode for a SpixiMessageCode: info for handshake, nick, receipts and protocol lists; data otherwise. */
export const streamTypeFor = (spixiCode: number): StreamMessageCode => (INFO_CODES.has(spixiCode) ? StreamMessageCode.info : StreamMessageCode.data);

export interface SealOptions {
  /** Message id; default 16 random bytes. */
  id?: Uint8Array;
  /** Default true (false for receipts, app data, app protocol data: §3.8). */
  requireRcvConfirmation?: boolean;
  /** spixi2 nonce, for known-answer tests only. */
  nonce?: Uint8Array;
}

/**
 * Seals a SpixiMessage for a contact with the session keys (spixi2; not signed, the AEAD
 * authenticates it). @throws MessagingError ERR_NO_KEYS before the keys exist (the caller queues).
 */
export function sealMessage(self: Identity, contact: ContactRecord, spixi: SpixiMessage, now: number, options: SealOptions = {}): StreamMessage {
  checkIdentity(self);
  checkNow(now);
  if (contact.aesKey === null || contact.chachaKey === null) throw new MessagingError('ERR_NO_KEYS', 'session keys with this contact are not established yet');
  const id = options.id ?? secureRandom(MESSAGE_ID_LENGTH);
  const requireRcv = options.requireRcvConfirmation ?? !(spixi.type === SpixiMessageCode.appData || spixi.type === SpixiMessageCode.appProtocolData || spixi.type === SpixiMessageCode.msgReceived);
  const m = baseMessage(self, contact.address, id, streamTypeFor(spixi.type), EncryptionType.spixi2, encodeSpixiMessage(spixi), now, requireRcv);
  return { ...m, data: spixi2Encrypt(m.data!, contact.aesKey, contact.chachaKey, streamMessageAad(m), options.nonce) };
}

/**
 * The automatic receipt (msgReceived) for message `id`: spixi2 once the handshake is complete
 * (status 3 and keys), unencrypted before; never itself acknowledged (§3.6 receiving rules).
 */
export function buildReceipt(self: Identity, contact: ContactRecord, id: Uint8Array, channel: number, now: number): StreamMessage {
  const spixi: SpixiMessage = { type: SpixiMessageCode.msgReceived, data: id.slice(), channel };
  if (contact.handshakeStatus >= 3 && contact.aesKey && contact.chachaKey) return sealMessage(self, contact, spixi, now, { requireRcvConfirmation: false });
  return baseMessage(self, contact.address, secureRandom(MESSAGE_ID_LENGTH), StreamMessageCode.info, EncryptionType.none, encodeSpixiMessage(spixi), now, false);
}

/** What the caller learns from an incoming frame. */
export type MessagingEvent =
  | { type: 'RequestAdd2'; contact: ContactRecord }
  /** Crossing requests, ours wins the tie-break: we wait for their accept; the caller makes sure our request is still going out. */
  | { type: 'RequestCrossed'; contact: ContactRecord }
  | { type: 'AcceptAdd2'; contact: ContactRecord }
  | { type: 'HandshakeComplete'; contact: ContactRecord }
  /** `statusStep`: this receipt moved the handshake (0→1 for `[0]`, 2→3 for `[2]`). */
  | { type: 'MsgReceived'; contact: ContactRecord; id: Uint8Array; channel: number; statusStep: boolean; read?: boolean }
  | { type: 'Message'; contact: ContactRecord; message: StreamMessage; spixi: SpixiMessage }
  /** A relay could not deliver our message `id` (the contact is not connected to it): mark the contact offline, look its presence up again. Unauthenticated, as in the reference. */
  | { type: 'Undeliverable'; contact: ContactRecord; id: Uint8Array };

export interface ReceiveResult {
  /** The sender's contact record (created for a first contact request, else the one passed in, updated). */
  contact: ContactRecord;
  /** True when this frame created the contact (the caller stores it). */
  created: boolean;
  /** The frame as received, with `data` replaced by the decrypted SpixiMessage bytes. */
  message: StreamMessage;
  spixi: SpixiMessage;
  /** Frames to send back (receipts, acceptAdd2, keys2), in order. */
  outgoing: StreamMessage[];
  events: MessagingEvent[];
  /** Authenticated but not applied (replay, state), with the reason; receipts may still go out. */
  ignored: MessagingError | null;
}

export interface ReceiveOptions {
  /** Network Unix seconds (for the timestamps of what we send back). */
  now: number;
  /**
   * Our nick (UTF-8): a getNick from a contact we hold no session keys with is answered at once
   * under rsa2 (CoreStreamProcessor.sendNickname); without it the caller answers (spixi2, queued).
   */
  nick?: Uint8Array;
  /** Has this contact already delivered a message with this id? (storage-level duplicate check) */
  isDuplicate?: (contact: ContactRecord, id: Uint8Array) => boolean;
}

const err = (code: ConstructorParameters<typeof MessagingError>[0], message: string): MessagingError => new MessagingError(code, message);

function addressOfKey(publicKey: Uint8Array): Uint8Array | null {
  try {
    return Address.fromPublicKey(publicKey).addressNoChecksum;
  } catch (e) {
    if (e instanceof AddressError || e instanceof RsaKeyError) return null;
    throw e;
  }
}

/** Codes a known non-bot contact may send unencrypted (§3.6). */
const PLAIN_ALLOWED: ReadonlySet<number> = new Set([SpixiMessageCode.msgReceived, SpixiMessageCode.requestAdd, SpixiMessageCode.requestAdd2, SpixiMessageCode.acceptAddBot]);
/** Codes never acknowledged automatically. */
const NO_RECEIPT: ReadonlySet<number> = new Set([SpixiMessageCode.msgReceived, SpixiMessageCode.msgTyping]);

const isHandshakeId = (id: Uint8Array, which: number): boolean => id.length === 1 && id[0] === which;

/**
 * Authenticates and applies one incoming frame (already decoded by `decodeStreamMessage`).
 * @param contact the sender's record if the sender is a contact, else undefined.
 * @throws MessagingError: ERR_RECIPIENT (not for us), ERR_SENDER, ERR_UNKNOWN_CONTACT,
 *   ERR_UNENCRYPTED, ERR_DECRYPT, ERR_NO_KEYS, ERR_SIGNATURE, ERR_SPIXI_MESSAGE, ERR_KEY,
 *   ERR_HANDSHAKE_STATE (an accept/keys we cannot process) — the frame is dropped.
 */
export function receiveFrame(self: Identity, contact: ContactRecord | undefined, m: StreamMessage, options: ReceiveOptions): ReceiveResult {
  checkIdentity(self);
  const { now } = options;
  checkNow(now);
  if (m.recipient === null || !equalBytes(m.recipient, self.address)) throw err('ERR_RECIPIENT', 'frame is not addressed to us');
  if (m.sender === null) throw err('ERR_SENDER', 'frame has no sender');
  if (contact !== undefined && !equalBytes(contact.address, m.sender)) throw err('ERR_SENDER', 'contact record does not belong to the sender');
  if (m.data === null) throw err('ERR_SPIXI_MESSAGE', 'frame has no data');
  if (m.type === StreamMessageCode.error) return onRelayError(contact, m);
  const aad = streamMessageAad(m);

  // 1. decrypt
  let plain: Uint8Array;
  switch (m.encryptionType) {
    case EncryptionType.none:
      plain = m.data;
      break;
    case EncryptionType.rsa2:
      plain = rsa2Decrypt(m.data, self.privateKey, aad);
      break;
    case EncryptionType.spixi2:
      if (contact === undefined) throw err('ERR_UNKNOWN_CONTACT', 'encrypted frame from an address that is not a contact');
      if (contact.aesKey === null || contact.chachaKey === null) throw err('ERR_NO_KEYS', 'spixi2 frame before the session keys exist');
      plain = spixi2Decrypt(m.data, contact.aesKey, contact.chachaKey, aad);
      break;
    default:
      throw err('ERR_DECRYPT', `legacy encryption type ${m.encryptionType} is not supported`);
  }
  const spixi = decodeSpixiMessage(plain);
  const opened: StreamMessage = { ...m, data: plain };
  const result: ReceiveResult = { contact: contact!, created: false, message: opened, spixi, outgoing: [], events: [], ignored: null };

  // 2. who may send what unencrypted
  if (m.encryptionType === EncryptionType.none) {
    if (contact === undefined && spixi.type !== SpixiMessageCode.requestAdd2) throw err('ERR_UNKNOWN_CONTACT', 'unencrypted frame from an address that is not a contact');
    if (contact !== undefined && !PLAIN_ALLOWED.has(spixi.type)) throw err('ERR_UNENCRYPTED', `spixi message ${spixi.type} must be encrypted`);
  }

  // 3. authenticate rsa2 and requests by signature, before any state changes
  if (spixi.type === SpixiMessageCode.requestAdd2) {
    if (m.encryptionType !== EncryptionType.none) throw err('ERR_HANDSHAKE_STATE', 'contact request must be unencrypted');
    const req = decodeRequestAdd2(spixi.data ?? new Uint8Array(0));
    const a = addressOfKey(req.pubKey);
    if (a === null || !equalBytes(a, m.sender)) throw err('ERR_SENDER', "the request's public key is not the sender's");
    if (!verifyStreamMessage(m, req.pubKey)) throw err('ERR_SIGNATURE', 'contact request has a missing or wrong signature');
    return onRequest(self, contact, m, req.pubKey, Math.min(req.maxProtocolVersion, PROTOCOL_VERSION), result, now);
  }
  if (contact === undefined) throw err('ERR_UNKNOWN_CONTACT', 'frame from an address that is not a contact');
  if (spixi.type === SpixiMessageCode.acceptAdd2) {
    if (m.encryptionType !== EncryptionType.rsa2) throw err('ERR_HANDSHAKE_STATE', 'acceptAdd2 must be rsa2-encrypted');
    const acc = decodeAcceptAdd2(spixi.data ?? new Uint8Array(0));
    const a = addressOfKey(acc.rsaPubKey);
    if (a === null || !equalBytes(a, m.sender)) throw err('ERR_SENDER', "the accept's public key is not the sender's");
    if (!verifyStreamMessage(m, acc.rsaPubKey)) throw err('ERR_SIGNATURE', 'acceptAdd2 has a missing or wrong signature');
    addReceipt(self, contact, m, spixi, result, now);
    return onAccept(self, contact, m, acc, result, now);
  }
  if (m.encryptionType === EncryptionType.rsa2) {
    // The acceptor asks for our nick (rsa2, [3]) before its accept brings us its key: the reference
    // answers a getNick from any known contact without a signature check (handleGetNick); it only
    // queues our nick to that contact, which goes under the session keys.
    const unverifiableGetNick = contact.publicKey === null && spixi.type === SpixiMessageCode.getNick;
    if (contact.publicKey === null && !unverifiableGetNick) throw err('ERR_HANDSHAKE_STATE', 'rsa2 frame from a contact whose public key we do not have');
    if (contact.publicKey !== null && !verifyStreamMessage(m, contact.publicKey)) throw err('ERR_SIGNATURE', 'rsa2 frame has a missing or wrong signature');
  }
  if (spixi.type === SpixiMessageCode.keys2) {
    if (m.encryptionType !== EncryptionType.rsa2) throw err('ERR_HANDSHAKE_STATE', 'keys2 must be rsa2-encrypted');
    addReceipt(self, contact, m, spixi, result, now);
    return onKeys2(contact, m, decodeKeys2(spixi.data ?? new Uint8Array(0)), result);
  }
  if (spixi.type === SpixiMessageCode.msgReceived) {
    const id = spixi.data ?? new Uint8Array(0);
    // The event always goes out (the outbox dequeues the acknowledged message); the status moves
    // only 0→1 for [0] (skipped when the accept came first) and 2→3 for [2].
    let statusStep = false;
    if (isHandshakeId(id, HandshakeId.request) && contact.handshakeStatus === 0) {
      contact.handshakeStatus = 1;
      statusStep = true;
    } else if (isHandshakeId(id, HandshakeId.keys) && contact.handshakeStatus === 2) {
      contact.handshakeStatus = 3;
      statusStep = true;
    }
    result.events.push({ type: 'MsgReceived', contact, id, channel: spixi.channel, statusStep });
    return result;
  }
  // 4. any other message: duplicates are acknowledged again but not delivered twice
  addReceipt(self, contact, m, spixi, result, now);
  if (spixi.type === SpixiMessageCode.msgRead) {
    // §3.7 step 6: a read receipt confirms (and marks read) our message and dequeues it, as msgReceived.
    result.events.push({ type: 'MsgReceived', contact, id: spixi.data ?? new Uint8Array(0), channel: spixi.channel, statusStep: false, read: true });
    return result;
  }
  if (options.isDuplicate?.(contact, m.id)) return ignore(result, 'ERR_DUPLICATE', 'message id already received');
  if (spixi.type === SpixiMessageCode.getNick && options.nick !== undefined && (contact.aesKey === null || contact.chachaKey === null) && contact.publicKey !== null) {
    result.outgoing.push(buildNickRsa2(self, contact, options.nick, now));
  }
  result.events.push({ type: 'Message', contact, message: opened, spixi });
  return result;
}

/**
 * Our nick to a contact we hold no session keys with (CoreStreamProcessor.sendNickname): id [5],
 * info, rsa2 to its public key, signed; queued until its receipt like the handshake frames.
 */
function buildNickRsa2(self: Identity, contact: ContactRecord, nick: Uint8Array, now: number): StreamMessage {
  return rsa2InfoFrame(self, contact.address, HandshakeId.nick, { type: SpixiMessageCode.nick, data: nick, channel: 0 }, now, contact.publicKey!);
}

/**
 * The getNick [3] an acceptor sends a new contact as soon as its request is stored
 * (CoreStreamProcessor.handleRequestAdd2 → requestNickname): payload one zero byte (§3.6), rsa2
 * to the requester's key (no session keys yet), signed, queued until its receipt.
 */
function buildGetNick(self: Identity, contact: ContactRecord, now: number): StreamMessage {
  return rsa2InfoFrame(self, contact.address, HandshakeId.getNick, { type: SpixiMessageCode.getNick, data: Uint8Array.of(0), channel: 0 }, now, contact.publicKey!);
}

/** An S2 relay's "recipient not connected" answer (reference-network §7.1 step 6). */
function onRelayError(contact: ContactRecord | undefined, m: StreamMessage): ReceiveResult {
  if (contact === undefined) throw err('ERR_UNKNOWN_CONTACT', 'relay error about an address that is not a contact');
  if (m.encryptionType !== EncryptionType.none) throw err('ERR_HANDSHAKE_STATE', 'relay error frames are unencrypted');
  const id = m.data!;
  return {
    contact,
    created: false,
    message: m,
    spixi: { type: SpixiMessageCode.msgError, data: id, channel: NON_CHAT_RECEIPT_CHANNEL },
    outgoing: [],
    events: [{ type: 'Undeliverable', contact, id }],
    ignored: null,
  };
}

/**
 * What a relay answers when the recipient of `original` is not connected to it (reference-network
 * §7.1 step 6): type error, sender and recipient swapped, data = the original id, unencrypted,
 * unsigned, no receipt.
 */
export function buildRelayError(original: StreamMessage, now: number): StreamMessage {
  checkNow(now);
  return {
    version: STREAM_MESSAGE_VERSION,
    id: secureRandom(MESSAGE_ID_LENGTH),
    type: StreamMessageCode.error,
    encryptionType: EncryptionType.none,
    sender: original.recipient,
    recipient: original.sender,
    data: original.id.slice(),
    timestamp: now,
    signature: null,
    requireRcvConfirmation: false,
  };
}

function ignore(result: ReceiveResult, code: ConstructorParameters<typeof MessagingError>[0], message: string): ReceiveResult {
  result.ignored = err(code, message);
  return result;
}

function addReceipt(self: Identity, contact: ContactRecord, m: StreamMessage, spixi: SpixiMessage, result: ReceiveResult, now: number): void {
  if (!m.requireRcvConfirmation || NO_RECEIPT.has(spixi.type)) return;
  const channel = spixi.type === SpixiMessageCode.chat ? spixi.channel : NON_CHAT_RECEIPT_CHANNEL;
  result.outgoing.push(buildReceipt(self, contact, m.id, channel, now));
}

function onRequest(self: Identity, known: ContactRecord | undefined, m: StreamMessage, pubKey: Uint8Array, version: number, result: ReceiveResult, now: number): ReceiveResult {
  if (known === undefined) {
    // First request from an unknown sender: not acknowledged (receipts go to known contacts only);
    // we ask for the new contact's nick at once (§3.5 step 2).
    const c = newContact(m.sender!, now);
    c.publicKey = pubKey.slice();
    c.approved = false;
    c.state = FriendState.requestReceived;
    c.handshakeStatus = 1;
    c.protocolVersion = version;
    c.lastReceivedHandshakeMessageTimestamp = m.timestamp;
    result.contact = c;
    result.created = true;
    result.outgoing.push(buildGetNick(self, c, now));
    result.events.push({ type: 'RequestAdd2', contact: c });
    return result;
  }
  addReceipt(self, known, m, { type: SpixiMessageCode.requestAdd2, data: null, channel: 0 }, result, now);
  if (version < known.protocolVersion) return ignore(result, 'ERR_HANDSHAKE_STATE', `contact request downgrades the protocol version to ${version}`);
  if (m.timestamp <= known.lastReceivedHandshakeMessageTimestamp) return ignore(result, 'ERR_REPLAY', 'contact request not newer than the last handshake message');
  known.lastReceivedHandshakeMessageTimestamp = m.timestamp;
  known.publicKey = pubKey.slice();
  known.protocolVersion = version;
  // Crossing requests (both sides called addContact; §3.5 leaves it open): if both accepted, each
  // would end with the keys of a different accept. The smaller address stays the requester and
  // waits for the accept; the other side accepts, as for any request from a contact it added.
  if (known.state === FriendState.requestSent && !known.acceptSent && Buffer.compare(Buffer.from(self.address), Buffer.from(known.address)) < 0) {
    known.handshakeStatus = Math.max(known.handshakeStatus, 1) as HandshakeStatus;
    result.events.push({ type: 'RequestCrossed', contact: known });
    return result;
  }
  known.handshakeStatus = 1;
  // An accept of ours still waiting for keys2 (its secrets held) stays the one in flight: Core's
  // sendAcceptAdd2 refuses while the ECDH secret is set (§3.5 step 3), and handleRequestAdd2 then
  // publishes nothing. A fresh accept would replace the secrets the queued accept's keys2 needs.
  if (known.ecdhPrivateKey === null) known.acceptSent = false;
  if (known.state !== FriendState.approved) known.state = FriendState.requestReceived;
  if (known.approved) {
    const accept = acceptContact(self, known, now);
    if (accept) {
      result.outgoing.push(accept);
      result.events.push({ type: 'RequestAdd2', contact: known });
    }
  }
  return result;
}

function onAccept(self: Identity, contact: ContactRecord, m: StreamMessage, acc: ReturnType<typeof decodeAcceptAdd2>, result: ReceiveResult, now: number): ReceiveResult {
  if (contact.handshakeStatus > 1) return ignore(result, 'ERR_HANDSHAKE_STATE', `acceptAdd2 at handshake status ${contact.handshakeStatus}`);
  if (acc.version < contact.protocolVersion) return ignore(result, 'ERR_HANDSHAKE_STATE', `acceptAdd2 downgrades the protocol version to ${acc.version}`);
  if (m.timestamp <= contact.lastReceivedHandshakeMessageTimestamp) return ignore(result, 'ERR_REPLAY', 'acceptAdd2 not newer than the last handshake message');
  // Key material first: a bad ECDH point or ML-KEM key throws ERR_KEY before the record changes.
  const ecdh = ecdhKeyPair();
  const shared1 = ecdhSharedSecret(ecdh.privateKey, acc.ecdhPubKey);
  const { ciphertext, sharedSecret } = mlkemEncapsulate(acc.mlkemPubKey);
  const chachaSalt = secureRandom(SALT_LENGTH);
  const keys = deriveSessionKeys(shared1, sharedSecret, acc.aesSalt, chachaSalt);
  contact.lastReceivedHandshakeMessageTimestamp = m.timestamp;
  contact.publicKey = acc.rsaPubKey.slice();
  contact.state = FriendState.approved;
  contact.streamCapabilities = acc.capabilities;
  contact.protocolVersion = Math.min(acc.version, PROTOCOL_VERSION);
  contact.aesKey = keys.aesKey;
  contact.chachaKey = keys.chachaKey;
  contact.handshakeStatus = 2;
  const payload = encodeKeys2({ ecdhPubKey: ecdh.publicKey, mlkemCiphertext: ciphertext, chaChaSalt: chachaSalt, capabilities: OUR_CAPABILITIES });
  result.outgoing.push(rsa2InfoFrame(self, contact.address, HandshakeId.keys, { type: SpixiMessageCode.keys2, data: payload, channel: 0 }, handshakeTimestamp(contact, now), contact.publicKey));
  result.events.push({ type: 'AcceptAdd2', contact });
  return result;
}

function onKeys2(contact: ContactRecord, m: StreamMessage, keys2: ReturnType<typeof decodeKeys2>, result: ReceiveResult): ReceiveResult {
  if (contact.handshakeStatus >= 3) return ignore(result, 'ERR_HANDSHAKE_STATE', 'keys2 after the handshake completed');
  if (m.timestamp <= contact.lastReceivedHandshakeMessageTimestamp) return ignore(result, 'ERR_REPLAY', 'keys2 not newer than the last handshake message');
  if (contact.ecdhPrivateKey === null || contact.mlkemPrivateKey === null || contact.aesSalt === null) {
    return ignore(result, 'ERR_HANDSHAKE_STATE', 'keys2 without an accept of ours');
  }
  const shared1 = ecdhSharedSecret(contact.ecdhPrivateKey, keys2.ecdhPubKey);
  const shared2 = mlkemDecapsulate(contact.mlkemPrivateKey, keys2.mlkemCiphertext);
  const keys = deriveSessionKeys(shared1, shared2, contact.aesSalt, keys2.chaChaSalt);
  contact.lastReceivedHandshakeMessageTimestamp = m.timestamp;
  contact.aesKey = keys.aesKey;
  contact.chachaKey = keys.chachaKey;
  contact.ecdhPrivateKey = null;
  contact.mlkemPrivateKey = null;
  contact.aesSalt = null;
  contact.streamCapabilities = keys2.capabilities;
  contact.handshakeStatus = 3;
  result.events.push({ type: 'HandshakeComplete', contact });
  return result;
}

/**
 * Does QuIXI publish this receipt on `MsgReceived` (reference-quixi-events §1.6)? Ordinary ids
 * always; the handshake ids only when they moved the status (`[0]` 0→1, `[2]` 2→3); never the
 * receipts of `[1]`, `[3]`–`[6]`.
 */
export const publishesMsgReceived = (e: { id: Uint8Array; statusStep: boolean }): boolean => e.id.length !== 1 || e.statusStep;
