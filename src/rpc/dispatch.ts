/**
 * Dispatch of one call through the method table: case-insensitive lookup, the POST-only rule,
 * parameter validation and coercion from the `ParamDef`s, the handler, and the mapping of every
 * outcome to a response body (DESIGN.md decisions 1–2; interface.md §Errors).
 */
import { errorBody, successBody, toJson, type RawParams, type RpcId, type RpcRequest } from './envelope.js';
import { RpcCode, RpcError, invalidParams, type MethodDef, type ParamDef } from './types.js';
import type { Logger } from '../log/logger.js';
import { toRpcError } from './errors.js';
import { HeavyGate } from './heavy.js';

/** Message of unexpected handler failures: safe to show (no internals), actionable (see the log). */
export const INTERNAL_ERROR_MESSAGE = 'Internal error while processing the request; the node log has the details';

/** What the transport writes back: an HTTP status and a JSON body. */
export interface RpcReply {
  status: number;
  body: string;
  /** Extra response headers (e.g. `Allow` on 405). */
  headers?: Record<string, string>;
}

/** Observer of finished calls (metrics): method name as in the table, or null when unknown. */
export type CallObserver = (method: string | null, outcome: 'ok' | 'error' | 'internal', seconds: number) => void;

export interface DispatcherOptions<Ctx> {
  methods: readonly MethodDef<Ctx>[];
  /** The context handlers receive (the node's). A function is read on every call (late binding). */
  context: Ctx | (() => Ctx);
  log: Logger;
  observe?: CallObserver;
}

/** Thrown at construction when the table is inconsistent (a programming error, never a request's). */
export class MethodTableError extends Error {
  override name = 'MethodTableError';
}

const BIGINT_2_53 = 2n ** 53n;
const notGone = (): boolean => false;
/** What a heavy call whose caller left before its turn "answers": nothing is built, nothing is written. */
const CALLER_GONE: RpcReply = { status: 499, body: '' };
const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;

export class Dispatcher<Ctx = unknown> {
  private readonly byName = new Map<string, MethodDef<Ctx>>();
  private readonly getContext: () => Ctx;
  private readonly log: Logger;
  private readonly observe: CallObserver | undefined;
  /** Calls answered since start (for the status line's req/s). */
  calls = 0;
  /** Heavy calls: a few built at a time (src/rpc/heavy.ts). */
  readonly heavy = new HeavyGate();

  constructor(opts: DispatcherOptions<Ctx>) {
    for (const def of opts.methods) {
      const key = def.name.toLowerCase();
      if (this.byName.has(key)) throw new MethodTableError(`Method '${def.name}' is declared twice in the method table`);
      checkDefinition(def);
      this.byName.set(key, def);
    }
    const ctx = opts.context;
    this.getContext = typeof ctx === 'function' ? (ctx as () => Ctx) : () => ctx;
    this.log = opts.log;
    this.observe = opts.observe;
  }

  /** The definition of an operation, matched case-insensitively; undefined when unknown. */
  lookup(name: string): MethodDef<Ctx> | undefined {
    return this.byName.get(name.toLowerCase());
  }

  /** All definitions in table order. */
  get methods(): MethodDef<Ctx>[] {
    return [...this.byName.values()];
  }

  /**
   * Answers one call. Synchronous handlers are answered synchronously (no promise on the hot
   * path); the returned value is a promise only when the handler returned one. Never throws.
   * `gone` tells whether the caller went away: a heavy call still waiting for its turn is then dropped.
   */
  dispatch(req: RpcRequest, gone: () => boolean = notGone): RpcReply | Promise<RpcReply> {
    this.calls++;
    const started = this.observe ? performance.now() : 0;
    const def = this.byName.get(req.method.toLowerCase());
    if (!def) {
      this.observe?.(null, 'error', 0);
      return rpcErrorReply(new RpcError(RpcCode.MethodNotFound, `Unknown operation '${req.method}'; rpc.discover lists the operations`), req.id);
    }
    if (def.postOnly && req.httpMethod !== 'POST') {
      this.observe?.(def.name, 'error', 0);
      return {
        status: 405,
        headers: { Allow: 'POST' },
        body: errorBody({ code: RpcCode.InvalidRequest, message: `Operation '${def.name}' accepts POST only` }, req.id),
      };
    }
    // GET `id` is echoed, but when the operation itself takes an `id` parameter it is that parameter.
    const id: RpcId = req.idFromQuery && def.params.some((p) => p.name === 'id') ? null : req.id;
    let params: Record<string, unknown>;
    try {
      params = validateParams(def, req.params);
      // A heavy reply waits for its turn (src/rpc/heavy.ts) and is built then.
      if (def.heavy?.(params)) return this.heavy.run(() => (gone() ? CALLER_GONE : this.invoke(def, params, id, started)));
    } catch (e) {
      return this.failure(def, e, id, started);
    }
    return this.invoke(def, params, id, started);
  }

  private invoke(def: MethodDef<Ctx>, params: Record<string, unknown>, id: RpcId, started: number): RpcReply | Promise<RpcReply> {
    let result: unknown;
    try {
      result = def.handler(params, this.getContext());
    } catch (e) {
      return this.failure(def, e, id, started);
    }
    if (result instanceof Promise) {
      return result.then(
        (value) => this.success(def, value, id, started),
        (e: unknown) => this.failure(def, e, id, started),
      );
    }
    return this.success(def, result, id, started);
  }

  private success(def: MethodDef<Ctx>, value: unknown, id: RpcId, started: number): RpcReply {
    let json: string;
    try {
      json = toJson(value === undefined ? null : value);
    } catch (e) {
      return this.failure(def, e, id, started);
    }
    this.observe?.(def.name, 'ok', (performance.now() - started) / 1000);
    return { status: 200, body: successBody(json, id) };
  }

  private failure(def: MethodDef<Ctx>, e: unknown, id: RpcId, started: number): RpcReply {
    const seconds = this.observe ? (performance.now() - started) / 1000 : 0;
    const rpcError = toRpcError(e);
    if (rpcError) {
      this.observe?.(def.name, 'error', seconds);
      return rpcErrorReply(rpcError, id);
    }
    this.observe?.(def.name, 'internal', seconds);
    this.log.error({ err: e, method: def.name }, 'RPC handler failed');
    return { status: 200, body: errorBody({ code: RpcCode.InternalError, message: INTERNAL_ERROR_MESSAGE }, id) };
  }
}

/** The reply for an RpcError: its HTTP status (200 for ordinary errors) and the JSON error. */
export function rpcErrorReply(e: RpcError, id: RpcId): RpcReply {
  return { status: e.httpStatus, body: errorBody({ code: e.code, message: e.message, data: e.data }, id) };
}

function checkDefinition(def: MethodDef<unknown>): void {
  if (typeof def.handler !== 'function') throw new MethodTableError(`Method '${def.name}' has no handler`);
  if (!def.summary || !def.result?.description) throw new MethodTableError(`Method '${def.name}' lacks a summary or a result description`);
  const seen = new Set<string>();
  for (const p of def.params) {
    if (seen.has(p.name)) throw new MethodTableError(`Method '${def.name}' declares parameter '${p.name}' twice`);
    seen.add(p.name);
    if (!p.description) throw new MethodTableError(`Parameter '${p.name}' of '${def.name}' has no description`);
  }
}

/**
 * Validates and coerces the raw parameters of a call against the definition. Unknown parameters are
 * ignored (as the reference does); `null` counts as absent. Throws -32602 naming the parameter.
 */
export function validateParams(def: MethodDef<unknown>, raw: RawParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of def.params) {
    let value = raw[p.name];
    // `records[]` may also be sent as `records` in a JSON body.
    if (value === undefined && p.kind === 'string[]' && p.name.endsWith('[]')) value = raw[p.name.slice(0, -2)];
    if (value === undefined || value === null) {
      if (p.required) throw invalidParams(p.missingMessage ?? `Missing parameter '${p.name}'`);
      if (p.default !== undefined) out[p.name] = p.default;
      else if (p.kind === 'boolean') out[p.name] = false;
      continue;
    }
    out[p.name] = coerce(p, value);
  }
  return out;
}

/** One value to its kind (DESIGN.md decision 1: JSON strings, or JSON numbers/booleans of the right kind). */
export function coerce(p: ParamDef, value: unknown): unknown {
  // A GET key repeated without `[]` keeps its first value; arrays are only for string[].
  if (Array.isArray(value) && p.kind !== 'string[]') throw invalidParams(`Parameter '${p.name}' must be a single value, not a list`);
  switch (p.kind) {
    case 'string':
      if (typeof value !== 'string') throw invalidParams(`Parameter '${p.name}' must be a string`);
      return value;
    case 'integer':
      return coerceInteger(p, value);
    case 'boolean':
      return coerceBoolean(p, value);
    case 'hex':
      return hexBytes(p, value);
    case 'string[]': {
      const list = typeof value === 'string' ? [value] : value;
      if (!Array.isArray(list) || !list.every((x) => typeof x === 'string')) {
        throw invalidParams(`Parameter '${p.name}' must be a list of strings`);
      }
      return list;
    }
  }
}

/**
 * Hex text to bytes without a regex over the whole (often kilobytes long) text: Node's hex decoder
 * stops at the first pair that is not two hex digits, so a full-length result proves the charset.
 */
function hexBytes(p: ParamDef, value: unknown): Uint8Array {
  if (typeof value === 'string' && value.length % 2 === 0) {
    const bytes = Buffer.from(value, 'hex');
    // A plain Uint8Array view of the decoded bytes (no copy).
    if (bytes.length * 2 === value.length) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  }
  // Name the actual fault: "even number" alone misleads for an even-length non-hex value like 'zz'.
  if (typeof value === 'string' && /^[0-9a-fA-F]*$/.test(value)) throw invalidParams(`Parameter '${p.name}' must be an even number of hex digits`);
  throw invalidParams(`Parameter '${p.name}' must be hex digits (0-9, a-f), an even number of them`);
}

function coerceInteger(p: ParamDef, value: unknown): number | bigint {
  const fail = (message: string) => invalidParams(p.invalidMessage ?? message);
  let n: bigint;
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw fail(`Parameter '${p.name}' must be an integer`);
    // A JSON number past 2^53 was already rounded by the JSON parser: refuse it rather than guess.
    if (!Number.isSafeInteger(value)) throw fail(`Parameter '${p.name}' exceeds 2^53 as a JSON number; send it as a decimal string`);
    n = BigInt(value);
  } else if (typeof value === 'string' && INTEGER_TEXT.test(value)) {
    n = BigInt(value.trim());
  } else {
    throw fail(`Parameter '${p.name}' must be a decimal integer`);
  }
  if (p.min !== undefined && n < BigInt(p.min)) throw fail(`Parameter '${p.name}' must be at least ${p.min}`);
  if (p.max !== undefined && n > BigInt(p.max)) throw fail(`Parameter '${p.name}' must be at most ${p.max}`);
  if (p.bigint) return n;
  if (n >= BIGINT_2_53 || n <= -BIGINT_2_53) throw fail(`Parameter '${p.name}' is out of range`);
  return Number(n);
}

function coerceBoolean(p: ParamDef, value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === 0) return value === 1;
  if (typeof value === 'string') {
    const v = value.toLowerCase();
    if (v === '' || v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
  }
  throw invalidParams(`Parameter '${p.name}' must be true, false, 1 or 0`);
}
