/**
 * The peer book (reference-network.md §2.2, CORE `Peer/PeerStorage.cs`): one entry per endpoint
 * and per wallet, bounded, the first pick the most recently connected master, later ones among
 * those not tried for 30 s, and a file that survives a restart (a damaged one is reported, not fatal).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/network/clock.js';
import { FORGET_AFTER_MS, PeerBook, RETRY_AFTER_MS } from '../../src/network/peer-book.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempFile = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'peer-book-'));
  dirs.push(dir);
  return join(dir, 'peers.json');
};

describe('PeerBook', () => {
  it('keeps one entry per endpoint and per wallet: a wallet that moves, or an endpoint that changes hands, replaces the old entry', () => {
    const book = new PeerBook({ clock: new ManualClock(1_000) });
    book.learn('10.0.0.1:10234', 'A');
    book.learn('10.0.0.2:10234', 'B');
    book.learn('10.0.0.3:10234', 'A'); // A moved
    book.learn('10.0.0.2:10234', 'C'); // B's endpoint is C's now
    expect(book.entries().map((e) => `${e.endpoint} ${e.address}`).sort()).toEqual(['10.0.0.2:10234 C', '10.0.0.3:10234 A']);
    // Not endpoints: ignored.
    book.learn('', 'D');
    book.learn('10.0.0.9', 'D');
    book.learn('10.0.0.9:0', 'D');
    book.learn('10.0.0.9:1', '');
    expect(book.size).toBe(2);
  });

  it('is bounded: past its capacity the least recently seen entry goes', () => {
    const clock = new ManualClock(1_000);
    const book = new PeerBook({ clock, capacity: 3 });
    for (let i = 1; i <= 4; i++) book.learn(`10.0.0.${i}:1`, `W${i}`, i * 1000);
    book.learn('10.0.0.2:1', 'W2', 10_000); // seen again
    book.learn('10.0.0.5:1', 'W5', 11_000);
    expect(book.entries().map((e) => e.address).sort()).toEqual(['W2', 'W4', 'W5']);
  });

  it('picks the most recently connected first, then others not tried for 30 s, never a skipped one', () => {
    const clock = new ManualClock(1_000_000);
    const book = new PeerBook({ clock });
    for (const [endpoint, address] of [['10.0.0.1:1', 'A'], ['10.0.0.2:1', 'B'], ['10.0.0.3:1', 'C']] as const) book.learn(endpoint, address);
    clock.advance(1_000);
    book.connected('10.0.0.2:1');
    clock.advance(1_000);
    book.connected('10.0.0.3:1');
    const first = book.pick(() => false, () => 0);
    expect(first).toEqual({ host: '10.0.0.3', port: 1, address: 'C' });
    // C was just tried, A is skipped (say, linked already): B is all that is left.
    expect(book.pick((e) => e.address === 'A', () => 0)?.address).toBe('B');
    expect(book.pick((e) => e.address === 'A', () => 0)).toBeNull();
    clock.advance(RETRY_AFTER_MS);
    expect(['B', 'C']).toContain(book.pick((e) => e.address === 'A', () => 0.99)?.address);
  });

  it('survives a restart through its file; forget removes an entry; a damaged file is reported and the book starts empty', () => {
    const file = tempFile();
    const clock = new ManualClock(5_000);
    const book = new PeerBook({ clock, file });
    book.learn('127.0.0.1:4001', 'A');
    book.learn('[::1]:4002', 'B');
    book.connected('[::1]:4002');
    book.learn('127.0.0.1:4003', 'C');
    book.forget('127.0.0.1:4003');
    book.save();
    const again = new PeerBook({ clock, file });
    expect(again.entries().map(({ endpoint, address, lastConnected }) => ({ endpoint, address, lastConnected })).sort((a, b) => a.address.localeCompare(b.address))).toEqual([
      { endpoint: '127.0.0.1:4001', address: 'A', lastConnected: 0 },
      { endpoint: '[::1]:4002', address: 'B', lastConnected: 5_000 },
    ]);
    expect(again.pick(() => false)).toEqual({ host: '::1', port: 4002, address: 'B' });
    expect(JSON.parse(readFileSync(file, 'utf8')).version).toBe(1);

    for (const damaged of ['{not json', '{"version":9,"peers":[]}', '[]', 'null']) {
      writeFileSync(file, damaged);
      const errors: string[] = [];
      const book2 = new PeerBook({ clock, file, onFileError: (e, action) => errors.push(`${action}: ${(e as Error).message}`) });
      expect([book2.size, errors.length]).toEqual([0, 1]);
      expect(errors[0]).toMatch(damaged.startsWith('{not') ? /^read: .*JSON/ : /^read: not a version-1 peer book$/);
    }
    // Entries of the wrong shape are skipped, the rest kept.
    writeFileSync(file, JSON.stringify({ version: 1, peers: [{ endpoint: 5 }, null, { endpoint: '1.2.3.4:5', address: 'Z', lastSeen: 1, lastConnected: 'x' }] }));
    expect(new PeerBook({ clock, file }).entries().map((e) => e.address)).toEqual(['Z']);
    // No file yet: an empty book, no error.
    const errors: string[] = [];
    expect(new PeerBook({ clock, file: join(tempFile(), 'missing', 'peers.json'), onFileError: (_e, a) => errors.push(a) }).size).toBe(0);
    expect(errors).toEqual([]);
  });

  it('holds seeds (wallet unknown): picked before entries never linked, replaced once a master is learned there, never saved', () => {
    const file = tempFile();
    const clock = new ManualClock(1_000_000);
    const book = new PeerBook({ clock, file });
    book.learn('10.0.0.1:1', 'A');
    book.seed('10.0.0.9:1');
    book.seed('10.0.0.1:1'); // held already: left as it is
    book.seed('not an endpoint');
    expect(book.entries().map((e) => `${e.endpoint} ${e.address}`).sort()).toEqual(['10.0.0.1:1 A', '10.0.0.9:1 ']);
    // The reference's seeds come with lastConnected 1: the first pick prefers them to A, never linked.
    expect(book.pick(() => false, () => 0)).toEqual({ host: '10.0.0.9', port: 1, address: '' });
    book.save();
    expect(JSON.parse(readFileSync(file, 'utf8')).peers.map((p: { address: string }) => p.address)).toEqual(['A']);
    // A hello or presence names the master at the seed's endpoint: an ordinary entry now.
    book.learn('10.0.0.9:1', 'S');
    expect(book.entries().map((e) => `${e.endpoint} ${e.address}`).sort()).toEqual(['10.0.0.1:1 A', '10.0.0.9:1 S']);
  });

  it('keeps a seed for the whole run: a save past FORGET_AFTER_MS drops masters not seen, not the operator\'s --seed', () => {
    const clock = new ManualClock(1_000_000);
    const book = new PeerBook({ clock, file: tempFile() });
    book.seed('10.0.0.9:1');
    book.learn('10.0.0.1:1', 'A');
    // A client whose relays held for a month never needed the seed; then a master is heard of and the book saved.
    clock.advance(FORGET_AFTER_MS + 1);
    book.learn('10.0.0.2:1', 'B');
    book.save();
    expect(book.entries().map((e) => `${e.endpoint} ${e.address}`).sort()).toEqual(['10.0.0.2:1 B', '10.0.0.9:1 ']);
  });
});
