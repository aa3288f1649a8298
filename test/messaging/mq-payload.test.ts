import { describe, expect, it } from 'vitest';
import { Address } from '../../src/formats/address.js';
import { MQ_TOPICS, NODE_TOPICS, STREAM_TOPICS, topicOfCode } from '../../src/messaging/mq/topics.js';
import { messageIdPayload, serializePayload, spixiPayloadToJson, streamEventObject, transactionStatusPayload, type ReceivedForMq } from '../../src/messaging/mq/payload.js';
import { appProtocolId, encodeAppData, encodeRequestAdd2, SpixiMessageCode } from '../../src/messaging/spixi-message.js';
import { EncryptionType, StreamMessageCode } from '../../src/messaging/stream-message.js';

const addr = (fill: number): Uint8Array => {
  const a = new Uint8Array(45).fill(fill);
  a[0] = 1;
  return a;
};
const sender = addr(0x31);
const recipient = addr(0x32);
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

function received(type: number, data: Uint8Array | null, over: Partial<ReceivedForMq['message']> = {}, encrypted = true): ReceivedForMq {
  return {
    message: { version: 1, id: new Uint8Array(16).fill(0xab), type: StreamMessageCode.data, encryptionType: EncryptionType.spixi2, sender, recipient, data: null, timestamp: 1762490000, signature: null, requireRcvConfirmation: true, ...over },
    spixi: { type, data, channel: 0 },
    originalData: encrypted ? Uint8Array.of(1, 2, 3) : null,
    originalChecksum: encrypted ? new Uint8Array(64).fill(9) : null,
  };
}

describe('MQ topics (§1.2)', () => {
  it('34 bare topic names; codes map as §1.6; keys/getNick never published', () => {
    expect(STREAM_TOPICS).toHaveLength(30);
    expect(NODE_TOPICS).toHaveLength(4);
    expect(new Set(MQ_TOPICS).size).toBe(34);
    expect(MQ_TOPICS.every((t) => /^[A-Za-z0-9]+$/.test(t))).toBe(true);
    expect(topicOfCode(SpixiMessageCode.chat)).toBe('Chat');
    expect(topicOfCode(SpixiMessageCode.requestAdd)).toBe('RequestAdd2');
    expect(topicOfCode(SpixiMessageCode.acceptAdd)).toBe('AcceptAdd2');
    expect(topicOfCode(SpixiMessageCode.appProtocolData)).toBe('AppProtocolData');
    for (const c of [SpixiMessageCode.keys, SpixiMessageCode.keys2, SpixiMessageCode.getNick, SpixiMessageCode.getAvatar, SpixiMessageCode.pubKey]) expect(topicOfCode(c)).toBeNull();
  });
});

describe('MQ payloads', () => {
  it('shape A: the StreamMessage members in order, addresses as objects, one compact line', () => {
    const r = received(SpixiMessageCode.chat, utf8('help\nme é'));
    const o = streamEventObject(r);
    expect(Object.keys(o)).toEqual(['type', 'realSender', 'sender', 'recipient', 'data', 'originalData', 'originalChecksum', 'signature', 'encryptionType', 'encrypted', 'id', 'timestamp', 'requireRcvConfirmation', 'version']);
    const s = serializePayload(o);
    expect(s).not.toContain('\n');
    expect(s).toContain('"data":{"type":0,"channel":0,"data":"help\\nme é"}');
    expect(s).toContain(`"sender":{"version":1,"addressWithChecksum":"${Buffer.from(new Address(sender).addressWithChecksum).toString('base64')}","base58Address":"${new Address(sender).base58Address}"`);
    expect(s).toContain('"originalData":"AQID","originalChecksum":"' + Buffer.alloc(64, 9).toString('base64') + '","signature":null,"encryptionType":4,"encrypted":false,"id":"q6urq6urq6urq6urq6urqw==","timestamp":1762490000,"requireRcvConfirmation":true,"version":1}');
  });

  it('shape B: addresses as Base58 strings, no ciphertext members', () => {
    const o = streamEventObject(received(SpixiMessageCode.chat, utf8('x')), 'B');
    expect(Object.keys(o)).toEqual(['type', 'sender', 'recipient', 'data', 'encryptionType', 'id', 'timestamp', 'requireRcvConfirmation', 'version']);
    expect(o.sender).toBe(new Address(sender).base58Address);
    expect(o.recipient).toBe(new Address(recipient).base58Address);
  });

  it('RequestAdd2 payload (§1.8 example shape)', () => {
    const pub = new Uint8Array(40).fill(4);
    const r = received(SpixiMessageCode.requestAdd2, encodeRequestAdd2({ maxProtocolVersion: 1, pubKey: pub }), { type: StreamMessageCode.info, encryptionType: EncryptionType.none, id: Uint8Array.of(0), signature: new Uint8Array(512).fill(1) }, false);
    const s = serializePayload(streamEventObject(r));
    expect(s).toContain(`"data":{"type":40,"channel":0,"data":{"maxProtocolVersion":1,"pubKey":"${Buffer.from(pub).toString('base64')}"}},"originalData":null,"originalChecksum":null,"signature":"`);
    expect(s).toContain('"encryptionType":0,"encrypted":false,"id":"AA==","timestamp":1762490000,"requireRcvConfirmation":true,"version":1}');
    expect(s.startsWith('{"type":1,"realSender":null,"sender":{')).toBe(true);
  });

  it('AppProtocolData from the Gate Control mini app is the spec example byte for byte', () => {
    const data = encodeAppData({ sessionId: appProtocolId('com.ixilabs.gatecontrol'), data: utf8('{"action":"toggle"}'), appId: null });
    expect(JSON.stringify(spixiPayloadToJson({ type: 45, data, channel: 0 }))).toBe(
      '{"sessionId":"LPbCMGIb4z2O6Uv59GIT8BpCbMXD8q+bPn10dpFJh4KdXt3EOF2sig4p1i8=","data":"eyJhY3Rpb24iOiJ0b2dnbGUifQ==","appId":null}',
    );
  });

  it('other codes: receipts Base64 of the id, raw Base64 fallback, malformed objects fall back too', () => {
    expect(spixiPayloadToJson({ type: SpixiMessageCode.msgReceived, data: Uint8Array.of(0), channel: -1 })).toBe('AA==');
    expect(spixiPayloadToJson({ type: SpixiMessageCode.requestFunds, data: utf8('1.5'), channel: 0 })).toBe('MS41');
    expect(spixiPayloadToJson({ type: SpixiMessageCode.appData, data: Uint8Array.of(0), channel: 0 })).toBe('AA==');
    expect(spixiPayloadToJson({ type: SpixiMessageCode.avatar, data: null, channel: 0 })).toBeNull();
    expect(spixiPayloadToJson({ type: SpixiMessageCode.chat, data: null, channel: 0 })).toBe('');
  });

  it('node events: message ids as JSON strings, transaction status keyed by lowercase hex', () => {
    expect(messageIdPayload(Uint8Array.from({ length: 16 }, (_, i) => i))).toBe('"AAECAwQFBgcICQoLDA0ODw=="');
    expect(transactionStatusPayload(Uint8Array.of(1, 0xfd), true)).toBe('{"01fd":true}');
  });
});
