// Heavy replies (issue 13 §1; src/rpc/heavy.ts): built in slices that let other work run, one at a
// time node-wide, and not at all when the caller left before its turn.
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/rpc/dispatch.js';
import { HeavyGate, inSlices, nextTurn, SLICE_MS } from '../../src/rpc/heavy.js';
import type { MethodDef } from '../../src/rpc/types.js';
import { silentLogger } from '../../src/log/logger.js';

const busy = (ms: number): void => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

describe('inSlices', () => {
  it('visits every item in order and lets I/O callbacks and timers run between slices', async () => {
    const seen: number[] = [];
    let interleaved = 0;
    const timer = setInterval(() => interleaved++, 0);
    const items = Array.from({ length: 400 }, (_, i) => i);
    const t0 = performance.now();
    await inSlices(items, (i) => {
      busy(0.1); // 400 × 0.1 ms: 40 ms of work, ten slices of 4 ms
      seen.push(i);
    });
    clearInterval(timer);
    expect(seen).toEqual(items);
    expect(performance.now() - t0).toBeGreaterThan(30);
    expect(interleaved).toBeGreaterThan(0);
  });

  it('holds the event loop at most a slice at a time', async () => {
    const gaps: number[] = [];
    let last = performance.now();
    let running = true;
    const tick = (): void => {
      const now = performance.now();
      gaps.push(now - last);
      last = now;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    await inSlices(Array.from({ length: 300 }, (_, i) => i), () => busy(0.2));
    running = false;
    await nextTurn();
    // A build at once would show one gap of 60 ms; slices leave gaps of about SLICE_MS (the clock
    // is read every 8 entries: at most 1.6 ms past it), with room for a loaded machine.
    expect(gaps.length).toBeGreaterThan(5);
    expect(Math.max(...gaps)).toBeLessThan(SLICE_MS + 30);
  });
});

describe('HeavyGate', () => {
  it('runs one task at a time, in arrival order, and passes on after a failure', async () => {
    const gate = new HeavyGate();
    const log: string[] = [];
    let active = 0;
    let most = 0;
    const task = (name: string, fail = false) =>
      gate.run(async () => {
        active++;
        most = Math.max(most, active);
        log.push(`start ${name}`);
        await nextTurn();
        await nextTurn();
        log.push(`end ${name}`);
        active--;
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([task('a'), task('b', true), task('c')]);
    expect(most).toBe(1);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(gate.load).toEqual({ running: 0, waiting: 0 });
  });
});

describe('Dispatcher with heavy calls', () => {
  const built: number[] = [];
  const page: MethodDef<unknown> = {
    name: 'page',
    group: 'Test',
    summary: 'A page',
    params: [{ name: 'count', kind: 'integer', default: 10, description: 'entries' }],
    result: { description: 'entries' },
    heavy: (p) => (p.count as number) > 100,
    handler: async (p) => {
      built.push(p.count as number);
      const out: number[] = [];
      await inSlices(Array.from({ length: p.count as number }, (_, i) => i), (i) => out.push(i));
      return out.length;
    },
  };
  const d = new Dispatcher({ methods: [page], context: {}, log: silentLogger() });
  const call = (count: number, gone?: () => boolean) =>
    d.dispatch({ method: 'page', params: { count }, id: 1, httpMethod: 'GET', idFromQuery: false }, gone);

  it('queues heavy calls behind one another; a light one is not queued', async () => {
    built.length = 0;
    const first = call(5_000);
    const second = call(200);
    const light = call(10);
    expect(d.heavy.load).toEqual({ running: 1, waiting: 1 });
    expect((await light).body).toContain('"result":10');
    expect(built).toEqual([5_000, 10]); // the light call did not wait for the heavy queue
    expect((await first).body).toContain('"result":5000');
    expect((await second).body).toContain('"result":200');
    expect(built).toEqual([5_000, 10, 200]);
  });

  it('drops a queued heavy call whose caller has gone, without building it', async () => {
    built.length = 0;
    let left = false;
    const first = call(2_000);
    const abandoned = call(3_000, () => left);
    left = true;
    await first;
    const reply = await abandoned;
    expect(built).toEqual([2_000]);
    expect(reply.body).toBe('');
  });
});
