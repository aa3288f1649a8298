/**
 * The shape of the one RPC method table (src/rpc/methods/index.ts). Each operation is declared once
 * here-shaped; the table drives dispatch, parameter validation, POST-only checks, the OpenRPC
 * document served by `rpc.discover`, the README operation list and the typed client.
 */
import { RpcCode } from './wire.js';

export { RpcCode } from './wire.js';

/** Parameter kinds as they arrive over GET (strings) or POST (JSON values); see DESIGN.md decision 1. */
export type ParamKind =
  | 'string'
  | 'integer' // parsed to bigint when it may exceed 2^53, else number — see `bigint` flag
  | 'boolean' // absent → false; present without value, "true" or "1" → true; "false"/"0" → false
  | 'hex' // string of hex digits, decoded to Uint8Array
  | 'string[]'; // array of strings (POST only, e.g. `records[]`)

export interface ParamDef {
  name: string;
  kind: ParamKind;
  required?: boolean;
  /** Default applied when absent (after validation). */
  default?: unknown;
  /** For `integer`: deliver a bigint instead of a number. */
  bigint?: boolean;
  /** For `integer`: inclusive bounds. */
  min?: number | bigint;
  max?: number | bigint;
  description: string;
  /**
   * Exact error message when the required parameter is missing (interface.md §Errors); default
   * `Missing parameter '<name>'`.
   */
  missingMessage?: string;
  /**
   * For `integer`: the one error message for a value that is not an integer within the bounds,
   * where the reference words it (e.g. 'Invalid algorithm was specified'); default a message
   * naming the parameter and the fault.
   */
  invalidMessage?: string;
}

export type Maturity = 'Finalized' | 'Proposed';

/**
 * One operation. The type parameters carry what the table declares into the types: `P` the
 * parameter list (its literal `name`, `kind`, `required`, `default`, `bigint`), `R` what the
 * handler returns, `N` the operation name. Declared through {@link methodFor}, a handler receives
 * {@link ParamsOf}`<P>`, the parameters as `validateParams` (src/rpc/dispatch.ts) delivers them.
 * With the defaults it is the run-time table's row type, whose handler takes parameters by name.
 */
export interface MethodDef<Ctx = unknown, P extends readonly ParamDef[] = readonly ParamDef[], R = unknown, N extends string = string> {
  /** Operation name as in interface.md (matched case-insensitively). */
  name: N;
  /** Area of interface.md (Transactions, Wallet, Name system, Mining, Utilities, Status, ...). */
  group: string;
  maturity?: Maturity;
  /** Only POST is accepted (interface.md: recoverName, updateNameCapacity, updateNameRecord, records[]). */
  postOnly?: boolean;
  summary: string;
  params: P;
  /** Human description of the result, and an optional JSON schema for the OpenRPC document. */
  result: { description: string; schema?: Record<string, unknown> };
  /** Receives validated parameters (by name) and the node modules; returns the JSON result (or a promise of it). */
  handler(params: ParamsOf<P>, ctx: Ctx): R;
  /**
   * Whether this call's reply is heavy (a page of many entries, which the handler builds in slices,
   * src/rpc/heavy.ts): heavy calls are built a few at a time, node-wide, in arrival order.
   */
  heavy?(params: ParamsOf<P>): boolean;
  /**
   * On a light node (relay, client: headers only, reference-network §1): `'same'` when the handler
   * reads no chain state, or the handler that answers from the headers, the node's own
   * transactions and masters' answers. Absent: the operation is refused there (see `forLightNode`).
   */
  light?: 'same' | LightHandler<ParamsOf<P>, Ctx, Awaited<R>>;
  /**
   * Served on client nodes only (contact messaging, whose service only a client runs): a master or
   * relay answers -32601. The docs' Relay/client column says so instead of `yes`.
   */
  clientOnly?: boolean;
}

/** A light node's handler; declared as a method so a row converts to the run-time table's type, as `handler` does. */
type LightHandler<Params, Ctx, R> = { handle(params: Params, ctx: Ctx): R | Promise<R> }['handle'];

/**
 * The operation as a light node serves it: its `light` form, or a refusal that says why and where
 * to call it instead. One table drives both kinds of node.
 */
export function forLightNode<Ctx>(def: MethodDef<Ctx>): MethodDef<Ctx> {
  if (def.light === 'same') return def;
  const light = def.light;
  if (typeof light === 'function') return { ...def, handler: light as MethodDef<Ctx>['handler'] };
  return {
    ...def,
    handler: () => {
      throw new RpcError(RpcCode.MethodNotFound, `'${def.name}' needs the chain state, which this node does not hold (relays and clients follow block headers only); call it on a master`);
    },
  };
}

/** `{ a } & { b }` shown as one object type. */
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The value `validateParams` delivers for a parameter of this definition. */
export type ParamValueOf<D extends ParamDef> = D['kind'] extends 'string'
  ? string
  : D['kind'] extends 'integer'
    ? D extends { bigint: true } ? bigint : number
    : D['kind'] extends 'boolean'
      ? boolean
      : D['kind'] extends 'hex'
        ? Uint8Array
        : D['kind'] extends 'string[]'
          ? string[]
          : unknown;

/**
 * Whether `validateParams` always delivers the parameter: it is required, it has a default, or it
 * is a boolean (absent → false).
 */
type AlwaysPresent<D extends ParamDef> = D extends { required: true }
  ? true
  : D extends { kind: 'boolean' }
    ? true
    : D extends { default: NonNullable<unknown> }
      ? true
      : false;

/**
 * The handler's parameters: one member per declared parameter, typed from its kind, optional
 * unless always present. A list whose names are not literal (a plain `ParamDef[]`) gives the
 * untyped record the dispatcher passes.
 */
export type ParamsOf<P extends readonly ParamDef[]> = string extends P[number]['name']
  ? Record<string, unknown>
  : Simplify<
      { [D in P[number] as AlwaysPresent<D> extends true ? D['name'] : never]: ParamValueOf<D> } & {
        [D in P[number] as AlwaysPresent<D> extends true ? never : D['name']]?: ParamValueOf<D>;
      }
    >;

/**
 * A parameter as a caller sends it through the client (src/client/): bigints go as decimal text,
 * bytes as hex, so a `bigint` integer takes a bigint or a number and a hex parameter takes hex
 * text or bytes.
 */
export type ClientParamValueOf<D extends ParamDef> = D['kind'] extends 'string'
  ? string
  : D['kind'] extends 'integer'
    ? D extends { bigint: true } ? bigint | number : number
    : D['kind'] extends 'boolean'
      ? boolean
      : D['kind'] extends 'hex'
        ? string | Uint8Array
        : D['kind'] extends 'string[]'
          ? readonly string[]
          : unknown;

/** What a caller sends: the required parameters, and the others optional (defaults apply on the node). */
export type ClientParamsOf<P extends readonly ParamDef[]> = string extends P[number]['name']
  ? Record<string, unknown>
  : Simplify<
      { [D in P[number] as D extends { required: true } ? D['name'] : never]: ClientParamValueOf<D> } & {
        [D in P[number] as D extends { required: true } ? never : D['name']]?: ClientParamValueOf<D>;
      }
    >;

/**
 * The JSON shape of a value after the node serialised it (src/rpc/envelope.ts `toJson`) and the
 * client parsed it (src/client/ `parseJson`): `toJSON` is applied (so a `JsonText<T>` is `T`), bigints are
 * written as JSON integers and parse as numbers within 2^53 and as bigints beyond, functions and
 * undefined members drop out.
 */
export type JsonOf<T> = T extends { toJSON(): infer J }
  ? JsonOf<J>
  : T extends bigint
    ? number | bigint
    : T extends string | number | boolean | null
      ? T
      : T extends undefined | symbol | ((...args: never[]) => unknown)
        ? never
        : T extends readonly (infer E)[]
          ? JsonOf<E>[]
          : T extends object
            ? { [K in keyof T]: JsonOf<T[K]> }
            : unknown;

/** The result of an operation as the caller receives it: the handler's value, awaited, as JSON (undefined answers null). */
export type ResultOf<R> = [Awaited<R>] extends [undefined] ? null : JsonOf<Awaited<R>>;

/** One operation of an RPC schema (as viem's `RpcSchema` entries): what the caller sends and receives. */
export interface RpcSchemaEntry {
  params: object;
  result: unknown;
}

/** The RPC schema of a method table: for each operation name, its client-side parameters and its result. */
export type RpcSchemaOf<Ms extends readonly MethodDef<never, readonly ParamDef[], unknown, string>[]> = {
  [D in Ms[number] as D['name']]: { params: ClientParamsOf<D['params']>; result: ResultOf<ReturnType<D['handler']>> };
};

/**
 * The definer of a group's operations: `const method = methodFor<Pick<NodeModules, 'chain'>>()`,
 * then `method({ name, params: [...], handler: (p, m) => … })`. It keeps the literal types of the
 * parameter list so the handler's `p` is {@link ParamsOf} it, and returns the definition unchanged.
 */
export function methodFor<Ctx>() {
  return <const N extends string, const P extends readonly ParamDef[], R>(def: MethodDef<Ctx, P, R, N>): MethodDef<Ctx, P, R, N> => def;
}

/** A parameter list declared apart from its operations, keeping its literal types (for {@link ParamsOf}). */
export const paramList = <const P extends readonly ParamDef[]>(params: P): P => params;

/** An error a handler throws to answer the caller with a JSON-RPC error. */
export class RpcError extends Error {
  override name = 'RpcError';
  constructor(
    readonly code: number,
    message: string,
    /** HTTP status of the response (200 for ordinary RPC errors, DESIGN.md decision 2). */
    readonly httpStatus = 200,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** -32602 with a message. */
export const invalidParams = (message: string, data?: unknown): RpcError =>
  new RpcError(RpcCode.InvalidParams, message, 200, data);
