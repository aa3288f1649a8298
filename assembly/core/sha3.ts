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

// The permutation works on two lane arrays at fixed addresses, LANES and SPARE: each round reads
// one and writes the other (two rounds per loop step), so every lane access is a load or store at
// a constant address, which V8 folds into the instructions, and only θ's column parities, the
// current plane and a few temporaries live in locals. (Measured: ~7 % faster than keeping the 25
// lanes in locals, which V8 spills to the stack anyway.) The two round bodies of a loop step are the
// same but for the array each reads and writes; one body with swapped array pointers, or with
// θ's parities passed through memory to an inlined round function, measured 5–20 % slower.
const LANES: usize = memory.data(STATE_BYTES, 64);
const SPARE: usize = memory.data(STATE_BYTES, 64);

// Lane complementing (Keccak team, "Keccak implementation overview" §2.2): while in LANES/SPARE,
// the lanes A[1], A[2], A[8], A[12], A[17], A[20] are stored inverted; then χ needs one NOT per
// plane instead of five, and the set is the same after every round.
// @ts-ignore: decorator
@inline function complementLanes(lanes: usize): void {
  store<u64>(lanes, ~load<u64>(lanes, 8), 8); store<u64>(lanes, ~load<u64>(lanes, 16), 16);
  store<u64>(lanes, ~load<u64>(lanes, 64), 64); store<u64>(lanes, ~load<u64>(lanes, 96), 96);
  store<u64>(lanes, ~load<u64>(lanes, 136), 136); store<u64>(lanes, ~load<u64>(lanes, 160), 160);
}

/**
 * Exported for the signer-PoW search (signer-pow.ts), which absorbs a challenge's constant blocks
 * once and continues from that state for every solution.
 *
 * Absorbs `blocks` (≥ 1) consecutive blocks of `rateLanes` 64-bit lanes (9 or 17) from `input` into
 * the state at `state`, applying Keccak-f[1600] after each (§4 step 6). Each round is unrolled over
 * the lanes (θ, ρ+π, χ, ι of §3.2; lane index x + 5y), plane by plane: the five B lanes of an output
 * plane, then its five χ outputs, whose XOR into n0..n4 gives the next round's θ column parities.
 */
export function absorbBlocks(state: usize, input: usize, blocks: i32, rateLanes: i32): void {
  for (let i: usize = 0; i < <usize>STATE_BYTES; i += 8) store<u64>(LANES + i, load<u64>(state + i));
  complementLanes(LANES);
  const rateBytes = <usize>rateLanes << 3;
  let b0: u64, b1: u64, b2: u64, b3: u64, b4: u64, t: u64;
  let c0: u64, c1: u64, c2: u64, c3: u64, c4: u64, d0: u64, d1: u64, d2: u64, d3: u64, d4: u64;
  let n0: u64, n1: u64, n2: u64, n3: u64, n4: u64;
  do {
    // S ⊕ (P_i ‖ 0^c): lanes are little-endian (§B.1); XOR commutes with the complementing
    for (let i: usize = 0; i < rateBytes; i += 8) store<u64>(LANES + i, load<u64>(LANES + i) ^ load<u64>(input + i));
    input += rateBytes;
    // θ: C[x] = ⊕_y A[x,y] (afterwards carried from round to round in n0..n4)
    c0 = load<u64>(LANES, 0) ^ load<u64>(LANES, 40) ^ load<u64>(LANES, 80) ^ load<u64>(LANES, 120) ^ load<u64>(LANES, 160);
    c1 = load<u64>(LANES, 8) ^ load<u64>(LANES, 48) ^ load<u64>(LANES, 88) ^ load<u64>(LANES, 128) ^ load<u64>(LANES, 168);
    c2 = load<u64>(LANES, 16) ^ load<u64>(LANES, 56) ^ load<u64>(LANES, 96) ^ load<u64>(LANES, 136) ^ load<u64>(LANES, 176);
    c3 = load<u64>(LANES, 24) ^ load<u64>(LANES, 64) ^ load<u64>(LANES, 104) ^ load<u64>(LANES, 144) ^ load<u64>(LANES, 184);
    c4 = load<u64>(LANES, 32) ^ load<u64>(LANES, 72) ^ load<u64>(LANES, 112) ^ load<u64>(LANES, 152) ^ load<u64>(LANES, 192);
    for (let rc: usize = ROUND_CONSTANTS, end = ROUND_CONSTANTS + ROUNDS_BYTES; rc < end; rc += 16) {
      // θ: D[x] = C[x−1] ⊕ rot(C[x+1], 1). Per output plane y: ρ and π, B[y, 2x+3y] = rot(A[x,y] ⊕ D[x], r[x,y]);
      // χ, A'[x,y] = B[x,y] ⊕ (¬B[x+1,y] ∧ B[x+2,y]) (in its complemented form); ι on A'[0,0].
      d0 = c4 ^ rotl(c1, 1); d1 = c0 ^ rotl(c2, 1); d2 = c1 ^ rotl(c3, 1); d3 = c2 ^ rotl(c4, 1); d4 = c3 ^ rotl(c0, 1);
      b0 = load<u64>(LANES, 0) ^ d0; b1 = rotl(load<u64>(LANES, 48) ^ d1, 44); b2 = rotl(load<u64>(LANES, 96) ^ d2, 43);
      b3 = rotl(load<u64>(LANES, 144) ^ d3, 21); b4 = rotl(load<u64>(LANES, 192) ^ d4, 14);
      t = b0 ^ (b1 | b2) ^ load<u64>(rc); store<u64>(SPARE, t, 0); n0 = t;
      t = b1 ^ (~b2 | b3); store<u64>(SPARE, t, 8); n1 = t;
      t = b2 ^ (b3 & b4); store<u64>(SPARE, t, 16); n2 = t;
      t = b3 ^ (b4 | b0); store<u64>(SPARE, t, 24); n3 = t;
      t = b4 ^ (b0 & b1); store<u64>(SPARE, t, 32); n4 = t;
      b0 = rotl(load<u64>(LANES, 24) ^ d3, 28); b1 = rotl(load<u64>(LANES, 72) ^ d4, 20); b2 = rotl(load<u64>(LANES, 80) ^ d0, 3);
      b3 = rotl(load<u64>(LANES, 128) ^ d1, 45); b4 = rotl(load<u64>(LANES, 176) ^ d2, 61);
      t = b0 ^ (b1 | b2); store<u64>(SPARE, t, 40); n0 ^= t;
      t = b1 ^ (b2 & b3); store<u64>(SPARE, t, 48); n1 ^= t;
      t = b2 ^ (b3 | ~b4); store<u64>(SPARE, t, 56); n2 ^= t;
      t = b3 ^ (b4 | b0); store<u64>(SPARE, t, 64); n3 ^= t;
      t = b4 ^ (b0 & b1); store<u64>(SPARE, t, 72); n4 ^= t;
      b0 = rotl(load<u64>(LANES, 8) ^ d1, 1); b1 = rotl(load<u64>(LANES, 56) ^ d2, 6); b2 = rotl(load<u64>(LANES, 104) ^ d3, 25);
      b3 = rotl(load<u64>(LANES, 152) ^ d4, 8); b4 = rotl(load<u64>(LANES, 160) ^ d0, 18);
      t = b0 ^ (b1 | b2); store<u64>(SPARE, t, 80); n0 ^= t;
      t = b1 ^ (b2 & b3); store<u64>(SPARE, t, 88); n1 ^= t;
      t = b2 ^ (~b3 & b4); store<u64>(SPARE, t, 96); n2 ^= t;
      t = ~b3 ^ (b4 | b0); store<u64>(SPARE, t, 104); n3 ^= t;
      t = b4 ^ (b0 & b1); store<u64>(SPARE, t, 112); n4 ^= t;
      b0 = rotl(load<u64>(LANES, 32) ^ d4, 27); b1 = rotl(load<u64>(LANES, 40) ^ d0, 36); b2 = rotl(load<u64>(LANES, 88) ^ d1, 10);
      b3 = rotl(load<u64>(LANES, 136) ^ d2, 15); b4 = rotl(load<u64>(LANES, 184) ^ d3, 56);
      t = b0 ^ (b1 & b2); store<u64>(SPARE, t, 120); n0 ^= t;
      t = b1 ^ (b2 | b3); store<u64>(SPARE, t, 128); n1 ^= t;
      t = b2 ^ (~b3 | b4); store<u64>(SPARE, t, 136); n2 ^= t;
      t = ~b3 ^ (b4 & b0); store<u64>(SPARE, t, 144); n3 ^= t;
      t = b4 ^ (b0 | b1); store<u64>(SPARE, t, 152); n4 ^= t;
      b0 = rotl(load<u64>(LANES, 16) ^ d2, 62); b1 = rotl(load<u64>(LANES, 64) ^ d3, 55); b2 = rotl(load<u64>(LANES, 112) ^ d4, 39);
      b3 = rotl(load<u64>(LANES, 120) ^ d0, 41); b4 = rotl(load<u64>(LANES, 168) ^ d1, 2);
      t = b0 ^ (~b1 & b2); store<u64>(SPARE, t, 160); n0 ^= t;
      t = ~b1 ^ (b2 | b3); store<u64>(SPARE, t, 168); n1 ^= t;
      t = b2 ^ (b3 & b4); store<u64>(SPARE, t, 176); n2 ^= t;
      t = b3 ^ (b4 | b0); store<u64>(SPARE, t, 184); n3 ^= t;
      t = b4 ^ (b0 & b1); store<u64>(SPARE, t, 192); n4 ^= t;
      c0 = n0; c1 = n1; c2 = n2; c3 = n3; c4 = n4;
      d0 = c4 ^ rotl(c1, 1); d1 = c0 ^ rotl(c2, 1); d2 = c1 ^ rotl(c3, 1); d3 = c2 ^ rotl(c4, 1); d4 = c3 ^ rotl(c0, 1);
      b0 = load<u64>(SPARE, 0) ^ d0; b1 = rotl(load<u64>(SPARE, 48) ^ d1, 44); b2 = rotl(load<u64>(SPARE, 96) ^ d2, 43);
      b3 = rotl(load<u64>(SPARE, 144) ^ d3, 21); b4 = rotl(load<u64>(SPARE, 192) ^ d4, 14);
      t = b0 ^ (b1 | b2) ^ load<u64>(rc, 8); store<u64>(LANES, t, 0); n0 = t;
      t = b1 ^ (~b2 | b3); store<u64>(LANES, t, 8); n1 = t;
      t = b2 ^ (b3 & b4); store<u64>(LANES, t, 16); n2 = t;
      t = b3 ^ (b4 | b0); store<u64>(LANES, t, 24); n3 = t;
      t = b4 ^ (b0 & b1); store<u64>(LANES, t, 32); n4 = t;
      b0 = rotl(load<u64>(SPARE, 24) ^ d3, 28); b1 = rotl(load<u64>(SPARE, 72) ^ d4, 20); b2 = rotl(load<u64>(SPARE, 80) ^ d0, 3);
      b3 = rotl(load<u64>(SPARE, 128) ^ d1, 45); b4 = rotl(load<u64>(SPARE, 176) ^ d2, 61);
      t = b0 ^ (b1 | b2); store<u64>(LANES, t, 40); n0 ^= t;
      t = b1 ^ (b2 & b3); store<u64>(LANES, t, 48); n1 ^= t;
      t = b2 ^ (b3 | ~b4); store<u64>(LANES, t, 56); n2 ^= t;
      t = b3 ^ (b4 | b0); store<u64>(LANES, t, 64); n3 ^= t;
      t = b4 ^ (b0 & b1); store<u64>(LANES, t, 72); n4 ^= t;
      b0 = rotl(load<u64>(SPARE, 8) ^ d1, 1); b1 = rotl(load<u64>(SPARE, 56) ^ d2, 6); b2 = rotl(load<u64>(SPARE, 104) ^ d3, 25);
      b3 = rotl(load<u64>(SPARE, 152) ^ d4, 8); b4 = rotl(load<u64>(SPARE, 160) ^ d0, 18);
      t = b0 ^ (b1 | b2); store<u64>(LANES, t, 80); n0 ^= t;
      t = b1 ^ (b2 & b3); store<u64>(LANES, t, 88); n1 ^= t;
      t = b2 ^ (~b3 & b4); store<u64>(LANES, t, 96); n2 ^= t;
      t = ~b3 ^ (b4 | b0); store<u64>(LANES, t, 104); n3 ^= t;
      t = b4 ^ (b0 & b1); store<u64>(LANES, t, 112); n4 ^= t;
      b0 = rotl(load<u64>(SPARE, 32) ^ d4, 27); b1 = rotl(load<u64>(SPARE, 40) ^ d0, 36); b2 = rotl(load<u64>(SPARE, 88) ^ d1, 10);
      b3 = rotl(load<u64>(SPARE, 136) ^ d2, 15); b4 = rotl(load<u64>(SPARE, 184) ^ d3, 56);
      t = b0 ^ (b1 & b2); store<u64>(LANES, t, 120); n0 ^= t;
      t = b1 ^ (b2 | b3); store<u64>(LANES, t, 128); n1 ^= t;
      t = b2 ^ (~b3 | b4); store<u64>(LANES, t, 136); n2 ^= t;
      t = ~b3 ^ (b4 & b0); store<u64>(LANES, t, 144); n3 ^= t;
      t = b4 ^ (b0 | b1); store<u64>(LANES, t, 152); n4 ^= t;
      b0 = rotl(load<u64>(SPARE, 16) ^ d2, 62); b1 = rotl(load<u64>(SPARE, 64) ^ d3, 55); b2 = rotl(load<u64>(SPARE, 112) ^ d4, 39);
      b3 = rotl(load<u64>(SPARE, 120) ^ d0, 41); b4 = rotl(load<u64>(SPARE, 168) ^ d1, 2);
      t = b0 ^ (~b1 & b2); store<u64>(LANES, t, 160); n0 ^= t;
      t = ~b1 ^ (b2 | b3); store<u64>(LANES, t, 168); n1 ^= t;
      t = b2 ^ (b3 & b4); store<u64>(LANES, t, 176); n2 ^= t;
      t = b3 ^ (b4 | b0); store<u64>(LANES, t, 184); n3 ^= t;
      t = b4 ^ (b0 & b1); store<u64>(LANES, t, 192); n4 ^= t;
      c0 = n0; c1 = n1; c2 = n2; c3 = n3; c4 = n4;
    }
  } while (--blocks);
  complementLanes(LANES);
  for (let i: usize = 0; i < <usize>STATE_BYTES; i += 8) store<u64>(state + i, load<u64>(LANES + i));
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
