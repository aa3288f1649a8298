import { describe, expect, it } from 'vitest';
import { isExpired, Outbox, PENDING_EXPIRY_S, sendFlagsFor, type OutboxEntry } from '../../src/messaging/outbox.js';
import { buildAppDataMessage, decodeAppData, appProtocolId, appSessionId, SpixiMessageCode } from '../../src/messaging/spixi-message.js';

const entry = (id: string, code = SpixiMessageCode.chat, timestamp = 1000): OutboxEntry<string> => ({ id, timestamp, flags: sendFlagsFor(code), payload: id });

describe('outbox (§3.7)', () => {
  it('flags: app data fire-and-forget, chat pending and push, nick no push', () => {
    expect(sendFlagsFor(SpixiMessageCode.appProtocolData)).toEqual({ addToPending: false, sendToServer: false, pushNotification: false, removeAfterSending: true });
    expect(sendFlagsFor(SpixiMessageCode.chat).addToPending).toBe(true);
    expect(sendFlagsFor(SpixiMessageCode.nick).pushNotification).toBe(false);
    // Never acknowledged by the receiver: sent once, not kept for 5 days of re-sends.
    for (const code of [SpixiMessageCode.msgTyping, SpixiMessageCode.msgReceived]) {
      expect(sendFlagsFor(code)).toEqual({ addToPending: false, sendToServer: false, pushNotification: false, removeAfterSending: true });
    }
  });

  it('sends at once only the first queued message of a contact; receipts dequeue', () => {
    const o = new Outbox<string>();
    expect(o.enqueue('c', entry('a'))).toEqual({ sendNow: true });
    expect(o.enqueue('c', entry('b'))).toEqual({ sendNow: false });
    expect(o.enqueue('c', entry('a'))).toEqual({ sendNow: false }); // same id twice
    expect(o.enqueue('c', entry('x', SpixiMessageCode.appData))).toEqual({ sendNow: true });
    expect(o.size('c')).toBe(2);
    expect(o.acknowledge('c', 'a')?.id).toBe('a');
    expect(o.acknowledge('c', 'a')).toBeNull();
    expect(o.entries()).toEqual([['c', [entry('b')]]]);
  });

  it('a pass keeps order, stops at the first failure, expires after 5 days', async () => {
    const o = new Outbox<string>();
    o.enqueue('c', entry('old', 0, 0));
    o.enqueue('c', entry('m1'));
    o.enqueue('c', entry('m2'));
    o.enqueue('d', entry('n1'));
    const tried: string[] = [];
    const r = await o.pass(PENDING_EXPIRY_S, () => true, async (c, e) => {
      tried.push(`${c}:${e.id}`);
      if (e.id === 'm1') return false;
      if (e.id === 'n1') throw new Error('network');
      return true;
    });
    expect(r.expired.map((e) => e.id)).toEqual(['old']);
    expect(tried).toEqual(['c:m1', 'd:n1']);
    expect(o.size()).toBe(3); // sent-but-unacknowledged messages stay until the receipt
    expect(isExpired(0, PENDING_EXPIRY_S - 1)).toBe(false);
    const copy = new Outbox<string>();
    copy.load(o.entries());
    expect(copy.entries()).toEqual(o.entries());
  });

  it('handshake frames jump chats waiting for keys: sent now, tried first by a pass', async () => {
    const o = new Outbox<string>((e) => e.id.startsWith('hs'));
    o.enqueue('c', entry('chat1'));
    o.enqueue('c', entry('chat2'));
    expect(o.enqueue('c', entry('hs-accept'))).toEqual({ sendNow: true });
    expect(o.enqueue('c', entry('hs-keys'))).toEqual({ sendNow: true });
    expect(o.entries()[0]![1].map((e) => e.id)).toEqual(['hs-accept', 'hs-keys', 'chat1', 'chat2']);
    // A queue persisted in the old order: the pass still tries the handshake frames first.
    const old = new Outbox<string>((e) => e.id.startsWith('hs'));
    old.load([['c', [entry('chat1'), entry('hs-accept')]]]);
    const tried: string[] = [];
    await old.pass(1000, () => true, async (_c, e) => {
      tried.push(e.id);
      return e.id !== 'chat1'; // no keys yet
    });
    expect(tried).toEqual(['hs-accept', 'chat1']);
  });
});

describe('buildAppDataMessage (§3.8)', () => {
  it('appId → appData to the double-hash session id; protocolId → appProtocolData; appId wins', () => {
    const d = Uint8Array.of(1, 2);
    const a = buildAppDataMessage({ appId: 'app', protocolId: 'p' }, d);
    expect(a.type).toBe(21);
    expect(decodeAppData(a.data!).sessionId).toEqual(appSessionId('app'));
    const p = buildAppDataMessage({ protocolId: 'p' }, d);
    expect(p.type).toBe(45);
    expect(decodeAppData(p.data!)).toEqual({ sessionId: appProtocolId('p'), data: d, appId: null });
    expect(() => buildAppDataMessage({}, d)).toThrow(TypeError);
  });
});
