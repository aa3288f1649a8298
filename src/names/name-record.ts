/**
 * The record of a registered name (reference-names.md §3.2) and its three serializations:
 *
 * | form         | fields                           | used for                                   |
 * | ------------ | -------------------------------- | ------------------------------------------ |
 * | full         | 1–15                             | storage, `getRegName?asBytes`              |
 * | forSignature | 1–11 ‖ 00 00                     | what owners and recovery keys sign (§4.4)  |
 * | forMerkle    | 1–11 ‖ 14 ‖ 15 ‖ 00 00           | the name-state checksum (§5.6)             |
 *
 * The two trailing zero bytes are the reference writer's quirk (§8 item 1) and are part of the
 * format. Data records are not part of these bytes; only their Merkle root (field 11) is.
 */
import { sha3_512sq } from '../core/hash.js';
import { decodeDataRecord, encodeDataRecord, type DataRecord } from './data-record.js';
import { MAX_NAME_ID_LENGTH } from './params.js';
import { NameCodecError, NameReader, NameWriter } from './reader.js';

export const NAME_RECORD_VERSION = 1;
/** The two zero bytes ending `forSignature` and `forMerkle` (§3.2 QUIRK). */
const TRAILING_PADDING = new Uint8Array(2);

export type NameRecordForm = 'full' | 'forSignature' | 'forMerkle';

export interface NameRecord {
  /** The name id (§2.1). */
  id: Uint8Array;
  registrationBlockHeight: bigint;
  /** kB. */
  capacity: number;
  /** Current owner: the key of the next signed operation must hash to this address (no checksum). */
  nextPkHash: Uint8Array;
  /** Address whose key may recover the name. */
  recoveryHash: Uint8Array;
  sequence: bigint;
  allowSubnames: boolean;
  /** Raw CoinNumber per kB-month. */
  subnamePrice: bigint;
  subnameFeeRecipient: Uint8Array | null;
  /** Ordered, each with its own checksum. */
  dataRecords: DataRecord[];
  dataMerkleRoot: Uint8Array | null;
  signaturePk: Uint8Array | null;
  signature: Uint8Array | null;
  expirationBlockHeight: bigint;
  updatedBlockHeight: bigint;
}

/** Serializes `record` in the given form (default `full`). */
export function encodeNameRecord(record: NameRecord, form: NameRecordForm = 'full'): Uint8Array {
  const w = new NameWriter()
    .u8(NAME_RECORD_VERSION)
    .bytes(record.id)
    .uvarint(record.registrationBlockHeight)
    .uvarint(record.capacity)
    .bytes(record.nextPkHash)
    .bytes(record.recoveryHash)
    .uvarint(record.sequence)
    .u8(record.allowSubnames ? 1 : 0)
    .amount(record.subnamePrice)
    .bytes(record.subnameFeeRecipient)
    .bytes(record.dataMerkleRoot);
  if (form === 'full') w.bytes(record.signaturePk).bytes(record.signature);
  if (form !== 'forSignature') w.uvarint(record.expirationBlockHeight).uvarint(record.updatedBlockHeight);
  if (form !== 'full') w.raw(TRAILING_PADDING);
  return w.finish();
}

/** SHA3-512² of the given form (default `forSignature`, the signed digest). */
export const nameRecordChecksum = (record: NameRecord, form: NameRecordForm = 'forSignature'): Uint8Array =>
  sha3_512sq(encodeNameRecord(record, form));

/**
 * Parses the `full` form (records not included: `dataRecords` is empty; fetch them separately).
 * @throws NameCodecError naming the field for truncated, trailing or invalid bytes
 */
export function decodeNameRecord(bytes: Uint8Array): NameRecord {
  const r = new NameReader(bytes, 'name record');
  const version = r.u8('version');
  if (version !== NAME_RECORD_VERSION) throw new NameCodecError(`name record: version ${version}, expected ${NAME_RECORD_VERSION}`);
  const record: NameRecord = {
    id: r.bytes_('name id', MAX_NAME_ID_LENGTH),
    registrationBlockHeight: r.uvarint('registrationBlockHeight'),
    capacity: r.u32('capacity'),
    nextPkHash: r.address('nextPkHash'),
    recoveryHash: r.address('recoveryHash'),
    sequence: r.uvarint('sequence'),
    allowSubnames: r.bool('allowSubnames'),
    subnamePrice: r.amount('subnamePrice'),
    subnameFeeRecipient: null,
    dataRecords: [],
    dataMerkleRoot: null,
    signaturePk: null,
    signature: null,
    expirationBlockHeight: 0n,
    updatedBlockHeight: 0n,
  };
  record.subnameFeeRecipient = r.addressOrNull('subnameFeeRecipient');
  record.dataMerkleRoot = r.bytesOrNull('dataMerkleRoot', 64);
  if (record.dataMerkleRoot && record.dataMerkleRoot.length !== 64) {
    throw new NameCodecError(`name record: dataMerkleRoot of ${record.dataMerkleRoot.length} bytes, expected 64`);
  }
  record.signaturePk = r.bytesOrNull('signaturePk');
  record.signature = r.bytesOrNull('signature');
  record.expirationBlockHeight = r.uvarint('expirationBlockHeight');
  record.updatedBlockHeight = r.uvarint('updatedBlockHeight');
  r.end();
  return record;
}

/**
 * A name with its data records: `ixiBytes(full form) ‖ varint n ‖ n × ixiBytes(record with
 * checksum, §3.1)`. The node stores names this way and a master answers a peer's `getNameRecord`
 * with it, so a light node's `getRegNameDataRecords` sees the records too.
 */
export function encodeStoredName(r: NameRecord): Uint8Array {
  const w = new NameWriter().bytes(encodeNameRecord(r, 'full')).uvarint(r.dataRecords.length);
  for (const d of r.dataRecords) w.bytes(encodeDataRecord(d));
  return w.finish();
}

/**
 * Parses {@link encodeStoredName}'s form.
 * @throws NameCodecError for truncated, trailing or invalid bytes
 */
export function decodeStoredName(bytes: Uint8Array): NameRecord {
  const reader = new NameReader(bytes, 'stored name');
  const record = decodeNameRecord(reader.bytes_('name record'));
  const count = Number(reader.uvarint('record count', BigInt(bytes.length)));
  for (let i = 0; i < count; i++) record.dataRecords.push(decodeDataRecord(reader.bytes_(`record ${i}`)));
  reader.end();
  return record;
}
