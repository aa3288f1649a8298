/**
 * `minerstats` members as the reference words them (hj: "Search Mode" read "paused" and "Last
 * Solved Block Time" was unix seconds; the reference prints its searchMode, which pausing leaves,
 * and CORE Clock.getRelativeTime's text, "Never" before a first solution).
 */
import { describe, expect, it } from 'vitest';
import { MinerStats, PAUSED, relativeTimeText } from '../../src/mining/stats.js';

describe('MinerStats search mode', () => {
  it('keeps the mode name while paused, and a mode picked resumes the miner', () => {
    const s = new MinerStats();
    s.algorithm = 2;
    expect(s.searchMode).toBe('latestBlock');
    s.algorithm = PAUSED;
    expect(s.algorithm).toBe(PAUSED);
    expect(s.searchMode).toBe('latestBlock');
    s.algorithm = 3;
    expect(s.algorithm).toBe(3);
    expect(s.searchMode).toBe('random');
    expect(() => (s.algorithm = 4)).toThrow(RangeError);
    expect(s.algorithm).toBe(3);
  });
});

describe('relativeTimeText (CORE Clock.getRelativeTime)', () => {
  const now = Date.UTC(2026, 10, 27, 12, 0, 0);
  const ago = (seconds: number) => relativeTimeText(now, now - seconds * 1000);
  it('words each range as the reference does', () => {
    expect(ago(0)).toBe('0 seconds ago');
    expect(ago(1)).toBe('one second ago');
    expect(ago(59.9)).toBe('59 seconds ago');
    expect(ago(60)).toBe('a minute ago');
    expect(ago(119)).toBe('a minute ago');
    expect(ago(120)).toBe('2 minutes ago');
    expect(ago(44 * 60 + 59)).toBe('44 minutes ago');
    expect(ago(45 * 60)).toBe('an hour ago');
    expect(ago(90 * 60)).toBe('1 hours ago');
    expect(ago(23 * 3600 + 3599)).toBe('23 hours ago');
    expect(ago(24 * 3600)).toBe('yesterday');
    expect(ago(48 * 3600)).toBe('2 days ago');
    expect(ago(29 * 86400)).toBe('29 days ago');
    expect(ago(30 * 86400)).toBe('one month ago');
    expect(ago(65 * 86400)).toBe('2 months ago');
    expect(ago(360 * 86400)).toBe('one year ago');
    expect(ago(800 * 86400)).toBe('2 years ago');
  });
});
