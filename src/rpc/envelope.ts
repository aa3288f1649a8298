/**
 * The request and response envelope of the RPC interface (interface.md §"Request and response
 * envelope", DESIGN.md decisions 1–2): turning a GET query string or a POST JSON body into one
 * `RpcRequest`, and writing the `{result, id, error}` response with 64-bit integers never rounded.
 */
import { RpcCode, RpcError } from './types.js';
import type { RpcErrorObject, RpcId as WireRpcId } from './wire.js';

export type { RpcErrorObject } from './wire.js';

/**
 * A numeric `id` the JSON parser cannot hold (an integer beyond 2^53, an exponent past the double
 * range): echoed as the caller wrote it, since JSON-RPC asks for the same value back and a caller
 * matches answers by it. 12345678901234567890 was echoed 12345678901234567000, and 1e400 null.
 */
export class IdLiteral {
  constructor(readonly text: string) {}
  toJSON(): number {
    return Number(this.text);
  }
}

/** An id as the envelope echoes it: the wire's, or the literal text of a number it would round. */
export type RpcId = WireRpcId | IdLiteral;

/** A parameter value before validation: GET gives strings (arrays for repeated `name[]` keys). */
export type RawParams = Record<string, unknown>;

/** One call, whichever way it arrived. `method` is the name as the caller wrote it. */
export interface RpcRequest {
  method: string;
  params: RawParams;
  id: RpcId;
  /** The HTTP verb it arrived with (POST-only operations refuse GET, DESIGN.md decision 2). */
  httpMethod: 'GET' | 'POST';
  /** True when `id` came from the GET query string (it may then also be an operation parameter). */
  idFromQuery: boolean;
}

/**
 * Parses a URL query string. Keys and values are URL-decoded (`+` is a space, as in HTML forms and
 * the reference's framework). A key that occurs several times keeps its first value, except keys
 * ending in `[]`, which collect every value into an array (reference-rpc-messaging.md §1.3). A bare
 * key without `=` (`?verbose`) is present with the empty string, which boolean parameters read as
 * true (DESIGN.md decision 1).
 */
export function parseQuery(query: string): RawParams {
  const out: RawParams = {};
  if (query.length === 0) return out;
  for (const part of query.split('&')) {
    if (part.length === 0) continue;
    const eq = part.indexOf('=');
    const key = decodeComponent(eq < 0 ? part : part.slice(0, eq));
    if (key.length === 0) continue;
    const value = eq < 0 ? '' : decodeComponent(part.slice(eq + 1));
    const existing = out[key];
    if (key.endsWith('[]')) {
      if (Array.isArray(existing)) existing.push(value);
      else out[key] = [value];
    } else if (existing === undefined) {
      out[key] = value;
    }
  }
  return out;
}

function decodeComponent(s: string): string {
  const spaced = s.includes('+') ? s.replace(/\+/g, ' ') : s;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    throw new RpcError(RpcCode.InvalidRequest, `Malformed percent-encoding in the query string near '${s.slice(0, 40)}'`);
  }
}

/** The operation named by a URL path: its first segment (`/status`, `/status/` → `status`); '' for `/`. */
export function operationFromPath(path: string): string {
  let start = 0;
  while (start < path.length && path.charCodeAt(start) === 47 /* / */) start++;
  const end = path.indexOf('/', start);
  const segment = end < 0 ? path.slice(start) : path.slice(start, end);
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * A URL-mode call: operation from the path, parameters from the query; `id` echoed if given. GET, or
 * a POST with an empty body (the reference reads such a POST like a GET, reference-rpc-messaging §1.2).
 */
export function requestFromQuery(operation: string, query: string, httpMethod: 'GET' | 'POST' = 'GET'): RpcRequest {
  const params = parseQuery(query);
  const rawId = params.id;
  return { method: operation, params, id: typeof rawId === 'string' ? idFromString(rawId) : null, httpMethod, idFromQuery: rawId !== undefined };
}

/**
 * A query `id` written as a JSON integer would write it (no leading zeros, sign or spaces) is echoed
 * as that number (interface.md: id is a number), digit for digit even past 2^53; any other text
 * (`007`, `+5`, `1.0`) as the string the caller sent, since a caller matches answers by its id.
 */
function idFromString(s: string): RpcId {
  if (!/^(?:0|-?[1-9]\d*)$/.test(s)) return s;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : new IdLiteral(s);
}

/**
 * A POST call with a JSON body `{method, params, id}`. The operation of the URL path is used when the
 * body has no `method`; when both are given they must name the same operation (case-insensitively).
 * Returns the request, or throws an RpcError carrying the id that could be recovered (null for
 * malformed JSON, as JSON-RPC 2.0 says).
 */
export function requestFromBody(operation: string, body: string): RpcRequest {
  let parsed: unknown;
  try {
    // A UTF-8 byte order mark (a JSON file saved by Windows Notepad, a .NET StreamWriter) is not
    // JSON text; the reference's StreamReader drops it, and so does this node.
    parsed = JSON.parse(body.charCodeAt(0) === 0xfeff ? body.slice(1) : body);
  } catch (e) {
    throw new EnvelopeError(RpcCode.ParseError, `Parse error: the request body is not valid JSON (${(e as Error).message})`, null);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new EnvelopeError(RpcCode.InvalidRequest, 'Invalid request: the body must be a JSON object {"method", "params", "id"}', null);
  }
  const obj = parsed as Record<string, unknown>;
  const id = obj.id;
  if (id !== undefined && id !== null && typeof id !== 'number' && typeof id !== 'string') {
    throw new EnvelopeError(RpcCode.InvalidRequest, "Invalid request: 'id' must be a number, a string or null", null);
  }
  const echoId: RpcId = typeof id === 'number' && !roundTrips(id) ? idLiteral(body, id) : ((id as WireRpcId | undefined) ?? null);
  const method = obj.method;
  if (method !== undefined && method !== null && typeof method !== 'string') {
    throw new EnvelopeError(RpcCode.InvalidRequest, "Invalid request: 'method' must be a string", echoId);
  }
  let name = operation;
  if (typeof method === 'string' && method.length > 0) {
    if (operation.length > 0 && operation.toLowerCase() !== method.toLowerCase()) {
      throw new EnvelopeError(
        RpcCode.InvalidRequest,
        `Invalid request: the body's method '${method}' differs from the operation '${operation}' in the URL`,
        echoId,
      );
    }
    name = method;
  }
  if (name.length === 0) {
    throw new EnvelopeError(RpcCode.InvalidRequest, "Invalid request: no method; POST to /<operation> or put 'method' in the JSON body", echoId);
  }
  const params = obj.params;
  if (params !== undefined && params !== null && (typeof params !== 'object' || Array.isArray(params))) {
    throw new EnvelopeError(RpcCode.InvalidRequest, "Invalid request: 'params' must be a JSON object of named parameters", echoId);
  }
  return { method: name, params: (params as RawParams | null | undefined) ?? {}, id: echoId, httpMethod: 'POST', idFromQuery: false };
}

/** Whether a parsed number prints back as the literal it came from (up to formatting such as 1.50). */
function roundTrips(n: number): boolean {
  return Number.isFinite(n) && (!Number.isInteger(n) || Number.isSafeInteger(n));
}

/**
 * The literal text of the top-level `id` member of a JSON object text (the last one, as JSON.parse
 * keeps the last of duplicate keys); the parsed number when it cannot be found.
 */
const NUMBER_LITERAL = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

function idLiteral(body: string, parsed: number): RpcId {
  let depth = 0;
  let found: string | undefined;
  for (let i = 0; i < body.length; ) {
    const c = body[i]!;
    if (c === '"') {
      const start = i;
      for (i++; i < body.length && body[i] !== '"'; i++) if (body[i] === '\\') i++;
      i++;
      if (depth !== 1) continue;
      let j = i;
      while (j < body.length && ' \t\r\n'.includes(body[j]!)) j++;
      if (body[j] !== ':' || JSON.parse(body.slice(start, i)) !== 'id') continue;
      for (j++; j < body.length && ' \t\r\n'.includes(body[j]!); j++);
      NUMBER_LITERAL.lastIndex = j;
      const m = NUMBER_LITERAL.exec(body);
      if (m) found = m[0];
      i = j;
    } else {
      if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') depth--;
      i++;
    }
  }
  return found !== undefined ? new IdLiteral(found) : Number.isFinite(parsed) ? parsed : null;
}

/** An envelope-level error: the request could not even be read as a call. Carries the id to echo. */
export class EnvelopeError extends RpcError {
  override name = 'EnvelopeError';
  constructor(code: number, message: string, readonly id: RpcId, httpStatus = 200) {
    super(code, message, httpStatus);
  }
}

/**
 * A result a handler already wrote as JSON text (a hot path's result built without an intermediate
 * object): `toJson` emits it as is. Nested inside another value, it serialises as the value it encodes.
 * `T` is the JSON shape the text encodes (a phantom: nothing checks it at run time); it types the
 * operation's result for the client (src/rpc/types.ts `JsonOf`).
 */
export class JsonText<T = unknown> {
  constructor(readonly json: string) {}

  toJSON(): T {
    return JSON.parse(this.json) as T;
  }
}

/**
 * Serialises a value as JSON like `JSON.stringify`, except that bigints are written as plain JSON
 * integers, never rounded (DESIGN.md decision 5; reference-rpc-messaging.md §1.4: 64-bit integers
 * may exceed 2^53). The fast path is the engine's own stringify; the recursive writer runs only
 * when a bigint is present.
 */
export function toJson(value: unknown): string {
  if (value instanceof JsonText) return value.json;
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (e) {
    if (!(e instanceof TypeError) || !/BigInt/i.test(e.message)) throw e;
    return writeJson(value, new Set()) ?? 'null';
  }
}

function writeJson(v: unknown, seen: Set<object>): string | undefined {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'bigint':
      return v.toString();
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (v === null) return 'null';
      const withToJson = v as { toJSON?: () => unknown };
      if (typeof withToJson.toJSON === 'function') return writeJson(withToJson.toJSON(), seen);
      if (seen.has(v)) throw new TypeError('Converting circular structure to JSON');
      seen.add(v);
      let out: string;
      if (Array.isArray(v)) {
        out = '[' + v.map((item) => writeJson(item, seen) ?? 'null').join(',') + ']';
      } else {
        const parts: string[] = [];
        for (const [k, item] of Object.entries(v)) {
          const s = writeJson(item, seen);
          if (s !== undefined) parts.push(JSON.stringify(k) + ':' + s);
        }
        out = '{' + parts.join(',') + '}';
      }
      seen.delete(v);
      return out;
    }
    default:
      return undefined; // undefined, function, symbol: left out, as JSON.stringify does
  }
}

/** Serialises an id for the envelope (strings quoted, numbers as given). */
function idJson(id: RpcId): string {
  if (id instanceof IdLiteral) return id.text;
  return id === null ? 'null' : typeof id === 'number' ? (Number.isFinite(id) ? String(id) : 'null') : JSON.stringify(id);
}

/** A success response: `{"result":…,"id":…,"error":null}` (member order of interface.md). */
export function successBody(resultJson: string, id: RpcId): string {
  return '{"result":' + resultJson + ',"id":' + idJson(id) + ',"error":null}';
}

/** An error response: `{"result":null,"id":…,"error":{"code":…,"message":…}}`. */
export function errorBody(error: RpcErrorObject, id: RpcId): string {
  const err: RpcErrorObject = { code: error.code, message: error.message };
  if (error.data !== undefined) err.data = error.data;
  return '{"result":null,"id":' + idJson(id) + ',"error":' + toJson(err) + '}';
}
