/**
 * The signed hello of reference-network.md §2.3, over WebSocket (§10 keep 1):
 *
 *   acceptor → dialler   challenge   32 random bytes, sent as soon as the socket opens
 *   dialler → acceptor   hello       identity signed over the acceptor's challenge + its own challenge
 *   acceptor → dialler   helloData   identity signed over the dialler's challenge + observed address
 *
 * Unlike the reference (whose hello is signed over a challenge the signer picks itself), both
 * signatures cover a challenge chosen by the other side, so both prove freshness, not only key
 * ownership. The signed bytes are
 *
 *   checksumLock ‖ "dltnode-hello" ‖ code ‖ body ‖ answered challenge
 *
 * where body is every field before the signature: the network lock is enforced by the network
 * byte and by the lock inside the signature (§2.3 "enforced twice").
 *
 * Body fields (IxiVarInt integers, length-prefixed bytes, UTF-8 texts):
 *   protocol version · network (0 main, 1 test, 2 reg) · genesis checksum · node type char ·
 *   address without checksum · RSA public key · product version (≤ 20 chars) · timestamp (unix
 *   seconds) · own endpoint `host:port` ('' when not listening) · tip height · tip checksum ·
 *   hello: the dialler's challenge / helloData: the dialler's address as the acceptor sees it.
 */
import type { Network } from '../../codec/types.js';
import { primaryAddressFromPublicKey } from '../../formats/address.js';
import { concatBytes, equalBytes } from '../../formats/bytes.js';
import { NETWORK_TYPE_IDS, checksumLockBytes } from '../../formats/constants.js';
import { MessageCode } from './codes.js';
import { CloseReason } from './close.js';
import { NetworkCodecError } from './errors.js';
import { encodeFrame } from './frame.js';
import { PayloadReader, PayloadWriter } from './io.js';
import {
  CHALLENGE_BYTES,
  MAX_CHECKSUM_BYTES,
  MAX_HOST_BYTES,
  MAX_PUBLIC_KEY_BYTES,
  MAX_SIGNATURE_BYTES,
  MIN_PUBLIC_KEY_BYTES,
  readAddress,
  readNodeType,
  writeAddress,
  writeNodeType,
  type NodeType,
} from './messages.js';

export { CloseReason, CLOSE_REASONS, closeText, closeReasonOfCode } from './close.js';

/** Our hello protocol version; a peer announcing an older one is closed with `deprecated`. */
export const PROTOCOL_VERSION = 1;
/** Product version strings: ≤ 20 characters (reference §2.3 field 5). */
export const MAX_PRODUCT_VERSION_LENGTH = 20;
/**
 * Largest accepted difference between a hello's timestamp and our clock, seconds. The reference
 * does not check the hello timestamp (UNSURE in §2.3) but rejects keep-alives more than 30 s in
 * the future (§3.2); a node whose clock is further off cannot keep a presence anyway, so we tell
 * it at the hello, with a reason it can act on.
 */
export const HELLO_MAX_CLOCK_SKEW_SECONDS = 30;

const NETWORK_BY_ID: readonly Network[] = ['main', 'test', 'reg'];
const DOMAIN = new TextEncoder().encode('dltnode-hello');

type HelloCode = typeof MessageCode.hello | typeof MessageCode.helloData;

/** Fields both hello messages carry. */
export interface HelloIdentity {
  protocolVersion: number;
  network: Network;
  genesisChecksum: Uint8Array;
  nodeType: NodeType;
  address: Uint8Array;
  publicKey: Uint8Array;
  productVersion: string;
  /** Unix seconds. */
  timestamp: bigint;
  /** The sender's own listening endpoint `host:port`, or '' (clients). */
  endpoint: string;
  height: bigint;
  tipChecksum: Uint8Array;
}

export interface Hello extends HelloIdentity {
  code: HelloCode;
  /** hello: the dialler's challenge for the acceptor to sign. */
  challenge?: Uint8Array;
  /** helloData: the dialler's `host:port` as the acceptor sees it (reference §2.3 field 11'). */
  observedAddress?: string;
  signature: Uint8Array;
  /** The body bytes the signature covers (with the lock, domain, code and answered challenge). */
  body: Uint8Array;
}

/** Signs data with the node's wallet key (RSA PKCS#1 v1.5 SHA-512, formats/rsa.ts `signBytes`). */
export type HelloSigner = (data: Uint8Array) => Uint8Array;
/** Verifies a wallet-key signature (formats/rsa.ts `verifySignature`, or the worker pool). */
export type HelloVerifier = (publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array) => boolean | Promise<boolean>;

function encodeBody(code: HelloCode, id: HelloIdentity, extra: { challenge?: Uint8Array; observedAddress?: string }): Uint8Array {
  const w = new PayloadWriter().uint(id.protocolVersion);
  const networkId = NETWORK_TYPE_IDS[id.network];
  if (networkId === undefined) throw new RangeError(`unknown network ${String(id.network)}`);
  w.u8(networkId).bytesField(id.genesisChecksum, MAX_CHECKSUM_BYTES, 'genesis checksum');
  writeNodeType(w, id.nodeType);
  writeAddress(w, id.address, 'address');
  w.bytesField(id.publicKey, MAX_PUBLIC_KEY_BYTES, 'public key');
  if (id.productVersion.length > MAX_PRODUCT_VERSION_LENGTH) throw new RangeError(`product version must be ≤ ${MAX_PRODUCT_VERSION_LENGTH} characters`);
  w.text(id.productVersion, MAX_PRODUCT_VERSION_LENGTH * 4, 'product version');
  w.uint(id.timestamp).text(id.endpoint, MAX_HOST_BYTES, 'endpoint').uint(id.height);
  w.bytesField(id.tipChecksum, MAX_CHECKSUM_BYTES, 'tip checksum');
  if (code === MessageCode.hello) {
    if (!extra.challenge || extra.challenge.length !== CHALLENGE_BYTES) throw new RangeError(`hello needs a ${CHALLENGE_BYTES}-byte challenge`);
    w.fixed(extra.challenge);
  } else {
    w.text(extra.observedAddress ?? '', MAX_HOST_BYTES, 'observed address');
  }
  return w.finish();
}

/** The bytes a hello signature covers. */
export function helloSignedBytes(network: Network, code: HelloCode, body: Uint8Array, answeredChallenge: Uint8Array): Uint8Array {
  return concatBytes(checksumLockBytes(network), DOMAIN, Uint8Array.of(code), body, answeredChallenge);
}

/**
 * Builds and signs a hello (dialler) or helloData (acceptor) frame.
 * @param answeredChallenge the other side's challenge.
 * @returns the frame bytes.
 */
export function buildHello(
  code: HelloCode,
  identity: HelloIdentity,
  extra: { challenge?: Uint8Array; observedAddress?: string },
  answeredChallenge: Uint8Array,
  sign: HelloSigner,
): Uint8Array {
  const body = encodeBody(code, identity, extra);
  const signature = sign(helloSignedBytes(identity.network, code, body, answeredChallenge));
  const payload = new PayloadWriter().fixed(body).bytesField(signature, MAX_SIGNATURE_BYTES, 'signature').finish();
  return encodeFrame(code, payload);
}

/**
 * Decodes a hello or helloData payload.
 * @throws NetworkCodecError for malformed bytes (an unknown network byte is BAD_FIELD).
 */
export function decodeHello(code: HelloCode, payload: Uint8Array, base = 1): Hello {
  const r = new PayloadReader(payload, base);
  const protocolVersion = r.uintNumber('protocolVersion', 0xffff);
  const netAt = r.offset;
  const networkId = r.u8('network');
  const network = NETWORK_BY_ID[networkId];
  if (network === undefined) throw r.fail('BAD_FIELD', 'network', `network id ${networkId}`, netAt);
  const genesisChecksum = r.bytesField('genesisChecksum', MAX_CHECKSUM_BYTES);
  const nodeType = readNodeType(r, 'nodeType');
  const address = readAddress(r, 'address');
  const publicKey = r.bytesField('publicKey', MAX_PUBLIC_KEY_BYTES, MIN_PUBLIC_KEY_BYTES);
  const pvAt = r.offset;
  const productVersion = r.text('productVersion', MAX_PRODUCT_VERSION_LENGTH * 4);
  if (productVersion.length > MAX_PRODUCT_VERSION_LENGTH) throw r.fail('OUT_OF_RANGE', 'productVersion', 'more than 20 characters', pvAt);
  const timestamp = r.uint('timestamp', (1n << 63n) - 1n);
  const endpoint = r.text('endpoint', MAX_HOST_BYTES);
  const height = r.uint('height');
  const tipChecksum = r.bytesField('tipChecksum', MAX_CHECKSUM_BYTES);
  let challenge: Uint8Array | undefined;
  let observedAddress: string | undefined;
  if (code === MessageCode.hello) challenge = r.fixed(CHALLENGE_BYTES, 'challenge').slice();
  else observedAddress = r.text('observedAddress', MAX_HOST_BYTES);
  const body = payload.slice(0, r.offset);
  const signature = r.bytesField('signature', MAX_SIGNATURE_BYTES, 1);
  r.end('hello');
  const hello: Hello = {
    code, protocolVersion, network, genesisChecksum, nodeType, address, publicKey, productVersion,
    timestamp, endpoint, height, tipChecksum, signature, body,
  };
  if (challenge) hello.challenge = challenge;
  if (observedAddress !== undefined) hello.observedAddress = observedAddress;
  return hello;
}

/** What a received hello is checked against. */
export interface HelloExpectations {
  network: Network;
  genesisChecksum: Uint8Array;
  /** The challenge this side sent (the hello must be signed over it). */
  challenge: Uint8Array;
  /** Our own address: a hello carrying it is a connection to ourselves. */
  ownAddress: Uint8Array;
  /** Our clock, unix milliseconds. */
  nowMs: number;
  maxClockSkewSeconds?: number;
  verify: HelloVerifier;
}

export interface HelloRejection {
  reason: CloseReason;
  detail: string;
}

/**
 * The message-level checks of a received hello, in the reference's order where it has one
 * (§2.3): protocol version, network, genesis, address ↔ key, self-connection, signature, clock.
 * Policy checks (banned, capacity, duplicates, expected role or wallet, too far behind) are the
 * link's (link.ts). Returns null when the hello passes.
 */
export async function checkHello(hello: Hello, x: HelloExpectations): Promise<HelloRejection | null> {
  if (hello.protocolVersion < PROTOCOL_VERSION) {
    return { reason: CloseReason.deprecated, detail: `version ${hello.protocolVersion} < ${PROTOCOL_VERSION}` };
  }
  if (hello.network !== x.network) return { reason: CloseReason.wrongNetwork, detail: `expected ${x.network}, got ${hello.network}` };
  if (!equalBytes(hello.genesisChecksum, x.genesisChecksum)) return { reason: CloseReason.wrongGenesis, detail: 'genesis checksums differ' };
  let derived: Uint8Array;
  try {
    derived = primaryAddressFromPublicKey(hello.publicKey);
  } catch {
    return { reason: CloseReason.authFailed, detail: 'unusable public key' };
  }
  if (!equalBytes(derived, hello.address)) return { reason: CloseReason.authFailed, detail: '' };
  if (equalBytes(hello.address, x.ownAddress)) return { reason: CloseReason.selfConnection, detail: '' };
  let ok = false;
  try {
    ok = await x.verify(hello.publicKey, helloSignedBytes(x.network, hello.code, hello.body, x.challenge), hello.signature);
  } catch {
    ok = false;
  }
  if (!ok) return { reason: CloseReason.badSignature, detail: '' };
  const skew = Number(hello.timestamp) - x.nowMs / 1000;
  const max = x.maxClockSkewSeconds ?? HELLO_MAX_CLOCK_SKEW_SECONDS;
  if (Math.abs(skew) > max) return { reason: CloseReason.clockSkew, detail: `${Math.round(skew)} s, at most ${max} s` };
  return null;
}

/** The challenge frame of an acceptor. */
export function encodeChallenge(challenge: Uint8Array): Uint8Array {
  if (challenge.length !== CHALLENGE_BYTES) throw new RangeError(`challenge must be ${CHALLENGE_BYTES} bytes`);
  return encodeFrame(MessageCode.challenge, challenge);
}

/** @throws NetworkCodecError unless the payload is exactly a challenge. */
export function decodeChallenge(payload: Uint8Array, base = 1): Uint8Array {
  if (payload.length !== CHALLENGE_BYTES) {
    throw new NetworkCodecError(payload.length < CHALLENGE_BYTES ? 'TRUNCATED' : 'TRAILING_BYTES', base + Math.min(payload.length, CHALLENGE_BYTES), 'challenge');
  }
  return payload.slice();
}
