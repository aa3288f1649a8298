/**
 * Block codec (reference-formats.md §10.2/§10.3): rows present by block number and version, the
 * checksum over rows 1–11 only, round trips, and corruption detection.
 */
import { describe, expect, it } from 'vitest';
import { blockChecksum, decodeBlock, encodeBlock, encodeBlockHeader, txIdRoot, type Block } from '../../src/chain/block.js';
import { StoreCorruptionError } from '../../src/chain/errors.js';
import { sha3_512sq } from '../../src/core/hash.js';

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

function block(num: bigint, version = 13): Block {
  return {
    version,
    num,
    lastBlockChecksum: bytes(64, 1),
    signatureFreezeChecksum: num > 5n ? bytes(64, 2) : null,
    pitRoot: bytes(64, 3),
    timestamp: 1_700_000_000n,
    difficulty: 0xa2cb1211629f6141n,
    walletStateChecksum: bytes(64, 4),
    regNameStateChecksum: version >= 11 ? bytes(64, 5) : null,
    totalFee: 123_456n,
    signatures: [{ signer: bytes(45, 6), powSolution: null, signature: bytes(512, 7) }],
    txIds: [bytes(47, 8), bytes(47, 9)],
  };
}

describe('block codec', () => {
  it('round-trips an ordinary v13 block and checksums only the header', () => {
    const b = block(7n);
    const { bytes: encoded, headerLength } = encodeBlock(b);
    const header = encodeBlockHeader(b);
    expect(encoded.subarray(0, headerLength)).toEqual(header);
    const { block: back, headerLength: h2 } = decodeBlock(encoded);
    expect(h2).toBe(headerLength);
    expect(back).toEqual(b);
    expect(blockChecksum(header)).toEqual(sha3_512sq(header));
    // Signatures are not covered: changing one keeps the checksum.
    const resigned = encodeBlock({ ...b, signatures: [{ ...b.signatures[0]!, signature: bytes(512, 0xee) }] });
    expect(blockChecksum(resigned.bytes.subarray(0, resigned.headerLength))).toEqual(blockChecksum(header));
    // Every header field is covered.
    expect(blockChecksum(encodeBlockHeader({ ...b, totalFee: 1n }))).not.toEqual(blockChecksum(header));
    expect(blockChecksum(encodeBlockHeader({ ...b, regNameStateChecksum: bytes(64, 0) }))).not.toEqual(blockChecksum(header));
  });

  it('row 9 (signer bits) on block 1 and superblocks, superblock data on superblocks only', () => {
    const one = { ...block(1n), signerBits: 0x39ffffffffffffffn };
    expect(decodeBlock(encodeBlock(one).bytes).block.signerBits).toBe(0x39ffffffffffffffn);
    // Read from a Buffer inside a larger pool (as LMDB and sockets hand them), the bits are still the block's.
    const encoded = encodeBlock(one).bytes;
    const pool = Buffer.alloc(encoded.length + 100, 0x94);
    pool.set(encoded, 37);
    expect(decodeBlock(pool.subarray(37, 37 + encoded.length)).block.signerBits).toBe(0x39ffffffffffffffn);
    expect(encodeBlockHeader(one).length).toBe(encodeBlockHeader({ ...block(2n) }).length + 8);
    const superBlock: Block = {
      ...block(2000n),
      signerBits: 0x39ffffffffffffffn,
      superBlock: { lastSuperBlockNum: 1000n, lastSuperBlockChecksum: bytes(64, 10), segments: [bytes(64, 11), bytes(64, 12)] },
    };
    const back = decodeBlock(encodeBlock(superBlock).bytes).block;
    expect(back.superBlock).toEqual(superBlock.superBlock);
    expect(back.signerBits).toBe(superBlock.signerBits);
    // Stored blocks come back from LMDB as Buffers, possibly views of a larger shared buffer.
    const shared = Buffer.concat([Buffer.alloc(13, 0xab), Buffer.from(encodeBlock(one).bytes)]).subarray(13);
    expect(decodeBlock(shared).block.signerBits).toBe(0x39ffffffffffffffn);
  });

  it('reads row 9 by the network\'s superblock period', () => {
    const sb: Block = { ...block(20n), signerBits: 7n, superBlock: { lastSuperBlockNum: 1n, lastSuperBlockChecksum: bytes(64, 10), segments: [bytes(64, 11)] } };
    const encoded = encodeBlock(sb).bytes;
    const back = decodeBlock(encoded, 20n).block;
    expect(back.superBlock).toEqual(sb.superBlock);
    expect(back.signerBits).toBe(7n);
    // The reference period does not read superblock rows at block 20: the bytes do not decode.
    expect(() => decodeBlock(encoded)).toThrow(StoreCorruptionError);
    expect(decodeBlock(encodeBlock(block(20n)).bytes, 1000n).block.superBlock).toBeUndefined();
  });

  it('row 11 exists from version 11 only', () => {
    const v10 = block(9n, 10);
    const back = decodeBlock(encodeBlock(v10).bytes).block;
    expect(back.regNameStateChecksum).toBeNull();
    expect(back.totalFee).toBe(0n);
    expect(encodeBlockHeader(v10).length).toBeLessThan(encodeBlockHeader(block(9n, 11)).length);
  });

  it('truncated or padded bytes are a store corruption, named as such', () => {
    const { bytes: encoded } = encodeBlock(block(7n));
    expect(() => decodeBlock(encoded.subarray(0, encoded.length - 1))).toThrow(StoreCorruptionError);
    const padded = new Uint8Array(encoded.length + 1);
    padded.set(encoded);
    expect(() => decodeBlock(padded)).toThrow(/trailing bytes/);
  });

  it('the txid root commits to the ids and their order', () => {
    const a = bytes(47, 1);
    const b = bytes(47, 2);
    expect(txIdRoot([])).toBeNull();
    expect(txIdRoot([a, b])).toHaveLength(64);
    expect(txIdRoot([a, b])).not.toEqual(txIdRoot([b, a]));
    expect(txIdRoot([a])).not.toEqual(txIdRoot([a, a, a]));
  });
});
