// The PoW verifier pool: results and order, packing of small requests, splitting of big ones,
// transfer of task buffers, the bounded queue (PoolBusyError), in-process mode and close.
// Workers load dist/pool/worker.js: run `npx tsc -p tsconfig.json` (or `npm run build`) first.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPowVerifier, type PowVerifier } from '../../src/pool/verifier.js';
import { PoolBusyError, PoolClosedError } from '../../src/pool/errors.js';
import { powVerify, type PowClaim } from '../../src/core/pow.js';

const CHECKSUM = new Uint8Array(64).map((_, i) => i * 7);
const ADDRESS = new Uint8Array(45).map((_, i) => 255 - i);
const CHECKSUM_44 = CHECKSUM.subarray(0, 44);
const ADDRESS_48 = new Uint8Array(48).map((_, i) => i ^ 0x5a);

/**
 * A mix of claims: v10+ (all fail), v0-rule claims (some with 'nonce-7340', whose v0 hash has 20
 * leading zero bits: they pass at 14..20 required bits, fail above), bad nonces.
 */
function claims(n: number, seed = 1): PowClaim[] {
  return Array.from({ length: n }, (_, i) => {
    const k = i + seed * 1000;
    if (i % 5 === 4) return { blockChecksum: CHECKSUM, solverAddress: ADDRESS, nonce: new Uint8Array(0), difficulty: 0n }; // bad nonce → false
    if (i % 2 === 0) return { blockChecksum: CHECKSUM, solverAddress: ADDRESS, nonce: new Uint8Array([k & 255, k >> 8, 3]), difficulty: BigInt(k) };
    const ascii = new TextEncoder().encode(i % 3 === 1 ? 'nonce-7340' : `nonce-${k}`);
    return { blockChecksum: CHECKSUM_44, solverAddress: ADDRESS_48, nonce: ascii, difficulty: BigInt(14 + (k % 10)), blockVersion: 0 };
  });
}

describe('PoW verifier pool (2 worker threads)', () => {
  let verifier: PowVerifier;
  const tasks: { items: number; buffer: ArrayBuffer; detached: boolean }[] = [];
  beforeAll(() => {
    verifier = createPowVerifier({
      threads: 2, maxQueue: 64, batchMaxItems: 4,
      onTask: ({ items, buffer }) => tasks.push({ items, buffer, detached: buffer.byteLength === 0 }),
    });
  });
  afterAll(() => verifier.close());

  it('workers got the compiled WASM module through workerData (no recompilation)', async () => {
    const info = await verifier.describeWorker();
    expect(info.compiledInWorker).toBe(false);
  });

  it('returns one boolean per claim, in order, equal to in-process verification', async () => {
    const items = claims(15);
    const expected = items.map((c) => powVerify(c));
    expect(expected).toContain(true);
    expect(expected).toContain(false);
    expect(await verifier.verify(items)).toEqual(expected);
  });

  it('packs small requests made in the same tick into one task and transfers its buffer', async () => {
    tasks.length = 0;
    const items = claims(3, 2);
    const results = await Promise.all(items.map((c) => verifier.verify([c])));
    expect(results).toEqual(items.map((c) => [powVerify(c)]));
    expect(tasks.map((t) => t.items)).toEqual([3]);
    expect(tasks[0]!.detached).toBe(true); // sent as a transfer: the sender's buffer is emptied
  });

  it('splits a big request over the workers, at most batchMaxItems per task', async () => {
    tasks.length = 0;
    const items = claims(12, 3).filter((c) => c.nonce.length > 0); // 10 claims that need work
    await verifier.verify(items);
    expect(tasks.map((t) => t.items)).toEqual([4, 4, 2]);
    // Tasks queued behind busy workers are transferred when Piscina posts them: check afterwards.
    expect(tasks.every((t) => t.buffer.byteLength === 0)).toBe(true);
  });

  it('rejects with PoolBusyError (code POOL_BUSY) when the queue is full, then recovers', async () => {
    const first = verifier.verify(claims(40, 4).filter((c) => c.nonce.length > 0)); // 32 pending
    const second = verifier.verify(claims(40, 5).filter((c) => c.nonce.length > 0)); // 64 pending
    const third = verifier.verify(claims(1, 6));
    await expect(third).rejects.toBeInstanceOf(PoolBusyError);
    await expect(third).rejects.toMatchObject({ code: 'POOL_BUSY', limit: 64 });
    await Promise.all([first, second]);
    expect(verifier.pending).toBe(0);
    expect(await verifier.verify(claims(1, 7))).toHaveLength(1);
  });

  it('a v0 claim is judged on the ASCII form of its nonce, in the pool as in-process', async () => {
    // 'nonce-29000' + 60 × '?' has a v0 hash with 14 leading zero bits. Sent as 'é' (2 bytes each) the
    // nonce has 131 bytes, over the 128 of an ASCII nonce, but reads as that 71-character text.
    const nonce = new TextEncoder().encode(`nonce-29000${'é'.repeat(60)}`);
    expect(nonce.length).toBe(131);
    const claim = { blockChecksum: CHECKSUM_44, solverAddress: ADDRESS_48, nonce, difficulty: 0n, blockVersion: 0 };
    expect(powVerify(claim)).toBe(true);
    expect(await verifier.verify([claim, { ...claim, difficulty: 15n }])).toEqual([true, false]);
  });

  it('answers for the claims as passed: arrays and fields changed after the call change nothing', async () => {
    // 'nonce-7340' passes the v0 rule at 20 required bits (test/core/pow.test.ts). Small requests
    // wait for the next macrotask before they are packed: a miner that reuses its nonce buffer
    // (as the reference's does) changes it meanwhile.
    const nonce = new TextEncoder().encode('nonce-7340');
    const bufferNonce = Buffer.from('nonce-7340');
    const claim = { blockChecksum: CHECKSUM_44.slice(), solverAddress: ADDRESS_48.slice(), nonce, difficulty: 20n, blockVersion: 0 };
    const other = { ...claim, nonce: bufferNonce };
    const pending = Promise.all([verifier.verify([claim]), verifier.verify([other])]);
    nonce.fill(0x41);
    bufferNonce.fill(0x41);
    other.solverAddress.fill(0);
    claim.difficulty = 21n;
    claim.blockChecksum = new Uint8Array(3); // a bad size, after the call checked it
    expect(await pending).toEqual([[true], [true]]);
    // The same claims sent in turn, each awaited, give the same answers.
    const fresh = () => ({ blockChecksum: CHECKSUM_44, solverAddress: ADDRESS_48, nonce: new TextEncoder().encode('nonce-7340'), difficulty: 20n, blockVersion: 0 });
    expect(await verifier.verify([fresh()])).toEqual([true]);
    expect(await verifier.verify([fresh()])).toEqual([true]);
  });

  it('concurrent requests in random groupings answer as sequential in-process verification (fast-check)', async () => {
    // Claims with known answers both ways: the v0 solution 'nonce-7340' (20 zero bits) at 14..22
    // required bits, random v0 nonces, v10+ claims (all fail), nonces of bad length.
    const pick = fc.oneof(
      fc.integer({ min: 14, max: 22 }).map((bits) => ({ blockChecksum: CHECKSUM_44, solverAddress: ADDRESS_48, nonce: new TextEncoder().encode('nonce-7340'), difficulty: BigInt(bits), blockVersion: 0 })),
      fc.integer({ min: 1000, max: 9999 }).map((k) => ({ blockChecksum: CHECKSUM_44, solverAddress: ADDRESS_48, nonce: new TextEncoder().encode(`nonce-${k}`), difficulty: 14n, blockVersion: 0 })),
      fc.uint8Array({ minLength: 1, maxLength: 64 }).map((nonce) => ({ blockChecksum: CHECKSUM, solverAddress: ADDRESS, nonce, difficulty: 0n })),
      fc.constantFrom(0, 65).map((n) => ({ blockChecksum: CHECKSUM, solverAddress: ADDRESS, nonce: new Uint8Array(n), difficulty: 0n })),
    );
    await fc.assert(fc.asyncProperty(fc.array(fc.array(pick, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 5 }), async (requests) => {
      const expected = requests.map((r) => r.map((c) => powVerify(c)));
      expect(await Promise.all(requests.map((r) => verifier.verify(r)))).toEqual(expected);
    }), { numRuns: 8, seed: 4242 });
  });

  it('rejects bad input with a TypeError/RangeError naming the item', async () => {
    await expect(verifier.verify('x' as unknown as PowClaim[])).rejects.toThrow(TypeError);
    await expect(verifier.verify([claims(1)[0]!, { ...claims(1)[0]!, difficulty: 1 as unknown as bigint }])).rejects.toThrow(/item 1: difficulty/);
    await expect(verifier.verify([{ ...claims(1)[0]!, blockChecksum: new Uint8Array(3) }])).rejects.toThrow(RangeError);
    expect(await verifier.verify([])).toEqual([]);
  });
});

describe('PoW verifier lifecycle', () => {
  it('close() finishes buffered and running work, then refuses new work; close twice is fine', async () => {
    const verifier = createPowVerifier({ threads: 1, batchDelayMs: 5 });
    const items = claims(6, 8);
    const running = verifier.verify(items);
    await verifier.close();
    expect(await running).toEqual(items.map((c) => powVerify(c)));
    await expect(verifier.verify(items)).rejects.toBeInstanceOf(PoolClosedError);
    await verifier.close();
  });

  it('threads: 0 verifies in-process with the same results', async () => {
    const verifier = createPowVerifier({ threads: 0 });
    const items = claims(5, 9);
    expect(await verifier.verify(items)).toEqual(items.map((c) => powVerify(c)));
    await verifier.close();
    await expect(verifier.verify(items)).rejects.toMatchObject({ code: 'POOL_CLOSED' });
  });

  it('validates its options', () => {
    expect(() => createPowVerifier({ threads: -1 })).toThrow(/threads: expected an integer ≥ 0, got -1/);
    expect(() => createPowVerifier({ threads: 1, maxQueue: 0 })).toThrow(RangeError);
  });
});
