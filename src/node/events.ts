/**
 * The node's one event bus: every module's events in one typed emitter (lodestar's chain emitter,
 * whose API events go through the same emitter). Modules receive the bus typed with their own
 * events; the RPC `/events` WebSocket subscribes to it (src/rpc/events.ts).
 */
import type { ChainEvents } from '../chain/chain.js';
import type { HeaderChainEvents } from '../chain/header-chain.js';
import type { LightWalletEvents } from '../wallet/light-wallet.js';
import { TypedEmitter } from '../events.js';
import type { Logger } from '../log/logger.js';
import type { MempoolEvents } from '../mempool/mempool.js';
import type { MessagingEvents } from '../messaging/service.js';

export type NodeEvents = ChainEvents & MempoolEvents & MessagingEvents & HeaderChainEvents & LightWalletEvents;

export type NodeEventBus = TypedEmitter<NodeEvents>;

/** The bus of one node; a listener that throws is logged, never breaks the emitter. */
export function createNodeEvents(log: Logger): NodeEventBus {
  return new TypedEmitter<NodeEvents>((event, err) => log.error({ err, event }, 'event listener failed'));
}
