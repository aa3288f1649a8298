/**
 * Dialling peers with the `ws` WebSocket client (DESIGN.md decision 7: the uWS server accepts,
 * a well-kept client library dials), adapted to the link's PeerSocket; reconnection with
 * exponential backoff and jitter; no self-dial (reference-network.md §2.1: "no dialling of
 * itself or of a host already linked"; a link the peer closed with a permanent reason, such as
 * wrong network or self-connection, is not dialled again — §2.3 "a bye … disables auto-reconnect").
 */
import type { Socket } from 'node:net';
import WebSocket from 'ws';
import type { NetClock, TimerHandle } from './clock.js';
import { limitBeforeHello } from './hello-budget.js';
import { MAX_FRAME_BYTES } from './protocol/codes.js';
import { CLOSE_REASONS, closeReasonOfCode, type CloseReason } from './protocol/close.js';
import { SOCKET_HIGH_WATER_BYTES, type Link, type PeerSocket } from './link.js';

/** First redial delay after a failure. */
export const RECONNECT_BASE_MS = 1_000;
/** Longest redial delay: a peer down for a while is retried once a minute. */
export const RECONNECT_MAX_MS = 60_000;
/** TCP + WebSocket upgrade deadline (reference TCP connect timeout 5 s, §2.1). */
export const DIAL_TIMEOUT_MS = 5_000;
/** The route peers dial on the node's listener. */
export const PEER_WS_PATH = '/p2p';

/**
 * Adapts a `ws` WebSocket (either side: dialled, or accepted by a `ws` server in tests) to a
 * PeerSocket and pushes its events into the link: binary messages to `receive`, drains to
 * `drained`, close to `socketClosed`. A text message is not a frame: it is passed on as an empty
 * frame, which the link scores as malformed.
 */
export function attachWsLink(ws: WebSocket, makeLink: (socket: PeerSocket) => Link, highWater = SOCKET_HIGH_WATER_BYTES): Link {
  let waitingDrain = false;
  let link: Link | null = null;
  const socket: PeerSocket = {
    send(bytes: Uint8Array): boolean {
      if (ws.readyState !== WebSocket.OPEN) return false;
      try {
        ws.send(bytes, { binary: true }, (err) => {
          if (!err && waitingDrain && ws.bufferedAmount < highWater / 2) {
            waitingDrain = false;
            link?.drained();
          }
        });
      } catch {
        return false;
      }
      if (ws.bufferedAmount >= highWater) {
        waitingDrain = true;
        return false;
      }
      return true;
    },
    bufferedAmount: () => ws.bufferedAmount,
    close(code: number, reason: string): void {
      // A peer that does not read will not read our close frame either: cut it at once rather
      // than keep its buffers for ws's 30 s closing timeout.
      if (ws.bufferedAmount >= highWater) return ws.terminate();
      try {
        ws.close(code, reason);
      } catch {
        ws.terminate();
      }
    },
  };
  link = makeLink(socket);
  ws.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
    if (!isBinary) return link!.receive(new Uint8Array(0));
    const raw = Array.isArray(data) ? Buffer.concat(data) : data instanceof ArrayBuffer ? new Uint8Array(data) : data;
    // A plain Uint8Array over the message: the readers' `slice()` copies then (a Buffer's is a view,
    // which kept the whole frame alive as long as one field read from it).
    const bytes = new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
    link!.receive(bytes);
  });
  ws.on('close', (code: number, reason: Buffer) => link!.socketClosed(code, reason.toString('utf8')));
  ws.on('error', (err: Error & { code?: string }) => {
    // 'close' follows every 'error' in ws; the link learns there. A message above maxPayload is
    // the peer's doing (ws stops reading it at its announced length and closes with 1009): scored.
    if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') link!.oversized(`a message above ${MAX_FRAME_BYTES} bytes, the largest frame`);
  });
  return link;
}

export interface DialTarget {
  host: string;
  port: number;
  /** The wallet the peer must have (seed list, peer store), if known: else addressMismatch. */
  expectedAddress?: Uint8Array;
}

export const targetKey = (t: Pick<DialTarget, 'host' | 'port'>): string =>
  `${t.host.includes(':') && !t.host.startsWith('[') ? `[${t.host}]` : t.host}:${t.port}`;

/** `host:port` or `[v6]:port` → a dial target, or null when it is not one (a presence host, RPC `connect`). */
export function parseTarget(hostPort: string): DialTarget | null {
  const i = hostPort.lastIndexOf(':');
  const digits = hostPort.slice(i + 1);
  const port = Number(digits);
  const host = hostPort.slice(0, i).replace(/^\[|\]$/g, '');
  if (i <= 0 || host === '' || !/^\d+$/.test(digits) || port < 1 || port > 65535) return null;
  return { host, port };
}

export type TargetState = 'idle' | 'dialling' | 'linked' | 'waiting' | 'stopped';

export interface DialerOptions {
  clock: NetClock;
  /** Creates the outbound link for a freshly opened socket (the node supplies its LinkContext). */
  createLink: (socket: PeerSocket, target: DialTarget) => Link;
  /** Our own endpoints (`host:port`, e.g. 127.0.0.1:p, localhost:p, our public ip:p): never dialled. */
  ownEndpoints?: readonly string[];
  /**
   * Asked before each dial: false to wait (e.g. no outbound room, or already linked to that
   * identity). `lastAddress` is the wallet the target answered with last time, if it ever did.
   */
  canDial?: (target: DialTarget, lastAddress: Uint8Array | null) => boolean;
  /** Float in [0, 1) for jitter (injectable for tests). */
  random?: () => number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /**
   * While `isolated()` (the node has no open peer link), redials wait at most `maxDelayMs`: the
   * reference retries every pass of its reconnect loop, 2 s, with no growing backoff (CORE
   * `NetworkClientManagerBase.reconnectLoop`, `CoreConfig.networkClientReconnectInterval`), and a
   * node with no link (a syncing master whose only peer came back) has nobody else to learn from.
   */
  isolation?: { isolated: () => boolean; maxDelayMs: number };
  dialTimeoutMs?: number;
  path?: string;
  /** Called when a target is given up for good (a permanent close reason). */
  onGiveUp?: (target: DialTarget, reason: CloseReason) => void;
  /** Called when a target added with `giveUpAfter` or `giveUpUnlinkedAfter` is removed (that many failed dials, or a permanent reason). */
  onDropped?: (target: DialTarget, reason: CloseReason | null) => void;
  /**
   * Called after each dial that did not complete a hello: `failures` in a row, and what went wrong
   * (the link's close text, or the socket's error: `connect ECONNREFUSED …`, `Unexpected server response: 404`).
   */
  onDialFailed?: (target: DialTarget, failure: { reason: CloseReason | null; detail: string; failures: number }) => void;
  /** Opens the WebSocket (tests may substitute). */
  openSocket?: (url: string, o: { maxPayload: number; handshakeTimeout: number }) => WebSocket;
}

interface Entry {
  target: DialTarget;
  state: TargetState;
  failures: number;
  timer: TimerHandle | null;
  ws: WebSocket | null;
  link: Link | null;
  lastReason: CloseReason | null;
  /** Failed dials in a row after which the target is removed (a discovered peer); null = keep redialling. */
  giveUpAfter: number | null;
  /** The wallet the target answered with last (a link it completed), for `canDial`. */
  lastAddress: Uint8Array | null;
  /** Failed dials in a row, before any completed a hello, after which the target is removed; null = no such bound. */
  giveUpUnlinkedAfter: number | null;
  /** Whether a dial of this target ever completed a hello. */
  everLinked: boolean;
  /** The last socket error of the current dial. */
  lastError: string;
}

/**
 * Keeps links to a set of targets: dials each, redials after a close with exponential backoff
 * and full jitter in [d/2, d] (d = base · 2^failures, capped; capped lower while the node has no
 * link, `isolation`), resets the backoff once a hello completed, and stops for good on a permanent
 * close reason.
 */
export class Dialer {
  private readonly targets = new Map<string, Entry>();
  private running = false;
  private readonly own: Set<string>;

  constructor(private readonly o: DialerOptions) {
    this.own = new Set((o.ownEndpoints ?? []).map((e) => e.toLowerCase()));
  }

  /**
   * Adds a target (dialled at once when running). Returns false for our own endpoint. With
   * `giveUpAfter`, the target is removed after that many failed dials in a row or a permanent
   * close reason (the reference redials a dropped peer up to 3 times, §2.1); without, it is kept.
   * With `giveUpUnlinkedAfter`, it is removed after that many failed dials in a row as long as
   * none ever completed a hello (an address that is no peer listener); once linked, it is kept.
   */
  add(target: DialTarget, options: { giveUpAfter?: number; giveUpUnlinkedAfter?: number } = {}): boolean {
    const key = targetKey(target);
    if (this.isOwn(target)) return false;
    if (this.targets.has(key)) return true;
    this.targets.set(key, {
      target,
      state: 'idle',
      failures: 0,
      timer: null,
      ws: null,
      link: null,
      lastReason: null,
      giveUpAfter: options.giveUpAfter ?? null,
      lastAddress: null,
      giveUpUnlinkedAfter: options.giveUpUnlinkedAfter ?? null,
      everLinked: false,
      lastError: '',
    });
    if (this.running) this.dial(key);
    return true;
  }

  /** Stops dialling a target and closes its link (by default as the operator's request). */
  remove(key: string, reason: CloseReason = 'requested'): void {
    const e = this.targets.get(key);
    if (!e) return;
    this.targets.delete(key);
    e.state = 'stopped';
    e.timer?.cancel();
    e.link?.close(reason);
    if (!e.link) e.ws?.terminate();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    for (const key of this.targets.keys()) this.dial(key);
  }

  /** Stops all dialling and closes the links it made. */
  stop(reason: CloseReason = 'shutdown'): void {
    this.running = false;
    for (const e of this.targets.values()) {
      e.timer?.cancel();
      e.timer = null;
      e.state = 'stopped';
      if (e.link && e.link.state !== 'closed') e.link.close(reason);
      else e.ws?.terminate();
    }
  }

  /** Redials every target now (RPC `reconnect`): closes current links, resets backoff. */
  reconnectAll(): void {
    for (const [key, e] of this.targets) {
      e.failures = 0;
      e.timer?.cancel();
      e.timer = null;
      if (e.link && e.link.state !== 'closed') e.link.close('requested');
      else if (e.state !== 'dialling') this.dial(key);
    }
  }

  /** Whether a target of this key is kept. */
  has(key: string): boolean {
    return this.targets.has(key);
  }

  /** Targets added with `giveUpAfter` without an open link now (dialling, in their hello, or waiting to redial). */
  tentativeUnlinked(): number {
    let n = 0;
    for (const e of this.targets.values()) if (e.giveUpAfter !== null && e.link?.isOpen !== true) n++;
    return n;
  }

  /** State of each target, for status and RPC. */
  list(): { key: string; state: TargetState; failures: number; lastReason: CloseReason | null }[] {
    return [...this.targets].map(([key, e]) => ({ key, state: e.state, failures: e.failures, lastReason: e.lastReason }));
  }

  /** Delay before redial number `failures` (≥ 1), with jitter. */
  backoffMs(failures: number): number {
    const base = this.o.baseDelayMs ?? RECONNECT_BASE_MS;
    const cap = this.o.maxDelayMs ?? RECONNECT_MAX_MS;
    const max = this.o.isolation?.isolated() ? Math.min(cap, this.o.isolation.maxDelayMs) : cap;
    const d = Math.min(max, base * 2 ** Math.min(30, Math.max(0, failures - 1)));
    const r = (this.o.random ?? Math.random)();
    return Math.round(d / 2 + (d / 2) * r);
  }

  /** One of our own endpoints (never dialled). */
  isOwn(t: DialTarget): boolean {
    return this.own.has(targetKey(t).toLowerCase());
  }

  private dial(key: string): void {
    const e = this.targets.get(key);
    if (!e || !this.running || e.state === 'dialling' || e.state === 'linked' || e.state === 'stopped') return;
    if (this.o.canDial && !this.o.canDial(e.target, e.lastAddress)) {
      // A discovered peer is not waited for: the next discovery pass picks again.
      if (e.giveUpAfter !== null) {
        this.targets.delete(key);
        e.state = 'stopped';
        return;
      }
      e.state = 'waiting';
      e.timer = this.o.clock.setTimer(this.backoffMs(1), () => {
        e.timer = null;
        e.state = 'idle';
        this.dial(key);
      });
      return;
    }
    e.state = 'dialling';
    const url = `ws://${key}${this.o.path ?? PEER_WS_PATH}`;
    let ws: WebSocket;
    try {
      const open = this.o.openSocket ?? ((u, opts) => new WebSocket(u, { ...opts, perMessageDeflate: false }));
      ws = open(url, { maxPayload: MAX_FRAME_BYTES, handshakeTimeout: this.o.dialTimeoutMs ?? DIAL_TIMEOUT_MS });
    } catch (err) {
      e.lastError = err instanceof Error ? err.message : String(err);
      return this.afterClose(key, e, null, false);
    }
    e.ws = ws;
    e.lastError = '';
    let opened = false;
    // The upgraded TCP socket (ws hands it over just before 'open'): its bytes are counted against
    // the pre-hello budget, as on accepted sockets, so the peer we dialled cannot make us buffer a
    // 32 MiB message before it said who it is.
    let upgraded: Socket | null = null;
    ws.once('upgrade', (response) => void (upgraded = response.socket));
    ws.on('open', () => {
      if (e.state === 'stopped' || this.targets.get(key) !== e) return ws.terminate();
      opened = true;
      try {
        e.link = attachWsLink(ws, (socket) => this.o.createLink(socket, e.target));
      } catch {
        // createLink is the node's code; a throw there must not escape an event handler.
        return ws.terminate();
      }
      if (upgraded) limitBeforeHello(upgraded, ws, e.link);
      e.state = 'linked';
      e.link.start();
    });
    ws.on('close', (code: number) => {
      const link = e.link;
      e.link = null;
      e.ws = null;
      const wasOpen = opened && link !== null && link.peer !== null;
      // Who answered: while that wallet is linked the other way, the target is not dialled
      // (two masters that name each other with --peer would otherwise redial into 4806 for ever).
      if (link?.peer) e.lastAddress = link.peer.address;
      // The link's own close reason wins (either side's, as the link recorded it); else the code.
      const reason = link?.closeInfo?.reason ?? closeReasonOfCode(code);
      this.afterClose(key, e, reason, wasOpen, link?.closeInfo?.text || e.lastError || `closed with ${code}`);
    });
    ws.on('error', (err: Error) => {
      e.lastError = err.message; // a 'close' always follows
    });
  }

  private afterClose(key: string, e: Entry, reason: CloseReason | null, wasOpen: boolean, detail = e.lastError): void {
    e.lastReason = reason;
    if (!this.running || e.state === 'stopped' || this.targets.get(key) !== e) return;
    const permanent = reason !== null && CLOSE_REASONS[reason].permanent;
    e.failures = wasOpen ? 1 : e.failures + 1;
    if (wasOpen) e.everLinked = true;
    else this.o.onDialFailed?.(e.target, { reason, detail, failures: e.failures });
    const unlinkedBound = e.giveUpUnlinkedAfter !== null && !e.everLinked && e.failures >= e.giveUpUnlinkedAfter;
    if ((e.giveUpAfter !== null && (permanent || (!wasOpen && e.failures >= e.giveUpAfter))) || (unlinkedBound && !permanent)) {
      this.targets.delete(key);
      e.state = 'stopped';
      this.o.onDropped?.(e.target, reason);
      return;
    }
    if (permanent) {
      e.state = 'stopped';
      this.o.onGiveUp?.(e.target, reason);
      return;
    }
    e.state = 'waiting';
    e.timer = this.o.clock.setTimer(this.backoffMs(e.failures), () => {
      e.timer = null;
      e.state = 'idle';
      this.dial(key);
    });
  }
}
