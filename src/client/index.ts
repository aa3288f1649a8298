/**
 * Typed client of the node's RPC (practice P55, modelled on viem's HTTP transport and `RpcSchema`):
 * one method per operation of the method table, JSON POST to `/<operation>`, rich errors. Every
 * call's parameters and result are typed by {@link NodeRpcSchema}, derived from the one method
 * table; a wrong parameter type or an unknown parameter does not compile.
 *
 * It loads no server code (no uWS, LMDB, Piscina or `fs`): it imports only the envelope's shared
 * shapes (src/rpc/wire.ts) and the generated operation list (./operations.ts); the schema is a
 * type-only import of ./schema.ts, generated from the table, so its declarations load none of the
 * server's either. It runs wherever `fetch` does (Node ≥ 20, browsers).
 *
 * @example
 *   import { createClient } from 'dltnode/client';
 *   const client = createClient({ url: 'http://127.0.0.1:8081' });
 *   const status = await client.status({ verbose: true }); // status['Block Height']: number
 */
import type { NodeRpcSchema } from './schema.js';
import type { RpcSchemaEntry } from '../rpc/types.js';
import type { RpcRequestBody, RpcResponseBody } from '../rpc/wire.js';
import { CLIENT_VERSION, OPERATIONS } from './operations.js';

export { RpcCode, type RpcErrorObject, type RpcId } from '../rpc/wire.js';
export { CLIENT_VERSION, OPERATIONS } from './operations.js';
export type { NodeRpcSchema } from './schema.js';

/** An operation name of the node's table that is a JavaScript identifier (`rpc.discover` goes through `call`). */
export type OperationName = (typeof OPERATIONS)[number];

/** A schema: for each operation name, what the caller sends and receives (viem's `RpcSchema`). */
export type RpcSchema = Record<string, RpcSchemaEntry>;

/** Parameter values of an untyped call: strings, numbers, booleans, bigints (sent as decimal strings), bytes (sent as hex), string lists. */
export type ParamValue = string | number | boolean | bigint | Uint8Array | readonly string[] | null | undefined;
export type CallParams = Record<string, ParamValue>;

/** The arguments of a call: its parameters, which may be left out when none is required. */
export type CallArgs<E extends RpcSchemaEntry> = {} extends E['params'] ? [params?: E['params']] : [params: E['params']];

export interface ClientOptions {
  /** Base URL of the node, e.g. `http://127.0.0.1:8081`. */
  url: string;
  /** HTTP Basic credentials of an --rpc-user. */
  auth?: { user: string; password: string };
  /** Per-call timeout in milliseconds (default 30 000). */
  timeoutMs?: number;
  /** fetch implementation (default: global fetch). */
  fetch?: typeof fetch;
}

/** Default per-call timeout: long enough for a PoW verification behind a busy pool. */
export const DEFAULT_CLIENT_TIMEOUT_MS = 30_000;

/**
 * What made a call fail, for a program to branch on:
 * - `rpc`: the node answered with a JSON-RPC error (`code` is the node's, e.g. -32602, -32001);
 * - `network`: no connection (the node is down or restarting) or it broke before the answer was read;
 * - `timeout`: no whole answer within `timeoutMs` (the node may still have run the call);
 * - `http`: the answer was not JSON (e.g. a proxy's error page; `httpStatus` says which).
 * The last three have `code` 0.
 */
export type RpcClientErrorKind = 'rpc' | 'network' | 'timeout' | 'http';

/** A failed call: the JSON-RPC error of the node, or a transport failure (code 0 then); `kind` says which. */
export class RpcClientError extends Error {
  override name = 'RpcClientError';
  readonly kind: RpcClientErrorKind;
  constructor(
    message: string,
    readonly code: number,
    readonly method: string,
    readonly url: string,
    readonly httpStatus: number | undefined,
    readonly data?: unknown,
    options?: { cause?: unknown; kind?: RpcClientErrorKind },
  ) {
    super(`${message}\n  method: ${method}\n  url: ${url}${httpStatus ? `\n  http status: ${httpStatus}` : ''}\n  client: dltnode ${CLIENT_VERSION}`, options);
    this.kind = options?.kind ?? 'rpc';
  }
  /** The node's message alone. */
  get shortMessage(): string {
    return this.message.split('\n')[0]!;
  }
}

/**
 * The client: `call(name, params)` for any operation (typed when the schema knows the name), and
 * one method per operation of the table.
 */
export type RpcClient<S extends RpcSchema = NodeRpcSchema> = {
  /** Calls an operation by name: typed for the schema's operations, untyped for any other name. */
  call<N extends string>(
    method: N,
    ...args: N extends keyof S ? CallArgs<S[N]> : [params?: CallParams]
  ): Promise<N extends keyof S ? S[N]['result'] : unknown>;
} & {
  [K in OperationName]: K extends keyof S ? (...args: CallArgs<S[K]>) => Promise<S[K]['result']> : (params?: CallParams) => Promise<unknown>;
};

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function toHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]!];
  return out;
}

/** Base64 of the UTF-8 bytes of a text (HTTP Basic credentials), without Node's Buffer. */
function base64Utf8(text: string): string {
  let binary = '';
  for (const b of new TextEncoder().encode(text)) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** Parameters as JSON values: bigints as decimal text, bytes as hex, undefined left out. */
function wireParams(params: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    out[k] = typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? toHex(v) : v;
  }
  return out;
}

/**
 * `JSON.parse`, except that an integer the node wrote beyond 2^53 (a u64 such as getMiningBlock's
 * `dif`, reference-rpc-messaging.md §1.4) becomes a bigint instead of being rounded to the nearest
 * double: a rounded difficulty or amount is another value, and handed back to the node as a number
 * it is refused ("exceeds 2^53 as a JSON number"). Integers within 2^53 stay numbers. The fast path
 * is the engine's parser; the rewrite runs only when the text holds a run of 16 or more digits.
 */
export function parseJson(text: string): unknown {
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  // Each unsafe integer literal outside strings becomes a marked string, revived as a bigint. The
  // mark starts with U+0000 and is lengthened until no string of the text can hold it.
  let mark = '\\u0000n';
  while (text.includes(mark)) mark += 'n';
  const prefix = JSON.parse(`"${mark}"`) as string;
  let out = '';
  let copied = 0;
  let marked = false;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < text.length && text.charCodeAt(i) !== 34; i++) if (text.charCodeAt(i) === 92 /* \\ */) i++;
      i++;
    } else if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      const start = i;
      for (i++; i < text.length && /[0-9.eE+-]/.test(text[i]!); i++);
      const literal = text.slice(start, i);
      if (/^-?\d+$/.test(literal) && !Number.isSafeInteger(Number(literal))) {
        out += text.slice(copied, start) + `"${mark}${literal}"`;
        copied = i;
        marked = true;
      }
    } else i++;
  }
  if (!marked) return JSON.parse(text);
  return JSON.parse(out + text.slice(copied), (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(prefix) ? BigInt(value.slice(prefix.length)) : value,
  );
}

export function createClient<S extends RpcSchema = NodeRpcSchema>(opts: ClientOptions): RpcClient<S> {
  const base = opts.url.replace(/\/+$/, '');
  const doFetch = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_CLIENT_TIMEOUT_MS;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.auth) headers.authorization = 'Basic ' + base64Utf8(`${opts.auth.user}:${opts.auth.password}`);
  let nextId = 1;

  async function call(method: string, params: object = {}): Promise<unknown> {
    const url = `${base}/${encodeURIComponent(method)}`;
    const request: RpcRequestBody = { method, params: wireParams(params), id: nextId++ };
    let res: Response | undefined;
    let text: string;
    try {
      res = await doFetch(url, { method: 'POST', headers, body: JSON.stringify(request), signal: AbortSignal.timeout(timeoutMs) });
      // Inside the try: the timeout also covers the body, and a body cut off is a transport failure too.
      text = await res.text();
    } catch (e) {
      const timedOut = (e as Error).name === 'TimeoutError';
      const reason = timedOut
        ? `no answer within ${timeoutMs} ms`
        : res
          ? `the connection broke while reading the answer (${(e as Error).message})`
          : `cannot reach the node (${(e as Error).message})`;
      throw new RpcClientError(reason, 0, method, url, res?.status, undefined, { cause: e, kind: timedOut ? 'timeout' : 'network' });
    }
    let body: Partial<RpcResponseBody>;
    try {
      body = parseJson(text) as Partial<RpcResponseBody>;
    } catch (e) {
      throw new RpcClientError(`the node answered HTTP ${res.status} with a body that is not JSON`, 0, method, url, res.status, text.slice(0, 200), { cause: e, kind: 'http' });
    }
    if (body.error) throw new RpcClientError(body.error.message, body.error.code, method, url, res.status, body.error.data);
    return body.result;
  }

  const client: Record<string, unknown> = { call };
  for (const name of OPERATIONS as readonly string[]) client[name] = (params?: object) => call(name, params);
  return client as RpcClient<S>;
}
