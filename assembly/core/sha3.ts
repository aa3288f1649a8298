// SHA-3 (FIPS 202): the Keccak-f[1600] permutation (§3.3), the sponge (§4) with pad10*1 (§5.1) and the
// SHA-3 domain suffix "01" (§6.1), for SHA3-256 (rate 136 B) and SHA3-512 (rate 72 B). Not Keccak-256:
// that one pads with 0x01 instead of 0x06 (practice P13).
//
// Plus the I/O windows of the hash functions of the core program (this file and sha512.ts): fixed
// regions reserved statically, so nothing is allocated on the hot path and JS views stay valid.
//
// AssemblyScript callers (e.g. assembly/codec) import the `*_into` functions; the JS wrapper
// (src/core/hash.ts) calls the same functions through the WASM exports with the window addresses.

/** Size of the input window: JS hashes inputs up to this size in one call, larger ones in chunks. */
export const HASH_INPUT_WINDOW_SIZE: i32 = 65536;

// The windows are reserved inside these functions (memory.data is static), so a program that only
// imports the *_into functions (assembly/codec) does not carry them.
/** Address of the input window (`HASH_INPUT_WINDOW_SIZE` bytes). */
export function hash_input_window(): usize {
  return memory.data(HASH_INPUT_WINDOW_SIZE, 16);
}
/** Address of the 64-byte output window (one digest). */
export function hash_output_window(): usize {
  return memory.data(64, 16);
}
/** Size of the input window in bytes. */
export function hash_input_window_size(): i32 {
  return HASH_INPUT_WINDOW_SIZE;
}

const STATE_BYTES: i32 = 200; // b = 1600 bits (§3.1)
const RATE_SHA3_256: i32 = 136; // r = 1600 − 2·256 bits (§6.1)
const RATE_SHA3_512: i32 = 72; // r = 1600 − 2·512 bits
/** SHA-3 suffix "01" followed by the first pad bit, bits read LSB first (FIPS 202 Table 6 / B.2). */
const SHA3_DOMAIN: u8 = 0x06;
/** The last bit of pad10*1: the top bit of the last byte of the block. */
const PAD_LAST_BIT: u8 = 0x80;

// Round constants RC[i_r] of ι (§3.2.5), from the LFSR rc(t).
const ROUND_CONSTANTS: usize = memory.data<u64>([
  0x0000000000000001, 0x0000000000008082, 0x800000000000808a, 0x8000000080008000,
  0x000000000000808b, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
  0x000000000000008a, 0x0000000000000088, 0x0000000080008009, 0x000000008000000a,
  0x000000008000808b, 0x800000000000008b, 0x8000000000008089, 0x8000000000008003,
  0x8000000000008002, 0x8000000000000080, 0x000000000000800a, 0x800000008000000a,
  0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
]);
const ROUNDS_BYTES: usize = 24 << 3;

// One-shot state and padded last block; the streaming context has its own (below), so an
// AssemblyScript caller may one-shot hash between the streaming calls.
const STATE: usize = memory.data(STATE_BYTES, 16);
const BLOCK: usize = memory.data(STATE_BYTES, 16);

// Lanes complemented while they sit in locals ("lane complementing", Keccak team, "Keccak
// implementation overview" §2.2): with A[1], A[2], A[8], A[12], A[17], A[20] stored inverted, χ needs
// one NOT per plane instead of five, and the set is the same after every round.
/**
 * Absorbs `blocks` (≥ 1) consecutive blocks of `rateLanes` 64-bit lanes (9 or 17) from `input` into
 * the state at `state`, applying Keccak-f[1600] after each (§4 step 6). The 25 lanes stay in locals
 * for all blocks; each round is unrolled over the lanes (θ, ρ+π, χ, ι of §3.2; lane index x + 5y),
 * two rounds per loop step so that the state alternates between the a* and e* locals.
 */
function absorbBlocks(state: usize, input: usize, blocks: i32, rateLanes: i32): void {
  let a0 = load<u64>(state, 0), a1 = ~load<u64>(state, 8), a2 = ~load<u64>(state, 16), a3 = load<u64>(state, 24), a4 = load<u64>(state, 32);
  let a5 = load<u64>(state, 40), a6 = load<u64>(state, 48), a7 = load<u64>(state, 56), a8 = ~load<u64>(state, 64), a9 = load<u64>(state, 72);
  let a10 = load<u64>(state, 80), a11 = load<u64>(state, 88), a12 = ~load<u64>(state, 96), a13 = load<u64>(state, 104), a14 = load<u64>(state, 112);
  let a15 = load<u64>(state, 120), a16 = load<u64>(state, 128), a17 = ~load<u64>(state, 136), a18 = load<u64>(state, 144), a19 = load<u64>(state, 152);
  let a20 = ~load<u64>(state, 160), a21 = load<u64>(state, 168), a22 = load<u64>(state, 176), a23 = load<u64>(state, 184), a24 = load<u64>(state, 192);
  let e0: u64, e1: u64, e2: u64, e3: u64, e4: u64;
  let e5: u64, e6: u64, e7: u64, e8: u64, e9: u64;
  let e10: u64, e11: u64, e12: u64, e13: u64, e14: u64;
  let e15: u64, e16: u64, e17: u64, e18: u64, e19: u64;
  let e20: u64, e21: u64, e22: u64, e23: u64, e24: u64;
  let b0: u64, b1: u64, b2: u64, b3: u64, b4: u64;
  let c0: u64, c1: u64, c2: u64, c3: u64, c4: u64, d0: u64, d1: u64, d2: u64, d3: u64, d4: u64;
  do {
    // S ⊕ (P_i ‖ 0^c): lanes are little-endian (§B.1); XOR commutes with the complementing
    a0 ^= load<u64>(input, 0); a1 ^= load<u64>(input, 8); a2 ^= load<u64>(input, 16); a3 ^= load<u64>(input, 24);
    a4 ^= load<u64>(input, 32); a5 ^= load<u64>(input, 40); a6 ^= load<u64>(input, 48); a7 ^= load<u64>(input, 56);
    a8 ^= load<u64>(input, 64);
    if (rateLanes > 9) {
      a9 ^= load<u64>(input, 72); a10 ^= load<u64>(input, 80); a11 ^= load<u64>(input, 88); a12 ^= load<u64>(input, 96);
      a13 ^= load<u64>(input, 104); a14 ^= load<u64>(input, 112); a15 ^= load<u64>(input, 120); a16 ^= load<u64>(input, 128);
    }
    input += <usize>rateLanes << 3;
    for (let rc: usize = ROUND_CONSTANTS, end = ROUND_CONSTANTS + ROUNDS_BYTES; rc < end; rc += 16) {
      // θ: C[x] = ⊕_y A[x,y]; D[x] = C[x−1] ⊕ rot(C[x+1], 1). Then per output plane y:
      // ρ, π: B[y, 2x+3y] = rot(A[x,y] ⊕ D[x], r[x,y]); χ: E[x,y] = B[x,y] ⊕ (¬B[x+1,y] ∧ B[x+2,y])
      c0 = a0 ^ a5 ^ a10 ^ a15 ^ a20; c1 = a1 ^ a6 ^ a11 ^ a16 ^ a21; c2 = a2 ^ a7 ^ a12 ^ a17 ^ a22; c3 = a3 ^ a8 ^ a13 ^ a18 ^ a23; c4 = a4 ^ a9 ^ a14 ^ a19 ^ a24;
      d0 = c4 ^ rotl(c1, 1); d1 = c0 ^ rotl(c2, 1); d2 = c1 ^ rotl(c3, 1); d3 = c2 ^ rotl(c4, 1); d4 = c3 ^ rotl(c0, 1);
      b0 = a0 ^ d0; b1 = rotl(a6 ^ d1, 44); b2 = rotl(a12 ^ d2, 43); b3 = rotl(a18 ^ d3, 21); b4 = rotl(a24 ^ d4, 14);
      e0 = b0 ^ (b1 | b2); e1 = b1 ^ (~b2 | b3); e2 = b2 ^ (b3 & b4); e3 = b3 ^ (b4 | b0); e4 = b4 ^ (b0 & b1);
      b0 = rotl(a3 ^ d3, 28); b1 = rotl(a9 ^ d4, 20); b2 = rotl(a10 ^ d0, 3); b3 = rotl(a16 ^ d1, 45); b4 = rotl(a22 ^ d2, 61);
      e5 = b0 ^ (b1 | b2); e6 = b1 ^ (b2 & b3); e7 = b2 ^ (b3 | ~b4); e8 = b3 ^ (b4 | b0); e9 = b4 ^ (b0 & b1);
      b0 = rotl(a1 ^ d1, 1); b1 = rotl(a7 ^ d2, 6); b2 = rotl(a13 ^ d3, 25); b3 = rotl(a19 ^ d4, 8); b4 = rotl(a20 ^ d0, 18);
      e10 = b0 ^ (b1 | b2); e11 = b1 ^ (b2 & b3); e12 = b2 ^ (~b3 & b4); e13 = ~b3 ^ (b4 | b0); e14 = b4 ^ (b0 & b1);
      b0 = rotl(a4 ^ d4, 27); b1 = rotl(a5 ^ d0, 36); b2 = rotl(a11 ^ d1, 10); b3 = rotl(a17 ^ d2, 15); b4 = rotl(a23 ^ d3, 56);
      e15 = b0 ^ (b1 & b2); e16 = b1 ^ (b2 | b3); e17 = b2 ^ (~b3 | b4); e18 = ~b3 ^ (b4 & b0); e19 = b4 ^ (b0 | b1);
      b0 = rotl(a2 ^ d2, 62); b1 = rotl(a8 ^ d3, 55); b2 = rotl(a14 ^ d4, 39); b3 = rotl(a15 ^ d0, 41); b4 = rotl(a21 ^ d1, 2);
      e20 = b0 ^ (~b1 & b2); e21 = ~b1 ^ (b2 | b3); e22 = b2 ^ (b3 & b4); e23 = b3 ^ (b4 | b0); e24 = b4 ^ (b0 & b1);
      e0 ^= load<u64>(rc); // ι
      c0 = e0 ^ e5 ^ e10 ^ e15 ^ e20; c1 = e1 ^ e6 ^ e11 ^ e16 ^ e21; c2 = e2 ^ e7 ^ e12 ^ e17 ^ e22; c3 = e3 ^ e8 ^ e13 ^ e18 ^ e23; c4 = e4 ^ e9 ^ e14 ^ e19 ^ e24;
      d0 = c4 ^ rotl(c1, 1); d1 = c0 ^ rotl(c2, 1); d2 = c1 ^ rotl(c3, 1); d3 = c2 ^ rotl(c4, 1); d4 = c3 ^ rotl(c0, 1);
      b0 = e0 ^ d0; b1 = rotl(e6 ^ d1, 44); b2 = rotl(e12 ^ d2, 43); b3 = rotl(e18 ^ d3, 21); b4 = rotl(e24 ^ d4, 14);
      a0 = b0 ^ (b1 | b2); a1 = b1 ^ (~b2 | b3); a2 = b2 ^ (b3 & b4); a3 = b3 ^ (b4 | b0); a4 = b4 ^ (b0 & b1);
      b0 = rotl(e3 ^ d3, 28); b1 = rotl(e9 ^ d4, 20); b2 = rotl(e10 ^ d0, 3); b3 = rotl(e16 ^ d1, 45); b4 = rotl(e22 ^ d2, 61);
      a5 = b0 ^ (b1 | b2); a6 = b1 ^ (b2 & b3); a7 = b2 ^ (b3 | ~b4); a8 = b3 ^ (b4 | b0); a9 = b4 ^ (b0 & b1);
      b0 = rotl(e1 ^ d1, 1); b1 = rotl(e7 ^ d2, 6); b2 = rotl(e13 ^ d3, 25); b3 = rotl(e19 ^ d4, 8); b4 = rotl(e20 ^ d0, 18);
      a10 = b0 ^ (b1 | b2); a11 = b1 ^ (b2 & b3); a12 = b2 ^ (~b3 & b4); a13 = ~b3 ^ (b4 | b0); a14 = b4 ^ (b0 & b1);
      b0 = rotl(e4 ^ d4, 27); b1 = rotl(e5 ^ d0, 36); b2 = rotl(e11 ^ d1, 10); b3 = rotl(e17 ^ d2, 15); b4 = rotl(e23 ^ d3, 56);
      a15 = b0 ^ (b1 & b2); a16 = b1 ^ (b2 | b3); a17 = b2 ^ (~b3 | b4); a18 = ~b3 ^ (b4 & b0); a19 = b4 ^ (b0 | b1);
      b0 = rotl(e2 ^ d2, 62); b1 = rotl(e8 ^ d3, 55); b2 = rotl(e14 ^ d4, 39); b3 = rotl(e15 ^ d0, 41); b4 = rotl(e21 ^ d1, 2);
      a20 = b0 ^ (~b1 & b2); a21 = ~b1 ^ (b2 | b3); a22 = b2 ^ (b3 & b4); a23 = b3 ^ (b4 | b0); a24 = b4 ^ (b0 & b1);
      a0 ^= load<u64>(rc, 8); // ι
    }
  } while (--blocks);
  store<u64>(state, a0, 0); store<u64>(state, ~a1, 8); store<u64>(state, ~a2, 16); store<u64>(state, a3, 24); store<u64>(state, a4, 32);
  store<u64>(state, a5, 40); store<u64>(state, a6, 48); store<u64>(state, a7, 56); store<u64>(state, ~a8, 64); store<u64>(state, a9, 72);
  store<u64>(state, a10, 80); store<u64>(state, a11, 88); store<u64>(state, ~a12, 96); store<u64>(state, a13, 104); store<u64>(state, a14, 112);
  store<u64>(state, a15, 120); store<u64>(state, a16, 128); store<u64>(state, ~a17, 136); store<u64>(state, a18, 144); store<u64>(state, a19, 152);
  store<u64>(state, ~a20, 160); store<u64>(state, a21, 168); store<u64>(state, a22, 176); store<u64>(state, a23, 184); store<u64>(state, a24, 192);
}

// Copies and fills of a few bytes as 8-byte loops: V8 compiles memory.copy / memory.fill to calls
// out of the WASM code, which cost more than moving the few bytes of a block or a digest.
// @ts-ignore: decorator
@inline function copySmall(dst: usize, src: usize, len: i32): void {
  let i: usize = 0;
  const n = <usize>len;
  for (; i + 8 <= n; i += 8) store<u64>(dst + i, load<u64>(src + i));
  for (; i < n; i++) store<u8>(dst + i, load<u8>(src + i));
}
// @ts-ignore: decorator
@inline function zeroSmall(dst: usize, len: i32): void {
  let i: usize = 0;
  const n = <usize>len;
  for (; i + 8 <= n; i += 8) store<u64>(dst + i, 0);
  for (; i < n; i++) store<u8>(dst + i, 0);
}

/** Writes the last block: the `tail` (< rate) remaining message bytes, the SHA-3 suffix and pad10*1. */
// @ts-ignore: decorator
@inline function padLastBlock(block: usize, tail: usize, tailLen: i32, rate: i32): void {
  copySmall(block, tail, tailLen);
  zeroSmall(block + tailLen, rate - tailLen);
  store<u8>(block + tailLen, SHA3_DOMAIN);
  store<u8>(block + rate - 1, load<u8>(block + rate - 1) | PAD_LAST_BIT);
}

/** One-shot SHA-3 with the given rate; output of `outLen` ≤ rate bytes (one squeeze, §4 steps 8–10). */
function sha3Into(inPtr: usize, len: i32, outPtr: usize, outLen: i32, rate: i32): void {
  zeroSmall(STATE, STATE_BYTES);
  const fullBlocks = len / rate;
  if (fullBlocks > 0) absorbBlocks(STATE, inPtr, fullBlocks, rate >> 3);
  const done = fullBlocks * rate;
  padLastBlock(BLOCK, inPtr + <usize>done, len - done, rate);
  absorbBlocks(STATE, BLOCK, 1, rate >> 3);
  copySmall(outPtr, STATE, outLen);
}

/** SHA3-256 of `len` bytes at `inPtr`; writes 32 bytes at `outPtr` (may overlap the input). */
export function sha3_256_into(inPtr: usize, len: i32, outPtr: usize): void {
  sha3Into(inPtr, len, outPtr, 32, RATE_SHA3_256);
}

/** SHA3-512 of `len` bytes at `inPtr`; writes 64 bytes at `outPtr` (may overlap the input). */
export function sha3_512_into(inPtr: usize, len: i32, outPtr: usize): void {
  sha3Into(inPtr, len, outPtr, 64, RATE_SHA3_512);
}

/**
 * SHA3-512 of the 64-byte SHA3-512 digest sitting in the first 8 lanes of STATE (reference-formats
 * §2 `sha3_512sq`): the digest plus padding is exactly one 72-byte block.
 */
function rehashStateDigest(outPtr: usize, outLen: i32): void {
  copySmall(BLOCK, STATE, 64);
  // bytes 64..71: suffix 0x06, zeros, and the final pad bit 0x80 in byte 71
  store<u64>(BLOCK, (<u64>PAD_LAST_BIT << 56) | <u64>SHA3_DOMAIN, 64);
  zeroSmall(STATE, STATE_BYTES);
  absorbBlocks(STATE, BLOCK, 1, RATE_SHA3_512 >> 3);
  copySmall(outPtr, STATE, outLen);
}

/** sha3_512sq = SHA3-512(SHA3-512(x)); writes 64 bytes at `outPtr`. */
export function sha3_512sq_into(inPtr: usize, len: i32, outPtr: usize): void {
  sha3_512sqTrunc_into(inPtr, len, outPtr, 64);
}

/** sha3_512sqTrunc = first `outLen` (1..64) bytes of SHA3-512(SHA3-512(x)) (reference-formats §2). */
export function sha3_512sqTrunc_into(inPtr: usize, len: i32, outPtr: usize, outLen: i32): void {
  sha3Into(inPtr, len, STATE, 0, RATE_SHA3_512);
  rehashStateDigest(outPtr, outLen);
}

// ---- Streaming (init / update / final) for inputs larger than a caller's buffer ----

const STREAM_STATE: usize = memory.data(STATE_BYTES, 16);
const STREAM_BUFFER: usize = memory.data(STATE_BYTES, 16);
let streamRate: i32 = RATE_SHA3_512;
let streamDigestLen: i32 = 64;
let streamBuffered: i32 = 0;

/** Starts a streaming SHA-3 hash with a 32-byte (SHA3-256) or 64-byte (SHA3-512) digest. */
export function sha3_init(digestLen: i32): void {
  streamDigestLen = digestLen == 32 ? 32 : 64;
  streamRate = STATE_BYTES - 2 * streamDigestLen;
  streamBuffered = 0;
  memory.fill(STREAM_STATE, 0, STATE_BYTES);
}

/**
 * The buffering of a streaming hash (also used by sha512.ts): completes the partial block in
 * `buffer` (holding `buffered` bytes), hands whole blocks to `absorb` (straight from the input when
 * possible) and keeps the remainder. Returns the new number of buffered bytes.
 */
export function bufferedUpdate(
  buffer: usize, buffered: i32, blockBytes: i32, inPtr: usize, len: i32,
  absorb: (input: usize, blocks: i32) => void,
): i32 {
  if (buffered > 0) {
    const take = min(blockBytes - buffered, len);
    memory.copy(buffer + <usize>buffered, inPtr, take);
    buffered += take;
    inPtr += <usize>take;
    len -= take;
    if (buffered < blockBytes) return buffered;
    absorb(buffer, 1);
  }
  const fullBlocks = len / blockBytes;
  if (fullBlocks > 0) {
    absorb(inPtr, fullBlocks);
    const done = fullBlocks * blockBytes;
    inPtr += <usize>done;
    len -= done;
  }
  memory.copy(buffer, inPtr, len);
  return len;
}

function absorbIntoStream(input: usize, blocks: i32): void {
  absorbBlocks(STREAM_STATE, input, blocks, streamRate >> 3);
}

/** Absorbs `len` more bytes at `inPtr` into the streaming hash. */
export function sha3_update(inPtr: usize, len: i32): void {
  streamBuffered = bufferedUpdate(STREAM_BUFFER, streamBuffered, streamRate, inPtr, len, absorbIntoStream);
}

/** Pads, absorbs the last block and writes the digest (32 or 64 bytes, per sha3_init) at `outPtr`. */
export function sha3_final(outPtr: usize): void {
  const rate = streamRate;
  padLastBlock(STREAM_BUFFER, STREAM_BUFFER, streamBuffered, rate);
  absorbBlocks(STREAM_STATE, STREAM_BUFFER, 1, rate >> 3);
  memory.copy(outPtr, STREAM_STATE, streamDigestLen);
  streamBuffered = 0;
}
