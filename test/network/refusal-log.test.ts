/**
 * Inbound links that end before their hello are logged per host at most a few times per interval
 * (h2: one host's socket flood wrote 5,315 "refused a peer link" lines, 1.4 MB, in 25 s).
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/network/clock.js';
import { OTHER_HOSTS, REFUSAL_LOG_BURST, RefusalLog, type RefusalSummary } from '../../src/network/refusal-log.js';

describe('RefusalLog', () => {
  it('logs the first refusals of a host in full and the rest as one line per interval with a count', () => {
    const clock = new ManualClock();
    const lines: RefusalSummary[] = [];
    const log = new RefusalLog({ clock, summary: (s) => lines.push(s), intervalMs: 60_000, burst: 3 });
    let full = 0;
    for (let i = 0; i < 5_000; i++) if (log.note('10.1.1.1', i % 2 ? 'capacity' : 'helloTimeout')) full++;
    expect(log.note('10.2.2.2', 'capacity')).toBe(true); // another host is told at once
    expect(full).toBe(3);
    expect(lines).toEqual([]);
    clock.advance(60_000);
    expect(lines).toEqual([{ host: '10.1.1.1', count: 4_997, reasons: { capacity: 2_499, helloTimeout: 2_498 }, seconds: 60 }]);
    // The flood goes on: counted from the first, not written in full, one line per interval.
    for (let i = 0; i < 100; i++) expect(log.note('10.1.1.1', 'capacity')).toBe(false);
    clock.advance(60_000);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ host: '10.1.1.1', count: 100 });
    // A quiet interval: nothing written, the host forgotten, its next refusals told in full again.
    clock.advance(60_000);
    expect(lines).toHaveLength(2);
    expect(log.note('10.1.1.1', 'capacity')).toBe(true);
    log.stop();
    expect(clock.timerCount).toBe(0);
  });

  it(`writes a host's occasional refusals in full (up to REFUSAL_LOG_BURST a minute: loopback is one host for a whole devnet)`, () => {
    const clock = new ManualClock();
    const lines: RefusalSummary[] = [];
    const log = new RefusalLog({ clock, summary: (s) => lines.push(s) });
    expect(Array.from({ length: REFUSAL_LOG_BURST }, () => log.note('127.0.0.1', 'wrongGenesis')).every(Boolean)).toBe(true);
    expect(log.note('127.0.0.1', 'wrongNetwork')).toBe(false);
    log.stop();
    expect(lines).toEqual([{ host: '127.0.0.1', count: 1, reasons: { wrongNetwork: 1 }, seconds: 60 }]);
  });

  it('counts refusals from hosts past its bound in one shared line', () => {
    const clock = new ManualClock();
    const lines: RefusalSummary[] = [];
    const log = new RefusalLog({ clock, summary: (s) => lines.push(s), maxHosts: 3, burst: 1 });
    const full = Array.from({ length: 10 }, (_, i) => log.note(`10.0.0.${i}`, 'capacity')).filter(Boolean).length;
    expect(full).toBe(3);
    log.stop();
    expect(lines).toEqual([{ host: OTHER_HOSTS, count: 7, reasons: { capacity: 7 }, seconds: 60 }]);
  });
});
