// Block signature entries (reference-network §5.2, formats §10.3 row 12, §12): make, parse and
// verify one the way Block.applySignature / verifySignature do, a whole block's entries with the RSA
// part in the worker pool, and the per-signer replacement rule.
import { createHash, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeBlock, encodeBlock, type Block } from '../../src/chain/block.js';
import { signerPowChallengePrefix, signerPowSearch } from '../../src/core/signer-pow.js';
import {
  addSignatures, makeBlockSignature, parseBlockSignature, SIGNATURE_ENTRIES_PER_SLICE, tallySignatures, verifiedSignature,
  verifyBlockSignatureEntries, verifyBlockSignatureEntry,
} from '../../src/consensus/block-signatures.js';
import { createWorkerPool } from '../../src/pool/index.js';
import { verifySignature } from '../../src/formats/rsa.js';
import { ConsensusError } from '../../src/consensus/errors.js';
import { signatureFreezeChecksum } from '../../src/consensus/rules.js';
import { signerPowTargetForDifficulty, type SignerPowSolution } from '../../src/consensus/signer-pow.js';
import { publicKeyToBytes } from '../../src/formats/rsa.js';

const COIN = 100_000_000n;
const sha3sq = (b: Uint8Array) => new Uint8Array(createHash('sha3-512').update(createHash('sha3-512').update(b).digest()).digest());
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('block signature entries', () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingPubKey = publicKeyToBytes(publicKey);
  const address = new Uint8Array(45).fill(7);
  address[0] = 1;
  const solutionBlockChecksum = sha3sq(new TextEncoder().encode('block 95'));
  const blockChecksum = sha3sq(new TextEncoder().encode('block 100'));
  const minDifficulty = 2n * COIN;
  const prefix = signerPowChallengePrefix({ blockNum: 95n, blockChecksum: solutionBlockChecksum, recipientAddress: address, signingPubKey });
  const found = signerPowSearch(prefix, new Uint8Array(32), signerPowTargetForDifficulty(minDifficulty), 1000);
  const solution: SignerPowSolution = { blockNum: 95n, solution: found.solution!, signingPubKey };
  const check = (entry = parseBlockSignature(makeBlockSignature(blockChecksum, address, solution, privateKey))) => ({
    entry, blockNum: 100n, blockVersion: 13, blockChecksum, solutionBlockChecksum, minDifficulty,
  });

  it('a made signature parses back and verifies; it survives the block codec', () => {
    const sig = makeBlockSignature(blockChecksum, address, solution, privateKey);
    const r = verifyBlockSignatureEntry(check(parseBlockSignature(sig)));
    expect(r.ok).toBe(true);
    const block: Block = {
      version: 13, num: 100n, lastBlockChecksum: new Uint8Array(64), signatureFreezeChecksum: new Uint8Array(64), pitRoot: null,
      timestamp: 1n, difficulty: 0n, walletStateChecksum: new Uint8Array(64), regNameStateChecksum: new Uint8Array(64), totalFee: 0n,
      signatures: [sig], txIds: [],
    };
    const back = decodeBlock(encodeBlock(block).bytes).block.signatures[0]!;
    expect(verifyBlockSignatureEntry(check(parseBlockSignature(back))).ok).toBe(true);
  });

  it('does not count: another block, an old or future solution, a low difficulty, a missing part, a wrong key', () => {
    const base = check();
    expect(verifyBlockSignatureEntry({ ...base, blockChecksum: sha3sq(new Uint8Array(1)) })).toEqual({ ok: false, reason: 'rsa' });
    expect(verifyBlockSignatureEntry({ ...base, blockNum: 126n })).toEqual({ ok: false, reason: 'window' }); // 95 + 30 < 126
    expect(verifyBlockSignatureEntry({ ...base, blockNum: 95n })).toEqual({ ok: false, reason: 'window' });
    expect(verifyBlockSignatureEntry({ ...base, solutionBlockChecksum: null })).toEqual({ ok: false, reason: 'window' });
    expect(verifyBlockSignatureEntry({ ...base, minDifficulty: 10n ** 30n })).toEqual({ ok: false, reason: 'difficulty' });
    expect(verifyBlockSignatureEntry({ ...base, entry: { ...base.entry, solution: null } })).toEqual({ ok: false, reason: 'no-solution' });
    expect(verifyBlockSignatureEntry({ ...base, entry: { ...base.entry, signature: null } })).toEqual({ ok: false, reason: 'no-signature' });
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const forged = makeBlockSignature(blockChecksum, address, solution, other.privateKey);
    expect(verifyBlockSignatureEntry(check(parseBlockSignature(forged)))).toEqual({ ok: false, reason: 'rsa' });
    // the signer address is in the PoW challenge: the same solution under another address has another difficulty
    const thief = address.slice();
    thief[1] = 8;
    const stolen = parseBlockSignature(makeBlockSignature(blockChecksum, thief, solution, privateKey));
    const mine = verifyBlockSignatureEntry({ ...base, minDifficulty: 0n });
    const theirs = verifyBlockSignatureEntry({ ...check(stolen), minDifficulty: 0n });
    expect(mine.ok && theirs.ok && mine.difficulty !== theirs.difficulty).toBe(true);
  });

  it('rejects unparseable entries with coded errors', () => {
    expect(() => parseBlockSignature({ signer: new Uint8Array(10), powSolution: null, signature: null })).toThrow(ConsensusError);
    expect(() => parseBlockSignature({ signer: address, powSolution: Uint8Array.of(1, 0), signature: null })).toThrow(ConsensusError);
  });

  it('one signature per signer: a better one replaces and moves to the end; a worse one is dropped', () => {
    const e = (c: number, d: bigint) => ({ address: Uint8Array.of(1, c), difficulty: d });
    const list = addSignatures([], [e(1, 5n), e(2, 5n), e(3, 5n)]);
    expect(addSignatures(list, [e(1, 9n)]).map((x) => `${x.address[1]}:${x.difficulty}`)).toEqual(['2:5', '3:5', '1:9']);
    expect(addSignatures(list, [e(1, 5n), e(2, 4n)]).map((x) => `${x.address[1]}:${x.difficulty}`)).toEqual(['1:5', '2:5', '3:5']);
    expect(tallySignatures(list)).toEqual({ count: 3, totalDifficulty: 15n });
  });

  it('verified entries feed the sig-freeze checksum with the compacted solution', () => {
    const entry = parseBlockSignature(makeBlockSignature(blockChecksum, address, solution, privateKey));
    const v = verifiedSignature(entry, 3n);
    expect(v.difficulty).toBe(3n);
    expect(verifiedSignature(entry, null).difficulty).toBe(COIN);
    expect(hex(signatureFreezeChecksum(100n, [v]))).toBe(hex(signatureFreezeChecksum(100n, [{ address, solution }])));
  });
});

describe('a block\'s signature entries, RSA in the pool (verifyBlockSignatureEntries)', () => {
  const keys = [0, 1].map(() => generateKeyPairSync('rsa', { modulusLength: 2048 }));
  // Every positive 64-byte hash is worth more than 2 coin: 4 lets a quarter of them fall short.
  const minDifficulty = 4n * COIN;
  const checksums = new Map([95n, 96n].map((n) => [n, sha3sq(new TextEncoder().encode(`block ${n}`))]));
  const blockChecksum = sha3sq(new TextEncoder().encode('block 100'));
  /** A signer (address byte `id`) with a solution over block `over` meeting `min`, or failing it when `min` is 0. */
  function signer(id: number, over: bigint, min: bigint, key = keys[id % 2]!) {
    const address = new Uint8Array(45).fill(id);
    address[0] = 1;
    const signingPubKey = publicKeyToBytes(key.publicKey);
    const prefix = signerPowChallengePrefix({ blockNum: over, blockChecksum: checksums.get(over) ?? sha3sq(Uint8Array.of(Number(over))), recipientAddress: address, signingPubKey });
    let start = new Uint8Array(32);
    for (let tries = 0; tries < 100_000; tries++) {
      const r = signerPowSearch(prefix, start, signerPowTargetForDifficulty(min === 0n ? 1n : min), 1);
      const weak = r.hash !== null && (min > 0n || verifyBlockSignatureEntry({
        entry: parseBlockSignature(makeBlockSignature(blockChecksum, address, { blockNum: over, solution: r.solution!, signingPubKey }, key.privateKey)),
        blockNum: 100n, blockVersion: 13, blockChecksum, solutionBlockChecksum: checksums.get(over)!, minDifficulty,
      }).ok === false);
      if (weak) return makeBlockSignature(blockChecksum, address, { blockNum: over, solution: r.solution!, signingPubKey }, key.privateKey);
      start = r.next;
    }
    throw new Error('no solution found');
  }
  const good = [signer(1, 95n, minDifficulty), signer(2, 96n, minDifficulty), signer(3, 95n, minDifficulty)];
  const forged = { ...signer(4, 95n, minDifficulty), signature: good[0]!.signature };
  const weak = signer(5, 95n, 0n);
  const unknown = signer(6, 90n, minDifficulty);
  const entries = [good[0]!, forged, good[1]!, { signer: good[2]!.signer, powSolution: Uint8Array.of(1, 0), signature: good[2]!.signature }, weak, unknown, { ...good[2]!, signature: null }, good[2]!];
  const expected = [true, 'rsa', true, 'decode', 'difficulty', 'window', 'no-signature', true];
  const check = (verifyRsa: Parameters<typeof verifyBlockSignatureEntries>[0]['verifyRsa']) => verifyBlockSignatureEntries({
    entries, blockNum: 100n, blockVersion: 13, blockChecksum, minDifficulty, verifyRsa,
    solutionBlockChecksum: (n) => checksums.get(n) ?? null,
  });

  it.each([0, 1])('one verdict per entry, in order, the same as one by one (pool threads %i)', async (threads) => {
    const pool = createWorkerPool({ threads });
    const calls: number[] = [];
    try {
      const verdicts = await check((items) => {
        calls.push(items.length);
        return pool.verifyRsa(items);
      });
      expect(verdicts.map((v) => (v.ok ? true : v.reason))).toEqual(expected);
      expect(calls).toEqual([4]); // one RSA call: the entries whose PoW passed
      verdicts.forEach((v, i) => {
        if (!v.ok) return;
        const one = verifyBlockSignatureEntry({ entry: v.entry, blockNum: 100n, blockVersion: 13, blockChecksum, solutionBlockChecksum: checksums.get(v.entry.solution!.blockNum)!, minDifficulty });
        expect(one).toEqual({ ok: true, difficulty: v.difficulty });
        expect(hex(v.entry.address)).toBe(hex(parseBlockSignature(entries[i]!).address));
      });
    } finally {
      await pool.close();
    }
  });

  it('works in slices of SIGNATURE_ENTRIES_PER_SLICE: RSA of a slice leaves while the next is checked', async () => {
    const many = Array.from({ length: 150 }, (_, i) => good[i % 3]!);
    const calls: number[] = [];
    const verdicts = await verifyBlockSignatureEntries({
      entries: many, blockNum: 100n, blockVersion: 13, blockChecksum, minDifficulty,
      solutionBlockChecksum: (n) => checksums.get(n) ?? null,
      verifyRsa: async (items) => (calls.push(items.length), items.map((i) => verifySignature(i.publicKey, i.data, i.signature))),
    });
    expect(SIGNATURE_ENTRIES_PER_SLICE).toBe(64);
    expect(calls).toEqual([64, 64, 22]);
    expect(verdicts.every((v) => v.ok)).toBe(true);
  });

  it('no RSA call when no PoW passes; a verifier failure propagates', async () => {
    let called = false;
    const none = await verifyBlockSignatureEntries({
      entries: [weak, unknown], blockNum: 100n, blockVersion: 13, blockChecksum, minDifficulty,
      solutionBlockChecksum: (n) => checksums.get(n) ?? null, verifyRsa: async () => ((called = true), []),
    });
    expect(none.map((v) => v.ok)).toEqual([false, false]);
    expect(called).toBe(false);
    await expect(check(async () => {
      throw new Error('pool busy');
    })).rejects.toThrow('pool busy');
    // a failure in a later slice, while the first slices are still out: one rejection, nothing unhandled
    const many = Array.from({ length: 150 }, (_, i) => good[i % 3]!);
    let slices = 0;
    await expect(verifyBlockSignatureEntries({
      entries: many, blockNum: 100n, blockVersion: 13, blockChecksum, minDifficulty,
      solutionBlockChecksum: (n) => checksums.get(n) ?? null,
      verifyRsa: async (items) => {
        if (++slices === 2) throw new Error('pool closed');
        return items.map(() => true);
      },
    })).rejects.toThrow('pool closed');
    // the in-thread verifier gives the same verdicts
    const same = await check(async (items) => items.map((i) => verifySignature(i.publicKey, i.data, i.signature)));
    expect(same.map((v) => (v.ok ? true : v.reason))).toEqual(expected);
  });
});
