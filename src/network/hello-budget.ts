/**
 * The byte budget of a socket whose peer has not yet said who it is (h2's findings): before its
 * hello completed, a socket may send a hello's worth of bytes; past that it is cut. Applied to
 * accepted sockets (node/peer-listener.ts) and to dialled ones (dial.ts) alike, since either end
 * of a link can be the one that sends a 32 MiB message instead of its hello.
 */
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import type { Link } from './link.js';
import { MAX_FRAME_BYTES_BY_CODE, MessageCode } from './protocol/codes.js';

/**
 * Bytes a socket may receive before its hello completed: the hello (at most 8 KiB) with its
 * WebSocket header, twice over for slack. An honest peer sends nothing else before the hello
 * completes (its challenge and hello, or its helloData: link.ts). Past it the socket is cut and
 * scored as an oversized frame, so a socket that has not said who it is makes the node hold this
 * much at most (plus one network read).
 */
export const MAX_BYTES_BEFORE_HELLO = 2 * MAX_FRAME_BYTES_BY_CODE[MessageCode.hello];

/**
 * Counts the bytes `socket` receives until `link` no longer needs the budget; past `maxBytes` the
 * link is scored and closed as sending an oversized frame and the socket is cut (a close handshake
 * would let it go on sending). Counts before `ws` reads the bytes, and decides on the read that
 * crossed the limit once `ws` has parsed it (that read may begin with the hello), so nothing past
 * the limit is buffered beyond that read.
 *
 * An accepted socket is counted until its hello completed: an honest dialler sends nothing else
 * before. A dialled one only until the acceptor's helloData arrived: the acceptor's link is open
 * once it sent it, so its presence, a pushed block or a keep-alives chunk may follow in the same
 * read, while our signature check still runs (link.ts holds those bytes up to a send queue).
 */
export function limitBeforeHello(socket: Socket, ws: WebSocket, link: Link, maxBytes = MAX_BYTES_BEFORE_HELLO): void {
  const saidWhoItIs = (): boolean => link.isOpen || (link.direction === 'outbound' && link.helloArrived);
  let received = 0;
  const onData = (chunk: Buffer): void => {
    if (saidWhoItIs()) {
      socket.removeListener('data', onData);
      return;
    }
    received += chunk.length;
    if (received <= maxBytes) return;
    socket.removeListener('data', onData);
    // After ws's own 'data' listener: the hello at the start of this read has reached the link.
    process.nextTick(() => {
      if (saidWhoItIs() || link.state === 'closed') return;
      link.oversized(`${received} bytes before the hello completed, at most ${maxBytes}`);
      ws.terminate();
    });
  };
  socket.prependListener('data', onData);
}
