// Connection floods (issue 13 §1 and §4c), shared by the short slow-reader check in `npm test` and
// the full floods in `npm run test:slow`: slowloris (heads that never finish), idle connections
// (nothing sent), and slow readers (pipelined `txa` pages of the largest count, never read), each
// while `status` is timed on fresh connections and the node's resident memory is sampled.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNode, type NodeProcess } from '../e2e/harness.js';
import { portOf } from '../rpc/raw-http.js';
import { MAX_UNSENT_BYTES, UNSENT_BUDGET_BYTES } from '../../src/rpc/transport-http.js';
import { alive, INSPECT_ARGS, openMemoryProbe, retainedBytes, rssOf, statusLatency, type MemoryProbe } from './lib.js';

const STRANGER = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MB = 1024 * 1024;

export interface FloodOptions {
  /** Payments made first, so `txa` pages are full (~1.6 kB per transaction). */
  transactions: number;
  slowReaders: number;
  slowloris: number;
  idle: number;
  /** How long each flood lasts. */
  seconds: number;
}

/** Seconds between blocks of the node under test. */
const BLOCK_INTERVAL_S = 1;

/**
 * What the floods are judged against, measured in the same run on an idle node, so the bounds
 * follow the machine's speed and load: `pageMs` is one full `txa` page alone (median of 5), the
 * unit of work a slow reader costs.
 */
interface Baseline {
  pageMs: number;
  pageBytes: number;
  statusMs: number;
  rss: number;
  /** Memory kept after a full collection ({@link retainedBytes}). */
  kept: number;
}

/**
 * `status` must answer within this during the slow-reader flood: the time of {@link STATUS_PAGES}
 * page builds measured alone, at least {@link STATUS_FLOOR_MS}. Before the fix, pages were built at
 * once, so a `status` after N readers' requests waited for all N builds: 2.6–4.3 s for 50 readers
 * (27–28 page builds), 14.7 s for 200; now it waits for a few slices of 4 ms (src/rpc/heavy.ts).
 */
const statusBoundMs = (b: Baseline): number => Math.max(STATUS_FLOOR_MS, STATUS_PAGES * b.pageMs);
const STATUS_PAGES = 10;
const STATUS_FLOOR_MS = 1_000;
/**
 * The connection floods (slowloris, idle) cost no page builds; their bound is twice as generous,
 * as their connections arrive in bursts of a hundred, and libuv accepts one per event-loop turn.
 */
const connectionFloodBoundMs = (b: Baseline): number => 2 * statusBoundMs(b);
/**
 * What the node may keep for the slow readers beyond what it kept before them, after a full garbage
 * collection: the replies they do not take, at most {@link UNSENT_BUDGET_BYTES} node-wide (one
 * connection may pass its share by one reply before it is closed: {@link MAX_UNSENT_BYTES}), and
 * the page being built (one at a time, src/rpc/heavy.ts) with its JSON text. Measured: +4 MB for 50
 * readers, +11 MB for 200 (the kernel's socket buffers take most replies). With every reader's page
 * built at once (MAX_HEAVY_BUILDS unbounded): +81 MB for 50 readers.
 *
 * Retained memory, not RSS: RSS also counts garbage the collector has not taken yet and heap pages
 * V8 keeps after a collection, so it moved by tens of MB between runs of the same code (+55 to
 * +100 MB for 200 readers) with when the collector happened to run.
 */
const keptBoundBytes = (b: Baseline): number => UNSENT_BUDGET_BYTES + MAX_UNSENT_BYTES + 4 * b.pageBytes;
/**
 * Once the readers are gone, the node keeps no more than this of what it held for them (per-socket
 * state, caches warmed by the pages): a fraction of one reader's page.
 */
const AFTER_BOUND_BYTES = 8 * MB;

interface Probe {
  latencies: number[];
  rssMax: number;
  /** Largest memory kept after a full collection ({@link retainedBytes}), when a memory probe is given. */
  keptMax: number;
  stop(): Promise<void>;
}

/**
 * Times `status` every 250 ms and samples RSS until stopped; with `memory`, also the memory the node
 * keeps, after the status call so the collection's pause is not timed.
 */
function probe(node: NodeProcess, memory?: MemoryProbe): Probe {
  const p: Probe = { latencies: [], rssMax: 0, keptMax: 0, stop: async () => undefined };
  let running = true;
  const loop = (async () => {
    while (running) {
      p.latencies.push(await statusLatency(node.url, 10_000));
      p.rssMax = Math.max(p.rssMax, await rssOf(node.child.pid!));
      if (memory) p.keptMax = Math.max(p.keptMax, retainedBytes(await memory.afterGc()));
      await sleep(250);
    }
  })();
  p.stop = async () => {
    running = false;
    await loop;
  };
  return p;
}

/** The figures the floods are judged against (see {@link Baseline}). */
async function baseline(node: NodeProcess, memory: MemoryProbe): Promise<Baseline> {
  const pages: number[] = [];
  let pageBytes = 0;
  for (let i = 0; i < 6; i++) {
    const t = performance.now();
    const page = await node.http('/txa?count=1000');
    if (i > 0) pages.push(performance.now() - t); // the first warms the caches up
    pageBytes = page.text.length;
  }
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++) statuses.push(await statusLatency(node.url));
  return { pageMs: median(pages), pageBytes, statusMs: median(statuses), rss: await rssOf(node.child.pid!), kept: retainedBytes(await memory.afterGc()) };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function summary(latencies: number[]): { n: number; p50: number; p99: number; max: number } {
  const s = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN);
  // Infinity (no answer) stays Infinity, which JSON would print as null.
  return { n: s.length, p50: at(0.5), p99: at(0.99), max: s.length ? Math.round(s[s.length - 1]!) : NaN };
}
const show = (x: object): string => JSON.stringify(x, (_k, v) => (v === Infinity ? 'none' : v));

function open(port: number): Promise<Socket> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.on('error', () => undefined);
    s.once('connect', () => resolve(s));
    s.once('close', () => resolve(s));
  });
}

export function floodSuite(o: FloodOptions): void {
  let node: NodeProcess;
  let port: number;
  let base: Baseline;
  let memory: MemoryProbe;

  beforeAll(async () => {
    node = await startNode({ blockInterval: BLOCK_INTERVAL_S, nodeArgs: INSPECT_ARGS });
    memory = await openMemoryProbe(node);
    port = portOf(node.url);
    let made = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (made < o.transactions) {
          made++;
          await node.call('addTransaction', { to: `${STRANGER}_0.01` });
        }
      }),
    );
    await node.waitFor(async () => Object.keys(await node.call('txu', { count: 10 })).length === 0, 'the pool to drain', 120_000);
    base = await baseline(node, memory);
    console.log(
      `baseline: a txa page of ${(base.pageBytes / MB).toFixed(2)} MB in ${Math.round(base.pageMs)} ms, status ${base.statusMs.toFixed(1)} ms, RSS ${(base.rss / MB).toFixed(0)} MB; ` +
        `status bound during the floods ${Math.round(statusBoundMs(base))} ms (connection floods ${Math.round(connectionFloodBoundMs(base))} ms)`,
    );
  }, 600_000);
  afterAll(async () => {
    memory?.close();
    await node?.stop();
  });

  describe('floods while status keeps answering', () => {
    it(`${o.slowReaders} slow readers of pipelined txa pages: bounded memory, status and blocks go on`, async () => {
      const bound = statusBoundMs(base);
      const request = 'GET /txa?count=1000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'.repeat(20);
      const sockets = await Promise.all(Array.from({ length: o.slowReaders }, () => open(port)));
      const h0 = await node.height();
      const t0 = Date.now();
      for (const s of sockets) {
        s.pause(); // never read
        s.write(request);
      }
      // Each connection costs one page build at first, as a reading client would (the count limit
      // bounds that), built in slices among everything else; its other 19 requests wait until it reads.
      const firstWave = await statusLatency(node.url, 30_000);
      const p = probe(node, memory);
      await sleep(o.seconds * 1000);
      await p.stop();
      const blocks = (await node.height()) - h0;
      const elapsed = (Date.now() - t0) / 1000;
      for (const s of sockets) s.destroy();
      // Heavy calls take their turns in arrival order: once a page asked now is answered, every
      // reader's call before it was built or, its caller gone, dropped (src/rpc/dispatch.ts).
      const lastPage = await node.http('/txa?count=1000');
      const after = retainedBytes(await memory.afterGc());
      const stats = summary(p.latencies);
      const mb = (x: number): string => (x / MB).toFixed(1);
      console.log(
        `slow readers: ${o.slowReaders} × 20 pipelined pages for ${o.seconds} s; first status ${Math.round(firstWave)} ms, then status ms ${show(stats)} (bound ${Math.round(bound)}); ` +
          `${blocks} blocks in ${elapsed.toFixed(1)} s; kept after GC ${mb(base.kept)} → max ${mb(p.keptMax)} MB (bound +${mb(keptBoundBytes(base))}), ` +
          `${mb(after)} MB once they closed (bound +${mb(AFTER_BOUND_BYTES)}); RSS ${mb(base.rss)} → max ${mb(p.rssMax)} MB (not judged)`,
      );
      expect(lastPage.status).toBe(200);
      expect(alive(node)).toBe(true);
      expect(base.pageBytes).toBeGreaterThan(0.5 * MB);
      expect(firstWave).toBeLessThan(bound);
      expect(stats.max).toBeLessThan(bound);
      // Block production keeps its pace: at least half the blocks the interval asks for.
      expect(blocks).toBeGreaterThanOrEqual(Math.floor(elapsed / BLOCK_INTERVAL_S / 2));
      expect(p.keptMax - base.kept).toBeLessThan(keptBoundBytes(base));
      expect(after - base.kept).toBeLessThan(AFTER_BOUND_BYTES);
    }, 600_000);

    if (o.slowloris > 0) {
      it(`${o.slowloris} slowloris connections: heads cut off by the node, status within its bound`, async () => {
        const p = probe(node);
        let cut = 0;
        let longest = 0; // the longest a loris connection stayed open
        // Long enough for every first-round loris to meet the 10-s headers timeout even when the
        // node (or a shared machine) accepts late: each must have been cut at least once.
        const seconds = Math.max(o.seconds, 25);
        const until = Date.now() + seconds * 1000;
        const lorises = Array.from({ length: o.slowloris }, async () => {
          while (Date.now() < until) {
            const s = await open(port);
            const opened = Date.now();
            s.write('GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\n');
            while (!s.destroyed && Date.now() < until) {
              s.write('X');
              await sleep(1000);
              if (s.readableEnded || s.destroyed) break;
            }
            if (Date.now() < until) cut++;
            longest = Math.max(longest, Date.now() - opened);
            s.destroy();
          }
        });
        await Promise.all(lorises);
        await p.stop();
        const stats = summary(p.latencies);
        console.log(
          `slowloris: ${o.slowloris} connections for ${seconds} s, ${cut} cut off by the node, the longest open ${(longest / 1000).toFixed(1)} s; status ms ${show(stats)}`,
        );
        expect(alive(node)).toBe(true);
        expect(stats.max).toBeLessThan(connectionFloodBoundMs(base));
        // Request heads must be complete within 10 s (HEADERS_TIMEOUT_MS), checked every second.
        expect(cut).toBeGreaterThanOrEqual(o.slowloris);
        expect(longest).toBeLessThan(seconds * 1000);
      }, 600_000);
    }

    if (o.idle > 0) {
      it(`${o.idle} idle connections: status within its bound`, async () => {
        const p = probe(node);
        const sockets: Socket[] = [];
        for (let i = 0; i < o.idle; i += 100) sockets.push(...(await Promise.all(Array.from({ length: Math.min(100, o.idle - i) }, () => open(port)))));
        const openedAt = Date.now();
        await sleep(o.seconds * 1000);
        await p.stop();
        const closedByNode = sockets.filter((s) => s.destroyed || s.readableEnded).length;
        for (const s of sockets) s.destroy();
        const stats = summary(p.latencies);
        console.log(`idle: ${sockets.length} connections held ${Math.round((Date.now() - openedAt) / 1000)} s, ${closedByNode} closed by the node; status ms ${show(stats)}`);
        expect(alive(node)).toBe(true);
        expect(stats.max).toBeLessThan(connectionFloodBoundMs(base));
      }, 600_000);
    }
  });
}
