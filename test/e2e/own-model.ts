/**
 * The user's own model of a node fed raw transactions from the user's own keys (own-codec.ts):
 * balances after every accepted transaction, what the node's pool still holds, the fees paid.
 * It builds the transactions of a random step and says which outcome each must have.
 */
import { randomBytes } from 'node:crypto';
import { COIN, DUST, addressText, derivedAddress, minFee, signTx, type OwnKey, type OwnTx } from './own-codec.js';
import type { Envelope, OwnNode } from './own-node.js';

/** 'accept', or the RPC error code of a refusal. */
export type Outcome = 'accept' | -32001 | -32602;

export interface Step {
  wallet: number;
  /** Recipients: other wallets (index), fresh addresses (-1), the sender itself (-2). */
  to: number[];
  amount: 'one' | 'dust' | 'near' | 'exact' | 'above' | 'random';
  fee: 'min' | 'below' | 'above';
  height: 'tip' | 'ahead10' | 'ahead11' | 'zero';
  dupOutput: boolean;
  /** Spend from a derived address of the wallet (16-byte nonce) instead of the primary. */
  derived: boolean;
  /** Send only the signer's address as pubKey (allowed once the wallet state holds its key). */
  shortPubKey: boolean;
  after: 'none' | 'replay' | 'flip';
  flipAt: number;
  flipMask: number;
  rand: number;
}

interface Sent {
  id: string;
  hex: string;
  fee: bigint;
  deltas: Map<string, bigint>;
  /** Credits to addresses: not spendable by the node until applied. */
  credits: Map<string, bigint>;
  /** The signer's primary address (text): its key is in the wallet state once this is applied. */
  signer: string;
  applied: boolean;
}

export class Model {
  /** Balance of every address once every accepted transaction is applied. */
  readonly final = new Map<string, bigint>();
  readonly sent = new Map<string, Sent>();
  readonly refused = new Set<string>();
  feesPaid = 0n;
  /** Wallets whose key the wallet state holds (they sent an applied transaction). */
  readonly keyKnown = new Set<string>();
  /** Primary addresses whose balance reached 0 (the wallet and its stored key are removed). */
  readonly emptied = new Set<string>();
  readonly derivedOf = new Map<number, { nonce: Buffer; address: Buffer }>();
  log: string[] = [];

  constructor(
    readonly node: OwnNode,
    readonly keys: OwnKey[],
    genesis: bigint,
  ) {
    for (const k of keys) this.final.set(k.text, genesis);
  }

  balance(text: string): bigint {
    return this.final.get(text) ?? 0n;
  }

  /** What the node surely lets `text` spend: its final balance minus credits not yet applied. */
  async conservative(text: string): Promise<bigint> {
    await this.refreshApplied();
    let b = this.balance(text);
    for (const s of this.sent.values()) if (!s.applied) b -= s.credits.get(text) ?? 0n;
    return b;
  }

  async refreshApplied(): Promise<void> {
    for (const s of this.sent.values()) {
      if (s.applied) continue;
      const r = await this.node.call('getTransaction', { id: s.id });
      if (r.result && r.result.applied !== '0' && r.result.applied !== 0) {
        s.applied = true;
        this.keyKnown.add(s.signer);
      }
    }
  }

  /** Builds the step's transaction and its expected outcome. */
  async build(step: Step): Promise<{ hex: string; id: string; allowed: Set<Outcome>; why: string; sent: Sent } | null> {
    const key = this.keys[step.wallet]!;
    let source: Buffer = key.address;
    let inputKey: Buffer = Buffer.from([0]);
    if (step.derived) {
      const d = this.derivedOf.get(step.wallet);
      if (!d || this.balance(addressText(d.address)) === 0n) return null;
      source = d.address;
      inputKey = d.nonce;
    }
    const sourceText = addressText(source);
    const available = await this.conservative(sourceText);
    const optimistic = this.balance(sourceText);
    const tip = BigInt(await this.node.height());
    const blockHeight = { tip, ahead10: tip + 10n, ahead11: tip + 12n, zero: 0n }[step.height];
    const useShort = step.shortPubKey && this.keyKnown.has(key.text);
    const pubKey = useShort ? key.address : key.publicKey;

    // Recipients.
    const outs: Buffer[] = [];
    for (const t of step.to) {
      if (t === -2) outs.push(source);
      else if (t === -1 || t === step.wallet || t >= this.keys.length) outs.push(randomAddress());
      else outs.push(this.keys[t]!.address);
    }
    // First payment to an own derived address funds it (kept for later `derived` steps).
    if (!this.derivedOf.has(step.wallet) && step.rand % 3 === 0 && !step.derived) {
      const nonce = randomBytes(16);
      const address = derivedAddress(key.address, nonce);
      this.derivedOf.set(step.wallet, { nonce, address });
      outs[0] = address;
    }
    // Output addresses must be distinct unless the step duplicates one on purpose.
    const uniq: Buffer[] = [];
    for (const o of outs) if (!uniq.some((u) => u.equals(o))) uniq.push(o);
    if (step.dupOutput && uniq.length > 0) uniq.push(uniq[0]!);
    const n = BigInt(uniq.length);

    // Amount and fee: the fee depends on the size, which depends on the amounts; settle it.
    let fee = 500_000n;
    let amounts: bigint[] = [];
    let total = 0n;
    let tx!: OwnTx;
    let signed!: ReturnType<typeof signTx>;
    for (let round = 0; round < 4; round++) {
      const feeUsed = step.fee === 'below' ? fee - 1n : step.fee === 'above' ? fee + BigInt(step.rand % 1000) * 1000n : fee;
      switch (step.amount) {
        case 'one':
          total = n;
          break;
        case 'dust':
          total = DUST * n;
          break;
        case 'near':
          total = available - feeUsed - BigInt(1 + (step.rand % 1000));
          break;
        case 'exact':
          total = available - feeUsed;
          break;
        case 'above':
          total = optimistic - feeUsed + 1n;
          break;
        case 'random':
          total = DUST * n + BigInt(Math.floor((step.rand / 2 ** 32) * Number(available > 2n * COIN ? available / 10n : 1n)));
      }
      if (total < n) total = n;
      const each = total / n;
      amounts = uniq.map((_, i) => (i === 0 ? total - each * (n - 1n) : each));
      tx = {
        blockHeight,
        nonce: step.rand % 1_000_000,
        inputs: [{ key: inputKey, amount: total + feeUsed }],
        outputs: uniq.map((address, i) => ({ address, amount: amounts[i]! })),
        pubKey,
      };
      signed = signTx(tx, key);
      const need = minFee(signed.size);
      if (need === fee) break;
      fee = need;
    }
    const feeUsed = tx.inputs[0]!.amount - total;
    const outsTexts = uniq.map(addressText);

    // Allowed outcomes: any broken rule's refusal (the node may check them in any order).
    const refusals: Outcome[] = [];
    const maybe: Outcome[] = [];
    const whys: string[] = [];
    const bad = (o: Outcome, w: string, certain = true): void => {
      (certain ? refusals : maybe).push(o);
      whys.push(w);
    };
    if (step.dupOutput) bad(-32602, 'duplicate output');
    if (outsTexts.includes(sourceText)) bad(-32602, 'self-pay');
    if (amounts.some((a) => a < DUST)) bad(-32602, 'output below dust');
    if (feeUsed < minFee(signed.size)) bad(-32602, 'fee below minimum');
    if (step.height === 'ahead11') bad(-32602, 'blockHeight ahead');
    if (step.height === 'zero' && tip > 10_000n) bad(-32602, 'blockHeight too old');
    // Short pubKey: the wallet state keeps the key while the primary wallet exists (§8.8; an
    // emptied wallet is removed with it).
    if (useShort && this.emptied.has(key.text)) bad(-32602, 'short pubKey of a wallet once emptied', false);
    const spend = total + feeUsed;
    if (spend > optimistic) bad(-32001, 'above balance');
    else if (spend > available) bad(-32001, 'between conservative and optimistic balance', false);
    const allowed = new Set<Outcome>(refusals.length ? refusals : ['accept', ...maybe]);
    if (refusals.length) for (const m of maybe) allowed.add(m);

    const deltas = new Map<string, bigint>();
    const credits = new Map<string, bigint>();
    deltas.set(sourceText, -spend);
    uniq.forEach((a, i) => {
      const t = addressText(a);
      deltas.set(t, (deltas.get(t) ?? 0n) + amounts[i]!);
      credits.set(t, (credits.get(t) ?? 0n) + amounts[i]!);
    });
    return { hex: signed.hex, id: signed.id, allowed, why: whys.join(', '), sent: { id: signed.id, hex: signed.hex, fee: feeUsed, deltas, credits, signer: key.text, applied: false } };
  }

  accept(s: Sent): void {
    this.sent.set(s.id, s);
    this.feesPaid += s.fee;
    for (const [a, d] of s.deltas) {
      this.final.set(a, this.balance(a) + d);
      if (this.balance(a) === 0n) this.emptied.add(a);
    }
  }
}

/** A v1 address nobody holds a key of. */
export const randomAddress = (): Buffer => Buffer.concat([Buffer.from([1]), randomBytes(44)]);

/** An envelope is clean: HTTP 200, and either a result or an error that is not internal. */
export function cleanEnvelope(r: Envelope): string | null {
  if (r.status !== 200) return `HTTP ${r.status}`;
  if (r.error && r.error.code === -32603) return `internal error: ${r.error.message}`;
  if (r.error && (typeof r.error.message !== 'string' || r.error.message.length === 0)) return 'error without a message';
  if (!r.error && r.result == null) return 'neither result nor error';
  return null;
}
