/**
 * RSA verification in the worker pool (src/pool/tasks/rsa.ts, src/pool/verifier.ts) for transaction admission: the
 * task format round-trips, and a pool of one worker (the BUILT dist/pool/worker.js) agrees with the
 * in-process check on valid, tampered and unusable inputs, across calls batched together.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createRsaVerifier } from '../../src/pool/verifier.js';
import { verifyRsaTask, type RsaItem } from '../../src/pool/tasks/rsa.js';

const packRsaItems = (items: readonly RsaItem[]): ArrayBuffer => verifyRsaTask.pack(items);
const unpackRsaItems = (task: ArrayBuffer): RsaItem[] => verifyRsaTask.unpack(task);
import { NodeWallet } from '../../src/wallet/wallet.js';
import { newDataDir } from '../e2e/harness.js';

let items: RsaItem[];
let expected: boolean[];

beforeAll(async () => {
  const wallet = await NodeWallet.open((await newDataDir()).dataDir);
  const key = wallet.primary;
  items = [];
  expected = [];
  for (let n = 0; n < 6; n++) {
    const data = new Uint8Array(44).fill(n);
    const signature = key.sign(data);
    items.push({ publicKey: key.publicKey, data, signature });
    expected.push(true);
    items.push({ publicKey: key.publicKey, data: new Uint8Array(44).fill(n + 100), signature });
    expected.push(false);
  }
  items.push({ publicKey: Uint8Array.of(1, 2, 3), data: new Uint8Array(44), signature: new Uint8Array(512) });
  expected.push(false);
});

describe('RSA verification in the pool', () => {
  it('packs and unpacks items unchanged', () => {
    const back = unpackRsaItems(packRsaItems(items));
    expect(back.map((i) => [Buffer.from(i.publicKey), Buffer.from(i.data), Buffer.from(i.signature)])).toEqual(
      items.map((i) => [Buffer.from(i.publicKey), Buffer.from(i.data), Buffer.from(i.signature)]),
    );
    expect(() => unpackRsaItems(packRsaItems(items).slice(0, 100))).toThrow(RangeError);
  });

  for (const threads of [0, 1]) {
    it(`threads ${threads}: agrees with the expected results, also for concurrent calls`, async () => {
      const v = createRsaVerifier({ threads, batchMaxItems: 4 });
      try {
        expect(await v.verify(items)).toEqual(expected);
        const split = await Promise.all(items.map((i) => v.verify([i])));
        expect(split.flat()).toEqual(expected);
        expect(await v.verify([])).toEqual([]);
      } finally {
        await v.close();
      }
      await expect(v.verify(items)).rejects.toThrow(/closed/);
    });
  }
});

