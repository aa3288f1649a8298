/**
 * The state transition of one block body (reference-formats.md §8.8, §8.11, §10.3 rows 10–11):
 * the coins of each transaction, its type hook, the extensions' per-block work, the fee shares,
 * and the wallet-state checksum. It runs inside the block's LMDB write transaction and writes the
 * wallets it changed; it reads no clock, signs nothing and touches no other module's records.
 *
 * Fees: on the embedded network the proposer receives them (the foundation's share apart); on a
 * genesis network they leave the circulating coins and come back with the block's staking reward
 * rewardMaturity blocks later (DLT v10+ `applyAcceptedBlock`: no fee payout but
 * `distributeStakingRewards`). The supply is the sum of the balances, as the reference's
 * `calculateTotalSupply`: fees held back leave it, a staking reward brings them back with the
 * newly created signing reward.
 *
 * Two modes (reshape-for-peers §3 P1):
 * - `produce`: a candidate that breaks a rule is skipped (rolled back, reported in `rejected`);
 * - `import`: the block is exactly its transactions; the first one that fails fails the block.
 */
import type { Network } from '../codec/types.js';
import { sha3_512sq } from '../core/hash.js';
import { addressFromText } from '../formats/address.js';
import { concatBytes, equalBytes } from '../formats/bytes.js';
import { FOUNDATION_ADDRESS, FOUNDATION_FEE_PERCENT, TransactionType } from '../formats/constants.js';
import { bytesKey, latin1Key } from '../state/keys.js';
import type { Store } from '../state/store.js';
import { balanceTooLow, BlockError, BlockErrorCode, invalidTx, TxError, TxErrorCode } from './errors.js';
import type { BlockWriter, ChainExtensions } from './extensions.js';
import type { KnownTx } from './tx-codec.js';
import { checkSourceWallets, inputSources, resolveTxSigner, sumInputs, sumOutputs } from './validate.js';
import { decodeWalletState, emptyWallet, encodeWalletState, type WalletState } from './wallet-state.js';

export type TransitionMode = 'produce' | 'import';

/** The committed state the block starts from, and where it goes. */
export interface TransitionInput {
  store: Store;
  network: Network;
  extensions: ChainExtensions;
  mode: TransitionMode;
  height: bigint;
  timestamp: bigint;
  /** `addressNoChecksum` of the proposer: receives the fees (foundation share apart). */
  proposer: Uint8Array;
  /** In block order. Type-3 (Genesis) transactions are accepted in block 1 only. */
  txs: readonly KnownTx[];
  /** Is the transaction already in an earlier block? */
  hasTransaction(id: Uint8Array): boolean;
  /** The staking reward the block owes (its first transaction), checked by the chain; any other type-2 transaction fails. */
  stakingReward?: KnownTx | null;
  /** Pay the fees to the proposer (embedded network, default) or hold them for the staking reward (genesis network). */
  feesToProposer?: boolean;
  /** The network's superblock period (extensions read it through the block writer). */
  superBlockPeriod: bigint;
  /** Running totals of the parent block. */
  walletStateChecksum: Uint8Array;
  walletCount: number;
  supply: bigint;
}

export interface TransitionResult {
  applied: KnownTx[];
  /** Produce mode only: candidates left out, with the error that refused each. */
  rejected: { tx: KnownTx; error: TxError }[];
  totalFee: bigint;
  walletStateChecksum: Uint8Array;
  /** Header row 11 (regNameStateChecksum): empty when no extension keeps name state. */
  nameStateChecksum: Uint8Array;
  walletCount: number;
  supply: bigint;
}

const WS_HASH_BYTES = 64;

export function xorInto(acc: Uint8Array, h: Uint8Array): void {
  for (let i = 0; i < WS_HASH_BYTES; i++) acc[i]! ^= h[i]!;
}

/** Hash of one wallet entry; the wallet-state checksum is the XOR of these over all wallets. */
export const walletEntryHash = (address: Uint8Array, encoded: Uint8Array): Uint8Array => sha3_512sq(concatBytes(address, encoded));

/**
 * A wallet the block being applied read or changed. The reference stores a wallet only when
 * something is set on it and removes it when its balance is set to 0, whatever key or signers it
 * held (DLT `WalletState.setWalletBalanceInternal`, block v8+; Core `Wallet.isEmptyWallet`);
 * reading one stores nothing (`getWallet` returns a fresh empty wallet).
 */
interface WalletEntry {
  address: Uint8Array;
  state: WalletState;
  /** Is it in the wallet state now (false: read only, never stored, or removed at balance 0)? */
  exists: boolean;
  /** Stored bytes before this block; null for a wallet the block creates. */
  before: Uint8Array | null;
  /** Number of the last transaction of the block that touched it (undo journal). */
  stamp: number;
}

const FOUNDATION = addressFromText(FOUNDATION_ADDRESS);

/** The error a transaction's failure is reported with (anything unexpected is a rule break). */
const asTxError = (err: unknown): TxError => (err instanceof TxError ? err : invalidTx((err as Error).message));

/**
 * Applies `input.txs` as the body of block `input.height`. Must run inside the block's write
 * transaction (reads see the writes of earlier transactions of the same block).
 * @throws BlockError BLOCK_INVALID_TRANSACTION in import mode.
 */
export function applyBlockBody(input: TransitionInput): TransitionResult {
  const { store, extensions, mode } = input;
  const wallets = store.db('wallets');
  const changed = new Map<string, WalletEntry>();
  // Undo journal of the transaction being applied: the first prior value of each entry it
  // touches (stamp = that transaction's number), and the entries it created. The multisig
  // members are kept by reference: `setMultisig` replaces the signer array, never edits it.
  let stamp = 0;
  const journal: { e: WalletEntry; prior: WalletState; existed: boolean }[] = [];
  const created: string[] = [];
  const entry = (address: Uint8Array): WalletEntry => {
    const key = latin1Key(address);
    let e = changed.get(key);
    if (!e) {
      const before = wallets.getBinary(bytesKey(address)) ?? null;
      e = { address, state: before ? decodeWalletState(before) : emptyWallet(), exists: !!before, before: before ? Uint8Array.from(before) : null, stamp: -1 };
      changed.set(key, e);
      created.push(key);
    }
    return e;
  };
  const touch = (address: Uint8Array): WalletEntry => {
    const e = entry(address);
    if (e.stamp !== stamp) {
      e.stamp = stamp;
      journal.push({ e, prior: { ...e.state }, existed: e.exists });
    }
    return e;
  };
  /** Sets a balance as the reference does: the wallet is stored, or removed when the balance is 0. */
  const setBalance = (e: WalletEntry, balance: bigint): void => {
    if (balance === 0n) {
      e.state = emptyWallet();
      e.exists = false;
    } else {
      e.state.balance = balance;
      e.exists = true;
    }
  };
  let supply = input.supply;
  let totalFee = 0n;
  const locals = new Map<string, unknown>();
  const writer: BlockWriter = {
    network: input.network,
    height: input.height,
    timestamp: input.timestamp,
    store,
    superBlockPeriod: input.superBlockPeriod,
    signer: input.proposer,
    local: <T>(key: string, init: () => T): T => {
      if (!locals.has(key)) locals.set(key, init());
      return locals.get(key) as T;
    },
    addFee: (amount) => {
      if (amount < 0n) throw new RangeError(`a block fee addition must not be negative, got ${amount}`);
      totalFee += amount;
      supply += amount;
    },
    balanceOf: (a) => entry(a).state.balance,
    wallet: (a) => entry(a).state,
    credit: (a, amount) => {
      const e = touch(a);
      setBalance(e, e.state.balance + amount);
    },
    mint: (a, amount) => {
      const e = touch(a);
      setBalance(e, e.state.balance + amount);
      supply += amount;
    },
    debit: (a, amount) => {
      const e = touch(a);
      if (e.state.balance < amount) throw balanceTooLow({ address: a, needed: amount, balance: e.state.balance });
      setBalance(e, e.state.balance - amount);
    },
    setMultisig: (a, m) => {
      const e = touch(a);
      // The reference changes the members before it takes the fee from the wallet; a fee that
      // empties it removes the wallet with its members (here the fee was taken first).
      if (e.state.balance === 0n) return setBalance(e, 0n);
      e.state.type = m.type;
      e.state.requiredSigs = m.requiredSigs;
      e.state.allowedSigners = [...m.allowedSigners];
      e.exists = true;
    },
    position: () => ({ txs: input.txs, index: current }),
  };

  const applyOne = (k: KnownTx): bigint => {
    const { tx } = k;
    if (tx.type === TransactionType.Genesis) {
      // Block 1 only: the network's initial funds, credited (its InfiniMine input holds no coins; no fee).
      if (input.height !== 1n) throw invalidTx(`a genesis transaction is only valid in block 1, not in block ${input.height}`);
      for (const o of tx.outputs) writer.credit(o.address, o.amount);
      supply += sumOutputs(tx);
      return 0n;
    }
    if (tx.type === TransactionType.StakingReward) {
      // Made by consensus, not signed (§8.1): only the block's own, first; coins come into being.
      const own = input.stakingReward;
      if (!own || k !== own || applied.length > 0) throw invalidTx('a staking reward (type 2) is only valid as the block\'s own, first transaction');
      for (const o of tx.outputs) writer.credit(o.address, o.amount);
      supply += sumOutputs(tx);
      return 0n;
    }
    const hook = extensions.txType(tx.type);
    if (tx.type === TransactionType.PoWSolution && hook) {
      // A mining claim (v10+) changes no wallet where it applies: it moves no coins (its hook
      // checks every amount is 0) and stores no public key (DLT `applyTransactionsFromBlock` skips
      // the key for PoW claims from v10); its reward comes rewardMaturity blocks later.
      hook.validate(tx, writer);
      hook.apply(tx, writer);
      return 0n;
    }
    const walletOf = (a: Uint8Array): WalletState => touch(a).state;
    const signer = resolveTxSigner(tx, walletOf, extensions);
    hook?.validate(tx, writer);
    const sources = inputSources(tx, signer.primary);
    checkSourceWallets(tx, sources, walletOf, extensions);
    // The key first, then the coins (DLT `applyTransactionsFromBlock`): a sender spending all it
    // holds is removed with the key just stored.
    const primary = touch(signer.primary);
    if (!primary.state.publicKey) {
      primary.state.publicKey = signer.primaryKey;
      primary.exists = true;
    }
    for (const s of sources) writer.debit(s.address, s.amount);
    for (let i = 0; i < tx.outputs.length; i++) {
      const o = tx.outputs[i]!;
      if (hook?.credits && !hook.credits(tx, i)) uncredited += o.amount;
      else writer.credit(o.address, o.amount);
    }
    hook?.apply(tx, writer);
    return sumInputs(tx) - sumOutputs(tx);
  };

  const applied: KnownTx[] = [];
  const rejected: { tx: KnownTx; error: TxError }[] = [];
  // Ids of this block's transactions (stored after the loop, so `hasTransaction` cannot see them).
  const inBlock = new Set<string>();
  let current = -1;
  // Coins of the transaction being applied that went to no wallet (TxTypeHook.credits): they leave the supply once it applies.
  let uncredited = 0n;
  for (const k of input.txs) {
    current++;
    stamp++;
    journal.length = 0;
    created.length = 0;
    uncredited = 0n;
    try {
      const id = latin1Key(k.id);
      if (inBlock.has(id) || input.hasTransaction(k.id)) throw new TxError(TxErrorCode.AlreadyApplied, 'transaction is already applied');
      totalFee += applyOne(k);
      supply -= uncredited;
      inBlock.add(id);
      applied.push(k);
    } catch (err) {
      const error = asTxError(err);
      if (mode === 'import') {
        throw new BlockError(BlockErrorCode.InvalidTransaction, `transaction ${k.textId} fails: ${error.message}`, { txid: k.textId, code: error.code });
      }
      // A rejected transaction leaves no trace: restore what it touched, forget what it created.
      for (let j = journal.length - 1; j >= 0; j--) {
        const { e, prior, existed } = journal[j]!;
        e.state = prior;
        e.exists = existed;
      }
      for (const key of created) changed.delete(key);
      rejected.push({ tx: k, error });
    }
  }
  // Extensions first: what they add to the fees (name rewards, §5.5) is shared out with them.
  extensions.onBlock(writer);
  if (totalFee > 0n && input.feesToProposer === false) {
    // Held for the signers (the staking reward of block height + rewardMaturity pays totalFee).
    supply -= totalFee;
  } else if (totalFee > 0n) {
    const foundationShare = (totalFee * BigInt(FOUNDATION_FEE_PERCENT)) / 100n;
    writer.credit(FOUNDATION, foundationShare);
    writer.credit(input.proposer, totalFee - foundationShare);
  }
  extensions.onApplied(applied, totalFee, writer);

  // Wallet state: write the wallets the block set, remove the ones it emptied, keep the XOR
  // checksum and the wallet count current. A wallet only read is left as it was.
  const ws = Uint8Array.from(input.walletStateChecksum);
  let walletCount = input.walletCount;
  for (const e of changed.values()) {
    if (!e.exists) {
      if (!e.before) continue;
      xorInto(ws, walletEntryHash(e.address, e.before));
      walletCount--;
      wallets.remove(bytesKey(e.address));
      continue;
    }
    const encoded = encodeWalletState(e.state);
    if (e.before && equalBytes(e.before, encoded)) continue;
    if (e.before) xorInto(ws, walletEntryHash(e.address, e.before));
    else walletCount++;
    xorInto(ws, walletEntryHash(e.address, encoded));
    wallets.put(bytesKey(e.address), bytesKey(encoded));
  }
  return {
    applied,
    rejected,
    totalFee,
    walletStateChecksum: ws,
    nameStateChecksum: extensions.stateChecksum(writer),
    walletCount,
    supply,
  };
}
