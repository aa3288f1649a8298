import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/network/clock.js';
import { SeenSet } from '../../src/network/seen.js';
import { BAN_MS, hostKey, hostOf, isLoopbackHost, PeerScores, walletKey } from '../../src/network/scoring.js';

describe('SeenSet', () => {
  it('dedups, counts hits, evicts the oldest beyond capacity', () => {
    const clock = new ManualClock();
    const s = new SeenSet({ capacity: 3, ttlMs: 60_000, clock });
    expect(s.add('a')).toBe(true);
    expect(s.add('a')).toBe(false);
    expect(s.hits).toBe(1);
    s.add('b');
    s.add('c');
    s.add(Uint8Array.of(1, 2));
    expect(s.size).toBe(3);
    expect(s.has('a')).toBe(false);
    expect(s.has(Uint8Array.of(1, 2))).toBe(true);
  });

  it('forgets entries after the ttl; a re-add does not refresh the age', () => {
    const clock = new ManualClock();
    const s = new SeenSet({ capacity: 100, ttlMs: 1_000, clock });
    s.add('x');
    clock.advance(600);
    expect(s.add('x')).toBe(false);
    clock.advance(400);
    expect(s.has('x')).toBe(false);
    expect(s.add('x')).toBe(true);
  });

  it('memory stays at capacity whatever is added', () => {
    const clock = new ManualClock();
    const s = new SeenSet({ capacity: 1000, ttlMs: 1e9, clock });
    for (let i = 0; i < 50_000; i++) s.add(`id${i}`);
    expect(s.size).toBe(1000);
  });
});

describe('PeerScores', () => {
  it('bans at the threshold for BAN_MS, and scores decay by half-life', () => {
    const clock = new ManualClock();
    const p = new PeerScores({ clock });
    const k = walletKey('1abc');
    expect(p.penalize(k, 'malformedFrame').banned).toBe(false);
    expect(p.penalize(k, 'oversizedFrame').banned).toBe(false);
    expect(p.penalize(k, 'malformedFrame')).toEqual({ score: 100, banned: true });
    expect(p.blocked({ wallet: '1abc' })!.kind).toBe('banned');
    clock.advance(BAN_MS);
    expect(p.blocked({ wallet: '1abc' })).toBeNull();
    expect(p.score(k)).toBeCloseTo(50, 5);
    const q = new PeerScores({ clock });
    q.penalize(k, 'malformedFrame');
    clock.advance(10 * 60_000);
    expect(q.score(k)).toBeCloseTo(12.5, 5);
  });

  it('blacklistpeer by host (any port) or wallet for 43,200 s; clearpeerblacklist lifts everything', () => {
    const clock = new ManualClock();
    const p = new PeerScores({ clock });
    p.blacklistPeer({ host: '10.0.0.5', wallet: '1xyz' });
    expect(p.blocked({ host: '10.0.0.5:4000' })!.kind).toBe('blacklisted');
    expect(p.blocked({ wallet: '1xyz' })!.kind).toBe('blacklisted');
    expect(p.blocked({ host: '10.0.0.6:4000' })).toBeNull();
    p.ban(walletKey('1other'), 'test');
    expect(p.list()).toHaveLength(3);
    p.clearBlacklist();
    expect(p.list()).toHaveLength(0);
    p.blacklistPeer({ host: '10.0.0.5:4000' });
    expect(p.blocked({ host: '10.0.0.5:4001' })).toBeNull();
    clock.advance(43_200_000);
    expect(p.blocked({ host: '10.0.0.5:4000' })).toBeNull();
  });

  it('host helpers', () => {
    expect(hostOf('1.2.3.4:5')).toBe('1.2.3.4');
    expect(hostOf('[::1]:5')).toBe('::1');
    expect(hostOf('host')).toBe('host');
    expect(isLoopbackHost('127.0.0.1:9')).toBe(true);
    expect(isLoopbackHost('[::1]:9')).toBe(true);
    expect(isLoopbackHost('10.1.1.1:9')).toBe(false);
    expect(hostKey('A.example')).toBe('h:a.example');
  });

  it('memory is bounded under a flood of identities', () => {
    const clock = new ManualClock();
    const p = new PeerScores({ clock, maxEntries: 100 });
    for (let i = 0; i < 10_000; i++) p.penalize(walletKey(`w${i}`), 'unknownCode');
    expect(p.score(walletKey('w0'))).toBe(0);
    expect(p.score(walletKey('w9999'))).toBe(5);
  });
});

describe('PeerScores: how many offences ban (the OFFENCE_POINTS comment; h2 counted 5 and 3)', () => {
  it('with the score decaying between offences: five malformed frames, three oversized frames, one invalid block', () => {
    const count = (offence: 'malformedFrame' | 'oversizedFrame' | 'invalidBlock'): number => {
      const clock = new ManualClock();
      const p = new PeerScores({ clock });
      for (let n = 1; n <= 10; n++) {
        if (p.penalize(walletKey('w'), offence).banned) return n;
        clock.advance(100); // offences a moment apart, as frames arrive
      }
      return Infinity;
    };
    expect([count('malformedFrame'), count('oversizedFrame'), count('invalidBlock')]).toEqual([5, 3, 1]);
  });
});
