// Signer proof of work (reference-formats.md §12): hash = sha3_512sq(challenge), challenge =
// varint(blockNum) ‖ blockChecksum ‖ recipient addressNoChecksum ‖ K ‖ solution. The search tries
// many solutions per call over one challenge, so a worker crosses the JS boundary once per batch.
//
// JS writes the constant prefix (everything before the solution) and the first solution into
// SPOW_INPUT, the 64-byte little-endian target into SPOW_TARGET, and calls signerPowSearch.
import { absorbBlocks, sha3_512sq_into } from './sha3';

/** Capacity of the challenge window: prefix (≤ 9 + 64 + 45 + 64 = 182 bytes) ‖ solution (≤ 64). */
export const SPOW_INPUT_SIZE: i32 = 256;
/** Hash length (sha3_512sq). */
const HASH_BYTES: i32 = 64;
/** Longest solution (§12: 1–64 bytes). */
const MAX_SOLUTION: i32 = 64;

const SPOW_INPUT: usize = memory.data(SPOW_INPUT_SIZE, 16);
const SPOW_TARGET: usize = memory.data(HASH_BYTES, 16);
const SPOW_HASH: usize = memory.data(HASH_BYTES, 16);
const SPOW_BEST_HASH: usize = memory.data(HASH_BYTES, 16);
const SPOW_BEST_SOLUTION: usize = memory.data(MAX_SOLUTION, 16);

// The search absorbs the challenge's constant leading blocks once (MID_STATE) and, per solution,
// only the padded tail that holds the solution (TAIL), then the one-block second hash: two
// Keccak permutations per solution for a typical 210-byte challenge instead of four.
const RATE: i32 = 72; // SHA3-512
const RATE_LANES: i32 = RATE >> 3;
const STATE_BYTES: i32 = 200;
const DOMAIN: u8 = 0x06; // SHA-3 suffix and first pad bit (FIPS 202 B.2)
const PAD_END: u8 = 0x80; // last pad bit
const MID_STATE: usize = memory.data(STATE_BYTES, 16);
const WORK_STATE: usize = memory.data(STATE_BYTES, 16);
const DIGEST_BLOCK: usize = memory.data(RATE, 16);
/** Padded tail: up to (window − 0) bytes + padding, rounded up to whole blocks. */
const TAIL: usize = memory.data(SPOW_INPUT_SIZE + RATE, 16);

/** Address of the challenge window (prefix ‖ solution). */
export function signerPowInput(): usize {
  return SPOW_INPUT;
}
/** Address of the 64-byte little-endian target: a hash passes iff 0 < hash ≤ target (signed). */
export function signerPowTarget(): usize {
  return SPOW_TARGET;
}
/** Address of the 64-byte hash of the last challenge hashed. */
export function signerPowHashOutput(): usize {
  return SPOW_HASH;
}
/** Address of the lowest hash seen since signerPowResetBest (all 0xFF bytes after a reset). */
export function signerPowBestHash(): usize {
  return SPOW_BEST_HASH;
}
/** Address of the solution that gave signerPowBestHash. */
export function signerPowBestSolution(): usize {
  return SPOW_BEST_SOLUTION;
}

/** Forgets the best hash (sets it to the largest 64-byte value). */
export function signerPowResetBest(): void {
  for (let i: usize = 0; i < <usize>HASH_BYTES; i += 8) store<u64>(SPOW_BEST_HASH + i, 0xffffffffffffffff);
}

/** sha3_512sq of the window's first `length` bytes into signerPowHashOutput(). */
export function signerPowHash(length: i32): void {
  sha3_512sq_into(SPOW_INPUT, length, SPOW_HASH);
}

/**
 * Compares two 64-byte little-endian unsigned numbers, most significant lane first: −1, 0 or 1.
 */
// @ts-ignore: decorator
@inline function compareLE512(a: usize, b: usize): i32 {
  for (let i: i32 = HASH_BYTES - 8; i >= 0; i -= 8) {
    const x = load<u64>(a + <usize>i);
    const y = load<u64>(b + <usize>i);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Is the hash zero (the reference divides by it: such a hash is never a solution)? */
// @ts-ignore: decorator
@inline function isZero512(a: usize): bool {
  let acc: u64 = 0;
  for (let i: usize = 0; i < <usize>HASH_BYTES; i += 8) acc |= load<u64>(a + i);
  return acc == 0;
}

/** Adds one to the solution as a little-endian counter over all its bytes (wrapping). */
// @ts-ignore: decorator
@inline function increment(solution: usize, length: i32): void {
  for (let i: usize = 0; i < <usize>length; i++) {
    const v = <u8>(load<u8>(solution + i) + 1);
    store<u8>(solution + i, v);
    if (v != 0) return;
  }
}

/**
 * Tries `count` solutions: the one at window[prefixLength … prefixLength + solutionLength) and its
 * successors (little-endian counter). Keeps the lowest non-negative hash in signerPowBestHash /
 * signerPowBestSolution. Returns k ≥ 1 when the k-th solution tried has a hash h with
 * 0 < h ≤ target read as a signed little-endian number (a negative hash means difficulty 0, §12);
 * the window then holds that solution. Returns 0 when none of them did; the window then holds
 * the next solution to try. Lengths are checked by the caller.
 */
export function signerPowSearch(prefixLength: i32, solutionLength: i32, count: i32): i32 {
  const length = prefixLength + solutionLength;
  // constant full blocks: those entirely before the solution
  const constBlocks = prefixLength / RATE;
  const tailStart = constBlocks * RATE;
  const tailLength = length - tailStart;
  const tailBlocks = tailLength / RATE + 1;
  for (let i: usize = 0; i < <usize>STATE_BYTES; i += 8) store<u64>(MID_STATE + i, 0);
  if (constBlocks > 0) absorbBlocks(MID_STATE, SPOW_INPUT, constBlocks, RATE_LANES);
  // the padded tail (pad10*1 with the SHA-3 suffix), built once; the solution is incremented in place
  memory.fill(TAIL, 0, tailBlocks * RATE);
  memory.copy(TAIL, SPOW_INPUT + <usize>tailStart, tailLength);
  store<u8>(TAIL + <usize>tailLength, DOMAIN);
  const last = TAIL + <usize>(tailBlocks * RATE - 1);
  store<u8>(last, load<u8>(last) | PAD_END);
  const solution = TAIL + <usize>(prefixLength - tailStart);
  // the digest block of the second hash: 64 digest bytes, then suffix and the final pad bit
  store<u64>(DIGEST_BLOCK, (<u64>PAD_END << 56) | <u64>DOMAIN, 64);
  let found: i32 = 0;
  for (let k: i32 = 1; k <= count; k++) {
    for (let i: usize = 0; i < <usize>STATE_BYTES; i += 8) store<u64>(WORK_STATE + i, load<u64>(MID_STATE + i));
    absorbBlocks(WORK_STATE, TAIL, tailBlocks, RATE_LANES);
    for (let i: usize = 0; i < <usize>HASH_BYTES; i += 8) store<u64>(DIGEST_BLOCK + i, load<u64>(WORK_STATE + i));
    for (let i: usize = 0; i < <usize>STATE_BYTES; i += 8) store<u64>(WORK_STATE + i, 0);
    absorbBlocks(WORK_STATE, DIGEST_BLOCK, 1, RATE_LANES);
    // the sign bit is the top bit of byte 63: negative hashes have difficulty 0
    if (load<u8>(WORK_STATE + <usize>(HASH_BYTES - 1)) < 0x80 && !isZero512(WORK_STATE)) {
      if (compareLE512(WORK_STATE, SPOW_BEST_HASH) < 0) {
        memory.copy(SPOW_BEST_HASH, WORK_STATE, HASH_BYTES);
        memory.copy(SPOW_BEST_SOLUTION, solution, solutionLength);
      }
      if (compareLE512(WORK_STATE, SPOW_TARGET) <= 0) {
        found = k;
        break;
      }
    }
    increment(solution, solutionLength);
  }
  // leave the hit (or the next solution to try) in the window, and the last hash in SPOW_HASH
  memory.copy(SPOW_INPUT + <usize>prefixLength, solution, solutionLength);
  memory.copy(SPOW_HASH, WORK_STATE, HASH_BYTES);
  return found;
}
