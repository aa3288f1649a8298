// The RabbitMQ driver against a real, private rabbitmq-server (own ports, own data directory, own
// epmd port), started and stopped by this test. Skipped, with a message, when rabbitmq-server is
// not installed (apt-get install -y rabbitmq-server).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type ChannelModel } from 'amqplib';
import { createMqBridge, type MqBridge } from '../../src/messaging/mq/bridge.js';
import { RABBITMQ_EXCHANGE } from '../../src/messaging/mq/rabbitmq.js';
import { SpixiMessageCode } from '../../src/messaging/spixi-message.js';
import { serializePayload, streamEventObject, type ReceivedForMq } from '../../src/messaging/mq/payload.js';
import { freePort, waitFor } from './broker.js';

const SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server';
const present = existsSync(SERVER);
if (!present) console.warn(`SKIPPED: RabbitMQ driver test — ${SERVER} not installed (apt-get install -y rabbitmq-server)`);

const addr = (fill: number): Uint8Array => {
  const a = new Uint8Array(45).fill(fill);
  a[0] = 1;
  return a;
};
const chat: ReceivedForMq = {
  message: { version: 1, id: new Uint8Array(16).fill(5), type: 2, encryptionType: 4, sender: addr(1), recipient: addr(2), data: null, timestamp: 1762490000, signature: null, requireRcvConfirmation: true },
  spixi: { type: SpixiMessageCode.chat, data: new TextEncoder().encode('via rabbit'), channel: 0 },
  originalData: Uint8Array.of(1),
  originalChecksum: new Uint8Array(64),
};

describe.skipIf(!present)('RabbitMQ driver against rabbitmq-server', () => {
  let dir: string;
  let proc: ChildProcess;
  let port: number;
  let epmdPort: number;
  let env: NodeJS.ProcessEnv;
  let bridge: MqBridge;
  let consumer: ChannelModel;
  const got: { routingKey: string; body: Buffer }[] = [];

  beforeAll(async () => {
    port = await freePort();
    epmdPort = await freePort();
    const distPort = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'dltnode-rabbit-'));
    mkdirSync(join(dir, 'home'));
    writeFileSync(join(dir, 'enabled_plugins'), '[].\n');
    env = {
      ...process.env,
      HOME: join(dir, 'home'),
      RABBITMQ_NODENAME: `dltnode${port}@localhost`,
      RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
      RABBITMQ_NODE_PORT: String(port),
      RABBITMQ_DIST_PORT: String(distPort),
      ERL_EPMD_PORT: String(epmdPort),
      RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
      RABBITMQ_LOG_BASE: join(dir, 'log'),
      RABBITMQ_PID_FILE: join(dir, 'rabbit.pid'),
      RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
      RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq'),
      RABBITMQ_ADVANCED_CONFIG_FILE: join(dir, 'advanced.config'),
    };
    writeFileSync(join(dir, 'rabbitmq.conf'), 'loopback_users = none\n');
    proc = spawn(SERVER, [], { env, stdio: 'ignore', detached: true });
    await waitFor(async () => {
      try {
        const c = await connect(`amqp://guest:guest@127.0.0.1:${port}`);
        consumer = c;
        return true;
      } catch {
        return false;
      }
    }, 'rabbitmq-server to accept connections', 120_000);
    const ch = await consumer.createChannel();
    await ch.assertExchange(RABBITMQ_EXCHANGE, 'fanout', { durable: false, autoDelete: false });
    const q = await ch.assertQueue('', { exclusive: true, autoDelete: true });
    await ch.bindQueue(q.queue, RABBITMQ_EXCHANGE, '');
    await ch.consume(q.queue, (m) => m && got.push({ routingKey: m.fields.routingKey, body: m.content }), { noAck: true });
    bridge = createMqBridge({ driver: 'rabbitmq', host: '127.0.0.1', port, clientId: 'dltnode-test' })!;
    await bridge.start();
  }, 180_000);

  afterAll(async () => {
    await Promise.allSettled([bridge?.close(), consumer?.close()]);
    if (proc?.pid !== undefined && proc.exitCode === null) {
      const exited = new Promise((r) => proc.once('exit', r));
      process.kill(proc.pid, 'SIGTERM');
      await exited;
    }
    // the epmd this broker started listens on our private port; stop exactly that one
    spawnSync('epmd', ['-kill'], { env });
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('publishes to the fanout exchange app_exchange with routing key = topic and the shape-A payload', async () => {
    expect(bridge.driver.connected).toBe(true);
    expect(await bridge.publishReceived(chat)).toBe('Chat');
    await bridge.publishMessageExpired(new Uint8Array(16).fill(1));
    await waitFor(() => got.length >= 2, 'two deliveries');
    expect(got[0]!.routingKey).toBe('Chat');
    expect(got[0]!.body.toString('utf8')).toBe(serializePayload(streamEventObject(chat, 'A')));
    expect(got[1]!.routingKey).toBe('MessageExpired');
    expect(got[1]!.body.toString('utf8')).toBe(JSON.stringify(Buffer.alloc(16, 1).toString('base64')));
    expect(bridge.stats).toMatchObject({ published: 2, dropped: 0 });
  });
});
