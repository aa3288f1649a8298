/** Errors of the chain area. */

/** A transaction broke a validation rule (reference-formats.md §8.8–§8.11); the message says which. */
export class TxRejectedError extends Error {
  override name = 'TxRejectedError';
}

/** A read of stored chain data found bytes it cannot decode (a corrupted store). */
export class StoreCorruptionError extends Error {
  override name = 'StoreCorruptionError';
}
