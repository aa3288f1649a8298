/**
 * `verifyOnce` (src/chain/chain.ts): each signature checked once between a block import and the
 * mempool's admission. Items with a check under way elsewhere take its verdict; the others are
 * checked in one call (and published as they start); an item whose pending check failed is checked.
 */
import { describe, expect, it } from 'vitest';
import { verifyOnce, type SignatureVerifier } from '../../src/chain/chain.js';

const item = (n: number) => ({ publicKey: Uint8Array.of(n), data: Uint8Array.of(n), signature: Uint8Array.of(n) });

describe('verifyOnce', () => {
  it('takes pending verdicts, checks the rest in one call, and checks again what a failed pending check left', async () => {
    const calls: number[][] = [];
    // Odd items verify, even ones do not.
    const verify: SignatureVerifier = async (items) => {
      calls.push(items.map((i) => i.data[0]!));
      return items.map((i) => i.data[0]! % 2 === 1);
    };
    const published: [number, boolean][] = [];
    const items = [0, 1, 2, 3, 4, 5].map(item);
    const pending = [undefined, Promise.resolve(false), undefined, Promise.reject(new Error('verifier busy')), Promise.resolve(true), undefined];
    const verdicts = await verifyOnce(items, pending, verify, (i, v) => void v.then((ok) => published.push([i, ok])));
    // Item 1 takes its pending false (it would verify), item 4 its pending true (it would not).
    expect(verdicts).toEqual([false, false, false, true, true, true]);
    expect(calls).toEqual([[0, 2, 5], [3]]);
    expect(published.sort((a, b) => a[0] - b[0])).toEqual([[0, false], [2, false], [5, true]]);
  });

  it('makes no call when every verdict is pending, and passes on a failure of its own call', async () => {
    const never: SignatureVerifier = async () => {
      throw new Error('not called');
    };
    expect(await verifyOnce([item(1)], [Promise.resolve(true)], never)).toEqual([true]);
    await expect(verifyOnce([item(1)], [undefined], never)).rejects.toThrow('not called');
  });
});
