/**
 * Block production on the embedded network (DESIGN.md decision 3; reshape-for-peers §4.3): the
 * genesis block crediting the node's wallet, then one block every interval with the pool's
 * candidates. Each block is produced by the chain (`produceBlock`, no writes), signed here with
 * the node's key, and imported through `importBlock`, the path a peer's block takes. One block at a
 * time; a slow import delays the next tick instead of overlapping it.
 */
import type { Network } from '../codec/types.js';
import { genesisTransaction, type GenesisSpec } from '../chain/genesis.js';
import type { Chain, ProducedBlock } from '../chain/chain.js';
import { REG_SIGNER_BITS } from '../chain/constants.js';
import { BlockError, ChainIdentityError, TxErrorCode } from '../chain/errors.js';
import { knownTx } from '../chain/tx-codec.js';
import type { Clock } from '../clock.js';
import { unixSeconds } from '../clock.js';
import { sha3_512sq } from '../core/hash.js';
import { equalBytes } from '../formats/bytes.js';
import { addressToText } from '../formats/address.js';
import { MAX_TRANSACTIONS_PER_BLOCK, TransactionType } from '../formats/constants.js';
import type { Logger } from '../log/logger.js';
import type { Mempool } from '../mempool/mempool.js';

/** The key that signs this node's blocks. */
export interface BlockSigner {
  /** Signer `addressNoChecksum`. */
  address: Uint8Array;
  publicKey: Uint8Array;
  /** RSA PKCS#1 v1.5 SHA-512 signature with the node's key. */
  sign(data: Uint8Array): Uint8Array | Promise<Uint8Array>;
}

/** When this node may propose the next block (a network's master rotation; absent: every interval). */
export interface ProposerSchedule {
  mayPropose(nextHeight: bigint, msSinceTip: number): boolean;
}

export interface ProducerDeps {
  chain: Chain;
  mempool: Mempool;
  signer: BlockSigner;
  network: Network;
  clock: Clock;
  intervalMs: number;
  log: Logger;
  /** A network's schedule: the producer then looks four times per interval whether it is its turn. */
  schedule?: ProposerSchedule;
}

/**
 * A data directory that already holds a chain must hold this network's: block 1's genesis
 * transaction is the one the genesis file defines, or, without a file, the embedded network's,
 * which pays this node's wallet (`signer`) alone. Otherwise the node would extend another network's
 * chain. The node checks it before it writes anything (src/node/node.ts); `genesis` again.
 * @throws ChainIdentityError (CHAIN_OTHER_GENESIS) naming what differs.
 */
export function checkGenesisIdentity(chain: Chain, signer: Uint8Array, spec: GenesisSpec | undefined): void {
  const network = chain.network;
  const first = chain.getBlock(1n);
  const stored = first?.block.txIds[0] ? chain.getTransaction(first.block.txIds[0]) : null;
  const where = `the chain in ${chain.store.path}`;
  if (spec) {
    const expected = knownTx(genesisTransaction(spec.allocations, spec.timestamp, spec.signature ?? null), network);
    if (!stored || !equalBytes(stored.id, expected.id)) {
      throw new ChainIdentityError(`${where} is one of another genesis than ${spec.name}'s (its block 1 differs): give another --data-dir for this network`, 'CHAIN_OTHER_GENESIS');
    }
    return;
  }
  // The embedded network's block 1 is signed by this node; a genesis file's block 1 by no one.
  const outputs = stored?.tx.outputs ?? [];
  const signedByUs = first?.block.signatures.some((s) => equalBytes(s.signer, signer)) === true;
  const embeddedShape = (first?.block.signatures.length ?? 0) > 0 && stored?.tx.type === TransactionType.Genesis && outputs.length === 1;
  if (embeddedShape && !signedByUs) {
    throw new ChainIdentityError(
      `${where} was made by another wallet (its block 1 pays ${addressToText(outputs[0]!.address)}; the wallet.json of this data directory holds ${addressToText(signer)}): restore that wallet's wallet.json, or give another --data-dir`,
      'CHAIN_OTHER_GENESIS',
    );
  }
  if (!signedByUs || stored?.tx.type !== TransactionType.Genesis || outputs.length !== 1 || !equalBytes(outputs[0]!.address, signer)) {
    throw new ChainIdentityError(`${where} is one of a genesis file's network: start it with --genesis FILE, or give another --data-dir`, 'CHAIN_OTHER_GENESIS');
  }
}

export class BlockProducer {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = false;

  constructor(private readonly deps: ProducerDeps) {}

  /**
   * Creates block 1 when the chain is empty: from the network's genesis (no block signature, the
   * same bytes on every node), or on the embedded network one output of `amount` to this node, the
   * block and its genesis transaction signed by this node (src/chain/genesis.ts).
   */
  async genesis(amount: bigint, spec?: GenesisSpec): Promise<void> {
    const { chain, signer, network, clock } = this.deps;
    if (chain.tip) return checkGenesisIdentity(chain, signer.address, spec);
    if (spec) {
      const tx = knownTx(genesisTransaction(spec.allocations, spec.timestamp, spec.signature ?? null), network);
      const produced = await chain.produceBlock({
        candidates: [tx],
        timestamp: spec.timestamp,
        proposer: new Uint8Array(0), // no fees in block 1
        signerBits: REG_SIGNER_BITS,
      });
      await chain.importBlock(produced.block, produced.txs, { source: 'genesis' });
      this.deps.log.info({ network: spec.name, checksum: Buffer.from(produced.checksum).toString('hex').slice(0, 16) }, 'genesis block built from the genesis file');
      return;
    }
    const unsigned = genesisTransaction([{ address: signer.address, amount }], unixSeconds(clock));
    unsigned.signature = await signer.sign(knownTx(unsigned, network).checksum);
    await this.produceAndImport([knownTx(unsigned, network)]);
    this.deps.log.info({ height: 1, amount: amount.toString() }, 'genesis block created');
  }

  get isRunning(): boolean {
    return this.timer !== null;
  }

  start(): void {
    if (this.timer || this.stopped) return;
    const { schedule, intervalMs, chain, clock } = this.deps;
    const tickMs = schedule ? Math.max(25, Math.floor(intervalMs / 4)) : intervalMs;
    this.timer = setInterval(() => {
      if (this.running) return;
      if (schedule) {
        const sinceTip = clock.now() - (chain.tip?.receivedAtMs ?? 0);
        if (sinceTip < intervalMs || !schedule.mayPropose(chain.height + 1n, sinceTip)) return;
      }
      this.running = this.produce().finally(() => (this.running = null));
    }, tickMs);
  }

  /** Produces one block now from the pool's candidates. */
  async produce(): Promise<void> {
    try {
      const startedAt = this.deps.clock.now();
      await this.produceAndImport(this.deps.mempool.candidates(MAX_TRANSACTIONS_PER_BLOCK), startedAt);
    } catch (err) {
      // A peer's block for the same height won the race: nothing to do until the next tick.
      if (err instanceof BlockError && err.action === 'IGNORE') this.deps.log.debug({ code: err.code }, err.message);
      else this.deps.log.error({ err }, 'block production failed');
    }
  }

  /**
   * The next block from the pool's candidates, unsigned, dated `timestamp` (never before its
   * parent); candidates the block refuses leave the pool. On a genesis network the chain's body
   * rule (consensus/body-rule.ts) puts the staking reward first, leaves a superblock's candidates
   * in the pool and sets its signer bits.
   */
  async produceUnsigned(timestamp: bigint, candidates: Parameters<Chain['produceBlock']>[0]['candidates'] = this.deps.mempool.candidates(MAX_TRANSACTIONS_PER_BLOCK)): Promise<ProducedBlock> {
    const { chain, mempool, signer, log } = this.deps;
    const parentTime = chain.tip?.block.timestamp ?? 0n;
    const produced = await chain.produceBlock({
      candidates,
      timestamp: timestamp > parentTime ? timestamp : parentTime,
      proposer: signer.address, // the mining difficulty is the chain's computation (src/mining/difficulty.ts)
      signerBits: REG_SIGNER_BITS,
    });
    // A multisig transaction still collecting co-signatures (TX_NOT_READY) stays pending.
    const refused = produced.rejected.filter((r) => r.error.code !== TxErrorCode.NotReady);
    if (refused.length > 0) {
      for (const { tx, error } of refused) log.warn({ id: tx.textId, code: error.code, reason: error.message }, 'pending transaction dropped');
      await mempool.drop(refused.map((r) => r.tx), 'refused by the block producer');
    }
    return produced;
  }

  /** @param startedAt when production began: the next block's interval counts from there (`TipInfo.receivedAtMs`). */
  private async produceAndImport(candidates: Parameters<Chain['produceBlock']>[0]['candidates'], startedAt?: number): Promise<void> {
    const { chain, mempool, signer, clock, log } = this.deps;
    const produced = await this.produceUnsigned(unixSeconds(clock), candidates);
    const signature = await signer.sign(sha3_512sq(produced.checksum));
    produced.block.signatures = [{ signer: signer.address, powSolution: null, signature }];
    await chain.importBlock(produced.block, produced.txs, { source: 'local', ...(startedAt !== undefined ? { producedAtMs: startedAt } : {}) });
    // The next block starts once the pool has forgotten this one's transactions on disk too.
    await mempool.pruned();
    log.debug({ height: Number(produced.block.num), txs: produced.txs.length }, 'block produced');
  }

  /** Stops the interval and waits for a block being imported. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
