/**
 * The v7 transaction codec (reference-formats.md §8.4–§8.7): decoding and checksumming in
 * WebAssembly (assembly/codec), canonical encoding, transaction ids, derived amounts.
 *
 * Decoding returns a {@link DecodedTransaction}: the shared {@link Transaction} plus the 44-byte
 * `checksum` computed from the canonical re-encoding (§1 "Canonical re-encoding"), so callers
 * never hash twice. Legacy layouts (versions 0–6, §8.12) are read by src/codec/legacy.ts.
 */
import { assertBytes, describeType, latin1Key } from '../formats/bytes.js';
import { amountToBytes } from '../formats/amount.js';
import { varBytesLength, varIntLength, varUintLength, writeVarBytes, writeVarInt, writeVarUint, decodeVarUint, U64_MAX } from '../formats/varint.js';
import { decodeBase58, encodeBase58 } from '../formats/address.js';
import { FormatError } from '../formats/errors.js';
import type { Network, Transaction, TxInput, TxOutput } from './types.js';
import { checksumLockBytes, MAX_TRANSACTION_SIZE, TransactionType } from '../formats/constants.js';
import { CodecError } from './errors.js';
import { wasmCodec, type WasmCodec } from './wasm-codec.js';
import { decodeLegacyTransaction } from './legacy.js';

export { CodecError, type CodecErrorCode } from './errors.js';

/** Length of a v7 (and v3–v6) transaction checksum (§8.5). */
export const CHECKSUM_LENGTH = 44;

/** A network, whose lock is used (§8.5), or the UTF-8 bytes of a custom lock (`--checksumLock`). */
export type ChecksumLock = Network | Uint8Array;

const NETWORK_LOCKS: Readonly<Record<Network, Uint8Array>> = {
  main: checksumLockBytes('main'),
  test: checksumLockBytes('test'),
  reg: checksumLockBytes('reg'),
};

/** The lock bytes of a network or custom lock. */
function lockBytes(lock: ChecksumLock): Uint8Array {
  if (lock instanceof Uint8Array) return lock;
  if (typeof lock !== 'string') throw new TypeError(`network must be "main", "test", "reg" or lock bytes, got ${describeType(lock)}`);
  const bytes = NETWORK_LOCKS[lock];
  if (bytes === undefined) throw new RangeError(`unknown network ${JSON.stringify(lock)}, expected main, test or reg`);
  return bytes;
}

/** A decoded transaction with its checksum (§8.5), computed once while decoding. */
export interface DecodedTransaction extends Transaction {
  /** sha3_512sqTrunc(lock ‖ checksummed rows, 44) for v7; the legacy hash for older versions. */
  checksum: Uint8Array;
}

export interface DecodeOptions {
  /**
   * Read the bytes with the v7 layout whatever the first byte says (the reference's "force v7
   * structure" of `decoderawtransaction`, §8.4 "RPC hex forms"). Default false: versions 0–6
   * are read with their legacy layouts (§8.12).
   */
  forceV7?: boolean;
  /** Keep the wire's `applied` value (default true); false reports 0, as the RPC decoders do. */
  applied?: boolean;
}

/** The first byte of a v7-layout transaction is at least 7 (§8.4, generic parser). */
const FIRST_V7_VERSION = 7;
/** Staking ids name the rewarded block: this many blocks below the transaction's height (§8.7). */
const STAKING_REWARD_DELAY = 5n;
const I32_MIN = -(2 ** 31);
const I32_MAX = 2 ** 31 - 1;

function checkBytes(bytes: unknown): asserts bytes is Uint8Array {
  assertBytes(bytes, 'transaction bytes');
  if (bytes.length > MAX_TRANSACTION_SIZE) {
    throw new CodecError('OVERSIZED', 0, `${bytes.length} bytes`);
  }
}

/**
 * Decodes a serialized transaction and computes its checksum for `network`.
 * @throws TypeError when `bytes` is not a Uint8Array; CodecError (code, offset, field) when the
 *   bytes are not a valid transaction.
 * @example decodeTransaction(fromHex(raw), 'test').checksum // 44 bytes
 */
export function decodeTransaction(
  bytes: Uint8Array,
  network: ChecksumLock,
  options: DecodeOptions = {},
): DecodedTransaction {
  checkBytes(bytes);
  const lock = lockBytes(network);
  let tx: DecodedTransaction;
  if (!options.forceV7 && bytes.length > 0 && bytes[0]! < FIRST_V7_VERSION) tx = decodeLegacyTransaction(bytes);
  else {
    const codec = wasmCodec();
    codec.setLock(lock);
    tx = codec.decodeOne(bytes);
  }
  if (options.applied === false) tx.applied = 0n;
  return tx;
}

/**
 * `decodeTransaction(bytes, network, { forceV7: true, applied: false })` and
 * `canonicalTransactionBytes(bytes)` in one call, holding one copy of `bytes`: the decoded fields
 * are views of it, and it is the canonical form too when `bytes` was canonical already (as what a
 * peer or a wallet sends is). The node's hot path: every transaction a peer pushes comes this way.
 * @throws as `decodeTransaction` and `canonicalTransactionBytes`.
 */
export function decodeWithCanonical(bytes: Uint8Array, network: ChecksumLock): { tx: DecodedTransaction; canonical: Uint8Array } {
  checkBytes(bytes);
  const codec = wasmCodec();
  codec.setLock(lockBytes(network));
  const own = new Uint8Array(bytes); // a copy also of a Buffer (whose `slice` is a view)
  const tx = codec.decodeOne(own, true);
  tx.applied = 0n;
  return { tx, canonical: codec.canonicalize(own, false, own) };
}

/**
 * Decodes many transactions in few WASM calls (batches of up to 512,000 bytes / 4096 items). One bad
 * item never fails the batch: its slot holds the CodecError.
 * @throws TypeError when `list` is not an array of Uint8Array.
 */
export function decodeTransactionBatch(
  list: readonly Uint8Array[],
  network: ChecksumLock,
): Array<DecodedTransaction | CodecError> {
  if (!Array.isArray(list)) throw new TypeError(`list must be an array of Uint8Array, got ${describeType(list)}`);
  list.forEach((b, i) => assertBytes(b, `list[${i}]`));
  const lock = lockBytes(network);
  const codec = wasmCodec();
  codec.setLock(lock);
  const results = new Array<DecodedTransaction | CodecError>(list.length);
  const pending: number[] = [];
  const flush = (): void => {
    if (pending.length > 0) codec.decodeMany(list, pending, results);
    pending.length = 0;
  };
  let pendingBytes = 0;
  for (let i = 0; i < list.length; i++) {
    const bytes = list[i]!;
    if (bytes.length > MAX_TRANSACTION_SIZE) {
      results[i] = new CodecError('OVERSIZED', 0, `${bytes.length} bytes`);
      continue;
    }
    if (bytes.length > 0 && bytes[0]! < FIRST_V7_VERSION) {
      try {
        results[i] = decodeLegacyTransaction(bytes);
      } catch (e) {
        if (!(e instanceof CodecError)) throw e;
        results[i] = e;
      }
      continue;
    }
    if (pendingBytes + bytes.length > codec.inputCapacity || pending.length === codec.maxBatch) {
      flush();
      pendingBytes = 0;
    }
    pending.push(i);
    pendingBytes += bytes.length;
  }
  flush();
  return results;
}

// ---- encoding (§8.4) ----

export interface EncodeOptions {
  /** Write the transaction's `applied` height (default false: 0, as the reference writer does). */
  applied?: boolean;
}

/** Everything the encoder computes once per transaction before writing. */
interface Plan {
  tx: Transaction;
  inputAmounts: Uint8Array[];
  outputAmounts: Uint8Array[];
  size: number;
}

const lengthPrefixed = (n: number): number => varUintLength(n) + n;

function checkInteger(value: unknown, what: string, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TypeError(`${what} must be an integer number, got ${describeType(value)}`);
  }
  if (value < min || value > max) throw new RangeError(`${what} must be in [${min}, ${max}], got ${value}`);
}

function checkU64(value: unknown, what: string): void {
  if (typeof value !== 'bigint') throw new TypeError(`${what} must be a bigint, got ${describeType(value)}`);
  if (value < 0n || value > U64_MAX) throw new RangeError(`${what} must be in [0, 2^64−1], got ${value}`);
}

function checkOptionalBytes(value: unknown, what: string): void {
  if (value !== null && value !== undefined) assertBytes(value, what);
}

/** Validates what the decoder would refuse, so encode never produces unreadable bytes. */
function plan(tx: Transaction, options: EncodeOptions): Plan {
  if (typeof tx !== 'object' || tx === null) throw new TypeError(`transaction must be an object, got ${describeType(tx)}`);
  checkInteger(tx.version, 'version', 0, I32_MAX);
  checkInteger(tx.type, 'type', I32_MIN, I32_MAX);
  checkInteger(tx.nonce, 'nonce', I32_MIN, I32_MAX);
  checkU64(tx.blockHeight, 'blockHeight');
  if (options.applied) checkU64(tx.applied, 'applied');
  if (!Array.isArray(tx.inputs)) throw new TypeError(`inputs must be an array, got ${describeType(tx.inputs)}`);
  if (!Array.isArray(tx.outputs)) throw new TypeError(`outputs must be an array, got ${describeType(tx.outputs)}`);
  checkOptionalBytes(tx.pubKey, 'pubKey');
  checkOptionalBytes(tx.signature, 'signature');
  const hasTimestamp = tx.version < FIRST_V7_VERSION;
  if (hasTimestamp && typeof tx.timestamp !== 'bigint') {
    throw new TypeError(`timestamp must be a bigint, got ${describeType(tx.timestamp)}`);
  }

  let size = varUintLength(tx.version) + varIntLength(tx.type) + varUintLength(tx.blockHeight);
  const seenKeys = new Set<string>();
  const inputAmounts = tx.inputs.map((input: TxInput, i) => {
    assertBytes(input?.key, `inputs[${i}].key`);
    const { key } = input;
    if (!(key.length === 16 || (key.length === 1 && key[0] === 0))) {
      throw new RangeError(`inputs[${i}].key must be [0x00] or a 16-byte address nonce, got ${key.length} bytes`);
    }
    const k = latin1Key(key);
    if (seenKeys.has(k)) throw new RangeError(`inputs[${i}].key repeats an earlier key (fromList keys are unique, §8.3)`);
    seenKeys.add(k);
    const amount = amountToBytes(input.amount);
    size += lengthPrefixed(key.length) + lengthPrefixed(amount.length) + 2; // + the two reserved 00
    return amount;
  });
  size += varUintLength(tx.inputs.length) + varUintLength(tx.outputs.length);
  const seenAddresses = new Set<string>();
  const outputAmounts = tx.outputs.map((output: TxOutput, i) => {
    assertBytes(output?.address, `outputs[${i}].address`);
    const { address } = output;
    const version = address[0];
    if (!((address.length === 33 && version === 0) || (address.length === 45 && (version === 1 || version === 2)))) {
      throw new RangeError(
        `outputs[${i}].address must be an addressNoChecksum (33 bytes v0, 45 bytes v1/v2), got ${address.length} bytes, version ${version}`,
      );
    }
    const k = latin1Key(address);
    if (seenAddresses.has(k)) throw new RangeError(`outputs[${i}].address repeats an earlier address (§8.3)`);
    seenAddresses.add(k);
    checkOptionalBytes(output.data, `outputs[${i}].data`);
    checkOptionalBytes(output.dataChecksum, `outputs[${i}].dataChecksum`);
    const amount = amountToBytes(output.amount);
    size += lengthPrefixed(address.length) + lengthPrefixed(amount.length);
    size += output.data?.length ? 1 : varBytesLength(output.dataChecksum);
    size += varBytesLength(output.data);
    return amount;
  });
  size += varIntLength(tx.nonce) + varBytesLength(tx.pubKey) + varBytesLength(tx.signature);
  size += options.applied ? varUintLength(tx.applied) : 1;
  if (hasTimestamp) size += varIntLength(tx.timestamp);
  return { tx, inputAmounts, outputAmounts, size };
}

function write(p: Plan, options: EncodeOptions): Uint8Array {
  const { tx } = p;
  const out = new Uint8Array(p.size);
  let at = writeVarUint(out, 0, tx.version);
  at = writeVarInt(out, at, tx.type);
  at = writeVarUint(out, at, tx.blockHeight);
  at = writeVarUint(out, at, tx.inputs.length);
  tx.inputs.forEach((input, i) => {
    at = writeVarBytes(out, at, input.key);
    at = writeVarBytes(out, at, p.inputAmounts[i]);
    out[at++] = 0; // reserved 4c
    out[at++] = 0; // reserved 4d
  });
  at = writeVarUint(out, at, tx.outputs.length);
  tx.outputs.forEach((output, i) => {
    at = writeVarBytes(out, at, output.address);
    at = writeVarBytes(out, at, p.outputAmounts[i]);
    // 5c: the stored dataChecksum only when there is no data (§8.4)
    at = writeVarBytes(out, at, output.data?.length ? null : output.dataChecksum);
    at = writeVarBytes(out, at, output.data);
  });
  at = writeVarInt(out, at, tx.nonce);
  at = writeVarBytes(out, at, tx.pubKey);
  at = writeVarBytes(out, at, tx.signature);
  at = writeVarUint(out, at, options.applied ? tx.applied : 0n);
  if (tx.version < FIRST_V7_VERSION) at = writeVarInt(out, at, tx.timestamp);
  if (at !== out.length) throw new Error(`internal: encoder wrote ${at} of ${out.length} bytes`);
  return out;
}

/**
 * The canonical v7 full form (§8.4): minimal varints and amounts, `00` for absent fields,
 * `applied` = 0 unless `options.applied`. Versions below 7 get their timestamp appended (the
 * reference's forced v7 layout).
 * @throws TypeError for wrong field types; RangeError naming the field for values the decoder would
 *   refuse (bad key/address length, duplicates, out-of-range integers); CodecError OVERSIZED.
 */
export function encodeTransaction(tx: Transaction, options: EncodeOptions = {}): Uint8Array {
  const p = plan(tx, options);
  if (p.size > MAX_TRANSACTION_SIZE) throw new CodecError('OVERSIZED', 0, `${p.size} bytes`);
  return write(p, options);
}

/**
 * Size of the full form with the signature the transaction carries and `applied` = 0: what the
 * minimum fee is computed from (§8.9).
 */
export function signedSize(tx: Transaction): number {
  return plan(tx, {}).size;
}

/**
 * The 44-byte checksum (§8.5) of a transaction object for `network`: its canonical form is
 * checksummed by the WASM codec.
 */
export function transactionChecksum(tx: Transaction, network: ChecksumLock): Uint8Array {
  const codec: WasmCodec = wasmCodec();
  codec.setLock(lockBytes(network));
  return codec.decodeOne(encodeTransaction(tx)).checksum;
}

/**
 * The canonical full form of serialized bytes (what `encodeTransaction(decodeTransaction(b))`
 * gives, without building the object), computed in WASM. v7 layout only.
 */
export function canonicalTransactionBytes(bytes: Uint8Array, options: EncodeOptions = {}): Uint8Array {
  checkBytes(bytes);
  return wasmCodec().canonicalize(bytes, options.applied === true);
}

// ---- derived amounts (§8.3) ----

export interface TransactionAmounts {
  /** Σ outputs. */
  amount: bigint;
  /** Σ inputs − Σ outputs. */
  fee: bigint;
  /** Σ inputs. */
  totalAmount: bigint;
}

/** `amount` = Σ outputs, `fee` = Σ inputs − amount, `totalAmount` = Σ inputs (§8.3, §9.2). */
export function transactionAmounts(tx: Pick<Transaction, 'inputs' | 'outputs'>): TransactionAmounts {
  let totalAmount = 0n;
  for (const input of tx.inputs) totalAmount += input.amount;
  let amount = 0n;
  for (const output of tx.outputs) amount += output.amount;
  return { amount, fee: totalAmount - amount, totalAmount };
}

// ---- transaction ids (§8.7) ----

/** What an id is made of. */
export type TransactionIdSource = Pick<Transaction, 'type' | 'blockHeight'> & { checksum?: Uint8Array };

function idChecksum(tx: TransactionIdSource, checksum: Uint8Array | undefined): Uint8Array {
  const c = checksum ?? tx.checksum;
  if (c === undefined) throw new TypeError('the transaction has no checksum: pass one, or decode it first');
  assertBytes(c, 'checksum');
  checkU64(tx.blockHeight, 'blockHeight');
  return c;
}

/**
 * The text id (§8.7): `<blockHeight>-<base58(checksum)>`, or for staking rewards (type 2)
 * `stk-<blockHeight−5>-<blockHeight>-<base58(checksum)>`. The checksum is the transaction's own
 * (a DecodedTransaction) unless given.
 * @example transactionId(decodeTransaction(bytes, 'test')) // "11-284bKK4G…3Dfv4"
 */
export function transactionId(tx: TransactionIdSource, checksum?: Uint8Array): string {
  const c = idChecksum(tx, checksum);
  const tail = `${tx.blockHeight}-${encodeBase58(c)}`;
  if (tx.type !== TransactionType.StakingReward) return tail;
  // the reference subtracts in u64: heights below 5 wrap around
  return `stk-${BigInt.asUintN(64, tx.blockHeight - STAKING_REWARD_DELAY)}-${tail}`;
}

/** The binary id (§8.7): `varint(prefix) ‖ varint(blockHeight) ‖ checksum`, prefix 0 for staking rewards, else 1. */
export function binaryTransactionId(tx: TransactionIdSource, checksum?: Uint8Array): Uint8Array {
  const c = idChecksum(tx, checksum);
  return joinBinaryId(tx.type === TransactionType.StakingReward ? 0 : 1, tx.blockHeight, c);
}

function joinBinaryId(prefix: 0 | 1, blockHeight: bigint, checksum: Uint8Array): Uint8Array {
  const out = new Uint8Array(1 + varUintLength(blockHeight) + checksum.length);
  out[0] = prefix;
  out.set(checksum, writeVarUint(out, 1, blockHeight));
  return out;
}

export interface ParsedTransactionId {
  /** 0 for staking rewards (`stk-` ids), 1 otherwise. */
  prefix: 0 | 1;
  blockHeight: bigint;
  /** The hash part: 44 bytes (v3+), 32 bytes for legacy v0–v2 ids (§8.12). */
  checksum: Uint8Array;
  /** The binary id (§8.7). */
  binary: Uint8Array;
}

const DECIMAL = /^(0|[1-9]\d{0,19})$/;
const LEGACY_HASH_LENGTH = 32;

/**
 * Text id → its parts and binary form (§8.7 "String → binary"): `stk-<a>-<h>-<hash>` uses the
 * third field as the height, anything else `<h>-<hash>`.
 * @throws TypeError for a non-string; RangeError naming what was expected.
 */
export function parseTransactionId(text: string): ParsedTransactionId {
  if (typeof text !== 'string') throw new TypeError(`transaction id must be a string, got ${describeType(text)}`);
  const shown = JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
  const fields = text.split('-');
  const staking = fields[0] === 'stk';
  const expected = staking ? 4 : 2;
  const bad = (why: string): RangeError =>
    new RangeError(`invalid transaction id ${shown}: ${why}; expected "<blockHeight>-<base58 hash>" or "stk-<n>-<blockHeight>-<base58 hash>"`);
  if (fields.length !== expected) throw bad(`${fields.length - 1} dashes`);
  const [heightText, hashText] = fields.slice(-2) as [string, string];
  if (staking && !DECIMAL.test(fields[1]!)) throw bad('the rewarded block is not a decimal number');
  if (!DECIMAL.test(heightText)) throw bad('the block height is not a decimal number');
  const blockHeight = BigInt(heightText);
  if (blockHeight > U64_MAX) throw bad('the block height is larger than 2^64−1');
  let checksum: Uint8Array;
  try {
    checksum = decodeBase58(hashText, 'transaction id hash');
  } catch (e) {
    if (e instanceof FormatError) throw bad(e.message);
    throw e;
  }
  if (checksum.length !== CHECKSUM_LENGTH && checksum.length !== LEGACY_HASH_LENGTH) {
    throw bad(`the hash has ${checksum.length} bytes, not ${CHECKSUM_LENGTH} (or ${LEGACY_HASH_LENGTH} for legacy ids)`);
  }
  const prefix = staking ? 0 : 1;
  return { prefix, blockHeight, checksum, binary: joinBinaryId(prefix, blockHeight, checksum) };
}

/** Binary id → its parts (inverse of {@link binaryTransactionId}). */
export function decodeBinaryTransactionId(binary: Uint8Array): ParsedTransactionId {
  assertBytes(binary, 'binary transaction id');
  const prefix = binary[0];
  if (prefix !== 0 && prefix !== 1) {
    throw new RangeError(`binary transaction id must start with prefix 0 or 1, got ${prefix ?? '(empty)'}`);
  }
  const { value: blockHeight, next } = decodeVarUint(binary, 1);
  const checksum = binary.slice(next);
  if (checksum.length !== CHECKSUM_LENGTH && checksum.length !== LEGACY_HASH_LENGTH) {
    throw new RangeError(`binary transaction id: the hash has ${checksum.length} bytes, expected ${CHECKSUM_LENGTH} or ${LEGACY_HASH_LENGTH}`);
  }
  return { prefix, blockHeight, checksum, binary: binary.slice() };
}
