/**
 * The multisig rules as pure functions over a transaction and wallet states (Ixian-DLT
 * `TransactionPool.verifyMultisigTransaction`, `applyMultisigTransaction`,
 * `applyMultisigChangeTransaction`, `getRelatedMultisigTransactions`; Ixian-Core `Wallet`):
 *
 * - a multisig transaction names its wallet like any other (`pubKey` = the wallet's address, its
 *   one input key relative to it) and its signer in its payload: signer address = the payload
 *   key's primary address with the payload nonce (§7.3). The signer may sign when it is the
 *   wallet's own address or one of its allowed signers (`Wallet.isValidSigner`);
 * - 997 spends from a multisig wallet; 998 adds a signer (a normal wallet becomes multisig),
 *   removes one (the owner cannot be removed; the last one gone, the wallet is normal again;
 *   required signatures drop to what is still possible) or sets the required signatures
 *   (1 … signers + 1); 999 co-signs a pending 997 or 998 of the same wallet;
 * - a 997 or 998 applies only together with enough co-signatures: itself plus the 999s right
 *   behind it in the block from distinct allowed signers other than its own signer must reach
 *   the wallet's required signatures (state before the change).
 *
 * Decisions where the reference is silent or inconsistent, each marked "Decision" below.
 */
import type { Transaction } from '../codec/types.js';
import { decodeBinaryTransactionId, transactionId } from '../codec/transaction.js';
import {
  ADDRESS_NONCE_LENGTH,
  addressToText,
  deriveAddress,
  isValidAddressBytes,
  parseAddressBytes,
  primaryAddressFromPublicKey,
} from '../formats/address.js';
import { equalBytes, toHex } from '../formats/bytes.js';
import { TransactionType } from '../formats/constants.js';
import { MAX_ALLOWED_SIGNERS, WalletType, type WalletState } from '../chain/wallet-state.js';
import type { WalletMultisig } from '../chain/extensions.js';
import {
  decodeMultisigChange,
  decodeMultisigTxData,
  MultisigChangeType,
  MultisigCodecError,
  type MultisigChange,
  type MultisigSigner,
  type MultisigTxData,
} from './payload.js';

/** A multisig rule is broken; the message names it. */
export class MultisigRuleError extends Error {
  override name = 'MultisigRuleError';
}

const rule = (message: string): never => {
  throw new MultisigRuleError(message);
};

/** Shortest binary txid a 999 may name (reference: 10…100 bytes). */
export const MIN_ORIG_TXID_BYTES = 10;

export const isMultisigType = (type: number): boolean =>
  type === TransactionType.MultisigTx || type === TransactionType.ChangeMultisigWallet || type === TransactionType.MultisigAddTxSignature;

/** A multisig transaction read once: its wallet, payload and signer. */
export interface MultisigTx {
  type: number;
  /** The wallet it spends from or changes (`addressNoChecksum`). */
  wallet: Uint8Array;
  /** The primary address its input key is relative to (`pubKey`'s address). */
  primary: Uint8Array;
  /** 997 / 999 payload, or null for a 998. */
  data: MultisigTxData | null;
  /** 998 payload, or null. */
  change: MultisigChange | null;
  signerPubKey: Uint8Array;
  /** The signer address (key's primary address with the payload nonce). */
  signer: Uint8Array;
}

/** The text id of a binary txid (for messages). */
export function txIdText(binary: Uint8Array): string {
  try {
    const p = decodeBinaryTransactionId(binary);
    return transactionId({ type: p.prefix === 0 ? TransactionType.StakingReward : TransactionType.Normal, blockHeight: p.blockHeight }, p.checksum);
  } catch {
    return toHex(binary);
  }
}

/**
 * The signer address of a payload: the key's primary address with the nonce (§7.3).
 * Decision: the nonce must be `[0x00]` (the primary address, what the reference wallet writes for
 * it) or 16 bytes (a derived address); the reference would also hash an empty or odd-length nonce
 * into some address no wallet holds.
 */
export function signerAddressOf(s: MultisigSigner): Uint8Array {
  const n = s.signerNonce;
  if (!((n.length === 1 && n[0] === 0) || n.length === ADDRESS_NONCE_LENGTH)) {
    rule(`the signer nonce must be [0x00] or ${ADDRESS_NONCE_LENGTH} bytes, got ${n.length} bytes`);
  }
  let primary: Uint8Array;
  try {
    primary = primaryAddressFromPublicKey(s.signerPubKey);
  } catch (err) {
    return rule(`the signer public key is not a public key: ${(err as Error).message}`);
  }
  return deriveAddress(primary, n);
}

/** The primary address `pubKey` names: an address (33/45 bytes) or a full key's primary address. */
function primaryOfPubKey(pubKey: Uint8Array | null): Uint8Array {
  if (!pubKey) return rule('a multisig transaction names its wallet in pubKey, and this one has none');
  if (isValidAddressBytes(pubKey) && (pubKey.length === 33 || pubKey.length === 45)) return pubKey;
  try {
    return primaryAddressFromPublicKey(pubKey);
  } catch (err) {
    return rule(`pubKey is neither an address nor a public key: ${(err as Error).message}`);
  }
}

/**
 * Reads a multisig transaction (types 997–999): its wallet, payload and signer, and the shape
 * rules that need no state: exactly one input (reference: "multiple 'from' addresses are not
 * supported"); 997 without origTxId, 999 with one; 998 and 999 with exactly one output, to the
 * wallet itself, of amount 0 (Decision: the reference builds them so and burns any amount in them
 * without crediting it; here any other shape is refused).
 * @throws MultisigRuleError naming the rule
 */
export function readMultisigTx(tx: Transaction): MultisigTx {
  if (!isMultisigType(tx.type)) rule(`type ${tx.type} is not a multisig type (997, 998, 999)`);
  if (tx.inputs.length !== 1) rule(`a multisig transaction has exactly one input (its wallet), got ${tx.inputs.length}`);
  const primary = primaryOfPubKey(tx.pubKey);
  let wallet: Uint8Array;
  try {
    wallet = deriveAddress(primary, tx.inputs[0]!.key);
  } catch (err) {
    return rule(`the input key does not name an address: ${(err as Error).message}`);
  }
  const first = tx.outputs[0];
  if (!first) return rule('a multisig transaction has at least one output, carrying the multisig payload');
  let data: MultisigTxData | null = null;
  let change: MultisigChange | null = null;
  try {
    if (tx.type === TransactionType.ChangeMultisigWallet) change = decodeMultisigChange(first.data);
    else data = decodeMultisigTxData(first.data);
  } catch (err) {
    if (err instanceof MultisigCodecError) rule(err.message);
    throw err;
  }
  if (tx.type === TransactionType.MultisigTx && data!.origTxId) {
    rule('a type-997 transaction carries no origTxId (a co-signature is type 999)');
  }
  if (tx.type === TransactionType.MultisigAddTxSignature) {
    const orig = data!.origTxId;
    if (!orig || orig.length < MIN_ORIG_TXID_BYTES) rule(`a co-signature (type 999) names the transaction it signs: origTxId of ${MIN_ORIG_TXID_BYTES}…100 bytes, got ${orig?.length ?? 0}`);
    try {
      decodeBinaryTransactionId(orig!);
    } catch (err) {
      rule(`origTxId is not a transaction id: ${(err as Error).message}`);
    }
  }
  if (tx.type !== TransactionType.MultisigTx) {
    if (tx.outputs.length !== 1 || !equalBytes(first.address, wallet) || first.amount !== 0n) {
      rule(`a type-${tx.type} transaction has exactly one output, to its wallet ${addressToText(wallet)}, of amount 0`);
    }
  }
  const signer = (data ?? change)!;
  return { type: tx.type, wallet, primary, data, change, signerPubKey: signer.signerPubKey, signer: signerAddressOf(signer) };
}

/** `Wallet.isValidSigner`: the wallet's own address, or one of its allowed signers. */
export function isValidSigner(wallet: Uint8Array, w: Readonly<WalletState>, signer: Uint8Array): boolean {
  return equalBytes(signer, wallet) || w.allowedSigners.some((s) => equalBytes(s, signer));
}

const multisigOf = (w: Readonly<WalletState>): WalletMultisig => ({ type: w.type, requiredSigs: w.requiredSigs, allowedSigners: w.allowedSigners });

/** A changed signer address: 45 bytes as written, or 48 bytes with a checksum that must match. */
function changedAddress(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 45 && isValidAddressBytes(bytes)) return bytes;
  try {
    return parseAddressBytes(bytes, 'the signer address of the change');
  } catch (err) {
    return rule((err as Error).message);
  }
}

/**
 * The state rules of one multisig transaction against its wallet's state `w` (before it): who may
 * sign, the wallet type, and for a 998 the change itself. Returns the wallet's multisig members
 * after the transaction (unchanged for 997 and 999). The co-signature count is checked apart
 * ({@link countCoSignatures}).
 * @throws MultisigRuleError naming the rule
 */
export function checkAgainstWallet(m: MultisigTx, w: Readonly<WalletState>): WalletMultisig {
  const walletText = addressToText(m.wallet);
  const isMultisig = w.type === WalletType.Multisig;
  const addsSigner = m.change?.kind === MultisigChangeType.AddSigner;
  // Only adding a signer works on a normal wallet: that is how a wallet becomes multisig.
  if (!isMultisig && !addsSigner) {
    rule(`wallet ${walletText} is not a multisig wallet${m.type === TransactionType.MultisigTx ? '; spend from it with an ordinary transaction' : ''}`);
  }
  if (!isValidSigner(m.wallet, w, m.signer)) {
    rule(`${addressToText(m.signer)} may not sign for wallet ${walletText}: it is neither the wallet nor one of its allowed signers`);
  }
  const c = m.change;
  if (!c) return multisigOf(w);
  if (c.kind === MultisigChangeType.ChangeReqSigs) {
    // Decision: 0 is refused (the reference only checks the upper bound), and so is setting the
    // value the wallet already has (the reference applies it without effect, fee and all).
    const signers = w.allowedSigners.length + 1;
    if (c.requiredSigs < 1 || c.requiredSigs > signers) {
      rule(`wallet ${walletText} has ${signers} signers: its required signatures must be 1…${signers}, got ${c.requiredSigs}`);
    }
    if (c.requiredSigs === w.requiredSigs) rule(`wallet ${walletText} already requires ${c.requiredSigs} signatures`);
    return { type: w.type, requiredSigs: c.requiredSigs, allowedSigners: w.allowedSigners };
  }
  const address = changedAddress(c.address);
  if (c.kind === MultisigChangeType.AddSigner) {
    if (isValidSigner(m.wallet, w, address)) rule(`${addressToText(address)} already signs for wallet ${walletText}`);
    if (w.allowedSigners.length >= MAX_ALLOWED_SIGNERS) rule(`wallet ${walletText} already has the most allowed signers, ${MAX_ALLOWED_SIGNERS}`);
    return { type: WalletType.Multisig, requiredSigs: w.requiredSigs, allowedSigners: [...w.allowedSigners, address] };
  }
  // Removing a signer.
  if (equalBytes(address, m.wallet)) rule(`the owner ${walletText} cannot be removed from its own wallet`);
  // Decision: removing an address that is not a signer is refused (the reference applies it, fee and all, without effect).
  const left = w.allowedSigners.filter((s) => !equalBytes(s, address));
  if (left.length === w.allowedSigners.length) rule(`${addressToText(address)} is not an allowed signer of wallet ${walletText}`);
  // Signers after the removal: the owner and those left. A wallet that would need more
  // signatures than it has signers needs one fewer (reference `WSJE_AllowedSigner`).
  const requiredSigs = Math.min(w.requiredSigs, left.length + 1);
  return left.length === 0
    ? { type: WalletType.Normal, requiredSigs: 1, allowedSigners: [] }
    : { type: WalletType.Multisig, requiredSigs, allowedSigners: left };
}

/** A pending wallet change after which another one fails: its index among those given, and the rule broken. */
export interface PendingChangeConflict {
  index: number;
  reason: string;
}

/**
 * Whether the wallet change `m` still holds once `pending` apply: the wallet changes (998) of the
 * same wallet already in the pool, in arrival order, the order the producer takes them in. The
 * reference checks a change against the committed wallet only (Ixian-DLT
 * `TransactionPool.verifyMultisigTransaction`) and refuses the repeat when its block is built
 * (`applyMultisigChangeTransaction`); checked here so that a change certain to fail is refused on
 * submission instead of answered as accepted. A pending change that itself fails against the
 * wallet as the earlier ones leave it is skipped (the producer would drop it); the co-signatures
 * they await are not considered. Returns null, or the pending change after which `m` fails for
 * the rest of the sequence, with the rule it breaks after all of them.
 */
export function conflictWithPending(m: MultisigTx, w: Readonly<WalletState>, pending: readonly MultisigTx[]): PendingChangeConflict | null {
  let state: Readonly<WalletState> = w;
  let since: number | null = null;
  let reason = '';
  for (const [index, p] of pending.entries()) {
    if (!p.change || !equalBytes(p.wallet, m.wallet)) continue;
    let after: WalletMultisig;
    try {
      after = checkAgainstWallet(p, state);
    } catch (err) {
      if (err instanceof MultisigRuleError) continue;
      throw err;
    }
    state = { ...state, ...after };
    const broken = brokenRule(m, state);
    if (broken === null) since = null;
    else [since, reason] = [since ?? index, broken];
  }
  return since === null ? null : { index: since, reason };
}

/** The rule `m` breaks against the wallet state `w` ({@link checkAgainstWallet}), or null. */
function brokenRule(m: MultisigTx, w: Readonly<WalletState>): string | null {
  try {
    checkAgainstWallet(m, w);
    return null;
  } catch (err) {
    if (err instanceof MultisigRuleError) return err.message;
    throw err;
  }
}

/** One co-signature candidate following a 997/998 in a block: counted, or why not. */
export type CoSignatureVerdict = { counted: true } | { counted: false; reason: string };

/**
 * Which of the co-signatures that follow `orig` count (reference `getRelatedMultisigTransactions`):
 * each must be a readable 999 for the same wallet, by an allowed signer of `w` (the state before
 * `orig`), other than `orig`'s signer and than every earlier counted one. Decision: the
 * co-signature must be for the same wallet (the reference checks the co-signer against the
 * co-signature's own wallet, so a signer of another wallet could count).
 */
export function countCoSignatures(
  orig: MultisigTx,
  w: Readonly<WalletState>,
  followers: readonly Transaction[],
  readTx: (tx: Transaction) => MultisigTx = readMultisigTx,
): CoSignatureVerdict[] {
  const seen: Uint8Array[] = [orig.signer];
  return followers.map((tx) => {
    let m: MultisigTx;
    try {
      m = readTx(tx);
    } catch (err) {
      return { counted: false, reason: (err as Error).message };
    }
    if (!equalBytes(m.wallet, orig.wallet)) return { counted: false, reason: `it is for wallet ${addressToText(m.wallet)}, not ${addressToText(orig.wallet)}` };
    if (!isValidSigner(orig.wallet, w, m.signer)) return { counted: false, reason: `${addressToText(m.signer)} may not sign for wallet ${addressToText(orig.wallet)}` };
    if (seen.some((s) => equalBytes(s, m.signer))) return { counted: false, reason: `${addressToText(m.signer)} has signed this transaction already` };
    seen.push(m.signer);
    return { counted: true };
  });
}
