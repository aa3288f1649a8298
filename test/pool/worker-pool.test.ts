// The node's one worker pool (src/pool/index.ts): the three tasks on one pool at once, signRsa
// equal to in-process signing, each task's queue bound (PoolBusyError naming the task), close,
// the same results with threads: 0 and threads: 2, and a worker that loads only tasks/*.
// Workers load dist/pool/worker.js: run `npm run build` first.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkerPool, PoolBusyError, type RsaItem, type WorkerPool } from '../../src/pool/index.js';
import { powVerify, type PowClaim } from '../../src/core/pow.js';
import { publicKeyToBytes, signBytes, verifySignature } from '../../src/formats/rsa.js';

/** Fast test keys (2048-bit; the tasks take any RSA key the formats module accepts). */
const keys: KeyObject[] = [0, 1].map(() => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
const der = (key: KeyObject) => new Uint8Array(key.export({ format: 'der', type: 'pkcs8' }));
const data = (n: number) => new Uint8Array(44).fill(n);

/**
 * v0-rule claims (at least 14 leading zero bits required). Every third is 'nonce-7340' on the
 * seed-0 checksum, whose v0 hash has 20 leading zero bits (test/core/pow.test.ts): it passes at
 * 14..20 required bits.
 */
function claims(n: number, seed: number): PowClaim[] {
  const checksum = (s: number) => new Uint8Array(44).map((_, i) => i * 7 + s);
  const address = new Uint8Array(48).map((_, i) => i ^ 0x5a);
  return Array.from({ length: n }, (_, i) => {
    const known = i % 3 === 1;
    return {
      blockChecksum: checksum(known ? 0 : seed), solverAddress: address, blockVersion: 0, difficulty: BigInt(14 + (i % 8)),
      nonce: i % 4 === 3 ? new Uint8Array(0) : new TextEncoder().encode(known ? 'nonce-7340' : `nonce-${seed}-${i}`),
    };
  });
}

function rsaItems(n: number): { items: RsaItem[]; expected: boolean[] } {
  const items: RsaItem[] = [];
  const expected: boolean[] = [];
  for (let i = 0; i < n; i++) {
    const key = keys[i % 2]!;
    const signature = signBytes(key, data(i));
    const tampered = i % 3 === 2;
    items.push({ publicKey: publicKeyToBytes(key), data: tampered ? data(i + 100) : data(i), signature });
    expected.push(!tampered);
  }
  items.push({ publicKey: Uint8Array.of(1, 2, 3), data: data(0), signature: new Uint8Array(256) });
  expected.push(false);
  return { items, expected };
}

describe.each([0, 2])('worker pool, threads %i', (threads) => {
  let pool: WorkerPool;
  const tasks: { name: string; items: number; buffer: ArrayBuffer }[] = [];
  beforeAll(() => {
    pool = createWorkerPool({ threads, batchMaxItems: { verifyRsa: 4, signRsa: 2 }, onTask: (t) => tasks.push(t) });
  });
  afterAll(() => pool.close());

  it('signRsa gives the signature in-process signing gives, and it verifies', async () => {
    const items = [0, 1, 2, 3, 4].map((n) => ({ privateKeyDer: der(keys[n % 2]!), data: data(n) }));
    const signatures = await pool.signRsa(items);
    expect(signatures.map((s) => Buffer.from(s).toString('hex'))).toEqual(items.map((i, n) => Buffer.from(signBytes(keys[n % 2]!, i.data)).toString('hex')));
    signatures.forEach((s, n) => expect(verifySignature(publicKeyToBytes(keys[n % 2]!), data(n), s)).toBe(true));
    expect(await pool.signRsa([])).toEqual([]);
  });

  it('a refused signing key rejects its own call, naming the item; other calls still sign', async () => {
    const good = pool.signRsa([{ privateKeyDer: der(keys[0]!), data: data(1) }]);
    const bad = pool.signRsa([{ privateKeyDer: der(keys[0]!), data: data(1) }, { privateKeyDer: Uint8Array.of(0x30, 1, 2), data: data(1) }]);
    await expect(bad).rejects.toMatchObject({ code: 'ERR_RSA_KEY', message: expect.stringMatching(/^item 1: private key/) });
    expect(await good).toHaveLength(1);
    await expect(pool.signRsa([{ privateKeyDer: 'x' as unknown as Uint8Array, data: data(1) }])).rejects.toThrow(/item 0: privateKeyDer must be a Uint8Array/);
  });

  it('runs PoW, RSA verification and RSA signing on one pool at once, each equal to in-process', async () => {
    tasks.length = 0;
    const pow = claims(9, threads);
    const rsa = rsaItems(9);
    const sign = [{ privateKeyDer: der(keys[1]!), data: data(7) }];
    const [powOut, rsaOut, rsaSplit, signOut] = await Promise.all([
      pool.verifyPow(pow),
      pool.verifyRsa(rsa.items),
      Promise.all(rsa.items.map((i) => pool.verifyRsa([i]))),
      pool.signRsa(sign),
    ]);
    expect(powOut).toEqual(pow.map((c) => powVerify(c)));
    expect(powOut).toContain(true);
    expect(rsaOut).toEqual(rsa.expected);
    expect(rsaSplit.flat()).toEqual(rsa.expected);
    expect(signOut[0]).toEqual(signBytes(keys[1]!, data(7)));
    if (threads > 0) {
      expect(new Set(tasks.map((t) => t.name))).toEqual(new Set(['verifyPow', 'verifyRsa', 'signRsa']));
      expect(tasks.filter((t) => t.name === 'verifyRsa').every((t) => t.items <= 4)).toBe(true);
      expect(tasks.every((t) => t.buffer.byteLength === 0)).toBe(true); // every task was transferred
    } else {
      expect(tasks).toEqual([]);
    }
    for (const task of ['verifyPow', 'verifyRsa', 'signRsa'] as const) expect(pool.pending(task)).toBe(0);
  });

  it('answers for the bytes given at the call: a caller reusing its buffers afterwards changes nothing', async () => {
    const key = keys[0]!;
    const item = { publicKey: publicKeyToBytes(key), data: data(5), signature: signBytes(key, data(5)) };
    const signItem = { privateKeyDer: der(key), data: data(6) };
    const verified = pool.verifyRsa([item]);
    const signed = pool.signRsa([signItem]);
    item.signature.fill(0);
    item.data.fill(9);
    signItem.data.fill(9);
    expect(await verified).toEqual([true]);
    expect(await signed).toEqual([signBytes(key, data(6))]);
  });

  it('rejects malformed RSA items with a TypeError naming the item', async () => {
    await expect(pool.verifyRsa('x' as unknown as RsaItem[])).rejects.toThrow(TypeError);
    await expect(pool.verifyRsa([{ publicKey: new Uint8Array(1), data: null, signature: new Uint8Array(1) } as unknown as RsaItem])).rejects.toThrow(/item 0: data/);
  });
});

/** The nice value of each thread of this process (Linux: field 19 of /proc/self/task/T/stat). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').flatMap((t) => {
    try {
      return [Number(readFileSync(`/proc/self/task/${t}/stat`, 'utf8').split(') ')[1]!.split(' ')[16])];
    } catch {
      return []; // the thread ended meanwhile
    }
  });
}

describe("the built-in miner's own threads", () => {
  it('a search runs on a thread of its own at the lowest priority: a verification is answered while it runs', async () => {
    const pool = createWorkerPool({ threads: 1, minerThreads: 2 });
    try {
      const { items, expected } = rsaItems(4);
      expect(await pool.verifyRsa(items)).toEqual(expected); // the shared worker is up
      if (process.platform === 'linux') expect(threadNices()).not.toContain(19); // no miner thread before it mines
      // A search that finds nothing (the hardest difficulty) over many nonces: seconds of Argon2.
      let searched = false;
      const search = pool.searchPow([{ blockChecksum: new Uint8Array(44).fill(9), solverAddress: new Uint8Array(45).fill(1), difficulty: 0xffff_ffff_ffff_ffffn, prefix: new Uint8Array(28).fill(3), start: 0, count: 600 }]).then((r) => {
        searched = true;
        return r;
      });
      // The miner's thread starts (its priority set first thing) and hashes: wait for it, bounded
      // (a fixed 200 ms was too short for a worker to start on a loaded machine).
      for (let i = 0; i < 100 && process.platform === 'linux' && !threadNices().includes(19); i++) await new Promise((r) => setTimeout(r, 50));
      // On the shared worker the verification would have waited for the whole search.
      expect(await pool.verifyRsa(items)).toEqual(expected);
      expect(searched).toBe(false);
      // Threads start on demand: one job in flight, one miner thread (the shared worker keeps its priority).
      if (process.platform === 'linux') expect(threadNices().filter((n) => n === 19)).toHaveLength(1);
      const [r] = await search;
      expect(r!.tried).toBe(600);
      expect(r!.nonce).toBeNull();
    } finally {
      await pool.close();
    }
  });

  it('minerThreads must be a positive integer', () => {
    expect(() => createWorkerPool({ threads: 1, minerThreads: 0 })).toThrow(/minerThreads/);
  });
});

describe("consensus's own thread", () => {
  it("a block's signing and its urgent checks are answered while thousands of transaction checks are queued on the shared thread", async () => {
    const pool = createWorkerPool({ threads: 1 });
    try {
      const { items, expected } = rsaItems(4);
      expect(await pool.verifyRsa(items, { urgent: true })).toEqual(expected); // the consensus thread is up
      // A peer's push: ~12,000 checks queued on the one shared thread (a few hundred ms of work).
      const backlog = Array.from({ length: 12_000 }, () => items[0]!);
      let backlogDone = false;
      const bulk = pool.verifyRsa(backlog).then((r) => {
        backlogDone = true;
        return r;
      });
      expect(pool.pending('verifyRsa')).toBe(12_000);
      const [signature] = await pool.signRsa([{ privateKeyDer: der(keys[0]!), data: data(7) }]);
      expect(verifySignature(publicKeyToBytes(keys[0]!), data(7), signature!)).toBe(true);
      expect(await pool.verifyRsa(items, { urgent: true })).toEqual(expected);
      // Behind the backlog (the shared thread, FIFO), both would have waited for all of it.
      expect(backlogDone).toBe(false);
      expect(pool.foregroundPending()).toBeGreaterThan(0);
      expect((await bulk).every((ok) => ok === expected[0])).toBe(true);
    } finally {
      await pool.close();
    }
  });
});

describe('verifyRsa first', () => {
  it('goes ahead of the checks still queued, behind what the worker already holds; without it, behind all of them', async () => {
    const pool = createWorkerPool({ threads: 1 });
    try {
      const { items, expected } = rsaItems(4);
      // More than the worker is handed at once (64 tasks of 64): the rest waits in the lane.
      const backlog = Array.from({ length: 12_000 }, () => items[0]!);
      const order: string[] = [];
      const bulk = pool.verifyRsa(backlog).then(() => order.push('backlog'));
      const plain = pool.verifyRsa(items).then((r) => (order.push('plain'), r));
      const first = pool.verifyRsa(items, { first: true }).then((r) => (order.push('first'), r));
      expect(await first).toEqual(expected);
      expect(await plain).toEqual(expected);
      await bulk;
      expect(order).toEqual(['first', 'backlog', 'plain']);
    } finally {
      await pool.close();
    }
  });
});

describe('worker pool bounds and close', () => {
  it('verifyRsa past its bound rejects with PoolBusyError naming the task, then recovers', async () => {
    const pool = createWorkerPool({ threads: 1, maxQueue: { verifyRsa: 8 } });
    try {
      const { items, expected } = rsaItems(7); // 8 items with the unusable key
      const first = pool.verifyRsa(items);
      expect(pool.pending('verifyRsa')).toBe(8);
      expect(pool.canAccept('verifyRsa', 1)).toBe(false);
      expect(pool.canAccept('verifyPow', 1)).toBe(true); // each task has its own queue
      const second = pool.verifyRsa(items.slice(0, 1));
      await expect(second).rejects.toBeInstanceOf(PoolBusyError);
      await expect(second).rejects.toMatchObject({ code: 'POOL_BUSY', task: 'verifyRsa', limit: 8, pending: 8, requested: 1, message: expect.stringMatching(/^RSA verifier is busy/) });
      expect(await first).toEqual(expected);
      expect(pool.pending('verifyRsa')).toBe(0);
      expect(pool.canAccept('verifyRsa', 8)).toBe(true);
      expect(pool.canAccept('verifyRsa', 9)).toBe(false);
      expect(await pool.verifyRsa(items.slice(0, 1))).toEqual(expected.slice(0, 1));
    } finally {
      await pool.close();
    }
  });

  it('signRsa past its bound rejects with PoolBusyError naming the task', async () => {
    const pool = createWorkerPool({ threads: 1, maxQueue: { signRsa: 2 } });
    try {
      const item = { privateKeyDer: der(keys[0]!), data: data(3) };
      const first = pool.signRsa([item, item]);
      await expect(pool.signRsa([item])).rejects.toMatchObject({ code: 'POOL_BUSY', task: 'signRsa', message: expect.stringMatching(/^RSA signer is busy: 2 signatures pending/) });
      expect(await first).toHaveLength(2);
    } finally {
      await pool.close();
    }
  });

  it('close() finishes started work of every task, then refuses with errors naming the task; twice is fine', async () => {
    const pool = createWorkerPool({ threads: 1, batchDelayMs: 5 });
    const pow = claims(3, 9);
    const { items, expected } = rsaItems(3);
    const running = [pool.verifyPow(pow), pool.verifyRsa(items), pool.signRsa([{ privateKeyDer: der(keys[0]!), data: data(2) }])] as const;
    await pool.close();
    expect(await running[0]).toEqual(pow.map((c) => powVerify(c)));
    expect(await running[1]).toEqual(expected);
    expect(await running[2]).toHaveLength(1);
    expect(pool.canAccept('verifyRsa')).toBe(false);
    await expect(pool.verifyPow(pow)).rejects.toMatchObject({ code: 'POOL_CLOSED', message: expect.stringMatching(/^PoW verifier is closed/) });
    await expect(pool.verifyRsa(items)).rejects.toMatchObject({ code: 'POOL_CLOSED', message: expect.stringMatching(/^RSA verifier is closed/) });
    await expect(pool.signRsa([])).rejects.toMatchObject({ code: 'POOL_CLOSED', message: expect.stringMatching(/^RSA signer is closed/) });
    await pool.close();
  });

  it('validates its options', () => {
    expect(() => createWorkerPool({ threads: 1.5 })).toThrow(/createWorkerPool threads: expected an integer ≥ 0/);
    expect(() => createWorkerPool({ threads: 0, maxQueue: { verifyRsa: 0 } })).toThrow(/maxQueue.verifyRsa/);
    expect(() => createWorkerPool({ threads: 0, batchMaxItems: { signRsa: -1 } })).toThrow(/batchMaxItems.signRsa/);
  });
});

describe('worker entry', () => {
  it('worker.ts and tasks/* import only tasks, core, formats and libraries (no main-thread pool code)', () => {
    const pool = resolve(dirname(fileURLToPath(import.meta.url)), '../../src/pool');
    const files = ['worker.ts', 'tasks/types.ts', 'tasks/codec.ts', 'tasks/pow.ts', 'tasks/rsa.ts'];
    for (const file of files) {
      const source = readFileSync(join(pool, file), 'utf8');
      const specifiers = [...source.matchAll(/^(?:import|export)[^;]*? from '([^']+)'/gms)].map((m) => m[1]!);
      expect(specifiers.length).toBeGreaterThan(0);
      for (const spec of specifiers) {
        const target = spec.startsWith('.') ? resolve(dirname(join(pool, file)), spec) : spec;
        const allowed = !spec.startsWith('.') || target.startsWith(join(pool, 'tasks')) || /\/src\/(core|formats)\//.test(target);
        expect(allowed, `${file} imports ${spec}`).toBe(true);
      }
    }
  });
});
