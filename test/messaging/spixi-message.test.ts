import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  appProtocolId,
  appSessionId,
  decodeAcceptAdd2,
  decodeAppData,
  decodeAppProtocols,
  decodeKeys2,
  decodeReaction,
  decodeRequestAdd2,
  decodeSpixiMessage,
  DEFAULT_PEER_CAPABILITIES,
  encodeAcceptAdd2,
  encodeAppData,
  encodeAppProtocols,
  encodeKeys2,
  encodeReaction,
  encodeRequestAdd2,
  encodeSpixiMessage,
  isKnownSpixiCode,
  SpixiMessageCode,
} from '../../src/messaging/spixi-message.js';
import { SpixiMessageError } from '../../src/messaging/errors.js';
import { toHex } from '../../src/formats/bytes.js';

const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');

describe('SpixiMessage', () => {
  it('frames int32 type ‖ int32 length ‖ data ‖ int32 channel', () => {
    const b = encodeSpixiMessage({ type: SpixiMessageCode.msgReceived, data: Uint8Array.of(0xaa), channel: -1 });
    expect(toHex(b)).toBe('09000000' + '01000000' + 'aa' + 'ffffffff');
    expect(decodeSpixiMessage(b)).toEqual({ type: 9, data: Uint8Array.of(0xaa), channel: -1 });
  });

  it('a missing channel reads as 0; a negative length or trailing bytes are codec errors', () => {
    expect(decodeSpixiMessage(Uint8Array.of(0, 0, 0, 0, 1, 0, 0, 0, 0x41))).toEqual({ type: 0, data: Uint8Array.of(0x41), channel: 0 });
    expect(() => decodeSpixiMessage(Uint8Array.of(0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff))).toThrow(SpixiMessageError);
    expect(() => decodeSpixiMessage(Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 9))).toThrow(SpixiMessageError);
  });

  it('codes', () => {
    expect(SpixiMessageCode.requestAdd2).toBe(40);
    expect(SpixiMessageCode.appProtocolData).toBe(45);
    expect(isKnownSpixiCode(45)).toBe(true);
    expect(isKnownSpixiCode(46)).toBe(false);
    expect(isKnownSpixiCode(0xf0)).toBe(true);
  });

  it('round-trips and random bytes give only SpixiMessageError (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.uint8Array({ maxLength: 200 }), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), (type, data, channel) => {
        const m = { type, data: data.length ? data : null, channel };
        expect(decodeSpixiMessage(encodeSpixiMessage(m))).toEqual(m);
      }),
    );
    const decoders = [decodeSpixiMessage, decodeRequestAdd2, decodeAcceptAdd2, decodeKeys2, decodeAppData, decodeAppProtocols, decodeReaction];
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 120 }), (bytes) => {
        for (const d of decoders) {
          try {
            d(bytes);
          } catch (e) {
            expect(e).toBeInstanceOf(SpixiMessageError);
            expect((e as SpixiMessageError).code).toBe('ERR_SPIXI_MESSAGE');
          }
        }
      }),
      { numRuns: 3000 },
    );
  });
});

describe('handshake payloads', () => {
  it('requestAdd2: version byte ‖ lp(public key)', () => {
    const b = encodeRequestAdd2({ maxProtocolVersion: 1, pubKey: Uint8Array.of(5, 6, 7) });
    expect(toHex(b)).toBe('01' + '03050607');
    expect(decodeRequestAdd2(b)).toEqual({ maxProtocolVersion: 1, pubKey: Uint8Array.of(5, 6, 7) });
  });

  it('acceptAdd2 and keys2 round-trip; capabilities default to 15 when absent', () => {
    const a = { version: 1, rsaPubKey: new Uint8Array(528).fill(1), ecdhPubKey: new Uint8Array(67).fill(2), mlkemPubKey: new Uint8Array(1568).fill(3), aesSalt: new Uint8Array(32).fill(4), capabilities: 17 };
    const ab = encodeAcceptAdd2(a);
    expect(ab[0]).toBe(1);
    expect(toHex(ab.slice(1, 4))).toBe('fc1002'); // 528 as a varint
    expect(ab[ab.length - 1]).toBe(17);
    expect(decodeAcceptAdd2(ab)).toEqual(a);
    expect(decodeAcceptAdd2(ab.slice(0, ab.length - 1)).capabilities).toBe(DEFAULT_PEER_CAPABILITIES);
    const k = { ecdhPubKey: new Uint8Array(67).fill(9), mlkemCiphertext: new Uint8Array(1568).fill(8), chaChaSalt: new Uint8Array(32).fill(7), capabilities: 17 };
    const kb = encodeKeys2(k);
    expect(decodeKeys2(kb)).toEqual(k);
    expect(decodeKeys2(kb.slice(0, kb.length - 1)).capabilities).toBe(15);
    expect(() => decodeKeys2(kb.slice(0, 100))).toThrow(SpixiMessageError);
  });
});

describe('app data (§3.8)', () => {
  it('protocol id of com.ixilabs.gatecontrol is the spec value (single SHA3-512, 44 bytes)', () => {
    expect(b64(appProtocolId('com.ixilabs.gatecontrol'))).toBe('LPbCMGIb4z2O6Uv59GIT8BpCbMXD8q+bPn10dpFJh4KdXt3EOF2sig4p1i8=');
    expect(appSessionId('com.ixilabs.gatecontrol')).toHaveLength(44);
    expect(b64(appSessionId('x'))).not.toBe(b64(appProtocolId('x')));
  });

  it('AppDataMessage: u8 id length ‖ id ‖ int32 length ‖ data ‖ optional .NET string appId', () => {
    const id = appProtocolId('p');
    const data = new TextEncoder().encode('{"action":"toggle"}');
    const b = encodeAppData({ sessionId: id, data, appId: null });
    expect(b[0]).toBe(44);
    expect(toHex(b.slice(45, 49))).toBe('13000000');
    expect(decodeAppData(b)).toEqual({ sessionId: id, data, appId: null });
    const withApp = encodeAppData({ sessionId: id, data, appId: 'é-app' });
    expect(toHex(withApp.slice(b.length))).toBe('06' + toHex(new TextEncoder().encode('é-app')));
    expect(decodeAppData(withApp).appId).toBe('é-app');
    expect(() => encodeAppData({ sessionId: new Uint8Array(0), data, appId: null })).toThrow(SpixiMessageError);
  });

  it('appProtocols and reactions round-trip', () => {
    const ids = [appProtocolId('a'), appProtocolId('b')];
    expect(decodeAppProtocols(encodeAppProtocols(ids))).toEqual(ids);
    const r = { msgId: new Uint8Array(16).fill(3), reaction: 'like:' };
    expect(decodeReaction(encodeReaction(r))).toEqual(r);
  });
});
