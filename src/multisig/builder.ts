/**
 * Building the node's own multisig transactions (Ixian-Core `Transaction.multisigTransaction`,
 * `multisigAddTxSignature`, `multisigAddKeyTransaction`, `multisigDelKeyTransaction`,
 * `multisigChangeReqSigs`): the wallet is `pubKey` (its address, or its key while the wallet
 * state holds none: `pubKeyOf`) with input key `[0x00]` and pays everything;
 * the signer is an address of this node's wallet that may sign for it (`findMyMultisigAddressData`:
 * the wallet itself when it is ours, else the first of its allowed signers that is ours), and its
 * key and nonce go into the payload. The fee is the creation estimate at `feePerKb` (§8.9), added
 * to the one input. Refusals are `TxError`s (TX_BAD_PAYMENT, TX_BALANCE_TOO_LOW) with a sentence.
 */
import type { Network, Transaction, TxOutput } from '../codec/types.js';
import { encodeTransaction } from '../codec/transaction.js';
import type { Chain } from '../chain/chain.js';
import { TX_VERSION } from '../chain/constants.js';
import { balanceTooLow, TxError, TxErrorCode } from '../chain/errors.js';
import { knownTx, type KnownTx } from '../chain/tx-codec.js';
import { WalletType, type WalletState } from '../chain/wallet-state.js';
import type { Clock } from '../clock.js';
import { addressToText } from '../formats/address.js';
import { equalBytes } from '../formats/bytes.js';
import { FORCE_TRANSACTION_PRICE, TransactionType } from '../formats/constants.js';
import { estimateFee } from '../formats/fees.js';
import type { Mempool } from '../mempool/mempool.js';
import { transactionNonce } from '../wallet/payments.js';
import { PRIMARY_NONCE, type NodeWallet, type WalletKey } from '../wallet/wallet.js';
import { encodeMultisigChange, encodeMultisigTxData, MultisigChangeType, type MultisigChange } from './payload.js';
import { readMultisigTx, txIdText } from './rules.js';

/** Fee re-computations after the first estimate (the input grows with the fee). */
const FEE_ROUNDS = 3;

const badPayment = (message: string): TxError => new TxError(TxErrorCode.BadPayment, message);

/** An address of the node's wallet that signs, with its key and nonce. */
interface LocalSigner {
  key: WalletKey;
  address: Uint8Array;
  nonce: Uint8Array;
}

/** A wallet change the node builds: add or remove a signer, or set the required signatures. */
export type ChangeRequest =
  | { kind: typeof MultisigChangeType.AddSigner | typeof MultisigChangeType.DelSigner; address: Uint8Array }
  | { kind: typeof MultisigChangeType.ChangeReqSigs; requiredSigs: number };

export class MultisigBuilder {
  constructor(
    private readonly chain: Chain,
    private readonly mempool: Mempool,
    private readonly wallet: NodeWallet,
    private readonly network: Network,
    private readonly clock: Clock,
  ) {}

  /** The node's own address among `candidates` (in order), minus `exclude`. */
  private localSigner(candidates: readonly Uint8Array[], exclude: readonly Uint8Array[] = []): LocalSigner | null {
    for (const address of candidates) {
      if (exclude.some((e) => equalBytes(e, address))) continue;
      for (const key of this.wallet.keys) {
        const nonce = key.nonceOf(address);
        if (nonce) return { key, address, nonce };
      }
    }
    return null;
  }

  /** Who may sign for a wallet, in the reference's order: the wallet itself, then its allowed signers. */
  private static signersOf(wallet: Uint8Array, w: WalletState): Uint8Array[] {
    return [wallet, ...w.allowedSigners];
  }

  private signerFor(wallet: Uint8Array, w: WalletState, exclude: readonly Uint8Array[] = []): LocalSigner {
    const s = this.localSigner(MultisigBuilder.signersOf(wallet, w), exclude);
    if (s) return s;
    const all = MultisigBuilder.signersOf(wallet, w).filter((a) => this.localSigner([a]));
    if (all.length > 0) {
      throw badPayment(`Every address of this node's wallet that may sign for wallet ${addressToText(wallet)} (${all.map(addressToText).join(', ')}) has signed this transaction already`);
    }
    throw badPayment(`No address of this node's wallet may sign for wallet ${addressToText(wallet)}: it is neither that wallet nor one of its allowed signers`);
  }

  /**
   * What `pubKey` names the wallet by: its address (as the reference's builders), or its full
   * public key when the wallet state holds none for it yet and it is this node's primary address
   * of a key. The reference fails a transaction whose `pubKey` is an address without a stored key
   * (src/chain/validate.ts `resolveTxSigner`); a carried key is stored with the wallet.
   */
  private pubKeyOf(wallet: Uint8Array): Uint8Array {
    if (this.chain.wallet(wallet).publicKey) return wallet;
    return this.wallet.keys.find((k) => equalBytes(k.primary, wallet))?.publicKey ?? wallet;
  }

  /**
   * The signed transaction: `type` from `wallet` to `outputs`, paying `outputs` plus the fee at
   * `feePerKb`; `payload(signer)` is the first output's data.
   */
  private build(type: number, wallet: Uint8Array, outputs: TxOutput[], feePerKb: bigint, signer: LocalSigner, payload: Uint8Array): KnownTx {
    const amount = outputs.reduce((s, o) => s + o.amount, 0n);
    const now = this.clock.now();
    const tx: Transaction = {
      version: TX_VERSION,
      type,
      blockHeight: this.chain.height,
      inputs: [{ key: PRIMARY_NONCE, amount }],
      outputs: outputs.map((o, i) => (i === 0 ? { address: o.address, amount: o.amount, data: payload } : o)),
      nonce: transactionNonce(now),
      pubKey: this.pubKeyOf(wallet),
      signature: null,
      applied: 0n,
      timestamp: BigInt(Math.floor(now / 1000)),
    };
    let fee = 0n;
    for (let round = 0; round <= FEE_ROUNDS; round++) {
      const next = estimateFee(encodeTransaction(tx).length, feePerKb);
      if (next === fee) break;
      fee = next;
      tx.inputs[0]!.amount = amount + fee;
    }
    const available = this.chain.wallet(wallet).balance - this.mempool.pendingSpendOf(wallet);
    if (available < amount + fee) throw balanceTooLow({ address: wallet, needed: amount + fee, balance: available });
    tx.signature = signer.key.sign(knownTx(tx, this.network).checksum);
    return knownTx(tx, this.network);
  }

  /** A spend (type 997) from multisig wallet `from`, signed by the node's first address that may. */
  spend(from: Uint8Array, outputs: TxOutput[], feePerKb: bigint = FORCE_TRANSACTION_PRICE): KnownTx {
    const w = this.chain.wallet(from);
    if (w.type !== WalletType.Multisig) throw badPayment("The specified 'from' wallet is not a multisig wallet.");
    if (outputs.some((o) => equalBytes(o.address, from))) throw badPayment('A multisig wallet cannot pay itself');
    const signer = this.signerFor(from, w);
    const payload = encodeMultisigTxData({ origTxId: null, signerPubKey: signer.key.publicKey, signerNonce: signer.nonce });
    return this.build(TransactionType.MultisigTx, from, outputs, feePerKb, signer, payload);
  }

  /** A wallet change (type 998) of `wallet`. */
  change(wallet: Uint8Array, request: ChangeRequest, feePerKb: bigint = FORCE_TRANSACTION_PRICE): KnownTx {
    const w = this.chain.wallet(wallet);
    const signer = this.signerFor(wallet, w);
    const base = { signerPubKey: signer.key.publicKey, signerNonce: signer.nonce };
    const change: MultisigChange =
      request.kind === MultisigChangeType.ChangeReqSigs ? { ...request, ...base } : { kind: request.kind, address: request.address, ...base };
    return this.build(TransactionType.ChangeMultisigWallet, wallet, [{ address: wallet, amount: 0n }], feePerKb, signer, encodeMultisigChange(change));
  }

  /**
   * A co-signature (type 999) of the pending multisig transaction `origId` of `wallet`, by the
   * node's first address that may sign for it and has not signed it yet (Decision: the reference
   * always takes its first such address, which fails when that one signed already).
   */
  coSign(wallet: Uint8Array, origId: Uint8Array, feePerKb: bigint = FORCE_TRANSACTION_PRICE): KnownTx {
    const orig = this.mempool.get(origId);
    if (!orig) {
      if (this.chain.hasTransaction(origId)) throw badPayment(`Transaction ${txIdText(origId)} is already applied`);
      throw badPayment(`Transaction ${txIdText(origId)} is not pending on this node`);
    }
    if (orig.tx.type !== TransactionType.MultisigTx && orig.tx.type !== TransactionType.ChangeMultisigWallet) {
      throw badPayment(`Transaction ${txIdText(origId)} is not a multisig transaction (type 997 or 998)`);
    }
    const o = readMultisigTx(orig.tx);
    if (!equalBytes(o.wallet, wallet)) throw badPayment(`Transaction ${txIdText(origId)} is for wallet ${addressToText(o.wallet)}, not ${addressToText(wallet)}`);
    const signed = [o.signer, ...this.mempool.followers(origId).map((k) => readMultisigTx(k.tx).signer)];
    const signer = this.signerFor(wallet, this.chain.wallet(wallet), signed);
    const payload = encodeMultisigTxData({ origTxId: origId, signerPubKey: signer.key.publicKey, signerNonce: signer.nonce });
    return this.build(TransactionType.MultisigAddTxSignature, wallet, [{ address: wallet, amount: 0n }], feePerKb, signer, payload);
  }
}
