// v128 helpers on two 64-bit lanes shared by the SIMD BLAKE2b compression (blake2b.ts) and the
// Argon2 permutation P (argon2.ts). Not re-exported by index.ts: these are compiled into their
// callers only, and only in the SIMD build.

// 64-bit rotations right. 32 is one pshufd. 24 and 16 are byte swizzles by constant in-range
// masks: V8 emits one pshufb each and materialises each mask once per function (an i8x16.shuffle
// would rebuild its mask at every use; shifts or pshuflw+pshufhw cost 2-3 vector ops). 63 is
// x+x | x>>63.
@inline export function rotr32V(x: v128): v128 {
  return i32x4.shuffle(x, x, 1, 0, 3, 2);
}
@inline export function rotr24V(x: v128): v128 {
  return i8x16.swizzle(x, i8x16(3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10));
}
@inline export function rotr16V(x: v128): v128 {
  return i8x16.swizzle(x, i8x16(2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9));
}
@inline export function rotr63V(x: v128): v128 {
  return v128.or(i64x2.add(x, x), i64x2.shr_u(x, 63));
}

// (x1, y0) of x = (x0, x1), y = (y0, y1): the lane rotation that (un)diagonalises a 4×4 state
// held as row pairs (one palignr).
@inline export function laneShift(x: v128, y: v128): v128 {
  return i64x2.shuffle(x, y, 1, 2);
}
