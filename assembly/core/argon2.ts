// Argon2 v1.3 memory filling (RFC 9106), all three types (the node uses Argon2id, type 2).
// Lanes are filled one after another on this thread: within a slice lanes never reference each
// other's current segment (RFC 9106 §3.4), so the order does not change the result. The blocks
// live on the heap above `__heap_base`, which this module owns (the core program uses the stub
// runtime and nothing else allocates); memory is grown by `argon2Reserve` only, never mid-hash.
import { b2Init, b2UpdateLE32, b2Final, b2Long } from './blake2b';
import { laneShift, rotr16V, rotr24V, rotr32V, rotr63V } from './lanes64';

const BLOCK: usize = 1024; // bytes per block (RFC 9106 §3.1)
const SYNC_POINTS: u32 = 4; // slices per pass (SL, RFC 9106 §3.4)
const ADDRESSES_PER_BLOCK: u32 = 128; // J1‖J2 pairs per Argon2i address block (§3.4.1.2)
const H0_BYTES: i32 = 64;

// Static blocks: the address block of data-independent indexing and its input block (§3.4.1.2),
// the all-zero block, the final block C (§3.2 step 7), and H0 ‖ LE32 ‖ LE32 (§3.2 steps 1–4).
const ADDRESS: usize = memory.data(<i32>BLOCK, 64);
const INPUT: usize = memory.data(<i32>BLOCK, 64);
const ZERO: usize = memory.data(<i32>BLOCK, 64);
const FINAL: usize = memory.data(<i32>BLOCK, 64);
const R: usize = memory.data(<i32>BLOCK, 64);
const H0: usize = memory.data(H0_BYTES + 8, 16);

// The memory matrix starts on the first 1 KiB boundary of the heap. The tag is written at its
// start after the fill (the blocks are no longer needed then).
const MATRIX: usize = (__heap_base + BLOCK - 1) & ~(BLOCK - 1);
let reservedBlocks: u32 = 0;

/** Address where `argon2Finish` writes the tag. */
export function argon2Output(): usize {
  return MATRIX;
}

/** Number of 1 KiB blocks currently backed by memory. */
export function argon2ReservedBlocks(): u32 {
  return reservedBlocks;
}

/**
 * Makes room for `blocks` 1 KiB blocks, growing the WebAssembly memory once if needed (never
 * shrinks). Returns false when the engine refuses to grow. JS views must be rebuilt after a grow.
 */
export function argon2Reserve(blocks: u32): bool {
  if (blocks <= reservedBlocks) return true;
  const end: u64 = <u64>MATRIX + <u64>blocks * <u64>BLOCK;
  const havePages = memory.size();
  const needPages = <i32>((end + 0xffff) >> 16);
  if (needPages > havePages && memory.grow(needPages - havePages) < 0) return false;
  reservedBlocks = blocks;
  return true;
}

// ---- Compression function G (RFC 9106 §3.5) built on the permutation P (§3.6) ----

// SIMD build: a block is 64 v128 registers of two words. `roundV2` applies P to register sets
// A0,A1,B0,B1,C0,C1,D0,D1 taken `stride` bytes apart: stride 16 = one row of 16 consecutive
// words, stride 128 = one column (word pairs 2i, 2i+16, …, 2i+112), the register sets of §3.6.

// How roundV2 gets its input and where its output goes, so that G needs no extra passes:
const ROW_FIRST = 0; // in = prev ⊕ ref; next := in; R := P(in)
const ROW_XOR = 1; //   in = prev ⊕ ref; next := in ⊕ next (v1.3 passes > 0); R := P(in)
const COLUMN = 2; //    in = R; next ⊕= P(in)

@inline function loadIn(a: usize, b: usize, next: usize, mode: i32): v128 {
  if (mode == COLUMN) return v128.load(a);
  const x = v128.xor(v128.load(a), v128.load(b));
  v128.store(next, mode == ROW_XOR ? v128.xor(x, v128.load(next)) : x);
  return x;
}

@inline function storeOut(r: usize, next: usize, x: v128, mode: i32): void {
  if (mode == COLUMN) v128.store(next, v128.xor(v128.load(next), x));
  else v128.store(r, x);
}

// Low 32-bit halves of the four words of x and y, as i32 lanes [x.w0, x.w1, y.w0, y.w1].
@inline function lowHalves(x: v128, y: v128): v128 {
  return i32x4.shuffle(x, y, 0, 2, 4, 6);
}
// x + y + 2·p, where p = lo32(x)·lo32(y) (GB's multiply-add of §3.6).
@inline function addMul(x: v128, y: v128, p: v128): v128 {
  return i64x2.add(i64x2.add(x, y), i64x2.add(p, p));
}
// Two independent P applications interleaved (register sets `off` bytes apart): each GB step is a
// chain of dependent operations (shuffle → widening multiply → adds → xor → rotate), so one set
// alone leaves the core waiting on latencies; two sets give the out-of-order engine work to
// overlap. Rows 2i and 2i+1 (off 128) are independent, and so are columns 2i and 2i+1 (off 16).
@inline function roundV2(a: usize, b: usize, next: usize, r: usize, stride: usize, off: usize, mode: i32): void {
  let a0 = loadIn(a, b, next, mode);
  let e0 = loadIn(a + off, b + off, next + off, mode);
  let a1 = loadIn(a + stride, b + stride, next + stride, mode);
  let e1 = loadIn(a + off + stride, b + off + stride, next + off + stride, mode);
  let b0 = loadIn(a + 2 * stride, b + 2 * stride, next + 2 * stride, mode);
  let f0 = loadIn(a + off + 2 * stride, b + off + 2 * stride, next + off + 2 * stride, mode);
  let b1 = loadIn(a + 3 * stride, b + 3 * stride, next + 3 * stride, mode);
  let f1 = loadIn(a + off + 3 * stride, b + off + 3 * stride, next + off + 3 * stride, mode);
  let c0 = loadIn(a + 4 * stride, b + 4 * stride, next + 4 * stride, mode);
  let g0 = loadIn(a + off + 4 * stride, b + off + 4 * stride, next + off + 4 * stride, mode);
  let c1 = loadIn(a + 5 * stride, b + 5 * stride, next + 5 * stride, mode);
  let g1 = loadIn(a + off + 5 * stride, b + off + 5 * stride, next + off + 5 * stride, mode);
  let d0 = loadIn(a + 6 * stride, b + 6 * stride, next + 6 * stride, mode);
  let h0 = loadIn(a + off + 6 * stride, b + off + 6 * stride, next + off + 6 * stride, mode);
  let d1 = loadIn(a + 7 * stride, b + 7 * stride, next + 7 * stride, mode);
  let h1 = loadIn(a + off + 7 * stride, b + off + 7 * stride, next + off + 7 * stride, mode);
  // Each multiply-add pair shares one gather of low halves: extmul_low/high take lanes 0,1/2,3.
  // Column step: GB on (v0,v4,v8,v12) … (v3,v7,v11,v15), two per register pair.
  let s = lowHalves(a0, a1), t = lowHalves(b0, b1);
  let s2 = lowHalves(e0, e1), t2 = lowHalves(f0, f1);
  a0 = addMul(a0, b0, i64x2.extmul_low_i32x4_u(s, t)); a1 = addMul(a1, b1, i64x2.extmul_high_i32x4_u(s, t));
  e0 = addMul(e0, f0, i64x2.extmul_low_i32x4_u(s2, t2)); e1 = addMul(e1, f1, i64x2.extmul_high_i32x4_u(s2, t2));
  d0 = rotr32V(v128.xor(d0, a0)); d1 = rotr32V(v128.xor(d1, a1));
  h0 = rotr32V(v128.xor(h0, e0)); h1 = rotr32V(v128.xor(h1, e1));
  s = lowHalves(c0, c1); t = lowHalves(d0, d1);
  s2 = lowHalves(g0, g1); t2 = lowHalves(h0, h1);
  c0 = addMul(c0, d0, i64x2.extmul_low_i32x4_u(s, t)); c1 = addMul(c1, d1, i64x2.extmul_high_i32x4_u(s, t));
  g0 = addMul(g0, h0, i64x2.extmul_low_i32x4_u(s2, t2)); g1 = addMul(g1, h1, i64x2.extmul_high_i32x4_u(s2, t2));
  b0 = rotr24V(v128.xor(b0, c0)); b1 = rotr24V(v128.xor(b1, c1));
  f0 = rotr24V(v128.xor(f0, g0)); f1 = rotr24V(v128.xor(f1, g1));
  s = lowHalves(a0, a1); t = lowHalves(b0, b1);
  s2 = lowHalves(e0, e1); t2 = lowHalves(f0, f1);
  a0 = addMul(a0, b0, i64x2.extmul_low_i32x4_u(s, t)); a1 = addMul(a1, b1, i64x2.extmul_high_i32x4_u(s, t));
  e0 = addMul(e0, f0, i64x2.extmul_low_i32x4_u(s2, t2)); e1 = addMul(e1, f1, i64x2.extmul_high_i32x4_u(s2, t2));
  d0 = rotr16V(v128.xor(d0, a0)); d1 = rotr16V(v128.xor(d1, a1));
  h0 = rotr16V(v128.xor(h0, e0)); h1 = rotr16V(v128.xor(h1, e1));
  s = lowHalves(c0, c1); t = lowHalves(d0, d1);
  s2 = lowHalves(g0, g1); t2 = lowHalves(h0, h1);
  c0 = addMul(c0, d0, i64x2.extmul_low_i32x4_u(s, t)); c1 = addMul(c1, d1, i64x2.extmul_high_i32x4_u(s, t));
  g0 = addMul(g0, h0, i64x2.extmul_low_i32x4_u(s2, t2)); g1 = addMul(g1, h1, i64x2.extmul_high_i32x4_u(s2, t2));
  b0 = rotr63V(v128.xor(b0, c0)); b1 = rotr63V(v128.xor(b1, c1));
  f0 = rotr63V(v128.xor(f0, g0)); f1 = rotr63V(v128.xor(f1, g1));
  // Diagonalise: B = (v5,v6)(v7,v4), C = (v10,v11)(v8,v9), D = (v15,v12)(v13,v14).
  let u = b0;
  let u2 = f0;
  b0 = laneShift(b0, b1); b1 = laneShift(b1, u);
  f0 = laneShift(f0, f1); f1 = laneShift(f1, u2);
  u = c0; c0 = c1; c1 = u;
  u2 = g0; g0 = g1; g1 = u2;
  u = d0;
  u2 = h0;
  d0 = laneShift(d1, d0); d1 = laneShift(u, d1);
  h0 = laneShift(h1, h0); h1 = laneShift(u2, h1);
  // Diagonal step: GB on (v0,v5,v10,v15) … (v3,v4,v9,v14).
  s = lowHalves(a0, a1); t = lowHalves(b0, b1);
  s2 = lowHalves(e0, e1); t2 = lowHalves(f0, f1);
  a0 = addMul(a0, b0, i64x2.extmul_low_i32x4_u(s, t)); a1 = addMul(a1, b1, i64x2.extmul_high_i32x4_u(s, t));
  e0 = addMul(e0, f0, i64x2.extmul_low_i32x4_u(s2, t2)); e1 = addMul(e1, f1, i64x2.extmul_high_i32x4_u(s2, t2));
  d0 = rotr32V(v128.xor(d0, a0)); d1 = rotr32V(v128.xor(d1, a1));
  h0 = rotr32V(v128.xor(h0, e0)); h1 = rotr32V(v128.xor(h1, e1));
  s = lowHalves(c0, c1); t = lowHalves(d0, d1);
  s2 = lowHalves(g0, g1); t2 = lowHalves(h0, h1);
  c0 = addMul(c0, d0, i64x2.extmul_low_i32x4_u(s, t)); c1 = addMul(c1, d1, i64x2.extmul_high_i32x4_u(s, t));
  g0 = addMul(g0, h0, i64x2.extmul_low_i32x4_u(s2, t2)); g1 = addMul(g1, h1, i64x2.extmul_high_i32x4_u(s2, t2));
  b0 = rotr24V(v128.xor(b0, c0)); b1 = rotr24V(v128.xor(b1, c1));
  f0 = rotr24V(v128.xor(f0, g0)); f1 = rotr24V(v128.xor(f1, g1));
  s = lowHalves(a0, a1); t = lowHalves(b0, b1);
  s2 = lowHalves(e0, e1); t2 = lowHalves(f0, f1);
  a0 = addMul(a0, b0, i64x2.extmul_low_i32x4_u(s, t)); a1 = addMul(a1, b1, i64x2.extmul_high_i32x4_u(s, t));
  e0 = addMul(e0, f0, i64x2.extmul_low_i32x4_u(s2, t2)); e1 = addMul(e1, f1, i64x2.extmul_high_i32x4_u(s2, t2));
  d0 = rotr16V(v128.xor(d0, a0)); d1 = rotr16V(v128.xor(d1, a1));
  h0 = rotr16V(v128.xor(h0, e0)); h1 = rotr16V(v128.xor(h1, e1));
  s = lowHalves(c0, c1); t = lowHalves(d0, d1);
  s2 = lowHalves(g0, g1); t2 = lowHalves(h0, h1);
  c0 = addMul(c0, d0, i64x2.extmul_low_i32x4_u(s, t)); c1 = addMul(c1, d1, i64x2.extmul_high_i32x4_u(s, t));
  g0 = addMul(g0, h0, i64x2.extmul_low_i32x4_u(s2, t2)); g1 = addMul(g1, h1, i64x2.extmul_high_i32x4_u(s2, t2));
  b0 = rotr63V(v128.xor(b0, c0)); b1 = rotr63V(v128.xor(b1, c1));
  f0 = rotr63V(v128.xor(f0, g0)); f1 = rotr63V(v128.xor(f1, g1));
  // Undiagonalise.
  u = b0;
  u2 = f0;
  b0 = laneShift(b1, b0); b1 = laneShift(u, b1);
  f0 = laneShift(f1, f0); f1 = laneShift(u2, f1);
  u = c0; c0 = c1; c1 = u;
  u2 = g0; g0 = g1; g1 = u2;
  u = d0;
  u2 = h0;
  d0 = laneShift(d0, d1); d1 = laneShift(d1, u);
  h0 = laneShift(h0, h1); h1 = laneShift(h1, u2);
  storeOut(r, next, a0, mode);
  storeOut(r + off, next + off, e0, mode);
  storeOut(r + stride, next + stride, a1, mode);
  storeOut(r + off + stride, next + off + stride, e1, mode);
  storeOut(r + 2 * stride, next + 2 * stride, b0, mode);
  storeOut(r + off + 2 * stride, next + off + 2 * stride, f0, mode);
  storeOut(r + 3 * stride, next + 3 * stride, b1, mode);
  storeOut(r + off + 3 * stride, next + off + 3 * stride, f1, mode);
  storeOut(r + 4 * stride, next + 4 * stride, c0, mode);
  storeOut(r + off + 4 * stride, next + off + 4 * stride, g0, mode);
  storeOut(r + 5 * stride, next + 5 * stride, c1, mode);
  storeOut(r + off + 5 * stride, next + off + 5 * stride, g1, mode);
  storeOut(r + 6 * stride, next + 6 * stride, d0, mode);
  storeOut(r + off + 6 * stride, next + off + 6 * stride, h0, mode);
  storeOut(r + 7 * stride, next + 7 * stride, d1, mode);
  storeOut(r + off + 7 * stride, next + off + 7 * stride, h1, mode);
}

// Scalar build: the same P on 16 words, word k at base + (k>>1)*stride + (k&1)*8.
@inline function fBlaMka(x: u64, y: u64): u64 {
  return x + y + 2 * (x & 0xffffffff) * (y & 0xffffffff);
}

@inline function roundScalar(base: usize, stride: usize): void {
  let v0: u64 = load<u64>(base + 0 * stride + 0);
  let v1: u64 = load<u64>(base + 0 * stride + 8);
  let v2: u64 = load<u64>(base + 1 * stride + 0);
  let v3: u64 = load<u64>(base + 1 * stride + 8);
  let v4: u64 = load<u64>(base + 2 * stride + 0);
  let v5: u64 = load<u64>(base + 2 * stride + 8);
  let v6: u64 = load<u64>(base + 3 * stride + 0);
  let v7: u64 = load<u64>(base + 3 * stride + 8);
  let v8: u64 = load<u64>(base + 4 * stride + 0);
  let v9: u64 = load<u64>(base + 4 * stride + 8);
  let v10: u64 = load<u64>(base + 5 * stride + 0);
  let v11: u64 = load<u64>(base + 5 * stride + 8);
  let v12: u64 = load<u64>(base + 6 * stride + 0);
  let v13: u64 = load<u64>(base + 6 * stride + 8);
  let v14: u64 = load<u64>(base + 7 * stride + 0);
  let v15: u64 = load<u64>(base + 7 * stride + 8);
  v0 = fBlaMka(v0, v4); v12 = rotr(v12 ^ v0, 32); v8 = fBlaMka(v8, v12); v4 = rotr(v4 ^ v8, 24);
  v0 = fBlaMka(v0, v4); v12 = rotr(v12 ^ v0, 16); v8 = fBlaMka(v8, v12); v4 = rotr(v4 ^ v8, 63);
  v1 = fBlaMka(v1, v5); v13 = rotr(v13 ^ v1, 32); v9 = fBlaMka(v9, v13); v5 = rotr(v5 ^ v9, 24);
  v1 = fBlaMka(v1, v5); v13 = rotr(v13 ^ v1, 16); v9 = fBlaMka(v9, v13); v5 = rotr(v5 ^ v9, 63);
  v2 = fBlaMka(v2, v6); v14 = rotr(v14 ^ v2, 32); v10 = fBlaMka(v10, v14); v6 = rotr(v6 ^ v10, 24);
  v2 = fBlaMka(v2, v6); v14 = rotr(v14 ^ v2, 16); v10 = fBlaMka(v10, v14); v6 = rotr(v6 ^ v10, 63);
  v3 = fBlaMka(v3, v7); v15 = rotr(v15 ^ v3, 32); v11 = fBlaMka(v11, v15); v7 = rotr(v7 ^ v11, 24);
  v3 = fBlaMka(v3, v7); v15 = rotr(v15 ^ v3, 16); v11 = fBlaMka(v11, v15); v7 = rotr(v7 ^ v11, 63);
  v0 = fBlaMka(v0, v5); v15 = rotr(v15 ^ v0, 32); v10 = fBlaMka(v10, v15); v5 = rotr(v5 ^ v10, 24);
  v0 = fBlaMka(v0, v5); v15 = rotr(v15 ^ v0, 16); v10 = fBlaMka(v10, v15); v5 = rotr(v5 ^ v10, 63);
  v1 = fBlaMka(v1, v6); v12 = rotr(v12 ^ v1, 32); v11 = fBlaMka(v11, v12); v6 = rotr(v6 ^ v11, 24);
  v1 = fBlaMka(v1, v6); v12 = rotr(v12 ^ v1, 16); v11 = fBlaMka(v11, v12); v6 = rotr(v6 ^ v11, 63);
  v2 = fBlaMka(v2, v7); v13 = rotr(v13 ^ v2, 32); v8 = fBlaMka(v8, v13); v7 = rotr(v7 ^ v8, 24);
  v2 = fBlaMka(v2, v7); v13 = rotr(v13 ^ v2, 16); v8 = fBlaMka(v8, v13); v7 = rotr(v7 ^ v8, 63);
  v3 = fBlaMka(v3, v4); v14 = rotr(v14 ^ v3, 32); v9 = fBlaMka(v9, v14); v4 = rotr(v4 ^ v9, 24);
  v3 = fBlaMka(v3, v4); v14 = rotr(v14 ^ v3, 16); v9 = fBlaMka(v9, v14); v4 = rotr(v4 ^ v9, 63);
  store<u64>(base + 0 * stride + 0, v0);
  store<u64>(base + 0 * stride + 8, v1);
  store<u64>(base + 1 * stride + 0, v2);
  store<u64>(base + 1 * stride + 8, v3);
  store<u64>(base + 2 * stride + 0, v4);
  store<u64>(base + 2 * stride + 8, v5);
  store<u64>(base + 3 * stride + 0, v6);
  store<u64>(base + 3 * stride + 8, v7);
  store<u64>(base + 4 * stride + 0, v8);
  store<u64>(base + 4 * stride + 8, v9);
  store<u64>(base + 5 * stride + 0, v10);
  store<u64>(base + 5 * stride + 8, v11);
  store<u64>(base + 6 * stride + 0, v12);
  store<u64>(base + 6 * stride + 8, v13);
  store<u64>(base + 7 * stride + 0, v14);
  store<u64>(base + 7 * stride + 8, v15);
}

/**
 * G of §3.5: next = P(prev ⊕ ref) ⊕ prev ⊕ ref, or, for passes after the first (v1.3,
 * `withXor`), that value XORed into the existing next block. `next` may alias `ref`.
 */
function fillBlock(prev: usize, ref: usize, next: usize, withXor: bool): void {
  if (ASC_FEATURE_SIMD) {
    // Rows read prev ⊕ ref and leave it (⊕ old next) in next; columns XOR P's output into next.
    if (withXor) {
      for (let i: usize = 0; i < BLOCK; i += 256) roundV2(prev + i, ref + i, next + i, R + i, 16, 128, ROW_XOR);
    } else {
      for (let i: usize = 0; i < BLOCK; i += 256) roundV2(prev + i, ref + i, next + i, R + i, 16, 128, ROW_FIRST);
    }
    for (let i: usize = 0; i < 128; i += 32) roundV2(R + i, 0, next + i, 0, 128, 16, COLUMN);
  } else {
    // R = prev ⊕ ref; next gets R (⊕ old next) now and ⊕ P(R) at the end.
    for (let i: usize = 0; i < BLOCK; i += 8) {
      const r = load<u64>(prev + i) ^ load<u64>(ref + i);
      store<u64>(R + i, r);
      store<u64>(next + i, withXor ? r ^ load<u64>(next + i) : r);
    }
    for (let i: usize = 0; i < 8; i++) roundScalar(R + i * 128, 16);
    for (let i: usize = 0; i < 8; i++) roundScalar(R + i * 16, 128);
    for (let i: usize = 0; i < BLOCK; i += 8) {
      store<u64>(next + i, load<u64>(next + i) ^ load<u64>(R + i));
    }
  }
}

// Next Argon2i address block (§3.4.1.2): counter += 1, address = G(0, G(0, input)).
function nextAddresses(): void {
  store<u64>(INPUT, load<u64>(INPUT, 48) + 1, 48);
  fillBlock(ZERO, INPUT, ADDRESS, false);
  fillBlock(ZERO, ADDRESS, ADDRESS, false);
}

// Parameters of the current hash, set by argon2Finish.
let lanes: u32 = 0;
let laneLength: u32 = 0;
let segmentLength: u32 = 0;
let passes: u32 = 0;
let argonType: u32 = 0;
let argonVersion: u32 = 0;

@inline function blockAt(lane: u32, index: u32): usize {
  return MATRIX + (<usize>lane * laneLength + index) * BLOCK;
}

// Fills one segment (§3.4): `pass`, `slice`, `lane`.
function fillSegment(pass: u32, slice: u32, lane: u32): void {
  // Argon2i always, Argon2id in the first half of the first pass: data-independent indices.
  const independent = argonType == 1 || (argonType == 2 && pass == 0 && slice < SYNC_POINTS / 2);
  if (independent) {
    memory.fill(INPUT, 0, <i32>BLOCK);
    store<u64>(INPUT, <u64>pass, 0);
    store<u64>(INPUT, <u64>lane, 8);
    store<u64>(INPUT, <u64>slice, 16);
    store<u64>(INPUT, <u64>lanes * laneLength, 24);
    store<u64>(INPUT, <u64>passes, 32);
    store<u64>(INPUT, <u64>argonType, 40);
  }
  let start: u32 = 0;
  if (pass == 0 && slice == 0) {
    start = 2; // B[i][0], B[i][1] come from H0
    if (independent) nextAddresses();
  }
  let curIndex = slice * segmentLength + start;
  let cur = blockAt(lane, curIndex);
  let prev = curIndex == 0 ? blockAt(lane, laneLength - 1) : cur - BLOCK;
  const withXor = pass != 0 && argonVersion != 0x10;
  for (let i = start; i < segmentLength; i++, curIndex++) {
    let rand: u64;
    if (independent) {
      if (i % ADDRESSES_PER_BLOCK == 0) nextAddresses();
      rand = load<u64>(ADDRESS + (<usize>(i % ADDRESSES_PER_BLOCK) << 3));
    } else {
      rand = load<u64>(prev);
    }
    // Reference lane (§3.4.1.1), then the reference block index within it (§3.4.1.3).
    const refLane: u32 = pass == 0 && slice == 0 ? lane : <u32>(rand >> 32) % lanes;
    const sameLane = refLane == lane;
    let areaSize: u32;
    if (pass == 0) {
      areaSize = slice == 0 ? i - 1 : sameLane ? slice * segmentLength + i - 1 : slice * segmentLength - (i == 0 ? 1 : 0);
    } else {
      areaSize = sameLane ? laneLength - segmentLength + i - 1 : laneLength - segmentLength - (i == 0 ? 1 : 0);
    }
    let rel: u64 = rand & 0xffffffff;
    rel = (rel * rel) >> 32;
    rel = <u64>areaSize - 1 - ((<u64>areaSize * rel) >> 32);
    const startPos: u32 = pass == 0 || slice == SYNC_POINTS - 1 ? 0 : (slice + 1) * segmentLength;
    // startPos + rel < 2·laneLength, so the reduction mod laneLength is one conditional subtraction.
    let refIndex = startPos + <u32>rel;
    if (refIndex >= laneLength) refIndex -= laneLength;
    fillBlock(prev, blockAt(refLane, refIndex), cur, withXor);
    prev = cur;
    cur += BLOCK;
  }
}

/**
 * Starts an Argon2 hash: begins H0 (§3.2 step 1) with its six leading LE32 fields. The caller
 * then absorbs LE32(len) ‖ bytes for password, salt, secret and associated data through the
 * BLAKE2b stream and calls `argon2Finish` with the same parameters.
 */
export function argon2Begin(parallelism: u32, tagLength: u32, memoryKiB: u32, iterations: u32, version: u32, type: u32): void {
  b2Init(H0_BYTES, 0, 0);
  b2UpdateLE32(parallelism);
  b2UpdateLE32(tagLength);
  b2UpdateLE32(memoryKiB);
  b2UpdateLE32(iterations);
  b2UpdateLE32(version);
  b2UpdateLE32(type);
}

/**
 * Finishes H0, fills memory and writes the `tagLength`-byte tag at `argon2Output()`.
 * Parameters were range-checked by the caller; returns false (and does nothing) if the matrix
 * does not fit the reserved memory.
 */
export function argon2Finish(parallelism: u32, tagLength: u32, memoryKiB: u32, iterations: u32, version: u32, type: u32): bool {
  // m' = 4·p·floor(m / 4p) blocks (§3.2 step 5).
  const segment = memoryKiB / (SYNC_POINTS * parallelism);
  const blocks = segment * SYNC_POINTS * parallelism;
  if (blocks > reservedBlocks || <u64>tagLength > <u64>blocks * BLOCK) return false;
  lanes = parallelism;
  segmentLength = segment;
  laneLength = segment * SYNC_POINTS;
  passes = iterations;
  argonType = type;
  argonVersion = version;

  b2Final(H0);
  // B[i][0] = H'^1024(H0 ‖ LE32(0) ‖ LE32(i)), B[i][1] = H'^1024(H0 ‖ LE32(1) ‖ LE32(i)).
  for (let lane: u32 = 0; lane < lanes; lane++) {
    store<u32>(H0 + H0_BYTES + 4, lane);
    store<u32>(H0 + H0_BYTES, 0);
    b2Long(blockAt(lane, 0), <u32>BLOCK, H0, H0_BYTES + 8);
    store<u32>(H0 + H0_BYTES, 1);
    b2Long(blockAt(lane, 1), <u32>BLOCK, H0, H0_BYTES + 8);
  }
  for (let pass: u32 = 0; pass < passes; pass++) {
    for (let slice: u32 = 0; slice < SYNC_POINTS; slice++) {
      for (let lane: u32 = 0; lane < lanes; lane++) fillSegment(pass, slice, lane);
    }
  }
  // C = XOR of the last column; tag = H'^T(C) (§3.2 steps 7–8).
  memory.copy(FINAL, blockAt(0, laneLength - 1), BLOCK);
  for (let lane: u32 = 1; lane < lanes; lane++) {
    const last = blockAt(lane, laneLength - 1);
    for (let i: usize = 0; i < BLOCK; i += 8) store<u64>(FINAL + i, load<u64>(FINAL + i) ^ load<u64>(last + i));
  }
  b2Long(MATRIX, tagLength, FINAL, <i32>BLOCK);
  return true;
}
