/**
 * Errors of the consensus rules (reference-network.md §5, reference-formats.md §12). Each is a
 * RangeError (a value of the right type whose content breaks a rule) with a stable `code`, so
 * callers map them without matching message text (practice P54). Wrong argument *types* are
 * plain TypeErrors.
 */

/** Stable codes of the consensus errors. */
export type ConsensusErrorCode =
  /** SignerPowSolution bytes that do not parse (§12). */
  | 'ERR_SIGNER_POW_DECODE'
  /** Compact bits above maxTargetBits, or not a u64 (§12). */
  | 'ERR_SIGNER_POW_BITS'
  /** A hash the reference cannot turn into a difficulty (zero, or above maxTargetHash). */
  | 'ERR_SIGNER_POW_HASH'
  /** A negative difficulty (§12 difficultyToHash). */
  | 'ERR_SIGNER_POW_DIFFICULTY'
  /** A block number, count or time outside what the rule accepts. */
  | 'ERR_CONSENSUS_INPUT';

/** Base class of the consensus errors. */
export class ConsensusError extends RangeError {
  override name = 'ConsensusError';
  constructor(
    readonly code: ConsensusErrorCode,
    message: string,
  ) {
    super(message);
  }
}
