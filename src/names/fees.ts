/**
 * Name-operation costs (reference-names.md §4.5; interface.md "Name system").
 * All amounts are raw CoinNumber bigints (10⁻⁸ coin).
 */
import type { NameParams } from './params.js';

/**
 * `expectedFee` of the reference: whole months of `blocks` × capacity (kB) × price per kB-month.
 * Integer months, then exact multiplication (an integer n used as a CoinNumber is n coins).
 */
export function expectedFee(blocks: bigint | number, capacityKb: number, price: bigint, monthBlocks: number): bigint {
  const b = BigInt(blocks);
  if (b <= 0n) return 0n;
  return (b / BigInt(monthBlocks)) * BigInt(capacityKb) * price;
}

/** Cost of registering for `registrationBlocks` with `capacityKb` (interface.md `registerName`). */
export const registrationCost = (registrationBlocks: number, capacityKb: number, p: NameParams): bigint =>
  expectedFee(registrationBlocks, capacityKb, p.pricePerUnit, p.monthBlocks);

/** Cost of extending a name of `capacityKb` by `extensionBlocks` (interface.md `extendName`). */
export const extensionCost = (extensionBlocks: number, capacityKb: number, p: NameParams): bigint =>
  expectedFee(extensionBlocks, capacityKb, p.pricePerUnit, p.monthBlocks);

/** Whole months left before `expiration` at `height` (0 once expired). */
export function remainingMonths(expiration: bigint, height: bigint, p: NameParams): bigint {
  return expiration > height ? (expiration - height) / BigInt(p.monthBlocks) : 0n;
}

/**
 * What the node pays for a capacity change (interface.md `updateNameCapacity`): remaining whole
 * months × the whole new capacity × price — a recalculation, not a difference.
 */
export function capacityChangeCost(expiration: bigint, height: bigint, newCapacityKb: number, p: NameParams): bigint {
  return remainingMonths(expiration, height, p) * BigInt(newCapacityKb) * p.pricePerUnit;
}

/**
 * The least first-output amount consensus accepts for a capacity change (§4.5): remaining months ×
 * the increase × price; nothing for a decrease.
 */
export function capacityChangeMinimum(
  expiration: bigint,
  height: bigint,
  oldCapacityKb: number,
  newCapacityKb: number,
  p: NameParams,
): bigint {
  if (newCapacityKb <= oldCapacityKb) return 0n;
  return remainingMonths(expiration, height, p) * BigInt(newCapacityKb - oldCapacityKb) * p.pricePerUnit;
}
