/**
 * Consensus constants of the name system (reference-names.md §4.5, §5.3, §5.6; interface.md
 * §Limits). They travel as one {@link NameParams} object so a `reg` node can scale the month and
 * the grace period down (NodeOptions `nameMonthBlocks`/`nameGraceBlocks`); `main` and `test`
 * always use the consensus values.
 */
import type { Network } from '../codec/types.js';
import {
  RN_GRACE_PERIOD_BLOCKS,
  RN_MAX_NAME_LENGTH,
  RN_MAX_RECORD_KEY_LENGTH,
  RN_MAX_REGISTRATION_BLOCKS,
  RN_MAX_SUBNAME_LEVELS,
  RN_MIN_CAPACITY_KB,
  RN_MIN_REGISTRATION_BLOCKS,
  RN_MONTH_IN_BLOCKS,
  RN_PRICE_PER_UNIT,
  SUPERBLOCK_INTERVAL,
} from '../formats/constants.js';

/** Registrations last at least this many months (`rnMinRegistrationTimeInBlocks` / `rnMonthInBlocks`). */
const MIN_REGISTRATION_MONTHS = RN_MIN_REGISTRATION_BLOCKS / RN_MONTH_IN_BLOCKS;
/** Bytes of record storage per kB of capacity. */
export const BYTES_PER_KB = 1024;
export {
  RN_MAX_NAME_LENGTH as MAX_NAME_ID_LENGTH,
  RN_MAX_RECORD_KEY_LENGTH as MAX_RECORD_KEY_LENGTH,
  RN_MAX_SUBNAME_LEVELS as MAX_SUBNAME_LEVELS,
  SUPERBLOCK_INTERVAL,
};

export interface NameParams {
  monthBlocks: number;
  gracePeriodBlocks: number;
  minRegistrationBlocks: number;
  maxRegistrationBlocks: number;
  minCapacityKb: number;
  /** Raw CoinNumber per kB per month. */
  pricePerUnit: bigint;
}

/** The consensus values (main and test networks). */
export const CONSENSUS_NAME_PARAMS: Readonly<NameParams> = Object.freeze({
  monthBlocks: RN_MONTH_IN_BLOCKS,
  gracePeriodBlocks: RN_GRACE_PERIOD_BLOCKS,
  minRegistrationBlocks: RN_MIN_REGISTRATION_BLOCKS,
  maxRegistrationBlocks: RN_MAX_REGISTRATION_BLOCKS,
  minCapacityKb: RN_MIN_CAPACITY_KB,
  pricePerUnit: RN_PRICE_PER_UNIT,
});

/**
 * Name parameters of a network. On `reg`, `monthBlocks` (and optionally `graceBlocks`) scale the
 * time constants proportionally: min registration = 6 months, max registration = the consensus
 * 24⅓ months, grace = 1½ months unless given.
 * @throws RangeError when a scaled value is not a positive safe integer.
 */
export function nameParamsFor(
  network: Network,
  scale: { nameMonthBlocks?: number; nameGraceBlocks?: number } = {},
): NameParams {
  if (network !== 'reg' || (scale.nameMonthBlocks === undefined && scale.nameGraceBlocks === undefined)) {
    return { ...CONSENSUS_NAME_PARAMS };
  }
  const month = scale.nameMonthBlocks ?? RN_MONTH_IN_BLOCKS;
  if (!Number.isSafeInteger(month) || month < 1) {
    throw new RangeError(`nameMonthBlocks: expected a positive integer, got ${month}`);
  }
  const grace = scale.nameGraceBlocks ?? Math.floor((RN_GRACE_PERIOD_BLOCKS * month) / RN_MONTH_IN_BLOCKS);
  if (!Number.isSafeInteger(grace) || grace < 0) {
    throw new RangeError(`nameGraceBlocks: expected a non-negative integer, got ${grace}`);
  }
  return {
    monthBlocks: month,
    gracePeriodBlocks: grace,
    minRegistrationBlocks: MIN_REGISTRATION_MONTHS * month,
    maxRegistrationBlocks: Math.floor((RN_MAX_REGISTRATION_BLOCKS * month) / RN_MONTH_IN_BLOCKS),
    minCapacityKb: RN_MIN_CAPACITY_KB,
    pricePerUnit: RN_PRICE_PER_UNIT,
  };
}
