/**
 * The header chain of light nodes (src/chain/header-chain.ts; reference-network §1: relays and
 * clients follow headers only): linkage, the checks a header gets, txids against rows 5–6, revert
 * and persistence across a reopen.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { blockChecksum, decodeBlockHeader, encodeBlockHeader, txIdRoot, type Block } from '../../src/chain/block.js';
import { BlockErrorCode } from '../../src/chain/errors.js';
import { HeaderChain } from '../../src/chain/header-chain.js';
import { openStore, type Store } from '../../src/state/store.js';

const NOW_S = 1_800_000_000n;
const clock = { now: () => Number(NOW_S) * 1000 };
const PERIOD = 1000n;

function header(num: bigint, parent: Uint8Array | null, over: Partial<Block> = {}): Uint8Array {
  const b: Block = {
    version: 13, num, lastBlockChecksum: parent, signatureFreezeChecksum: null, pitRoot: null,
    timestamp: NOW_S - 1000n + num, difficulty: 1n, walletStateChecksum: new Uint8Array(64).fill(7), regNameStateChecksum: null,
    totalFee: 0n, signatures: [], txIds: [], ...(num === 1n ? { signerBits: 1n } : {}), ...over,
  };
  return encodeBlockHeader(b);
}

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open(dir = mkdtempSync(join(tmpdir(), 'dltnode-headers-'))): { chain: HeaderChain; dir: string; genesis: Uint8Array } {
  if (!dirs.includes(dir)) dirs.push(dir);
  const store = openStore(dir);
  stores.push(store);
  const genesis = header(1n, null);
  return { chain: new HeaderChain({ store, genesisHeader: genesis, superBlockPeriod: PERIOD, clock }), dir, genesis };
}

const codeOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (e) {
    return (e as { code: string }).code;
  }
  return 'none';
};

describe('HeaderChain', () => {
  it('starts at the genesis header and appends headers that link to the tip', async () => {
    const { chain, genesis } = open();
    expect(chain.height).toBe(1n);
    expect(chain.tip.checksum).toEqual(blockChecksum(genesis));
    let parent = chain.tip.checksum;
    for (let n = 2n; n <= 20n; n++) {
      const h = await chain.append(header(n, parent));
      parent = h.checksum;
    }
    expect(chain.height).toBe(20n);
    expect(chain.get(7n)!.block.num).toBe(7n);
    expect(chain.get(21n)).toBeNull();
  });

  it('refuses what does not follow the tip, with the import path codes', async () => {
    const { chain } = open();
    const tip = chain.tip.checksum;
    expect(await codeOf(chain.append(header(3n, tip)))).toBe(BlockErrorCode.ParentUnknown);
    expect(await codeOf(chain.append(header(2n, new Uint8Array(64).fill(1))))).toBe(BlockErrorCode.ParentMismatch);
    expect(await codeOf(chain.append(header(1n, null)))).toBe(BlockErrorCode.AlreadyKnown);
    expect(await codeOf(chain.append(header(2n, tip, { version: 9 })))).toBe(BlockErrorCode.BadVersion);
    expect(await codeOf(chain.append(header(2n, tip, { timestamp: NOW_S + 600n })))).toBe(BlockErrorCode.BadTimestamp);
    expect(await codeOf(chain.append(header(2n, tip, { timestamp: 1n })))).toBe(BlockErrorCode.BadTimestamp);
    expect(await codeOf(chain.append(Uint8Array.of(13, 2, 0xff)))).toBe(BlockErrorCode.Malformed);
    expect(chain.height).toBe(1n);
  });

  it('checks the txids given with a header against its count and root (rows 5–6)', async () => {
    const { chain } = open();
    const ids = [new Uint8Array(40).fill(1), new Uint8Array(40).fill(2), new Uint8Array(40).fill(3)];
    const h2 = header(2n, chain.tip.checksum, { txIds: ids, pitRoot: txIdRoot(ids) });
    expect(decodeBlockHeader(h2).txCount).toBe(3);
    expect(await codeOf(chain.append(h2, ids.slice(0, 2)))).toBe(BlockErrorCode.TxMismatch);
    expect(await codeOf(chain.append(h2, [ids[0]!, ids[2]!, ids[1]!]))).toBe(BlockErrorCode.TxMismatch);
    const taken = await chain.append(h2, ids);
    expect(taken.txCount).toBe(3);
  });

  it('takes back its tip for a longer chain, and keeps what it holds across a reopen', async () => {
    const first = open();
    let parent = first.chain.tip.checksum;
    for (let n = 2n; n <= 6n; n++) parent = (await first.chain.append(header(n, parent))).checksum;
    expect(await codeOf(first.chain.revertTip(new Uint8Array(64)))).toBe(BlockErrorCode.RevertUnavailable);
    await first.chain.revertTip(parent);
    expect(first.chain.height).toBe(5n);
    await stores.pop()!.close();
    const again = open(first.dir);
    expect(again.chain.height).toBe(5n);
    expect(again.chain.tip.checksum).toEqual(first.chain.tip.checksum);
    // Another genesis cannot use these headers.
    await stores.pop()!.close();
    const store = openStore(first.dir);
    stores.push(store);
    expect(() => new HeaderChain({ store, genesisHeader: header(1n, null, { difficulty: 2n }), superBlockPeriod: PERIOD, clock })).toThrow(/another genesis/);
  });
});
