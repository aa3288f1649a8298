/**
 * Payload codecs of every message code except hello/helloData (hello.ts): reference-network.md
 * §3 (keep-alives, presences, sectors), §4 (inventory, transaction batches, rejections), §5
 * (blocks, block signatures), §6 (sync), §7 (stream-message relay envelopes) and §8 (codes).
 *
 * Layouts are ours (§10 "may simplify" 3: chunk sizes and framing are ours); the objects inside
 * keep the reference byte formats: v7 transaction bytes (codec/), our block bytes
 * (chain/block.ts), RSA keys and signatures (formats/rsa.ts), addresses without checksum
 * (formats/address.ts), stream messages as opaque bytes. Integers and lengths are IxiVarInts.
 *
 * Every decoder takes a payload and returns a typed message or throws NetworkCodecError; it
 * never returns a message with a field outside the bounds named here.
 */
import { MAX_TRANSACTION_SIZE } from '../../formats/constants.js';
import { varIntLength, varUintLength } from '../../formats/varint.js';
import { MessageCode, MAX_FRAME_BYTES_BY_CODE, type MessageCodeValue } from './codes.js';
import { NetworkCodecError } from './errors.js';
import { PayloadReader, PayloadWriter } from './io.js';

// ---- bounds -------------------------------------------------------------------------------

/** Items per inventory message (reference §4.2: up to 10,000 per `inventory2`). */
export const MAX_INVENTORY_ITEMS = 10_000;
/** Transactions per batch: a busy master moves thousands per second in a handful of frames. */
export const MAX_TRANSACTIONS_PER_BATCH = 10_000;
/** Txids per pull request: as many as one inventory message can announce. */
export const MAX_TXIDS_PER_REQUEST = MAX_INVENTORY_ITEMS;
/** Keep-alives per chunk (reference §3.4: ≤ 500). */
export const MAX_KEEPALIVES_PER_CHUNK = 500;
/**
 * Devices of one presence: the most one presence message carries, and the most the presence list
 * keeps per wallet (presence.ts), so every stored presence can be sent. The reference has no such
 * cap (its presences are sent in chunks of 10 addresses, §3.1); a wallet rarely has more than a
 * few devices (a master has one, device id 00, §1).
 */
export const MAX_PRESENCE_DEVICES = 64;
/** Presences in a sectorNodes answer (masters cap at 20, §3.5). */
export const MAX_SECTOR_NODES = 20;
/** Signatures in a signature chunk (MAX_BLOCK_SIGNERS of formats §14). */
export const MAX_SIGNATURES_PER_CHUNK = 1000;
/** Blocks per range request/answer during sync (reference keeps ~100 outstanding, §6). */
export const MAX_BLOCKS_PER_RANGE = 500;
/** Headers per header-range request/answer (light clients follow thousands per second). */
export const MAX_HEADERS_PER_RANGE = 2000;
/** Addresses a light client filters a header range by (its wallet's). */
export const MAX_FILTER_ADDRESSES = 64;
/** Largest block header (rows 1–11; a superblock lists up to 1,000 checksums). */
export const MAX_HEADER_BYTES = 128 * 1024;
/** Largest name id (sections of a name and its subnames) and name record carried. */
export const MAX_NAME_ID_BYTES = 2048;
export const MAX_NAME_RECORD_BYTES = 2 * 1024 * 1024 - 4096;
/** Request ids of light-client queries: 32-bit, chosen by the asker (a relay rewrites them). */
export const MAX_REQUEST_ID = 0xffff_ffff;
/** Transaction status in transactionData2. */
export const TxStatus = Object.freeze({ unknown: 0, pending: 1, applied: 2 } as const);
export type TxStatusValue = (typeof TxStatus)[keyof typeof TxStatus];
/** Transactions carried with one block in a range answer (formats §14 maximum + 10). */
export const MAX_TRANSACTIONS_PER_BLOCK_MESSAGE = 307_030;
/** Largest txid (binary txid: type/height prefix + 44-byte checksum, with room). */
export const MAX_TXID_BYTES = 128;
/** Largest block checksum (sha3_512sq: 64 bytes). */
export const MAX_CHECKSUM_BYTES = 64;
/** Largest signer field: an address, or a full public key (block.ts). */
export const MAX_SIGNER_BYTES = 2500;
/** Largest PoW solution bytes we carry. */
export const MAX_SOLUTION_BYTES = 4096;
/** Largest RSA signature (16,384-bit modulus, formats/rsa.ts RSA_MAX_MODULUS_BYTES). */
export const MAX_SIGNATURE_BYTES = 2048;
/** RSA public keys: 32–2500 bytes (reference §3.1). */
export const MIN_PUBLIC_KEY_BYTES = 32;
export const MAX_PUBLIC_KEY_BYTES = 2500;
/** Device ids: ≤ 64 bytes (reference §3.1). */
export const MAX_DEVICE_ID_BYTES = 64;
/** Node (product) version strings: ≤ 20 characters (reference §3.1). */
export const MAX_NODE_VERSION_LENGTH = 20;
/** Host strings: `ip:port`, a DNS name or a Base58 relay address. */
export const MAX_HOST_BYTES = 255;
/** Stream message bytes relayed in one s2data. */
export const MAX_STREAM_MESSAGE_BYTES = 1024 * 1024;
/** Length of a sector prefix (formats/address.ts SECTOR_PREFIX_LENGTH). */
export const SECTOR_PREFIX_BYTES = 10;
/** Length of a ping/pong nonce. */
export const PING_NONCE_BYTES = 8;
/** Length of a hello challenge. */
export const CHALLENGE_BYTES = 32;

// ---- shared shapes ----------------------------------------------------------------------

/** Node type chars (reference §1). W is never announced in a presence. */
/** Peer types of the hello (M master, H full history, W worker, R relay, C client). */
export const NODE_TYPE_LIST = ['M', 'H', 'W', 'R', 'C'] as const;
export type NodeType = (typeof NODE_TYPE_LIST)[number];
const NODE_TYPES: ReadonlySet<number> = new Set(NODE_TYPE_LIST.map((c) => c.charCodeAt(0)));
export const isNodeType = (c: unknown): c is NodeType => typeof c === 'string' && c.length === 1 && NODE_TYPES.has(c.charCodeAt(0));

/** Address without checksum: 33 bytes (version 0) or 45 bytes (versions 1, 2) (formats §7). */
export function readAddress(r: PayloadReader, field: string): Uint8Array {
  const at = r.offset;
  const a = r.bytesField(field, 45, 33);
  const ok = (a.length === 33 && a[0] === 0) || (a.length === 45 && (a[0] === 1 || a[0] === 2));
  if (!ok) throw r.fail('BAD_FIELD', field, `address of ${a.length} bytes with version ${a[0]}`, at);
  return a;
}

export function writeAddress(w: PayloadWriter, address: Uint8Array, what: string): void {
  const ok = (address.length === 33 && address[0] === 0) || (address.length === 45 && (address[0] === 1 || address[0] === 2));
  if (!ok) throw new RangeError(`${what} must be an address without checksum (33 or 45 bytes)`);
  w.bytesField(address, 45, what);
}

export function readNodeType(r: PayloadReader, field: string): NodeType {
  const at = r.offset;
  const b = r.u8(field);
  if (!NODE_TYPES.has(b)) throw r.fail('BAD_FIELD', field, `node type byte ${b}`, at);
  return String.fromCharCode(b) as NodeType;
}

export function writeNodeType(w: PayloadWriter, type: NodeType): void {
  if (!isNodeType(type)) throw new RangeError(`node type must be one of M, H, W, R, C, got ${String(type)}`);
  w.u8(type.charCodeAt(0));
}

/** The largest unsigned 64-bit value, for heights and timestamps. */
const U64_MAX = (1n << 64n) - 1n;
const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;

// ---- keep-alives and presences (§3.1) ----------------------------------------------------

/**
 * A keep-alive (reference KeepAlive v2, §3.1): version 2, wallet address, device id, timestamp
 * (seconds), host, type, node version (ours: the reference carries it in the presence address),
 * optional signer PoW solution, signature. `unsigned` is the encoding of
 * every field before the signature: presence.ts signs `sha3_512sqTrunc(lock ‖ unsigned)`.
 */
export interface KeepAlive {
  version: number;
  address: Uint8Array;
  deviceId: Uint8Array;
  timestamp: bigint;
  host: string;
  type: NodeType;
  /** Product version (≤ 20 characters): the reference keeps it per presence address (`pl`, `countnodeversions`). */
  nodeVersion: string;
  powSolution: Uint8Array | null;
  signature: Uint8Array;
  unsigned: Uint8Array;
}

export const KEEPALIVE_VERSION = 2;

export type UnsignedKeepAlive = Omit<KeepAlive, 'signature' | 'unsigned' | 'version'>;

export function encodeUnsignedKeepAlive(k: UnsignedKeepAlive): Uint8Array {
  const w = new PayloadWriter().uint(KEEPALIVE_VERSION);
  writeAddress(w, k.address, 'keep-alive address');
  w.bytesField(k.deviceId, MAX_DEVICE_ID_BYTES, 'device id').uint(k.timestamp).text(k.host, MAX_HOST_BYTES, 'host');
  writeNodeType(w, k.type);
  if (k.nodeVersion.length > MAX_NODE_VERSION_LENGTH) throw new RangeError(`node version must be ≤ ${MAX_NODE_VERSION_LENGTH} characters`);
  w.text(k.nodeVersion, MAX_NODE_VERSION_LENGTH * 4, 'node version');
  w.bytesField(k.powSolution ?? new Uint8Array(0), MAX_SOLUTION_BYTES, 'PoW solution');
  return w.finish();
}

/** Keep-alive bytes = unsigned part ‖ varbytes(signature). */
export function encodeKeepAlive(unsigned: Uint8Array, signature: Uint8Array): Uint8Array {
  return new PayloadWriter().fixed(unsigned).bytesField(signature, MAX_SIGNATURE_BYTES, 'signature').finish();
}

export function decodeKeepAlive(bytes: Uint8Array, base = 1): KeepAlive {
  const r = new PayloadReader(bytes, base);
  const versionAt = r.offset;
  const version = r.uintNumber('keepAlive.version', 255);
  if (version !== KEEPALIVE_VERSION) throw r.fail('BAD_FIELD', 'keepAlive.version', `version ${version}`, versionAt);
  const address = readAddress(r, 'keepAlive.address');
  const deviceId = r.bytesField('keepAlive.deviceId', MAX_DEVICE_ID_BYTES);
  const timestamp = r.uint('keepAlive.timestamp', I64_MAX);
  const host = r.text('keepAlive.host', MAX_HOST_BYTES);
  const type = readNodeType(r, 'keepAlive.type');
  const nvAt = r.offset;
  const nodeVersion = r.text('keepAlive.nodeVersion', MAX_NODE_VERSION_LENGTH * 4);
  if (nodeVersion.length > MAX_NODE_VERSION_LENGTH) throw r.fail('OUT_OF_RANGE', 'keepAlive.nodeVersion', 'more than 20 characters', nvAt);
  const sol = r.bytesField('keepAlive.powSolution', MAX_SOLUTION_BYTES);
  const unsigned = bytes.slice(0, r.offset);
  const signature = r.bytesField('keepAlive.signature', MAX_SIGNATURE_BYTES, 1);
  r.end('keepAlive');
  return { version, address, deviceId, timestamp, host, type, nodeVersion, powSolution: sol.length ? sol : null, signature, unsigned };
}

/** A presence (§3.1): one wallet, its public key and the latest keep-alive of each device. */
export interface PresenceMessage {
  address: Uint8Array;
  publicKey: Uint8Array;
  keepAlives: KeepAlive[];
}

export function encodePresence(p: { address: Uint8Array; publicKey: Uint8Array; keepAlives: readonly Uint8Array[] }): Uint8Array {
  const w = new PayloadWriter();
  writeAddress(w, p.address, 'presence address');
  w.bytesField(p.publicKey, MAX_PUBLIC_KEY_BYTES, 'public key');
  if (p.keepAlives.length > MAX_PRESENCE_DEVICES) throw new RangeError(`at most ${MAX_PRESENCE_DEVICES} devices per presence`);
  w.uint(p.keepAlives.length);
  for (const k of p.keepAlives) w.bytesField(k, MAX_FRAME_BYTES_BY_CODE[MessageCode.keepAlivePresence], 'keep-alive');
  return w.finish();
}

/** The largest presence payload: an updatePresence frame less its code byte. */
export const MAX_PRESENCE_BYTES = MAX_FRAME_BYTES_BY_CODE[MessageCode.updatePresence] - 1;
/** Room for the presences of a sectorNodes answer: its frame less the code byte, the prefix and the count. */
export const MAX_SECTOR_PRESENCES_BYTES = MAX_FRAME_BYTES_BY_CODE[MessageCode.sectorNodes] - 1 - SECTOR_PREFIX_BYTES - varUintLength(MAX_SECTOR_NODES);

/**
 * A presence of the keep-alives that fit, taken in the order given: at most MAX_PRESENCE_DEVICES
 * and at most `maxBytes` in all (a keep-alive that would not fit is skipped). Null when none fits.
 * Never throws for a valid address and public key: answers built from it cannot fail to encode
 * (64 keep-alives of the largest size, ~6.7 kB each, would not fit one updatePresence frame).
 */
export function encodePresenceWithin(
  p: { address: Uint8Array; publicKey: Uint8Array; keepAlives: Iterable<Uint8Array> },
  maxBytes: number,
): Uint8Array | null {
  const keepAliveMax = MAX_FRAME_BYTES_BY_CODE[MessageCode.keepAlivePresence];
  const field = (b: Uint8Array) => varUintLength(b.length) + b.length;
  let size = field(p.address) + field(p.publicKey) + varUintLength(MAX_PRESENCE_DEVICES);
  const taken: Uint8Array[] = [];
  for (const k of p.keepAlives) {
    if (taken.length === MAX_PRESENCE_DEVICES) break;
    if (k.length > keepAliveMax || size + field(k) > maxBytes) continue;
    size += field(k);
    taken.push(k);
  }
  return taken.length === 0 ? null : encodePresence({ address: p.address, publicKey: p.publicKey, keepAlives: taken });
}

function readPresence(r: PayloadReader, base: number, field: string): PresenceMessage {
  const address = readAddress(r, `${field}.address`);
  const publicKey = r.bytesField(`${field}.publicKey`, MAX_PUBLIC_KEY_BYTES, MIN_PUBLIC_KEY_BYTES);
  const n = r.count(`${field}.keepAlives`, MAX_PRESENCE_DEVICES);
  const keepAlives: KeepAlive[] = [];
  for (let i = 0; i < n; i++) {
    const f = `${field}.keepAlives[${i}]`;
    const raw = r.bytesField(f, MAX_FRAME_BYTES_BY_CODE[MessageCode.keepAlivePresence], 1);
    keepAlives.push(decodeKeepAlive(raw, base + r.offset - raw.length));
  }
  return { address, publicKey, keepAlives };
}

// ---- inventory (§4, §8) -----------------------------------------------------------------

/** Inventory item types: the reference's integers (§8). */
export const InventoryType = Object.freeze({ transaction: 0, block: 1, blockSignature: 4, keepAlive: 5 } as const);

export type InventoryItem =
  | { type: 0; txid: Uint8Array }
  | { type: 1; height: bigint; checksum: Uint8Array }
  | { type: 4; height: bigint; checksum: Uint8Array; signer: Uint8Array }
  | { type: 5; lastSeen: bigint; address: Uint8Array; deviceId: Uint8Array };

function writeInventoryItem(w: PayloadWriter, item: InventoryItem): void {
  w.u8(item.type);
  switch (item.type) {
    case 0:
      w.bytesField(item.txid, MAX_TXID_BYTES, 'txid');
      return;
    case 1:
      w.uint(item.height).bytesField(item.checksum, MAX_CHECKSUM_BYTES, 'block checksum');
      return;
    case 4:
      w.uint(item.height).bytesField(item.checksum, MAX_CHECKSUM_BYTES, 'block checksum');
      w.bytesField(item.signer, MAX_SIGNER_BYTES, 'signer');
      return;
    case 5:
      w.uint(item.lastSeen);
      writeAddress(w, item.address, 'keep-alive address');
      w.bytesField(item.deviceId, MAX_DEVICE_ID_BYTES, 'device id');
      return;
    default:
      throw new RangeError(`unknown inventory type ${String((item as { type: unknown }).type)}`);
  }
}

function readInventoryItem(r: PayloadReader, f: string): InventoryItem {
  const at = r.offset;
  const type = r.u8(`${f}.type`);
  switch (type) {
    case 0:
      return { type, txid: r.bytesField(`${f}.txid`, MAX_TXID_BYTES, 1) };
    case 1:
      return { type, height: r.uint(`${f}.height`, U64_MAX), checksum: r.bytesField(`${f}.checksum`, MAX_CHECKSUM_BYTES, 1) };
    case 4:
      return {
        type,
        height: r.uint(`${f}.height`, U64_MAX),
        checksum: r.bytesField(`${f}.checksum`, MAX_CHECKSUM_BYTES, 1),
        signer: r.bytesField(`${f}.signer`, MAX_SIGNER_BYTES, 1),
      };
    case 5:
      return {
        type,
        lastSeen: r.uint(`${f}.lastSeen`, I64_MAX),
        address: readAddress(r, `${f}.address`),
        deviceId: r.bytesField(`${f}.deviceId`, MAX_DEVICE_ID_BYTES),
      };
    default:
      throw r.fail('BAD_FIELD', `${f}.type`, `inventory type ${type}`, at);
  }
}

// ---- block signatures (§5.2) -------------------------------------------------------------

export interface SignatureEntry {
  signer: Uint8Array;
  powSolution: Uint8Array | null;
  signature: Uint8Array;
}

function writeSignatureEntry(w: PayloadWriter, s: SignatureEntry): void {
  w.bytesField(s.signer, MAX_SIGNER_BYTES, 'signer');
  w.bytesField(s.powSolution ?? new Uint8Array(0), MAX_SOLUTION_BYTES, 'PoW solution');
  w.bytesField(s.signature, MAX_SIGNATURE_BYTES, 'signature');
}

function readSignatureEntry(r: PayloadReader, f: string): SignatureEntry {
  const signer = r.bytesField(`${f}.signer`, MAX_SIGNER_BYTES, 1);
  const sol = r.bytesField(`${f}.powSolution`, MAX_SOLUTION_BYTES);
  const signature = r.bytesField(`${f}.signature`, MAX_SIGNATURE_BYTES, 1);
  return { signer, powSolution: sol.length ? sol : null, signature };
}

// ---- messages -----------------------------------------------------------------------------

/** Transaction modes of block requests (reference getBlock3, §8): none, non-staking, all. */
export type TxMode = 0 | 1 | 2;

/** One block of a range answer: our block bytes and, when asked, its transactions' v7 bytes. */
export interface RangeBlock {
  block: Uint8Array;
  transactions: Uint8Array[];
}

/**
 * One header of a header-range answer (light clients, reference-network §1 "headers only"): the
 * header bytes (rows 1–11); when the block holds a transaction touching an address of the
 * request, every txid of the block (the light node checks them against row 6) and the full
 * transactions of interest; else both empty.
 */
export interface HeaderEntry {
  header: Uint8Array;
  txIds: Uint8Array[];
  transactions: Uint8Array[];
}

/** Reason bytes of `rejected` (reference §4.3). */
export const RejectedCode = Object.freeze({ invalid: 0x20, dust: 0x21, insufficientFee: 0x22, duplicate: 0x23 } as const);

/** What a `rejected` reason byte means, for logs and a light wallet's dropped transactions. */
export function rejectedReasonText(reason: number): string {
  switch (reason) {
    case RejectedCode.invalid:
      return 'invalid';
    case RejectedCode.dust:
      return 'dust';
    case RejectedCode.insufficientFee:
      return 'insufficient fee';
    case RejectedCode.duplicate:
      return 'duplicate';
    default:
      return `reason 0x${reason.toString(16)}`;
  }
}

export type Message =
  | { code: typeof MessageCode.rejected; reason: number; txid: Uint8Array }
  | { code: typeof MessageCode.getKeepAlives; items: { address: Uint8Array; deviceId: Uint8Array }[] }
  | { code: typeof MessageCode.keepAlivesChunk; keepAlives: KeepAlive[] }
  | { code: typeof MessageCode.transactionData2; requestId: number; txid: Uint8Array; status: TxStatusValue; height: bigint; transaction: Uint8Array | null }
  | { code: typeof MessageCode.blockData2; block: Uint8Array }
  | { code: typeof MessageCode.blockSignature2; height: bigint; checksum: Uint8Array; signature: SignatureEntry }
  | { code: typeof MessageCode.getBlockSignatures2; height: bigint; checksum: Uint8Array }
  | { code: typeof MessageCode.signaturesChunk2; height: bigint; checksum: Uint8Array; signatures: SignatureEntry[] }
  | { code: typeof MessageCode.getSectorNodes; prefix: Uint8Array; max: number }
  | { code: typeof MessageCode.sectorNodes; prefix: Uint8Array; presences: PresenceMessage[] }
  | { code: typeof MessageCode.updatePresence; presence: PresenceMessage }
  | { code: typeof MessageCode.s2data; recipient: Uint8Array; message: Uint8Array }
  | { code: typeof MessageCode.getBalance2; requestId: number; address: Uint8Array }
  | { code: typeof MessageCode.balance2; requestId: number; address: Uint8Array; balance: bigint; walletType: number; hasPublicKey: boolean; height: bigint; checksum: Uint8Array }
  | { code: typeof MessageCode.keepAlivePresence; keepAlive: KeepAlive }
  | { code: typeof MessageCode.getPresence2; address: Uint8Array }
  | { code: typeof MessageCode.getUnappliedTransactions }
  | { code: typeof MessageCode.getRandomPresences; type: NodeType }
  | { code: typeof MessageCode.getNameRecord; requestId: number; id: Uint8Array; absolute: boolean }
  | { code: typeof MessageCode.nameRecord; requestId: number; id: Uint8Array; record: Uint8Array | null }
  | { code: typeof MessageCode.getBlockHeaders4; requestId: number; from: bigint; count: number; addresses: Uint8Array[] }
  | { code: typeof MessageCode.blockHeaders4; requestId: number; from: bigint; tip: bigint; headers: HeaderEntry[] }
  | { code: typeof MessageCode.getBlock3; height: bigint; txMode: TxMode; fullHeader: boolean }
  | { code: typeof MessageCode.getTransactions2; tag: bigint; txids: Uint8Array[] }
  | { code: typeof MessageCode.getTransaction3; requestId: number; txid: Uint8Array }
  | { code: typeof MessageCode.inventory2; items: InventoryItem[] }
  | { code: typeof MessageCode.transactionsChunk3; tag: bigint; transactions: Uint8Array[] }
  | { code: typeof MessageCode.ping; nonce: Uint8Array }
  | { code: typeof MessageCode.pong; nonce: Uint8Array }
  | { code: typeof MessageCode.getBlocks; from: bigint; count: number; txMode: TxMode }
  | { code: typeof MessageCode.blocks; from: bigint; tip: bigint; blocks: RangeBlock[] };

/** Messages without the handshake codes (hello, helloData, challenge live in hello.ts). */
export type MessageOf<C extends Message['code']> = Extract<Message, { code: C }>;

/** Input accepted by encodeMessage: keep-alives and presences travel as their encoded bytes. */
export type OutgoingMessage =
  | Exclude<Message, { code: 7 | 19 | 24 | 34 }>
  | { code: typeof MessageCode.keepAlivesChunk; keepAlives: Uint8Array[] }
  | { code: typeof MessageCode.keepAlivePresence; keepAlive: Uint8Array }
  | { code: typeof MessageCode.updatePresence; presence: Uint8Array }
  | { code: typeof MessageCode.sectorNodes; prefix: Uint8Array; presences: Uint8Array[] };

function checkCount(n: number, max: number, what: string): void {
  if (n > max) throw new RangeError(`${what}: ${n} entries, at most ${max} allowed`);
}

function readTxMode(r: PayloadReader, field: string): TxMode {
  const at = r.offset;
  const m = r.u8(field);
  if (m > 2) throw r.fail('BAD_FIELD', field, `tx mode ${m}`, at);
  return m as TxMode;
}

/** Writes the payload of a message. @throws RangeError/TypeError for a message outside the bounds. */
function writePayload(w: PayloadWriter, m: OutgoingMessage): void {
  switch (m.code) {
    case MessageCode.rejected:
      w.u8(m.reason).bytesField(m.txid, MAX_TXID_BYTES, 'txid');
      return;
    case MessageCode.getKeepAlives:
      checkCount(m.items.length, MAX_KEEPALIVES_PER_CHUNK, 'getKeepAlives');
      w.uint(m.items.length);
      for (const it of m.items) {
        writeAddress(w, it.address, 'address');
        w.bytesField(it.deviceId, MAX_DEVICE_ID_BYTES, 'device id');
      }
      return;
    case MessageCode.keepAlivesChunk:
      checkCount(m.keepAlives.length, MAX_KEEPALIVES_PER_CHUNK, 'keepAlivesChunk');
      w.uint(m.keepAlives.length);
      for (const k of m.keepAlives) w.bytesField(k, MAX_FRAME_BYTES_BY_CODE[MessageCode.keepAlivePresence], 'keep-alive');
      return;
    case MessageCode.transactionData2:
      w.uint(m.requestId).bytesField(m.txid, MAX_TXID_BYTES, 'txid').u8(m.status).uint(m.height);
      w.bytesField(m.transaction ?? new Uint8Array(0), MAX_TRANSACTION_SIZE, 'transaction');
      return;
    case MessageCode.blockData2:
      w.fixed(m.block);
      return;
    case MessageCode.blockSignature2:
      w.uint(m.height).bytesField(m.checksum, MAX_CHECKSUM_BYTES, 'block checksum');
      writeSignatureEntry(w, m.signature);
      return;
    case MessageCode.getBlockSignatures2:
      w.uint(m.height).bytesField(m.checksum, MAX_CHECKSUM_BYTES, 'block checksum');
      return;
    case MessageCode.signaturesChunk2:
      checkCount(m.signatures.length, MAX_SIGNATURES_PER_CHUNK, 'signaturesChunk2');
      w.uint(m.height).bytesField(m.checksum, MAX_CHECKSUM_BYTES, 'block checksum').uint(m.signatures.length);
      for (const s of m.signatures) writeSignatureEntry(w, s);
      return;
    case MessageCode.getSectorNodes:
      if (m.prefix.length !== SECTOR_PREFIX_BYTES) throw new RangeError(`sector prefix must be ${SECTOR_PREFIX_BYTES} bytes`);
      if (!Number.isInteger(m.max) || m.max < 1 || m.max > MAX_SECTOR_NODES) throw new RangeError(`max must be 1…${MAX_SECTOR_NODES}`);
      w.fixed(m.prefix).uint(m.max);
      return;
    case MessageCode.sectorNodes:
      if (m.prefix.length !== SECTOR_PREFIX_BYTES) throw new RangeError(`sector prefix must be ${SECTOR_PREFIX_BYTES} bytes`);
      checkCount(m.presences.length, MAX_SECTOR_NODES, 'sectorNodes');
      w.fixed(m.prefix).uint(m.presences.length);
      for (const p of m.presences) w.bytesField(p, MAX_FRAME_BYTES_BY_CODE[MessageCode.updatePresence], 'presence');
      return;
    case MessageCode.updatePresence:
      w.fixed(m.presence);
      return;
    case MessageCode.s2data:
      writeAddress(w, m.recipient, 'recipient');
      w.bytesField(m.message, MAX_STREAM_MESSAGE_BYTES, 'stream message');
      return;
    case MessageCode.keepAlivePresence:
      w.fixed(m.keepAlive);
      return;
    case MessageCode.getBalance2:
      w.uint(m.requestId);
      writeAddress(w, m.address, 'address');
      return;
    case MessageCode.balance2:
      w.uint(m.requestId);
      writeAddress(w, m.address, 'address');
      if (m.balance < 0n) throw new RangeError('balance must not be negative');
      w.uint(m.balance).u8(m.walletType).bool(m.hasPublicKey).uint(m.height).bytesField(m.checksum, MAX_CHECKSUM_BYTES, 'block checksum');
      return;
    case MessageCode.getNameRecord:
      w.uint(m.requestId).bytesField(m.id, MAX_NAME_ID_BYTES, 'name id').bool(m.absolute);
      return;
    case MessageCode.nameRecord:
      w.uint(m.requestId).bytesField(m.id, MAX_NAME_ID_BYTES, 'name id').bytesField(m.record ?? new Uint8Array(0), MAX_NAME_RECORD_BYTES, 'name record');
      return;
    case MessageCode.getBlockHeaders4:
      if (!Number.isInteger(m.count) || m.count < 1 || m.count > MAX_HEADERS_PER_RANGE) throw new RangeError(`count must be 1…${MAX_HEADERS_PER_RANGE}`);
      checkCount(m.addresses.length, MAX_FILTER_ADDRESSES, 'getBlockHeaders4 addresses');
      w.uint(m.requestId).uint(m.from).uint(m.count).uint(m.addresses.length);
      for (const a of m.addresses) writeAddress(w, a, 'address');
      return;
    case MessageCode.blockHeaders4:
      checkCount(m.headers.length, MAX_HEADERS_PER_RANGE, 'blockHeaders4');
      w.uint(m.requestId).uint(m.from).uint(m.tip).uint(m.headers.length);
      for (const h of m.headers) writeHeaderEntry(w, h);
      return;
    case MessageCode.getTransaction3:
      w.uint(m.requestId).bytesField(m.txid, MAX_TXID_BYTES, 'txid');
      return;
    case MessageCode.getPresence2:
      writeAddress(w, m.address, 'address');
      return;
    case MessageCode.getUnappliedTransactions:
      return;
    case MessageCode.getRandomPresences:
      writeNodeType(w, m.type);
      return;
    case MessageCode.getBlock3:
      w.uint(m.height).u8(m.txMode).bool(m.fullHeader);
      return;
    case MessageCode.getTransactions2:
      checkCount(m.txids.length, MAX_TXIDS_PER_REQUEST, 'getTransactions2');
      w.int(m.tag).uint(m.txids.length);
      for (const id of m.txids) w.bytesField(id, MAX_TXID_BYTES, 'txid');
      return;
    case MessageCode.inventory2:
      checkCount(m.items.length, MAX_INVENTORY_ITEMS, 'inventory2');
      w.uint(m.items.length);
      for (const it of m.items) writeInventoryItem(w, it);
      return;
    case MessageCode.transactionsChunk3:
      checkCount(m.transactions.length, MAX_TRANSACTIONS_PER_BATCH, 'transactionsChunk3');
      w.int(m.tag).uint(m.transactions.length);
      for (const tx of m.transactions) w.bytesField(tx, MAX_TRANSACTION_SIZE, 'transaction');
      return;
    case MessageCode.ping:
    case MessageCode.pong:
      if (m.nonce.length !== PING_NONCE_BYTES) throw new RangeError(`nonce must be ${PING_NONCE_BYTES} bytes`);
      w.fixed(m.nonce);
      return;
    case MessageCode.getBlocks:
      if (!Number.isInteger(m.count) || m.count < 1 || m.count > MAX_BLOCKS_PER_RANGE) {
        throw new RangeError(`count must be 1…${MAX_BLOCKS_PER_RANGE}`);
      }
      w.uint(m.from).uint(m.count).u8(m.txMode);
      return;
    case MessageCode.blocks:
      checkCount(m.blocks.length, MAX_BLOCKS_PER_RANGE, 'blocks');
      w.uint(m.from).uint(m.tip).uint(m.blocks.length);
      for (const b of m.blocks) {
        w.bytesField(b.block, MAX_FRAME_BYTES_BY_CODE[MessageCode.blockData2], 'block');
        checkCount(b.transactions.length, MAX_TRANSACTIONS_PER_BLOCK_MESSAGE, 'block transactions');
        w.uint(b.transactions.length);
        for (const tx of b.transactions) w.bytesField(tx, MAX_TRANSACTION_SIZE, 'transaction');
      }
      return;
    default:
      throw new RangeError(`no payload codec for code ${String((m as { code: unknown }).code)}`);
  }
}

/** The payload bytes of a message. @throws RangeError/TypeError for a message outside the bounds. */
export function encodePayload(m: OutgoingMessage): Uint8Array {
  const w = new PayloadWriter();
  writePayload(w, m);
  return w.finish();
}

/** The frame bytes of a message (code byte ‖ payload), written in one buffer. @throws RangeError above the code's frame limit. */
export function encodeMessage(m: OutgoingMessage): Uint8Array {
  const code = m.code as MessageCodeValue;
  const max = MAX_FRAME_BYTES_BY_CODE[code];
  if (max === undefined) throw new RangeError(`unknown message code ${String(code)}`);
  const w = new PayloadWriter(1024);
  w.u8(code);
  writePayload(w, m);
  if (w.size > max) throw new RangeError(`frame of code ${code} would have ${w.size} bytes, at most ${max} allowed`);
  return w.finish();
}

/** Codes decodeMessage handles (all but the handshake codes). */
export const isPayloadCode = (code: number): code is Message['code'] =>
  code !== MessageCode.hello && code !== MessageCode.helloData && code !== MessageCode.challenge && PAYLOAD_CODES.has(code);
const PAYLOAD_CODES: ReadonlySet<number> = new Set(Object.values(MessageCode));

/**
 * Decodes the payload of a frame of `code`.
 * @param base offset of the payload in its frame (1), for error offsets.
 * @throws NetworkCodecError for anything malformed.
 */
export function decodePayload(code: number, payload: Uint8Array, base = 1): Message {
  const r = new PayloadReader(payload, base);
  const m = readPayload(code, r, payload, base);
  r.end(messageField(code));
  return m;
}

const messageField = (code: number): string => `code ${code}`;

function readPayload(code: number, r: PayloadReader, payload: Uint8Array, base: number): Message {
  switch (code) {
    case MessageCode.rejected:
      return { code, reason: r.u8('reason'), txid: r.bytesField('txid', MAX_TXID_BYTES, 1) };
    case MessageCode.getKeepAlives: {
      const n = r.count('items', MAX_KEEPALIVES_PER_CHUNK);
      const items: { address: Uint8Array; deviceId: Uint8Array }[] = [];
      for (let i = 0; i < n; i++) {
        items.push({ address: readAddress(r, `items[${i}].address`), deviceId: r.bytesField(`items[${i}].deviceId`, MAX_DEVICE_ID_BYTES) });
      }
      return { code, items };
    }
    case MessageCode.keepAlivesChunk: {
      const n = r.count('keepAlives', MAX_KEEPALIVES_PER_CHUNK);
      const keepAlives: KeepAlive[] = [];
      for (let i = 0; i < n; i++) {
        const raw = r.bytesField(`keepAlives[${i}]`, MAX_FRAME_BYTES_BY_CODE[MessageCode.keepAlivePresence], 1);
        keepAlives.push(decodeKeepAlive(raw, base + r.offset - raw.length));
      }
      return { code, keepAlives };
    }
    case MessageCode.transactionData2: {
      const requestId = r.uintNumber('requestId', MAX_REQUEST_ID);
      const txid = r.bytesField('txid', MAX_TXID_BYTES, 1);
      const at = r.offset;
      const status = r.u8('status');
      if (status > TxStatus.applied) throw r.fail('BAD_FIELD', 'status', `status ${status}`, at);
      const height = r.uint('height', U64_MAX);
      const bytes = r.bytesField('transaction', MAX_TRANSACTION_SIZE);
      return { code, requestId, txid, status: status as TxStatusValue, height, transaction: bytes.length > 0 ? bytes : null };
    }
    case MessageCode.blockData2: {
      if (payload.length === 0) throw r.fail('TRUNCATED', 'block');
      const block = r.fixed(payload.length, 'block').slice();
      return { code, block };
    }
    case MessageCode.blockSignature2:
      return {
        code,
        height: r.uint('height', U64_MAX),
        checksum: r.bytesField('checksum', MAX_CHECKSUM_BYTES, 1),
        signature: readSignatureEntry(r, 'signature'),
      };
    case MessageCode.getBlockSignatures2:
      return { code, height: r.uint('height', U64_MAX), checksum: r.bytesField('checksum', MAX_CHECKSUM_BYTES, 1) };
    case MessageCode.signaturesChunk2: {
      const height = r.uint('height', U64_MAX);
      const checksum = r.bytesField('checksum', MAX_CHECKSUM_BYTES, 1);
      const n = r.count('signatures', MAX_SIGNATURES_PER_CHUNK);
      const signatures: SignatureEntry[] = [];
      for (let i = 0; i < n; i++) signatures.push(readSignatureEntry(r, `signatures[${i}]`));
      return { code, height, checksum, signatures };
    }
    case MessageCode.getSectorNodes: {
      const prefix = r.fixed(SECTOR_PREFIX_BYTES, 'prefix').slice();
      const at = r.offset;
      const max = r.uintNumber('max', MAX_SECTOR_NODES);
      if (max < 1) throw r.fail('OUT_OF_RANGE', 'max', 'at least 1', at);
      return { code, prefix, max };
    }
    case MessageCode.sectorNodes: {
      const prefix = r.fixed(SECTOR_PREFIX_BYTES, 'prefix').slice();
      const n = r.count('presences', MAX_SECTOR_NODES);
      const presences: PresenceMessage[] = [];
      for (let i = 0; i < n; i++) {
        const raw = r.bytesField(`presences[${i}]`, MAX_FRAME_BYTES_BY_CODE[MessageCode.updatePresence], 1);
        const sub = new PayloadReader(raw, base + r.offset - raw.length);
        presences.push(readPresence(sub, base + r.offset - raw.length, `presences[${i}]`));
        sub.end(`presences[${i}]`);
      }
      return { code, prefix, presences };
    }
    case MessageCode.updatePresence:
      return { code, presence: readPresence(r, base, 'presence') };
    case MessageCode.s2data:
      return { code, recipient: readAddress(r, 'recipient'), message: r.bytesField('message', MAX_STREAM_MESSAGE_BYTES, 1) };
    case MessageCode.keepAlivePresence: {
      const keepAlive = decodeKeepAlive(payload, base);
      r.fixed(payload.length, 'keepAlive');
      return { code, keepAlive };
    }
    case MessageCode.getPresence2:
      return { code, address: readAddress(r, 'address') };
    case MessageCode.getBalance2:
      return { code, requestId: r.uintNumber('requestId', MAX_REQUEST_ID), address: readAddress(r, 'address') };
    case MessageCode.balance2:
      return {
        code,
        requestId: r.uintNumber('requestId', MAX_REQUEST_ID),
        address: readAddress(r, 'address'),
        balance: r.uint('balance', U64_MAX),
        walletType: r.u8('walletType'),
        hasPublicKey: r.bool('hasPublicKey'),
        height: r.uint('height', U64_MAX),
        checksum: r.bytesField('checksum', MAX_CHECKSUM_BYTES),
      };
    case MessageCode.getNameRecord:
      return { code, requestId: r.uintNumber('requestId', MAX_REQUEST_ID), id: r.bytesField('id', MAX_NAME_ID_BYTES, 1), absolute: r.bool('absolute') };
    case MessageCode.nameRecord: {
      const requestId = r.uintNumber('requestId', MAX_REQUEST_ID);
      const id = r.bytesField('id', MAX_NAME_ID_BYTES, 1);
      const record = r.bytesField('record', MAX_NAME_RECORD_BYTES);
      return { code, requestId, id, record: record.length > 0 ? record : null };
    }
    case MessageCode.getBlockHeaders4: {
      const requestId = r.uintNumber('requestId', MAX_REQUEST_ID);
      const from = r.uint('from', U64_MAX);
      const at = r.offset;
      const count = r.uintNumber('count', MAX_HEADERS_PER_RANGE);
      if (count < 1) throw r.fail('OUT_OF_RANGE', 'count', 'at least 1', at);
      const n = r.count('addresses', MAX_FILTER_ADDRESSES);
      const addresses: Uint8Array[] = [];
      for (let i = 0; i < n; i++) addresses.push(readAddress(r, `addresses[${i}]`));
      return { code, requestId, from, count, addresses };
    }
    case MessageCode.blockHeaders4: {
      const requestId = r.uintNumber('requestId', MAX_REQUEST_ID);
      const from = r.uint('from', U64_MAX);
      const tip = r.uint('tip', U64_MAX);
      const n = r.count('headers', MAX_HEADERS_PER_RANGE);
      const headers: HeaderEntry[] = [];
      for (let i = 0; i < n; i++) headers.push(readHeaderEntry(r, `headers[${i}]`));
      return { code, requestId, from, tip, headers };
    }
    case MessageCode.getTransaction3:
      return { code, requestId: r.uintNumber('requestId', MAX_REQUEST_ID), txid: r.bytesField('txid', MAX_TXID_BYTES, 1) };
    case MessageCode.getUnappliedTransactions:
      return { code };
    case MessageCode.getRandomPresences:
      return { code, type: readNodeType(r, 'type') };
    case MessageCode.getBlock3:
      return { code, height: r.uint('height', U64_MAX), txMode: readTxMode(r, 'txMode'), fullHeader: r.bool('fullHeader') };
    case MessageCode.getTransactions2: {
      const tag = r.int('tag', I64_MIN, 0n);
      const n = r.count('txids', MAX_TXIDS_PER_REQUEST);
      const txids: Uint8Array[] = [];
      for (let i = 0; i < n; i++) txids.push(r.bytesField(`txids[${i}]`, MAX_TXID_BYTES, 1));
      return { code, tag, txids };
    }
    case MessageCode.inventory2: {
      const n = r.count('items', MAX_INVENTORY_ITEMS);
      const items: InventoryItem[] = [];
      for (let i = 0; i < n; i++) items.push(readInventoryItem(r, `items[${i}]`));
      return { code, items };
    }
    case MessageCode.transactionsChunk3: {
      const tag = r.int('tag', I64_MIN, 0n);
      const n = r.count('transactions', MAX_TRANSACTIONS_PER_BATCH);
      const transactions: Uint8Array[] = [];
      for (let i = 0; i < n; i++) transactions.push(r.bytesField(`transactions[${i}]`, MAX_TRANSACTION_SIZE, 1));
      return { code, tag, transactions };
    }
    case MessageCode.ping:
    case MessageCode.pong:
      return { code, nonce: r.fixed(PING_NONCE_BYTES, 'nonce').slice() };
    case MessageCode.getBlocks: {
      const from = r.uint('from', U64_MAX);
      const at = r.offset;
      const count = r.uintNumber('count', MAX_BLOCKS_PER_RANGE);
      if (count < 1) throw r.fail('OUT_OF_RANGE', 'count', 'at least 1', at);
      return { code, from, count, txMode: readTxMode(r, 'txMode') };
    }
    case MessageCode.blocks: {
      const from = r.uint('from', U64_MAX);
      const tip = r.uint('tip', U64_MAX);
      const n = r.count('blocks', MAX_BLOCKS_PER_RANGE);
      const blocks: RangeBlock[] = [];
      for (let i = 0; i < n; i++) {
        const block = r.bytesField(`blocks[${i}].block`, MAX_FRAME_BYTES_BY_CODE[MessageCode.blockData2], 1);
        const t = r.count(`blocks[${i}].transactions`, MAX_TRANSACTIONS_PER_BLOCK_MESSAGE);
        const transactions: Uint8Array[] = [];
        for (let j = 0; j < t; j++) transactions.push(r.bytesField(`blocks[${i}].transactions[${j}]`, MAX_TRANSACTION_SIZE, 1));
        blocks.push({ block, transactions });
      }
      return { code, from, tip, blocks };
    }
    default:
      throw new NetworkCodecError('UNKNOWN_CODE', 0, 'code', `no payload codec for code ${code}`);
  }
}

export type { MessageCodeValue };

// ---- splitting bulk data into frames ------------------------------------------------------

const varBytesLength = (n: number): number => varUintLength(n) + n;

/**
 * Transaction batches for `transactionsChunk3`: as many frames as needed so each holds at most
 * MAX_TRANSACTIONS_PER_BATCH transactions and fits its code's frame limit.
 * @throws RangeError for a transaction above MAX_TRANSACTION_SIZE.
 */
export function encodeTransactionBatches(tag: bigint, transactions: readonly Uint8Array[]): Uint8Array[] {
  const limit = MAX_FRAME_BYTES_BY_CODE[MessageCode.transactionsChunk3];
  const head = 1 + varIntLength(tag) + 9; // code, tag, count (at most 9 bytes)
  const frames: Uint8Array[] = [];
  let batch: Uint8Array[] = [];
  let size = head;
  const flush = () => {
    if (batch.length) frames.push(encodeMessage({ code: MessageCode.transactionsChunk3, tag, transactions: batch }));
    batch = [];
    size = head;
  };
  for (const tx of transactions) {
    if (tx.length > MAX_TRANSACTION_SIZE) throw new RangeError(`transaction of ${tx.length} bytes, at most ${MAX_TRANSACTION_SIZE}`);
    const n = varBytesLength(tx.length);
    if (batch.length === MAX_TRANSACTIONS_PER_BATCH || size + n > limit) flush();
    batch.push(tx);
    size += n;
  }
  flush();
  return frames;
}

/**
 * A `blocks` answer holding as many of `blocks` (from the first) as fit one frame; at least one
 * block is included when it fits on its own. `count` tells the caller where the next answer starts.
 */
export function encodeBlocksFitting(from: bigint, tip: bigint, blocks: readonly RangeBlock[]): { frame: Uint8Array; count: number } {
  const limit = MAX_FRAME_BYTES_BY_CODE[MessageCode.blocks];
  let size = 1 + varUintLength(from) + varUintLength(tip) + 9;
  let count = 0;
  for (const b of blocks.slice(0, MAX_BLOCKS_PER_RANGE)) {
    let n = varBytesLength(b.block.length) + varUintLength(b.transactions.length);
    for (const tx of b.transactions) n += varBytesLength(tx.length);
    if (size + n > limit) break;
    size += n;
    count++;
  }
  return { frame: encodeMessage({ code: MessageCode.blocks, from, tip, blocks: blocks.slice(0, count) }), count };
}

// ---- header ranges (light clients) -------------------------------------------------------

function writeHeaderEntry(w: PayloadWriter, h: HeaderEntry): void {
  w.bytesField(h.header, MAX_HEADER_BYTES, 'header');
  checkCount(h.txIds.length, MAX_TRANSACTIONS_PER_BLOCK_MESSAGE, 'header txids');
  w.uint(h.txIds.length);
  for (const id of h.txIds) w.bytesField(id, MAX_TXID_BYTES, 'txid');
  checkCount(h.transactions.length, MAX_TRANSACTIONS_PER_BATCH, 'header transactions');
  w.uint(h.transactions.length);
  for (const tx of h.transactions) w.bytesField(tx, MAX_TRANSACTION_SIZE, 'transaction');
}

function readHeaderEntry(r: PayloadReader, f: string): HeaderEntry {
  const header = r.bytesField(`${f}.header`, MAX_HEADER_BYTES, 1);
  const n = r.count(`${f}.txIds`, MAX_TRANSACTIONS_PER_BLOCK_MESSAGE);
  const txIds: Uint8Array[] = [];
  for (let i = 0; i < n; i++) txIds.push(r.bytesField(`${f}.txIds[${i}]`, MAX_TXID_BYTES, 1));
  const t = r.count(`${f}.transactions`, MAX_TRANSACTIONS_PER_BATCH);
  const transactions: Uint8Array[] = [];
  for (let i = 0; i < t; i++) transactions.push(r.bytesField(`${f}.transactions[${i}]`, MAX_TRANSACTION_SIZE, 1));
  return { header, txIds, transactions };
}

/**
 * A `blockHeaders4` answer holding as many of `headers` (from the first) as fit one frame; at
 * least one when it fits on its own. `count` tells the caller where the next answer starts.
 */
export function encodeHeadersFitting(requestId: number, from: bigint, tip: bigint, headers: readonly HeaderEntry[]): { frame: Uint8Array; count: number } {
  const limit = MAX_FRAME_BYTES_BY_CODE[MessageCode.blockHeaders4];
  let size = 1 + 5 + varUintLength(from) + varUintLength(tip) + 9;
  let count = 0;
  for (const h of headers.slice(0, MAX_HEADERS_PER_RANGE)) {
    let n = varBytesLength(h.header.length) + varUintLength(h.txIds.length) + varUintLength(h.transactions.length);
    for (const id of h.txIds) n += varBytesLength(id.length);
    for (const tx of h.transactions) n += varBytesLength(tx.length);
    if (size + n > limit) break;
    size += n;
    count++;
  }
  return { frame: encodeMessage({ code: MessageCode.blockHeaders4, requestId, from, tip, headers: headers.slice(0, count) }), count };
}
