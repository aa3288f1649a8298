/**
 * The accepting side on uWebSockets.js (DESIGN.md decision 7: the uWS listener accepts peer
 * WebSockets at a route). Typed structurally, so this module does not load uWS. The node's own
 * peer listener accepts on `ws` instead (src/node/peer-listener.ts: uWS gives no per-socket limit
 * on incoming bytes, so a socket before its hello could make the node buffer 32 MiB); a program
 * that still accepts peers on uWS must bound that itself. How to wire a route:
 *
 *   app.ws(PEER_WS_PATH, {
 *     maxPayloadLength: MAX_FRAME_BYTES, maxBackpressure: MAX_SEND_QUEUE_BYTES + MAX_FRAME_BYTES,
 *     idleTimeout: 0,               // the link's own idle timeout and pings
 *     sendPingsAutomatically: false,
 *     open: (ws) => { const link = new Link(ctx, uwsPeerSocket(ws), { direction: 'inbound', remote: uwsRemote(ws) });
 *                     ws.getUserData().link = link; link.start(); },
 *     message: (ws, data, isBinary) => ws.getUserData().link.receive(isBinary ? uwsMessageBytes(data) : new Uint8Array(0)),
 *     drain: (ws) => ws.getUserData().link.drained(),
 *     close: (ws, code, msg) => ws.getUserData().link.socketClosed(code, Buffer.from(msg).toString('utf8')),
 *   });
 *
 * uWS reuses the message ArrayBuffer after the handler returns, so `uwsMessageBytes` copies it.
 * After `close`, uWS must not be touched: the adapter remembers it was closed.
 */
import { SOCKET_HIGH_WATER_BYTES, type PeerSocket } from './link.js';

/** The part of a uWS WebSocket the adapter uses. */
export interface UwsLikeSocket {
  /** 0 = backpressure (buffered), 1 = sent, 2 = dropped (over maxBackpressure). */
  send(message: Uint8Array, isBinary?: boolean): number;
  getBufferedAmount(): number;
  end(code?: number, shortMessage?: string): void;
  /** Forceful close without a close frame. */
  close?(): void;
}

/** Adapts a uWS WebSocket to a PeerSocket. A dropped send (2) reports backpressure and a huge buffer, so the link drops the peer as slow. */
export function uwsPeerSocket(ws: UwsLikeSocket): PeerSocket & { markClosed(): void } {
  let closed = false;
  let dropped = false;
  return {
    send(bytes: Uint8Array): boolean {
      if (closed) return false;
      const r = ws.send(bytes, true);
      if (r === 2) dropped = true;
      return r === 1;
    },
    bufferedAmount: () => (closed ? 0 : dropped ? Number.MAX_SAFE_INTEGER : ws.getBufferedAmount()),
    close(code: number, reason: string): void {
      if (closed) return;
      closed = true;
      try {
        // A peer that does not read will not read a close frame either: cut it at once.
        if (ws.close && (dropped || ws.getBufferedAmount() >= SOCKET_HIGH_WATER_BYTES)) ws.close();
        else ws.end(code, reason);
      } catch {
        // already closed by uWS
      }
    },
    markClosed(): void {
      closed = true;
    },
  };
}

/** A copy of a uWS message (its ArrayBuffer is only valid during the handler). */
export const uwsMessageBytes = (data: ArrayBuffer): Uint8Array => new Uint8Array(data.slice(0));

/**
 * The remote end of a uWS socket: `ip:port` when the build exposes the port (`getRemotePort`),
 * else the IP alone (uWS 20.30 has only the address text).
 */
export function uwsRemote(ws: { getRemoteAddressAsText(): ArrayBuffer; getRemotePort?(): number }): string {
  const ip = Buffer.from(ws.getRemoteAddressAsText()).toString('utf8');
  const port = ws.getRemotePort?.();
  if (port === undefined) return ip;
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}
