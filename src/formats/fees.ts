/**
 * Fee and amount rules of transactions (reference-formats.md §8.9, §8.11) as pure functions on
 * serialized sizes and raw CoinNumber amounts. The sizes come from the transaction codec.
 */
import { formatAmount } from './amount.js';
import { describeType } from './bytes.js';
import {
  BLOCK_VERSION_V10,
  FEE_SIZE_UNIT,
  FORCE_TRANSACTION_PRICE,
  TRANSACTION_DUST_LIMIT,
  TRANSACTION_PRICE,
  TRANSACTION_PRICE_PRE_V10,
  TransactionType,
} from './constants.js';

/**
 * Bytes the creation-time estimate adds to the unsigned size (§8.9 "Creation" step 1): 44 for a
 * checksum placeholder (v7 does not serialize one) and 512 for the signature. The real signature
 * adds 514 bytes, so the estimate is 42 bytes above the signed size; kept for identical fees.
 */
export const FEE_ESTIMATE_CHECKSUM_PLACEHOLDER = 44;
export const FEE_ESTIMATE_SIGNATURE_PLACEHOLDER = 512;

function checkSize(size: number, what: string): void {
  if (typeof size !== 'number') throw new TypeError(`${what} must be a number of bytes, got ${describeType(size)}`);
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`${what} must be a non-negative integer, got ${size}`);
}

function checkPrice(price: bigint): void {
  if (typeof price !== 'bigint') throw new TypeError(`fee per kB must be a bigint of raw units, got ${describeType(price)}`);
  if (price < 0n) throw new RangeError(`fee per kB must not be negative, got ${formatAmount(price)}`);
}

/** `transactionPrice` for the last block version (§8.9); unknown (undefined) counts as v10+. */
export function transactionPrice(blockVersion?: number): bigint {
  return blockVersion === undefined || blockVersion >= BLOCK_VERSION_V10 ? TRANSACTION_PRICE : TRANSACTION_PRICE_PRE_V10;
}

/** Number of started 1000-byte units in `size` bytes. */
export function startedKilobytes(size: number): number {
  checkSize(size, 'size');
  return Math.ceil(size / FEE_SIZE_UNIT);
}

/**
 * The validation rule (§8.9): `price × ceil(signedSize / 1000)`, `signedSize` = the full form
 * with the signature and `applied = 0`.
 * @example minimumFee(1170) // 1000000n (0.01: two started kB at 0.005)
 */
export function minimumFee(signedSize: number, pricePerKb: bigint = TRANSACTION_PRICE): bigint {
  checkPrice(pricePerKb);
  return pricePerKb * BigInt(startedKilobytes(signedSize));
}

/**
 * The creation-time estimate (§8.9 step 1) on the *unsigned* full form:
 * `feePerKb × ceil((unsignedSize + 44 + 512) / 1000)`.
 */
export function estimateFee(unsignedSize: number, feePerKb: bigint = FORCE_TRANSACTION_PRICE): bigint {
  checkSize(unsignedSize, 'unsignedSize');
  return minimumFee(unsignedSize + FEE_ESTIMATE_CHECKSUM_PLACEHOLDER + FEE_ESTIMATE_SIGNATURE_PLACEHOLDER, feePerKb);
}

/** Types that pay no fee (§8.9): PoW solutions, staking rewards, genesis. */
export function isFeeExempt(type: number): boolean {
  return type === TransactionType.PoWSolution || type === TransactionType.StakingReward || type === TransactionType.Genesis;
}

/**
 * Does the dust limit apply (§8.9)? Block v10+ (or unknown), not for PoW, staking or name types,
 * nor for the multisig wallet change and co-signature types (998, 999): their one output to the
 * wallet itself carries the payload with amount 0, which the reference builds that way (its own
 * dust check would refuse every one of them, an oversight we do not copy).
 */
export function dustLimitApplies(type: number, blockVersion?: number): boolean {
  if (blockVersion !== undefined && blockVersion < BLOCK_VERSION_V10) return false;
  return (
    type !== TransactionType.PoWSolution &&
    type !== TransactionType.StakingReward &&
    type !== TransactionType.RegName &&
    type !== TransactionType.ChangeMultisigWallet &&
    type !== TransactionType.MultisigAddTxSignature
  );
}

/**
 * May an input address also be an output (§8.11 forbids it)? Only for the multisig wallet change
 * and co-signature types, whose output is the wallet they pay the fee from (reference DLT
 * `TransactionPool.verifyTransaction` skips the check for 998 and 999).
 */
export function mayPayItself(type: number): boolean {
  return type === TransactionType.ChangeMultisigWallet || type === TransactionType.MultisigAddTxSignature;
}

/** Types allowed to move nothing (amount + fee = 0, §8.11). */
function mayBeZero(type: number): boolean {
  return (
    type === TransactionType.PoWSolution ||
    type === TransactionType.ChangeMultisigWallet ||
    type === TransactionType.MultisigAddTxSignature
  );
}

/** What `transactionAmountProblem` needs of a transaction. */
export interface AmountRuleInput {
  type: number;
  /** Transaction version; version 0 paid a flat price (§8.9). Default 7. */
  version?: number;
  inputs: readonly { amount: bigint }[];
  outputs: readonly { amount: bigint }[];
  /** Size of the signed full form with `applied = 0` (§8.9). */
  signedSize: number;
  /** Version of the last block; undefined = unknown (counts as v10+). */
  blockVersion?: number;
}

/**
 * The amount rules of §8.11 that need no wallet state: no negative amounts; Σinputs ≥ Σoutputs
 * (the fee is the difference, §8.3); something moves (amount + fee > 0) except for types 1, 998,
 * 999; every output at least the dust limit where it applies; the fee at least the size-based
 * minimum unless exempt. Returns the first rule broken as a sentence, or null when all hold.
 */
export function transactionAmountProblem(tx: AmountRuleInput): string | null {
  let totalIn = 0n;
  for (let i = 0; i < tx.inputs.length; i++) {
    const input = tx.inputs[i]!;
    if (input.amount < 0n) return `input ${i} has a negative amount ${formatAmount(input.amount)}`;
    totalIn += input.amount;
  }
  let totalOut = 0n;
  for (let i = 0; i < tx.outputs.length; i++) {
    const output = tx.outputs[i]!;
    if (output.amount < 0n) return `output ${i} has a negative amount ${formatAmount(output.amount)}`;
    totalOut += output.amount;
  }
  const fee = totalIn - totalOut;
  if (fee < 0n) {
    return `the outputs (${formatAmount(totalOut)}) exceed the inputs (${formatAmount(totalIn)})`;
  }
  if (totalIn === 0n && !mayBeZero(tx.type)) return 'the transaction moves no amount and pays no fee';
  if (dustLimitApplies(tx.type, tx.blockVersion)) {
    for (let i = 0; i < tx.outputs.length; i++) {
      const output = tx.outputs[i]!;
      if (output.amount < TRANSACTION_DUST_LIMIT) {
        return `output ${i} amount ${formatAmount(output.amount)} is below the dust limit ${formatAmount(TRANSACTION_DUST_LIMIT)}`;
      }
    }
  }
  if (!isFeeExempt(tx.type)) {
    const price = transactionPrice(tx.blockVersion);
    const required = tx.version === 0 ? price : minimumFee(tx.signedSize, price);
    if (fee < required) {
      return `the fee ${formatAmount(fee)} is below the minimum ${formatAmount(required)} for ${tx.signedSize} bytes`;
    }
  }
  return null;
}
