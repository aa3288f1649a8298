/**
 * Transaction validation rules (reference-formats.md §8.3, §8.8–§8.11) that do not need the
 * signature check (done once, in the pool, on admission): shape, amounts, fee, dust, blockHeight
 * window, signer resolution and input addresses.
 */
import type { Transaction } from '../codec/types.js';
import {
  ADDRESS_NONCE_LENGTH,
  addressToText,
  deriveAddress,
  isPrimaryNonce,
  isValidAddressBytes,
  primaryAddressFromPublicKey,
} from '../formats/address.js';
import { equalBytes, latin1Key } from '../formats/bytes.js';
import { MAX_TRANSACTION_SIZE, REDACTED_WINDOW, TransactionType } from '../formats/constants.js';
import { mayPayItself, transactionAmountProblem } from '../formats/fees.js';
import { MAX_BLOCKHEIGHT_AHEAD, TX_VERSION } from './constants.js';
import { invalidTx, TxError, TxErrorCode } from './errors.js';
import type { ChainExtensions } from './extensions.js';
import type { KnownTx } from './tx-codec.js';
import { WalletType, type WalletState } from './wallet-state.js';

const reject = (msg: string): never => {
  throw invalidTx(msg);
};
const unknownSigner = (msg: string): never => {
  throw new TxError(TxErrorCode.UnknownSigner, msg);
};

const REDACTED_WINDOW_BLOCKS = BigInt(REDACTED_WINDOW);

export const sumInputs = (tx: Transaction): bigint => tx.inputs.reduce((s, i) => s + i.amount, 0n);
export const sumOutputs = (tx: Transaction): bigint => tx.outputs.reduce((s, o) => s + o.amount, 0n);

/**
 * Rules that need no chain state beyond the tip height.
 * @throws TxError (TX_INVALID) naming the broken rule; TX_AHEAD_OF_TIP for a blockHeight above the window.
 */
export function checkTransaction(k: KnownTx, tipHeight: bigint, extensions: ChainExtensions): void {
  const { tx } = k;
  if (tx.version !== TX_VERSION) reject(`transaction version ${tx.version} is not accepted; expected ${TX_VERSION}`);
  // Made by the nodes for a block (formats §8.1): never sent, never pending.
  if (tx.type === TransactionType.StakingReward) reject('a staking reward (type 2) is created by the block that pays it; it is never sent or relayed');
  if (tx.type === TransactionType.Genesis) reject('a genesis transaction (type 3) exists in block 1 only; it is never sent or relayed');
  const hook = extensions.txType(tx.type);
  if (tx.type !== TransactionType.Normal && !hook) reject(`transaction type ${tx.type} is not accepted by this node`);
  if (k.bytes.length > MAX_TRANSACTION_SIZE) reject(`transaction of ${k.bytes.length} bytes exceeds ${MAX_TRANSACTION_SIZE} bytes`);
  if (tx.blockHeight > tipHeight + MAX_BLOCKHEIGHT_AHEAD) {
    // State-dependent (our tip may be behind the sender's): IGNORE, not REJECT.
    throw new TxError(TxErrorCode.AheadOfTip, `blockHeight ${tx.blockHeight} is more than ${MAX_BLOCKHEIGHT_AHEAD} blocks above the tip ${tipHeight}`);
  }
  if (tx.blockHeight + REDACTED_WINDOW_BLOCKS < tipHeight) {
    reject(`blockHeight ${tx.blockHeight} is older than the redacted window (${REDACTED_WINDOW} blocks below the tip ${tipHeight})`);
  }
  if (tx.inputs.length === 0) reject('transaction has no inputs');
  if (tx.outputs.length === 0) reject('transaction has no outputs');
  for (const input of tx.inputs) {
    const k1 = input.key.length === 1 && input.key[0] === 0;
    if (!k1 && input.key.length !== ADDRESS_NONCE_LENGTH) {
      reject(`input key must be [0x00] or ${ADDRESS_NONCE_LENGTH} bytes, got ${input.key.length} bytes`);
    }
  }
  for (const output of tx.outputs) {
    if (!isValidAddressBytes(output.address)) reject('an output address is not a valid address');
  }
  // The rule's fields named, not the transaction spread: a copy of every field per admission.
  const problem = transactionAmountProblem({ type: tx.type, version: tx.version, inputs: tx.inputs, outputs: tx.outputs, signedSize: k.bytes.length });
  if (problem) reject(problem);
  if (!tx.signature) reject('transaction is not signed');
  if (!tx.pubKey) reject('transaction carries no public key');
}

/** Primary addresses of recently seen public keys (a sender signs many transactions; two hashes each). */
const PRIMARY_CACHE_SIZE = 4096;
const primaries = new Map<string, Uint8Array>();

/** The same key object is met again when its transaction enters a block: no re-hash of its text. */
const primariesByObject = new WeakMap<Uint8Array, Uint8Array>();

function primaryOfKey(publicKey: Uint8Array): Uint8Array {
  let primary = primariesByObject.get(publicKey);
  if (primary) return primary;
  const id = latin1Key(publicKey);
  primary = primaries.get(id);
  if (!primary) {
    primary = primaryAddressFromPublicKey(publicKey);
    if (primaries.size >= PRIMARY_CACHE_SIZE) primaries.delete(primaries.keys().next().value!);
    primaries.set(id, primary);
  }
  primariesByObject.set(publicKey, primary);
  return primary;
}

export interface Signer {
  /** `pubKey`'s address: the inputs are relative to it. */
  primary: Uint8Array;
  /** The key the signature is checked with. */
  publicKey: Uint8Array;
  /**
   * The key of `primary`'s wallet (stored, or carried in `pubKey`): stored with that wallet when it
   * has none yet. The same as `publicKey`, except for a type that names its signer in its payload
   * (a multisig co-signer's key is not the wallet's).
   */
  primaryKey: Uint8Array;
}

/**
 * The signer of `tx`: the type's own rule when it names its signer in its payload (multisig,
 * §8.8 last sentence), else {@link resolveSigner}. `pubKey`'s wallet needs a key either way: the
 * reference (DLT `applyTransactionsFromBlock`, block v10+) reads it for every transaction but a
 * PoW claim, stores the one `pubKey` carries when the wallet has none, and fails the transaction
 * when `pubKey` is an address whose wallet holds no key — a multisig transaction from such a
 * wallet (one that never sent a transaction, e.g. a derived address) included.
 */
export function resolveTxSigner(tx: Transaction, walletOf: (address: Uint8Array) => WalletState, extensions: ChainExtensions): Signer {
  const own = extensions.txType(tx.type)?.signer;
  if (!own) return resolveSigner(tx, walletOf);
  let owner: Signer;
  try {
    owner = resolveSigner(tx, walletOf);
  } catch (err) {
    if (err instanceof TxError && err.code === TxErrorCode.UnknownSigner) {
      unknownSigner(`the wallet state holds no public key for ${addressToText(tx.pubKey!)}, the address in pubKey: it must have sent a transaction of its own first (a derived address never has one)`);
    }
    throw err;
  }
  return { primary: owner.primary, publicKey: own(tx).publicKey, primaryKey: owner.publicKey };
}

/**
 * The signer's primary address of `tx` without reading the state (§8.8): its type's own rule, the
 * address `pubKey` names, or the one derived from the key it carries. Throws a TxError when it
 * names none. The key itself (for the signature) may still need the state: see {@link resolveTxSigner}.
 */
export function signerPrimaryOf(tx: Transaction, extensions: ChainExtensions): Uint8Array {
  const own = extensions.txType(tx.type)?.signer;
  if (own) return own(tx).primary;
  const pk = tx.pubKey ?? reject('transaction carries no public key');
  if (isValidAddressBytes(pk) && (pk.length === 33 || pk.length === 45)) return pk;
  try {
    return primaryOfKey(pk);
  } catch (err) {
    return reject(`pubKey is neither an address nor a public key: ${(err as Error).message}`);
  }
}

/**
 * The signer of `tx` (§8.8): the wallet-state key of `pubKey`'s address, else the key carried in
 * `pubKey`; the primary address derived from that key must equal `pubKey`'s address.
 */
export function resolveSigner(tx: Transaction, walletOf: (address: Uint8Array) => WalletState): Signer {
  const pk = tx.pubKey ?? reject('transaction carries no public key');
  if (isValidAddressBytes(pk) && (pk.length === 33 || pk.length === 45)) {
    const stored = walletOf(pk).publicKey;
    if (!stored) unknownSigner(`the wallet state holds no public key for ${addressToText(pk)}; send the full public key`);
    return { primary: pk, publicKey: stored!, primaryKey: stored! };
  }
  let primary: Uint8Array;
  try {
    primary = primaryOfKey(pk);
  } catch (err) {
    return reject(`pubKey is neither an address nor a public key: ${(err as Error).message}`);
  }
  const stored = walletOf(primary).publicKey;
  // Buffer.compare: a native memcmp of the ~528-byte keys.
  if (stored && Buffer.compare(stored, pk) !== 0) reject('pubKey differs from the public key stored for its address');
  return { primary, publicKey: pk, primaryKey: pk };
}

/**
 * Source address and amount of every input (§8.3: nonce keys relative to the signer). An input
 * address may not be an output too (§8.11), except for the multisig types that pay the wallet's
 * own fee to it (`mayPayItself`).
 */
export function inputSources(tx: Transaction, primary: Uint8Array): readonly InputSource[] {
  // Admission, the pool's spend tracking and the block transition each ask, with the same
  // (interned) primary: derived once per transaction.
  const known = sourcesOf.get(tx);
  if (known && known.primary === primary) return known.sources;
  // A `[0x00]` key spends from the primary itself: that array, not a copy per transaction (read only).
  const sources = tx.inputs.map((i): InputSource => Object.freeze({ address: isPrimaryNonce(i.key) ? primary : deriveAddress(primary, i.key), amount: i.amount }));
  if (!mayPayItself(tx.type)) {
    for (const s of sources) {
      if (tx.outputs.some((o) => equalBytes(o.address, s.address))) reject('an input address is also an output address');
    }
  }
  Object.freeze(sources);
  sourcesOf.set(tx, { primary, sources });
  return sources;
}

/** One input's source wallet and what it gives (`inputSources`). */
export interface InputSource {
  readonly address: Uint8Array;
  readonly amount: bigint;
}

/** `inputSources` of a transaction, for the primary they were derived from. */
const sourcesOf = new WeakMap<Transaction, { primary: Uint8Array; sources: readonly InputSource[] }>();

/**
 * A multisig wallet spends only through the multisig types (reference DLT `verifyTransaction`:
 * "a non-normal address with normal transaction"). Types that name their signer in the payload
 * check their own wallets; PoW claims, staking and genesis are not spends.
 */
export function checkSourceWallets(
  tx: Transaction,
  sources: readonly { address: Uint8Array }[],
  walletOf: (address: Uint8Array) => WalletState,
  extensions: ChainExtensions,
): void {
  if (extensions.txType(tx.type)?.signer || tx.type === TransactionType.PoWSolution) return;
  for (const s of sources) {
    if (walletOf(s.address).type !== WalletType.Normal) {
      reject(`${addressToText(s.address)} is a multisig wallet: it spends only through multisig transactions (addMultiSigTransaction)`);
    }
  }
}
