// Memory of the codec program (practice B7): fixed windows reserved once, when the instance starts
// (from the stub runtime's heap, in the start function), so no call allocates, memory never grows
// afterwards and JS views built once stay valid. Sizes follow from the 512,000-byte transaction
// limit (reference-formats §8.2) and are exported, so the JS wrapper reads them from here.

/** Largest serialized transaction, and the capacity of the input window (§8.2). */
export const MAX_TX_SIZE: i32 = 512000;
/** Longest accepted checksum lock (the network locks are 5–7 bytes; custom locks are UTF-8 text). */
export const MAX_LOCK_SIZE: i32 = 64;
/** Most transactions per batch call; bounds the per-transaction result windows. */
export const MAX_BATCH: i32 = 4096;
/** Longest accepted amount byte form, as in src/formats/amount.ts MAX_AMOUNT_BYTES. */
export const MAX_AMOUNT_BYTES: i32 = 64;
/** Length of the v7 transaction checksum (§8.5). */
export const CHECKSUM_SIZE: i32 = 44;

// ---- The field table: one record per transaction, u32 words (8-byte aligned records) ----
// Header words. Offsets of byte fields are relative to the start of the transaction's bytes.
export const H_STATUS: i32 = 0; // 0 = valid, else an ERR_* code
export const H_ERROR_OFFSET: i32 = 1; // byte offset of the field that failed
export const H_ERROR_FIELD: i32 = 2; // FIELD_* of the failing field
export const H_ERROR_INDEX: i32 = 3; // entry index within fromList/toList, else 0
export const H_VERSION: i32 = 4;
export const H_TYPE: i32 = 5; // i32
export const H_NONCE: i32 = 6; // i32
export const H_INPUT_COUNT: i32 = 7;
export const H_OUTPUT_COUNT: i32 = 8;
export const H_PUBKEY_OFFSET: i32 = 9;
export const H_PUBKEY_LENGTH: i32 = 10; // 0 = absent
export const H_SIGNATURE_OFFSET: i32 = 11;
export const H_SIGNATURE_LENGTH: i32 = 12; // 0 = absent
export const H_SIGNED_SIZE: i32 = 13; // canonical full form with applied = 0 (the fee size, §8.9)
export const H_HAS_TIMESTAMP: i32 = 14; // 1 when version < 7 (row 10 of §8.4)
export const H_BLOCK_HEIGHT: i32 = 16; // u64 in words 16–17
export const H_APPLIED: i32 = 18; // u64 in words 18–19
export const H_TIMESTAMP: i32 = 20; // i64 in words 20–21
export const HEADER_WORDS: i32 = 22;

// One fromList entry.
export const I_KEY_OFFSET: i32 = 0;
export const I_KEY_LENGTH: i32 = 1;
export const I_AMOUNT_OFFSET: i32 = 2; // the minimal two's-complement bytes (a prefix of the wire bytes)
export const I_AMOUNT_LENGTH: i32 = 3;
export const I_AMOUNT_FITS: i32 = 4; // 1 when the minimal form has ≤ 8 bytes: the value is in I_AMOUNT_VALUE
export const I_AMOUNT_VALUE: i32 = 6; // i64 in words 6–7
export const INPUT_WORDS: i32 = 8;

// One toList entry (amount words at the same places as in an input entry).
export const O_ADDRESS_OFFSET: i32 = 0;
export const O_ADDRESS_LENGTH: i32 = 1;
export const O_AMOUNT_OFFSET: i32 = 2;
export const O_AMOUNT_LENGTH: i32 = 3;
export const O_AMOUNT_FITS: i32 = 4;
export const O_AMOUNT_VALUE: i32 = 6;
export const O_DATA_OFFSET: i32 = 8;
export const O_DATA_LENGTH: i32 = 9; // 0 = no data
export const O_DATA_CHECKSUM_OFFSET: i32 = 10;
export const O_DATA_CHECKSUM_LENGTH: i32 = 11; // 0 = none kept (also when data is present, §8.4 reader notes)
export const OUTPUT_WORDS: i32 = 12;

/** Fewest wire bytes of one fromList entry (key length, key, amount length, amount, two reserved). */
export const MIN_INPUT_BYTES: i32 = 6;
/** Fewest wire bytes of one toList entry (length, 33-byte address, amount 2, slot, data). */
export const MIN_OUTPUT_BYTES: i32 = 38;

// Every entry is written only after its first bytes were read, so a batch holding MAX_TX_SIZE bytes
// writes at most MAX_TX_SIZE / MIN_INPUT_BYTES input records (the densest kind per byte), plus one
// header and one partial record per transaction.
const TABLE_BYTES: i32 =
  MAX_BATCH * (HEADER_WORDS + OUTPUT_WORDS) * 4 + (MAX_TX_SIZE / MIN_INPUT_BYTES + 1) * INPUT_WORDS * 4;

/** Transaction bytes (one, or a batch concatenated). */
export const INPUT: usize = heap.alloc(<usize>MAX_TX_SIZE);
/** Batch: the byte length of each transaction (u32 each). */
export const LENGTHS: usize = heap.alloc(<usize>MAX_BATCH * 4);
/** Batch: the byte address of each transaction's table record (u32 each). */
export const RECORDS: usize = heap.alloc(<usize>MAX_BATCH * 4);
/** The checksum of each transaction (CHECKSUM_SIZE bytes each). */
export const CHECKSUMS: usize = heap.alloc(<usize>(MAX_BATCH * CHECKSUM_SIZE));
/** Field table records. */
export const TABLE: usize = heap.alloc(<usize>TABLE_BYTES);
/** Checksum preimage: the lock, then the canonical checksummed rows (never longer than the input). */
export const PREIMAGE: usize = heap.alloc(<usize>(MAX_LOCK_SIZE + MAX_TX_SIZE));
/** Canonical full form written by `canonicalize` (never longer than the input). */
export const CANONICAL: usize = heap.alloc(<usize>MAX_TX_SIZE);

// Duplicate detection for large lists: an open-addressing hash set of entry indices. A slot is
// live only when its stamp equals the current generation, so it never needs clearing.
export const DEDUP_SLOT_BITS: i32 = 18; // 262,144 slots ≥ 3 × the most entries one transaction can hold
export const DEDUP_STAMPS: usize = heap.alloc(<usize>(1 << DEDUP_SLOT_BITS) * 4);
export const DEDUP_ENTRIES: usize = heap.alloc(<usize>(1 << DEDUP_SLOT_BITS) * 4);
