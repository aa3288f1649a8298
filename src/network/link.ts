/**
 * One peer link over an abstract WebSocket (reference-network.md §2.3, §2.4, §10): the hello
 * exchange in both directions with challenges, the hello deadline, idle timeout and liveness
 * pings, a bounded send queue (a slow peer is dropped, memory never grows past the bound), frame
 * decoding with misbehaviour scoring, and the policy checks of a hello (banned, capacity, one link
 * per identity, expected role and wallet, too far behind).
 *
 * Contract: `receive` never throws and never lets a peer's bytes crash the node; every bad input
 * ends in a score and possibly a close with a reason (close.ts). Handler exceptions are caught and
 * reported through `onError`, never blamed on the peer.
 *
 * Outbound:  [awaitChallenge] --challenge--> send hello --> [awaitHelloData] --helloData ok--> [open]
 * Inbound:   send challenge --> [awaitHello] --hello ok--> send helloData --> [open]
 */
import { randomBytes } from 'node:crypto';
import type { Network } from '../codec/types.js';
import { addressToText } from '../formats/address.js';
import { equalBytes } from '../formats/bytes.js';
import { verifySignature } from '../formats/rsa.js';
import type { NetClock, TimerHandle } from './clock.js';
import { MessageCode, messageCodeName } from './protocol/codes.js';
import { CLOSE_REASONS, CloseReason, closeReasonOfCode, closeText } from './protocol/close.js';
import { NetworkCodecError } from './protocol/errors.js';
import { decodeFrame } from './protocol/frame.js';
import {
  buildHello,
  checkHello,
  decodeChallenge,
  decodeHello,
  encodeChallenge,
  PROTOCOL_VERSION,
  type Hello,
  type HelloSigner,
  type HelloVerifier,
} from './protocol/hello.js';
import {
  CHALLENGE_BYTES,
  decodePayload,
  encodeMessage,
  PING_NONCE_BYTES,
  type Message,
  type NodeType,
  type OutgoingMessage,
} from './protocol/messages.js';
import type { PeerRegistry } from './registry.js';
import { hostKey, hostOf, isLoopbackHost, walletKey, type Offence, type PeerScores } from './scoring.js';

/** The socket a link writes to; the transport adapter (dial.ts for `ws`, the node for uWS) pushes received bytes into `Link.receive`. */
export interface PeerSocket {
  /** Sends one binary message. false = backpressure: the bytes were taken, send no more until `Link.drained()`. */
  send(bytes: Uint8Array): boolean;
  /** Bytes accepted by the socket and not yet written out. */
  bufferedAmount(): number;
  close(code: number, reason: string): void;
}

/** Deadline for the hello exchange (§2.3, §10 simplify 1: keep a 10 s hello deadline). */
export const HELLO_TIMEOUT_MS = 10_000;
/**
 * No frame received for this long → close. The reference closes after 10 s with a ping every 2 s
 * over raw TCP; a WebSocket peer importing a 10,000-transaction block may stall its event loop
 * for a second or two, so we allow 30 s and ping every 10 s of silence.
 */
export const IDLE_TIMEOUT_MS = 30_000;
export const PING_INTERVAL_MS = 10_000;
/**
 * Bytes queued for one peer (our queue + the socket's buffer) beyond which it is dropped as too
 * slow. Two maximum blocks (24 MiB each) fit, so a healthy peer receiving a burst is not dropped;
 * a peer that stops reading costs at most this much memory.
 */
export const MAX_SEND_QUEUE_BYTES = 48 * 1024 * 1024;
/** Above this many bytes in the socket's buffer the link queues instead of writing. */
export const SOCKET_HIGH_WATER_BYTES = 4 * 1024 * 1024;
/**
 * Bytes held while a hello signature is being checked; a peer that floods during that time is cut.
 * An honest dialler sends nothing between its hello and the helloData, so inbound links allow
 * little; an acceptor may start sending (presence, transactions) right after its helloData, while
 * the dialler still verifies it, so outbound links allow as much as a send queue.
 */
const MAX_HELD_BYTES_INBOUND = 1024 * 1024;
/** A dialler refuses a master server more than this many blocks behind the network (DLT §2.3 step 5). */
export const TOO_FAR_BEHIND_BLOCKS = 15n;

/** The node's identity and chain tip, as the hello needs them. */
export interface LocalNode {
  network: Network;
  genesisChecksum: Uint8Array;
  nodeType: NodeType;
  address: Uint8Array;
  publicKey: Uint8Array;
  productVersion: string;
  /** Our listening endpoint `host:port` for others to dial, or '' (clients, no listener). */
  endpoint: string;
  sign: HelloSigner;
  /** Current tip height and checksum. */
  tip(): { height: bigint; checksum: Uint8Array };
  /**
   * The highest height the node knows of on the network (§6 network height); with `withPeer`, the
   * height the linked peers and a peer whose hello gave that height make, as §2.3's tooFarBehind
   * test counts it.
   */
  networkHeight(withPeer?: bigint): bigint;
  /** False while the node must refuse new inbound links (a master in its start-up sync: notReady, §2.3 step 6). */
  acceptingPeers(): boolean;
}

export interface CloseInfo {
  reason: CloseReason | null;
  code: number;
  text: string;
  /** True when this side closed the link. */
  byUs: boolean;
}

/** What the node does with links: the place the lead wires gossip, sync and relaying. */
export interface LinkHandler {
  /** The hello completed; the link is in the registry. */
  onOpen(link: Link): void;
  /** A decoded message from an open link (never hello, helloData, challenge, ping or pong). */
  onMessage(link: Link, message: Message): void | Promise<void>;
  /** The link ended (called once, whether or not it was open). */
  onClose(link: Link, info: CloseInfo): void;
  /**
   * We refused a peer whose hello checked out because we accept no links now (a master in its
   * start-up sync, notReady): who it is, so a node that must catch up over links it dials can dial it.
   */
  onRefusedNotReady?(link: Link, peer: PeerInfo): void;
  /** A handler threw (our bug, not the peer's): log it. */
  onError?(link: Link, error: unknown): void;
}

/** Counters a metrics module can read. */
export interface LinkStats {
  framesIn: Map<number, number>;
  framesOut: Map<number, number>;
  bytesIn: number;
  bytesOut: number;
}

export interface LinkContext {
  local: LocalNode;
  clock: NetClock;
  registry: PeerRegistry<Link>;
  scores: PeerScores;
  handler: LinkHandler;
  /** Signature check of hellos (formats/rsa.ts by default; the worker pool in the node). */
  verify?: HelloVerifier;
  random?: (n: number) => Uint8Array;
  /** Remote roles accepted, by direction. Defaults: see defaultAcceptedRoles. */
  acceptedRoles?: { inbound: readonly NodeType[]; outbound: readonly NodeType[] };
  helloTimeoutMs?: number;
  idleTimeoutMs?: number;
  pingIntervalMs?: number;
  maxSendQueueBytes?: number;
  socketHighWaterBytes?: number;
  maxClockSkewSeconds?: number;
  /** Shared frame counters (all links of a node), optional. */
  stats?: LinkStats;
}

/**
 * Roles a node links to (§1, §2.1, §10 keep 2): a master dials only masters (`expectingMaster`)
 * and accepts everyone; a relay dials masters and relays and accepts relays and clients; a client
 * dials masters and relays and accepts nobody. Masters dial only masters (§2.1), so a peer that
 * dials a relay as a master is none: the relay would pass its clients' balance and header
 * questions to it, and take its answers.
 */
export function defaultAcceptedRoles(own: NodeType): { inbound: NodeType[]; outbound: NodeType[] } {
  switch (own) {
    case 'M':
    case 'H':
    case 'W':
      return { inbound: ['M', 'H', 'W', 'R', 'C'], outbound: ['M', 'H'] };
    case 'R':
      return { inbound: ['R', 'C'], outbound: ['M', 'H', 'R'] };
    case 'C':
      return { inbound: [], outbound: ['M', 'H', 'R'] };
  }
}

export type LinkState = 'awaitChallenge' | 'awaitHello' | 'awaitHelloData' | 'open' | 'closed';

/** What the hello told us about the peer. */
export interface PeerInfo {
  address: Uint8Array;
  /** Base58 address with checksum (log and RPC form; the key of scores and bans). */
  addressText: string;
  nodeType: NodeType;
  publicKey: Uint8Array;
  productVersion: string;
  /** The peer's own listening endpoint ('' when it has none). */
  endpoint: string;
  /** Our address as the acceptor saw it (outbound links only): our external IP. */
  observedOwnAddress: string;
}

/** Who a hello says it is (`Link.helloNamed`). */
export interface HelloNamed {
  /** Base58 address with checksum. */
  addressText: string;
  nodeType: NodeType;
}

export interface LinkOptions {
  direction: 'inbound' | 'outbound';
  /** The remote `host:port` as seen on the socket (inbound) or dialled (outbound). */
  remote: string;
  /** Outbound: the wallet the dialled peer must have (seed or peer store), if known. */
  expectedAddress?: Uint8Array;
}

export class Link {
  readonly direction: 'inbound' | 'outbound';
  readonly remote: string;
  private readonly expectedAddress: Uint8Array | undefined;
  private readonly ctx: LinkContext;
  private socket: PeerSocket;
  private stateValue: LinkState;
  private peerValue: PeerInfo | null = null;
  private closeInfoValue: CloseInfo | null = null;
  /** Height the peer reported (hello, later inventory and blocks). */
  peerHeight = 0n;
  peerTipChecksum: Uint8Array = new Uint8Array(0);
  private ourChallenge: Uint8Array | null = null;
  private readonly queue: Uint8Array[] = [];
  private queuedBytes = 0;
  private blocked = false;
  private busy = false;
  /** The peer's hello (or helloData) frame arrived and was decoded; it may still be under check. */
  private helloArrivedValue = false;
  private helloNamedValue: HelloNamed | null = null;
  private held: Uint8Array[] = [];
  private heldBytes = 0;
  private helloTimer: TimerHandle | null = null;
  private idleTimer: TimerHandle | null = null;
  private lastReceivedAt: number;
  private lastSentAt: number;
  readonly openedAt: number;
  /** Per-link counters. */
  readonly stats: LinkStats = { framesIn: new Map(), framesOut: new Map(), bytesIn: 0, bytesOut: 0 };

  constructor(ctx: LinkContext, socket: PeerSocket, options: LinkOptions) {
    this.ctx = ctx;
    this.socket = socket;
    this.direction = options.direction;
    this.remote = options.remote;
    this.expectedAddress = options.expectedAddress;
    this.stateValue = this.direction === 'outbound' ? 'awaitChallenge' : 'awaitHello';
    this.openedAt = this.lastReceivedAt = this.lastSentAt = ctx.clock.now();
  }

  get state(): LinkState {
    return this.stateValue;
  }

  get isOpen(): boolean {
    return this.stateValue === 'open';
  }

  /**
   * The peer sent its hello (helloData on a dialled link): it said who it is, though the check
   * may still run. Bytes it sends meanwhile are held up to the link's bound (MAX_HELD_BYTES_INBOUND,
   * or a send queue on a dialled link, whose acceptor may send right after its helloData).
   */
  get helloArrived(): boolean {
    return this.helloArrivedValue;
  }

  /**
   * The wallet and role the peer's hello named, once it was read, even when the link was then
   * refused (for the log, so an operator can tell whom); proven only if the hello's checks passed
   * (a refusal for its signature or key says the name was not the sender's).
   */
  get helloNamed(): HelloNamed | null {
    return this.helloNamedValue;
  }

  /** How the link ended (null while it lives). */
  get closeInfo(): CloseInfo | null {
    return this.closeInfoValue;
  }

  /** The peer's hello identity (null before the hello completed). */
  get peer(): PeerInfo | null {
    return this.peerValue;
  }

  /** For the registry: valid once open. */
  get peerAddress(): Uint8Array {
    return this.peerValue?.address ?? new Uint8Array(0);
  }

  get peerType(): NodeType {
    return this.peerValue?.nodeType ?? 'C';
  }

  /** Bytes waiting in our queue (not counting the socket's buffer). */
  get queued(): number {
    return this.queuedBytes;
  }

  /**
   * Bytes sent and not yet written out (our queue + the socket's buffer). Producers of bulk data
   * (sync answers, mempool dumps) wait while this is high, so they never hit the slow-peer bound.
   */
  get pendingBytes(): number {
    return this.stateValue === 'closed' ? 0 : this.queuedBytes + this.socket.bufferedAmount();
  }

  /**
   * Starts the link once the socket is open: arms the hello deadline; an acceptor sends its
   * challenge (or refuses at once when not accepting peers or the host is blacklisted).
   */
  start(): void {
    if (this.stateValue === 'closed') return;
    this.helloTimer = this.ctx.clock.setTimer(this.ctx.helloTimeoutMs ?? HELLO_TIMEOUT_MS, () => {
      if (this.stateValue !== 'open') this.close(CloseReason.helloTimeout);
    });
    this.armIdle();
    if (this.direction === 'inbound') {
      const blocked = this.ctx.scores.blocked({ host: this.remote });
      if (blocked) return this.close(blocked.kind === 'banned' ? CloseReason.banned : CloseReason.rejected, blocked.reason);
      this.ourChallenge = this.random(CHALLENGE_BYTES);
      this.writeFrame(encodeChallenge(this.ourChallenge));
    }
  }

  /** Bytes of one WebSocket binary message from the peer. Never throws. */
  receive(bytes: Uint8Array): void {
    if (this.stateValue === 'closed') return;
    try {
      this.lastReceivedAt = this.ctx.clock.now();
      if (this.busy) {
        this.heldBytes += bytes.length;
        const max = this.direction === 'inbound' ? MAX_HELD_BYTES_INBOUND : (this.ctx.maxSendQueueBytes ?? MAX_SEND_QUEUE_BYTES);
        if (this.heldBytes > max) return this.close(CloseReason.unexpectedMessage, 'flood during hello');
        this.held.push(bytes);
        return;
      }
      this.process(bytes);
    } catch (e) {
      this.reportError(e);
    }
  }

  private process(bytes: Uint8Array): void {
    this.stats.bytesIn += bytes.length;
    if (this.ctx.stats) this.ctx.stats.bytesIn += bytes.length;
    let code: number;
    let payload: Uint8Array;
    try {
      const f = decodeFrame(bytes);
      code = f.code;
      payload = f.payload;
    } catch (e) {
      return this.codecFailure(e, bytes[0]);
    }
    count(this.stats.framesIn, code);
    if (this.ctx.stats) count(this.ctx.stats.framesIn, code);

    if (this.stateValue !== 'open') return this.processHandshake(code, payload);

    switch (code) {
      case MessageCode.hello:
      case MessageCode.helloData:
      case MessageCode.challenge:
        return; // a second hello on the same link is ignored (§2.3 acceptor step 1)
      case MessageCode.ping:
        if (payload.length !== PING_NONCE_BYTES) return this.penalize('malformedFrame', 'ping');
        this.writeFrame(encodeMessage({ code: MessageCode.pong, nonce: payload.slice() }));
        return;
      case MessageCode.pong:
        return;
    }
    let message: Message;
    try {
      message = decodePayload(code, payload);
    } catch (e) {
      return this.codecFailure(e, code);
    }
    this.dispatch(message);
  }

  private dispatch(message: Message): void {
    try {
      const r = this.ctx.handler.onMessage(this, message);
      if (r && typeof (r as Promise<void>).then === 'function') (r as Promise<void>).catch((e: unknown) => this.reportError(e));
    } catch (e) {
      this.reportError(e);
    }
  }

  private processHandshake(code: number, payload: Uint8Array): void {
    if (this.stateValue === 'awaitChallenge' && code === MessageCode.challenge) {
      let challenge: Uint8Array;
      try {
        challenge = decodeChallenge(payload);
      } catch (e) {
        return this.codecFailure(e, code);
      }
      this.ourChallenge = this.random(CHALLENGE_BYTES);
      this.stateValue = 'awaitHelloData';
      this.writeFrame(buildHello(MessageCode.hello, this.identity(), { challenge: this.ourChallenge }, challenge, this.ctx.local.sign));
      return;
    }
    const expected = this.stateValue === 'awaitHello' ? MessageCode.hello : this.stateValue === 'awaitHelloData' ? MessageCode.helloData : -1;
    if (code !== expected) {
      return this.close(CloseReason.unexpectedMessage, `${messageCodeName(code)} while waiting for ${this.stateValue.slice(5)}`);
    }
    if (!this.ourChallenge) return this.close(CloseReason.unexpectedMessage, 'hello before the link started');
    let hello: Hello;
    try {
      hello = decodeHello(code as typeof MessageCode.hello | typeof MessageCode.helloData, payload);
    } catch (e) {
      return this.codecFailure(e, code);
    }
    this.helloArrivedValue = true;
    this.busy = true;
    void this.checkPeerHello(hello)
      .catch((e: unknown) => {
        this.reportError(e);
        this.close(CloseReason.rejected, 'internal error');
      })
      .finally(() => {
        this.busy = false;
        const held = this.held;
        this.held = [];
        this.heldBytes = 0;
        for (const b of held) {
          if (this.stateValue === 'closed') break;
          this.receive(b);
        }
      });
  }

  private identity() {
    const tip = this.ctx.local.tip();
    const l = this.ctx.local;
    return {
      protocolVersion: PROTOCOL_VERSION,
      network: l.network,
      genesisChecksum: l.genesisChecksum,
      nodeType: l.nodeType,
      address: l.address,
      publicKey: l.publicKey,
      productVersion: l.productVersion,
      timestamp: BigInt(Math.floor(this.ctx.clock.now() / 1000)),
      endpoint: l.endpoint,
      height: tip.height,
      tipChecksum: tip.checksum,
    };
  }

  private async checkPeerHello(hello: Hello): Promise<void> {
    const l = this.ctx.local;
    const addressText = addressToText(hello.address);
    this.helloNamedValue = { addressText, nodeType: hello.nodeType };
    const rejection = await checkHello(hello, {
      network: l.network,
      genesisChecksum: l.genesisChecksum,
      challenge: this.ourChallenge!,
      ownAddress: l.address,
      nowMs: this.ctx.clock.now(),
      ...(this.ctx.maxClockSkewSeconds !== undefined ? { maxClockSkewSeconds: this.ctx.maxClockSkewSeconds } : {}),
      verify: this.ctx.verify ?? verifySignature,
    });
    if (this.stateValue === 'closed') return;
    if (rejection) return this.close(rejection.reason, rejection.detail);

    const blocked = this.ctx.scores.blocked({ wallet: addressText, host: this.remote });
    if (blocked) return this.close(blocked.kind === 'banned' ? CloseReason.banned : CloseReason.rejected, blocked.reason);

    const roles = this.ctx.acceptedRoles ?? defaultAcceptedRoles(l.nodeType);
    const accepted = this.direction === 'inbound' ? roles.inbound : roles.outbound;
    if (!accepted.includes(hello.nodeType)) {
      return this.direction === 'outbound' && (l.nodeType === 'M' || l.nodeType === 'H' || l.nodeType === 'W')
        ? this.close(CloseReason.expectingMaster, `peer is ${hello.nodeType}`)
        : this.close(CloseReason.rejected, `not accepting ${hello.nodeType} peers`);
    }
    const peer: PeerInfo = {
      address: hello.address,
      addressText,
      nodeType: hello.nodeType,
      publicKey: hello.publicKey,
      productVersion: hello.productVersion,
      endpoint: hello.endpoint,
      observedOwnAddress: hello.observedAddress ?? '',
    };
    // §2.3 acceptor step 6: a node not ready refuses after the hello's checks, so it knows who it
    // refused (a master in its start-up sync catches up only over links it dials, §6).
    if (this.direction === 'inbound' && !l.acceptingPeers()) {
      try {
        this.ctx.handler.onRefusedNotReady?.(this, peer);
      } catch (e) {
        this.reportError(e);
      }
      return this.close(CloseReason.notReady);
    }
    if (this.direction === 'outbound') {
      if (this.expectedAddress && !equalBytes(this.expectedAddress, hello.address)) {
        return this.close(CloseReason.addressMismatch, `expected ${addressToText(this.expectedAddress)}`);
      }
      const network = hello.nodeType === 'M' || hello.nodeType === 'H' ? l.networkHeight(hello.height) : 0n;
      if (hello.height + TOO_FAR_BEHIND_BLOCKS < network) {
        return this.close(CloseReason.tooFarBehind, `height ${hello.height}, network ${network}`);
      }
    }

    this.peerValue = peer;
    this.peerHeight = hello.height;
    this.peerTipChecksum = hello.tipChecksum;

    const admitted = this.ctx.registry.admit(this);
    if (!admitted.ok) {
      const reason = admitted.reason === 'capacity' ? CloseReason.capacity : CloseReason.duplicateIdentity;
      this.peerValue = null;
      return this.close(reason, admitted.detail);
    }
    if (admitted.replaced) admitted.replaced.close(CloseReason.duplicateIdentity, 'replaced by a newer link');

    if (this.direction === 'inbound') {
      this.writeFrame(
        buildHello(MessageCode.helloData, this.identity(), { observedAddress: this.remote }, hello.challenge!, this.ctx.local.sign),
      );
    }
    this.stateValue = 'open';
    this.helloTimer?.cancel();
    this.helloTimer = null;
    try {
      this.ctx.handler.onOpen(this);
    } catch (e) {
      this.reportError(e);
    }
  }

  /** Sends a message. Returns false if the link is closed (or was just closed as too slow). */
  send(message: OutgoingMessage): boolean {
    if (this.stateValue !== 'open') return false;
    return this.sendFrame(encodeMessage(message));
  }

  /** Sends an already encoded frame (e.g. one encoding broadcast to many links). */
  sendFrame(frame: Uint8Array): boolean {
    if (this.stateValue !== 'open') return false;
    return this.writeFrame(frame);
  }

  private writeFrame(frame: Uint8Array): boolean {
    if (this.stateValue === 'closed') return false;
    const code = frame[0]!;
    count(this.stats.framesOut, code);
    if (this.ctx.stats) count(this.ctx.stats.framesOut, code);
    this.stats.bytesOut += frame.length;
    if (this.ctx.stats) this.ctx.stats.bytesOut += frame.length;
    this.lastSentAt = this.ctx.clock.now();
    const highWater = this.ctx.socketHighWaterBytes ?? SOCKET_HIGH_WATER_BYTES;
    if (!this.blocked && this.queue.length === 0 && this.socket.bufferedAmount() < highWater) {
      if (!this.socket.send(frame)) this.blocked = true;
      return this.checkSlow();
    }
    this.queue.push(frame);
    this.queuedBytes += frame.length;
    return this.checkSlow();
  }

  private checkSlow(): boolean {
    const max = this.ctx.maxSendQueueBytes ?? MAX_SEND_QUEUE_BYTES;
    const total = this.queuedBytes + this.socket.bufferedAmount();
    if (total > max) {
      this.queue.length = 0;
      this.queuedBytes = 0;
      this.close(CloseReason.slowPeer, `${total} bytes pending`);
      return false;
    }
    return true;
  }

  /** The transport calls this when the socket's buffer drained: queued frames are written. */
  drained(): void {
    if (this.stateValue === 'closed') return;
    this.blocked = false;
    const highWater = this.ctx.socketHighWaterBytes ?? SOCKET_HIGH_WATER_BYTES;
    while (this.queue.length > 0 && !this.blocked && this.socket.bufferedAmount() < highWater) {
      const frame = this.queue.shift()!;
      this.queuedBytes -= frame.length;
      if (!this.socket.send(frame)) this.blocked = true;
    }
  }

  /**
   * Adds an offence to the peer's score (by wallet once known; before the hello by host, never
   * for loopback hosts) and closes the link when the peer is banned. For the node's handlers too:
   * an invalid transaction (REJECT), an invalid block, a bad signature.
   */
  penalize(offence: Offence, detail = ''): void {
    if (this.stateValue === 'closed') return;
    const key = this.peerValue ? walletKey(this.peerValue.addressText) : this.hostScoreKey();
    if (!key) return this.close(CloseReason.malformedFrame, detail || offence);
    const { banned } = this.ctx.scores.penalize(key, offence);
    if (banned) this.close(CloseReason.misbehaviour, detail || offence);
  }

  private codecFailure(e: unknown, code: number | undefined): void {
    if (!(e instanceof NetworkCodecError)) {
      this.reportError(e);
      return this.close(CloseReason.malformedFrame, 'undecodable');
    }
    const offence: Offence = e.code === 'OVERSIZED' ? 'oversizedFrame' : e.code === 'UNKNOWN_CODE' ? 'unknownCode' : 'malformedFrame';
    // Text frames reach the link as empty frames (dial.ts): say which it may be.
    const detail = e.code === 'EMPTY_FRAME' ? 'an empty or text frame (peer frames are binary)' : `${e.code} in ${messageCodeName(code ?? -1)} at byte ${e.offset}`;
    this.frameOffence(offence, detail);
  }

  /**
   * The transport stopped a message above its limit before it was whole (`ws` closes such a
   * socket with 1009; the peer listener cuts a socket that sends more than a hello's worth of
   * bytes before its hello): scored as an oversized frame, like one the link decoded.
   */
  oversized(detail: string): void {
    if (this.stateValue === 'closed') return;
    this.frameOffence('oversizedFrame', detail);
  }

  /** The score key of the remote host (its IP: a new source port is the same host), or null for loopback. */
  private hostScoreKey(): string | null {
    return isLoopbackHost(this.remote) ? null : hostKey(hostOf(this.remote));
  }

  private frameOffence(offence: Offence, detail: string): void {
    if (this.stateValue !== 'open') {
      // Before the hello completes there is no identity to score: refuse the link.
      const key = this.hostScoreKey();
      if (key) this.ctx.scores.penalize(key, offence);
      return this.close(CloseReason.malformedFrame, detail);
    }
    this.penalize(offence, detail);
  }

  /** Closes the link with a reason (sends the close code and text). Idempotent. */
  close(reason: CloseReason, detail?: string): void {
    if (this.stateValue === 'closed') return;
    const info = CLOSE_REASONS[reason];
    const text = closeText(reason, detail);
    this.finish({ reason, code: info.code, text, byUs: true });
    try {
      this.socket.close(info.code, text);
    } catch (e) {
      this.reportError(e);
    }
  }

  /** The transport reports that the socket closed (by the peer or by the network). */
  socketClosed(code: number, text: string): void {
    if (this.stateValue === 'closed') return;
    this.finish({ reason: closeReasonOfCode(code), code, text, byUs: false });
  }

  private finish(info: CloseInfo): void {
    this.closeInfoValue = info;
    this.stateValue = 'closed';
    this.helloTimer?.cancel();
    this.idleTimer?.cancel();
    this.helloTimer = this.idleTimer = null;
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.held = [];
    this.ctx.registry.remove(this);
    try {
      this.ctx.handler.onClose(this, info);
    } catch (e) {
      this.reportError(e);
    }
  }

  /** Idle check and pings: one timer per link, re-armed on each tick. */
  private armIdle(): void {
    const ping = this.ctx.pingIntervalMs ?? PING_INTERVAL_MS;
    const idle = this.ctx.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
    const tick = Math.min(ping, idle);
    this.idleTimer = this.ctx.clock.setTimer(tick, () => {
      if (this.stateValue === 'closed') return;
      const now = this.ctx.clock.now();
      if (now - this.lastReceivedAt >= idle) return this.close(CloseReason.idleTimeout, `${Math.round((now - this.lastReceivedAt) / 1000)} s silent`);
      if (this.stateValue === 'open' && now - this.lastSentAt >= ping) {
        this.writeFrame(encodeMessage({ code: MessageCode.ping, nonce: this.random(PING_NONCE_BYTES) }));
      }
      this.armIdle();
    });
  }

  private random(n: number): Uint8Array {
    return this.ctx.random ? this.ctx.random(n) : new Uint8Array(randomBytes(n));
  }

  private reportError(e: unknown): void {
    try {
      this.ctx.handler.onError?.(this, e);
    } catch {
      // a failing error reporter must not take the link down
    }
  }
}

function count(map: Map<number, number>, code: number): void {
  map.set(code, (map.get(code) ?? 0) + 1);
}
