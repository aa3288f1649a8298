/**
 * The one table from domain error codes to JSON-RPC errors (practice P54; reshape-for-peers §3
 * P4): the dispatcher maps whatever a handler throws through `toRpcError`, so handlers throw domain
 * errors and the exact interface.md texts live here once.
 */
import { BlockError, StoredBlockDamagedError, TxError, TxErrorCode } from '../chain/errors.js';
import { NameCodecError } from '../names/reader.js';
import { NameRuleError } from '../names/rules.js';
import { PoolBusyError } from '../pool/errors.js';
import { RpcCode, RpcError } from './types.js';

/** JSON-RPC code of each transaction error code (interface.md §Errors: -32001 'Balance is too low'). */
const TX_RPC_CODE: Record<TxErrorCode, number> = {
  TX_BALANCE_TOO_LOW: RpcCode.InsufficientFunds,
  TX_ALREADY_PENDING: RpcCode.InvalidParams,
  TX_ALREADY_APPLIED: RpcCode.InvalidParams,
  TX_BAD_SIGNATURE: RpcCode.InvalidParams,
  TX_POOL_FULL: RpcCode.ServerBusy,
  TX_INVALID: RpcCode.InvalidParams,
  TX_UNKNOWN_SIGNER: RpcCode.InvalidParams,
  TX_AHEAD_OF_TIP: RpcCode.InvalidParams,
  TX_TYPE_RULE: RpcCode.InvalidParams,
  TX_BAD_PAYMENT: RpcCode.InvalidParams,
  TX_FEE_UNSETTLED: RpcCode.InternalError,
  TX_NOT_READY: RpcCode.InvalidParams,
  TX_PENDING_CONFLICT: RpcCode.InvalidParams,
};

/** The RPC error for a domain error, or null when `err` is not one (an internal failure). */
export function toRpcError(err: unknown): RpcError | null {
  if (err instanceof RpcError) return err;
  if (err instanceof TxError) return new RpcError(TX_RPC_CODE[err.code], err.message);
  if (err instanceof BlockError) return new RpcError(RpcCode.InvalidParams, err.message);
  // The node's own store is at fault, not the caller: its own code, the message says what to do.
  if (err instanceof StoredBlockDamagedError) return new RpcError(RpcCode.StoreDamaged, err.message);
  if (err instanceof PoolBusyError) return new RpcError(RpcCode.ServerBusy, err.message);
  // A name operation that breaks a rule of reference-names (the message names the rule).
  if (err instanceof NameRuleError || err instanceof NameCodecError) return new RpcError(RpcCode.InvalidParams, err.message);
  return null;
}

/**
 * A transaction refused on submission: `Balance is too low` exactly (interface.md), anything else
 * as "The <what> was rejected: <reason>" with the code of the table.
 */
export function submissionError(err: TxError, what = 'transaction'): RpcError {
  if (err.code === TxErrorCode.BalanceTooLow) return new RpcError(RpcCode.InsufficientFunds, err.message);
  return new RpcError(TX_RPC_CODE[err.code], `The ${what} was rejected: ${err.message}`);
}
