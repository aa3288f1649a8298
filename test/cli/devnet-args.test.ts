// `dltnode devnet` arguments (issue 11): two relays by default so the two clients talk across
// relays; --mq-port makes the clients publish to an MQTT broker; every master dials every other.
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { devnetNodeArgs, parseDevnetArgs, shellWord, type DevnetNode } from '../../src/cli/devnet.js';

const node = (name: string, role: DevnetNode['role'], peerPort: number | null): DevnetNode => ({
  name, role, address: name, rpcUrl: '', rpcPort: 1, peerPort, dataDir: `/d/${name}`, pid: null,
});

describe('devnet arguments', () => {
  it('answers a typo with the option it meant and the help to read, as dltnode start does', () => {
    expect(() => parseDevnetArgs(['--mastres', '2'])).toThrow("Unknown option '--mastres' (did you mean --masters?); see dltnode devnet --help");
    expect(() => parseDevnetArgs(['extra'])).toThrow("Unexpected argument 'extra'; options start with --, see dltnode devnet --help");
  });

  it('defaults to 3 masters, 2 relays, 2 clients', () => {
    expect(parseDevnetArgs([])).toMatchObject({ masters: 3, relays: 2, clients: 2, mqPort: null });
    expect(parseDevnetArgs(['--mq-port', '1883'])).toMatchObject({ mqPort: 1883 });
    expect(() => parseDevnetArgs(['--mq-port', '0'])).toThrow(/--mq-port/);
  });

  it('keeps the reference\'s reward maturity and superblock period unless asked, and checks the flags', () => {
    const dflt = parseDevnetArgs([]);
    if (dflt === 'help') throw new Error('unexpected help');
    expect(dflt.rewardMaturity).toBeUndefined();
    expect(dflt.superBlockPeriod).toBeUndefined();
    expect(parseDevnetArgs(['--reward-maturity', '12', '--superblock-period', '20'])).toMatchObject({ rewardMaturity: 12n, superBlockPeriod: 20n });
    expect(() => parseDevnetArgs(['--reward-maturity', '5'])).toThrow(/--reward-maturity: expected a whole number of blocks from 6/);
    expect(() => parseDevnetArgs(['--superblock-period', '9'])).toThrow(/--superblock-period: expected a whole number of blocks from 10/);
    expect(() => parseDevnetArgs(['--superblock-period', 'x'])).toThrow(/--superblock-period/);
  });

  it('puts client i on relay i and passes the broker to clients only', () => {
    const all = [node('master-1', 'master', 10), node('relay-1', 'relay', 11), node('relay-2', 'relay', 12), node('client-1', 'client', null), node('client-2', 'client', null)];
    const peersOf = (n: DevnetNode) => devnetNodeArgs(n, all, '/g.json', 1883).flatMap((a, i, arr) => (arr[i - 1] === '--peer' ? [a] : []));
    expect(peersOf(all[3]!)).toEqual(['127.0.0.1:11']);
    expect(peersOf(all[4]!)).toEqual(['127.0.0.1:12']);
    // The masters are its seeds (dialled only when its relays are gone), not peers it keeps linked.
    const seedsOf = (n: DevnetNode) => devnetNodeArgs(n, all, '/g.json').flatMap((a, i, arr) => (arr[i - 1] === '--seed' ? [a] : []));
    expect(seedsOf(all[3]!)).toEqual(['127.0.0.1:10']);
    expect(seedsOf(all[1]!)).toEqual([]);
    expect(devnetNodeArgs(all[3]!, all, '/g.json', 1883).join(' ')).toContain('--mq-driver mqtt --mq-host 127.0.0.1 --mq-port 1883');
    expect(devnetNodeArgs(all[1]!, all, '/g.json', 1883)).not.toContain('--mq-driver');
  });

  it('gives every master every other master as a peer (master-1 restarted alone finds the network), relays every master', () => {
    const all = [node('master-1', 'master', 10), node('master-2', 'master', 11), node('master-3', 'master', 12), node('relay-1', 'relay', 13)];
    const peersOf = (n: DevnetNode) => devnetNodeArgs(n, all, '/g.json').flatMap((a, i, arr) => (arr[i - 1] === '--peer' ? [a] : []));
    expect(peersOf(all[0]!)).toEqual(['127.0.0.1:11', '127.0.0.1:12']);
    expect(peersOf(all[1]!)).toEqual(['127.0.0.1:10', '127.0.0.1:12']);
    expect(peersOf(all[2]!)).toEqual(['127.0.0.1:10', '127.0.0.1:11']);
    expect(peersOf(all[3]!)).toEqual(['127.0.0.1:10', '127.0.0.1:11', '127.0.0.1:12']);
  });

  it('gives masters a signer-miner duty of 25 %, the others none', () => {
    const all = [node('master-1', 'master', 10), node('relay-1', 'relay', 11)];
    expect(devnetNodeArgs(all[0]!, all, '/g.json').join(' ')).toContain('--signer-miner-duty 25');
    expect(devnetNodeArgs(all[1]!, all, '/g.json')).not.toContain('--signer-miner-duty');
  });
});

describe('shellWord (the command lines in commands.txt)', () => {
  it('reads back in sh as the one word it was, whatever it holds', () => {
    expect(shellWord('/usr/bin/node')).toBe('/usr/bin/node');
    expect(shellWord('--peer')).toBe('--peer');
    // Each run asks sh to print its arguments, NUL-terminated; 40 runs of 3 words bound the spawns.
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', minLength: 0, maxLength: 12 }).filter((w) => !w.includes('\0')), { minLength: 1, maxLength: 3 }), (words) => {
        const out = spawnSync('sh', ['-c', `printf '%s\\0' ${words.map(shellWord).join(' ')}`], { encoding: 'utf8' });
        expect(out.stdout.split('\0').slice(0, -1)).toEqual(words);
      }),
      { numRuns: 40 },
    );
    expect(shellWord("a b'c")).toBe(`'a b'\\''c'`);
  });
});
