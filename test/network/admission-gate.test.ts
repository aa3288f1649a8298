import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AdmissionGate } from '../../src/network/admission-gate.js';

/** A task that finishes when told to; records when it started. */
function held(started: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  return {
    task: async () => {
      started.push(name);
      await done;
      return name;
    },
    finish: () => finish(),
  };
}

const turn = () => new Promise<void>((r) => setImmediate(r));

describe('AdmissionGate', () => {
  it('admits up to the limit at once, queues the rest in arrival order, and refuses past the waiting bounds', async () => {
    const gate = new AdmissionGate<string>({ admitting: 10, waiting: 12, waitingPerSource: 8 });
    const started: string[] = [];
    const a = held(started, 'a');
    const b = held(started, 'b');
    const c = held(started, 'c');
    const d = held(started, 'd');
    const ra = gate.run('p1', 6, a.task);
    const rb = gate.run('p1', 6, b.task); // 12 > 10: waits
    const rc = gate.run('p2', 6, c.task); // waits behind b (12 waiting in total)
    const rd = gate.run('p1', 1, d.task); // 13 waiting would pass the total bound
    await turn();
    expect(started).toEqual(['a']);
    expect(gate.load).toEqual({ admitting: 6, waiting: 12 });
    expect(gate.congested).toBe(true);
    await expect(rd).resolves.toBe('refused');
    expect(gate.refused).toBe(1);
    a.finish();
    await expect(ra).resolves.toBe('a');
    await turn();
    expect(started).toEqual(['a', 'b']); // c does not fit beside b (12 > 10)
    b.finish();
    await expect(rb).resolves.toBe('b');
    await turn();
    expect(started).toEqual(['a', 'b', 'c']);
    c.finish();
    await expect(rc).resolves.toBe('c');
    expect(gate.load).toEqual({ admitting: 0, waiting: 0 });
    expect(gate.congested).toBe(false);
  });

  it('bounds what one source may have waiting, so one peer cannot take the whole allowance', async () => {
    const gate = new AdmissionGate<string>({ admitting: 4, waiting: 100, waitingPerSource: 8 });
    const started: string[] = [];
    const first = held(started, 'first');
    const running = gate.run('flood', 4, first.task);
    const queued = [gate.run('flood', 4, async () => 'q1'), gate.run('flood', 4, async () => 'q2')];
    await expect(gate.run('flood', 1, async () => 'x')).resolves.toBe('refused');
    const other = gate.run('other', 4, async () => 'other');
    first.finish();
    await expect(running).resolves.toBe('first');
    await expect(Promise.all([...queued, other])).resolves.toEqual(['q1', 'q2', 'other']);
  });

  it('runs a batch larger than the whole allowance alone rather than never', async () => {
    const gate = new AdmissionGate<string>({ admitting: 4, waiting: 100, waitingPerSource: 100 });
    await expect(gate.run('p', 50, async () => 'big')).resolves.toBe('big');
  });

  it('releases its slot when the task fails', async () => {
    const gate = new AdmissionGate<string>({ admitting: 4, waiting: 100, waitingPerSource: 100 });
    await expect(gate.run('p', 4, async () => Promise.reject(new Error('verifier closed')))).rejects.toThrow('verifier closed');
    expect(gate.load).toEqual({ admitting: 0, waiting: 0 });
    await expect(gate.run('p', 4, async () => 'next')).resolves.toBe('next');
  });

  it('never runs more than the limit at once, finishes every batch it did not refuse, and ends empty (any arrival pattern)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ source: fc.constantFrom('a', 'b', 'c'), n: fc.integer({ min: 1, max: 6 }), fail: fc.boolean() }), { maxLength: 30 }),
        async (batches) => {
          const gate = new AdmissionGate<string>({ admitting: 8, waiting: 20, waitingPerSource: 10 });
          let running = 0;
          let peak = 0;
          const outcomes = await Promise.allSettled(
            batches.map((b) =>
              gate.run(b.source, b.n, async () => {
                running += b.n;
                peak = Math.max(peak, running);
                await turn();
                running -= b.n;
                if (b.fail) throw new Error('failed');
                return 'ok';
              }),
            ),
          );
          expect(peak).toBeLessThanOrEqual(8);
          outcomes.forEach((o, i) => {
            if (o.status === 'rejected') expect(batches[i]!.fail).toBe(true);
            else expect(['ok', 'refused']).toContain(o.value);
          });
          expect(gate.load).toEqual({ admitting: 0, waiting: 0 });
        },
      ),
      { numRuns: 100 },
    );
  });
});
