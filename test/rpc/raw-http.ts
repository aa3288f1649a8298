// Raw TCP exchanges with an HTTP server (node:net), for framing tests and the adversarial suites:
// what a byte-level client sees, including resets and silence, which fetch() would hide.
import { connect, type Socket } from 'node:net';

export interface RawResult {
  /** Everything the server sent, as latin1 text. */
  text: string;
  /** The server closed (FIN or reset) before the deadline. */
  closed: boolean;
  /** Socket error code seen (ECONNRESET, EPIPE), if any. */
  error: string | null;
  /** Milliseconds from connect to close or deadline. */
  ms: number;
}

export interface RawOptions {
  /** Give up (and destroy the socket) after this many ms; default 3000. */
  timeoutMs?: number;
  /** Do not read until every byte of `payload` is written (a client that writes its body first). */
  writeFirst?: boolean;
  /** Resolve as soon as this many complete responses (status lines) were read. */
  responses?: number;
}

/** Sends `payload` on a new connection to 127.0.0.1:port and collects the reply. */
export function rawExchange(port: number, payload: string | Buffer, options: RawOptions = {}): Promise<RawResult> {
  const { timeoutMs = 3000, writeFirst = false, responses } = options;
  return new Promise((resolve) => {
    const started = Date.now();
    const socket: Socket = connect(port, '127.0.0.1');
    let text = '';
    let error: string | null = null;
    let done = false;
    const finish = (closed: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closed, error, ms: Date.now() - started });
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (responses !== undefined && countResponses(text) >= responses) finish(true);
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e.code ?? e.message;
    });
    socket.on('close', () => finish(true));
    if (writeFirst) socket.pause();
    socket.write(payload, () => {
      if (writeFirst) socket.resume();
    });
  });
}

/** Complete HTTP responses in `text` whose body length is known (Content-Length), counted by status line. */
export function countResponses(text: string): number {
  return (text.match(/HTTP\/1\.[01] \d{3} /g) ?? []).length;
}

/** The status code of the first response in `text`, or 0 when none. */
export function firstStatus(text: string): number {
  const m = /^HTTP\/1\.[01] (\d{3}) /.exec(text);
  return m ? Number(m[1]) : 0;
}

/** The port of an http://host:port URL. */
export const portOf = (url: string): number => Number(new URL(url).port);
