// Mining proof of work (reference-formats.md §11): Argon2id over password = block checksum ‖
// solver address and a salt built here from the nonce, so the 234,236-byte salt never crosses
// the JS boundary. JS writes password ‖ nonce into POW_INPUT and reads the hash at argon2Output().
import { b2Update, b2UpdateFill, b2UpdateLE32 } from './blake2b';
import { argon2Begin, argon2Finish } from './argon2';

/** Length of the expanded v3 salt (§11.1 step 3). */
export const POW_SALT_LENGTH: i32 = 234236;
/** Byte that pads the nonce up to POW_SALT_LENGTH (ASCII '#'). */
const POW_SALT_FILL: u8 = 0x23;
const ARGON2ID: u32 = 2;
const VERSION_13: u32 = 0x13;
/** Capacity of the input window: password (≤ 512 bytes) ‖ nonce (≤ 512 bytes). */
export const POW_INPUT_SIZE: i32 = 1024;

const POW_INPUT: usize = memory.data(POW_INPUT_SIZE, 16);

/** Address of the input window holding password ‖ nonce. */
export function powInput(): usize {
  return POW_INPUT;
}

/**
 * Argon2id v1.3 with password = the first `passwordLen` bytes of the window and salt = the
 * following `nonceLen` bytes padded with 0x23 up to `saltLen` bytes (`saltLen` = nonceLen: no
 * padding, the historical v2–v4 form). Writes `tagLength` bytes at argon2Output(); false if the
 * memory reserved for Argon2 is too small. Lengths and costs are checked by the caller.
 */
export function powHash(passwordLen: i32, nonceLen: i32, saltLen: i32, iterations: u32, memoryKiB: u32, parallelism: u32, tagLength: u32): bool {
  argon2Begin(parallelism, tagLength, memoryKiB, iterations, VERSION_13, ARGON2ID);
  b2UpdateLE32(<u32>passwordLen);
  b2Update(POW_INPUT, passwordLen);
  b2UpdateLE32(<u32>saltLen);
  b2Update(POW_INPUT + passwordLen, nonceLen);
  b2UpdateFill(POW_SALT_FILL, saltLen - nonceLen);
  b2UpdateLE32(0); // no secret
  b2UpdateLE32(0); // no associated data
  return argon2Finish(parallelism, tagLength, memoryKiB, iterations, VERSION_13, ARGON2ID);
}
