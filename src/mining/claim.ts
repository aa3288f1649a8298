/**
 * Mining claims (reference-formats.md §8.10, §11.3): the type-1 transaction a valid solution
 * becomes. v7 data: `varint(blockNum) ‖ varint(len(nonce)) ‖ nonce` (nonce 1–64 bytes); output 0
 * to the InfiniMine address, amount 0; input `{[0x00]: 0}`; fee 0; signed by the solver.
 */
import type { Chain } from '../chain/chain.js';
import { TX_VERSION } from '../chain/constants.js';
import { knownTx, type KnownTx } from '../chain/tx-codec.js';
import type { Network, Transaction } from '../codec/types.js';
import { Address } from '../formats/address.js';
import { concatBytes } from '../formats/bytes.js';
import { INFINIMINE_ADDRESS, TransactionType } from '../formats/constants.js';
import { decodeVarUint, encodeVarUint } from '../formats/varint.js';
import { POW_MAX_NONCE } from '../core/pow.js';
import type { WalletKey } from '../wallet/wallet.js';

/** The InfiniMine pseudo-address (§7.9), without checksum: recipient of every claim. */
export const INFINIMINE = Address.fromText(INFINIMINE_ADDRESS).addressNoChecksum;

export class ClaimDataError extends Error {
  override name = 'ClaimDataError';
}

export interface ClaimData {
  blockNum: bigint;
  nonce: Uint8Array;
}

export function encodeClaimData(c: ClaimData): Uint8Array {
  if (c.nonce.length < 1 || c.nonce.length > POW_MAX_NONCE) throw new ClaimDataError(`nonce of ${c.nonce.length} bytes: expected 1–${POW_MAX_NONCE}`);
  return concatBytes(encodeVarUint(c.blockNum), encodeVarUint(c.nonce.length), c.nonce);
}

/** @throws ClaimDataError naming what is wrong. */
export function decodeClaimData(data: Uint8Array | undefined): ClaimData {
  if (!data || data.length === 0) throw new ClaimDataError('a mining claim carries no solution data in its first output');
  try {
    const num = decodeVarUint(data, 0);
    const len = decodeVarUint(data, num.next);
    const n = Number(len.value);
    if (n < 1 || n > POW_MAX_NONCE) throw new ClaimDataError(`claim nonce of ${n} bytes: expected 1–${POW_MAX_NONCE}`);
    if (len.next + n !== data.length) throw new ClaimDataError(`claim data of ${data.length} bytes does not end with its ${n}-byte nonce`);
    return { blockNum: num.value, nonce: data.slice(len.next, len.next + n) };
  } catch (err) {
    if (err instanceof ClaimDataError) throw err;
    throw new ClaimDataError(`unreadable claim data: ${(err as Error).message}`);
  }
}

/** The signed claim transaction of a solution found by `key` (§8.10). */
export function buildClaim(chain: Chain, network: Network, key: WalletKey, claim: ClaimData, nowMs: number): KnownTx {
  const stored = chain.wallet(key.primary).publicKey;
  const tx: Transaction = {
    version: TX_VERSION,
    type: TransactionType.PoWSolution,
    blockHeight: chain.height,
    inputs: [{ key: Uint8Array.of(0), amount: 0n }],
    outputs: [{ address: INFINIMINE, amount: 0n, data: encodeClaimData(claim) }],
    nonce: (nowMs % 1000) * 1000 + Math.floor(Math.random() * 1000),
    pubKey: stored ? key.primary : key.publicKey,
    signature: null,
    applied: 0n,
    timestamp: BigInt(Math.floor(nowMs / 1000)),
  };
  tx.signature = key.sign(knownTx(tx, network).checksum);
  return knownTx(tx, network);
}
