/**
 * A wallet written from the specs alone, as a new user brings one: RSA keys made by node:crypto,
 * addresses, v7 transactions and their signatures per reference-formats.md §4–§8, with none of
 * dltnode's helpers (so the node is checked against the byte formats, not against itself).
 */
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

const sha512 = (b: Uint8Array): Buffer => createHash('sha512').update(b).digest();
const sha3 = (b: Uint8Array): Buffer => createHash('sha3-512').update(b).digest();
/** §2: sha512sqTrunc, sha3_512sqTrunc. */
export const sha512sqTrunc = (b: Uint8Array, n: number): Buffer => sha512(sha512(b)).subarray(0, n);
export const sha3sqTrunc = (b: Uint8Array, n: number): Buffer => sha3(sha3(b)).subarray(0, n);

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** §3 plain Base58 (no Bitcoin checksum). */
export function base58(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = n * 256n + BigInt(b);
  let s = '';
  while (n > 0n) {
    s = ALPHABET[Number(n % 58n)] + s;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    s = '1' + s;
  }
  return s;
}

/** §4 IxiVarInt, the writer's canonical form. */
export function varint(v: bigint | number): Buffer {
  let x = BigInt(v);
  if (x < 0n) {
    x = -x;
    if (x <= 0xffffn) return Buffer.from([0xf8, Number(x & 0xffn), Number(x >> 8n)]);
    const b = Buffer.alloc(x <= 0xffffffffn ? 5 : 9);
    b[0] = x <= 0xffffffffn ? 0xf9 : 0xfa;
    if (b.length === 5) b.writeUInt32LE(Number(x), 1);
    else b.writeBigUInt64LE(x, 1);
    return b;
  }
  if (x < 0xf8n) return Buffer.from([Number(x)]);
  if (x <= 0xffffn) {
    const b = Buffer.alloc(3);
    b[0] = 0xfc;
    b.writeUInt16LE(Number(x), 1);
    return b;
  }
  if (x <= 0xffffffffn) {
    const b = Buffer.alloc(5);
    b[0] = 0xfd;
    b.writeUInt32LE(Number(x), 1);
    return b;
  }
  const b = Buffer.alloc(9);
  b[0] = 0xfe;
  b.writeBigUInt64LE(x, 1);
  return b;
}

/** §5 IxiNumber wire form: varint(len) ‖ two's complement little-endian minimal bytes. */
export function ixiNumber(amount: bigint): Buffer {
  const bytes: number[] = [];
  let x = amount;
  for (;;) {
    const byte = Number(BigInt.asUintN(8, x));
    bytes.push(byte);
    x >>= 8n;
    if ((x === 0n && (byte & 0x80) === 0) || (x === -1n && (byte & 0x80) !== 0)) break;
  }
  return Buffer.concat([varint(bytes.length), Buffer.from(bytes)]);
}

const bytesField = (b: Uint8Array | undefined): Buffer => (b && b.length ? Buffer.concat([varint(b.length), b]) : Buffer.from([0]));
const i32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32LE(n);
  return b;
};
const b64u = (s: string): Buffer => Buffer.from(s, 'base64url');
/** Unsigned big-endian magnitude without leading zero bytes. */
const mag = (b: Buffer): Buffer => {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  return b.subarray(i);
};

const sha512qu = (b: Uint8Array): Buffer => sha512(sha512(sha512(sha512(b))));

/** Header byte of the key (§6.1): 0, 1 or 2 selects the address version; 'headerless' is the legacy 523-byte v0 key. */
export type KeyVersion = 0 | 1 | 2 | 'headerless';

export interface OwnKey {
  bits: number;
  exponent: number;
  privateKey: KeyObject;
  /** §6.1 public key layout with header byte 01 (v1 address). */
  publicKey: Buffer;
  /** §6.1 private key layout (public prefix, then P, Q, DP, DQ, InverseQ, D). */
  privateBytes: Buffer;
  /** §7.1 v1 addressNoChecksum (45 bytes). */
  address: Buffer;
  text: string;
}

/** A fresh RSA key from node:crypto and its address (§6.1, §7.2). */
export function newKey(bits: number, exponent = 65537, version: KeyVersion = 1): OwnKey {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: bits, publicExponent: exponent });
  const jwk = privateKey.export({ format: 'jwk' });
  const part = (s: string | undefined): Buffer => {
    const m = mag(b64u(s!));
    return Buffer.concat([i32(m.length), m]);
  };
  const header = version === 'headerless' ? Buffer.alloc(0) : Buffer.concat([Buffer.from([version]), i32(0)]);
  const publicKey = Buffer.concat([header, part(jwk.n), part(jwk.e)]);
  // The private parts at .NET RSAParameters' fixed widths (half the modulus, D the modulus): a
  // headerless key is recognised by its total length, 2339 bytes at 4096 bits.
  const modLen = mag(b64u(jwk.n!)).length;
  const fixed = (v: string | undefined, width: number): Buffer => {
    const m = mag(b64u(v!));
    return Buffer.concat([i32(width), Buffer.alloc(width - m.length), m]);
  };
  const half = modLen / 2;
  const privateBytes = Buffer.concat([publicKey, fixed(jwk.p, half), fixed(jwk.q, half), fixed(jwk.dp, half), fixed(jwk.dq, half), fixed(jwk.qi, half), fixed(jwk.d, modLen)]);
  if (version === 'headerless' && publicKey.length !== 523) throw new Error(`a headerless key is 523 bytes (4096 bits, e 65537), not ${publicKey.length}`);
  const address =
    version === 1
      ? Buffer.concat([Buffer.from([1]), sha512sqTrunc(publicKey.subarray(1), 44)])
      : version === 2
        ? Buffer.concat([Buffer.from([2]), sha3sqTrunc(publicKey, 44)])
        : Buffer.concat([Buffer.from([0]), sha512qu(version === 'headerless' ? publicKey : publicKey.subarray(5)).subarray(0, 32)]);
  return { bits, exponent, privateKey, publicKey, privateBytes, address, text: addressText(address) };
}

/** §7.4 text form: base58(address ‖ sha512sqTrunc(address, 3)). */
export const addressText = (address: Uint8Array): string => base58(Buffer.concat([address, sha512sqTrunc(address, 3)]));

/** §7.3 derived address (the primary's version). */
export function derivedAddress(primary: Buffer, nonce: Buffer): Buffer {
  if (primary[0] === 2) return Buffer.concat([Buffer.from([2]), sha3sqTrunc(Buffer.concat([primary, nonce]), 44)]);
  const tmp = Buffer.concat([primary, sha512sqTrunc(primary, 3), nonce]);
  if (primary[0] === 0) return Buffer.concat([Buffer.from([0]), sha512qu(tmp).subarray(0, 32)]);
  return Buffer.concat([Buffer.from([1]), sha512sqTrunc(tmp.subarray(5), 44)]);
}

export interface OwnTx {
  type?: number;
  blockHeight: bigint;
  nonce: number;
  inputs: { key: Buffer; amount: bigint }[];
  outputs: { address: Buffer; amount: bigint; data?: Buffer }[];
  /** Full public key or the signer's primary address. */
  pubKey: Buffer;
}

const CHECKSUM_LOCK = { main: 'Ixian', test: 'IxiTest', reg: 'IxiReg' } as const;

/** §8.4 fields 1–7 and the §8.5 preimage (rows 4d/5d are left out of the checksum). */
function fields(tx: OwnTx, forChecksum: boolean): Buffer {
  const parts: Buffer[] = [varint(7), varint(BigInt(tx.type ?? 0)), varint(tx.blockHeight), varint(tx.inputs.length)];
  for (const i of tx.inputs) {
    parts.push(varint(i.key.length), i.key, ixiNumber(i.amount), Buffer.from([0]));
    if (!forChecksum) parts.push(Buffer.from([0]));
  }
  parts.push(varint(tx.outputs.length));
  for (const o of tx.outputs) {
    parts.push(varint(o.address.length), o.address, ixiNumber(o.amount), Buffer.from([0]));
    if (!forChecksum) parts.push(bytesField(o.data));
  }
  parts.push(varint(BigInt(tx.nonce)), bytesField(tx.pubKey));
  return Buffer.concat(parts);
}

export const checksumOf = (tx: OwnTx, network: keyof typeof CHECKSUM_LOCK = 'reg'): Buffer =>
  sha3sqTrunc(Buffer.concat([Buffer.from(CHECKSUM_LOCK[network], 'utf8'), fields(tx, true)]), 44);

/** Signed v7 wire bytes (applied = 0) and the string id (§8.7). */
export function signTx(tx: OwnTx, key: OwnKey, network: keyof typeof CHECKSUM_LOCK = 'reg'): { hex: string; id: string; size: number; checksum: Buffer } {
  const checksum = checksumOf(tx, network);
  const signature = sign('sha512', checksum, key.privateKey); // §6.2 RSASSA-PKCS1-v1_5 SHA-512
  const bytes = Buffer.concat([fields(tx, false), bytesField(signature), varint(0)]);
  return { hex: bytes.toString('hex'), id: `${tx.blockHeight}-${base58(checksum)}`, size: bytes.length, checksum };
}

/** §8.9: 0.005 per started 1000 bytes of the signed form. */
export const minFee = (signedSize: number): bigint => 500_000n * BigInt(Math.ceil(signedSize / 1000));

export const COIN = 100_000_000n;
export const DUST = 1_000_000n;

/** §5 string form of an amount. */
export function coins(amount: bigint): string {
  const neg = amount < 0n;
  const a = neg ? -amount : amount;
  return `${neg ? '-' : ''}${a / COIN}.${(a % COIN).toString().padStart(8, '0')}`;
}
