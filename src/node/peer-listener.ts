/**
 * The peer listener: `ws://host:p2p-port/p2p` on its own port (README "Architecture": peer traffic
 * never shares the RPC's authentication, body limits or connection budget), accepted by
 * uWebSockets.js, or by the `ws` library where the uWS binary does not load. Each accepted socket
 * becomes a link of the node's peer network; the link does the hello, the limits and the scoring.
 */
import { WebSocketServer } from 'ws';
import type { Logger } from '../log/logger.js';
import { attachWsLink, PEER_WS_PATH } from '../network/dial.js';
import { MAX_SEND_QUEUE_BYTES, type Link } from '../network/link.js';
import type { PeerNetwork } from '../network/peer-network.js';
import { MAX_FRAME_BYTES } from '../network/protocol/codes.js';
import { uwsMessageBytes, uwsPeerSocket, uwsRemote } from '../network/uws-socket.js';
import { loadUws } from '../rpc/transport-uws.js';
import { ListenError } from '../rpc/transport-api.js';

export interface PeerListener {
  readonly port: number;
  close(): void;
}

interface PeerSocketData {
  link?: Link;
  socket?: ReturnType<typeof uwsPeerSocket>;
}

export async function listenForPeers(peers: PeerNetwork, host: string, port: number, log: Logger): Promise<PeerListener> {
  const uws = loadUws();
  if (uws instanceof Error) {
    log.warn({ err: uws.message }, 'uWebSockets.js does not load here; accepting peers with the ws library');
    return listenWithWs(peers, host, port);
  }
  const app = uws.App();
  app.ws<PeerSocketData>(PEER_WS_PATH, {
    compression: 0,
    maxPayloadLength: MAX_FRAME_BYTES,
    maxBackpressure: MAX_SEND_QUEUE_BYTES + MAX_FRAME_BYTES,
    closeOnBackpressureLimit: 0,
    idleTimeout: 0, // the link's own idle timeout and pings
    sendPingsAutomatically: false,
    open: (ws) => {
      const data = ws.getUserData();
      data.socket = uwsPeerSocket(ws as never);
      data.link = peers.accept(data.socket, uwsRemote(ws as never));
    },
    message: (ws, message, isBinary) => ws.getUserData().link?.receive(isBinary ? uwsMessageBytes(message) : new Uint8Array(0)),
    drain: (ws) => ws.getUserData().link?.drained(),
    close: (ws, code, message) => {
      const data = ws.getUserData();
      data.socket?.markClosed();
      data.link?.socketClosed(code, Buffer.from(message).toString('utf8'));
    },
  });
  app.any('/*', (res) => {
    res.writeStatus('404 Not Found').end(`peers connect with a WebSocket at ${PEER_WS_PATH}`);
  });
  const token = await new Promise<unknown>((resolve) => app.listen(host, port, resolve));
  if (!token) throw new ListenError(`Cannot listen for peers on ${host}:${port}: the address is in use or cannot be bound; choose another --p2p-port`, 'EADDRINUSE');
  const bound = uws.us_socket_local_port(token as never);
  return {
    port: bound,
    close: () => {
      uws.us_listen_socket_close(token as never);
      (app as unknown as { close(): void }).close();
    },
  };
}

async function listenWithWs(peers: PeerNetwork, host: string, port: number): Promise<PeerListener> {
  const wss = new WebSocketServer({ host, port, path: PEER_WS_PATH, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    wss.once('listening', resolve);
    wss.once('error', (err) => reject(new ListenError(`Cannot listen for peers on ${host}:${port}: ${err.message}; choose another --p2p-port`, 'EADDRINUSE')));
  });
  wss.on('connection', (ws, req) => {
    const remote = `${req.socket.remoteAddress ?? ''}:${req.socket.remotePort ?? 0}`;
    attachWsLink(ws, (socket) => peers.accept(socket, remote));
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
