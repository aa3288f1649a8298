/**
 * The SpixiMessage inside StreamMessage.data, and the payloads of the codes messaging uses
 * (reference-rpc-messaging.md §3.6 "SpixiMessage", payload table; §3.5 handshake payloads;
 * §3.8 app data and channels).
 *
 *   SpixiMessage    = int32 LE type ‖ int32 LE data length ‖ data ‖ int32 LE channel (missing → 0)
 *   requestAdd2     = u8 max protocol version ‖ lp(RSA public key)
 *   acceptAdd2      = u8 version ‖ lp(RSA pub) ‖ lp(ECDH pub) ‖ lp(ML-KEM pub) ‖ lp(AES salt) [‖ varint caps]
 *   keys2           = lp(ECDH pub) ‖ lp(ML-KEM ciphertext) ‖ lp(ChaCha salt) [‖ varint caps]
 *   AppDataMessage  = u8 id length ‖ id ‖ int32 LE data length ‖ data [‖ .NET string appId]
 *   appProtocols    = varint count ‖ lp(protocol id)…
 * (lp = varint length ‖ bytes.) The version bytes are read as varints, as the reference reads
 * them; they are written as one byte (values < 0xF8 encode identically).
 */
import { concatBytes } from '../formats/bytes.js';
import { assertBytes } from '../formats/bytes.js';
import { encodeVarUint } from '../formats/varint.js';
import { sha3_512 } from '../core/hash.js';
import { ByteReader, encodeDotnetString } from './reader.js';
import { SpixiMessageError } from './errors.js';

/** SpixiMessageCode (§3.6). */
export const SpixiMessageCode = {
  chat: 0, getNick: 1, nick: 2, requestAdd: 3, acceptAdd: 4, sentFunds: 5, requestFunds: 6, keys: 7,
  msgRead: 8, msgReceived: 9, fileData: 10, requestFileData: 11, fileHeader: 12, acceptFile: 13,
  requestCall: 14, acceptCall: 15, rejectCall: 16, callData: 17, requestFundsResponse: 18,
  acceptAddBot: 19, botGetMessages: 20, appData: 21, appRequest: 22, fileFullyReceived: 23, avatar: 24,
  getAvatar: 25, getPubKey: 26, pubKey: 27, appRequestAccept: 28, appRequestReject: 29,
  appRequestError: 30, appEndSession: 31, botAction: 32, msgDelete: 33, msgReaction: 34, msgTyping: 35,
  msgError: 36, leave: 37, leaveConfirmed: 38, msgReport: 39, requestAdd2: 40, acceptAdd2: 41, keys2: 42,
  getAppProtocols: 43, appProtocols: 44, appProtocolData: 45,
} as const;
export type SpixiMessageCodeName = keyof typeof SpixiMessageCode;

/** First and last code reserved for custom apps and services (§3.6). */
export const CUSTOM_CODE_MIN = 0xf0;
export const CUSTOM_CODE_MAX = 0xff;

/** Is `code` a SpixiMessageCode the reference defines, or in the custom range? */
export function isKnownSpixiCode(code: number): boolean {
  return Number.isInteger(code) && ((code >= 0 && code <= SpixiMessageCode.appProtocolData) || (code >= CUSTOM_CODE_MIN && code <= CUSTOM_CODE_MAX));
}

/** StreamCapabilities flags (§3.6). */
export const StreamCapabilities = { incoming: 1, outgoing: 2, ipn: 4, apps: 8, appProtocols: 16 } as const;
/** Capabilities assumed when an acceptAdd2/keys2 has none: Incoming|Outgoing|IPN|Apps. */
export const DEFAULT_PEER_CAPABILITIES = 15;
/** What we advertise, as QuIXI: Incoming|AppProtocols. */
export const OUR_CAPABILITIES = StreamCapabilities.incoming | StreamCapabilities.appProtocols;

/** Current contact protocol version (§3.5). */
export const PROTOCOL_VERSION = 1;
/** Channel of non-chat receipts (§3.8). */
export const NON_CHAT_RECEIPT_CHANNEL = -1;
/** Length of app session ids and protocol ids (§3.8). */
export const APP_ID_LENGTH = 44;

/** Bounds: a SpixiMessage lives in a stream message, so its size is bounded by that frame. */
const MAX_PAYLOAD = 8 * 1024 * 1024;
/** Largest serialized RSA public key (16384-bit) with headers, with margin. */
const MAX_KEY_BYTES = 4096;
/** ML-KEM-1024 public key and ciphertext are 1568 bytes; ECDH keys 67; salts 32. */
const MAX_HANDSHAKE_FIELD = 4096;

export interface SpixiMessage {
  /** SpixiMessageCode (int32). */
  type: number;
  data: Uint8Array | null;
  /** int32; 0 for normal contacts, −1 for non-chat receipts. */
  channel: number;
}

const fail = (message: string, offset: number): SpixiMessageError => new SpixiMessageError(message, offset);

function i32(v: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setInt32(0, v, true);
  return out;
}


const lp = (b: Uint8Array | null): Uint8Array => (b === null || b.length === 0 ? Uint8Array.of(0) : concatBytes(encodeVarUint(b.length), b));

function checkInt32(v: number, what: string): void {
  if (!Number.isInteger(v) || v < -0x8000_0000 || v > 0x7fff_ffff) throw fail(`${what} must be an int32, got ${v}`, -1);
}

/** Serializes a SpixiMessage (the channel is always written). */
export function encodeSpixiMessage(m: SpixiMessage): Uint8Array {
  checkInt32(m.type, 'type');
  checkInt32(m.channel, 'channel');
  if (m.data !== null) assertBytes(m.data, 'data');
  const data = m.data ?? new Uint8Array(0);
  return concatBytes(i32(m.type), i32(data.length), data, i32(m.channel));
}

/**
 * Parses a SpixiMessage. A missing channel reads as 0; a negative length, truncation or trailing
 * bytes throw SpixiMessageError with the offset.
 */
export function decodeSpixiMessage(bytes: Uint8Array): SpixiMessage {
  assertBytes(bytes, 'spixi message');
  const r = new ByteReader(bytes, fail);
  const type = r.i32('type');
  const lenAt = r.offset;
  const len = r.i32('data length');
  if (len < 0) throw fail(`negative data length ${len} at offset ${lenAt}`, lenAt);
  if (len > MAX_PAYLOAD) throw fail(`data length ${len} at offset ${lenAt} exceeds ${MAX_PAYLOAD}`, lenAt);
  const data = len === 0 ? null : r.raw(len, 'data');
  const channel = r.remaining === 0 ? 0 : r.i32('channel');
  r.end('spixi message');
  return { type, data, channel };
}

// ——— handshake payloads (§3.5) ———

export interface RequestAdd2 {
  maxProtocolVersion: number;
  /** Requester's serialized RSA public key. */
  pubKey: Uint8Array;
}

export function encodeRequestAdd2(p: RequestAdd2): Uint8Array {
  checkVersionByte(p.maxProtocolVersion);
  assertBytes(p.pubKey, 'pubKey');
  return concatBytes(Uint8Array.of(p.maxProtocolVersion), lp(p.pubKey));
}

export function decodeRequestAdd2(bytes: Uint8Array): RequestAdd2 {
  assertBytes(bytes, 'requestAdd2');
  const r = new ByteReader(bytes, fail);
  const maxProtocolVersion = r.varUint('max protocol version', 0x7fff_ffff);
  const at = r.offset;
  const pubKey = r.varBytes('public key', MAX_KEY_BYTES);
  if (pubKey === null) throw fail(`requestAdd2 without a public key at offset ${at}`, at);
  r.end('requestAdd2');
  return { maxProtocolVersion, pubKey };
}

export interface AcceptAdd2 {
  version: number;
  rsaPubKey: Uint8Array;
  ecdhPubKey: Uint8Array;
  mlkemPubKey: Uint8Array;
  aesSalt: Uint8Array;
  capabilities: number;
}

function checkVersionByte(v: number): void {
  if (!Number.isInteger(v) || v < 0 || v > 0xf7) throw fail(`version must be 0…247 (one byte that reads as a varint), got ${v}`, -1);
}

function checkCaps(v: number): void {
  if (!Number.isInteger(v) || v < 0 || v > 0x7fff_ffff) throw fail(`capabilities must be a non-negative int32, got ${v}`, -1);
}

export function encodeAcceptAdd2(p: AcceptAdd2): Uint8Array {
  checkVersionByte(p.version);
  checkCaps(p.capabilities);
  for (const k of ['rsaPubKey', 'ecdhPubKey', 'mlkemPubKey', 'aesSalt'] as const) assertBytes(p[k], k);
  return concatBytes(Uint8Array.of(p.version), lp(p.rsaPubKey), lp(p.ecdhPubKey), lp(p.mlkemPubKey), lp(p.aesSalt), encodeVarUint(p.capabilities));
}

function required(r: ByteReader, what: string, max: number): Uint8Array {
  const at = r.offset;
  const v = r.varBytes(what, max);
  if (v === null) throw fail(`missing ${what} at offset ${at}`, at);
  return v;
}

function optionalCaps(r: ByteReader): number {
  return r.remaining === 0 ? DEFAULT_PEER_CAPABILITIES : r.varUint('capabilities', 0x7fff_ffff);
}

export function decodeAcceptAdd2(bytes: Uint8Array): AcceptAdd2 {
  assertBytes(bytes, 'acceptAdd2');
  const r = new ByteReader(bytes, fail);
  const version = r.varUint('version', 0x7fff_ffff);
  const rsaPubKey = required(r, 'RSA public key', MAX_KEY_BYTES);
  const ecdhPubKey = required(r, 'ECDH public key', MAX_HANDSHAKE_FIELD);
  const mlkemPubKey = required(r, 'ML-KEM public key', MAX_HANDSHAKE_FIELD);
  const aesSalt = required(r, 'AES salt', MAX_HANDSHAKE_FIELD);
  const capabilities = optionalCaps(r);
  r.end('acceptAdd2');
  return { version, rsaPubKey, ecdhPubKey, mlkemPubKey, aesSalt, capabilities };
}

export interface Keys2 {
  ecdhPubKey: Uint8Array;
  mlkemCiphertext: Uint8Array;
  chaChaSalt: Uint8Array;
  capabilities: number;
}

export function encodeKeys2(p: Keys2): Uint8Array {
  checkCaps(p.capabilities);
  for (const k of ['ecdhPubKey', 'mlkemCiphertext', 'chaChaSalt'] as const) assertBytes(p[k], k);
  return concatBytes(lp(p.ecdhPubKey), lp(p.mlkemCiphertext), lp(p.chaChaSalt), encodeVarUint(p.capabilities));
}

export function decodeKeys2(bytes: Uint8Array): Keys2 {
  assertBytes(bytes, 'keys2');
  const r = new ByteReader(bytes, fail);
  const ecdhPubKey = required(r, 'ECDH public key', MAX_HANDSHAKE_FIELD);
  const mlkemCiphertext = required(r, 'ML-KEM ciphertext', MAX_HANDSHAKE_FIELD);
  const chaChaSalt = required(r, 'ChaCha salt', MAX_HANDSHAKE_FIELD);
  const capabilities = optionalCaps(r);
  r.end('keys2');
  return { ecdhPubKey, mlkemCiphertext, chaChaSalt, capabilities };
}

// ——— app data (§3.8) ———

export interface AppDataMessage {
  /** 44-byte session id (appData) or protocol id (appProtocolData); at most 255 bytes. */
  sessionId: Uint8Array;
  data: Uint8Array | null;
  appId: string | null;
}

/** Longest appId text accepted, UTF-8 bytes. */
const MAX_APP_ID_BYTES = 1024;

/**
 * Serializes an AppDataMessage. A null session id is refused: the reference would write it as an
 * int32 0 (a QUIRK its own reader misparses), and no sender of ours needs it.
 */
export function encodeAppData(p: AppDataMessage): Uint8Array {
  assertBytes(p.sessionId, 'sessionId');
  if (p.sessionId.length === 0 || p.sessionId.length > 255) throw fail(`sessionId must be 1…255 bytes, got ${p.sessionId.length}`, -1);
  if (p.data !== null) assertBytes(p.data, 'data');
  const data = p.data ?? new Uint8Array(0);
  const parts = [Uint8Array.of(p.sessionId.length), p.sessionId, i32(data.length), data];
  if (p.appId !== null) {
    if (typeof p.appId !== 'string') throw new TypeError('appId must be a string or null');
    parts.push(encodeDotnetString(p.appId));
  }
  return concatBytes(...parts);
}

export function decodeAppData(bytes: Uint8Array): AppDataMessage {
  assertBytes(bytes, 'app data');
  const r = new ByteReader(bytes, fail);
  const idAt = r.offset;
  const idLen = r.u8('session id length');
  if (idLen === 0) throw fail(`empty session id at offset ${idAt}`, idAt);
  const sessionId = r.raw(idLen, 'session id');
  const lenAt = r.offset;
  const len = r.i32('data length');
  if (len < 0 || len > MAX_PAYLOAD) throw fail(`bad data length ${len} at offset ${lenAt}`, lenAt);
  const data = len === 0 ? null : r.raw(len, 'data');
  const appId = r.remaining === 0 ? null : r.dotnetString('appId', MAX_APP_ID_BYTES);
  r.end('app data');
  return { sessionId, data, appId };
}

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Session id of a mini app (§3.8): first 44 bytes of SHA3-512(SHA3-512(UTF-8 appId)). */
export function appSessionId(appId: string): Uint8Array {
  if (typeof appId !== 'string') throw new TypeError('appId must be a string');
  return sha3_512(sha3_512(utf8(appId))).slice(0, APP_ID_LENGTH);
}

/** Protocol id of an app protocol (§3.8): first 44 bytes of a single SHA3-512(UTF-8 protocolId). */
export function appProtocolId(protocolId: string): Uint8Array {
  if (typeof protocolId !== 'string') throw new TypeError('protocolId must be a string');
  return sha3_512(utf8(protocolId)).slice(0, APP_ID_LENGTH);
}

/** Longest protocol-id list accepted. */
const MAX_PROTOCOLS = 1024;

export function encodeAppProtocols(ids: Uint8Array[]): Uint8Array {
  if (!Array.isArray(ids)) throw new TypeError('ids must be an array');
  return concatBytes(encodeVarUint(ids.length), ...ids.map((id) => (assertBytes(id, 'protocol id'), lp(id))));
}

export function decodeAppProtocols(bytes: Uint8Array): Uint8Array[] {
  assertBytes(bytes, 'app protocols');
  const r = new ByteReader(bytes, fail);
  const n = r.varUint('count', MAX_PROTOCOLS);
  const out: Uint8Array[] = [];
  for (let i = 0; i < n; i++) out.push(r.varBytes('protocol id', 255) ?? new Uint8Array(0));
  r.end('app protocols');
  return out;
}

export interface Reaction {
  msgId: Uint8Array;
  reaction: string;
}

/** msgReaction payload: int32 id length ‖ id ‖ .NET string reaction. */
export function decodeReaction(bytes: Uint8Array): Reaction {
  assertBytes(bytes, 'reaction');
  const r = new ByteReader(bytes, fail);
  const at = r.offset;
  const n = r.i32('message id length');
  if (n < 0 || n > 255) throw fail(`bad message id length ${n} at offset ${at}`, at);
  const msgId = r.raw(n, 'message id');
  const reaction = r.dotnetString('reaction', 1024);
  r.end('reaction');
  return { msgId, reaction };
}

export function encodeReaction(p: Reaction): Uint8Array {
  assertBytes(p.msgId, 'msgId');
  return concatBytes(i32(p.msgId.length), p.msgId, encodeDotnetString(p.reaction));
}

/**
 * The SpixiMessage of QuIXI's `sendAppData` (§3.8): with `appId` an appData (21) to the session id
 * SHA3-512²(appId)[0..44); else with `protocolId` an appProtocolData (45) to SHA3-512(protocolId)[0..44);
 * `appId` wins when both are given. Channel 0; the appId text itself is not sent (as QuIXI).
 * @throws TypeError when neither is given.
 */
export function buildAppDataMessage(target: { appId?: string; protocolId?: string }, data: Uint8Array): SpixiMessage {
  assertBytes(data, 'data');
  let type: number;
  let sessionId: Uint8Array;
  if (typeof target.appId === 'string') {
    type = SpixiMessageCode.appData;
    sessionId = appSessionId(target.appId);
  } else if (typeof target.protocolId === 'string') {
    type = SpixiMessageCode.appProtocolData;
    sessionId = appProtocolId(target.protocolId);
  } else {
    throw new TypeError('appId or protocolId is required');
  }
  return { type, data: encodeAppData({ sessionId, data, appId: null }), channel: 0 };
}
