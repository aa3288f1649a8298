// Option table: precedence flags > env > config file > defaults, normalisers, argument parsing.
import { describe, expect, it } from 'vitest';
import { parseArgs, printableConfig, resolveConfig, toNodeOptions } from '../../src/config/load.js';
import { ConfigError, OPTIONS } from '../../src/config/options.js';
import { defaultPoolThreads } from '../../src/pool/threads.js';
import { optionsMarkdown, startHelp } from '../../src/config/help.js';

const resolve = (argv: string[], env: Record<string, string> = {}, file?: Record<string, unknown>) =>
  resolveConfig({ args: parseArgs(argv), env, readFile: () => JSON.stringify(file ?? {}) });

describe('option precedence', () => {
  const file = { 'rpc-port': 7000, 'log-level': 'warn', 'block-interval': 5, 'genesis-balance': '12.5' };
  it('uses defaults when nothing is given', () => {
    const { config, sources } = resolve([]);
    expect(config).toMatchObject({ network: 'reg', dataDir: '.data/reg', rpcHost: '127.0.0.1', rpcPort: 8081, blockInterval: 3, logLevel: 'info' });
    expect(config.poolThreads).toBe(defaultPoolThreads());
    expect(config.genesisBalance).toBe(1_000_000n * 100_000_000n);
    expect(sources.rpcPort).toBe('default');
  });
  it('config file beats defaults, env beats the file, flags beat env', () => {
    const fromFile = resolve(['--config', 'x.json'], {}, file);
    expect(fromFile.config.rpcPort).toBe(7000);
    expect(fromFile.config.genesisBalance).toBe(1_250_000_000n);
    expect(fromFile.sources.rpcPort).toBe('config');
    const fromEnv = resolve(['--config', 'x.json'], { DLTNODE_RPC_PORT: '7100' }, file);
    expect(fromEnv.config.rpcPort).toBe(7100);
    expect(fromEnv.sources.rpcPort).toBe('env');
    expect(fromEnv.config.logLevel).toBe('warn');
    const fromFlag = resolve(['--config', 'x.json', '--rpc-port=7200'], { DLTNODE_RPC_PORT: '7100' }, file);
    expect(fromFlag.config.rpcPort).toBe(7200);
    expect(fromFlag.sources.rpcPort).toBe('flag');
  });
  it('finds the config file through DLTNODE_CONFIG too', () => {
    expect(resolve([], { DLTNODE_CONFIG: 'y.json' }, file).config.blockInterval).toBe(5);
  });
  it('derives network-dependent defaults from the resolved network', () => {
    const { config } = resolve(['--network', 'test']);
    expect(config.dataDir).toBe('.data/test');
    expect(config.blockInterval).toBe(30);
  });
  it('collects repeatable flags and comma-separated env lists', () => {
    const { config } = resolve(['--rpc-user', 'a:b', '--rpc-user', 'c:d:e', '--rpc-allow', '10.0.0.0/8,::1']);
    expect(config.rpcUser).toEqual([{ user: 'a', password: 'b' }, { user: 'c', password: 'd:e' }]);
    expect(config.rpcAllow).toEqual(['10.0.0.0/8', '::1']);
    expect(resolve([], { DLTNODE_RPC_ALLOW: '127.0.0.1, 10.1.0.0/16' }).config.rpcAllow).toEqual(['127.0.0.1', '10.1.0.0/16']);
  });
  it('reads switches from flags, env and file', () => {
    expect(resolve(['--metrics']).config.metrics).toBe(true);
    expect(resolve(['--metrics=false'], { DLTNODE_METRICS: '1' }).config.metrics).toBe(false);
    expect(resolve([], { DLTNODE_METRICS: 'yes' }).config.metrics).toBe(true);
    expect(resolve(['--config', 'f'], {}, { 'rpc-public': true }).config.rpcPublic).toBe(true);
    // The web wallet is served unless --no-web (issue 12).
    expect(resolve([]).config.noWeb).toBe(false);
    expect(resolve(['--no-web']).config.noWeb).toBe(true);
    expect(resolve([], { DLTNODE_NO_WEB: 'true' }).config.noWeb).toBe(true);
  });
  it('produces NodeOptions for the node core', () => {
    const { config } = resolve(['--genesis-balance', '0.5', '--pool-threads', '0', '--name-month-blocks', '10'], { DLTNODE_WALLET_PASSWORD: 'pw' });
    expect(toNodeOptions(config)).toEqual({
      network: 'reg',
      dataDir: '.data/reg',
      walletPassword: 'pw',
      chain: { genesisBalance: 50_000_000n },
      consensus: { blockIntervalSeconds: 3 },
      pool: { threads: 0 },
      names: { monthBlocks: 10 },
    });
  });
  it('--nick (flag, DLTNODE_NICK, config "nick") is the nickname the messaging service sends; none by default', () => {
    const client = ['--role', 'client'];
    expect(resolve([]).config.nick).toBe('');
    expect(toNodeOptions(resolve([]).config).messaging).toBeUndefined();
    expect(resolve([...client, '--nick', 'Alice ünï']).config.nick).toBe('Alice ünï');
    expect(resolve(client, { DLTNODE_NICK: 'Bob' }).config.nick).toBe('Bob');
    expect(resolve([...client, '--config', 'f'], {}, { nick: 'Carol' }).config.nick).toBe('Carol');
    expect(toNodeOptions(resolve([...client, '--nick', 'Alice']).config).messaging).toEqual({ nick: 'Alice' });
    expect(() => resolve(['--config', 'f'], {}, { nick: 7 })).toThrow(/"nick": expected a text of at most 524288 UTF-8 bytes, got 7/);
    // One byte past a message payload (a two-byte letter at the end): refused, naming the option.
    expect(() => resolve([...client, '--nick', `${'a'.repeat(524_287)}é`])).toThrow(/--nick.*expected a text of at most 524288 UTF-8 bytes/);
    expect(resolve([...client, '--nick', 'a'.repeat(524_288)]).config.nick).toHaveLength(524_288);
  });
  it('--nick and --mq-driver on a master or relay are refused: contact messaging runs on clients only', () => {
    expect(() => resolve(['--nick', 'Alice'])).toThrow(/^--nick applies to --role client only \(contact messaging runs on clients; this node is a master\)$/);
    expect(() => resolve(['--role', 'relay'], { DLTNODE_MQ_DRIVER: 'mqtt' })).toThrow(/^--mq-driver applies to --role client only .*this node is a relay/);
    expect(() => resolve(['--config', 'f'], {}, { 'mq-driver': 'rabbitmq', nick: 'Carol' })).toThrow(/^--mq-driver applies to --role client only/);
    expect(toNodeOptions(resolve(['--role', 'client', '--mq-driver', 'mqtt', '--nick', 'Alice']).config)).toMatchObject({ mq: { driver: 'mqtt' }, messaging: { nick: 'Alice' } });
  });
  it('masks secrets in --print-config and reports sources', () => {
    const printed = printableConfig(resolve(['--rpc-user', 'alice:secret'], { DLTNODE_WALLET_PASSWORD: 'pw' }));
    expect(printed.config['rpc-user']).toEqual(['alice:***']);
    expect(printed.config['wallet-password']).toBe('***');
    expect(printed.sources['wallet-password']).toBe('env');
    expect(JSON.stringify(printed)).not.toContain('secret');
  });
});

describe('option errors are actionable', () => {
  const cases: [string[], Record<string, string>, RegExp][] = [
    [['--rpc-port', '70000'], {}, /--rpc-port: expected an integer 0–65535, got '70000'/],
    [[], { DLTNODE_RPC_PORT: 'x' }, /environment variable DLTNODE_RPC_PORT: expected an integer/],
    [['--network', 'moon'], {}, /--network: expected one of main, test, reg/],
    [['--genesis-balance', '1e6'], {}, /--genesis-balance: invalid amount "1e6": exponent/],
    [['--rpc-user', 'nopass'], {}, /user:password/],
    [['--rpc-allow', '999.1.1.1'], {}, /--rpc-allow: RPC allow entry '999.1.1.1' is not an IP address or CIDR range/],
    [[], { DLTNODE_RPC_ALLOW: '10.0.0.0/8,10.0.0.0/33' }, /DLTNODE_RPC_ALLOW: RPC allow entry '10.0.0.0\/33': the prefix length must be 0–32/],
    [['--rpc-prot', '1'], {}, /Unknown option --rpc-prot \(did you mean --rpc-port\?\)/],
    [['--rpc-port'], {}, /--rpc-port needs a value \(PORT\)/],
    [['--rpc-port', '1', '--rpc-port', '2'], {}, /given twice/],
    [['--network', 'main', '--name-month-blocks', '5'], {}, /applies to --network reg only/],
    [['--log-level', 'loud'], {}, /one of fatal, error/],
    [['--status-interval', '-1'], {}, /--status-interval: expected a number of seconds 1–2147483, or 0 for no status line, got '-1'/],
    [['--status-interval', '0.5'], {}, /--status-interval: expected a number of seconds 1–2147483, or 0 for no status line, got '0.5'/],
    // Seconds that become timers: past 2^31 − 1 ms Node.js fires them after 1 ms (a block every few ms).
    [['--block-interval', '2200000'], {}, /--block-interval: expected a number of seconds 0.1–2147483, got '2200000'/],
    [['--shutdown-timeout', '3000000'], {}, /--shutdown-timeout: expected a number of seconds 0–2147483, got '3000000'/],
    [['--status-interval', '2147484'], {}, /--status-interval: expected a number of seconds 1–2147483, or 0 for no status line, got '2147484'/],
  ];
  it.each(cases)('%j %j', (argv, env, message) => {
    expect(() => resolve(argv, env)).toThrow(ConfigError);
    expect(() => resolve(argv, env)).toThrow(message);
  });
  it('a config-file number too large for a double is named as such, not as null', () => {
    expect(() => resolveConfig({ args: parseArgs(['--config', 'f']), env: {}, readFile: () => '{"block-interval": 1e400}' })).toThrow(/key "block-interval": expected a number of seconds 0.1–2147483, got Infinity/);
    expect(resolve(['--block-interval', '2147483'], {}).config.blockInterval).toBe(2147483);
  });
  it('names unknown config-file keys and unreadable files', () => {
    expect(() => resolve(['--config', 'f.json'], {}, { 'rpc-prot': 1 })).toThrow(/unknown key "rpc-prot" \(did you mean --rpc-port\?\)/);
    expect(() => resolveConfig({ args: parseArgs(['--config', '/nonexistent/x.json']), env: {} })).toThrow(/Cannot read the config file \/nonexistent\/x.json/);
    expect(() => resolveConfig({ args: parseArgs(['--config', 'f']), env: {}, readFile: () => '{oops' })).toThrow(/not valid JSON/);
  });
});

describe('generated help', () => {
  it('lists every option with its env variable, in --help and in the README table', () => {
    const help = startHelp();
    const md = optionsMarkdown();
    for (const o of OPTIONS) {
      expect(help).toContain(`--${o.flag}`);
      expect(help).toContain(o.env);
      expect(md).toContain(`\`${o.env}\``);
    }
  });
  it('declares each flag, key and env variable once', () => {
    for (const field of ['flag', 'key', 'env'] as const) expect(new Set(OPTIONS.map((o) => o[field])).size).toBe(OPTIONS.length);
  });
});
