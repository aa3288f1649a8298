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
 * hello completed (network/hello-budget.ts); a message above 32 MiB from a linked peer is stopped at
 * its announced length and scored (dial.ts `attachWsLink`).
 */
import { createServer, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import { attachWsLink, PEER_WS_PATH } from '../network/dial.js';
import type { PeerNetwork } from '../network/peer-network.js';
import { limitBeforeHello } from '../network/hello-budget.js';
import { MAX_FRAME_BYTES } from '../network/protocol/codes.js';
import { ListenError } from '../rpc/transport-api.js';

export interface PeerListener {
  readonly port: number;
  close(): void;
}

/** `ip:port` of an accepted socket (`[v6]:port`; an IPv4-mapped IPv6 address as plain IPv4). */
export function socketRemote(address: string | undefined, port: number | undefined): string {
  const ip = (address ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  return ip.includes(':') ? `[${ip}]:${port ?? 0}` : `${ip}:${port ?? 0}`;
}

export async function listenForPeers(peers: PeerNetwork, host: string, port: number): Promise<PeerListener> {
  // Our own HTTP server (not ws's) so each socket's remote address is read when TCP accepts it.
  // By the time its upgrade is handled the socket may have lost it: a node resumed after SIGSTOP
  // handles sockets whose peers gave up meanwhile, and they named their remote ":0" (§9 "Network
  // Clients" lists the remote ip:port seen on the socket).
  const server = createServer((_req, res) => {
    const body = STATUS_CODES[426]!;
    res.writeHead(426, { 'Content-Length': body.length, 'Content-Type': 'text/plain' });
    res.end(body);
  });
  const acceptedRemotes = new WeakMap<Socket, string>();
  server.on('connection', (socket: Socket) => acceptedRemotes.set(socket, socketRemote(socket.remoteAddress, socket.remotePort)));
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', (err) => reject(new ListenError(`Cannot listen for peers on ${host}:${port}: ${err.message}; choose another --p2p-port`, 'EADDRINUSE')));
    server.listen(port, host);
  });
  server.on('error', () => {
    /* after listening: errors reach the sockets, which close */
  });
  const wss = new WebSocketServer({ server, path: PEER_WS_PATH, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false });
  wss.on('error', () => {
    /* the server's errors, forwarded: handled above */
  });
  wss.on('connection', (ws, req) => {
    const remote = acceptedRemotes.get(req.socket) ?? socketRemote(req.socket.remoteAddress, req.socket.remotePort);
    const link = attachWsLink(ws, (socket) => peers.accept(socket, remote));
    // Refused sockets too: one in its close handshake could otherwise go on sending for 30 s.
    limitBeforeHello(req.socket, ws, link);
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () => {
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.close();
      server.closeAllConnections();
    },
  };
}
