import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_FRAME_BYTES_BY_CODE, MessageCode, isMessageCode } from '../../src/network/protocol/codes.js';
import { NetworkCodecError } from '../../src/network/protocol/errors.js';
import { decodeFrame, encodeFrame } from '../../src/network/protocol/frame.js';
import { decodeHello } from '../../src/network/protocol/hello.js';
import {
  decodePayload,
  encodeMessage,
  encodePayload,
  encodePresence,
  encodeKeepAlive,
  encodeUnsignedKeepAlive,
  decodeKeepAlive,
  type OutgoingMessage,
  type NodeType,
} from '../../src/network/protocol/messages.js';

const bytes = (min: number, max: number) => fc.uint8Array({ minLength: min, maxLength: max });
const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const address = fc.oneof(
  bytes(32, 32).map((b) => Uint8Array.of(0, ...b)),
  fc.tuple(fc.constantFrom(1, 2), bytes(44, 44)).map(([v, b]) => Uint8Array.of(v, ...b)),
);
const requestId = fc.integer({ min: 0, max: 0xffff_ffff });
const nodeType = fc.constantFrom<NodeType>('M', 'H', 'W', 'R', 'C');
const txid = bytes(1, 64);
const checksum = bytes(1, 64);
const sigEntry = fc.record({ signer: bytes(1, 60), powSolution: fc.option(bytes(1, 50), { nil: null }), signature: bytes(1, 64) });
const keepAliveBytes = fc
  .record({ address, deviceId: bytes(0, 16), timestamp: fc.bigInt({ min: 0n, max: (1n << 63n) - 1n }), host: fc.string({ maxLength: 30 }), type: nodeType, nodeVersion: fc.string({ maxLength: 20 }), powSolution: fc.option(bytes(1, 20), { nil: null }) })
  .chain((k) => bytes(1, 64).map((sig) => encodeKeepAlive(encodeUnsignedKeepAlive(k), sig)));
const presenceBytes = fc
  .tuple(address, bytes(32, 80), fc.array(keepAliveBytes, { maxLength: 3 }))
  .map(([a, pk, kas]) => encodePresence({ address: a, publicKey: pk, keepAlives: kas }));

/** Every outgoing message kind with small random content. */
const message: fc.Arbitrary<OutgoingMessage> = fc.oneof(
  fc.record({ code: fc.constant(MessageCode.rejected), reason: fc.integer({ min: 0, max: 255 }), txid }),
  fc.record({ code: fc.constant(MessageCode.getKeepAlives), items: fc.array(fc.record({ address, deviceId: bytes(0, 16) }), { maxLength: 4 }) }),
  fc.record({ code: fc.constant(MessageCode.keepAlivesChunk), keepAlives: fc.array(keepAliveBytes, { maxLength: 4 }) }),
  fc.record({ code: fc.constant(MessageCode.blockData2), block: bytes(1, 200) }),
  fc.record({ code: fc.constant(MessageCode.blockSignature2), height: u64, checksum, signature: sigEntry }),
  fc.record({ code: fc.constant(MessageCode.getBlockSignatures2), height: u64, checksum }),
  fc.record({ code: fc.constant(MessageCode.signaturesChunk2), height: u64, checksum, signatures: fc.array(sigEntry, { maxLength: 4 }) }),
  fc.record({ code: fc.constant(MessageCode.getSectorNodes), prefix: bytes(10, 10), max: fc.integer({ min: 1, max: 20 }) }),
  fc.record({ code: fc.constant(MessageCode.sectorNodes), prefix: bytes(10, 10), presences: fc.array(presenceBytes, { maxLength: 3 }) }),
  fc.record({ code: fc.constant(MessageCode.updatePresence), presence: presenceBytes }),
  fc.record({ code: fc.constant(MessageCode.s2data), recipient: address, message: bytes(1, 300) }),
  fc.record({ code: fc.constant(MessageCode.keepAlivePresence), keepAlive: keepAliveBytes }),
  fc.record({ code: fc.constant(MessageCode.getPresence2), address }),
  fc.constant({ code: MessageCode.getUnappliedTransactions } as const),
  fc.record({ code: fc.constant(MessageCode.getRandomPresences), type: nodeType }),
  fc.record({ code: fc.constant(MessageCode.getBlock3), height: u64, txMode: fc.constantFrom(0, 1, 2) as fc.Arbitrary<0 | 1 | 2>, fullHeader: fc.boolean() }),
  fc.record({ code: fc.constant(MessageCode.getTransactions2), tag: fc.bigInt({ min: -(1n << 63n), max: 0n }), txids: fc.array(txid, { maxLength: 5 }) }),
  fc.record({
    code: fc.constant(MessageCode.inventory2),
    items: fc.array(
      fc.oneof(
        fc.record({ type: fc.constant(0 as const), txid }),
        fc.record({ type: fc.constant(1 as const), height: u64, checksum }),
        fc.record({ type: fc.constant(4 as const), height: u64, checksum, signer: bytes(1, 60) }),
        fc.record({ type: fc.constant(5 as const), lastSeen: fc.bigInt({ min: 0n, max: (1n << 63n) - 1n }), address, deviceId: bytes(0, 16) }),
      ),
      { maxLength: 6 },
    ),
  }),
  fc.record({ code: fc.constant(MessageCode.transactionsChunk3), tag: fc.bigInt({ min: -1000n, max: 0n }), transactions: fc.array(bytes(1, 200), { maxLength: 5 }) }),
  fc.record({ code: fc.constantFrom(MessageCode.ping, MessageCode.pong), nonce: bytes(8, 8) }),
  fc.record({ code: fc.constant(MessageCode.getBlocks), from: u64, count: fc.integer({ min: 1, max: 500 }), txMode: fc.constantFrom(0, 1, 2) as fc.Arbitrary<0 | 1 | 2> }),
  fc.record({
    code: fc.constant(MessageCode.blocks),
    from: u64,
    tip: u64,
    blocks: fc.array(fc.record({ block: bytes(1, 100), transactions: fc.array(bytes(1, 50), { maxLength: 3 }) }), { maxLength: 3 }),
  }),
  // Light clients (reference-network §7.3, §8).
  fc.record({ code: fc.constant(MessageCode.getBalance2), requestId, address }),
  fc.record({ code: fc.constant(MessageCode.balance2), requestId, address, balance: u64, walletType: fc.integer({ min: 0, max: 255 }), hasPublicKey: fc.boolean(), height: u64, checksum }),
  fc.record({ code: fc.constant(MessageCode.getTransaction3), requestId, txid }),
  fc.record({
    code: fc.constant(MessageCode.transactionData2),
    requestId,
    txid,
    status: fc.constantFrom(0, 1, 2) as fc.Arbitrary<0 | 1 | 2>,
    height: u64,
    transaction: fc.option(bytes(1, 80), { nil: null }),
  }),
  fc.record({ code: fc.constant(MessageCode.getNameRecord), requestId, id: bytes(1, 64), absolute: fc.boolean() }),
  fc.record({ code: fc.constant(MessageCode.nameRecord), requestId, id: bytes(1, 64), record: fc.option(bytes(1, 120), { nil: null }) }),
  fc.record({ code: fc.constant(MessageCode.getBlockHeaders4), requestId, from: u64, count: fc.integer({ min: 1, max: 2000 }), addresses: fc.array(address, { maxLength: 4 }) }),
  fc.record({
    code: fc.constant(MessageCode.blockHeaders4),
    requestId,
    from: u64,
    tip: u64,
    headers: fc.array(fc.record({ header: bytes(1, 120), txIds: fc.array(txid, { maxLength: 3 }), transactions: fc.array(bytes(1, 50), { maxLength: 2 }) }), { maxLength: 3 }),
  }),
) as fc.Arbitrary<OutgoingMessage>;

/** Runs `fn`; passes if it returns or throws a NetworkCodecError, fails on any other exception. */
function onlyCodecErrors(fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof NetworkCodecError)) throw e;
    expect(e.offset).toBeGreaterThanOrEqual(0);
  }
}

const allCodes = Object.values(MessageCode);

describe('frames', () => {
  it('round trip: code and payload', () => {
    fc.assert(
      fc.property(fc.constantFrom(...allCodes), bytes(0, 500), (code, payload) => {
        const f = decodeFrame(encodeFrame(code, payload));
        expect(f.code).toBe(code);
        expect(Buffer.from(f.payload).equals(Buffer.from(payload))).toBe(true);
      }),
    );
  });

  it('random bytes give a frame or a NetworkCodecError, nothing else', () => {
    fc.assert(fc.property(bytes(0, 64), (b) => onlyCodecErrors(() => decodeFrame(b))), { numRuns: 2000 });
  });

  it('stable codes: empty, unknown code, oversized (per code maximum)', () => {
    const err = (b: Uint8Array) => {
      try {
        decodeFrame(b);
      } catch (e) {
        return e as NetworkCodecError;
      }
      throw new Error('no error');
    };
    expect(err(new Uint8Array(0)).code).toBe('EMPTY_FRAME');
    const u = err(Uint8Array.of(42));
    expect([u.code, u.offset]).toEqual(['UNKNOWN_CODE', 0]);
    const max = MAX_FRAME_BYTES_BY_CODE[MessageCode.ping];
    expect(() => decodeFrame(new Uint8Array(max).fill(MessageCode.ping))).not.toThrow();
    const o = err(new Uint8Array(max + 1).fill(MessageCode.ping));
    expect([o.code, o.offset]).toEqual(['OVERSIZED', max]);
    expect(() => encodeFrame(MessageCode.ping, new Uint8Array(max))).toThrow(RangeError);
    for (let c = 0; c < 256; c++) expect(isMessageCode(c)).toBe((allCodes as number[]).includes(c));
  });
});

describe('message payloads', () => {
  it('round trip: decode(encode(m)) re-encodes to the same bytes', () => {
    fc.assert(
      fc.property(message, (m) => {
        const frame = encodeMessage(m);
        const f = decodeFrame(frame);
        const d = decodePayload(f.code, f.payload);
        expect(d.code).toBe(m.code);
        // Keep-alives and presences decode to objects; re-encode from the original input form.
        const again = reencode(d);
        expect(Buffer.from(again).equals(Buffer.from(encodePayload(m)))).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });

  it('random payloads for every code give a message or a NetworkCodecError', () => {
    const payloadCodes = allCodes.filter((c) => c !== MessageCode.hello && c !== MessageCode.helloData && c !== MessageCode.challenge);
    fc.assert(
      fc.property(fc.constantFrom(...payloadCodes), bytes(0, 120), (code, payload) => onlyCodecErrors(() => decodePayload(code, payload))),
      { numRuns: 5000 },
    );
  });

  it('mutated valid payloads give a message or a NetworkCodecError', () => {
    fc.assert(
      fc.property(message, fc.nat(), fc.integer({ min: 0, max: 255 }), fc.nat({ max: 8 }), (m, pos, value, cut) => {
        const p = encodePayload(m).slice();
        if (p.length > 0) p[pos % p.length] = value;
        onlyCodecErrors(() => decodePayload(m.code, p.subarray(0, Math.max(0, p.length - cut))));
      }),
      { numRuns: 3000 },
    );
  });

  it('random hello payloads give a hello or a NetworkCodecError', () => {
    fc.assert(
      fc.property(fc.constantFrom(MessageCode.hello, MessageCode.helloData), bytes(0, 200), (code, p) => onlyCodecErrors(() => decodeHello(code, p))),
      { numRuns: 3000 },
    );
  });

  it('errors carry a stable code, the field and the frame offset', () => {
    try {
      decodePayload(MessageCode.getBlock3, Uint8Array.of(5, 3, 0));
      throw new Error('accepted');
    } catch (e) {
      const err = e as NetworkCodecError;
      expect(err).toBeInstanceOf(NetworkCodecError);
      expect([err.code, err.offset, err.field]).toEqual(['BAD_FIELD', 2, 'txMode']);
    }
    try {
      decodePayload(MessageCode.getPresence2, Uint8Array.of(10, ...new Uint8Array(10)));
      throw new Error('accepted');
    } catch (e) {
      expect((e as NetworkCodecError).code).toBe('OUT_OF_RANGE');
    }
    try {
      decodePayload(MessageCode.getUnappliedTransactions, Uint8Array.of(1));
      throw new Error('accepted');
    } catch (e) {
      expect((e as NetworkCodecError).code).toBe('TRAILING_BYTES');
    }
  });

  it('counts above the bound are refused before anything is allocated', () => {
    // 1,000,000 items announced in a 5-byte payload
    const p = Uint8Array.of(0xfd, 0x40, 0x42, 0x0f, 0x00);
    try {
      decodePayload(MessageCode.inventory2, p);
      throw new Error('accepted');
    } catch (e) {
      expect((e as NetworkCodecError).code).toBe('TOO_MANY');
    }
  });
});

/** Re-encodes a decoded message (keep-alives and presences back to bytes). */
function reencode(d: ReturnType<typeof decodePayload>): Uint8Array {
  const ka = (k: { unsigned: Uint8Array; signature: Uint8Array }) => encodeKeepAlive(k.unsigned, k.signature);
  const pr = (p: { address: Uint8Array; publicKey: Uint8Array; keepAlives: { unsigned: Uint8Array; signature: Uint8Array }[] }) =>
    encodePresence({ address: p.address, publicKey: p.publicKey, keepAlives: p.keepAlives.map(ka) });
  switch (d.code) {
    case MessageCode.keepAlivesChunk:
      return encodePayload({ code: d.code, keepAlives: d.keepAlives.map(ka) });
    case MessageCode.keepAlivePresence:
      return encodePayload({ code: d.code, keepAlive: ka(d.keepAlive) });
    case MessageCode.updatePresence:
      return encodePayload({ code: d.code, presence: pr(d.presence) });
    case MessageCode.sectorNodes:
      return encodePayload({ code: d.code, prefix: d.prefix, presences: d.presences.map(pr) });
    default:
      return encodePayload(d as OutgoingMessage);
  }
}

describe('keep-alive bytes', () => {
  it('decode exposes the unsigned part the signature covers', () => {
    const unsigned = encodeUnsignedKeepAlive({
      address: Uint8Array.of(0, ...new Uint8Array(32).fill(3)),
      deviceId: Uint8Array.of(0),
      timestamp: 1_700_000_000n,
      host: '127.0.0.1:10234',
      type: 'M',
      nodeVersion: 'dltnode-0.1.0',
      powSolution: null,
    });
    const k = decodeKeepAlive(encodeKeepAlive(unsigned, Uint8Array.of(9, 9)));
    expect(Buffer.from(k.unsigned).equals(Buffer.from(unsigned))).toBe(true);
    expect([k.host, k.type, k.nodeVersion, k.timestamp, k.powSolution]).toEqual(['127.0.0.1:10234', 'M', 'dltnode-0.1.0', 1_700_000_000n, null]);
  });
});

describe('splitting bulk data into frames', () => {
  it('transaction batches respect the count and the frame limit, in order, losing nothing', async () => {
    const { encodeTransactionBatches, MAX_TRANSACTIONS_PER_BATCH } = await import('../../src/network/protocol/messages.js');
    const small = Array.from({ length: 25_000 }, (_, i) => Uint8Array.of(i & 0xff, i >> 8, 1));
    const frames = encodeTransactionBatches(0n, small);
    expect(frames).toHaveLength(3);
    const big = Array.from({ length: 70 }, (_, i) => new Uint8Array(500_000).fill(i));
    const bigFrames = encodeTransactionBatches(-7n, big);
    expect(bigFrames.length).toBeGreaterThan(2);
    for (const [list, fs] of [[small, frames], [big, bigFrames]] as const) {
      const out: Uint8Array[] = [];
      for (const f of fs) {
        expect(f.length).toBeLessThanOrEqual(MAX_FRAME_BYTES_BY_CODE[MessageCode.transactionsChunk3]);
        const d = decodeFrame(f);
        const m = decodePayload(d.code, d.payload);
        if (m.code !== MessageCode.transactionsChunk3) throw new Error('code');
        expect(m.transactions.length).toBeLessThanOrEqual(MAX_TRANSACTIONS_PER_BATCH);
        out.push(...m.transactions);
      }
      expect(out.length).toBe(list.length);
      expect(out.every((t, i) => Buffer.from(t).equals(Buffer.from(list[i]!)))).toBe(true);
    }
  });

  it('transactions read from a frame held in a Buffer are copies, not views of the frame', async () => {
    const { encodeTransactionBatches } = await import('../../src/network/protocol/messages.js');
    const [f] = encodeTransactionBatches(0n, [Uint8Array.of(1, 2, 3), new Uint8Array(300).fill(7)]);
    const frame = Buffer.from(f!); // as the ws library hands a message over
    const d = decodeFrame(frame);
    const m = decodePayload(d.code, d.payload);
    if (m.code !== MessageCode.transactionsChunk3) throw new Error('code');
    for (const t of m.transactions) expect(t.buffer).not.toBe(frame.buffer);
    frame.fill(0);
    expect(m.transactions.map((t) => t.length)).toEqual([3, 300]);
    expect(m.transactions[1]!.every((b) => b === 7)).toBe(true);
  });

  it('a blocks answer takes as many blocks as fit', async () => {
    const { encodeBlocksFitting } = await import('../../src/network/protocol/messages.js');
    const blocks = Array.from({ length: 10 }, (_, i) => ({ block: new Uint8Array(100).fill(i), transactions: Array.from({ length: 10 }, () => new Uint8Array(500_000).fill(i)) }));
    const { frame, count } = encodeBlocksFitting(5n, 99n, blocks);
    expect(count).toBe(6); // 6 × ~5 MB fit in 32 MiB, 7 do not
    const d = decodeFrame(frame);
    const m = decodePayload(d.code, d.payload);
    expect(m.code === MessageCode.blocks && [m.from, m.tip, m.blocks.length]).toEqual([5n, 99n, 6]);
  });
});
