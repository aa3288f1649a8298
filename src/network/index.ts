/**
 * The node-to-node network (reference-network.md; DESIGN.md decision 7): what the node wires.
 * See NOTES-network.md for how the pieces fit.
 */
export * from './clock.js';
export * from './dial.js';
export * from './inventory.js';
export * from './link.js';
export * from './presence.js';
export * from './registry.js';
export * from './scoring.js';
export * from './seen.js';
export * from './status.js';
export * from './protocol/codes.js';
export * from './protocol/close.js';
export * from './protocol/errors.js';
export * from './protocol/frame.js';
export {
  buildHello,
  checkHello,
  decodeChallenge,
  decodeHello,
  encodeChallenge,
  helloSignedBytes,
  HELLO_MAX_CLOCK_SKEW_SECONDS,
  MAX_PRODUCT_VERSION_LENGTH,
  PROTOCOL_VERSION,
  type Hello,
  type HelloExpectations,
  type HelloIdentity,
  type HelloRejection,
  type HelloSigner,
  type HelloVerifier,
} from './protocol/hello.js';
export * from './protocol/messages.js';
export * from './peer-network.js';
export * from './tx-gossip.js';
export * from './block-sync.js';
