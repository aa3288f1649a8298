/**
 * A master's consensus engine (reference-network §5.3, §5.7) fed by hand: it adopts a candidate and
 * signs it, switches to a competing candidate with more signatures and an elected signer, imports it
 * once acceptable, keeps its tip against a weaker block for the same height, gathers signatures that
 * arrive before and after their block, merges late signatures into a stored block, and signs a
 * candidate it adopted before its signer miner had a solution once the solution is there; drops and
 * redials its links after 900 s without a block, syncing or not, counted after a revert from the
 * new tip's timestamp.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { encodeBlock, type BlockSignature } from '../../src/chain/block.js';
import { systemClock, type Clock } from '../../src/clock.js';
import { ConsensusEngine, type BlockPowSigner, type EnginePeers } from '../../src/consensus/engine.js';
import { consensusTiming, electedSigners, electionOffset } from '../../src/consensus/rules.js';
import { equalBytes } from '../../src/formats/bytes.js';
import { generateKeyPairSync } from 'node:crypto';
import { signerPowChallengePrefix, signerPowSearch, SIGNER_POW_MINER_SOLUTION } from '../../src/core/signer-pow.js';
import { makeBlockSignature, storedEntryDifficulty } from '../../src/consensus/block-signatures.js';
import { signerPowTargetForDifficulty } from '../../src/consensus/signer-pow.js';
import { publicKeyToBytes } from '../../src/formats/rsa.js';
import { silentLog } from '../chain/fixture.js';
import { BlockError, BlockErrorCode } from '../../src/chain/errors.js';
import type { Logger } from '../../src/log/logger.js';
import { openReferenceChain, TEST_MIN_SIGNER_DIFFICULTY, type ReferenceChain } from './reference-chain.js';

const open: { c: ReferenceChain; engine: ConsensusEngine }[] = [];
afterEach(async () => {
  for (const { c, engine } of open.splice(0)) {
    await engine.stop();
    await c.close();
  }
});

class FakePeers implements EnginePeers {
  isSynchronizing = false;
  blocks: Uint8Array[] = [];
  signatures: { num: bigint; sigs: readonly BlockSignature[] }[] = [];
  constructor(private readonly height: () => bigint) {}
  networkHeight() {
    return this.height();
  }
  pushBlock(_num: bigint, block: Uint8Array) {
    this.blocks.push(block);
  }
  pushSignatures(num: bigint, _checksum: Uint8Array, sigs: readonly BlockSignature[]) {
    this.signatures.push({ num, sigs });
  }
  requestBlock() {}
  askPresence() {}
  redials = 0;
  redial() {
    this.redials++;
  }
}

async function engineOn(masters: number, signerOf?: (own: BlockPowSigner) => BlockPowSigner, blockInterval = 30, clock: Clock = systemClock, log?: Logger): Promise<{ c: ReferenceChain; engine: ConsensusEngine; peers: FakePeers }> {
  const c = await openReferenceChain(masters, { blockInterval });
  const peers = new FakePeers(() => c.t.chain.height);
  const engine = new ConsensusEngine({
    chain: c.t.chain,
    mempool: c.t.mempool,
    producer: c.t.producer,
    acceptance: c.acceptance,
    signer: signerOf ? signerOf(c.masters[0]!.signer) : c.masters[0]!.signer,
    me: c.masters[0]!.address,
    genesisNode: false,
    peers: () => peers,
    // At 30 s blocks (the default) the engine proposes nothing by itself while the test runs.
    timing: consensusTiming(blockInterval),
    network: 'reg',
    clock,
    log: log ?? (process.env.ENGINE_DEBUG ? { ...silentLog, debug: (o: unknown, m?: string) => console.log('DEBUG', m, o), warn: (o: unknown, m?: string) => console.log('WARN', m, o), error: (o: unknown, m?: string) => console.log('ERROR', m, o), child: () => silentLog } : silentLog),
  });
  engine.start(c.t.events);
  open.push({ c, engine });
  return { c, engine, peers };
}

const wire = (b: { block: Parameters<typeof encodeBlock>[0] }) => encodeBlock(b.block).bytes;

/** The system clock, `skewMs` ahead: a test moves time on as a long pause (SIGSTOP) would. */
function skewedClock(): Clock & { skewMs: number } {
  return { skewMs: 0, now() { return Date.now() + this.skewMs; }, setTimer: systemClock.setTimer };
}

/** Bounded wait for `done` (the engine's loop ticks once a second at 30 s blocks). */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 50 && !done(); i++) await new Promise((r) => setTimeout(r, 100));
}

/** Index of the master elected for the next block now (§5.1), or -1. */
function electedIndex(c: ReferenceChain): number {
  const tip = c.t.chain.tip!;
  const election = c.t.chain.getBlock(tip.block.num - 6n)!.block.signatures.map((s) => s.signer);
  const elected = electedSigners(tip.checksum, election, electionOffset(Date.now() / 1000 - Number(tip.block.timestamp), consensusTiming(30))) ?? [];
  return c.masters.findIndex((m) => elected.some((e) => equalBytes(e, m.address)));
}

describe('ConsensusEngine', () => {
  it('adopts and signs a candidate, switches to a better competing one, imports it, and keeps it against a weaker block', async () => {
    const { c, engine, peers } = await engineOn(4);
    await c.grow(30n, [0, 1, 2, 3]);
    expect(c.acceptance.required(31n)).toBe(3);
    const elected = electedIndex(c);
    expect(elected).toBeGreaterThanOrEqual(0);
    const other = [1, 2, 3].find((i) => i !== elected)!;
    // X: one signature (not enough), adopted (half the requirement, rounded down, is 1), signed by us.
    const x = await c.makeBlock([other]);
    expect((await engine.receiveBlock(wire(x), x.txs.map((k) => k.bytes), 'peer-a')).action).toBe('accept');
    expect(engine.pending).toMatchObject({ num: 31n, signatures: 2 });
    expect(peers.signatures.at(-1)!.num).toBe(31n);
    expect(c.t.chain.height).toBe(30n);
    // Y: another block for 31 (one second later) with three signatures, the elected one among them.
    await new Promise((r) => setTimeout(r, 1100));
    const signers = [...new Set([elected, 1, 2, 3])].slice(0, 3);
    const y = await c.makeBlock(signers);
    expect(Buffer.compare(Buffer.from(y.checksum), Buffer.from(x.checksum))).not.toBe(0);
    expect((await engine.receiveBlock(wire(y), y.txs.map((k) => k.bytes), 'peer-b')).action).toBe('accept');
    expect(c.t.chain.height).toBe(31n);
    expect(c.t.chain.tip!.checksum).toEqual(y.checksum);
    // X again (two signatures): our tip stays.
    expect((await engine.receiveBlock(wire({ block: { ...x.block, signatures: x.block.signatures } }), x.txs.map((k) => k.bytes), 'peer-a')).action).toBe('ignore');
    expect(c.t.chain.tip!.checksum).toEqual(y.checksum);
  });

  it("a peer's block imported while ours was made is no failure: ours is dropped with a warning, not an error (the tip moved / its staking reward is already applied)", async () => {
    const warnings: string[] = [];
    const errors: string[] = [];
    const log: Logger = { ...silentLog, warn: (_o: object | string, m?: string) => void warnings.push(m ?? ''), error: (_o: object | string, m?: string) => void errors.push(m ?? ''), child: () => log };
    const { c, engine } = await engineOn(4, undefined, 30, systemClock, log);
    await c.grow(30n, [0, 1, 2, 3]);
    // Sync imports block 31 (not through the engine's queue) while our 31 is made on block 30.
    const produce = c.t.producer.produceUnsigned.bind(c.t.producer);
    c.t.producer.produceUnsigned = async () => {
      c.t.producer.produceUnsigned = produce; // the test chain makes its blocks with it
      await c.grow(31n, [0, 1, 2, 3]);
      throw new BlockError(BlockErrorCode.StakingReward, "block 31's own staking reward does not apply: transaction is already applied");
    };
    await (engine as unknown as { produce(reason: string): Promise<void> }).produce('fallback');
    expect(c.t.chain.height).toBe(31n);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('block 31 was not proposed: the tip became block 31');
    expect(errors).toEqual([]);
    // With the tip unchanged the same refusal is a real failure and is thrown (the engine's loop logs it at error).
    c.t.producer.produceUnsigned = async () => {
      throw new BlockError(BlockErrorCode.StakingReward, "block 32's own staking reward does not apply");
    };
    await expect((engine as unknown as { produce(reason: string): Promise<void> }).produce('fallback')).rejects.toThrow('staking reward');
    c.t.producer.produceUnsigned = produce;
  });

  it('gathers signatures that arrive before their block, and merges late ones into the stored block', async () => {
    const { c, engine } = await engineOn(5);
    await c.grow(30n, [0, 1, 2, 3]);
    const elected = electedIndex(c);
    const proposer = elected <= 0 ? 1 : elected;
    const b = await c.makeBlock([proposer]);
    const early = await c.masters[[1, 2, 3].find((i) => i !== proposer)!]!.signer.signBlock(31n, b.block.version, b.checksum);
    const late = await c.masters[4]!.signer.signBlock(31n, b.block.version, b.checksum);
    expect((await engine.receiveSignatures(31n, b.checksum, [early!], 'peer-c')).action).toBe('ignore');
    await engine.receiveBlock(wire(b), b.txs.map((k) => k.bytes), 'peer-a');
    // The block's signer, ours and the early one: 3 = required → imported.
    expect(c.t.chain.height).toBe(31n);
    expect(c.t.chain.getBlock(31n)!.block.signatures).toHaveLength(3);
    expect((await engine.receiveSignatures(31n, b.checksum, [late!], 'peer-d')).action).toBe('accept');
    expect(c.t.chain.getBlock(31n)!.block.signatures).toHaveLength(4);
  });

  it('a better solution of a signer replaces its entry in a stored block that is not frozen yet (§5.2)', async () => {
    const { c, engine } = await engineOn(4);
    await c.grow(30n, [0, 1, 2, 3]);
    const stored = c.t.chain.getBlock(30n)!;
    const signer = c.masters[1]!;
    const old = stored.block.signatures.find((s) => equalBytes(s.signer, signer.address))!;
    const difficultyOf = (sig: BlockSignature) => storedEntryDifficulty(sig, stored.block, (n) => c.t.chain.getBlock(n)?.checksum)!;
    // A solution found at a thousand times the minimum: almost surely better than the stored one.
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const signingPubKey = publicKeyToBytes(publicKey);
    const prefix = signerPowChallengePrefix({ blockNum: 29n, blockChecksum: c.t.chain.getBlock(29n)!.checksum, recipientAddress: signer.address, signingPubKey });
    const found = signerPowSearch(prefix, new Uint8Array(SIGNER_POW_MINER_SOLUTION), signerPowTargetForDifficulty(1000n * TEST_MIN_SIGNER_DIFFICULTY), 1 << 20);
    const better = makeBlockSignature(stored.checksum, signer.address, { blockNum: 29n, solution: found.solution!, signingPubKey }, privateKey);
    const replaces = difficultyOf(better) > difficultyOf(old);
    expect((await engine.receiveSignatures(30n, stored.checksum, [better], 'peer-x')).action).toBe(replaces ? 'accept' : 'ignore');
    const row = c.t.chain.getBlock(30n)!.block.signatures;
    expect(row).toHaveLength(4);
    const now = row.find((s) => equalBytes(s.signer, signer.address))!;
    expect(Buffer.from(now.signature!).equals(Buffer.from((replaces ? better : old).signature!))).toBe(true);
    // The replacement moved to the end of the row (the reference removes the old entry and appends).
    if (replaces) expect(equalBytes(row.at(-1)!.signer, signer.address)).toBe(true);
    // A worse one never replaces.
    expect((await engine.receiveSignatures(30n, stored.checksum, [old], 'peer-x')).action).toBe('ignore');
  });

  it("its own block's interval counts from when it began producing it, not from its import", async () => {
    // Two masters at 1 s blocks; our signing takes 1.5 s, so production ends well after it began.
    let signingBegan = 0;
    const { c, engine, peers } = await engineOn(2, (own) => ({
      signBlock: async (num, version, checksum) => {
        if (num === 31n) {
          signingBegan ||= Date.now();
          await new Promise((r) => setTimeout(r, 1_500));
        }
        return own.signBlock(num, version, checksum);
      },
    }), 1);
    await c.grow(30n, [0, 1]);
    // The engine proposes block 31 once elected (within a few of its 1 s steps, §5.1).
    for (let i = 0; i < 150 && peers.blocks.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(peers.blocks.length).toBeGreaterThan(0);
    const pending = engine.pending!;
    expect(pending.num).toBe(31n);
    // The other master's signature makes it acceptable (required consensus 2).
    const theirs = await c.masters[1]!.signer.signBlock(31n, c.t.chain.tip!.block.version, pending.checksum);
    await engine.receiveSignatures(31n, pending.checksum, [theirs!], 'peer-b');
    const importedBy = Date.now();
    expect(c.t.chain.height).toBe(31n);
    expect(c.t.chain.tip!.checksum).toEqual(pending.checksum);
    expect(c.t.chain.tip!.receivedAtMs).toBeLessThan(signingBegan);
    expect(importedBy - c.t.chain.tip!.receivedAtMs).toBeGreaterThanOrEqual(1_500);
  });

  it('signs a candidate adopted before its signer PoW solution existed, once the solution is found', async () => {
    // A master that joins as block 8 is proposed has no solution yet (reference-network §5.2); the
    // candidate must not wait out its timeout (10 intervals) for lack of our signature.
    let solved = false;
    const { c, engine, peers } = await engineOn(4, (own) => ({
      signBlock: (num, version, checksum) => (solved ? own.signBlock(num, version, checksum) : Promise.resolve(null)),
    }));
    await c.grow(30n, [0, 1, 2, 3]);
    const elected = electedIndex(c);
    const proposer = elected <= 0 ? 1 : elected;
    const x = await c.makeBlock([proposer]);
    expect((await engine.receiveBlock(wire(x), x.txs.map((k) => k.bytes), 'peer-a')).action).toBe('accept');
    expect(engine.pending).toMatchObject({ num: 31n, signatures: 1 });
    expect(peers.signatures).toHaveLength(0);
    solved = true;
    // The loop ticks once a second at 30 s blocks: bounded wait for our signature.
    for (let i = 0; i < 40 && (engine.pending?.signatures ?? 0) < 2; i++) await new Promise((r) => setTimeout(r, 100));
    expect(engine.pending).toMatchObject({ num: 31n, signatures: 2 });
    expect(peers.signatures.at(-1)!.num).toBe(31n);
  });

  it('drops and redials every link once after 900 s without a block (§5.7), not again within 1800 s', async () => {
    const clock = skewedClock();
    const { peers } = await engineOn(4, undefined, 30, clock);
    clock.skewMs = 901_000;
    await until(() => peers.redials > 0);
    expect(peers.redials).toBe(1);
    clock.skewMs = 1_500_000; // still within the 1800 s cooldown of that redial
    await new Promise((r) => setTimeout(r, 1_200));
    expect(peers.redials).toBe(1);
  });

  it('redials a syncing node that imports no block for 900 s, and restarts the timer at each block the sync imports (§5.7)', async () => {
    // DLT `Node.update` checks the time since the last appended block whatever the sync does: a
    // node stuck synchronizing (its sources gone or silent) gets fresh links.
    const clock = skewedClock();
    const { c, peers } = await engineOn(4, undefined, 30, clock);
    peers.isSynchronizing = true;
    clock.skewMs = 600_000;
    await c.grow(c.t.chain.height + 1n, [0, 1, 2, 3]); // a block the sync appended, 600 s in
    clock.skewMs = 1_200_000; // 600 s after it: not quiet yet
    await new Promise((r) => setTimeout(r, 1_200));
    expect(peers.redials).toBe(0);
    clock.skewMs = 1_600_000; // 1000 s after it
    await until(() => peers.redials > 0);
    expect(peers.redials).toBe(1);
  });

  it('after a revert, counts the quiet time from the new tip\'s timestamp, not from the last import (§6, DLT revertLastBlock)', async () => {
    const clock = skewedClock();
    const { c, peers } = await engineOn(4, undefined, 30, clock);
    // Syncing: the engine proposes nothing of its own (its import would restart the timer).
    peers.isSynchronizing = true;
    await c.grow(30n, [0, 1, 2, 3]);
    const tipStampMs = Number(c.t.chain.tip!.block.timestamp) * 1000;
    clock.skewMs = 600_000;
    await c.grow(31n, [0, 1, 2, 3]); // imported 600 s after block 30's timestamp
    await c.t.chain.revertTip(c.t.chain.tip!.checksum);
    expect(c.t.chain.height).toBe(30n);
    // 400 s after the last import, 1000 s after the new tip's timestamp: quiet for over 900 s.
    clock.skewMs = tipStampMs + 1_000_000 - Date.now();
    await until(() => peers.redials > 0);
    expect(peers.redials).toBe(1);
  });
});
