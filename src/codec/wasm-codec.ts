/**
 * The JS side of the codec WASM program (assembly/codec): one instance per thread, typed-array
 * views built once (memory never grows after start), "copy in → call → read the field table".
 * The window addresses, table layout and result codes are read from the program's exports.
 */
import { instantiate, wasmModule } from '../core/wasm.js';
import { amountFromBytes } from '../formats/amount.js';
import { CodecError, type CodecErrorCode } from './errors.js';
import type { DecodedTransaction } from './transaction.js';
import type { TxInput, TxOutput } from './types.js';

/** The program's exports (typed structurally: the project's TS lib set has no `WebAssembly` declarations). */
interface CodecExports {
  memory: { readonly buffer: ArrayBuffer };
  setLockLength(len: number): void;
  decode(len: number): number;
  decodeBatch(count: number): number;
  canonicalize(len: number, withApplied: number): number;
  [global: string]: unknown;
}

/** Field labels of errors, by the FIELD_* export name (rows of reference-formats §8.4). */
const FIELD_LABELS: Record<string, (i: number) => string> = {
  VERSION: () => 'version',
  TYPE: () => 'type',
  BLOCK_HEIGHT: () => 'blockHeight',
  INPUT_COUNT: () => 'fromList count',
  INPUT_KEY: (i) => `fromList[${i}].key`,
  INPUT_AMOUNT: (i) => `fromList[${i}].amount`,
  INPUT_RESERVED: (i) => `fromList[${i}] reserved varints`,
  OUTPUT_COUNT: () => 'toList count',
  OUTPUT_ADDRESS: (i) => `toList[${i}].address`,
  OUTPUT_AMOUNT: (i) => `toList[${i}].amount`,
  OUTPUT_DATA_CHECKSUM: (i) => `toList[${i}].dataChecksum`,
  OUTPUT_DATA: (i) => `toList[${i}].data`,
  NONCE: () => 'nonce',
  PUBKEY: () => 'pubKey',
  SIGNATURE: () => 'signature',
  APPLIED: () => 'applied',
  TIMESTAMP: () => 'timestamp',
  END: () => 'end of transaction',
};

export class WasmCodec {
  private readonly x: CodecExports;
  private readonly u8: Uint8Array;
  private readonly u32: Uint32Array;
  private readonly i64: BigInt64Array;
  private readonly u64: BigUint64Array;
  // window addresses
  private readonly input: number;
  private readonly lengths: number;
  private readonly records: number;
  private readonly checksums: number;
  private readonly table: number;
  private readonly preimage: number;
  private readonly canonical: number;
  private readonly maxLock: number;
  readonly inputCapacity: number;
  readonly maxBatch: number;
  readonly checksumSize: number;
  // table layout, in u32 words
  private readonly L: Record<string, number> = {};
  private readonly errorNames = new Map<number, CodecErrorCode>();
  private readonly fieldNames = new Map<number, string>();
  private lock: Uint8Array = new Uint8Array(0);

  constructor(instance: ReturnType<typeof instantiate> = instantiate(wasmModule('codec'))) {
    this.x = instance.exports as unknown as CodecExports;
    const g = (name: string): number => {
      const v = globalValue(this.x[name]);
      if (v === undefined) throw new Error(`codec WASM lacks the export ${name}: rebuild it (npm run build:wasm)`);
      return v;
    };
    for (const name of Object.keys(this.x)) {
      const v = globalValue(this.x[name]);
      if (v === undefined) continue;
      if (name.startsWith('ERR_')) this.errorNames.set(v, name.slice(4) as CodecErrorCode);
      else if (name.startsWith('FIELD_')) this.fieldNames.set(v, name.slice(6));
      else if (/^[HIO]_|_WORDS$/.test(name)) this.L[name] = v;
    }
    this.input = g('INPUT');
    this.lengths = g('LENGTHS');
    this.records = g('RECORDS');
    this.checksums = g('CHECKSUMS');
    this.table = g('TABLE');
    this.preimage = g('PREIMAGE');
    this.canonical = g('CANONICAL');
    this.maxLock = g('MAX_LOCK_SIZE');
    this.inputCapacity = g('MAX_TX_SIZE');
    this.maxBatch = g('MAX_BATCH');
    this.checksumSize = g('CHECKSUM_SIZE');
    const { buffer } = this.x.memory;
    this.u8 = new Uint8Array(buffer);
    this.u32 = new Uint32Array(buffer);
    this.i64 = new BigInt64Array(buffer);
    this.u64 = new BigUint64Array(buffer);
  }

  /** Sets the checksum lock (§8.5) unless it is already the current one. */
  setLock(lock: Uint8Array): void {
    if (lock === this.lock) return;
    if (lock.length > this.maxLock) {
      throw new RangeError(`checksum lock must have at most ${this.maxLock} bytes, got ${lock.length}`);
    }
    this.u8.set(lock, this.preimage);
    this.x.setLockLength(lock.length);
    this.lock = lock;
  }

  /**
   * Decodes and checksums one v7-layout transaction (at most inputCapacity bytes). Its byte fields
   * are views of a copy of `bytes`, or of `bytes` itself when `owned` (the caller gives it up).
   */
  decodeOne(bytes: Uint8Array, owned = false): DecodedTransaction {
    this.u8.set(bytes, this.input);
    this.x.decode(bytes.length);
    return this.readRecord(this.table, bytes, 0, owned);
  }

  /** Decodes `list[i]` for each i of `indices` (total ≤ inputCapacity, count ≤ maxBatch) into `results[i]`. */
  decodeMany(list: readonly Uint8Array[], indices: readonly number[], results: Array<DecodedTransaction | CodecError>): void {
    let at = this.input;
    const lengthsWord = this.lengths >>> 2;
    for (let k = 0; k < indices.length; k++) {
      const bytes = list[indices[k]!]!;
      this.u8.set(bytes, at);
      at += bytes.length;
      this.u32[lengthsWord + k] = bytes.length;
    }
    const valid = this.x.decodeBatch(indices.length);
    if (valid < 0) throw new Error(`internal: codec batch refused (${indices.length} items, ${at - this.input} bytes)`);
    const recordsWord = this.records >>> 2;
    for (let k = 0; k < indices.length; k++) {
      const i = indices[k]!;
      const record = this.table + this.u32[recordsWord + k]!;
      try {
        results[i] = this.readRecord(record, list[i]!, k);
      } catch (e) {
        if (!(e instanceof CodecError)) throw e;
        results[i] = e;
      }
    }
  }

  /**
   * The canonical full form of a v7-layout transaction: `same` itself when it holds exactly those
   * bytes (no second copy of an input that was canonical already), else a copy.
   */
  canonicalize(bytes: Uint8Array, withApplied: boolean, same?: Uint8Array): Uint8Array {
    this.u8.set(bytes, this.input);
    const n = this.x.canonicalize(bytes.length, withApplied ? 1 : 0);
    if (n < 0) throw this.errorOf(this.table >>> 2);
    const out = this.u8.subarray(this.canonical, this.canonical + n);
    return same && Buffer.compare(out, same) === 0 ? same : out.slice();
  }

  private errorOf(w: number): CodecError {
    const { L, u32 } = this;
    const code = this.errorNames.get(u32[w + L.H_STATUS!]!) ?? 'BAD_BATCH';
    const field = this.fieldNames.get(u32[w + L.H_ERROR_FIELD!]!);
    const label = field ? FIELD_LABELS[field]?.(u32[w + L.H_ERROR_INDEX!]!) ?? field : '';
    return new CodecError(code, u32[w + L.H_ERROR_OFFSET!]!, '', label);
  }

  /**
   * Builds the transaction of the record at byte address `record`. Its byte fields are views of
   * one copy of `src` (one allocation per transaction, not one per field: under a push of thousands
   * of transactions a second, each separate small buffer was garbage-collector work).
   */
  private readRecord(record: number, given: Uint8Array, slot: number, owned = false): DecodedTransaction {
    const { L, u32, i64, u64 } = this;
    const w = record >>> 2;
    if (u32[w + L.H_STATUS!] !== 0) throw this.errorOf(w);
    // A copy even of a Buffer, whose `slice` is a view (of a frame the peer link received, say).
    const src = owned ? given : new Uint8Array(given);
    const bytesAt = (offset: number, length: number): Uint8Array | null =>
      length === 0 ? null : src.subarray(offset, offset + length);
    const amountAt = (e: number, fits: number, value: number, offset: number, length: number): bigint =>
      u32[e + fits] ? i64[(e + value) >>> 1]! : amountFromBytes(src.subarray(u32[e + offset]!, u32[e + offset]! + u32[e + length]!));

    const inputs: TxInput[] = new Array(u32[w + L.H_INPUT_COUNT!]!);
    let e = w + L.HEADER_WORDS!;
    for (let i = 0; i < inputs.length; i++, e += L.INPUT_WORDS!) {
      const keyOffset = u32[e + L.I_KEY_OFFSET!]!;
      inputs[i] = {
        key: src.subarray(keyOffset, keyOffset + u32[e + L.I_KEY_LENGTH!]!),
        amount: amountAt(e, L.I_AMOUNT_FITS!, L.I_AMOUNT_VALUE!, L.I_AMOUNT_OFFSET!, L.I_AMOUNT_LENGTH!),
      };
    }
    const outputs: TxOutput[] = new Array(u32[w + L.H_OUTPUT_COUNT!]!);
    for (let i = 0; i < outputs.length; i++, e += L.OUTPUT_WORDS!) {
      const addressOffset = u32[e + L.O_ADDRESS_OFFSET!]!;
      const output: TxOutput = {
        address: src.subarray(addressOffset, addressOffset + u32[e + L.O_ADDRESS_LENGTH!]!),
        amount: amountAt(e, L.O_AMOUNT_FITS!, L.O_AMOUNT_VALUE!, L.O_AMOUNT_OFFSET!, L.O_AMOUNT_LENGTH!),
      };
      const data = bytesAt(u32[e + L.O_DATA_OFFSET!]!, u32[e + L.O_DATA_LENGTH!]!);
      if (data) output.data = data;
      const dataChecksum = bytesAt(u32[e + L.O_DATA_CHECKSUM_OFFSET!]!, u32[e + L.O_DATA_CHECKSUM_LENGTH!]!);
      if (dataChecksum) output.dataChecksum = dataChecksum;
      outputs[i] = output;
    }
    const checksumAt = this.checksums + slot * this.checksumSize;
    return {
      version: u32[w + L.H_VERSION!]!,
      type: u32[w + L.H_TYPE!]! | 0,
      blockHeight: u64[(w + L.H_BLOCK_HEIGHT!) >>> 1]!,
      inputs,
      outputs,
      nonce: u32[w + L.H_NONCE!]! | 0,
      pubKey: bytesAt(u32[w + L.H_PUBKEY_OFFSET!]!, u32[w + L.H_PUBKEY_LENGTH!]!),
      signature: bytesAt(u32[w + L.H_SIGNATURE_OFFSET!]!, u32[w + L.H_SIGNATURE_LENGTH!]!),
      applied: u64[(w + L.H_APPLIED!) >>> 1]!,
      timestamp: u32[w + L.H_HAS_TIMESTAMP!] ? i64[(w + L.H_TIMESTAMP!) >>> 1]! : 0n,
      checksum: this.u8.slice(checksumAt, checksumAt + this.checksumSize),
    };
  }
}

/** The value of an exported i32 global, or undefined for other exports. */
function globalValue(x: unknown): number | undefined {
  if (typeof x !== 'object' || x === null || !('value' in x)) return undefined;
  const v = (x as { value: unknown }).value;
  return typeof v === 'number' ? v : undefined;
}

let shared: WasmCodec | undefined;

/** The codec instance of this thread (created on first use). */
export function wasmCodec(): WasmCodec {
  return (shared ??= new WasmCodec());
}
