/**
 * Test fixtures of the network layer: small RSA identities, in-memory socket pairs and a node
 * context around a ManualClock.
 */
import { EventEmitter } from 'node:events';
import type WebSocket from 'ws';
import { generateWalletKey, signBytes } from '../../src/formats/rsa.js';
import { primaryAddressFromPublicKey } from '../../src/formats/address.js';
import type { Network } from '../../src/codec/types.js';
import { ManualClock, type NetClock } from '../../src/network/clock.js';
import {
  Link,
  type CloseInfo,
  type LinkContext,
  type LinkHandler,
  type LocalNode,
  type PeerSocket,
} from '../../src/network/link.js';
import { PeerRegistry, DEFAULT_PEER_LIMITS, type PeerLimits } from '../../src/network/registry.js';
import { PeerScores } from '../../src/network/scoring.js';
import type { Message, NodeType } from '../../src/network/protocol/messages.js';
import type { PeerNetwork } from '../../src/network/peer-network.js';

export interface TestIdentity {
  address: Uint8Array;
  publicKey: Uint8Array;
  sign: (data: Uint8Array) => Uint8Array;
}

/** A wallet identity with a 1024-bit key (fast to make; the protocol does not depend on the size). */
export async function makeIdentity(): Promise<TestIdentity> {
  const key = await generateWalletKey({ bits: 1024 });
  return {
    address: primaryAddressFromPublicKey(key.publicKey),
    publicKey: key.publicKey,
    sign: (data) => signBytes(key.privateKeyObject, data),
  };
}

let randomCounter = 0;

export const GENESIS = new Uint8Array(64).fill(7);

/** A clock that reads another clock with an offset (a peer whose clock is off). */
export const skewedClock = (base: NetClock, offsetMs: number): NetClock => ({
  now: () => base.now() + offsetMs,
  setTimer: (ms, fn) => base.setTimer(ms, fn),
});

/** Records what a link handler sees. */
export class RecordingHandler implements LinkHandler {
  opened: Link[] = [];
  messages: { link: Link; message: Message }[] = [];
  closed: { link: Link; info: CloseInfo }[] = [];
  errors: unknown[] = [];
  onOpen(link: Link): void {
    this.opened.push(link);
  }
  onMessage(link: Link, message: Message): void {
    this.messages.push({ link, message });
  }
  onClose(link: Link, info: CloseInfo): void {
    this.closed.push({ link, info });
  }
  onError(_link: Link, error: unknown): void {
    this.errors.push(error);
  }
}

export interface NodeOptions {
  identity: TestIdentity;
  nodeType?: NodeType;
  network?: Network;
  genesis?: Uint8Array;
  height?: bigint;
  networkHeight?: bigint;
  accepting?: boolean;
  clock: NetClock;
  limits?: Partial<PeerLimits>;
  sign?: (data: Uint8Array) => Uint8Array;
  address?: Uint8Array;
  ctx?: Partial<LinkContext>;
}

/** One test node: its link context, registry, scores and handler. */
export class TestNode {
  readonly handler = new RecordingHandler();
  readonly registry: PeerRegistry<Link>;
  readonly scores: PeerScores;
  readonly ctx: LinkContext;
  readonly local: LocalNode;
  height: bigint;
  networkHeight: bigint;
  accepting: boolean;

  constructor(readonly o: NodeOptions) {
    const type = o.nodeType ?? 'M';
    this.height = o.height ?? 10n;
    this.networkHeight = o.networkHeight ?? this.height;
    this.accepting = o.accepting ?? true;
    const self = this;
    this.local = {
      network: o.network ?? 'reg',
      genesisChecksum: o.genesis ?? GENESIS,
      nodeType: type,
      address: o.address ?? o.identity.address,
      publicKey: o.identity.publicKey,
      productVersion: 'dltnode-test',
      endpoint: '',
      sign: o.sign ?? o.identity.sign,
      tip: () => ({ height: self.height, checksum: new Uint8Array(64).fill(1) }),
      networkHeight: () => self.networkHeight,
      acceptingPeers: () => self.accepting,
    };
    const baseType = type === 'H' || type === 'W' ? 'M' : type;
    this.registry = new PeerRegistry<Link>(this.local.address, { ...DEFAULT_PEER_LIMITS[baseType], ...o.limits });
    this.scores = new PeerScores({ clock: o.clock });
    this.ctx = {
      local: this.local,
      clock: o.clock,
      registry: this.registry,
      scores: this.scores,
      handler: this.handler,
      // Deterministic "random" bytes that still differ per call.
      random: (len) => {
        const n = ++randomCounter;
        return Uint8Array.from({ length: len }, (_, i) => (i * 31 + n * 7 + (n >> 8)) & 0xff);
      },
      ...o.ctx,
    };
  }

  closeCodes(): number[] {
    return this.handler.closed.map((c) => c.info.code);
  }
}

/** One end of an in-memory WebSocket: what it sent waits in `outbox` until `pump`. */
export class MemorySocket implements PeerSocket {
  peer!: MemorySocket;
  link!: Link;
  /** Bytes sent and not yet delivered (the socket buffer). */
  buffered: Uint8Array[] = [];
  bufferedBytes = 0;
  closed = false;
  closeCode = 0;
  closeText = '';
  /** While true the other side does not read: bytes stay buffered (a slow reader). */
  stalled = false;
  /** While true nothing is delivered either way (a cut wire). */
  cut = false;
  highWater = 1 << 20;
  pendingClose: { code: number; text: string } | null = null;

  send(bytes: Uint8Array): boolean {
    if (this.closed) return false;
    this.buffered.push(bytes.slice());
    this.bufferedBytes += bytes.length;
    return this.bufferedBytes < this.highWater;
  }

  bufferedAmount(): number {
    return this.bufferedBytes;
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.closeCode = code;
    this.closeText = reason;
    this.peer.pendingClose = { code, text: reason };
  }

  /** Delivers buffered bytes to the peer's link; returns how many messages moved. */
  deliver(): number {
    if (this.stalled || this.cut) return 0;
    let n = 0;
    const wasOver = this.bufferedBytes >= this.highWater;
    while (this.buffered.length > 0) {
      const b = this.buffered.shift()!;
      this.bufferedBytes -= b.length;
      this.peer.link.receive(b);
      n++;
    }
    if (wasOver && this.bufferedBytes < this.highWater && !this.closed) this.link.drained();
    return n;
  }

  deliverClose(): number {
    if (this.cut || !this.pendingClose) return 0;
    const c = this.pendingClose;
    this.pendingClose = null;
    this.closed = true;
    this.link.socketClosed(c.code, c.text);
    return 1;
  }
}

/** A connected pair: `dialler` → `acceptor`. Call `start()` then `pump()`. */
export function connect(
  dialler: TestNode,
  acceptor: TestNode,
  opts: { expectedAddress?: Uint8Array } = {},
): { out: Link; inb: Link; a: MemorySocket; b: MemorySocket; start(): void } {
  const a = new MemorySocket();
  const b = new MemorySocket();
  a.peer = b;
  b.peer = a;
  const out = new Link(dialler.ctx, a, { direction: 'outbound', remote: '127.0.0.1:9000', ...opts });
  const inb = new Link(acceptor.ctx, b, { direction: 'inbound', remote: '127.0.0.1:50000' });
  a.link = out;
  b.link = inb;
  return {
    out,
    inb,
    a,
    b,
    start() {
      inb.start();
      out.start();
    },
  };
}

const tick = () => new Promise<void>((r) => setImmediate(r));

/** Delivers bytes both ways until nothing moves (async hello checks included). */
export async function pump(...sockets: MemorySocket[]): Promise<void> {
  let quiet = 0;
  while (quiet < 3) {
    let moved = 0;
    for (const s of sockets) moved += s.deliver();
    for (const s of sockets) moved += s.deliverClose();
    await tick();
    quiet = moved === 0 ? quiet + 1 : 0;
  }
}

/** Lets `steps` clock steps pass, delivering everything before each step and after the last. */
export async function settle(clock: ManualClock, sockets: readonly MemorySocket[], steps = 4, stepMs = 1_000): Promise<void> {
  for (let i = 0; i < steps; i++) {
    await pump(...sockets);
    clock.advance(stepMs);
  }
  await pump(...sockets);
}

const WS_CONNECTING = 0;
const WS_OPEN = 1;
const WS_CLOSING = 2;
const WS_CLOSED = 3;

/** The dialling side of an in-memory connection, shaped as the `ws` WebSocket the dialer drives. */
class MemoryWs extends EventEmitter {
  readyState = WS_CONNECTING;
  readonly bufferedAmount = 0;
  server: Link | null = null;

  send(bytes: Uint8Array, _options: unknown, done?: (err?: Error) => void): void {
    const copy = bytes.slice();
    setImmediate(() => {
      if (this.readyState === WS_OPEN) this.server?.receive(copy);
      done?.();
    });
  }

  close(code: number, reason: string): void {
    if (this.readyState >= WS_CLOSING) return;
    this.readyState = WS_CLOSING;
    setImmediate(() => {
      this.server?.socketClosed(code, reason);
      this.finish(code, reason);
    });
  }

  terminate(): void {
    this.close(1006, '');
  }

  /** The dialler learns the connection ended (once). */
  finish(code: number, reason: string): void {
    if (this.readyState === WS_CLOSED) return;
    this.readyState = WS_CLOSED;
    this.emit('close', code, Buffer.from(reason));
  }
}

/**
 * Sockets without a network for PeerNetworks that dial (relay choice, redials): `listen` puts a
 * node at an endpoint, `openSocket` (the dialer's hook, PeerNetworkOptions.dial) connects to it in
 * memory, each frame arriving on a later turn of the event loop; an endpoint nobody listens on
 * refuses (close 1006).
 */
export class MemoryNet {
  private readonly nodes = new Map<string, PeerNetwork>();
  private port = 40_000;

  listen(endpoint: string, net: PeerNetwork): void {
    this.nodes.set(endpoint, net);
  }

  unlisten(endpoint: string): void {
    this.nodes.delete(endpoint);
  }

  readonly openSocket = (url: string): WebSocket => {
    const acceptor = this.nodes.get(new URL(url).host);
    const ws = new MemoryWs();
    const remote = `127.0.0.1:${this.port++}`;
    setImmediate(() => {
      if (!acceptor || ws.readyState !== WS_CONNECTING) return ws.finish(1006, 'refused');
      ws.readyState = WS_OPEN;
      const socket: PeerSocket = {
        send: (bytes) => {
          if (ws.readyState !== WS_OPEN) return false;
          const copy = Buffer.from(bytes);
          setImmediate(() => ws.readyState === WS_OPEN && ws.emit('message', copy, true));
          return true;
        },
        bufferedAmount: () => 0,
        close: (code, reason) => setImmediate(() => ws.finish(code, reason)),
      };
      ws.server = acceptor.accept(socket, remote);
      ws.emit('open');
    });
    return ws as unknown as WebSocket;
  };
}

export { ManualClock };

/**
 * Links two in-process networks: `dialler` dials `acceptor`, which it knows as `remoteOfAcceptor`
 * (the acceptor sees 127.0.0.1:40000). Returns both sockets, to pump.
 */
export function wire(dialler: PeerNetwork, acceptor: PeerNetwork, remoteOfAcceptor: string): MemorySocket[] {
  const a = new MemorySocket();
  const b = new MemorySocket();
  a.peer = b;
  b.peer = a;
  b.link = acceptor.accept(b, '127.0.0.1:40000');
  a.link = dialler.attachOutbound(a, remoteOfAcceptor);
  return [a, b];
}
