/**
 * `minerstats` `Last Solved Block Time` in the reference's words (Ixian-Core Time/Clock.cs
 * getRelativeTime; Ixian-DLT Miner.getLastSolvedBlockRelativeTime: "Never" before a solution).
 */
import { describe, expect, it } from 'vitest';
import { NEVER_SOLVED, relativeTime } from '../../src/mining/stats.js';

describe('relativeTime (the reference\'s steps)', () => {
  const NOW = 2_000_000_000;
  const rows: [number, string][] = [
    [0, '0 seconds ago'], [1, 'a second ago'], [59, '59 seconds ago'],
    [60, 'a minute ago'], [119, 'a minute ago'], [120, '2 minutes ago'], [44 * 60 + 59, '44 minutes ago'],
    [45 * 60, 'an hour ago'], [90 * 60 - 1, 'an hour ago'], [90 * 60, '1 hours ago'], [23 * 3600 + 3599, '23 hours ago'],
    [86_400, 'yesterday'], [2 * 86_400 - 1, 'yesterday'], [2 * 86_400, '2 days ago'], [30 * 86_400 - 1, '29 days ago'],
    [30 * 86_400, 'a month ago'], [60 * 86_400, '2 months ago'], [360 * 86_400 - 1, '11 months ago'],
    [360 * 86_400, 'a year ago'], [730 * 86_400, '2 years ago'],
  ];
  it.each(rows)('%i s before → %s', (ago, text) => {
    expect(relativeTime(NOW - ago, NOW)).toBe(text);
  });
  it('a moment after now is "in the future"; never solved is "Never"', () => {
    expect(relativeTime(NOW + 1, NOW)).toBe('in the future');
    expect(NEVER_SOLVED).toBe('Never');
  });
});
