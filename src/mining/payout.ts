/**
 * Mining rewards paid at maturity (blocks v10+; DLT `TransactionPool.rewardMinersV10`): the mining
 * claims (type 1) applied in block m are paid by block m + rewardMaturity (960; a genesis file may
 * shorten it). The paying block groups m's claims by the block they solved; each group shares that
 * block's reward (src/mining/reward.ts) in equal parts, rounded down (the reference's IxiNumber
 * division), the remainder never created. The payment is no transaction: it credits the solvers'
 * wallets directly, newly created coins. Block n pays only when n > rewardMaturity + 1 and block
 * m − 1 is v10 or later.
 *
 * Two sub-databases, written inside the block's write transaction (a tip revert undoes them with
 * the wallets): the claims each block applied, and the share each paid claim received (the value
 * `activity` shows for it, as the reference's `ActivityStorage.updateValue`).
 */
import type { BlockWriter } from '../chain/extensions.js';
import { BLOCK_VERSION_V10 } from '../formats/constants.js';
import { bytesKey, latin1Key, readU64Key, u64Key } from '../state/keys.js';
import type { SubDbSpec } from '../state/schema.js';
import type { Store } from '../state/store.js';
import { miningReward } from './reward.js';

/** One claim applied in a block: the block it solved, its solver, its binary txid. */
export interface AppliedClaim {
  target: bigint;
  solver: Uint8Array;
  txid: Uint8Array;
}

export const CLAIMS_IN_DB: SubDbSpec = {
  name: 'powClaimsIn',
  encoding: 'binary',
  shape: 'u64 BE block number → per claim applied in it, in block order: u64 BE solved block ‖ u8 len ‖ solver address ‖ u8 len ‖ binary txid',
};

export const PAYOUT_DB: SubDbSpec = {
  name: 'powPayouts',
  encoding: 'binary',
  shape: 'binary txid of a paid mining claim → u64 BE share paid (raw units)',
};

/** Records the claims applied in block `num` (inside its write transaction). */
export function recordClaimsIn(store: Store, num: bigint, claims: readonly AppliedClaim[]): void {
  const parts: Buffer[] = [];
  for (const c of claims) parts.push(u64Key(c.target), Buffer.of(c.solver.length), Buffer.from(c.solver), Buffer.of(c.txid.length), Buffer.from(c.txid));
  store.declare(CLAIMS_IN_DB).put(u64Key(num), Buffer.concat(parts));
}

/** The claims applied in block `num`, in block order (empty when none). */
export function claimsIn(store: Store, num: bigint): AppliedClaim[] {
  const v = store.declare(CLAIMS_IN_DB).getBinary(u64Key(num));
  const out: AppliedClaim[] = [];
  if (!v) return out;
  let o = 0;
  while (o + 9 <= v.length) {
    const target = v.readBigUInt64BE(o);
    const solverLen = v[o + 8]!;
    const solver = new Uint8Array(v.subarray(o + 9, o + 9 + solverLen));
    const txidLen = v[o + 9 + solverLen]!;
    const txid = new Uint8Array(v.subarray(o + 10 + solverLen, o + 10 + solverLen + txidLen));
    out.push({ target, solver, txid });
    o += 10 + solverLen + txidLen;
  }
  return out;
}

/** The share paid for the claim with binary txid `txid`, or null while it is not paid. */
export function claimPayout(store: Store, txid: Uint8Array): bigint | null {
  const v = store.declare(PAYOUT_DB).getBinary(bytesKey(txid));
  return v ? readU64Key(v) : null;
}

/** Each claim of `claims` with its share: per solved block, its reward divided by its number of claims, rounded down. */
export function sharesOf(claims: readonly AppliedClaim[]): { claim: AppliedClaim; share: bigint }[] {
  const groups = new Map<string, AppliedClaim[]>();
  for (const c of claims) {
    const key = String(c.target);
    const g = groups.get(key);
    if (g) g.push(c);
    else groups.set(key, [c]);
  }
  const out: { claim: AppliedClaim; share: bigint }[] = [];
  for (const g of groups.values()) {
    const share = miningReward(g[0]!.target) / BigInt(g.length);
    for (const claim of g) out.push({ claim, share });
  }
  return out;
}

/**
 * Pays, in `block`, the claims applied `maturity` blocks before it (see the module comment);
 * `versionOf` reads a stored block's version.
 */
export function payMatureClaims(block: BlockWriter, maturity: bigint, versionOf: (num: bigint) => number | null): void {
  if (block.height <= maturity + 1n) return;
  const m = block.height - maturity;
  const before = versionOf(m - 1n);
  if (before === null || before < BLOCK_VERSION_V10) return;
  const payouts = block.store.declare(PAYOUT_DB);
  for (const { claim, share } of sharesOf(claimsIn(block.store, m))) {
    block.mint(claim.solver, share);
    payouts.put(bytesKey(claim.txid), u64Key(share));
  }
}

/** A solution's identity within a block: its solver and nonce (two equal ones are one claim made twice). */
export const solutionKey = (solver: Uint8Array, nonce: Uint8Array): string => `${solver.length}:${latin1Key(solver)}${latin1Key(nonce)}`;
