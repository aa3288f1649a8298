/**
 * A chain under the reference's acceptance rule (reference-network §5), for unit tests: the test
 * chain of test/chain/fixture.ts with a ReferenceAcceptance installed, a set of fake masters (an
 * address and an on-demand signer-PoW signer each, src/consensus/inline-signer.ts), and helpers to
 * make a block signed by some of them.
 */
import { randomBytes } from 'node:crypto';
import type { Block, BlockSignature } from '../../src/chain/block.js';
import { systemClock } from '../../src/clock.js';
import { ReferenceAcceptance } from '../../src/consensus/acceptance.js';
import { InlineSignerPow } from '../../src/consensus/inline-signer.js';
import { consensusTiming } from '../../src/consensus/rules.js';
import { COIN } from '../../src/formats/amount.js';
import { latin1Key } from '../../src/state/keys.js';
import { openTestChain, type TestChain } from '../chain/fixture.js';

/** A signer-PoW floor that takes ~100 hashes: solutions in well under a millisecond. */
export const TEST_MIN_SIGNER_DIFFICULTY = 100n * COIN;

export interface FakeMaster {
  address: Uint8Array;
  signer: InlineSignerPow;
}

export interface ReferenceChain {
  t: TestChain;
  acceptance: ReferenceAcceptance;
  masters: FakeMaster[];
  /** Addresses with a fresh master presence (all masters unless a test removes some). */
  present: Set<string>;
  /** The next block (block n − 5 frozen first), signed by the masters at these indexes. */
  makeBlock(signers: number[]): Promise<{ block: Block; checksum: Uint8Array; txs: Parameters<TestChain['chain']['importBlock']>[1] }>;
  /** Makes and imports blocks until the tip is `height`, each signed by `signers`. */
  grow(height: bigint, signers: number[]): Promise<void>;
  close(): Promise<void>;
}

/** A v0 address (33 bytes, version 0) of no one: masters here are only names with a signer-PoW key. */
export const fakeAddress = (): Uint8Array => Uint8Array.of(0, ...randomBytes(32));

export async function openReferenceChain(masterCount: number, opts: { requirePresence?: boolean; blockInterval?: number } = {}): Promise<ReferenceChain> {
  const t = await openTestChain();
  const present = new Set<string>();
  let networkHeight = 0n;
  const acceptance = new ReferenceAcceptance({
    chain: t.chain,
    isFreshMaster: (a) => present.has(latin1Key(a)),
    requirePresence: opts.requirePresence ?? false,
    networkHeight: () => (networkHeight > t.chain.height ? networkHeight : t.chain.height),
    clock: systemClock,
    timing: consensusTiming(opts.blockInterval ?? 30),
    minimumConsensus: 2,
    minSignerDifficulty: TEST_MIN_SIGNER_DIFFICULTY,
  });
  t.chain.useAcceptance(acceptance);
  const masters = Array.from({ length: masterCount }, () => {
    const address = fakeAddress();
    present.add(latin1Key(address));
    return { address, signer: new InlineSignerPow({ chain: t.chain, address, minDifficulty: (n) => acceptance.minSignatureDifficulty(n) }) };
  });
  const rc: ReferenceChain = {
    t,
    acceptance,
    masters,
    present,
    async makeBlock(signers) {
      // As a proposer does (§5.5): block n − 5's row becomes its frozen list before block n is made.
      const n = t.chain.height + 1n;
      if (n > 11n) {
        const row = await acceptance.frozenRow(n - 5n);
        if (row) await t.chain.setBlockSignatures(n - 5n, row);
      }
      const produced = await t.producer.produceUnsigned(BigInt(Math.floor(Date.now() / 1000)));
      const sigs: BlockSignature[] = [];
      for (const i of signers) sigs.push((await masters[i]!.signer.signBlock(produced.block.num, produced.block.version, produced.checksum))!);
      return { block: { ...produced.block, signatures: sigs }, checksum: produced.checksum, txs: produced.txs };
    },
    async grow(height, signers) {
      while (t.chain.height < height) {
        const { block, txs } = await rc.makeBlock(t.chain.height + 1n < 8n ? signers.slice(0, 1) : signers);
        await t.chain.importBlock(block, txs, { source: 'peer' });
      }
    },
    close: () => t.close(),
  };
  void networkHeight;
  return rc;
}
