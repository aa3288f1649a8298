/**
 * Heavy replies (issue 13 §1): a `txa` page of 1,000 transactions is ~1.6 MB of JSON and tens of
 * milliseconds of work. Built at once, 50 such calls arriving together held the event loop for
 * seconds (`status` 2–6 s, blocks late; 200 callers: 13–25 s). Two rules make them fair:
 *
 * - a heavy reply is built in slices of at most {@link SLICE_MS}, yielding to the event loop between
 *   slices (`setImmediate`: the I/O that arrived meanwhile is served first). Short turns matter
 *   beyond the calls in progress: libuv accepts one new connection per event-loop turn, so a
 *   `status` on a new connection behind 200 others waits 200 turns;
 * - one heavy call is built at a time, node-wide (per dispatcher); the others wait their turn in
 *   arrival order, and one whose caller has gone meanwhile is dropped unbuilt.
 */

/** Pages of more entries than this are heavy (a smaller one is built at once in a few ms). */
export const HEAVY_PAGE_ENTRIES = 100;

/** Longest stretch a heavy build holds the event loop before it yields. */
export const SLICE_MS = 4;
/** Entries built between two looks at the clock. */
const CLOCK_EVERY = 8;

/** Heavy calls built at once; the rest queue (arrival order). */
export const MAX_HEAVY_BUILDS = 1;

/** Resolves on a later turn of the event loop, after pending I/O callbacks. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Calls `each` on every item, yielding to the event loop every {@link SLICE_MS}. */
export async function inSlices<T>(items: readonly T[], each: (item: T) => void): Promise<void> {
  let start = performance.now();
  for (let i = 0; i < items.length; i++) {
    each(items[i]!);
    if (i % CLOCK_EVERY === CLOCK_EVERY - 1 && performance.now() - start >= SLICE_MS) {
      await nextTurn();
      start = performance.now();
    }
  }
}

/** A counting gate: at most `limit` tasks run at once, the others start in arrival order. */
export class HeavyGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit = MAX_HEAVY_BUILDS) {}

  /** Tasks running now, and waiting for a turn (metrics, tests). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  async run<T>(task: () => T | Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next(); // the slot passes to the next caller
      else this.running--;
    }
  }
}
