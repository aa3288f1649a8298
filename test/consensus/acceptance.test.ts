/**
 * The reference's acceptance rule over a real chain (reference-network §5.2–5.5): which signatures
 * count (signer PoW in window and above the minimum, RSA by the solution's key, one per signer, a
 * fresh master presence on live blocks), the required consensus from the stored rows with the
 * minimum of 2 from block 8, continuity with block n − 6, the frozen row and its checksum, and the
 * proposer's frozen set replacing ours only when it gives the checksum a block carries.
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { BlockError, BlockErrorCode } from '../../src/chain/errors.js';
import { signerPowChallengePrefix, signerPowSearch, SIGNER_POW_MINER_SOLUTION } from '../../src/core/signer-pow.js';
import { makeBlockSignature } from '../../src/consensus/block-signatures.js';
import { compareFreezeOrder, signatureFreezeChecksum } from '../../src/consensus/rules.js';
import { signerPowTargetForDifficulty, signerPowDifficulty, signerPowSolutionHash, decodeSignerPowSolution } from '../../src/consensus/signer-pow.js';
import { publicKeyToBytes } from '../../src/formats/rsa.js';
import { latin1Key } from '../../src/state/keys.js';
import { codeOf } from '../chain/fixture.js';
import { fakeAddress, openReferenceChain, TEST_MIN_SIGNER_DIFFICULTY, type ReferenceChain } from './reference-chain.js';

const open: ReferenceChain[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

async function chainOf(masters: number, opts?: Parameters<typeof openReferenceChain>[1]): Promise<ReferenceChain> {
  const c = await openReferenceChain(masters, opts);
  open.push(c);
  return c;
}


/** A signature by `address` with a solution over block `over`, found at `difficulty`, with a fresh key. */
function signWith(c: ReferenceChain, address: Uint8Array, over: bigint, difficulty: bigint, checksum: Uint8Array) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingPubKey = publicKeyToBytes(publicKey);
  const prefix = signerPowChallengePrefix({ blockNum: over, blockChecksum: c.t.chain.getBlock(over)!.checksum, recipientAddress: address, signingPubKey });
  const found = signerPowSearch(prefix, new Uint8Array(SIGNER_POW_MINER_SOLUTION), signerPowTargetForDifficulty(difficulty), 1 << 20);
  return makeBlockSignature(checksum, address, { blockNum: over, solution: found.solution!, signingPubKey }, privateKey);
}

describe('ReferenceAcceptance', () => {
  it('blocks 2–7 need one signature; from block 8 at least two, then 75 % of the recent average', async () => {
    const c = await chainOf(4);
    await c.grow(7n, [0]);
    expect(c.acceptance.required(8n)).toBe(2);
    const lone = await c.makeBlock([0]);
    const err = await c.t.chain.importBlock(lone.block, lone.txs, { source: 'peer' }).catch((e: unknown) => e as BlockError);
    expect(err).toBeInstanceOf(BlockError);
    expect(err.code).toBe(BlockErrorCode.InsufficientSignatures);
    expect(err.action).toBe('IGNORE');
    await c.grow(30n, [0, 1, 2, 3]);
    // Rows of blocks n−7 … n−16 hold 4 signatures: floor(4 × 0.75) = 3.
    expect(c.acceptance.required(31n)).toBe(3);
    expect(c.acceptance.required(31n, false)).toBe(4);
    const two = await c.makeBlock([0, 1]);
    expect(await codeOf(c.t.chain.importBlock(two.block, two.txs, { source: 'peer' }))).toBe(BlockErrorCode.InsufficientSignatures);
    const three = await c.makeBlock([1, 2, 3]);
    await c.t.chain.importBlock(three.block, three.txs, { source: 'peer' });
    expect(c.t.chain.height).toBe(31n);
    expect(c.acceptance.rowTally(31n).count).toBe(3);
    expect(c.acceptance.rowTally(31n).totalDifficulty).toBeGreaterThanOrEqual(3n * TEST_MIN_SIGNER_DIFFICULTY);
  });

  it('does not count a solution below the minimum, outside the window, a wrong RSA signature, a second entry of one signer, or (live) a signer without presence', async () => {
    const c = await chainOf(4, { requirePresence: true });
    await c.grow(40n, [0, 1, 2, 3]);
    const { block, checksum } = await c.makeBlock([0, 1]);
    const valid = await c.acceptance.verifySignatures(block, checksum, 'each');
    expect(valid).toHaveLength(2);
    const stranger = fakeAddress();
    c.present.add(latin1Key(stranger));
    const n = block.num;
    // Found at a tenth of the minimum: most such solutions are below it.
    let low = signWith(c, stranger, n - 1n, TEST_MIN_SIGNER_DIFFICULTY / 10n, checksum);
    for (let i = 0; i < 20; i++) {
      const sol = decodeSignerPowSolution(low.powSolution!);
      const d = signerPowDifficulty(signerPowSolutionHash(sol, c.t.chain.getBlock(sol.blockNum)!.checksum, stranger));
      if (d < TEST_MIN_SIGNER_DIFFICULTY) break;
      low = signWith(c, stranger, n - 1n, TEST_MIN_SIGNER_DIFFICULTY / 10n, checksum);
    }
    const old = signWith(c, stranger, n - 31n, TEST_MIN_SIGNER_DIFFICULTY, checksum); // v13: 30 blocks
    const inWindow = signWith(c, stranger, n - 30n, TEST_MIN_SIGNER_DIFFICULTY, checksum);
    const otherBlock = signWith(c, stranger, n - 1n, TEST_MIN_SIGNER_DIFFICULTY, new Uint8Array(64).fill(9));
    const count = async (extra: typeof low) => (await c.acceptance.verifySignatures({ ...block, signatures: [...block.signatures, extra] }, checksum, 'each')).length;
    expect(await count(low)).toBe(2);
    expect(await count(old)).toBe(2);
    expect(await count(otherBlock)).toBe(2);
    expect(await count(inWindow)).toBe(3);
    // One entry per signer: a second one of master 0 does not add a signer.
    const again = await c.masters[0]!.signer.signBlock(n, block.version, checksum);
    expect(await count(again!)).toBe(2);
    // Without a fresh master presence a live block's signer does not count…
    c.present.delete(latin1Key(c.masters[1]!.address));
    expect(await c.acceptance.verifySignatures(block, checksum, 'each')).toHaveLength(1);
    // …and the block is not acceptable with what is left.
    expect(await codeOf(c.t.chain.importBlock(block, (await c.makeBlock([])).txs, { source: 'peer' }))).toBe(BlockErrorCode.InsufficientSignatures);
  });

  it('requires continuity with block n − 6 from block 14', async () => {
    const c = await chainOf(6);
    await c.grow(30n, [0, 1, 2]);
    expect(c.acceptance.required(31n)).toBe(2);
    // Three signers none of whom signed block 25 (n − 6): at least one must have (required 2 → continuity 1).
    const strangers = await c.makeBlock([3, 4, 5]);
    expect(await codeOf(c.t.chain.importBlock(strangers.block, strangers.txs, { source: 'peer' }))).toBe(BlockErrorCode.InsufficientSignatures);
    const mixed = await c.makeBlock([0, 4, 5]);
    await c.t.chain.importBlock(mixed.block, mixed.txs, { source: 'peer' });
    expect(c.t.chain.height).toBe(31n);
  });

  it('freezes a row in (difficulty, address) order; the freeze checksum is the rules one; a proposer copy replaces ours only when it gives the expected checksum', async () => {
    const c = await chainOf(4);
    await c.grow(20n, [0, 1, 2, 3]);
    const m = 18n;
    const frozen = (await c.acceptance.frozenRow(m))!;
    expect(frozen).toHaveLength(4);
    const entries = await c.acceptance.verifiedEntries({ ...c.t.chain.getBlock(m)!.block, signatures: frozen }, c.t.chain.getBlock(m)!.checksum, false);
    const sorted = [...entries].sort(compareFreezeOrder);
    expect(entries.map((e) => latin1Key(e.address))).toEqual(sorted.map((e) => latin1Key(e.address)));
    // Once the frozen list is the block's row, block m + 5's header must carry its checksum.
    await c.t.chain.setBlockSignatures(m, frozen);
    const stored = c.t.chain.getBlock(m)!;
    expect(c.acceptance.freezeChecksum(m + 5n)).toEqual(signatureFreezeChecksum(m, entries.map((e) => ({ address: e.address, solution: e.solution }))));
    // Nothing expected: no override.
    expect(await c.acceptance.offerRow(m, stored.checksum, frozen.slice(0, 3))).toBeNull();
    // A block carried the checksum of three of them: that copy replaces ours; another copy does not.
    const three = frozen.slice(0, 3);
    c.acceptance.expectFreeze(m, c.acceptance.rowChecksum(m, three));
    expect(await c.acceptance.offerRow(m, stored.checksum, frozen.slice(1))).toBeNull();
    expect(await c.acceptance.offerRow(m, new Uint8Array(64), three)).toBeNull();
    expect(await c.acceptance.offerRow(m, stored.checksum, three)).toEqual(three);
  });

  it('addBlockSignatures adds the verified signature of a new signer signature to a stored block, drops an invalid one, and changes no frozen row', async () => {
    const c = await chainOf(5);
    await c.grow(30n, [0, 1, 2]);
    const tip = c.t.chain.getBlock(30n)!;
    const late = (await c.masters[3]!.signer.signBlock(30n, tip.block.version, tip.checksum))!;
    const forged = { ...(await c.masters[4]!.signer.signBlock(30n, tip.block.version, tip.checksum))!, signature: new Uint8Array(256).fill(7) };
    expect(await c.t.chain.addBlockSignatures(30n, [late, forged])).toEqual([late]);
    expect(c.t.chain.getBlock(30n)!.block.signatures).toHaveLength(4);
    // Adding the same again changes nothing.
    expect(await c.t.chain.addBlockSignatures(30n, [late])).toEqual([]);
    // Block 24 is five below the tip: its row is final.
    const old = c.t.chain.getBlock(24n)!;
    const tooLate = (await c.masters[3]!.signer.signBlock(24n, old.block.version, old.checksum))!;
    expect(await c.t.chain.addBlockSignatures(24n, [tooLate])).toEqual([]);
    expect(c.t.chain.getBlock(24n)!.block.signatures).toHaveLength(3);
  });
});

