/**
 * A slow, obviously-correct reference decoder of v7 transactions (reference-formats.md §4, §5,
 * §8.4, §8.5), written straight from the spec with bigints and node:crypto, for differential tests
 * of the WASM codec and as the peer of bench/codec.bench.mjs. Self-contained on purpose: it shares
 * no code with src/ (only a type), so a bug in the codec cannot hide in both.
 */
import { createHash } from 'node:crypto';
import type { Transaction } from '../../src/codec/types.js';

export class ReferenceError_ extends Error {
  constructor(
    readonly code: string,
    readonly offset: number,
  ) {
    super(`${code} at byte ${offset}`);
  }
}

export interface ReferenceDecoded {
  tx: Transaction;
  checksum: Uint8Array;
  /** Canonical full form with applied = 0. */
  canonical: Uint8Array;
}

const MAX_TX_SIZE = 512000;
const MAX_AMOUNT_BYTES = 64;

const sha3 = (b: Uint8Array): Buffer => createHash('sha3-512').update(b).digest();

/** Canonical varint bytes (§4 writer rules). */
function varint(v: bigint): number[] {
  const neg = v < 0n;
  const m = neg ? -v : v;
  if (!neg && m < 0xf8n) return [Number(m)];
  const [prefix, width] = m <= 0xffffn ? [0xfc, 2] : m <= 0xffffffffn ? [0xfd, 4] : [0xfe, 8];
  const out = [neg ? prefix - 4 : prefix];
  for (let i = 0; i < width; i++) out.push(Number((m >> BigInt(8 * i)) & 0xffn));
  return out;
}

/** Minimal two's-complement little-endian bytes of a bigint (§5). */
function amountBytes(v: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const b = Number(v & 0xffn);
    out.push(b);
    v >>= 8n;
    if ((v === 0n && b < 0x80) || (v === -1n && b >= 0x80)) return out;
  }
}

const withLength = (b: Uint8Array | number[] | null | undefined): number[] =>
  b && b.length > 0 ? [...varint(BigInt(b.length)), ...b] : [0];

export function referenceDecode(bytes: Uint8Array, lock: Uint8Array): ReferenceDecoded {
  if (bytes.length > MAX_TX_SIZE) throw new ReferenceError_('OVERSIZED', 0);
  let at = 0;
  const fail = (code: string, where: number): never => {
    throw new ReferenceError_(code, where);
  };
  const need = (n: number, from: number): void => {
    if (at + n > bytes.length) fail('TRUNCATED', from);
  };
  const readVarint = (): { value: bigint; negative: boolean; start: number } => {
    const start = at;
    need(1, start);
    const p = bytes[at]!;
    if (p < 0xf8) {
      at++;
      return { value: BigInt(p), negative: false, start };
    }
    const widths: Record<number, number> = { 0xf8: 2, 0xf9: 4, 0xfa: 8, 0xfc: 2, 0xfd: 4, 0xfe: 8 };
    const width = widths[p];
    if (width === undefined) fail('BAD_VARINT', start);
    need(1 + width!, start);
    let v = 0n;
    for (let i = width! - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[at + 1 + i]!);
    at += 1 + width!;
    return { value: v, negative: p <= 0xfa, start };
  };
  const unsigned = (): bigint => {
    const r = readVarint();
    if (r.negative) fail('NEGATIVE_VARINT', r.start);
    return r.value;
  };
  const signed = (min: bigint, max: bigint): bigint => {
    const r = readVarint();
    const v = r.negative ? -r.value : r.value;
    if (v < min || v > max) fail('OUT_OF_RANGE', r.start);
    return v;
  };
  const length = (): number => {
    const start = at;
    const n = unsigned();
    if (n > BigInt(bytes.length - at)) fail('TRUNCATED', start);
    return Number(n);
  };
  const take = (n: number): Uint8Array => {
    const b = bytes.slice(at, at + n);
    at += n;
    return b;
  };
  const amount = (): bigint => {
    const start = at;
    const n = length();
    if (n === 0) fail('EMPTY_AMOUNT', start);
    if (n > MAX_AMOUNT_BYTES) fail('OUT_OF_RANGE', start);
    const b = take(n);
    let v = 0n;
    for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
    return b[n - 1]! >= 0x80 ? v - (1n << BigInt(8 * n)) : v;
  };
  const count = (minEntry: number): number => {
    const start = at;
    const n = unsigned();
    if (n > BigInt(Math.floor((bytes.length - at) / minEntry))) fail('TRUNCATED', start);
    return Number(n);
  };
  const I32 = [-(2n ** 31n), 2n ** 31n - 1n] as const;

  const versionAt = at;
  const version = unsigned();
  if (version > 2n ** 31n - 1n) fail('OUT_OF_RANGE', versionAt);
  const type = Number(signed(...I32));
  const blockHeight = unsigned();
  const inputs: Transaction['inputs'] = [];
  const nInputs = count(6);
  const seen = new Set<string>();
  for (let i = 0; i < nInputs; i++) {
    const keyAt = at;
    const kl = length();
    const key = take(kl);
    if (!(kl === 16 || (kl === 1 && key[0] === 0))) fail('BAD_INPUT_KEY', keyAt);
    const k = Buffer.from(key).toString('hex');
    if (seen.has(k)) fail('DUPLICATE_INPUT', keyAt);
    seen.add(k);
    inputs.push({ key, amount: amount() });
    readVarint(); // reserved, ignored
    readVarint();
  }
  seen.clear();
  const outputs: Transaction['outputs'] = [];
  const nOutputs = count(38);
  for (let i = 0; i < nOutputs; i++) {
    const addressAt = at;
    const al = length();
    const address = take(al);
    const okAddress = (al === 33 && address[0] === 0) || (al === 45 && (address[0] === 1 || address[0] === 2));
    if (!okAddress) fail('BAD_ADDRESS', addressAt);
    const k = Buffer.from(address).toString('hex');
    if (seen.has(k)) fail('DUPLICATE_OUTPUT', addressAt);
    seen.add(k);
    const output: Transaction['outputs'][number] = { address, amount: amount() };
    const dataChecksum = take(length());
    const data = take(length());
    if (data.length > 0) output.data = data;
    else if (dataChecksum.length > 0) output.dataChecksum = dataChecksum;
    outputs.push(output);
  }
  const nonce = Number(signed(...I32));
  const pk = take(length());
  const sig = take(length());
  const applied = unsigned();
  const timestamp = version < 7n ? signed(-(2n ** 63n), 2n ** 63n - 1n) : 0n;
  if (at !== bytes.length) fail('TRAILING_BYTES', at);

  const tx: Transaction = {
    version: Number(version),
    type,
    blockHeight,
    inputs,
    outputs,
    nonce,
    pubKey: pk.length ? pk : null,
    signature: sig.length ? sig : null,
    applied,
    timestamp,
  };
  // §8.5: lock ‖ rows 1–7 without 4d and 5d (‖ row 10 when version < 7)
  const rows = (full: boolean): number[] => {
    const out = [...varint(version), ...varint(BigInt(type)), ...varint(blockHeight), ...varint(BigInt(inputs.length))];
    for (const input of inputs) {
      out.push(...withLength(input.key), ...withLength(amountBytes(input.amount)), 0);
      if (full) out.push(0);
    }
    out.push(...varint(BigInt(outputs.length)));
    for (const o of outputs) {
      out.push(...withLength(o.address), ...withLength(amountBytes(o.amount)));
      out.push(...withLength(o.data ? null : o.dataChecksum));
      if (full) out.push(...withLength(o.data));
    }
    out.push(...varint(BigInt(nonce)), ...withLength(tx.pubKey));
    if (full) out.push(...withLength(tx.signature), 0);
    if (version < 7n) out.push(...varint(timestamp));
    return out;
  };
  const preimage = Uint8Array.from([...lock, ...rows(false)]);
  const checksum = new Uint8Array(sha3(sha3(preimage)).subarray(0, 44));
  return { tx, checksum, canonical: Uint8Array.from(rows(true)) };
}
