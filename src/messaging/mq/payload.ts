/**
 * JSON payloads of the QuIXI MQ bridge (reference-quixi-events.md §1.3–§1.9): the received,
 * decrypted StreamMessage, in payload shape A (QuIXI v0.9.1b, the default) or B (Core ≥ fac02be,
 * §1.9), with `data` rendered as `{type, channel, data}` and the inner payload mapped per code
 * (§1.6); node-event payloads (§1.7). Compact one-line JSON, UTF-8, Base64 with padding, nulls
 * written, non-ASCII unescaped (as Newtonsoft's defaults).
 */
import { Address } from '../../formats/address.js';
import { toBase64 } from '../../formats/bytes.js';
import { addressToJson } from '../json.js';
import { SpixiMessageCode as C, decodeAcceptAdd2, decodeAppData, decodeAppProtocols, decodeKeys2, decodeReaction, decodeRequestAdd2, type SpixiMessage } from '../spixi-message.js';
import { SpixiMessageError } from '../errors.js';
import type { StreamMessage } from '../stream-message.js';

export type PayloadShape = 'A' | 'B';

const b64 = (b: Uint8Array | null | undefined): string | null => (b ? toBase64(b) : null);
const text = (b: Uint8Array | null): string => (b ? new TextDecoder().decode(b) : '');

/** Decoders that throw only SpixiMessageError; a malformed payload falls back to Base64 of the raw bytes. */
function mapped(data: Uint8Array, f: (d: Uint8Array) => unknown): unknown {
  try {
    return f(data);
  } catch (e) {
    if (e instanceof SpixiMessageError) return b64(data);
    throw e;
  }
}

/**
 * The inner `data.data` value for a SpixiMessage (§1.6): text for chat and nick, objects for the
 * handshake, app data, protocol lists and reactions, Base64 of the raw payload otherwise; null
 * when there is no payload. An empty chat or nick is never published (service.ts `deliver`, as
 * the reference, whose serializer throws on it); "" here only keeps this function total.
 */
export function spixiPayloadToJson(s: SpixiMessage): unknown {
  const d = s.data;
  switch (s.type) {
    case C.chat:
    case C.nick:
      return text(d);
  }
  if (d === null) return null;
  switch (s.type) {
    case C.requestAdd2:
      return mapped(d, (x) => {
        const r = decodeRequestAdd2(x);
        return { maxProtocolVersion: r.maxProtocolVersion, pubKey: b64(r.pubKey) };
      });
    case C.acceptAdd2:
      return mapped(d, (x) => {
        const a = decodeAcceptAdd2(x);
        return { version: a.version, rsaPubKey: b64(a.rsaPubKey), ecdhPubKey: b64(a.ecdhPubKey), mlkemPubKey: b64(a.mlkemPubKey), aesSalt: b64(a.aesSalt), capabilities: a.capabilities };
      });
    case C.keys2:
      return mapped(d, (x) => {
        const k = decodeKeys2(x);
        return { ecdhPubKey: b64(k.ecdhPubKey), mlkemCiphertext: b64(k.mlkemCiphertext), chaChaSalt: b64(k.chaChaSalt), capabilities: k.capabilities };
      });
    case C.appData:
    case C.appProtocolData:
      return mapped(d, (x) => {
        const a = decodeAppData(x);
        return { sessionId: b64(a.sessionId), data: b64(a.data), appId: a.appId };
      });
    case C.appProtocols:
      return mapped(d, (x) => ({ protocolIds: decodeAppProtocols(x).map(b64) }));
    case C.msgReaction:
      return mapped(d, (x) => {
        const r = decodeReaction(x);
        return { msgId: b64(r.msgId), reaction: r.reaction };
      });
    default:
      return b64(d);
  }
}

/** A received message as the bridge publishes it. */
export interface ReceivedForMq {
  /** The StreamMessage with `data` = the decrypted SpixiMessage bytes. */
  message: StreamMessage;
  spixi: SpixiMessage;
  /** Ciphertext as received; null for unencrypted messages. */
  originalData: Uint8Array | null;
  /** SHA3-512 checksum of the received (encrypted) form; null for unencrypted messages. */
  originalChecksum: Uint8Array | null;
  /** Real author in bot group chats; null otherwise. */
  realSender?: Uint8Array | null;
}

const addrText = (a: Uint8Array | null | undefined): string | null => (a ? new Address(a).base58Address : null);

/** The StreamMessage JSON object of a stream event, shape A (default) or B. */
export function streamEventObject(r: ReceivedForMq, shape: PayloadShape = 'A'): Record<string, unknown> {
  const m = r.message;
  const data = { type: r.spixi.type, channel: r.spixi.channel, data: spixiPayloadToJson(r.spixi) };
  if (shape === 'B') {
    return {
      type: m.type,
      sender: addrText(m.sender),
      recipient: addrText(m.recipient),
      data,
      encryptionType: m.encryptionType,
      id: b64(m.id),
      timestamp: m.timestamp,
      requireRcvConfirmation: m.requireRcvConfirmation,
      version: m.version,
    };
  }
  return {
    type: m.type,
    realSender: r.realSender ? addressToJson(r.realSender) : null,
    sender: m.sender ? addressToJson(m.sender) : null,
    recipient: m.recipient ? addressToJson(m.recipient) : null,
    data,
    originalData: b64(r.originalData),
    originalChecksum: b64(r.originalChecksum),
    signature: b64(m.signature),
    encryptionType: m.encryptionType,
    encrypted: false,
    id: b64(m.id),
    timestamp: m.timestamp,
    requireRcvConfirmation: m.requireRcvConfirmation,
    version: m.version,
  };
}

/** Compact one-line JSON, as the bridge sends it. */
export const serializePayload = (value: unknown): string => JSON.stringify(value);

/** `MessageSent` / `MessageExpired` payload: a JSON string holding the Base64 message id. */
export const messageIdPayload = (id: Uint8Array): string => JSON.stringify(b64(id));

/** `TransactionStatusUpdate` payload: `{"<lowercase hex txid>": verified}`. */
export const transactionStatusPayload = (txid: Uint8Array, verified: boolean): string =>
  JSON.stringify({ [Buffer.from(txid).toString('hex')]: verified });
