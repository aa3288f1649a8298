/**
 * The JSON shapes of the RPC envelope and the JSON-RPC error codes (interface.md §"Request and
 * response envelope", §Errors; DESIGN.md decisions 1–2): the one definition both the server
 * (src/rpc/envelope.ts, dispatch) and the client (src/client/) import. It imports nothing, so the
 * client loads no server code (no uWS, LMDB, Piscina or fs) by importing it.
 */

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
  /** A stored block changed on disk: not served (src/chain/chain.ts servedBlock). */
  StoreDamaged: -32006,
} as const;

/** Identifier echoed back to the caller: the POST body `id`, the GET `id` query parameter, or null. */
export type RpcId = number | string | null;

/** The error member of a response (interface.md §Errors). */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** A POST body: `{"method", "params", "id"}` with parameters by name. */
export interface RpcRequestBody {
  method: string;
  params: Record<string, unknown>;
  id: RpcId;
}

/** A response body, in the member order of interface.md: `{result, id, error}`; `result` is null on error. */
export interface RpcResponseBody<T = unknown> {
  result: T | null;
  id: RpcId;
  error: RpcErrorObject | null;
}
