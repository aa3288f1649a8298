import { beforeAll, describe, expect, it } from 'vitest';
import { BlockSync, type ImportOutcome, type SyncChain, type SyncProgress } from '../../src/network/block-sync.js';
import type { LocalNode } from '../../src/network/link.js';
import type { Logger } from '../../src/log/logger.js';
import { PeerNetwork } from '../../src/network/peer-network.js';
import { GENESIS, makeIdentity, ManualClock, pump, type TestIdentity, wire } from './helpers.js';

let ids: TestIdentity[];
beforeAll(async () => {
  ids = await Promise.all(Array.from({ length: 3 }, () => makeIdentity()));
});

/**
 * Block bytes: u16 height ‖ branch ‖ parent's branch ‖ marker (0xBB = invalid); each block has one
 * 3-byte transaction. A block follows a tip of its parent's branch (a fork has its own branch).
 */
const blockOf = (h: number, bad = false, branch = 0, parentBranch = branch) => Uint8Array.of(h & 0xff, (h >> 8) & 0xff, branch, parentBranch, bad ? 0xbb : 1);
const heightOf = (b: Uint8Array) => b[0]! | (b[1]! << 8);

class FakeChain implements SyncChain {
  blocks: Uint8Array[] = [];
  imported: { height: number; source: string; txs: number }[] = [];
  constructor(clock: ManualClock, n = 0, badAt = -1) {
    this.t0 = Math.floor(clock.now() / 1000) - 30 * 1000;
    for (let h = 1; h <= n; h++) this.blocks.push(blockOf(h, h === badAt));
  }
  /** Blocks 30 s apart, the network's 1000th block being about now. */
  private t0 = 0;
  tip() {
    return { height: BigInt(this.blocks.length), checksum: new Uint8Array(64), timestampSeconds: this.t0 + 30 * this.blocks.length };
  }
  blockBytes(h: bigint) {
    return this.blocks[Number(h) - 1] ?? null;
  }
  blockTransactions(h: bigint) {
    return [Uint8Array.of(7, Number(h) & 0xff, 1)];
  }
  async importBlock(block: Uint8Array, txs: Uint8Array[], source: string): Promise<ImportOutcome> {
    if (heightOf(block) !== this.blocks.length + 1) return { ok: false, action: 'ignore', reason: 'not next' };
    if (block[4] === 0xbb) return { ok: false, action: 'reject', reason: 'invalid block' };
    const tip = this.blocks.at(-1);
    if (tip && block[3] !== tip[2]) return this.unsignedForks ? { ok: false, action: 'fork', reason: 'no valid signature here', signed: false } : { ok: false, action: 'fork', reason: 'follows another block' };
    this.blocks.push(block);
    this.imported.push({ height: heightOf(block), source, txs: txs.length });
    return { ok: true };
  }
  reverted: number[] = [];
  /** A fork's blocks do not verify on this chain (their signers' proofs name blocks it holds otherwise). */
  unsignedForks = false;
  async revertTip(): Promise<boolean> {
    if (this.blocks.length <= 1) return false;
    this.reverted.push(heightOf(this.blocks.pop()!));
    return true;
  }
}

function node(id: TestIdentity, port: number, clock: ManualClock, chain: FakeChain, serve = true, log?: Logger) {
  let sync!: BlockSync;
  const progress: SyncProgress[] = [];
  const local: LocalNode = {
    network: 'reg', genesisChecksum: GENESIS, nodeType: 'M', address: id.address, publicKey: id.publicKey,
    productVersion: 't', endpoint: `127.0.0.1:${port}`, sign: id.sign,
    tip: () => ({ height: chain.tip().height, checksum: new Uint8Array(64) }),
    networkHeight: (withPeer) => (sync ? sync.networkHeight(withPeer) : 0n),
    acceptingPeers: () => !sync || sync.acceptsLinks,
  };
  const network = new PeerNetwork({ local, clock, onMessage: (link, m) => void sync.handle(link, m) });
  sync = new BlockSync({ network, chain, clock, serve, onProgress: (p) => progress.push(p), batchBlocks: 50, ...(log ? { log } : {}) });
  network.start();
  return { network, sync, chain, progress };
}


/** A logger that keeps error and info lines. */
function capturingLog(): { log: Logger; errors: { fields: Record<string, unknown>; msg: string }[]; infos: string[] } {
  const errors: { fields: Record<string, unknown>; msg: string }[] = [];
  const infos: string[] = [];
  const log: Logger = {
    info: (_f: object | string, msg?: string) => void infos.push(msg ?? ''),
    warn: () => undefined,
    error: (fields: object | string, msg?: string) => void errors.push({ fields: fields as Record<string, unknown>, msg: msg ?? '' }),
    debug: () => undefined,
    child: () => log,
  };
  return { log, errors, infos };
}

describe('BlockSync', () => {
  it('an empty node syncs 300 blocks strictly in order, Synchronizing → Active, then follows new blocks', async () => {
    const clock = new ManualClock();
    const a = node(ids[0]!, 1, clock, new FakeChain(clock, 300));
    const b = node(ids[1]!, 2, clock, new FakeChain(clock));
    const sockets = wire(b.network, a.network, '127.0.0.1:1');
    await pump(...sockets);
    b.sync.start();
    a.sync.start();
    expect(b.sync.status()).toBe('Synchronizing');
    for (let i = 0; i < 40 && b.chain.blocks.length < 300; i++) {
      await pump(...sockets);
      clock.advance(1_000);
    }
    expect(b.chain.imported.map((x) => x.height)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(b.chain.imported.every((x) => x.txs === 1)).toBe(true);
    clock.advance(1_000);
    expect(b.sync.status()).toBe('Active');
    expect(b.progress.some((p) => p.status === 'Active')).toBe(true);

    // A new block on a: its announcement raises a's height at b, and b fetches it.
    a.chain.blocks.push(blockOf(301));
    a.network.announce({ type: 1, height: 301n, checksum: new Uint8Array(64) });
    for (let i = 0; i < 4; i++) {
      await pump(...sockets);
      clock.advance(1_000);
    }
    expect(b.chain.blocks).toHaveLength(301);

    // A proposer's push of the next block is imported at once.
    const link = a.network.links()[0]!;
    link.send({ code: 111, from: 302n, tip: 302n, blocks: [{ block: blockOf(302), transactions: [] }] });
    a.chain.blocks.push(blockOf(302));
    await pump(...sockets);
    expect(b.chain.blocks).toHaveLength(302);

    // 1800 s without a block.
    clock.advance(1_800_001);
    expect(b.sync.status()).toBe('ErrorLongTimeNoBlock');
    for (const n of [a, b]) {
      n.sync.stop();
      n.network.stop();
    }
  });

  it('counts block announcements of a block it holds or was already told of as gossip dedup hits (issue 9 item 9)', async () => {
    const clock = new ManualClock();
    const a = node(ids[0]!, 1, clock, new FakeChain(clock, 10));
    const b = node(ids[1]!, 2, clock, new FakeChain(clock, 10));
    const sockets = wire(b.network, a.network, '127.0.0.1:1');
    // The announcements go out in batches on the clock.
    const step = async () => {
      for (let i = 0; i < 3; i++) {
        await pump(...sockets);
        clock.advance(1_000);
      }
    };
    await pump(...sockets);
    a.sync.start();
    b.sync.start();
    await step();
    const hitsBefore = b.sync.dedupHits;
    a.network.announce({ type: 1, height: 9n, checksum: new Uint8Array(64).fill(9) }); // b holds 9
    await step();
    expect(b.sync.dedupHits - hitsBefore).toBe(1);
    a.chain.blocks.push(blockOf(11));
    a.network.announce({ type: 1, height: 11n, checksum: new Uint8Array(64).fill(11) }); // new to b
    await step();
    expect(b.sync.dedupHits - hitsBefore).toBe(1);
    a.network.announce({ type: 1, height: 11n, checksum: new Uint8Array(64).fill(11) }); // again
    await step();
    expect(b.sync.dedupHits - hitsBefore).toBe(2);
    for (const n of [a, b]) {
      n.sync.stop();
      n.network.stop();
    }
  });

  it('a syncing node that loses its last link stays Synchronizing at the last network height it knew (§6, reference highestNetworkBlockNum)', async () => {
    const clock = new ManualClock();
    const a = node(ids[0]!, 1, clock, new FakeChain(clock, 300));
    const b = node(ids[1]!, 2, clock, new FakeChain(clock));
    const sockets = wire(b.network, a.network, '127.0.0.1:1');
    await pump(...sockets);
    b.sync.start(); // a's hello said 300: b asks for the first range, and a goes before answering
    expect(b.sync.status()).toBe('Synchronizing');
    a.network.stop();
    await pump(...sockets);
    expect(b.network.links()).toHaveLength(0);
    clock.advance(1_000);
    expect(b.sync.networkHeight()).toBe(300n);
    expect(b.sync.status()).toBe('Synchronizing');
    expect(b.progress.at(-1)?.status).toBe('Synchronizing');
    b.sync.stop();
    b.network.stop();
  });

  it('masters left behind a height whose holders are gone take links from each other and go on from their own heights (DLT isAcceptingConnections, determineHighestNetworkBlockNum)', async () => {
    const clock = new ManualClock();
    const c = node(ids[2]!, 3, clock, new FakeChain(clock, 100), false); // gives its height, serves nothing
    const a = node(ids[0]!, 1, clock, new FakeChain(clock, 100));
    const b = node(ids[1]!, 2, clock, new FakeChain(clock, 100));
    const toC = [...wire(a.network, c.network, '127.0.0.1:3'), ...wire(b.network, c.network, '127.0.0.1:3')];
    await pump(...toC);
    for (const n of [a, b]) {
      n.sync.tick();
      expect(n.sync.status()).toBe('Active'); // its start-up sync is done
    }
    // c reaches 130 and goes before a and b got any of it: both stay Synchronizing at 130.
    for (const n of [a, b]) n.network.links()[0]!.peerHeight = 130n;
    for (const n of [a, b]) n.sync.tick();
    c.network.stop();
    await pump(...toC);
    for (const n of [a, b]) {
      expect(n.network.links()).toHaveLength(0);
      expect(n.sync.networkHeight()).toBe(130n);
      expect(n.sync.status()).toBe('Synchronizing');
    }
    // a dials b: b takes the link (no notReady after its start-up sync), and a does not call b
    // too far behind the 130 that nobody linked reports any more.
    const ab = wire(a.network, b.network, '127.0.0.1:2');
    await pump(...ab);
    expect(a.network.links()).toHaveLength(1);
    expect(b.network.links()).toHaveLength(1);
    for (const n of [a, b]) {
      n.sync.tick();
      expect(n.sync.networkHeight()).toBe(100n);
      expect(n.sync.status()).toBe('Active');
    }
    for (const n of [a, b, c]) {
      n.sync.stop();
      n.network.stop();
    }
  });

  it('a master still in its start-up sync refuses new links (notReady, §1)', async () => {
    const clock = new ManualClock();
    const c = node(ids[2]!, 3, clock, new FakeChain(clock, 100), false);
    const a = node(ids[0]!, 1, clock, new FakeChain(clock, 50));
    const b = node(ids[1]!, 2, clock, new FakeChain(clock, 50));
    const toC = wire(a.network, c.network, '127.0.0.1:3');
    await pump(...toC);
    a.sync.tick();
    expect(a.sync.status()).toBe('Synchronizing');
    expect(a.sync.acceptsLinks).toBe(false);
    const ba = wire(b.network, a.network, '127.0.0.1:1');
    await pump(...ba);
    expect(a.network.links()).toHaveLength(1); // c only
    for (const n of [a, b, c]) {
      n.sync.stop();
      n.network.stop();
    }
  });

  it('a peer serving an invalid block is banned; sync continues from another peer', async () => {
    const clock = new ManualClock();
    const bad = node(ids[0]!, 1, clock, new FakeChain(clock, 120, 30));
    const good = node(ids[2]!, 3, clock, new FakeChain(clock, 120));
    const b = node(ids[1]!, 2, clock, new FakeChain(clock));
    const sockets = [...wire(b.network, bad.network, '127.0.0.1:1'), ...wire(b.network, good.network, '127.0.0.1:3')];
    await pump(...sockets);
    for (const n of [bad, good, b]) n.sync.start();
    for (let i = 0; i < 60 && b.chain.blocks.length < 120; i++) {
      await pump(...sockets);
      clock.advance(1_000);
    }
    expect(b.chain.blocks).toHaveLength(120);
    // The first range went to the bad peer (first link): blocks 1–29 from it, 30 refused, the rest from the good one.
    expect(b.network.isBlocked(ids[0]!.address)).toBe(true);
    const { addressToText } = await import('../../src/formats/address.js');
    expect(b.network.links().map((l) => l.peer!.addressText)).toEqual([addressToText(ids[2]!.address)]);
    expect(b.chain.imported.find((x) => x.height === 29)!.source).toBe(addressToText(ids[0]!.address));
    expect(b.chain.imported.find((x) => x.height === 30)!.source).toBe(addressToText(ids[2]!.address));
  });

  it('a node whose tip left the longer chain reverts it and follows; a pushed block ahead costs the pusher nothing', async () => {
    const clock = new ManualClock();
    // a: blocks 1–20 of branch 0; b: 1–17 of branch 0, then its own 18–19 (branch 1).
    const a = node(ids[0]!, 1, clock, new FakeChain(clock, 20));
    const bChain = new FakeChain(clock, 17);
    bChain.blocks.push(blockOf(18, false, 1, 0), blockOf(19, false, 1, 1));
    const b = node(ids[1]!, 2, clock, bChain);
    const sockets = wire(b.network, a.network, '127.0.0.1:1');
    await pump(...sockets);
    for (const n of [a, b]) n.sync.start();
    for (let i = 0; i < 20 && !(b.chain.blocks.length === 20 && b.chain.blocks[18]![2] === 0); i++) {
      await pump(...sockets);
      clock.advance(1_000);
    }
    expect(b.chain.reverted).toEqual([19, 18]);
    expect(b.chain.blocks.map((x) => x[2])).toEqual(new Array(20).fill(0));
    // a pushes each new block while b is behind: not a fault, however many (5 points each would ban at 100).
    a.chain.blocks.push(blockOf(21), blockOf(22));
    for (let i = 0; i < 25; i++) a.network.links()[0]!.send({ code: 111, from: 22n, tip: 22n, blocks: [{ block: blockOf(22), transactions: [] }] });
    for (let i = 0; i < 6 && b.chain.blocks.length < 22; i++) {
      await pump(...sockets);
      clock.advance(1_000);
    }
    expect(b.chain.blocks).toHaveLength(22);
    expect(b.network.isBlocked(ids[0]!.address)).toBe(false);
    expect(b.network.links()[0]!.peer).toBeDefined();
    for (const n of [a, b]) {
      n.sync.stop();
      n.network.stop();
    }
  });

  it('a tip reverted counts as appended at its own timestamp: DLT Status as on a master (§6 revertLastBlock)', async () => {
    const clock = new ManualClock();
    // a: blocks 1–20 of branch 0, its 18 invalid; b: 1–17 of branch 0, then its own 18–19 (branch 1).
    const aChain = new FakeChain(clock, 20);
    aChain.blocks[17] = blockOf(18, true);
    const a = node(ids[0]!, 1, clock, aChain);
    const bChain = new FakeChain(clock, 17);
    bChain.blocks.push(blockOf(18, false, 1, 0), blockOf(19, false, 1, 1));
    const b = node(ids[1]!, 2, clock, bChain);
    const sockets = wire(b.network, a.network, '127.0.0.1:1');
    await pump(...sockets);
    for (const n of [a, b]) n.sync.start();
    for (let i = 0; i < 10 && b.chain.reverted.length < 2; i++) {
      await pump(...sockets);
      clock.advance(1_000);
    }
    // b took back 19 and 18 and holds 17, whose timestamp is hours old (FakeChain: 30 s blocks, the 1000th now).
    expect(b.chain.reverted).toEqual([19, 18]);
    expect(b.chain.blocks).toHaveLength(17);
    expect(Math.floor(clock.now() / 1000) - b.chain.tip().timestampSeconds).toBeGreaterThan(1_800);
    // Its last import was at start, seconds ago; a master's `Block generated seconds ago` now runs from block 17's timestamp.
    expect(b.sync.status()).toBe('ErrorLongTimeNoBlock');
    for (const n of [a, b]) {
      n.sync.stop();
      n.network.stop();
    }
  });

  it('a fork deeper than 5 blocks is reverted 5 deep, then said once at error with heights, peer and what to do, and shown as deepFork until a peer block is imported (§5.7)', async () => {
    const clock = new ManualClock();
    // a: blocks 1–30 of branch 0; b: 1–20 of branch 0, then its own 21–28 (branch 1): 8 blocks deep.
    const a = node(ids[0]!, 1, clock, new FakeChain(clock, 30));
    const bChain = new FakeChain(clock, 20);
    bChain.blocks.push(blockOf(21, false, 1, 0));
    for (let h = 22; h <= 28; h++) bChain.blocks.push(blockOf(h, false, 1, 1));
    const { log, errors, infos } = capturingLog();
    const b = node(ids[1]!, 2, clock, bChain, true, log);
    const sockets = wire(b.network, a.network, '127.0.0.1:1');
    await pump(...sockets);
    for (const n of [a, b]) n.sync.start();
    for (let i = 0; i < 30; i++) {
      await pump(...sockets);
      clock.advance(1_000);
    }
    // Five tips taken back (28…24), then no more: 23 stays, and the fork is said once.
    expect(b.chain.reverted).toEqual([28, 27, 26, 25, 24]);
    expect(b.chain.blocks).toHaveLength(23);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.fields).toMatchObject({ height: 23, peerHeight: 30, reverted: 5, maxRevert: 5 });
    expect(errors[0]!.msg).toContain('block 24 does not follow our block 23');
    expect(errors[0]!.msg).toContain('the last common block is at most 22');
    expect(errors[0]!.msg).toContain('move its chain directory');
    expect(b.sync.deepFork).toMatchObject({ height: 23n, peerHeight: 30n, reverted: 5 });
    // The operator's way out, in short: our chain back to the common block; the next import ends the report.
    b.chain.blocks.length = 20;
    for (let i = 0; i < 20 && b.chain.blocks.length < 30; i++) {
      await pump(...sockets);
      clock.advance(1_000);
    }
    expect(b.chain.blocks).toHaveLength(30);
    expect(b.sync.deepFork).toBeNull();
    expect(infos.some((m) => m.includes('the fork reported earlier is over'))).toBe(true);
    expect(errors).toHaveLength(1);
    for (const n of [a, b]) {
      n.sync.stop();
      n.network.stop();
    }
  });

  it('a fork whose next block does not verify on our chain is not reverted, and said once after it lasted a request timeout', async () => {
    const clock = new ManualClock();
    // a: 1–30 of branch 0; b: 1–17, then its own 18–19 (branch 1), whose fork's blocks it cannot verify.
    const a = node(ids[0]!, 1, clock, new FakeChain(clock, 30));
    const bChain = new FakeChain(clock, 17);
    bChain.blocks.push(blockOf(18, false, 1, 0), blockOf(19, false, 1, 1));
    bChain.unsignedForks = true;
    const { log, errors } = capturingLog();
    const b = node(ids[1]!, 2, clock, bChain, true, log);
    const sockets = wire(b.network, a.network, '127.0.0.1:1');
    await pump(...sockets);
    for (const n of [a, b]) n.sync.start();
    for (let i = 0; i < 5; i++) {
      await pump(...sockets);
      clock.advance(1_000);
    }
    // Seen, not yet said: a signer's presence may be missing for a moment.
    expect(errors).toHaveLength(0);
    expect(b.sync.deepFork).toBeNull();
    for (let i = 0; i < 20; i++) {
      await pump(...sockets);
      clock.advance(1_000);
    }
    expect(b.chain.reverted).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.fields).toMatchObject({ height: 19, peerHeight: 30, reverted: 0, reason: 'no valid signature here' });
    expect(b.sync.deepFork).toMatchObject({ height: 19n });
    expect(b.network.isBlocked(ids[0]!.address)).toBe(false);
    for (const n of [a, b]) {
      n.sync.stop();
      n.network.stop();
    }
  });

  it('stop waits for the import under way and imports nothing more of the range (the node closes its store next)', async () => {
    const clock = new ManualClock();
    const a = node(ids[0]!, 1, clock, new FakeChain(clock, 30));
    const bChain = new FakeChain(clock, 10);
    // Block 11's import waits until the test lets it end.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const importNow = bChain.importBlock.bind(bChain);
    bChain.importBlock = async (block, txs, source) => {
      if (heightOf(block) === 11) await gate;
      return importNow(block, txs, source);
    };
    const b = node(ids[1]!, 2, clock, bChain);
    const sockets = wire(b.network, a.network, '127.0.0.1:1');
    await pump(...sockets);
    b.sync.start();
    await pump(...sockets);
    expect(bChain.blocks).toHaveLength(10);
    let stopped = false;
    const stopping = Promise.resolve(b.sync.stop()).then(() => (stopped = true));
    await pump(...sockets);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(bChain.imported.map((x) => x.height)).toEqual([11]);
    for (const n of [a, b]) n.network.stop();
  });

  it('a light node started on a tip older than 1800 s says ErrorLongTimeNoBlock at once, as a master does (§6: a stored tip counts as appended at its timestamp)', async () => {
    const clock = new ManualClock();
    const chain = new FakeChain(clock, 20);
    const id = ids[0]!;
    const local: LocalNode = {
      network: 'reg', genesisChecksum: GENESIS, nodeType: 'R', address: id.address, publicKey: id.publicKey,
      productVersion: 't', endpoint: '127.0.0.1:1', sign: id.sign,
      tip: () => ({ height: chain.tip().height, checksum: new Uint8Array(64) }), networkHeight: () => 0n, acceptingPeers: () => true,
    };
    const network = new PeerNetwork({ local, clock });
    const sync = new BlockSync({ network, chain, clock, serve: false, headers: { addresses: () => [] } });
    // Block 20 is hours old (FakeChain: 30 s blocks, the 1000th now) and no peer is linked.
    const age = Math.floor(clock.now() / 1000) - chain.tip().timestampSeconds;
    expect(age).toBeGreaterThan(1_800);
    expect(sync.status()).toBe('ErrorLongTimeNoBlock');
    expect(sync.secondsSinceBlock()).toBe(age);
    network.stop();
  });

  it('a syncing master serves no blocks', async () => {
    const clock = new ManualClock();
    const a = node(ids[0]!, 1, clock, new FakeChain(clock, 10));
    const b = node(ids[1]!, 2, clock, new FakeChain(clock, 5));
    const sockets = wire(b.network, a.network, '127.0.0.1:1');
    await pump(...sockets);
    b.sync.tick();
    expect(b.sync.synchronizing).toBe(true);
    await b.sync.handle(b.network.links()[0]!, { code: 110, from: 1n, count: 5, txMode: 2 });
    expect(b.network.links()[0]!.stats.framesOut.get(111)).toBeUndefined();
  });
});
