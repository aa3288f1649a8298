/**
 * The signer members of `status` (src/consensus/signer-status.ts; DLT APIServer onStatus): the
 * required signer difficulty of the tip and the required bits of the next block from the
 * governing superblock's bits (§5.6: block 1 and a chain without bits → the 10 000 000 minimum),
 * and the miner's members, or 0 and {} without a miner.
 */
import { describe, expect, it } from 'vitest';
import { requiredSignerBitsOf, signerStatusMembers } from '../../src/consensus/signer-status.js';
import { difficultyToBits, MIN_BLOCK_SIGNER_POW_DIFFICULTY, MAX_TARGET_BITS } from '../../src/consensus/signer-pow.js';

const le = (bits: bigint) => Buffer.from(new BigUint64Array([bits]).buffer).toString('hex');

function chain(height: bigint, bits: Record<string, bigint>) {
  return { height, getBlock: (n: bigint) => (n >= 1n && n <= height ? { block: bits[String(n)] !== undefined ? { signerBits: bits[String(n)]! } : {} } : null) };
}

describe('signer status members', () => {
  const minBits = difficultyToBits(MIN_BLOCK_SIGNER_POW_DIFFICULTY);
  const sbBits = difficultyToBits(123_456_789n * 100_000_000n);

  it('take the governing block\'s bits: block 1 below the first superblock, then each superblock', () => {
    const c = chain(1500n, { 1: MAX_TARGET_BITS, 1000: sbBits });
    expect(requiredSignerBitsOf(c, 1n)).toBe(minBits); // block 1 itself: the minimum
    expect(requiredSignerBitsOf(c, 999n)).toBe(MAX_TARGET_BITS);
    expect(requiredSignerBitsOf(c, 1000n)).toBe(sbBits);
    expect(requiredSignerBitsOf(c, 1500n)).toBe(sbBits);
    expect(requiredSignerBitsOf(chain(5n, {}), 5n)).toBe(minBits); // no bits known
    expect(requiredSignerBitsOf(chain(999n, { 1: MAX_TARGET_BITS }), 1000n)).toBe(MAX_TARGET_BITS); // superblock 1000 not held yet
    expect(requiredSignerBitsOf(chain(0n, {}), 1n)).toBe(minBits);
  });

  it('without a miner: difficulty of the tip, bits of the next block, hashrate 0, no solutions', () => {
    expect(signerStatusMembers(chain(5n, { 1: MAX_TARGET_BITS }), undefined)).toEqual({
      'Signer Difficulty': '1.00000000', 'Signer Bits': le(MAX_TARGET_BITS),
      'Signer Hashrate': 0, 'Signer Last PoW Solution': {}, 'Signer Active PoW Solution': {},
    });
    expect(signerStatusMembers(chain(999n, { 1: MAX_TARGET_BITS, 1000: sbBits }), undefined)).toMatchObject({
      'Signer Difficulty': '1.00000000', 'Signer Bits': le(MAX_TARGET_BITS), // block 1000 is not there yet: block 1's
    });
    expect(signerStatusMembers(chain(1000n, { 1: MAX_TARGET_BITS, 1000: sbBits }), undefined)).toMatchObject({ 'Signer Bits': le(sbBits) });
  });

  it('with a miner: its members', () => {
    const members = { 'Signer Hashrate': 12, 'Signer Last PoW Solution': {}, 'Signer Active PoW Solution': {} };
    // the minimum through its compact bits, as the reference computes it (bits round it up by one unit)
    expect(signerStatusMembers(chain(5n, {}), { statusMembers: () => members })).toMatchObject({ ...members, 'Signer Difficulty': '10000000.00000001' });
  });
});
