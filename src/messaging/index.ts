/**
 * Contact messaging building blocks (reference-rpc-messaging.md §3, reference-quixi-events.md §1):
 * codecs, crypto, the handshake state machine, JSON shapes, the outbox rules and the MQ bridge.
 * Network delivery and the RPC operations build on these.
 */
export * from './errors.js';
export * from './stream-message.js';
export * from './spixi-message.js';
export * from './crypto.js';
export * from './handshake.js';
export * from './json.js';
export * from './outbox.js';
export * from './mq/topics.js';
export * from './mq/payload.js';
export * from './mq/driver.js';
export { MqttDriver, MQTT_DEFAULT_PORT, uniqueClientId, type MqttDriverOptions } from './mq/mqtt.js';
export { RabbitMqDriver, AMQP_DEFAULT_PORT, RABBITMQ_EXCHANGE, type RabbitMqDriverOptions } from './mq/rabbitmq.js';
export { MqBridge, createMqBridge, type MqBridgeOptions, type MqBridgeStats, type CreateMqBridgeOptions } from './mq/bridge.js';
