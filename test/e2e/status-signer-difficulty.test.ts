/**
 * status's "Block Total Signer Difficulty" is getBlock's "Total Signer Difficulty" of the tip (one
 * function, src/rpc/methods/block-dict.ts): a signature without a solution counts 1.00000000
 * (`getTotalSignerDifficulty`), so the embedded network's one-signature tip is not "0.00000000".
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startNode, type NodeProcess } from './harness.js';

const nodes: NodeProcess[] = [];
afterAll(async () => {
  for (const n of nodes) await n.stop();
});

describe('status and getBlock on the tip', () => {
  it('report the same total signer difficulty', async () => {
    const node = await startNode();
    nodes.push(node);
    await node.waitForHeight(2);
    const status = await node.call('status');
    const block = await node.call('getBlock', { num: status['Block Height'] });
    expect(block['Signature count']).toBe(String(status['Block Signature Count']));
    expect(status['Block Total Signer Difficulty']).toBe(block['Total Signer Difficulty']);
    expect(block['Total Signer Difficulty']).toBe('1.00000000');
  });
});
