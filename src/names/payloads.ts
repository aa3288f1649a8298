/**
 * The six name-operation payloads (reference-names.md §4.2, §4.3): the `data` of the first output
 * of a type-4 transaction. `encodeNamePayload`/`decodeNamePayload` are exact inverses; decoding is
 * strict (truncation, trailing bytes, unknown instruction, bad lengths → NameCodecError).
 */
import { ADDRESS_KEY_MAX_LENGTH } from '../formats/address.js';
import { encodeDataRecord, readDataRecord, type DataRecord } from './data-record.js';
import { idSections } from './id.js';
import { MAX_NAME_ID_LENGTH } from './params.js';
import { NameCodecError, NameReader, NameWriter } from './reader.js';

/** Instruction byte (§4.2). */
export const NameOp = {
  Register: 1,
  UpdateRecord: 2,
  Extend: 3,
  ChangeCapacity: 4,
  Recover: 5,
  ToggleAllowSubnames: 6,
} as const;
export type NameOpCode = (typeof NameOp)[keyof typeof NameOp];

/** Longest signature accepted in a payload (a 4096-bit RSA signature is 512 bytes). */
const MAX_SIGNATURE_LENGTH = 1024;

/** Fields every signed operation (2, 4, 5, 6) ends with (§4.4). */
export interface SignedFields {
  /** Must be the stored sequence + 1. */
  sequence: bigint;
  /** Owner after the operation (equal to the current owner unless ownership is transferred). */
  nextPkHash: Uint8Array;
  /** Serialized public key of the signer. */
  sigPk: Uint8Array;
  /** RSA PKCS#1 v1.5 SHA-512 signature over the `forSignature` checksum of the resulting record. */
  sig: Uint8Array;
}

export interface RegisterPayload {
  op: typeof NameOp.Register;
  id: Uint8Array;
  registrationTimeInBlocks: number;
  capacity: number;
  recoveryHash: Uint8Array;
  nextPkHash: Uint8Array;
}
export interface UpdateRecordPayload extends SignedFields {
  op: typeof NameOp.UpdateRecord;
  id: Uint8Array;
  records: DataRecord[];
}
export interface ExtendPayload {
  op: typeof NameOp.Extend;
  id: Uint8Array;
  extensionTimeInBlocks: number;
}
export interface ChangeCapacityPayload extends SignedFields {
  op: typeof NameOp.ChangeCapacity;
  id: Uint8Array;
  newCapacity: number;
}
export interface RecoverPayload extends SignedFields {
  op: typeof NameOp.Recover;
  id: Uint8Array;
  newRecoveryHash: Uint8Array;
}
export interface ToggleAllowSubnamesPayload extends SignedFields {
  op: typeof NameOp.ToggleAllowSubnames;
  id: Uint8Array;
  allowSubnames: boolean;
  subnamePrice: bigint;
  subnameFeeRecipient: Uint8Array;
}

export type NamePayload =
  | RegisterPayload
  | UpdateRecordPayload
  | ExtendPayload
  | ChangeCapacityPayload
  | RecoverPayload
  | ToggleAllowSubnamesPayload;
export type SignedNamePayload = UpdateRecordPayload | ChangeCapacityPayload | RecoverPayload | ToggleAllowSubnamesPayload;

export const isSignedPayload = (p: NamePayload): p is SignedNamePayload =>
  p.op !== NameOp.Register && p.op !== NameOp.Extend;

const writeSigned = (w: NameWriter, p: SignedFields): NameWriter =>
  w.uvarint(p.sequence).bytes(p.nextPkHash).bytes(p.sigPk).bytes(p.sig);

/**
 * The payload bytes. Fields are written as given; zero-length byte fields are refused because the
 * reference misreads them mid-payload (§1.2).
 * @throws RangeError for an empty id, signature or key, or out-of-range integers
 */
export function encodeNamePayload(p: NamePayload): Uint8Array {
  idSections(p.id);
  const w = new NameWriter().u8(p.op).bytes(p.id);
  switch (p.op) {
    case NameOp.Register:
      return w.uvarint(u32(p.registrationTimeInBlocks, 'registrationTimeInBlocks')).uvarint(u32(p.capacity, 'capacity'))
        .bytes(nonEmpty(p.recoveryHash, 'recoveryHash')).bytes(nonEmpty(p.nextPkHash, 'nextPkHash')).finish();
    case NameOp.Extend:
      return w.uvarint(u32(p.extensionTimeInBlocks, 'extensionTimeInBlocks')).finish();
    case NameOp.UpdateRecord:
      w.uvarint(p.records.length);
      for (const r of p.records) w.bytes(encodeDataRecord(r));
      return writeSigned(w, checkSigned(p)).finish();
    case NameOp.ChangeCapacity:
      return writeSigned(w.uvarint(u32(p.newCapacity, 'newCapacity')), checkSigned(p)).finish();
    case NameOp.Recover:
      return writeSigned(w.bytes(nonEmpty(p.newRecoveryHash, 'newRecoveryHash')), checkSigned(p)).finish();
    case NameOp.ToggleAllowSubnames:
      if (p.subnamePrice < 0n) throw new RangeError(`subnamePrice must not be negative, got ${p.subnamePrice}`);
      w.u8(p.allowSubnames ? 1 : 0).amount(p.subnamePrice).bytes(nonEmpty(p.subnameFeeRecipient, 'subnameFeeRecipient'));
      return writeSigned(w, checkSigned(p)).finish();
    default:
      throw new RangeError(`unknown name operation ${(p as { op: unknown }).op}; expected 1…6`);
  }
}

function u32(v: number, what: string): number {
  if (!Number.isInteger(v) || v < 0 || v > 0xffff_ffff) throw new RangeError(`${what}: expected an unsigned 32-bit integer, got ${v}`);
  return v;
}

function nonEmpty(v: Uint8Array, what: string): Uint8Array {
  if (!(v instanceof Uint8Array)) throw new TypeError(`${what} must be a Uint8Array`);
  if (v.length === 0) throw new RangeError(`${what} must not be empty`);
  return v;
}

function checkSigned<T extends SignedFields>(p: T): T {
  if (typeof p.sequence !== 'bigint' || p.sequence < 0n) throw new RangeError(`sequence: expected a non-negative bigint, got ${String(p.sequence)}`);
  nonEmpty(p.nextPkHash, 'nextPkHash');
  nonEmpty(p.sigPk, 'sigPk');
  nonEmpty(p.sig, 'sig');
  return p;
}

const readSigned = (r: NameReader): SignedFields => ({
  sequence: r.uvarint('sequence'),
  nextPkHash: r.address('nextPkHash'),
  sigPk: r.bytes_('sigPk', ADDRESS_KEY_MAX_LENGTH),
  sig: r.bytes_('sig', MAX_SIGNATURE_LENGTH),
});

/**
 * Parses a payload that occupies all of `bytes`.
 * @throws NameCodecError naming the operation, the field and the byte offset
 */
export function decodeNamePayload(bytes: Uint8Array): NamePayload {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('name payload must be a Uint8Array');
  const r = new NameReader(bytes, 'name payload');
  const op = r.u8('instruction');
  const what = OP_NAMES[op];
  if (!what) throw new NameCodecError(`name payload: unknown instruction ${op}; expected 1…6`);
  const rr = new NameReader(bytes, `${what} payload`);
  rr.u8('instruction');
  const id = rr.bytes_('name id', MAX_NAME_ID_LENGTH);
  try {
    idSections(id);
  } catch (err) {
    throw new NameCodecError(`${what} payload: ${(err as Error).message}`);
  }
  let p: NamePayload;
  switch (op) {
    case NameOp.Register:
      p = {
        op,
        id,
        registrationTimeInBlocks: rr.u32('registrationTimeInBlocks'),
        capacity: rr.u32('capacity'),
        recoveryHash: rr.address('recoveryHash'),
        nextPkHash: rr.address('nextPkHash'),
      };
      break;
    case NameOp.Extend:
      p = { op, id, extensionTimeInBlocks: rr.u32('extensionTimeInBlocks') };
      break;
    case NameOp.UpdateRecord: {
      const count = Number(rr.uvarint('record count', BigInt(bytes.length)));
      const records: DataRecord[] = [];
      for (let i = 0; i < count; i++) {
        const blob = rr.bytes_(`record ${i}`);
        const inner = new NameReader(blob, `${what} payload record ${i}`);
        records.push(readDataRecord(inner));
        inner.end();
      }
      p = { op, id, records, ...readSigned(rr) };
      break;
    }
    case NameOp.ChangeCapacity:
      p = { op, id, newCapacity: rr.u32('newCapacity'), ...readSigned(rr) };
      break;
    case NameOp.Recover:
      p = { op, id, newRecoveryHash: rr.address('newRecoveryHash'), ...readSigned(rr) };
      break;
    default:
      p = {
        op: NameOp.ToggleAllowSubnames,
        id,
        allowSubnames: rr.bool('allowSubnames'),
        subnamePrice: rr.amount('subnamePrice'),
        subnameFeeRecipient: rr.address('subnameFeeRecipient'),
        ...readSigned(rr),
      };
  }
  rr.end();
  return p;
}

const OP_NAMES: Record<number, string> = {
  [NameOp.Register]: 'register',
  [NameOp.UpdateRecord]: 'updateRecord',
  [NameOp.Extend]: 'extend',
  [NameOp.ChangeCapacity]: 'changeCapacity',
  [NameOp.Recover]: 'recover',
  [NameOp.ToggleAllowSubnames]: 'toggleAllowSubnames',
};

/** Human name of an instruction, for messages. */
export const nameOpName = (op: number): string => OP_NAMES[op] ?? `instruction ${op}`;
