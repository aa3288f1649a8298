/**
 * The reference's block dictionary (reference-client-methods.md `getblock`, `getfullblock`;
 * Ixian-DLT `APIServer.blockToJsonDictionary`): exactly its keys, in its order, every value a
 * string — `"null"` for an absent hash, `Signatures` and `TX IDs` as JSON-encoded strings, booleans
 * as .NET prints them (`"False"`), `Signer Bits` as the hex of its 8 little-endian bytes.
 */
import { u64le, type Block } from '../../chain/block.js';
import type { Chain } from '../../chain/chain.js';
import { decodeBinaryTransactionId, transactionId } from '../../codec/transaction.js';
import { parseBlockSignature } from '../../consensus/block-signatures.js';
import { requiredSignerDifficulty, signatureDifficulty, signerBitsSourceBlock } from '../../consensus/rules.js';
import { signerPowDifficulty, signerPowSolutionHash } from '../../consensus/signer-pow.js';
import { decodedAddress } from '../../codec/json.js';
import { formatAmount } from '../../formats/amount.js';
import { toBase64, toHex } from '../../formats/bytes.js';
import { TransactionType } from '../../formats/constants.js';
import { hashrateOf } from '../../mining/difficulty.js';
import { toJson } from '../envelope.js';
import { signerPowSolutionJson } from './pow-json.js';
import { powFieldOf } from '../../mining/pow-field.js';

/** Text id of a binary id (§8.7): prefix 0 marks a staking reward. */
export function textId(binary: Uint8Array): string {
  const id = decodeBinaryTransactionId(binary);
  const type = id.prefix === 0 ? TransactionType.StakingReward : TransactionType.Normal;
  return transactionId({ type, blockHeight: id.blockHeight }, id.checksum);
}

/**
 * `getfullblock`'s "Superblock segments": the reference's `Dictionary<ulong, SuperBlockSegment>` as
 * Newtonsoft writes it, block number → `{blockNum, blockChecksum}` (base64, null when empty); `{}`
 * for a block that is no superblock. The segments are the blocks before `b` since the last superblock.
 */
export function superBlockSegmentsText(b: Block): string {
  const out: Record<string, { blockNum: bigint; blockChecksum: string | null }> = {};
  if (b.superBlock) {
    const first = b.num - BigInt(b.superBlock.segments.length);
    b.superBlock.segments.forEach((c, i) => {
      const blockNum = first + BigInt(i);
      out[blockNum.toString()] = { blockNum, blockChecksum: c.length > 0 ? toBase64(c) : null };
    });
  }
  return toJson(out);
}

/** Hex of a hash, `"null"` when absent (the reference prints null hashes so). */
export const hexOrNullText = (b: Uint8Array | null | undefined): string => (b && b.length ? toHex(b) : 'null');

/** Difficulty (raw) of one stored signature: its solution's (§12), 1 coin without one, 0 when unreadable. */
function signatureDifficultyOf(chain: Chain, sig: Block['signatures'][number]): bigint {
  try {
    const p = parseBlockSignature(sig);
    if (!p.solution) return signatureDifficulty(null);
    const solved = chain.getBlock(p.solution.blockNum);
    if (!solved) return 0n;
    return signerPowDifficulty(signerPowSolutionHash(p.solution, solved.checksum, p.address));
  } catch {
    return 0n;
  }
}

/**
 * Sum of a stored block's signature difficulties (`getTotalSignerDifficulty`): getBlock's "Total
 * Signer Difficulty" and, for the tip, status's "Block Total Signer Difficulty" (one answer).
 */
export function totalSignerDifficultyOf(chain: Chain, b: Block): bigint {
  return b.signatures.reduce((s, sig) => s + signatureDifficultyOf(chain, sig), 0n);
}

/**
 * One entry of "Signatures" as the reference's Newtonsoft writes a BlockSignature (CORE
 * `Block/BlockSignature.cs`): `blockNum` and `blockHash` are not in a block's signature bytes, so a
 * stored block's entries have 0 and null there; `signature` base64 (null when compacted),
 * `recipientPubKeyOrAddress` an Address object, `powSolution` the solution with its hash (or null).
 */
function signatureJson(chain: Chain, sig: Block['signatures'][number]) {
  let address: Uint8Array | null = null;
  try {
    address = parseBlockSignature(sig).address;
  } catch {
    // an unreadable signer field or solution: shown without the solution's hash
  }
  const lookup = (n: bigint) => chain.getBlock(n)?.checksum ?? null;
  return {
    blockNum: 0,
    blockHash: null,
    signature: sig.signature ? toBase64(sig.signature) : null,
    recipientPubKeyOrAddress: decodedAddress(sig.signer),
    powSolution: sig.powSolution && address ? signerPowSolutionJson(sig.powSolution, address, lookup) : null,
  };
}

export interface BlockDictDeps {
  chain: Chain;
  /** Signatures block `b` needs (consensus `requiredConsensus`). */
  requiredSignatures(b: Block): number;
  /** `Sig Checksum`: what block num + 5 freezes for this block (consensus `signatureChecksum`). */
  signatureChecksum(b: Block, checksum: Uint8Array): Uint8Array | null;
  /** Is the block's row its frozen list (reference-network §5.5: final 5 blocks below the tip)? */
  frozen(b: Block): boolean;
}

/** The reference's `getblock` dictionary: string values only. */
export interface BlockDictionary {
  'Block Number': string;
  Version: string;
  'Block Checksum': string;
  'Last Block Checksum': string;
  'Wallet State Checksum': string;
  /** Blocks v11+ only. */
  'RegName State Checksum'?: string;
  'Sig freeze Checksum': string;
  'PoW field': string;
  Timestamp: string;
  Difficulty: string;
  Hashrate: string;
  'Compacted Sigs': string;
  'Signature count': string;
  'Required Signature count': string;
  'Total Signer Difficulty': string;
  'Required Signer Difficulty': string;
  'Transaction count': string;
  'Transaction amount': string;
  'Total fees': string;
  /** JSON text of the reference's BlockSignature objects (`signatureJson`). */
  Signatures: string;
  /** Once frozen: the frozen list (JSON text, as `Signatures`) and its size. */
  'Frozen Signatures'?: string;
  'Frozen Signature count'?: string;
  'Sig Checksum': string;
  'Signer Bits': string;
  /** JSON text of the text txids. */
  'TX IDs': string;
  'Last Superblock': string;
  'Last Superblock checksum': string;
}

/**
 * A solved block's PoW field as the reference shows it: the number of the block that applied the
 * claim, as 8 little-endian bytes (null while unsolved). The node records the claim's txid.
 */
function powFieldText(chain: Chain, num: bigint): Uint8Array | null {
  const claimId = powFieldOf(chain.store, num);
  if (!claimId) return null;
  const applied = chain.getTransaction(claimId)?.tx.applied ?? 0n;
  return u64le(applied);
}

/** Required signer difficulty of a block from its governing signer bits (consensus rules). */
function requiredSignerDifficultyOf(chain: Chain, b: Block): bigint {
  try {
    const source = chain.getBlock(signerBitsSourceBlock(b.num, chain.superBlockPeriod));
    return requiredSignerDifficulty(b.num, source?.block.signerBits ?? null, false);
  } catch {
    return 0n;
  }
}

/** The dictionary of a stored block. */
export function blockDictionary(deps: BlockDictDeps, b: Block, checksum: Uint8Array): BlockDictionary {
  const { chain } = deps;
  const txs = chain.blockTransactions(b);
  let amount = 0n;
  for (const k of txs) for (const o of k.tx.outputs) amount += o.amount;
  const ids = b.txIds.map(textId);
  const signatures = toJson(b.signatures.map((s) => signatureJson(chain, s)));
  return {
    ...leadingMembers(b, checksum),
    'PoW field': hexOrNullText(powFieldText(chain, b.num)),
    Timestamp: b.timestamp.toString(),
    Difficulty: b.difficulty.toString(),
    Hashrate: hashrateOf(b.difficulty).toString(),
    'Compacted Sigs': b.signatures.some((s) => s.signature === null) ? 'True' : 'False',
    'Signature count': String(b.signatures.length),
    'Required Signature count': String(deps.requiredSignatures(b)),
    'Total Signer Difficulty': formatAmount(totalSignerDifficultyOf(chain, b)),
    'Required Signer Difficulty': formatAmount(requiredSignerDifficultyOf(chain, b)),
    'Transaction count': String(b.txIds.length),
    'Transaction amount': formatAmount(amount),
    'Total fees': formatAmount(b.totalFee),
    Signatures: signatures,
    ...(deps.frozen(b) ? { 'Frozen Signatures': signatures, 'Frozen Signature count': String(b.signatures.length) } : {}),
    'Sig Checksum': hexOrNullText(deps.signatureChecksum(b, checksum)),
    'Signer Bits': toHex(u64le(b.signerBits ?? 0n)),
    'TX IDs': JSON.stringify(ids),
    'Last Superblock': b.superBlock ? b.superBlock.lastSuperBlockNum.toString() : '0',
    'Last Superblock checksum': hexOrNullText(b.superBlock?.lastSuperBlockChecksum),
  };
}

/** The dictionary's first members, in the reference's order: number, version, checksums. */
function leadingMembers(b: Block, checksum: Uint8Array) {
  const regName = b.regNameStateChecksum && b.regNameStateChecksum.length ? { 'RegName State Checksum': toHex(b.regNameStateChecksum) } : {};
  return {
    'Block Number': b.num.toString(),
    Version: String(b.version),
    'Block Checksum': toHex(checksum),
    'Last Block Checksum': hexOrNullText(b.lastBlockChecksum),
    'Wallet State Checksum': hexOrNullText(b.walletStateChecksum),
    ...regName,
    'Sig freeze Checksum': hexOrNullText(b.signatureFreezeChecksum),
  };
}

/** The members a header gives. */
type HeaderKeys =
  | 'Block Number' | 'Version' | 'Block Checksum' | 'Last Block Checksum' | 'Wallet State Checksum' | 'RegName State Checksum'
  | 'Sig freeze Checksum' | 'Timestamp' | 'Difficulty' | 'Hashrate' | 'Transaction count' | 'Total fees' | 'Signer Bits'
  | 'Last Superblock' | 'Last Superblock checksum';

/** What a light node knows of a block: the members its header gives; no signatures, txids or amounts. */
export type HeaderDictionary = Pick<BlockDictionary, HeaderKeys> & { [K in Exclude<keyof BlockDictionary, HeaderKeys>]?: never };

/** The getBlock members of a header a light node holds (src/chain/header-chain.ts). */
export function headerDictionary(b: Block, checksum: Uint8Array, txCount: number): HeaderDictionary {
  return {
    ...leadingMembers(b, checksum),
    Timestamp: b.timestamp.toString(),
    Difficulty: b.difficulty.toString(),
    Hashrate: hashrateOf(b.difficulty).toString(),
    'Transaction count': String(txCount),
    'Total fees': formatAmount(b.totalFee),
    'Signer Bits': toHex(u64le(b.signerBits ?? 0n)),
    'Last Superblock': b.superBlock ? b.superBlock.lastSuperBlockNum.toString() : '0',
    'Last Superblock checksum': hexOrNullText(b.superBlock?.lastSuperBlockChecksum),
  };
}
