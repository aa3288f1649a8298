// The MQTT bridge against a real mosquitto broker (Debian's, installed by .ci/run): topics and
// payload bytes as a subscriber sees them, unique client ids, drops counted while the broker is
// down, reconnection after it comes back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAsync, type MqttClient } from 'mqtt';
import { createMqBridge, MqBridge } from '../../src/messaging/mq/bridge.js';
import { MqttDriver } from '../../src/messaging/mq/mqtt.js';
import { serializePayload, streamEventObject, type ReceivedForMq } from '../../src/messaging/mq/payload.js';
import { SpixiMessageCode } from '../../src/messaging/spixi-message.js';
import type { MqLogger } from '../../src/messaging/mq/driver.js';
import { freePort, startMosquitto, stopMosquitto, waitFor, type Broker } from './broker.js';

const addr = (fill: number): Uint8Array => {
  const a = new Uint8Array(45).fill(fill);
  a[0] = 1;
  return a;
};
const chat = (text: string): ReceivedForMq => ({
  message: { version: 1, id: new Uint8Array(16).fill(7), type: 2, encryptionType: 4, sender: addr(1), recipient: addr(2), data: null, timestamp: 1762490000, signature: null, requireRcvConfirmation: true },
  spixi: { type: SpixiMessageCode.chat, data: new TextEncoder().encode(text), channel: 0 },
  originalData: Uint8Array.of(1),
  originalChecksum: new Uint8Array(64),
});

interface Got {
  topic: string;
  payload: Buffer;
}

async function subscriber(port: number, got: Got[]): Promise<MqttClient> {
  const c = await connectAsync(`mqtt://127.0.0.1:${port}`, { clientId: `test-sub-${port}-${got.length}`, reconnectPeriod: 0 });
  c.on('message', (topic, payload) => got.push({ topic, payload }));
  await c.subscribeAsync('#', { qos: 0 });
  return c;
}

function recordingLogger(): MqLogger & { lines: { level: string; msg: string }[] } {
  const lines: { level: string; msg: string }[] = [];
  const at = (level: string) => (obj: object | string, msg?: string) => lines.push({ level, msg: msg ?? String(obj) });
  return { lines, info: at('info'), warn: at('warn'), debug: at('debug') };
}

describe('MQTT bridge against mosquitto', () => {
  let port: number;
  let broker: Broker;
  const got: Got[] = [];
  let sub: MqttClient;
  let b1: MqBridge;
  let b2: MqBridge;
  const log = recordingLogger();

  beforeAll(async () => {
    port = await freePort();
    broker = await startMosquitto(port);
    sub = await subscriber(port, got);
    const fast = { reconnectMinMs: 50, reconnectMaxMs: 300 };
    b1 = createMqBridge({ driver: 'mqtt', host: '127.0.0.1', port, logger: log, mqtt: fast })!;
    b2 = createMqBridge({ driver: 'mqtt', host: '127.0.0.1', port, shape: 'B', mqtt: fast })!;
    await Promise.all([b1.start(), b2.start()]);
  });

  afterAll(async () => {
    await Promise.allSettled([b1?.close(), b2?.close(), sub?.endAsync(true)]);
    if (broker) await stopMosquitto(broker);
  });

  it('two nodes on one broker keep their own connections (unique client ids)', async () => {
    const [d1, d2] = [b1.driver as MqttDriver, b2.driver as MqttDriver];
    expect(d1.clientId).not.toBe(d2.clientId);
    expect(d1.clientId).toMatch(/^dltnode-[0-9a-f]{16}$/);
    await b1.publishMessageExpired(new Uint8Array(16));
    await b2.publishMessageExpired(new Uint8Array(16));
    await waitFor(() => got.length >= 2, 'both MessageExpired');
    expect(d1.connected && d2.connected).toBe(true);
  });

  it('publishes on the bare topic with the exact payload bytes (shape A and B)', async () => {
    got.length = 0;
    const r = chat('help é\n');
    expect(await b1.publishReceived(r)).toBe('Chat');
    expect(await b2.publishReceived(r)).toBe('Chat');
    await waitFor(() => got.length >= 2, 'two Chat events');
    const bodies = got.map((g) => [g.topic, g.payload.toString('hex')]);
    expect(bodies).toContainEqual(['Chat', Buffer.from(serializePayload(streamEventObject(r, 'A')), 'utf8').toString('hex')]);
    expect(bodies).toContainEqual(['Chat', Buffer.from(serializePayload(streamEventObject(r, 'B')), 'utf8').toString('hex')]);
    expect(got.every((g) => !g.payload.includes(0x0a))).toBe(true); // one line each
    // codes QuIXI never publishes are skipped
    expect(await b1.publishReceived({ ...r, spixi: { ...r.spixi, type: SpixiMessageCode.keys2 } })).toBeNull();
    expect(b1.stats.skipped).toBe(1);
  });

  it('counts and logs events while the broker is down, never throws, and resumes after it is back', async () => {
    const publishedBefore = b1.stats.published;
    await stopMosquitto(broker);
    await waitFor(() => !b1.driver.connected, 'the driver to notice the broker is gone');
    await b1.publishReceived(chat('lost 1'));
    await b1.publishMessageExpired(new Uint8Array(16));
    await b1.publishTransactionStatus(Uint8Array.of(1), true);
    expect(b1.stats.dropped).toBe(3);
    expect(b1.stats.published).toBe(publishedBefore);
    expect(log.lines.filter((l) => l.level === 'warn' && l.msg.includes('dropped'))).toHaveLength(1);

    broker = await startMosquitto(port);
    await waitFor(() => b1.driver.connected, 'the driver to reconnect');
    got.length = 0;
    await sub.endAsync(true);
    sub = await subscriber(port, got);
    await b1.publishReceived(chat('after restart'));
    await waitFor(() => got.length >= 1, 'an event after the restart');
    expect(got[0]!.topic).toBe('Chat');
    expect(got[0]!.payload.toString()).toContain('after restart');
    expect(b1.stats.published).toBe(publishedBefore + 1);
    expect(log.lines.some((l) => l.level === 'info' && l.msg.includes('dropped while it was down'))).toBe(true);
  });

  it('starting without a broker resolves, stays disconnected and drops', async () => {
    const deadPort = await freePort();
    const b = createMqBridge({ driver: 'mqtt', host: '127.0.0.1', port: deadPort, mqtt: { reconnectMinMs: 50, reconnectMaxMs: 100 } })!;
    await b.start();
    expect(b.driver.connected).toBe(false);
    await b.publishMessageSent(new Uint8Array(16));
    expect(b.stats.dropped).toBe(1);
    await b.close();
  });

  it('refuses bad options clearly', () => {
    expect(() => createMqBridge({ driver: 'mqtt' })).toThrow(/--mq-host/);
    expect(() => createMqBridge({ driver: 'kafka' as 'mqtt', host: 'x' })).toThrow(/none, mqtt or rabbitmq/);
    expect(createMqBridge({ driver: 'none' })).toBeNull();
  });
});
