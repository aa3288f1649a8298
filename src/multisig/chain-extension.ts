/**
 * Multisig wallets as a chain extension (src/chain/extensions.ts; reference-formats.md §8.1,
 * §8.10): the hooks of types 997 (spend), 998 (wallet change) and 999 (co-signature).
 *
 * - `signer`: the key and wallet of a multisig transaction come from its payload and `pubKey`;
 * - `leader`: a 999 follows the transaction it co-signs, so the mempool keeps it only while that
 *   one is pending and hands both to the producer together;
 * - `validate` on admission: the payload, the shape and the wallet rules (src/multisig/rules.ts)
 *   against the committed state; a 999 also needs its transaction pending here, for the same
 *   wallet, and a signer that has not signed it yet; a 998 also the wallet changes already pending
 *   for its wallet (TX_PENDING_CONFLICT when one of them would make it fail);
 * - `validate` in a block: a 997/998 counts the co-signatures right behind it (TX_NOT_READY while
 *   they are too few: it stays pending) and checks that the wallet pays for all of them; a 999
 *   applies only as one of the co-signatures its transaction counted;
 * - `apply`: a 998 changes the wallet's type, signers or required signatures.
 */
import type { BlockWriter, ChainExtension, TxTypeHook, TxView } from '../chain/extensions.js';
import type { KnownTx } from '../chain/tx-codec.js';
import { balanceTooLow, TxError, TxErrorCode } from '../chain/errors.js';
import type { Transaction } from '../codec/types.js';
import { addressToText } from '../formats/address.js';
import { equalBytes } from '../formats/bytes.js';
import { REDACTED_WINDOW, TransactionType } from '../formats/constants.js';
import { latin1Key } from '../state/keys.js';
import { checkAgainstWallet, conflictWithPending, countCoSignatures, MultisigRuleError, readMultisigTx, txIdText, type MultisigTx } from './rules.js';

const typeRule = (message: string): never => {
  throw new TxError(TxErrorCode.TypeRule, message);
};
const notReady = (message: string): never => {
  throw new TxError(TxErrorCode.NotReady, message);
};

const isBlock = (view: TxView): view is BlockWriter => 'credit' in view;

/** Transactions are read again and again (signer, leader, validate, apply): once per object. */
const readCache = new WeakMap<Transaction, MultisigTx>();

/** The multisig reading of `tx`; a broken rule becomes the chain's TX_TYPE_RULE error. */
function read(tx: Transaction): MultisigTx {
  let m = readCache.get(tx);
  if (m) return m;
  try {
    m = readMultisigTx(tx);
  } catch (err) {
    if (err instanceof MultisigRuleError) return typeRule(err.message);
    throw err;
  }
  readCache.set(tx, m);
  return m;
}

function againstWallet(m: MultisigTx, view: TxView) {
  try {
    return checkAgainstWallet(m, view.wallet(m.wallet));
  } catch (err) {
    if (err instanceof MultisigRuleError) return typeRule(err.message);
    throw err;
  }
}

/** A 997/998 of this block whose co-signatures were counted: the ids (latin1Key) of those that count. */
interface Group {
  counted: Set<string>;
  /** Co-signatures right behind it that do not count, with the reason. */
  refused: Map<string, string>;
}

/** Per-block state (`BlockWriter.local`): groups planned by `validate`, and those applied. */
interface BlockGroups {
  planned: Map<string, Group>;
  applied: Map<string, Group>;
}

const groupsOf = (block: BlockWriter): BlockGroups => block.local('multisig', () => ({ planned: new Map(), applied: new Map() }));

/** The origTxId a 999 names (null when unreadable: the 999 then fails its own checks). */
function origOf(tx: Transaction): Uint8Array | null {
  try {
    return read(tx).data?.origTxId ?? null;
  } catch {
    return null;
  }
}

/** On admission: the 997/998 a 999 co-signs is pending here, for the same wallet, and not yet signed by this signer. */
function checkPendingOrig(tx: Transaction, m: MultisigTx, view: TxView): void {
  const pending = view.pending!;
  const origId = m.data!.origTxId!;
  const orig = pending.get(origId);
  if (!orig) typeRule(`it co-signs transaction ${txIdText(origId)}, which is not pending on this node`);
  if (orig!.tx.type !== TransactionType.MultisigTx && orig!.tx.type !== TransactionType.ChangeMultisigWallet) {
    typeRule(`transaction ${txIdText(origId)} is not a multisig transaction (type 997 or 998)`);
  }
  const o = read(orig!.tx);
  const verdicts = countCoSignatures(o, view.wallet(o.wallet), [...pending.followers(origId).map((k) => k.tx), tx], read);
  const mine = verdicts[verdicts.length - 1]!;
  if (!mine.counted) typeRule(`it cannot co-sign transaction ${txIdText(origId)}: ${mine.reason}`);
}

/**
 * On admission: a wallet change (998) that the pool's pending changes of the same wallet would make
 * fail (the same signer added twice, one removed twice, the same required signatures set twice…)
 * is refused rather than admitted to be dropped by the producer (rules.ts `conflictWithPending`).
 */
function checkPendingChanges(m: MultisigTx, view: TxView): void {
  const pending: { k: KnownTx; m: MultisigTx }[] = [];
  for (const k of view.pending!.ofType(TransactionType.ChangeMultisigWallet)) {
    try {
      const p = read(k.tx);
      if (equalBytes(p.wallet, m.wallet)) pending.push({ k, m: p });
    } catch (err) {
      if (!(err instanceof TxError)) throw err; // unreadable: admission refused it already
    }
  }
  if (pending.length === 0) return;
  const conflict = conflictWithPending(m, view.wallet(m.wallet), pending.map((p) => p.m));
  if (!conflict) return;
  const id = pending[conflict.index]!.k.textId;
  throw new TxError(
    TxErrorCode.PendingConflict,
    `it conflicts with the pending change ${id} of wallet ${addressToText(m.wallet)}: once that applies, ${conflict.reason}. Co-sign ${id} (addMultiSigTxSignature) if it awaits signatures, or wait until it applies`,
  );
}

/** In a block: a 997/998 and the co-signatures right behind it. */
function planGroup(tx: Transaction, m: MultisigTx, block: BlockWriter): void {
  // One that waited for co-signatures longer than the redacted window expires (reference
  // `applyMultisigTransaction`: blockHeight below block − window fails): the producer drops it.
  if (tx.blockHeight + BigInt(REDACTED_WINDOW) < block.height) {
    typeRule(`it was made at block ${tx.blockHeight}, more than ${REDACTED_WINDOW} blocks before block ${block.height}: it expired waiting for co-signatures`);
  }
  const { txs, index } = block.position();
  const self = txs[index]!;
  const id = latin1Key(self.id);
  const followers: KnownTx[] = [];
  for (let i = index + 1; i < txs.length; i++) {
    const k = txs[i]!;
    if (k.tx.type !== TransactionType.MultisigAddTxSignature) break;
    const orig = origOf(k.tx);
    if (!orig || latin1Key(orig) !== id) break;
    followers.push(k);
  }
  const w = block.wallet(m.wallet);
  const verdicts = countCoSignatures(m, w, followers.map((k) => k.tx), read);
  const group: Group = { counted: new Set(), refused: new Map() };
  let fees = 0n;
  verdicts.forEach((v, i) => {
    const k = followers[i]!;
    if (v.counted) {
      group.counted.add(latin1Key(k.id));
      fees += k.tx.inputs.reduce((s, x) => s + x.amount, 0n);
    } else {
      group.refused.set(latin1Key(k.id), v.reason);
    }
  });
  const signatures = 1 + group.counted.size;
  if (signatures < w.requiredSigs) {
    notReady(`wallet ${addressToText(m.wallet)} requires ${w.requiredSigs} signatures and this transaction has ${signatures}; it waits for co-signatures (addMultiSigTxSignature)`);
  }
  // The wallet pays this transaction and the fee of every co-signature that counts.
  const needed = tx.inputs.reduce((s, x) => s + x.amount, 0n) + fees;
  if (w.balance < needed) throw balanceTooLow({ address: m.wallet, needed, balance: w.balance });
  groupsOf(block).planned.set(id, group);
}

/** In a block: a 999 applies only as a co-signature its 997/998 counted. */
function checkCounted(m: MultisigTx, block: BlockWriter): void {
  const { txs, index } = block.position();
  const id = latin1Key(txs[index]!.id);
  const origId = m.data!.origTxId!;
  const group = groupsOf(block).applied.get(latin1Key(origId));
  if (!group) notReady(`transaction ${txIdText(origId)}, which it co-signs, is not applied in this block`);
  if (!group!.counted.has(id)) {
    typeRule(`this co-signature of transaction ${txIdText(origId)} does not count: ${group!.refused.get(id) ?? 'it is not right behind that transaction in the block'}`);
  }
}

function hook(type: number): TxTypeHook {
  return {
    signer(tx) {
      const m = read(tx);
      return { primary: m.primary, publicKey: m.signerPubKey };
    },
    leader: type === TransactionType.MultisigAddTxSignature ? origOf : undefined,
    validate(tx, view) {
      const m = read(tx);
      if (type === TransactionType.MultisigAddTxSignature && isBlock(view)) {
        // Judged with its transaction, against the wallet as it was before that one (a signer
        // being removed still co-signs its removal): what remains for it to do in the block, pay
        // its fee from the wallet, its transaction checked the wallet can afford.
        checkCounted(m, view);
        return;
      }
      againstWallet(m, view);
      if (type === TransactionType.MultisigAddTxSignature) {
        if (view.pending) checkPendingOrig(tx, m, view);
      } else if (type === TransactionType.ChangeMultisigWallet && view.pending) {
        checkPendingChanges(m, view);
      } else if (isBlock(view)) {
        planGroup(tx, m, view);
      }
    },
    apply(tx, block) {
      const m = read(tx);
      if (type === TransactionType.MultisigAddTxSignature) return;
      const groups = groupsOf(block);
      const id = latin1Key(block.position().txs[block.position().index]!.id);
      groups.applied.set(id, groups.planned.get(id)!);
      if (m.change) block.setMultisig(m.wallet, againstWallet(m, block));
    },
  };
}

/** The multisig chain extension (types 997–999). Stateless: the wallets hold the multisig members. */
export function createMultisigExtension(): ChainExtension {
  return {
    name: 'multisig',
    txTypes: {
      [TransactionType.MultisigTx]: hook(TransactionType.MultisigTx),
      [TransactionType.ChangeMultisigWallet]: hook(TransactionType.ChangeMultisigWallet),
      [TransactionType.MultisigAddTxSignature]: hook(TransactionType.MultisigAddTxSignature),
    },
  };
}
