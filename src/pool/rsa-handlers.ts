/**
 * RSA signature verification (reference-formats.md §6.2: PKCS#1 v1.5, SHA-512) in the worker
 * pool, for transaction admission. The worker side is the `verifyRsa` handler, registered by one
 * export line in worker.ts; the main side, `createRsaVerifier`, gathers the items of every call made
 * in the same macrotask into tasks of at most `batchMaxItems`, so many small submissions share one
 * hand-off. A worker keeps parsed public keys in the formats module's cache (senders repeat).
 *
 * Task wire format (one transferred ArrayBuffer, little-endian): u32 count, then per item u16 key
 * length, u16 data length, u16 signature length, key, data, signature. Result: one byte per item.
 */
import { Piscina } from 'piscina';
import { verifySignature } from '../formats/rsa.js';
import { PoolClosedError } from './errors.js';
import { poolWorkerFile } from './verifier.js';

export interface RsaItem {
  /** Serialized public key (§6.1). */
  publicKey: Uint8Array;
  /** The signed bytes (a transaction checksum). */
  data: Uint8Array;
  signature: Uint8Array;
}

const TASK_NAME = 'verifyRsa';
const COUNT_BYTES = 4;
const ITEM_HEADER_BYTES = 6;
const MAX_PART = 0xffff;
/**
 * Items per task: ~70–110 µs each, so a full task is ~4–7 ms of work against a ~50–100 µs
 * hand-off, and results come back often enough for admission to stream (src/chain/mempool.ts).
 */
const DEFAULT_BATCH_MAX_ITEMS = 64;

/** In-process check of one item; a part too long for the wire format is simply invalid. */
const verifyOne = (i: RsaItem): boolean => {
  try {
    return verifySignature(i.publicKey, i.data, i.signature);
  } catch {
    return false;
  }
};

export function packRsaItems(items: readonly RsaItem[]): ArrayBuffer {
  let size = COUNT_BYTES;
  for (const i of items) size += ITEM_HEADER_BYTES + i.publicKey.length + i.data.length + i.signature.length;
  const buffer = new ArrayBuffer(size);
  const view = new DataView(buffer);
  const bytes = new Uint8Array(buffer);
  view.setUint32(0, items.length, true);
  let at = COUNT_BYTES;
  for (const i of items) {
    view.setUint16(at, i.publicKey.length, true);
    view.setUint16(at + 2, i.data.length, true);
    view.setUint16(at + 4, i.signature.length, true);
    at += ITEM_HEADER_BYTES;
    for (const part of [i.publicKey, i.data, i.signature]) {
      bytes.set(part, at);
      at += part.length;
    }
  }
  return buffer;
}

export function unpackRsaItems(buffer: ArrayBuffer): RsaItem[] {
  const view = new DataView(buffer);
  const bytes = new Uint8Array(buffer);
  const count = view.getUint32(0, true);
  const items: RsaItem[] = [];
  let at = COUNT_BYTES;
  for (let n = 0; n < count; n++) {
    const lengths = [view.getUint16(at, true), view.getUint16(at + 2, true), view.getUint16(at + 4, true)];
    at += ITEM_HEADER_BYTES;
    const [publicKey, data, signature] = lengths.map((len) => {
      if (at + len > bytes.length) throw new RangeError(`packed RSA task: item ${n} runs past the end of the task`);
      const part = bytes.subarray(at, at + len);
      at += len;
      return part;
    }) as [Uint8Array, Uint8Array, Uint8Array];
    items.push({ publicKey, data, signature });
  }
  return items;
}

/** Worker handler: verifies a packed batch, one byte per item (1 = valid), moved back. */
export function verifyRsa(task: ArrayBuffer): Uint8Array {
  const items = unpackRsaItems(task);
  const out = new Uint8Array(items.length);
  for (let n = 0; n < items.length; n++) out[n] = verifyOne(items[n]!) ? 1 : 0;
  return Piscina.move(out) as Uint8Array;
}

export interface RsaVerifier {
  /** One boolean per item, in order. */
  verify(items: readonly RsaItem[]): Promise<boolean[]>;
  /** Finishes running work and stops the workers. Idempotent. */
  close(): Promise<void>;
}

export interface RsaVerifierOptions {
  /** Worker threads; 0 = verify on the calling thread. */
  threads: number;
  batchMaxItems?: number;
}

interface Waiting {
  item: RsaItem;
  done(ok: boolean): void;
  fail(err: unknown): void;
}

export function createRsaVerifier(options: RsaVerifierOptions): RsaVerifier {
  const { threads } = options;
  if (!Number.isInteger(threads) || threads < 0) throw new RangeError(`createRsaVerifier threads: expected an integer ≥ 0, got ${String(threads)}`);
  const batchMax = options.batchMaxItems ?? DEFAULT_BATCH_MAX_ITEMS;
  const pool = threads === 0 ? undefined : new Piscina({
    filename: poolWorkerFile(),
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Number.MAX_SAFE_INTEGER,
    // No per-task run/wait-time histograms: nothing reads them, and admission posts many tasks.
    recordTiming: false,
  });
  let closed = false;
  let queue: Waiting[] = [];
  let scheduled = false;
  // Tasks in flight are capped at two per worker; items arriving meanwhile wait and leave together
  // when a task completes, so batches grow with the load instead of each request paying a hand-off.
  const maxInFlight = Math.max(1, threads) * 2;
  let inFlight = 0;

  const send = (batch: Waiting[]): void => {
    const buffer = packRsaItems(batch.map((w) => w.item));
    inFlight++;
    (pool!.run(buffer, { name: TASK_NAME, transferList: [buffer] }) as Promise<Uint8Array>)
      .then(
        (res) => batch.forEach((w, n) => w.done(res[n] === 1)),
        (err: unknown) => batch.forEach((w) => w.fail(err)),
      )
      .finally(() => {
        inFlight--;
        if (queue.length > 0 && !scheduled) flush();
      });
  };
  const flush = (): void => {
    scheduled = false;
    while (queue.length > 0 && inFlight < maxInFlight) {
      // Spread what waits over the free task slots, at most batchMax items per task.
      const per = Math.max(1, Math.min(batchMax, Math.ceil(queue.length / (maxInFlight - inFlight))));
      send(queue.splice(0, per));
    }
  };

  return {
    async verify(items) {
      if (closed) throw new PoolClosedError();
      const tooLong = (i: RsaItem) => i.publicKey.length > MAX_PART || i.data.length > MAX_PART || i.signature.length > MAX_PART;
      if (!pool) return items.map((i) => !tooLong(i) && verifyOne(i));
      return Promise.all(
        items.map((item) =>
          tooLong(item)
            ? false
            : new Promise<boolean>((done, fail) => {
                queue.push({ item, done, fail });
                if (!scheduled) {
                  scheduled = true;
                  setImmediate(flush);
                }
              }),
        ),
      );
    },
    async close() {
      if (closed) return;
      closed = true;
      while (queue.length > 0) send(queue.splice(0, batchMax)); // nothing is left waiting
      await pool?.close();
    },
  };
}
