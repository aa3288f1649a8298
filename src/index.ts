/**
 * Package entry of dltnode: the library surface (hashing, Argon2id and PoW, byte formats,
 * transaction codec, name logic, the PoW verifier pool and the RPC client).
 * Each area re-exports from its own module; see README "Library API".
 */
export * from './formats/errors.js';
export * from './formats/bytes.js';
export * from './formats/varint.js';
export * from './formats/amount.js';
export * from './formats/address.js';
export * from './formats/extended-address.js';
export * from './formats/rsa.js';
export * from './formats/constants.js';
export * from './formats/fees.js';
export * from './core/hash.js';
export { blake2b, BLAKE2B_MAX_OUTPUT } from './core/blake2b.js';
export * from './core/argon2.js';
export * from './core/pow.js';
export { createClient, RpcClientError, OPERATIONS, type RpcClient, type ClientOptions } from './rpc/client.js';
export * from './codec/transaction.js';
export * from './codec/json.js';
export * from './pool/verifier.js';
export * from './pool/errors.js';
export * from './names/index.js';
export { createNode, type DltNode, type CreateNodeDeps } from './node/node.js';
export type { NodeModules, NodePool, NodeInfo } from './node/modules.js';
export type { NodeEvents, NodeEventBus } from './node/events.js';
export type { NodeOptions } from './node/options.js';
export type { Logger } from './log/logger.js';
export { systemClock, ManualClock, type Clock, type TimerHandle } from './clock.js';
export { createWorkerPool, type WorkerPool, type WorkerPoolOptions, type PoolTaskName, type RsaItem, type RsaSignItem } from './pool/index.js';
