/**
 * Building the node's own payments (reference-rpc-messaging.md §2.1 "createTransactionHelper";
 * reference-formats.md §8.9 creation rules): input selection smallest balance first net of pending
 * spends (the pool's and those of submissions still being admitted), the size-dependent fee
 * estimate with fee iteration, `autofee`, and the exact-sum rule.
 * Used by addTransaction, calculateTransactionFee and createRawTransaction. Refusals are domain
 * errors (`TxError` codes), mapped to RPC errors by `rpc/errors.ts`.
 */
import type { Network, Transaction, TxInput, TxOutput } from '../codec/types.js';
import { signedSize } from '../codec/transaction.js';
import { CODEC_ERROR_MEANINGS } from '../codec/errors.js';
import { addressToText } from '../formats/address.js';
import { equalBytes } from '../formats/bytes.js';
import { FORCE_TRANSACTION_PRICE, MAX_TRANSACTION_SIZE, TRANSACTION_DUST_LIMIT, TransactionType } from '../formats/constants.js';
import { estimateFee } from '../formats/fees.js';
import { formatAmount } from '../formats/amount.js';
import { WalletType, type WalletState } from '../chain/wallet-state.js';
import { TX_VERSION } from '../chain/constants.js';
import { balanceTooLow, TxError, TxErrorCode } from '../chain/errors.js';
import { knownTx, type KnownTx } from '../chain/tx-codec.js';
import type { Clock } from '../clock.js';
import type { WalletKey } from './wallet.js';

/** Fee re-computations after the first estimate when the node picks the inputs (§2.1 step 11). */
const FEE_ROUNDS = 3;

export interface PaymentRequest {
  key: WalletKey;
  outputs: TxOutput[];
  /** Advanced mode: address → amount withdrawn, each address one of `key`'s. */
  from?: { address: Uint8Array; amount: bigint }[];
  /**
   * Explicit absolute fee (interface.md addTransaction `fee`); default: the size-dependent fee at
   * the network price per started kB (§8.9). Below that minimum it is refused.
   */
  fee?: bigint;
  autofee?: boolean;
  /** Transaction type (default Normal); RegName (4) may send outputs of 0. */
  type?: number;
  /**
   * Client nodes: relay nodes paid by the payment (interface.md addTransaction rule 5;
   * reference-rpc-messaging §2.1 "Relay outputs"): each gets an output equal to the transaction's
   * fee, at least the dust limit (a smaller output would make the transaction invalid), covered by
   * the inputs.
   */
  relays?: Uint8Array[];
}

const badPayment = (message: string): TxError => new TxError(TxErrorCode.BadPayment, message);

/**
 * The outputs of a payment: the recipients, then each relay's share (interface.md addTransaction
 * rule 5). A relay that is also a recipient (or named twice) gets its share added to that output
 * instead of a second one: an address appears once in a transaction's outputs (reference-formats
 * §8.3, a repeated key makes it unparseable). The reference adds relay outputs with
 * `Dictionary.Add`, which throws there; merging keeps the payment and every relay's share.
 */
function withRelayShares(outputs: TxOutput[], relays: readonly Uint8Array[] | undefined, share: bigint): TxOutput[] {
  if (!relays?.length) return outputs;
  const merged = outputs.map((o) => ({ ...o }));
  for (const address of relays) {
    const same = merged.find((o) => equalBytes(o.address, address));
    if (same) same.amount += share;
    else merged.push({ address, amount: share });
  }
  return merged;
}

/** A new transaction's nonce (§8.3): milliseconds-within-second × 1000 + random 0..999. */
export const transactionNonce = (nowMs: number): number => (nowMs % 1000) * 1000 + Math.floor(Math.random() * 1000);

const compareBytes = (a: Uint8Array, b: Uint8Array): number => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
};

/** Inputs sorted by nonce bytes (§8.3: the reference emits them so; `[0x00]` first). */
const sortInputs = (inputs: TxInput[]): TxInput[] => inputs.sort((a, b) => compareBytes(a.key, b.key));

/**
 * The state a payment is built on: the chain's (a full node), or on a light node the balances
 * masters reported (src/wallet/light-wallet.ts).
 */
export interface PaymentState {
  readonly height: bigint;
  wallet(address: Uint8Array): Pick<WalletState, 'balance' | 'type' | 'publicKey'>;
}

/** What is spent already by transactions not applied yet (the mempool's, or a light node's own pending). */
export interface PendingSpends {
  pendingSpendOf(address: Uint8Array): bigint;
}

export class PaymentBuilder {
  constructor(
    private readonly chain: PaymentState,
    private readonly mempool: PendingSpends,
    private readonly network: Network,
    private readonly clock: Clock,
  ) {}

  private available(address: Uint8Array): bigint {
    return this.chain.wallet(address).balance - this.mempool.pendingSpendOf(address);
  }

  /**
   * Inputs covering exactly `target`, smallest balance first (§2.1 "Input selection"), or null.
   * Multisig wallets are left out: they spend only through multisig transactions.
   */
  selectInputs(key: WalletKey, target: bigint, outputs: TxOutput[]): TxInput[] | null {
    const inputs: TxInput[] = [];
    let remaining = target;
    for (const c of this.candidates(key, outputs)) {
      if (remaining === 0n) break;
      const take = c.available < remaining ? c.available : remaining;
      inputs.push({ key: c.nonce, amount: take });
      remaining -= take;
    }
    return remaining === 0n ? sortInputs(inputs) : null;
  }

  /** The addresses of `key` that may fund a payment to `outputs`, with what each has available, smallest first. */
  private candidates(key: WalletKey, outputs: TxOutput[]): { address: Uint8Array; nonce: Uint8Array; available: bigint }[] {
    return key
      .addresses()
      .filter((a) => !outputs.some((o) => equalBytes(o.address, a.address)))
      .filter((a) => this.chain.wallet(a.address).type === WalletType.Normal)
      .map((a) => ({ ...a, available: this.available(a.address) }))
      .filter((a) => a.available > 0n)
      .sort((x, y) => (x.available < y.available ? -1 : x.available > y.available ? 1 : 0));
  }

  /**
   * Why no inputs cover `target`: the balance is too low, unless the wallet's own addresses that
   * the payment pays would have covered it. Those are left out of the inputs (an input address may
   * not also be an output, reference-formats §8.11; the reference's input selection leaves them out
   * too): paying another address of the wallet works when the others fund it, and when they cannot
   * the error says so instead of "Balance is too low" over a wallet that holds enough.
   */
  private noInputs(key: WalletKey, target: bigint, outputs: TxOutput[]): TxError {
    const total = (cs: { available: bigint }[]): bigint => cs.reduce((s, c) => s + c.available, 0n);
    const paid = key.addresses().filter((a) => outputs.some((o) => equalBytes(o.address, a.address)));
    if (paid.length === 0 || total(this.candidates(key, [])) < target) return balanceTooLow();
    const others = total(this.candidates(key, outputs));
    return badPayment(
      `Cannot pay ${paid.map((a) => addressToText(a.address)).join(', ')} from the same wallet: a payment cannot spend from an address it pays, ` +
        `and the wallet's other addresses hold ${formatAmount(others)} of the ${formatAmount(target)} needed`,
    );
  }

  private assemble(req: PaymentRequest, inputs: TxInput[], relayAmount = 0n): Transaction {
    const stored = this.chain.wallet(req.key.primary).publicKey;
    const now = this.clock.now();
    return {
      version: TX_VERSION,
      type: req.type ?? TransactionType.Normal,
      blockHeight: this.chain.height,
      inputs,
      outputs: withRelayShares(req.outputs, req.relays, relayAmount),
      nonce: transactionNonce(now),
      // §2.1 step 7: only the address once the wallet state knows the key.
      pubKey: stored ? req.key.primary : req.key.publicKey,
      signature: null,
      applied: 0n,
      timestamp: BigInt(Math.floor(now / 1000)),
    };
  }

  /** Size-dependent fee of the unsigned transaction (§8.9 creation estimate, same for signed). */
  private minimumFeeOf(tx: Transaction): bigint {
    return estimateFee(signedSize(tx), FORCE_TRANSACTION_PRICE);
  }

  /**
   * Builds the transaction (unsigned) with its final fee.
   * @throws TxError TX_BALANCE_TOO_LOW, TX_BAD_PAYMENT for inconsistent amounts, a fee below the
   *   minimum or a transaction larger than MAX_TRANSACTION_SIZE once signed.
   */
  build(req: PaymentRequest): { tx: Transaction; fee: bigint } {
    const feeOf = (t: Transaction): bigint => req.fee ?? this.minimumFeeOf(t);
    const toTotal = req.outputs.reduce((s, o) => s + o.amount, 0n);
    // Name operations may send 0 (updateRecord and recover carry no fee to the pool, reference-names §4.2).
    const zeroAllowed = req.type === TransactionType.RegName && req.outputs.every((o) => o.amount >= 0n);
    if (toTotal < 0n || (toTotal === 0n && !zeroAllowed)) throw badPayment('Invalid to amount was specified');
    let tx: Transaction;
    let fee: bigint;
    // Each relay output equals the fee (reference-rpc-messaging §2.1), at least the dust limit so
    // the output is valid (a transaction under 1 kB pays 0.005, below the 0.01 limit, formats §8.9);
    // the inputs cover the fee and every relay's share.
    const relayCount = BigInt(req.relays?.length ?? 0);
    const relayShare = (f: bigint): bigint => (f > TRANSACTION_DUST_LIMIT ? f : TRANSACTION_DUST_LIMIT);
    const cost = (f: bigint): bigint => f + relayCount * relayShare(f);
    const excluded = [...req.outputs, ...(req.relays ?? []).map((address) => ({ address, amount: 0n }))];
    if (!req.from) {
      let fee0 = req.fee ?? FORCE_TRANSACTION_PRICE;
      let target = toTotal + cost(fee0);
      let inputs = this.selectInputs(req.key, target, excluded);
      if (!inputs) throw this.noInputs(req.key, target, excluded);
      tx = this.assemble(req, inputs, relayShare(fee0));
      fee = feeOf(tx);
      for (let round = 0; round < FEE_ROUNDS && target !== toTotal + cost(fee); round++) {
        fee0 = fee;
        target = toTotal + cost(fee);
        inputs = this.selectInputs(req.key, target, excluded);
        if (!inputs) throw this.noInputs(req.key, target, excluded);
        tx = this.assemble(req, inputs, relayShare(fee0));
        fee = feeOf(tx);
      }
      if (target !== toTotal + cost(fee)) throw new TxError(TxErrorCode.FeeUnsettled, 'The fee did not settle after three rounds; try again');
    } else {
      const inputs = sortInputs(req.from.map((f) => ({ key: req.key.nonceOf(f.address)!, amount: f.amount })));
      tx = this.assemble(req, inputs, relayShare(FORCE_TRANSACTION_PRICE));
      fee = feeOf(tx);
      tx = this.assemble(req, inputs, relayShare(fee));
      if (req.autofee) {
        // §2.1 step 12: the fee (and the relays' shares) go onto the first input in key order.
        inputs[0]!.amount += cost(fee);
        tx = this.assemble(req, inputs, relayShare(fee));
        fee = feeOf(tx);
        tx = this.assemble(req, inputs, relayShare(fee));
        const firstAddress = req.from.find((f) => equalBytes(req.key.nonceOf(f.address)!, inputs[0]!.key))!.address;
        if (inputs[0]!.amount > this.available(firstAddress)) throw balanceTooLow();
      }
      const fromTotal = inputs.reduce((s, i) => s + i.amount, 0n);
      if (fromTotal !== toTotal + cost(fee)) {
        throw badPayment(
          "From amounts (incl. fee) do not match to amounts. If you haven't accounted for the transaction fee in the from amounts, use the parameter 'autofee' to have the node do it automatically.",
        );
      }
      for (const f of req.from) {
        const amount = inputs.find((i) => equalBytes(i.key, req.key.nonceOf(f.address)!))!.amount;
        if (amount > this.available(f.address)) throw balanceTooLow();
      }
    }
    // Signed, the transaction must still fit one transaction (reference-formats §8): a caller's
    // mistake (say records as large as a name's capacity), not an internal failure at encoding.
    const size = signedSize({ ...tx, signature: new Uint8Array(req.key.signatureLength) });
    if (size > MAX_TRANSACTION_SIZE) throw badPayment(`The transaction would have ${size} bytes; ${CODEC_ERROR_MEANINGS.OVERSIZED}`);
    const minimum = this.minimumFeeOf(tx);
    if (fee < minimum) {
      throw badPayment(`The fee ${formatAmount(fee)} is below the minimum fee ${formatAmount(minimum)} for this transaction's size`);
    }
    return { tx, fee };
  }

  /** Builds and signs (RSA over the checksum, §8.8). */
  buildSigned(req: PaymentRequest): KnownTx {
    const { tx } = this.build(req);
    const unsigned = knownTx(tx, this.network);
    tx.signature = req.key.sign(unsigned.checksum);
    return knownTx(tx, this.network);
  }

  /**
   * The payment with a zero signature of the key's signature length, and its fee: the signed form's
   * size without the RSA signing (~8 ms), for the rules a signed payment is checked against before
   * it is answered but not sent (calculateTransactionFee, an unsigned createRawTransaction). Not a
   * valid signature: never send it.
   */
  buildSizedAsSigned(req: PaymentRequest): { k: KnownTx; fee: bigint } {
    const { tx, fee } = this.build(req);
    tx.signature = new Uint8Array(req.key.signatureLength);
    return { k: knownTx(tx, this.network), fee };
  }
}
