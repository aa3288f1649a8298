// Result codes and field names of the codec, exported as WASM globals: the JS wrapper builds its
// code → name tables from these exports, so the two sides cannot drift apart.

export const OK: i32 = 0;
/** The bytes end inside a field. */
export const ERR_TRUNCATED: i32 = 1;
/** More than MAX_TX_SIZE bytes (§8.2). */
export const ERR_OVERSIZED: i32 = 2;
/** A varint with the reserved prefix 0xFB or 0xFF (§4). */
export const ERR_BAD_VARINT: i32 = 3;
/** A negative-form varint (0xF8–0xFA) where the field is unsigned (§4 reader rules). */
export const ERR_NEGATIVE_VARINT: i32 = 4;
/** A value outside its field's range (32-bit version/type/nonce, an overlong amount, a count beyond the bytes left). */
export const ERR_OUT_OF_RANGE: i32 = 5;
/** An amount of length 0 (§5, Δ2026). */
export const ERR_EMPTY_AMOUNT: i32 = 6;
/** A fromList key that is neither `[0x00]` nor 16 bytes (§8.3). */
export const ERR_BAD_INPUT_KEY: i32 = 7;
/** A toList address that is not an addressNoChecksum: 33 bytes version 0, or 45 bytes version 1/2 (§7.1, §8.4). */
export const ERR_BAD_ADDRESS: i32 = 8;
/** The same key twice in fromList (§8.3). */
export const ERR_DUPLICATE_INPUT: i32 = 9;
/** The same address twice in toList (§8.3). */
export const ERR_DUPLICATE_OUTPUT: i32 = 10;
/** Bytes left after the last field. */
export const ERR_TRAILING_BYTES: i32 = 11;
/** Batch: the lengths do not fit the input window or the batch is larger than MAX_BATCH. */
export const ERR_BAD_BATCH: i32 = 12;

// Fields (rows of §8.4), named in errors.
export const FIELD_VERSION: i32 = 1;
export const FIELD_TYPE: i32 = 2;
export const FIELD_BLOCK_HEIGHT: i32 = 3;
export const FIELD_INPUT_COUNT: i32 = 4;
export const FIELD_INPUT_KEY: i32 = 5;
export const FIELD_INPUT_AMOUNT: i32 = 6;
export const FIELD_INPUT_RESERVED: i32 = 7;
export const FIELD_OUTPUT_COUNT: i32 = 8;
export const FIELD_OUTPUT_ADDRESS: i32 = 9;
export const FIELD_OUTPUT_AMOUNT: i32 = 10;
export const FIELD_OUTPUT_DATA_CHECKSUM: i32 = 11;
export const FIELD_OUTPUT_DATA: i32 = 12;
export const FIELD_NONCE: i32 = 13;
export const FIELD_PUBKEY: i32 = 14;
export const FIELD_SIGNATURE: i32 = 15;
export const FIELD_APPLIED: i32 = 16;
export const FIELD_TIMESTAMP: i32 = 17;
export const FIELD_END: i32 = 18;
