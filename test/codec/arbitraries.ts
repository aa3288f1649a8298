/**
 * fast-check generators of v7 transactions as wire bytes, including the non-canonical forms readers
 * accept (wider varints, redundant amount sign bytes, non-zero reserved varints, a stored
 * dataChecksum beside data), for the property and differential tests.
 */
import fc from 'fast-check';

export interface WireInput {
  key: Uint8Array;
  amount: bigint;
  reserved: [bigint, bigint];
}
export interface WireOutput {
  address: Uint8Array;
  amount: bigint;
  dataChecksum: Uint8Array;
  data: Uint8Array;
}
export interface WireTx {
  version: number;
  type: number;
  blockHeight: bigint;
  inputs: WireInput[];
  outputs: WireOutput[];
  nonce: number;
  pubKey: Uint8Array;
  signature: Uint8Array;
  applied: bigint;
  timestamp: bigint;
  /** Per-field choice of a wider varint / extra amount sign bytes (consumed in order). */
  widen: number[];
}

const U64 = (1n << 64n) - 1n;

/** Varint of `v` (signed or not), minimal or (when `wide`) in a wider valid form. */
export function varint(v: bigint, wide: number): number[] {
  const neg = v < 0n;
  const m = neg ? -v : v;
  const widths: Array<[number, bigint]> = [
    [2, 0xffffn],
    [4, 0xffffffffn],
    [8, U64],
  ];
  const fits = widths.filter(([, max]) => m <= max);
  if (!neg && m < 0xf8n && wide % 4 === 0) return [Number(m)];
  const [width] = fits[wide % 4 === 0 ? 0 : Math.min(fits.length - 1, wide % 4 - 1)]!;
  const prefix = (width === 2 ? 0xfc : width === 4 ? 0xfd : 0xfe) - (neg ? 4 : 0);
  const out = [prefix];
  for (let i = 0; i < width; i++) out.push(Number((m >> BigInt(8 * i)) & 0xffn));
  return out;
}

/** Two's-complement bytes of `v` with `extra` redundant sign bytes. */
export function amountBytes(v: bigint, extra: number): number[] {
  const out: number[] = [];
  let x = v;
  for (;;) {
    const b = Number(x & 0xffn);
    out.push(b);
    x >>= 8n;
    if ((x === 0n && b < 0x80) || (x === -1n && b >= 0x80)) break;
  }
  for (let i = 0; i < extra; i++) out.push(v < 0n ? 0xff : 0);
  return out;
}

/** Serializes a WireTx, widening fields as its `widen` list says. */
export function serialize(t: WireTx): Uint8Array {
  let k = 0;
  const w = (): number => t.widen[k++ % t.widen.length] ?? 0;
  const bytes = (b: Uint8Array): number[] => [...varint(BigInt(b.length), w()), ...b];
  const amount = (v: bigint): number[] => {
    const body = amountBytes(v, w() % 3 === 2 ? 1 + (w() % 3) : 0);
    return [...varint(BigInt(body.length), w()), ...body];
  };
  const out = [...varint(BigInt(t.version), w()), ...varint(BigInt(t.type), w()), ...varint(t.blockHeight, w())];
  out.push(...varint(BigInt(t.inputs.length), w()));
  for (const i of t.inputs) out.push(...bytes(i.key), ...amount(i.amount), ...varint(i.reserved[0], w()), ...varint(i.reserved[1], w()));
  out.push(...varint(BigInt(t.outputs.length), w()));
  for (const o of t.outputs) out.push(...bytes(o.address), ...amount(o.amount), ...bytes(o.dataChecksum), ...bytes(o.data));
  out.push(...varint(BigInt(t.nonce), w()), ...bytes(t.pubKey), ...bytes(t.signature), ...varint(t.applied, w()));
  if (t.version < 7) out.push(...varint(t.timestamp, w()));
  return Uint8Array.from(out);
}

const bytesOf = (min: number, max: number) => fc.uint8Array({ minLength: min, maxLength: max });
const amountArb = fc.oneof(
  fc.bigInt({ min: 0n, max: 10n ** 16n }),
  fc.bigInt({ min: -(1n << 80n), max: 1n << 80n }),
  fc.constantFrom(0n, 1n, 127n, 128n, 255n, 256n, -1n, -128n, -129n, (1n << 63n) - 1n, -(1n << 63n), 1n << 63n),
);
const keyArb = fc.oneof(fc.constant(Uint8Array.of(0)), bytesOf(16, 16));
const addressArb = fc.oneof(
  bytesOf(32, 32).map((b) => Uint8Array.from([0, ...b])),
  fc.tuple(fc.constantFrom(1, 2), bytesOf(44, 44)).map(([v, b]) => Uint8Array.from([v, ...b])),
);
const uniqueBy = <T extends { key?: Uint8Array; address?: Uint8Array }>(list: T[]): T[] => {
  const seen = new Set<string>();
  return list.filter((e) => {
    const id = Buffer.from((e.key ?? e.address)!).toString('hex');
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
};

export const wireTxArb: fc.Arbitrary<WireTx> = fc.record({
  version: fc.oneof(fc.constant(7), fc.constantFrom(0, 6, 8, 300, 2 ** 31 - 1)),
  type: fc.oneof(fc.constantFrom(0, 1, 2, 3, 4, 997, 998, 999), fc.integer()),
  blockHeight: fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 7n }), fc.bigInt({ min: 0n, max: U64 })),
  inputs: fc
    .array(fc.record({ key: keyArb, amount: amountArb, reserved: fc.tuple(fc.bigInt({ min: -1000n, max: 1000n }), fc.constant(0n)) }), { maxLength: 4 })
    .map(uniqueBy),
  outputs: fc
    .array(
      fc.record({
        address: addressArb,
        amount: amountArb,
        dataChecksum: fc.oneof(fc.constant(new Uint8Array(0)), bytesOf(1, 40)),
        data: fc.oneof(fc.constant(new Uint8Array(0)), bytesOf(1, 200)),
      }),
      { maxLength: 4 },
    )
    .map(uniqueBy),
  nonce: fc.integer(),
  pubKey: fc.oneof(fc.constant(new Uint8Array(0)), bytesOf(45, 45), bytesOf(1, 600)),
  signature: fc.oneof(fc.constant(new Uint8Array(0)), bytesOf(1, 520)),
  applied: fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: U64 })),
  timestamp: fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }),
  widen: fc.array(fc.nat(11), { minLength: 1, maxLength: 24 }),
});

/** A canonical WireTx (no widening, zero reserved): its bytes are what the encoder produces. */
export const canonicalWireTxArb: fc.Arbitrary<WireTx> = wireTxArb.map((t) => ({
  ...t,
  widen: [0],
  inputs: t.inputs.map((i) => ({ ...i, reserved: [0n, 0n] as [bigint, bigint] })),
  outputs: t.outputs.map((o) => ({ ...o, dataChecksum: o.data.length ? new Uint8Array(0) : o.dataChecksum })),
}));

/** Mutations of valid bytes: flip, insert, delete, truncate. */
export const mutationArb = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), value: fc.constant(0) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat(), value: fc.constant(0) }),
);

export function mutate(bytes: Uint8Array, m: { kind: string; at: number; value: number }): Uint8Array {
  const at = bytes.length === 0 ? 0 : m.at % bytes.length;
  const b = [...bytes];
  if (m.kind === 'flip') b[at] = m.value;
  else if (m.kind === 'insert') b.splice(at, 0, m.value);
  else if (m.kind === 'delete') b.splice(at, 1);
  else b.length = at;
  return Uint8Array.from(b);
}
