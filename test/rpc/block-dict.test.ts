/**
 * `getfullblock`'s "Superblock segments" (hj: written as number → hex; the reference's Newtonsoft
 * writes its Dictionary<ulong, SuperBlockSegment> as number → {blockNum, blockChecksum base64}).
 */
import { describe, expect, it } from 'vitest';
import type { Block } from '../../src/chain/block.js';
import { superBlockSegmentsText } from '../../src/rpc/methods/block-dict.js';

describe('superBlockSegmentsText', () => {
  it('writes each segment as {blockNum, blockChecksum} keyed by its block number, numbered up to the superblock', () => {
    const a = new Uint8Array(64).fill(1);
    const b = new Uint8Array(64).fill(2);
    const block = { num: 2000n, superBlock: { lastSuperBlockNum: 1000n, lastSuperBlockChecksum: null, segments: [a, new Uint8Array(0), b] } } as unknown as Block;
    expect(JSON.parse(superBlockSegmentsText(block))).toEqual({
      '1997': { blockNum: 1997, blockChecksum: Buffer.from(a).toString('base64') },
      '1998': { blockNum: 1998, blockChecksum: null },
      '1999': { blockNum: 1999, blockChecksum: Buffer.from(b).toString('base64') },
    });
    expect(superBlockSegmentsText(block)).toMatch(/^\{"1997":\{"blockNum":1997,"blockChecksum":"AQEB/);
  });

  it('is {} for a block that is no superblock', () => {
    expect(superBlockSegmentsText({ num: 5n } as unknown as Block)).toBe('{}');
  });
});
