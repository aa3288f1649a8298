// SHA-512 (FIPS 180-4 §6.4) and the reference network's sha512sqTrunc (reference-formats §2): the first
// n bytes of SHA-512(SHA-512(x)). Used for address checksums and legacy (v < 7) transaction checksums.
// Words are big-endian (§3.1), so message words and digest words are byte-swapped on load/store.

import { bufferedUpdate } from './sha3';

const BLOCK_BYTES: i32 = 128;
const DIGEST_BYTES: i32 = 64;
/** Bytes of the length field that ends the padding (§5.1.2: a 128-bit big-endian bit count). */
const LENGTH_FIELD_BYTES: i32 = 16;

// K^{512} (§4.2.3): first 64 bits of the fractional parts of the cube roots of the first 80 primes.
const K: usize = memory.data<u64>([
  0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc,
  0x3956c25bf348b538, 0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118,
  0xd807aa98a3030242, 0x12835b0145706fbe, 0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2,
  0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235, 0xc19bf174cf692694,
  0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
  0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5,
  0x983e5152ee66dfab, 0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4,
  0xc6e00bf33da88fc2, 0xd5a79147930aa725, 0x06ca6351e003826f, 0x142929670a0e6e70,
  0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed, 0x53380d139d95b3df,
  0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
  0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30,
  0xd192e819d6ef5218, 0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8,
  0x19a4c116b8d2d0c8, 0x1e376c085141ab53, 0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8,
  0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373, 0x682e6ff3d6b2b8a3,
  0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
  0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b,
  0xca273eceea26619c, 0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178,
  0x06f067aa72176fba, 0x0a637dc5a2c898a6, 0x113f9804bef90dae, 0x1b710b35131c471b,
  0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc, 0x431d67c49c100d4c,
  0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
]);
// H^{(0)} (§5.3.5): first 64 bits of the fractional parts of the square roots of the first 8 primes.
const INITIAL_HASH: usize = memory.data<u64>([
  0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
  0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
]);

const SCHEDULE: usize = memory.data(80 << 3, 16); // W_0..W_79 (§6.4.2 step 1)
const STATE: usize = memory.data(DIGEST_BYTES, 16); // H_0..H_7 of the one-shot hash
const DIGEST: usize = memory.data(DIGEST_BYTES, 16); // big-endian digest before truncation
const LAST_BLOCKS: usize = memory.data(2 * BLOCK_BYTES, 16); // padded tail: one or two blocks

// The functions of §4.1.3.
// @ts-ignore: decorator
@inline function bigSigma0(x: u64): u64 { return rotr<u64>(x, 28) ^ rotr<u64>(x, 34) ^ rotr<u64>(x, 39); } // (4.10)
// @ts-ignore: decorator
@inline function bigSigma1(x: u64): u64 { return rotr<u64>(x, 14) ^ rotr<u64>(x, 18) ^ rotr<u64>(x, 41); } // (4.11)
// @ts-ignore: decorator
@inline function smallSigma0(x: u64): u64 { return rotr<u64>(x, 1) ^ rotr<u64>(x, 8) ^ (x >> 7); } // (4.12)
// @ts-ignore: decorator
@inline function smallSigma1(x: u64): u64 { return rotr<u64>(x, 19) ^ rotr<u64>(x, 61) ^ (x >> 6); } // (4.13)
// @ts-ignore: decorator
@inline function ch(x: u64, y: u64, z: u64): u64 { return z ^ (x & (y ^ z)); } // (4.8)
// @ts-ignore: decorator
@inline function maj(x: u64, y: u64, z: u64): u64 { return (x & y) | (z & (x | y)); } // (4.9)

/** Processes `blocks` (≥ 1) 128-byte blocks at `input` into the hash value at `state` (§6.4.2). */
function compress(state: usize, input: usize, blocks: i32): void {
  let h0 = load<u64>(state, 0), h1 = load<u64>(state, 8), h2 = load<u64>(state, 16), h3 = load<u64>(state, 24);
  let h4 = load<u64>(state, 32), h5 = load<u64>(state, 40), h6 = load<u64>(state, 48), h7 = load<u64>(state, 56);
  do {
    // step 1: the message schedule W_0..W_79
    for (let t: usize = 0; t < 16 << 3; t += 8) store<u64>(SCHEDULE + t, bswap<u64>(load<u64>(input + t)));
    for (let t: usize = 16 << 3; t < 80 << 3; t += 8) {
      store<u64>(SCHEDULE + t,
        smallSigma1(load<u64>(SCHEDULE + t - (2 << 3))) + load<u64>(SCHEDULE + t - (7 << 3)) +
        smallSigma0(load<u64>(SCHEDULE + t - (15 << 3))) + load<u64>(SCHEDULE + t - (16 << 3)));
    }
    // steps 2–3: the 80 rounds, eight per loop step with the roles of a..h rotated instead of the
    // values moved (round t: T1 = h + Σ1(e) + Ch(e,f,g) + K_t + W_t; e = d + T1; a = T1 + Σ0(a) + Maj(a,b,c))
    let a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7;
    for (let t: usize = 0; t < 80 << 3; t += 64) {
      const k = K + t, w = SCHEDULE + t;
      h += bigSigma1(e) + ch(e, f, g) + load<u64>(k, 0) + load<u64>(w, 0); d += h; h += bigSigma0(a) + maj(a, b, c);
      g += bigSigma1(d) + ch(d, e, f) + load<u64>(k, 8) + load<u64>(w, 8); c += g; g += bigSigma0(h) + maj(h, a, b);
      f += bigSigma1(c) + ch(c, d, e) + load<u64>(k, 16) + load<u64>(w, 16); b += f; f += bigSigma0(g) + maj(g, h, a);
      e += bigSigma1(b) + ch(b, c, d) + load<u64>(k, 24) + load<u64>(w, 24); a += e; e += bigSigma0(f) + maj(f, g, h);
      d += bigSigma1(a) + ch(a, b, c) + load<u64>(k, 32) + load<u64>(w, 32); h += d; d += bigSigma0(e) + maj(e, f, g);
      c += bigSigma1(h) + ch(h, a, b) + load<u64>(k, 40) + load<u64>(w, 40); g += c; c += bigSigma0(d) + maj(d, e, f);
      b += bigSigma1(g) + ch(g, h, a) + load<u64>(k, 48) + load<u64>(w, 48); f += b; b += bigSigma0(c) + maj(c, d, e);
      a += bigSigma1(f) + ch(f, g, h) + load<u64>(k, 56) + load<u64>(w, 56); e += a; a += bigSigma0(b) + maj(b, c, d);
    }
    // step 4
    h0 += a; h1 += b; h2 += c; h3 += d; h4 += e; h5 += f; h6 += g; h7 += h;
    input += <usize>BLOCK_BYTES;
  } while (--blocks);
  store<u64>(state, h0, 0); store<u64>(state, h1, 8); store<u64>(state, h2, 16); store<u64>(state, h3, 24);
  store<u64>(state, h4, 32); store<u64>(state, h5, 40); store<u64>(state, h6, 48); store<u64>(state, h7, 56);
}

/**
 * Pads the last `tailLen` (< 128) message bytes of a `totalBytes`-byte message (§5.1.2: 0x80, zeros, the
 * 128-bit bit length) and compresses the one or two resulting blocks.
 */
function finish(state: usize, tail: usize, tailLen: i32, totalBytes: u64): void {
  memory.copy(LAST_BLOCKS, tail, tailLen);
  store<u8>(LAST_BLOCKS + <usize>tailLen, 0x80);
  const blocks = tailLen < BLOCK_BYTES - LENGTH_FIELD_BYTES ? 1 : 2;
  const lengthAt = LAST_BLOCKS + <usize>(blocks * BLOCK_BYTES - LENGTH_FIELD_BYTES);
  memory.fill(LAST_BLOCKS + <usize>tailLen + 1, 0, <i32>(lengthAt - LAST_BLOCKS) - tailLen - 1);
  store<u64>(lengthAt, bswap<u64>(totalBytes >> 61)); // high 64 bits of the bit count
  store<u64>(lengthAt, bswap<u64>(totalBytes << 3), 8);
  compress(state, LAST_BLOCKS, blocks);
}

/** Writes the big-endian digest of `state` to `outPtr`, truncated to `outLen` (1..64) bytes. */
function output(state: usize, outPtr: usize, outLen: i32): void {
  for (let i: usize = 0; i < <usize>DIGEST_BYTES; i += 8) store<u64>(DIGEST + i, bswap<u64>(load<u64>(state + i)));
  memory.copy(outPtr, DIGEST, outLen);
}

function sha512Into(inPtr: usize, len: i32, outPtr: usize, outLen: i32): void {
  memory.copy(STATE, INITIAL_HASH, DIGEST_BYTES);
  const fullBlocks = len / BLOCK_BYTES;
  if (fullBlocks > 0) compress(STATE, inPtr, fullBlocks);
  const done = fullBlocks * BLOCK_BYTES;
  finish(STATE, inPtr + <usize>done, len - done, <u64>len);
  output(STATE, outPtr, outLen);
}

/** SHA-512 of `len` bytes at `inPtr`; writes 64 bytes at `outPtr` (may overlap the input). */
export function sha512_into(inPtr: usize, len: i32, outPtr: usize): void {
  sha512Into(inPtr, len, outPtr, DIGEST_BYTES);
}

/** sha512sqTrunc = first `outLen` (1..64) bytes of SHA-512(SHA-512(x)) (reference-formats §2). */
export function sha512sqTrunc_into(inPtr: usize, len: i32, outPtr: usize, outLen: i32): void {
  sha512Into(inPtr, len, DIGEST, DIGEST_BYTES);
  sha512Into(DIGEST, DIGEST_BYTES, outPtr, outLen);
}

// ---- Streaming (init / update / final) ----

const STREAM_STATE: usize = memory.data(DIGEST_BYTES, 16);
const STREAM_BUFFER: usize = memory.data(BLOCK_BYTES, 16);
let streamBuffered: i32 = 0;
let streamTotal: u64 = 0;

/** Starts a streaming SHA-512 hash. */
export function sha512_init(): void {
  memory.copy(STREAM_STATE, INITIAL_HASH, DIGEST_BYTES);
  streamBuffered = 0;
  streamTotal = 0;
}

function compressIntoStream(input: usize, blocks: i32): void {
  compress(STREAM_STATE, input, blocks);
}

/** Absorbs `len` more bytes at `inPtr` into the streaming hash. */
export function sha512_update(inPtr: usize, len: i32): void {
  streamTotal += <u64>len;
  streamBuffered = bufferedUpdate(STREAM_BUFFER, streamBuffered, BLOCK_BYTES, inPtr, len, compressIntoStream);
}

/** Pads and writes the 64-byte digest at `outPtr`. */
export function sha512_final(outPtr: usize): void {
  finish(STREAM_STATE, STREAM_BUFFER, streamBuffered, streamTotal);
  output(STREAM_STATE, outPtr, DIGEST_BYTES);
  streamBuffered = 0;
}
