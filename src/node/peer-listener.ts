/**
 * The peer listener: `ws://host:p2p-port/p2p` on its own port (README "Architecture": peer traffic
 * never shares the RPC's authentication, body limits or connection budget), accepted by the `ws`
 * library. Each accepted socket becomes a link of the node's peer network; the link does the hello,
 * the limits and the scoring.
 *
 * Not uWebSockets.js, although it accepts the RPC's WebSockets: its largest message is one number
 * for every socket of a route (32 MiB here, for blocks), and it buffers a fragmented or partly
 * received message up to that size with no way for us to look at a socket's incoming bytes. So
 * 256 sockets that never said hello could make a node hold 256 × 32 MiB (h2: 60 sockets holding
 * unfinished 31 MiB messages took a relay from 140 to 715 MB in 10 s). On `ws` the listener sees
 * each socket's bytes as they arrive and cuts one that sends more than a hello's worth before its
 * hello completed (`limitBeforeHello`); a message above 32 MiB from a linked peer is stopped at
 * its announced length and scored (dial.ts `attachWsLink`).
 */
import type { Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { attachWsLink, PEER_WS_PATH } from '../network/dial.js';
import type { Link } from '../network/link.js';
import type { PeerNetwork } from '../network/peer-network.js';
import { MAX_FRAME_BYTES, MAX_FRAME_BYTES_BY_CODE, MessageCode } from '../network/protocol/codes.js';
import { ListenError } from '../rpc/transport-api.js';

export interface PeerListener {
  readonly port: number;
  close(): void;
}

/**
 * Bytes an inbound socket may send before its hello completed: the hello (at most 8 KiB) with
 * its WebSocket header, twice over for slack. An honest dialler sends nothing else before our
 * helloData (link.ts). Past it the socket is cut and scored as an oversized frame, so a socket that
 * has not said who it is makes the node hold this much at most (plus one network read).
 */
export const MAX_BYTES_BEFORE_HELLO = 2 * MAX_FRAME_BYTES_BY_CODE[MessageCode.hello];

/** `ip:port` of an accepted socket (`[v6]:port`; an IPv4-mapped IPv6 address as plain IPv4). */
export function socketRemote(address: string | undefined, port: number | undefined): string {
  const ip = (address ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  return ip.includes(':') ? `[${ip}]:${port ?? 0}` : `${ip}:${port ?? 0}`;
}

/**
 * Counts the bytes `socket` receives until `link` is open; past `maxBytes` the link is scored and
 * closed as sending an oversized frame and the socket is cut at once (a close handshake would
 * let it go on sending). Runs before `ws` reads the bytes, so nothing past the limit is buffered
 * beyond the read that crossed it. Stops counting once the hello completed.
 */
export function limitBeforeHello(socket: Socket, ws: WebSocket, link: Link, maxBytes = MAX_BYTES_BEFORE_HELLO): void {
  let received = 0;
  const onData = (chunk: Buffer): void => {
    if (link.isOpen) {
      socket.removeListener('data', onData);
      return;
    }
    received += chunk.length;
    if (received <= maxBytes) return;
    socket.removeListener('data', onData);
    link.oversized(`${received} bytes before the hello completed, at most ${maxBytes}`);
    ws.terminate();
  };
  socket.prependListener('data', onData);
}

export async function listenForPeers(peers: PeerNetwork, host: string, port: number): Promise<PeerListener> {
  const wss = new WebSocketServer({ host, port, path: PEER_WS_PATH, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    wss.once('listening', resolve);
    wss.once('error', (err) => reject(new ListenError(`Cannot listen for peers on ${host}:${port}: ${err.message}; choose another --p2p-port`, 'EADDRINUSE')));
  });
  wss.on('error', () => {
    /* after listening: errors reach the sockets, which close */
  });
  wss.on('connection', (ws, req) => {
    const remote = socketRemote(req.socket.remoteAddress, req.socket.remotePort);
    const link = attachWsLink(ws, (socket) => peers.accept(socket, remote));
    // Refused sockets too: one in its close handshake could otherwise go on sending for 30 s.
    limitBeforeHello(req.socket, ws, link);
  });
  const address = wss.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () => {
      for (const c of wss.clients) c.terminate();
      wss.close();
    },
  };
}
