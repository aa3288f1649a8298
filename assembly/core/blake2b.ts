// BLAKE2b (RFC 7693) with output lengths 1..64, keyed mode, and the long-output hash H' of
// Argon2 (RFC 9106 §3.3). One streaming state lives in static memory: the JS wrapper and the
// Argon2 H0 pre-hash (RFC 9106 §3.2 step 1) feed it through the input window below, so large
// inputs (the 234,236-byte PoW salt) never need a heap copy. Nothing here allocates.
import { laneShift, rotr16V, rotr24V, rotr32V, rotr63V } from './lanes64';

/** Size of the input window JS copies data into before calling `blake2bUpdate`. */
export const BLAKE2B_WINDOW_SIZE: i32 = 16384;
const BLOCK_BYTES: i32 = 128;

const WINDOW: usize = memory.data(BLAKE2B_WINDOW_SIZE, 16);
const OUT: usize = memory.data(64, 16);
// Streaming state: chaining value h[0..7], the pending (not yet compressed) block, its fill level,
// the byte counter t (RFC 7693 §3.2; 64 bits are enough for any input this program accepts).
const H: usize = memory.data(64, 16);
const BUF: usize = memory.data(BLOCK_BYTES, 16);
let bufLen: i32 = 0;
let counter: u64 = 0;
let outLength: i32 = 64;

// RFC 7693 §2.6 initialisation vector.
const IV0: u64 = 0x6a09e667f3bcc908;
const IV1: u64 = 0xbb67ae8584caa73b;
const IV2: u64 = 0x3c6ef372fe94f82b;
const IV3: u64 = 0xa54ff53a5f1d36f1;
const IV4: u64 = 0x510e527fade682d1;
const IV5: u64 = 0x9b05688c2b3e6c1f;
const IV6: u64 = 0x1f83d9abfb41bd6b;
const IV7: u64 = 0x5be0cd19137e2179;

/** Address of the input window (BLAKE2B_WINDOW_SIZE bytes). */
export function blake2bWindow(): usize {
  return WINDOW;
}

/** Address of the 64-byte digest output of `blake2bFinal`. */
export function blake2bOutput(): usize {
  return OUT;
}

/** RFC 7693 §3.2 compression F of the block at `m` into the chaining value at `h`. */
function compress(h: usize, m: usize, t: u64, last: bool): void {
  let v0 = load<u64>(h, 0), v1 = load<u64>(h, 8), v2 = load<u64>(h, 16), v3 = load<u64>(h, 24);
  let v4 = load<u64>(h, 32), v5 = load<u64>(h, 40), v6 = load<u64>(h, 48), v7 = load<u64>(h, 56);
  let v8 = IV0, v9 = IV1, v10 = IV2, v11 = IV3;
  let v12 = IV4 ^ t, v13 = IV5, v14 = last ? ~IV6 : IV6, v15 = IV7;
  // Twelve rounds of G (RFC 7693 §3.1), message words permuted by SIGMA[round mod 10], unrolled.
  // Message words are read from memory where used: fewer live values, fewer register spills.
  // round 0
  v0 += v4 + load<u64>(m, 0); v12 = rotr(v12 ^ v0, 32); v8 += v12; v4 = rotr(v4 ^ v8, 24); v0 += v4 + load<u64>(m, 8); v12 = rotr(v12 ^ v0, 16); v8 += v12; v4 = rotr(v4 ^ v8, 63);
  v1 += v5 + load<u64>(m, 16); v13 = rotr(v13 ^ v1, 32); v9 += v13; v5 = rotr(v5 ^ v9, 24); v1 += v5 + load<u64>(m, 24); v13 = rotr(v13 ^ v1, 16); v9 += v13; v5 = rotr(v5 ^ v9, 63);
  v2 += v6 + load<u64>(m, 32); v14 = rotr(v14 ^ v2, 32); v10 += v14; v6 = rotr(v6 ^ v10, 24); v2 += v6 + load<u64>(m, 40); v14 = rotr(v14 ^ v2, 16); v10 += v14; v6 = rotr(v6 ^ v10, 63);
  v3 += v7 + load<u64>(m, 48); v15 = rotr(v15 ^ v3, 32); v11 += v15; v7 = rotr(v7 ^ v11, 24); v3 += v7 + load<u64>(m, 56); v15 = rotr(v15 ^ v3, 16); v11 += v15; v7 = rotr(v7 ^ v11, 63);
  v0 += v5 + load<u64>(m, 64); v15 = rotr(v15 ^ v0, 32); v10 += v15; v5 = rotr(v5 ^ v10, 24); v0 += v5 + load<u64>(m, 72); v15 = rotr(v15 ^ v0, 16); v10 += v15; v5 = rotr(v5 ^ v10, 63);
  v1 += v6 + load<u64>(m, 80); v12 = rotr(v12 ^ v1, 32); v11 += v12; v6 = rotr(v6 ^ v11, 24); v1 += v6 + load<u64>(m, 88); v12 = rotr(v12 ^ v1, 16); v11 += v12; v6 = rotr(v6 ^ v11, 63);
  v2 += v7 + load<u64>(m, 96); v13 = rotr(v13 ^ v2, 32); v8 += v13; v7 = rotr(v7 ^ v8, 24); v2 += v7 + load<u64>(m, 104); v13 = rotr(v13 ^ v2, 16); v8 += v13; v7 = rotr(v7 ^ v8, 63);
  v3 += v4 + load<u64>(m, 112); v14 = rotr(v14 ^ v3, 32); v9 += v14; v4 = rotr(v4 ^ v9, 24); v3 += v4 + load<u64>(m, 120); v14 = rotr(v14 ^ v3, 16); v9 += v14; v4 = rotr(v4 ^ v9, 63);
  // round 1
  v0 += v4 + load<u64>(m, 112); v12 = rotr(v12 ^ v0, 32); v8 += v12; v4 = rotr(v4 ^ v8, 24); v0 += v4 + load<u64>(m, 80); v12 = rotr(v12 ^ v0, 16); v8 += v12; v4 = rotr(v4 ^ v8, 63);
  v1 += v5 + load<u64>(m, 32); v13 = rotr(v13 ^ v1, 32); v9 += v13; v5 = rotr(v5 ^ v9, 24); v1 += v5 + load<u64>(m, 64); v13 = rotr(v13 ^ v1, 16); v9 += v13; v5 = rotr(v5 ^ v9, 63);
  v2 += v6 + load<u64>(m, 72); v14 = rotr(v14 ^ v2, 32); v10 += v14; v6 = rotr(v6 ^ v10, 24); v2 += v6 + load<u64>(m, 120); v14 = rotr(v14 ^ v2, 16); v10 += v14; v6 = rotr(v6 ^ v10, 63);
  v3 += v7 + load<u64>(m, 104); v15 = rotr(v15 ^ v3, 32); v11 += v15; v7 = rotr(v7 ^ v11, 24); v3 += v7 + load<u64>(m, 48); v15 = rotr(v15 ^ v3, 16); v11 += v15; v7 = rotr(v7 ^ v11, 63);
  v0 += v5 + load<u64>(m, 8); v15 = rotr(v15 ^ v0, 32); v10 += v15; v5 = rotr(v5 ^ v10, 24); v0 += v5 + load<u64>(m, 96); v15 = rotr(v15 ^ v0, 16); v10 += v15; v5 = rotr(v5 ^ v10, 63);
  v1 += v6 + load<u64>(m, 0); v12 = rotr(v12 ^ v1, 32); v11 += v12; v6 = rotr(v6 ^ v11, 24); v1 += v6 + load<u64>(m, 16); v12 = rotr(v12 ^ v1, 16); v11 += v12; v6 = rotr(v6 ^ v11, 63);
  v2 += v7 + load<u64>(m, 88); v13 = rotr(v13 ^ v2, 32); v8 += v13; v7 = rotr(v7 ^ v8, 24); v2 += v7 + load<u64>(m, 56); v13 = rotr(v13 ^ v2, 16); v8 += v13; v7 = rotr(v7 ^ v8, 63);
  v3 += v4 + load<u64>(m, 40); v14 = rotr(v14 ^ v3, 32); v9 += v14; v4 = rotr(v4 ^ v9, 24); v3 += v4 + load<u64>(m, 24); v14 = rotr(v14 ^ v3, 16); v9 += v14; v4 = rotr(v4 ^ v9, 63);
  // round 2
  v0 += v4 + load<u64>(m, 88); v12 = rotr(v12 ^ v0, 32); v8 += v12; v4 = rotr(v4 ^ v8, 24); v0 += v4 + load<u64>(m, 64); v12 = rotr(v12 ^ v0, 16); v8 += v12; v4 = rotr(v4 ^ v8, 63);
  v1 += v5 + load<u64>(m, 96); v13 = rotr(v13 ^ v1, 32); v9 += v13; v5 = rotr(v5 ^ v9, 24); v1 += v5 + load<u64>(m, 0); v13 = rotr(v13 ^ v1, 16); v9 += v13; v5 = rotr(v5 ^ v9, 63);
  v2 += v6 + load<u64>(m, 40); v14 = rotr(v14 ^ v2, 32); v10 += v14; v6 = rotr(v6 ^ v10, 24); v2 += v6 + load<u64>(m, 16); v14 = rotr(v14 ^ v2, 16); v10 += v14; v6 = rotr(v6 ^ v10, 63);
  v3 += v7 + load<u64>(m, 120); v15 = rotr(v15 ^ v3, 32); v11 += v15; v7 = rotr(v7 ^ v11, 24); v3 += v7 + load<u64>(m, 104); v15 = rotr(v15 ^ v3, 16); v11 += v15; v7 = rotr(v7 ^ v11, 63);
  v0 += v5 + load<u64>(m, 80); v15 = rotr(v15 ^ v0, 32); v10 += v15; v5 = rotr(v5 ^ v10, 24); v0 += v5 + load<u64>(m, 112); v15 = rotr(v15 ^ v0, 16); v10 += v15; v5 = rotr(v5 ^ v10, 63);
  v1 += v6 + load<u64>(m, 24); v12 = rotr(v12 ^ v1, 32); v11 += v12; v6 = rotr(v6 ^ v11, 24); v1 += v6 + load<u64>(m, 48); v12 = rotr(v12 ^ v1, 16); v11 += v12; v6 = rotr(v6 ^ v11, 63);
  v2 += v7 + load<u64>(m, 56); v13 = rotr(v13 ^ v2, 32); v8 += v13; v7 = rotr(v7 ^ v8, 24); v2 += v7 + load<u64>(m, 8); v13 = rotr(v13 ^ v2, 16); v8 += v13; v7 = rotr(v7 ^ v8, 63);
  v3 += v4 + load<u64>(m, 72); v14 = rotr(v14 ^ v3, 32); v9 += v14; v4 = rotr(v4 ^ v9, 24); v3 += v4 + load<u64>(m, 32); v14 = rotr(v14 ^ v3, 16); v9 += v14; v4 = rotr(v4 ^ v9, 63);
  // round 3
  v0 += v4 + load<u64>(m, 56); v12 = rotr(v12 ^ v0, 32); v8 += v12; v4 = rotr(v4 ^ v8, 24); v0 += v4 + load<u64>(m, 72); v12 = rotr(v12 ^ v0, 16); v8 += v12; v4 = rotr(v4 ^ v8, 63);
  v1 += v5 + load<u64>(m, 24); v13 = rotr(v13 ^ v1, 32); v9 += v13; v5 = rotr(v5 ^ v9, 24); v1 += v5 + load<u64>(m, 8); v13 = rotr(v13 ^ v1, 16); v9 += v13; v5 = rotr(v5 ^ v9, 63);
  v2 += v6 + load<u64>(m, 104); v14 = rotr(v14 ^ v2, 32); v10 += v14; v6 = rotr(v6 ^ v10, 24); v2 += v6 + load<u64>(m, 96); v14 = rotr(v14 ^ v2, 16); v10 += v14; v6 = rotr(v6 ^ v10, 63);
  v3 += v7 + load<u64>(m, 88); v15 = rotr(v15 ^ v3, 32); v11 += v15; v7 = rotr(v7 ^ v11, 24); v3 += v7 + load<u64>(m, 112); v15 = rotr(v15 ^ v3, 16); v11 += v15; v7 = rotr(v7 ^ v11, 63);
  v0 += v5 + load<u64>(m, 16); v15 = rotr(v15 ^ v0, 32); v10 += v15; v5 = rotr(v5 ^ v10, 24); v0 += v5 + load<u64>(m, 48); v15 = rotr(v15 ^ v0, 16); v10 += v15; v5 = rotr(v5 ^ v10, 63);
  v1 += v6 + load<u64>(m, 40); v12 = rotr(v12 ^ v1, 32); v11 += v12; v6 = rotr(v6 ^ v11, 24); v1 += v6 + load<u64>(m, 80); v12 = rotr(v12 ^ v1, 16); v11 += v12; v6 = rotr(v6 ^ v11, 63);
  v2 += v7 + load<u64>(m, 32); v13 = rotr(v13 ^ v2, 32); v8 += v13; v7 = rotr(v7 ^ v8, 24); v2 += v7 + load<u64>(m, 0); v13 = rotr(v13 ^ v2, 16); v8 += v13; v7 = rotr(v7 ^ v8, 63);
  v3 += v4 + load<u64>(m, 120); v14 = rotr(v14 ^ v3, 32); v9 += v14; v4 = rotr(v4 ^ v9, 24); v3 += v4 + load<u64>(m, 64); v14 = rotr(v14 ^ v3, 16); v9 += v14; v4 = rotr(v4 ^ v9, 63);
  // round 4
  v0 += v4 + load<u64>(m, 72); v12 = rotr(v12 ^ v0, 32); v8 += v12; v4 = rotr(v4 ^ v8, 24); v0 += v4 + load<u64>(m, 0); v12 = rotr(v12 ^ v0, 16); v8 += v12; v4 = rotr(v4 ^ v8, 63);
  v1 += v5 + load<u64>(m, 40); v13 = rotr(v13 ^ v1, 32); v9 += v13; v5 = rotr(v5 ^ v9, 24); v1 += v5 + load<u64>(m, 56); v13 = rotr(v13 ^ v1, 16); v9 += v13; v5 = rotr(v5 ^ v9, 63);
  v2 += v6 + load<u64>(m, 16); v14 = rotr(v14 ^ v2, 32); v10 += v14; v6 = rotr(v6 ^ v10, 24); v2 += v6 + load<u64>(m, 32); v14 = rotr(v14 ^ v2, 16); v10 += v14; v6 = rotr(v6 ^ v10, 63);
  v3 += v7 + load<u64>(m, 80); v15 = rotr(v15 ^ v3, 32); v11 += v15; v7 = rotr(v7 ^ v11, 24); v3 += v7 + load<u64>(m, 120); v15 = rotr(v15 ^ v3, 16); v11 += v15; v7 = rotr(v7 ^ v11, 63);
  v0 += v5 + load<u64>(m, 112); v15 = rotr(v15 ^ v0, 32); v10 += v15; v5 = rotr(v5 ^ v10, 24); v0 += v5 + load<u64>(m, 8); v15 = rotr(v15 ^ v0, 16); v10 += v15; v5 = rotr(v5 ^ v10, 63);
  v1 += v6 + load<u64>(m, 88); v12 = rotr(v12 ^ v1, 32); v11 += v12; v6 = rotr(v6 ^ v11, 24); v1 += v6 + load<u64>(m, 96); v12 = rotr(v12 ^ v1, 16); v11 += v12; v6 = rotr(v6 ^ v11, 63);
  v2 += v7 + load<u64>(m, 48); v13 = rotr(v13 ^ v2, 32); v8 += v13; v7 = rotr(v7 ^ v8, 24); v2 += v7 + load<u64>(m, 64); v13 = rotr(v13 ^ v2, 16); v8 += v13; v7 = rotr(v7 ^ v8, 63);
  v3 += v4 + load<u64>(m, 24); v14 = rotr(v14 ^ v3, 32); v9 += v14; v4 = rotr(v4 ^ v9, 24); v3 += v4 + load<u64>(m, 104); v14 = rotr(v14 ^ v3, 16); v9 += v14; v4 = rotr(v4 ^ v9, 63);
  // round 5
  v0 += v4 + load<u64>(m, 16); v12 = rotr(v12 ^ v0, 32); v8 += v12; v4 = rotr(v4 ^ v8, 24); v0 += v4 + load<u64>(m, 96); v12 = rotr(v12 ^ v0, 16); v8 += v12; v4 = rotr(v4 ^ v8, 63);
  v1 += v5 + load<u64>(m, 48); v13 = rotr(v13 ^ v1, 32); v9 += v13; v5 = rotr(v5 ^ v9, 24); v1 += v5 + load<u64>(m, 80); v13 = rotr(v13 ^ v1, 16); v9 += v13; v5 = rotr(v5 ^ v9, 63);
  v2 += v6 + load<u64>(m, 0); v14 = rotr(v14 ^ v2, 32); v10 += v14; v6 = rotr(v6 ^ v10, 24); v2 += v6 + load<u64>(m, 88); v14 = rotr(v14 ^ v2, 16); v10 += v14; v6 = rotr(v6 ^ v10, 63);
  v3 += v7 + load<u64>(m, 64); v15 = rotr(v15 ^ v3, 32); v11 += v15; v7 = rotr(v7 ^ v11, 24); v3 += v7 + load<u64>(m, 24); v15 = rotr(v15 ^ v3, 16); v11 += v15; v7 = rotr(v7 ^ v11, 63);
  v0 += v5 + load<u64>(m, 32); v15 = rotr(v15 ^ v0, 32); v10 += v15; v5 = rotr(v5 ^ v10, 24); v0 += v5 + load<u64>(m, 104); v15 = rotr(v15 ^ v0, 16); v10 += v15; v5 = rotr(v5 ^ v10, 63);
  v1 += v6 + load<u64>(m, 56); v12 = rotr(v12 ^ v1, 32); v11 += v12; v6 = rotr(v6 ^ v11, 24); v1 += v6 + load<u64>(m, 40); v12 = rotr(v12 ^ v1, 16); v11 += v12; v6 = rotr(v6 ^ v11, 63);
  v2 += v7 + load<u64>(m, 120); v13 = rotr(v13 ^ v2, 32); v8 += v13; v7 = rotr(v7 ^ v8, 24); v2 += v7 + load<u64>(m, 112); v13 = rotr(v13 ^ v2, 16); v8 += v13; v7 = rotr(v7 ^ v8, 63);
  v3 += v4 + load<u64>(m, 8); v14 = rotr(v14 ^ v3, 32); v9 += v14; v4 = rotr(v4 ^ v9, 24); v3 += v4 + load<u64>(m, 72); v14 = rotr(v14 ^ v3, 16); v9 += v14; v4 = rotr(v4 ^ v9, 63);
  // round 6
  v0 += v4 + load<u64>(m, 96); v12 = rotr(v12 ^ v0, 32); v8 += v12; v4 = rotr(v4 ^ v8, 24); v0 += v4 + load<u64>(m, 40); v12 = rotr(v12 ^ v0, 16); v8 += v12; v4 = rotr(v4 ^ v8, 63);
  v1 += v5 + load<u64>(m, 8); v13 = rotr(v13 ^ v1, 32); v9 += v13; v5 = rotr(v5 ^ v9, 24); v1 += v5 + load<u64>(m, 120); v13 = rotr(v13 ^ v1, 16); v9 += v13; v5 = rotr(v5 ^ v9, 63);
  v2 += v6 + load<u64>(m, 112); v14 = rotr(v14 ^ v2, 32); v10 += v14; v6 = rotr(v6 ^ v10, 24); v2 += v6 + load<u64>(m, 104); v14 = rotr(v14 ^ v2, 16); v10 += v14; v6 = rotr(v6 ^ v10, 63);
  v3 += v7 + load<u64>(m, 32); v15 = rotr(v15 ^ v3, 32); v11 += v15; v7 = rotr(v7 ^ v11, 24); v3 += v7 + load<u64>(m, 80); v15 = rotr(v15 ^ v3, 16); v11 += v15; v7 = rotr(v7 ^ v11, 63);
  v0 += v5 + load<u64>(m, 0); v15 = rotr(v15 ^ v0, 32); v10 += v15; v5 = rotr(v5 ^ v10, 24); v0 += v5 + load<u64>(m, 56); v15 = rotr(v15 ^ v0, 16); v10 += v15; v5 = rotr(v5 ^ v10, 63);
  v1 += v6 + load<u64>(m, 48); v12 = rotr(v12 ^ v1, 32); v11 += v12; v6 = rotr(v6 ^ v11, 24); v1 += v6 + load<u64>(m, 24); v12 = rotr(v12 ^ v1, 16); v11 += v12; v6 = rotr(v6 ^ v11, 63);
  v2 += v7 + load<u64>(m, 72); v13 = rotr(v13 ^ v2, 32); v8 += v13; v7 = rotr(v7 ^ v8, 24); v2 += v7 + load<u64>(m, 16); v13 = rotr(v13 ^ v2, 16); v8 += v13; v7 = rotr(v7 ^ v8, 63);
  v3 += v4 + load<u64>(m, 64); v14 = rotr(v14 ^ v3, 32); v9 += v14; v4 = rotr(v4 ^ v9, 24); v3 += v4 + load<u64>(m, 88); v14 = rotr(v14 ^ v3, 16); v9 += v14; v4 = rotr(v4 ^ v9, 63);
  // round 7
  v0 += v4 + load<u64>(m, 104); v12 = rotr(v12 ^ v0, 32); v8 += v12; v4 = rotr(v4 ^ v8, 24); v0 += v4 + load<u64>(m, 88); v12 = rotr(v12 ^ v0, 16); v8 += v12; v4 = rotr(v4 ^ v8, 63);
  v1 += v5 + load<u64>(m, 56); v13 = rotr(v13 ^ v1, 32); v9 += v13; v5 = rotr(v5 ^ v9, 24); v1 += v5 + load<u64>(m, 112); v13 = rotr(v13 ^ v1, 16); v9 += v13; v5 = rotr(v5 ^ v9, 63);
  v2 += v6 + load<u64>(m, 96); v14 = rotr(v14 ^ v2, 32); v10 += v14; v6 = rotr(v6 ^ v10, 24); v2 += v6 + load<u64>(m, 8); v14 = rotr(v14 ^ v2, 16); v10 += v14; v6 = rotr(v6 ^ v10, 63);
  v3 += v7 + load<u64>(m, 24); v15 = rotr(v15 ^ v3, 32); v11 += v15; v7 = rotr(v7 ^ v11, 24); v3 += v7 + load<u64>(m, 72); v15 = rotr(v15 ^ v3, 16); v11 += v15; v7 = rotr(v7 ^ v11, 63);
  v0 += v5 + load<u64>(m, 40); v15 = rotr(v15 ^ v0, 32); v10 += v15; v5 = rotr(v5 ^ v10, 24); v0 += v5 + load<u64>(m, 0); v15 = rotr(v15 ^ v0, 16); v10 += v15; v5 = rotr(v5 ^ v10, 63);
  v1 += v6 + load<u64>(m, 120); v12 = rotr(v12 ^ v1, 32); v11 += v12; v6 = rotr(v6 ^ v11, 24); v1 += v6 + load<u64>(m, 32); v12 = rotr(v12 ^ v1, 16); v11 += v12; v6 = rotr(v6 ^ v11, 63);
  v2 += v7 + load<u64>(m, 64); v13 = rotr(v13 ^ v2, 32); v8 += v13; v7 = rotr(v7 ^ v8, 24); v2 += v7 + load<u64>(m, 48); v13 = rotr(v13 ^ v2, 16); v8 += v13; v7 = rotr(v7 ^ v8, 63);
  v3 += v4 + load<u64>(m, 16); v14 = rotr(v14 ^ v3, 32); v9 += v14; v4 = rotr(v4 ^ v9, 24); v3 += v4 + load<u64>(m, 80); v14 = rotr(v14 ^ v3, 16); v9 += v14; v4 = rotr(v4 ^ v9, 63);
  // round 8
  v0 += v4 + load<u64>(m, 48); v12 = rotr(v12 ^ v0, 32); v8 += v12; v4 = rotr(v4 ^ v8, 24); v0 += v4 + load<u64>(m, 120); v12 = rotr(v12 ^ v0, 16); v8 += v12; v4 = rotr(v4 ^ v8, 63);
  v1 += v5 + load<u64>(m, 112); v13 = rotr(v13 ^ v1, 32); v9 += v13; v5 = rotr(v5 ^ v9, 24); v1 += v5 + load<u64>(m, 72); v13 = rotr(v13 ^ v1, 16); v9 += v13; v5 = rotr(v5 ^ v9, 63);
  v2 += v6 + load<u64>(m, 88); v14 = rotr(v14 ^ v2, 32); v10 += v14; v6 = rotr(v6 ^ v10, 24); v2 += v6 + load<u64>(m, 24); v14 = rotr(v14 ^ v2, 16); v10 += v14; v6 = rotr(v6 ^ v10, 63);
  v3 += v7 + load<u64>(m, 0); v15 = rotr(v15 ^ v3, 32); v11 += v15; v7 = rotr(v7 ^ v11, 24); v3 += v7 + load<u64>(m, 64); v15 = rotr(v15 ^ v3, 16); v11 += v15; v7 = rotr(v7 ^ v11, 63);
  v0 += v5 + load<u64>(m, 96); v15 = rotr(v15 ^ v0, 32); v10 += v15; v5 = rotr(v5 ^ v10, 24); v0 += v5 + load<u64>(m, 16); v15 = rotr(v15 ^ v0, 16); v10 += v15; v5 = rotr(v5 ^ v10, 63);
  v1 += v6 + load<u64>(m, 104); v12 = rotr(v12 ^ v1, 32); v11 += v12; v6 = rotr(v6 ^ v11, 24); v1 += v6 + load<u64>(m, 56); v12 = rotr(v12 ^ v1, 16); v11 += v12; v6 = rotr(v6 ^ v11, 63);
  v2 += v7 + load<u64>(m, 8); v13 = rotr(v13 ^ v2, 32); v8 += v13; v7 = rotr(v7 ^ v8, 24); v2 += v7 + load<u64>(m, 32); v13 = rotr(v13 ^ v2, 16); v8 += v13; v7 = rotr(v7 ^ v8, 63);
  v3 += v4 + load<u64>(m, 80); v14 = rotr(v14 ^ v3, 32); v9 += v14; v4 = rotr(v4 ^ v9, 24); v3 += v4 + load<u64>(m, 40); v14 = rotr(v14 ^ v3, 16); v9 += v14; v4 = rotr(v4 ^ v9, 63);
  // round 9
  v0 += v4 + load<u64>(m, 80); v12 = rotr(v12 ^ v0, 32); v8 += v12; v4 = rotr(v4 ^ v8, 24); v0 += v4 + load<u64>(m, 16); v12 = rotr(v12 ^ v0, 16); v8 += v12; v4 = rotr(v4 ^ v8, 63);
  v1 += v5 + load<u64>(m, 64); v13 = rotr(v13 ^ v1, 32); v9 += v13; v5 = rotr(v5 ^ v9, 24); v1 += v5 + load<u64>(m, 32); v13 = rotr(v13 ^ v1, 16); v9 += v13; v5 = rotr(v5 ^ v9, 63);
  v2 += v6 + load<u64>(m, 56); v14 = rotr(v14 ^ v2, 32); v10 += v14; v6 = rotr(v6 ^ v10, 24); v2 += v6 + load<u64>(m, 48); v14 = rotr(v14 ^ v2, 16); v10 += v14; v6 = rotr(v6 ^ v10, 63);
  v3 += v7 + load<u64>(m, 8); v15 = rotr(v15 ^ v3, 32); v11 += v15; v7 = rotr(v7 ^ v11, 24); v3 += v7 + load<u64>(m, 40); v15 = rotr(v15 ^ v3, 16); v11 += v15; v7 = rotr(v7 ^ v11, 63);
  v0 += v5 + load<u64>(m, 120); v15 = rotr(v15 ^ v0, 32); v10 += v15; v5 = rotr(v5 ^ v10, 24); v0 += v5 + load<u64>(m, 88); v15 = rotr(v15 ^ v0, 16); v10 += v15; v5 = rotr(v5 ^ v10, 63);
  v1 += v6 + load<u64>(m, 72); v12 = rotr(v12 ^ v1, 32); v11 += v12; v6 = rotr(v6 ^ v11, 24); v1 += v6 + load<u64>(m, 112); v12 = rotr(v12 ^ v1, 16); v11 += v12; v6 = rotr(v6 ^ v11, 63);
  v2 += v7 + load<u64>(m, 24); v13 = rotr(v13 ^ v2, 32); v8 += v13; v7 = rotr(v7 ^ v8, 24); v2 += v7 + load<u64>(m, 96); v13 = rotr(v13 ^ v2, 16); v8 += v13; v7 = rotr(v7 ^ v8, 63);
  v3 += v4 + load<u64>(m, 104); v14 = rotr(v14 ^ v3, 32); v9 += v14; v4 = rotr(v4 ^ v9, 24); v3 += v4 + load<u64>(m, 0); v14 = rotr(v14 ^ v3, 16); v9 += v14; v4 = rotr(v4 ^ v9, 63);
  // round 10
  v0 += v4 + load<u64>(m, 0); v12 = rotr(v12 ^ v0, 32); v8 += v12; v4 = rotr(v4 ^ v8, 24); v0 += v4 + load<u64>(m, 8); v12 = rotr(v12 ^ v0, 16); v8 += v12; v4 = rotr(v4 ^ v8, 63);
  v1 += v5 + load<u64>(m, 16); v13 = rotr(v13 ^ v1, 32); v9 += v13; v5 = rotr(v5 ^ v9, 24); v1 += v5 + load<u64>(m, 24); v13 = rotr(v13 ^ v1, 16); v9 += v13; v5 = rotr(v5 ^ v9, 63);
  v2 += v6 + load<u64>(m, 32); v14 = rotr(v14 ^ v2, 32); v10 += v14; v6 = rotr(v6 ^ v10, 24); v2 += v6 + load<u64>(m, 40); v14 = rotr(v14 ^ v2, 16); v10 += v14; v6 = rotr(v6 ^ v10, 63);
  v3 += v7 + load<u64>(m, 48); v15 = rotr(v15 ^ v3, 32); v11 += v15; v7 = rotr(v7 ^ v11, 24); v3 += v7 + load<u64>(m, 56); v15 = rotr(v15 ^ v3, 16); v11 += v15; v7 = rotr(v7 ^ v11, 63);
  v0 += v5 + load<u64>(m, 64); v15 = rotr(v15 ^ v0, 32); v10 += v15; v5 = rotr(v5 ^ v10, 24); v0 += v5 + load<u64>(m, 72); v15 = rotr(v15 ^ v0, 16); v10 += v15; v5 = rotr(v5 ^ v10, 63);
  v1 += v6 + load<u64>(m, 80); v12 = rotr(v12 ^ v1, 32); v11 += v12; v6 = rotr(v6 ^ v11, 24); v1 += v6 + load<u64>(m, 88); v12 = rotr(v12 ^ v1, 16); v11 += v12; v6 = rotr(v6 ^ v11, 63);
  v2 += v7 + load<u64>(m, 96); v13 = rotr(v13 ^ v2, 32); v8 += v13; v7 = rotr(v7 ^ v8, 24); v2 += v7 + load<u64>(m, 104); v13 = rotr(v13 ^ v2, 16); v8 += v13; v7 = rotr(v7 ^ v8, 63);
  v3 += v4 + load<u64>(m, 112); v14 = rotr(v14 ^ v3, 32); v9 += v14; v4 = rotr(v4 ^ v9, 24); v3 += v4 + load<u64>(m, 120); v14 = rotr(v14 ^ v3, 16); v9 += v14; v4 = rotr(v4 ^ v9, 63);
  // round 11
  v0 += v4 + load<u64>(m, 112); v12 = rotr(v12 ^ v0, 32); v8 += v12; v4 = rotr(v4 ^ v8, 24); v0 += v4 + load<u64>(m, 80); v12 = rotr(v12 ^ v0, 16); v8 += v12; v4 = rotr(v4 ^ v8, 63);
  v1 += v5 + load<u64>(m, 32); v13 = rotr(v13 ^ v1, 32); v9 += v13; v5 = rotr(v5 ^ v9, 24); v1 += v5 + load<u64>(m, 64); v13 = rotr(v13 ^ v1, 16); v9 += v13; v5 = rotr(v5 ^ v9, 63);
  v2 += v6 + load<u64>(m, 72); v14 = rotr(v14 ^ v2, 32); v10 += v14; v6 = rotr(v6 ^ v10, 24); v2 += v6 + load<u64>(m, 120); v14 = rotr(v14 ^ v2, 16); v10 += v14; v6 = rotr(v6 ^ v10, 63);
  v3 += v7 + load<u64>(m, 104); v15 = rotr(v15 ^ v3, 32); v11 += v15; v7 = rotr(v7 ^ v11, 24); v3 += v7 + load<u64>(m, 48); v15 = rotr(v15 ^ v3, 16); v11 += v15; v7 = rotr(v7 ^ v11, 63);
  v0 += v5 + load<u64>(m, 8); v15 = rotr(v15 ^ v0, 32); v10 += v15; v5 = rotr(v5 ^ v10, 24); v0 += v5 + load<u64>(m, 96); v15 = rotr(v15 ^ v0, 16); v10 += v15; v5 = rotr(v5 ^ v10, 63);
  v1 += v6 + load<u64>(m, 0); v12 = rotr(v12 ^ v1, 32); v11 += v12; v6 = rotr(v6 ^ v11, 24); v1 += v6 + load<u64>(m, 16); v12 = rotr(v12 ^ v1, 16); v11 += v12; v6 = rotr(v6 ^ v11, 63);
  v2 += v7 + load<u64>(m, 88); v13 = rotr(v13 ^ v2, 32); v8 += v13; v7 = rotr(v7 ^ v8, 24); v2 += v7 + load<u64>(m, 56); v13 = rotr(v13 ^ v2, 16); v8 += v13; v7 = rotr(v7 ^ v8, 63);
  v3 += v4 + load<u64>(m, 40); v14 = rotr(v14 ^ v3, 32); v9 += v14; v4 = rotr(v4 ^ v9, 24); v3 += v4 + load<u64>(m, 24); v14 = rotr(v14 ^ v3, 16); v9 += v14; v4 = rotr(v4 ^ v9, 63);

  store<u64>(h, load<u64>(h, 0) ^ v0 ^ v8, 0);
  store<u64>(h, load<u64>(h, 8) ^ v1 ^ v9, 8);
  store<u64>(h, load<u64>(h, 16) ^ v2 ^ v10, 16);
  store<u64>(h, load<u64>(h, 24) ^ v3 ^ v11, 24);
  store<u64>(h, load<u64>(h, 32) ^ v4 ^ v12, 32);
  store<u64>(h, load<u64>(h, 40) ^ v5 ^ v13, 40);
  store<u64>(h, load<u64>(h, 48) ^ v6 ^ v14, 48);
  store<u64>(h, load<u64>(h, 56) ^ v7 ^ v15, 56);
}

/**
 * F (RFC 7693 §3.2) of a non-final block whose sixteen message words all equal `word`, on v128
 * row pairs (SIMD build): SIGMA does not matter, so every G adds the same splatted word.
 */
function compressRepeated(h: usize, word: u64, t: u64): void {
  const m = i64x2.splat(word);
  let a0 = v128.load(h, 0), a1 = v128.load(h, 16), b0 = v128.load(h, 32), b1 = v128.load(h, 48);
  let c0 = i64x2(IV0, IV1), c1 = i64x2(IV2, IV3);
  let d0 = v128.xor(i64x2(IV4, IV5), i64x2(<i64>t, 0)), d1 = i64x2(IV6, IV7);
  for (let round = 0; round < 12; round++) {
    // Columns: G on (v0,v4,v8,v12) … (v3,v7,v11,v15).
    a0 = i64x2.add(i64x2.add(a0, m), b0); a1 = i64x2.add(i64x2.add(a1, m), b1);
    d0 = rotr32V(v128.xor(d0, a0)); d1 = rotr32V(v128.xor(d1, a1));
    c0 = i64x2.add(c0, d0); c1 = i64x2.add(c1, d1);
    b0 = rotr24V(v128.xor(b0, c0)); b1 = rotr24V(v128.xor(b1, c1));
    a0 = i64x2.add(i64x2.add(a0, m), b0); a1 = i64x2.add(i64x2.add(a1, m), b1);
    d0 = rotr16V(v128.xor(d0, a0)); d1 = rotr16V(v128.xor(d1, a1));
    c0 = i64x2.add(c0, d0); c1 = i64x2.add(c1, d1);
    b0 = rotr63V(v128.xor(b0, c0)); b1 = rotr63V(v128.xor(b1, c1));
    // Diagonalise: B = (v5,v6)(v7,v4), C = (v10,v11)(v8,v9), D = (v15,v12)(v13,v14).
    let u = b0;
    b0 = laneShift(b0, b1); b1 = laneShift(b1, u);
    u = c0; c0 = c1; c1 = u;
    u = d0;
    d0 = laneShift(d1, d0); d1 = laneShift(u, d1);
    // Diagonals: G on (v0,v5,v10,v15) … (v3,v4,v9,v14).
    a0 = i64x2.add(i64x2.add(a0, m), b0); a1 = i64x2.add(i64x2.add(a1, m), b1);
    d0 = rotr32V(v128.xor(d0, a0)); d1 = rotr32V(v128.xor(d1, a1));
    c0 = i64x2.add(c0, d0); c1 = i64x2.add(c1, d1);
    b0 = rotr24V(v128.xor(b0, c0)); b1 = rotr24V(v128.xor(b1, c1));
    a0 = i64x2.add(i64x2.add(a0, m), b0); a1 = i64x2.add(i64x2.add(a1, m), b1);
    d0 = rotr16V(v128.xor(d0, a0)); d1 = rotr16V(v128.xor(d1, a1));
    c0 = i64x2.add(c0, d0); c1 = i64x2.add(c1, d1);
    b0 = rotr63V(v128.xor(b0, c0)); b1 = rotr63V(v128.xor(b1, c1));
    // Undiagonalise.
    u = b0;
    b0 = laneShift(b1, b0); b1 = laneShift(u, b1);
    u = c0; c0 = c1; c1 = u;
    u = d0;
    d0 = laneShift(d0, d1); d1 = laneShift(d1, u);
  }
  v128.store(h, v128.xor(v128.load(h, 0), v128.xor(a0, c0)), 0);
  v128.store(h, v128.xor(v128.load(h, 16), v128.xor(a1, c1)), 16);
  v128.store(h, v128.xor(v128.load(h, 32), v128.xor(b0, d0)), 32);
  v128.store(h, v128.xor(v128.load(h, 48), v128.xor(b1, d1)), 48);
}

/** Starts a hash of `outLen` bytes (1..64) with a key of `keyLen` bytes (0..64) at `key`. */
export function b2Init(outLen: i32, key: usize, keyLen: i32): void {
  // Parameter block (RFC 7693 §2.5): digest length, key length, fanout 1, depth 1.
  store<u64>(H, IV0 ^ (0x01010000 | (<u64>keyLen << 8) | <u64>outLen), 0);
  store<u64>(H, IV1, 8);
  store<u64>(H, IV2, 16);
  store<u64>(H, IV3, 24);
  store<u64>(H, IV4, 32);
  store<u64>(H, IV5, 40);
  store<u64>(H, IV6, 48);
  store<u64>(H, IV7, 56);
  outLength = outLen;
  counter = 0;
  bufLen = 0;
  if (keyLen > 0) {
    // The key, zero-padded to a full block, is the first block (RFC 7693 §3.3).
    memory.copy(BUF, key, keyLen);
    memory.fill(BUF + keyLen, 0, BLOCK_BYTES - keyLen);
    bufLen = BLOCK_BYTES;
  }
}

/** Absorbs `len` bytes at `ptr`. The last block is kept back until `b2Final` (it gets the final flag). */
export function b2Update(ptr: usize, len: i32): void {
  if (len <= 0) return;
  if (bufLen > 0) {
    const take = min(BLOCK_BYTES - bufLen, len);
    memory.copy(BUF + bufLen, ptr, take);
    bufLen += take;
    ptr += take;
    len -= take;
    if (len == 0) return;
    counter += BLOCK_BYTES;
    compress(H, BUF, counter, false);
    bufLen = 0;
  }
  // Compress straight from the input while more than one block remains.
  while (len > BLOCK_BYTES) {
    counter += BLOCK_BYTES;
    compress(H, ptr, counter, false);
    ptr += BLOCK_BYTES;
    len -= BLOCK_BYTES;
  }
  memory.copy(BUF, ptr, len);
  bufLen = len;
}

// A run of one repeated byte (the PoW salt padding, RFC 9106 H0 over 234 KB) goes through this
// block: all sixteen message words of a block of it are one word, so the SIMD build compresses such
// blocks by `compressRepeated`, with no message loads or permutation.
const FILL: usize = memory.data(BLOCK_BYTES, 16);

/** Absorbs `count` copies of the byte `b` without materialising them all. */
export function b2UpdateFill(b: u8, count: i32): void {
  if (count <= 0) return;
  memory.fill(FILL, b, BLOCK_BYTES);
  const head = min(count, BLOCK_BYTES - bufLen);
  b2Update(FILL, head);
  count -= head;
  if (count == 0) return;
  // The pending block is full and more follows: compress it, then whole blocks of `b`, keeping
  // the last block back for b2Final as b2Update does.
  counter += BLOCK_BYTES;
  compress(H, BUF, counter, false);
  const word = <u64>b * 0x0101010101010101;
  for (; count > BLOCK_BYTES; count -= BLOCK_BYTES) {
    counter += BLOCK_BYTES;
    if (ASC_FEATURE_SIMD) compressRepeated(H, word, counter);
    else compress(H, FILL, counter, false);
  }
  memory.copy(BUF, FILL, count);
  bufLen = count;
}

/** Absorbs a 32-bit little-endian integer (the LE32 fields of Argon2's H0 and H'). */
export function b2UpdateLE32(x: u32): void {
  store<u32>(OUT, x);
  b2Update(OUT, 4);
}

/** Finishes the hash and writes `outLength` bytes at `out`. */
export function b2Final(out: usize): void {
  counter += <u64>bufLen;
  memory.fill(BUF + bufLen, 0, BLOCK_BYTES - bufLen);
  compress(H, BUF, counter, true);
  memory.copy(out, H, outLength);
}

/** One-shot BLAKE2b of `len` bytes at `ptr` into `outLen` bytes at `out` (no key). */
export function b2Hash(out: usize, outLen: i32, ptr: usize, len: i32): void {
  b2Init(outLen, 0, 0);
  b2Update(ptr, len);
  b2Final(out);
}

// Scratch for H': V_i chaining (64 bytes) and the 4-byte length prefix.
const HP_V: usize = memory.data(64, 16);

/**
 * H'^T(X) of RFC 9106 §3.3: `outLen` bytes (1..2^32-1) of the variable-length hash of the `len`
 * bytes at `ptr`, written at `out` (which must not overlap the input).
 */
export function b2Long(out: usize, outLen: u32, ptr: usize, len: i32): void {
  b2Init(outLen <= 64 ? <i32>outLen : 64, 0, 0);
  b2UpdateLE32(outLen);
  b2Update(ptr, len);
  if (outLen <= 64) {
    b2Final(out);
    return;
  }
  // r = ceil(T/32) - 2 blocks V_1..V_r of which the first 32 bytes are used, then V_{r+1} whole.
  const r: u32 = ((outLen + 31) >> 5) - 2;
  b2Final(HP_V);
  memory.copy(out, HP_V, 32);
  for (let i: u32 = 2; i <= r; i++) {
    b2Hash(HP_V, 64, HP_V, 64);
    memory.copy(out + ((<usize>i - 1) << 5), HP_V, 32);
  }
  b2Hash(out + (<usize>r << 5), <i32>(outLen - (r << 5)), HP_V, 64);
}

// --- Exports for the JS wrapper (src/core/blake2b.ts): data always passes through WINDOW. ---

/** Starts a hash of `outLen` bytes; a key of `keyLen` bytes is read from the window. */
export function blake2bInit(outLen: i32, keyLen: i32): void {
  b2Init(outLen, WINDOW, keyLen);
}

/** Absorbs the first `len` bytes of the window. */
export function blake2bUpdate(len: i32): void {
  b2Update(WINDOW, len);
}

/** Absorbs a LE32 integer (for callers building Argon2 pre-hash input). */
export function blake2bUpdateLE32(x: u32): void {
  b2UpdateLE32(x);
}

/** Finishes the hash into the output window. */
export function blake2bFinal(): void {
  b2Final(OUT);
}
