/**
 * Blocks of version 10 and later (reference-formats.md §10.3) and their checksum (§10.2):
 * `sha3_512sq` over the header bytes, rows 1–11, no lock prefix.
 *
 * Row 9 (signer bits, superblock data) is present on block 1 and on every superblock
 * (`num % period === 0`, the network's superblock period: 1000 on the reference networks, a
 * devnet's genesis may shorten it); row 11 (regNameStateChecksum, totalFee) from version 11.
 * Decoding needs the period (the reference reads row 9 by `blockNum % superblockInterval`);
 * encoding writes the superblock rows of a block that has them.
 */
import { sha3_512sq } from '../core/hash.js';
import { concatBytes } from '../formats/bytes.js';
import { decodeAmount, encodeAmount } from '../formats/amount.js';
import { merkleRoot } from '../formats/merkle.js';
import {
  decodeVarBytes,
  decodeVarUint,
  decodeVarUintNumber,
  encodeVarBytes,
  encodeVarUint,
} from '../formats/varint.js';
import { MAX_TRANSACTIONS_PER_BLOCK, SUPERBLOCK_INTERVAL as SUPERBLOCK_INTERVAL_BLOCKS } from '../formats/constants.js';
import { StoreCorruptionError } from './errors.js';

/** Every 1000th block is a superblock on the reference networks (reference-formats.md §14; the constant lives in formats). */
export const SUPERBLOCK_INTERVAL = BigInt(SUPERBLOCK_INTERVAL_BLOCKS);
/** Longest checksum a header field may carry (§10.3 row 3). */
const MAX_CHECKSUM_LENGTH = 64;
/** Bound on any other length-prefixed field of a stored block (a signer key, a signature). */
const MAX_FIELD_LENGTH = 4096;

export interface BlockSignature {
  /** Signer `addressNoChecksum` (or full public key). */
  signer: Uint8Array;
  /** SignerPowSolution bytes (§12); null when the signer presents none. */
  powSolution: Uint8Array | null;
  /** RSA signature; null in compacted blocks. */
  signature: Uint8Array | null;
}

export interface SuperBlockData {
  lastSuperBlockNum: bigint;
  lastSuperBlockChecksum: Uint8Array | null;
  /** Checksums of the blocks since the last superblock, ascending. */
  segments: Uint8Array[];
}

export interface Block {
  version: number;
  num: bigint;
  lastBlockChecksum: Uint8Array | null;
  signatureFreezeChecksum: Uint8Array | null;
  /** Root over the binary txids (row 6). */
  pitRoot: Uint8Array | null;
  timestamp: bigint;
  /** Argon2 mining difficulty (row 8). */
  difficulty: bigint;
  /** Row 9: block 1 and superblocks. */
  signerBits?: bigint;
  superBlock?: SuperBlockData;
  walletStateChecksum: Uint8Array | null;
  /** Row 11, version ≥ 11. */
  regNameStateChecksum: Uint8Array | null;
  totalFee: bigint;
  signatures: BlockSignature[];
  txIds: Uint8Array[];
}

/** Is block `num` a superblock of a network whose period is `period`? */
export const isSuperBlock = (num: bigint, period: bigint = SUPERBLOCK_INTERVAL): boolean => num > 1n && num % period === 0n;

/** 8-byte little-endian u64 (signer bits, §10.3 row 9). */
export function u64le(value: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, value, true);
  return out;
}

/** Rows 1–11: the bytes the block checksum covers. */
export function encodeBlockHeader(b: Block): Uint8Array {
  const parts: Uint8Array[] = [
    encodeVarUint(b.version),
    encodeVarUint(b.num),
    encodeVarBytes(b.lastBlockChecksum),
    encodeVarBytes(b.signatureFreezeChecksum),
    encodeVarUint(b.txIds.length),
    encodeVarBytes(b.pitRoot),
    encodeVarUint(b.timestamp),
    encodeVarUint(b.difficulty),
  ];
  if (b.num === 1n || b.superBlock) parts.push(u64le(b.signerBits ?? 0n));
  if (b.superBlock) {
    const sb = b.superBlock;
    parts.push(encodeVarUint(sb.lastSuperBlockNum), encodeVarBytes(sb.lastSuperBlockChecksum));
    parts.push(encodeVarUint(sb.segments.length), ...sb.segments.map(encodeVarBytes));
  }
  parts.push(encodeVarBytes(b.walletStateChecksum));
  if (b.version >= 11) parts.push(encodeVarBytes(b.regNameStateChecksum), encodeAmount(b.totalFee));
  return concatBytes(...parts);
}

function encodeSignature(s: BlockSignature): Uint8Array {
  const entry = concatBytes(encodeVarBytes(s.signer), encodeVarBytes(s.powSolution), encodeVarBytes(s.signature));
  return encodeVarBytes(entry);
}

/** The whole block: header, signatures (row 12), txids (row 13). */
export function encodeBlock(b: Block): { bytes: Uint8Array; headerLength: number } {
  const header = encodeBlockHeader(b);
  const bytes = concatBytes(
    header,
    encodeVarUint(b.signatures.length),
    ...b.signatures.map(encodeSignature),
    ...b.txIds.map(encodeVarBytes),
  );
  return { bytes, headerLength: header.length };
}

/** `sha3_512sq(header)` (§10.2). */
export function blockChecksum(header: Uint8Array): Uint8Array {
  return sha3_512sq(header);
}

/** Block bytes that do not decode: the field and the byte offset where the problem is. */
export class BlockCodecError extends RangeError {
  override name = 'BlockCodecError';
  constructor(
    readonly offset: number,
    readonly field: string,
    problem: string,
  ) {
    super(`invalid block: ${problem} in ${field} at byte ${offset}`);
  }
}

/** Reader over block bytes; every failure names the field and the byte offset. */
class Reader {
  offset = 0;
  field = 'header';
  constructor(private readonly bytes: Uint8Array, private readonly base = 0) {}
  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof BlockCodecError) throw err;
      throw new BlockCodecError(this.base + this.offset, this.field, (err as Error).message);
    }
  }
  uint(): bigint {
    return this.guard(() => {
      const d = decodeVarUint(this.bytes, this.offset);
      this.offset = d.next;
      return d.value;
    });
  }
  count(max: number): number {
    return this.guard(() => {
      const d = decodeVarUintNumber(this.bytes, this.offset, max);
      this.offset = d.next;
      return d.value;
    });
  }
  varBytes(max: number): Uint8Array | null {
    return this.guard(() => {
      const d = decodeVarBytes(this.bytes, this.offset, max);
      this.offset = d.next;
      return d.value;
    });
  }
  fixed(n: number): Uint8Array {
    if (this.offset + n > this.bytes.length) throw new BlockCodecError(this.base + this.offset, this.field, `truncated: ${n} bytes expected`);
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
  amount(): bigint {
    return this.guard(() => {
      const d = decodeAmount(this.bytes, this.offset);
      this.offset = d.next;
      return d.value;
    });
  }
  fail(problem: string): never {
    throw new BlockCodecError(this.base + this.offset, this.field, problem);
  }
}

/** Rows 1–11 (the checksummed header) from `r`, and the txid count row 5 announces. */
function readHeader(r: Reader, maxTxCount: number, period: bigint): { block: Block; txCount: number } {
  const version = Number(r.uint());
  const num = r.uint();
  const lastBlockChecksum = r.varBytes(MAX_CHECKSUM_LENGTH);
  const signatureFreezeChecksum = r.varBytes(MAX_CHECKSUM_LENGTH);
  const txCount = r.count(maxTxCount);
  const pitRoot = r.varBytes(MAX_CHECKSUM_LENGTH);
  const timestamp = r.uint();
  const difficulty = r.uint();
  const block: Block = {
    version, num, lastBlockChecksum, signatureFreezeChecksum, pitRoot, timestamp, difficulty,
    walletStateChecksum: null, regNameStateChecksum: null, totalFee: 0n, signatures: [], txIds: [],
  };
  if (num === 1n || isSuperBlock(num, period)) {
    // A view with its own offset: `bytes` may be a Buffer over a shared pool, where `.slice()` is a view too.
    const bits = r.fixed(8);
    block.signerBits = new DataView(bits.buffer, bits.byteOffset, 8).getBigUint64(0, true);
  }
  if (isSuperBlock(num, period)) {
    const lastSuperBlockNum = r.uint();
    const lastSuperBlockChecksum = r.varBytes(MAX_CHECKSUM_LENGTH);
    const n = r.count(Number(period));
    const segments: Uint8Array[] = [];
    for (let i = 0; i < n; i++) segments.push(r.varBytes(MAX_CHECKSUM_LENGTH) ?? new Uint8Array(0));
    block.superBlock = { lastSuperBlockNum, lastSuperBlockChecksum, segments };
  }
  r.field = 'walletStateChecksum';
  block.walletStateChecksum = r.varBytes(MAX_CHECKSUM_LENGTH);
  if (version >= 11) {
    r.field = 'regNameStateChecksum';
    block.regNameStateChecksum = r.varBytes(MAX_CHECKSUM_LENGTH);
    r.field = 'totalFee';
    block.totalFee = r.amount();
  }
  return { block, txCount };
}

/**
 * Decodes a block header alone (rows 1–11, the bytes the checksum covers), as light nodes hold
 * it (reference-network §1: relays and clients follow headers only). `txIds` and `signatures`
 * are empty; `txCount` is what row 5 announces.
 * @throws BlockCodecError naming the field and the byte offset.
 */
export function decodeBlockHeader(bytes: Uint8Array, period: bigint = SUPERBLOCK_INTERVAL): { block: Block; txCount: number } {
  const r = new Reader(bytes);
  const header = readHeader(r, MAX_TRANSACTIONS_PER_BLOCK, period);
  r.field = 'end';
  if (r.offset !== bytes.length) r.fail(`${bytes.length - r.offset} trailing bytes`);
  return header;
}

/**
 * The header of a stored block (rows 1–11) without decoding its transaction ids and signatures:
 * what reads of a block's version, difficulty or checksum need (a block lists up to ~300,000 ids).
 * @throws StoreCorruptionError when the stored header cannot be read.
 */
export function decodeStoredHeader(bytes: Uint8Array, period: bigint = SUPERBLOCK_INTERVAL): { block: Block; headerLength: number } {
  try {
    const r = new Reader(bytes);
    const { block } = readHeader(r, MAX_TRANSACTIONS_PER_BLOCK, period);
    return { block, headerLength: r.offset };
  } catch (err) {
    throw new StoreCorruptionError(`stored block header cannot be decoded: ${(err as Error).message}`);
  }
}

/**
 * Row 3 of stored block bytes, the checksum of the block below it, read without the rest of the
 * header: what a check of that block against its successor needs (chain.ts `servedBlock`).
 * @throws StoreCorruptionError when the bytes do not reach it.
 */
export function storedParentChecksum(bytes: Uint8Array): Uint8Array | null {
  try {
    const r = new Reader(bytes);
    r.uint();
    r.uint();
    // A copy: `bytes` may be LMDB's read buffer, reused by the next read.
    return r.varBytes(MAX_CHECKSUM_LENGTH)?.slice() ?? null;
  } catch (err) {
    throw new StoreCorruptionError(`stored block header cannot be decoded: ${(err as Error).message}`);
  }
}

/**
 * Decodes block bytes received from a peer (or any untrusted source).
 * @param period the network's superblock period (row 9 is read on its multiples).
 * @throws BlockCodecError naming the field and the byte offset.
 */
export function decodeBlockWire(bytes: Uint8Array, period: bigint = SUPERBLOCK_INTERVAL): { block: Block; headerLength: number } {
  {
    const r = new Reader(bytes);
    const { block, txCount } = readHeader(r, bytes.length, period);
    const headerLength = r.offset;
    r.field = 'signatures';
    const sigCount = r.count(bytes.length);
    for (let i = 0; i < sigCount; i++) {
      r.field = `signatures[${i}]`;
      const at = r.offset;
      const entry = r.varBytes(MAX_FIELD_LENGTH * 3);
      if (!entry) r.fail('empty signature entry');
      const e = new Reader(entry!, at + (r.offset - at - entry!.length));
      e.field = `signatures[${i}]`;
      block.signatures.push({
        signer: e.varBytes(MAX_FIELD_LENGTH) ?? new Uint8Array(0),
        powSolution: e.varBytes(MAX_FIELD_LENGTH),
        signature: e.varBytes(MAX_FIELD_LENGTH),
      });
      if (e.offset !== entry!.length) e.fail(`${entry!.length - e.offset} trailing bytes`);
    }
    for (let i = 0; i < txCount; i++) {
      r.field = `txIds[${i}]`;
      const id = r.varBytes(MAX_CHECKSUM_LENGTH + 18);
      if (!id) r.fail('empty txid');
      block.txIds.push(id!);
    }
    r.field = 'end';
    if (r.offset !== bytes.length) r.fail(`${bytes.length - r.offset} trailing bytes`);
    return { block, headerLength };
  }
}

/**
 * Decodes block bytes from the node's own store.
 * @throws StoreCorruptionError naming the problem (our own bytes that do not decode are corruption).
 */
export function decodeBlock(bytes: Uint8Array, period: bigint = SUPERBLOCK_INTERVAL): { block: Block; headerLength: number } {
  try {
    return decodeBlockWire(bytes, period);
  } catch (err) {
    throw new StoreCorruptionError(`stored block cannot be decoded: ${(err as Error).message}`);
  }
}

/**
 * Root over the binary txids (row 6): the merkle root (`sha3_512sq` pairs, odd node paired with
 * itself) of `sha3_512sq(txid)`; null for a block without transactions. The reference's prefix
 * inclusion tree is not specified byte for byte (reference-formats.md §10.3 only names it); this
 * root commits to the same ids in the same order.
 */
export function txIdRoot(txIds: readonly Uint8Array[]): Uint8Array | null {
  return merkleRoot(txIds.map((id) => sha3_512sq(id)));
}
