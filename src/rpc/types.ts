/**
 * The shape of the one RPC method table (src/rpc/methods/index.ts). Each operation is declared once
 * here-shaped; the table drives dispatch, parameter validation, POST-only checks, the OpenRPC
 * document served by `rpc.discover`, the README operation list and the typed client.
 */

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
}

export type Maturity = 'Finalized' | 'Proposed';

export interface MethodDef<Ctx = unknown> {
  /** Operation name as in interface.md (matched case-insensitively). */
  name: string;
  /** Area of interface.md (Transactions, Wallet, Name system, Mining, Utilities, Status, ...). */
  group: string;
  maturity?: Maturity;
  /** Only POST is accepted (interface.md: recoverName, updateNameCapacity, updateNameRecord, records[]). */
  postOnly?: boolean;
  summary: string;
  params: ParamDef[];
  /** Human description of the result, and an optional JSON schema for the OpenRPC document. */
  result: { description: string; schema?: Record<string, unknown> };
  /** Receives validated parameters (by name) and the node context; returns the JSON result. */
  handler(params: Record<string, unknown>, ctx: Ctx): unknown | Promise<unknown>;
}

/** JSON-RPC error codes used by the node (interface.md §Errors, JSON-RPC 2.0, DESIGN.md decision 2). */
export const RpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** interface.md: 'Balance is too low'. */
  InsufficientFunds: -32001,
  /** The PoW pool queue is full; retry later. */
  ServerBusy: -32005,
} as const;

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
