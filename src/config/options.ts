/**
 * The one option table of the node (practice P51). Each option is declared once — flag, config-file
 * key (the flag's name), environment variable, default, description, normaliser — and everything
 * else (argument parsing, env and config-file reading, `--help`, `--print-config`, the README flag
 * list) is generated from it. Precedence: flags > environment > config file > defaults.
 */
import { defaultPoolThreads } from '../pool/threads.js';
import { MAX_TIMER_SECONDS } from '../clock.js';
import { readGenesisFile } from './genesis-file.js';
import { join } from 'node:path';
import { parseAmount } from '../formats/amount.js';
import { checkAllowEntry, parseRpcUser, type RpcUser } from '../rpc/auth.js';
import { checkCorsEntry, checkVhostEntry } from '../rpc/origin.js';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_RPC_HOST, DEFAULT_RPC_PORT, type TransportChoice } from '../rpc/server.js';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from '../log/logger.js';
import type { Network } from '../codec/types.js';
import { MAX_MESSAGE_PAYLOAD_BYTES } from '../messaging/service.js';

/** The effective configuration of `dltnode start`. */
export interface DltnodeConfig {
  /** Path of the network's genesis file (issue 9); undefined on the embedded network. */
  genesis: string | undefined;
  network: Network;
  dataDir: string;
  blockInterval: number;
  poolThreads: number;
  /** Raw CoinNumber units (10⁻⁸). */
  genesisBalance: bigint;
  walletPassword: string | undefined;
  nameMonthBlocks: number | undefined;
  /** reg only: Argon2 mining difficulty of produced blocks (u64); undefined the consensus value. */
  miningDifficulty: bigint | undefined;
  /** Threads of the built-in miner (0 = off). */
  minerThreads: number;
  /** Percent of time a master's signer miner hashes once it holds a solution (genesis networks). */
  signerMinerDuty: number;
  nameGraceBlocks: number | undefined;
  role: 'master' | 'relay' | 'client';
  p2pHost: string;
  p2pPort: number | undefined;
  publicHost: string | undefined;
  peer: { host: string; port: number }[];
  seed: { host: string; port: number }[];
  mqDriver: 'none' | 'mqtt' | 'rabbitmq';
  mqHost: string;
  mqPort: number | undefined;
  mqPayload: 'A' | 'B';
  /** The nickname this client sends its contacts (nick message); '' = none. */
  nick: string;
  rpcHost: string;
  rpcPort: number;
  rpcUser: RpcUser[];
  rpcAllow: string[];
  /** Foreign web origins allowed to call the RPC from a browser (src/rpc/origin.ts). */
  rpcCors: string[];
  /** Host names besides IP literals and localhost the RPC answers to (DNS rebinding). */
  rpcVhost: string[];
  rpcPublic: boolean;
  rpcTransport: TransportChoice;
  maxBodyBytes: number;
  /** Do not serve the web wallet at GET / (issue 12). */
  noWeb: boolean;
  logLevel: LogLevel;
  logFormat: LogFormat;
  metrics: boolean;
  metricsPort: number | undefined;
  statusInterval: number;
  shutdownTimeout: number;
}

export type OptionKey = keyof DltnodeConfig;

/** Where an effective value came from (shown by --print-config). */
export type OptionSource = 'flag' | 'env' | 'config' | 'default';

/** A value given for an option that cannot be used; the message names the option and what to write. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface OptionDef<K extends OptionKey = OptionKey> {
  key: K;
  /** Flag name without `--`; also the config-file key. */
  flag: string;
  env: string;
  group: 'Chain' | 'Network' | 'Messaging' | 'RPC' | 'Logging and metrics' | 'Process';
  /** Placeholder in --help (`PORT`); absent for switches (`--metrics`). */
  valueName?: string;
  /** Repeatable flag collecting a list (comma-separated in the environment). */
  repeatable?: boolean;
  description: string;
  /** Default; may depend on options already resolved (those declared earlier in the table). */
  defaultValue(resolved: Partial<DltnodeConfig>): DltnodeConfig[K];
  /** Default as shown by --help. */
  defaultText: string;
  /**
   * Turns a raw value (a string from a flag or the environment; a JSON value from the config file;
   * an array of those for repeatable options) into the typed value, or throws ConfigError.
   */
  normalise(raw: unknown, where: string): DltnodeConfig[K];
  /** Masked by --print-config. */
  secret?: boolean;
}

const fail = (where: string, expected: string, raw: unknown): never => {
  // JSON.stringify says null for the Infinity a config file's 1e400 parses to.
  const shown = typeof raw === 'string' ? `'${raw}'` : typeof raw === 'number' ? String(raw) : JSON.stringify(raw);
  throw new ConfigError(`${where}: expected ${expected}, got ${shown}`);
};

/** Normaliser of an integer option in [min, max] (also used by `dltnode bench pow`). */
export function integer(min: number, max: number) {
  return (raw: unknown, where: string): number => {
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) return fail(where, `an integer ${min}–${max}`, raw);
    return n;
  };
}

/** Seconds that become a timer: at most MAX_TIMER_SECONDS, past which Node.js fires it after 1 ms. */
function seconds(min: number) {
  return (raw: unknown, where: string): number => {
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isFinite(n) || n < min || n > MAX_TIMER_SECONDS) return fail(where, `a number of seconds ${min}–${MAX_TIMER_SECONDS}`, raw);
    return n;
  };
}

function oneOf<T extends string>(values: readonly T[]) {
  return (raw: unknown, where: string): T => {
    if (typeof raw !== 'string' || !values.includes(raw as T)) return fail(where, `one of ${values.join(', ')}`, raw);
    return raw as T;
  };
}

function text(what: string) {
  return (raw: unknown, where: string): string => {
    if (typeof raw !== 'string' || raw.length === 0) return fail(where, what, raw);
    return raw;
  };
}

/** A nickname: any text (empty = none) that fits one message payload (the reference sets no limit). */
function nickname(raw: unknown, where: string): string {
  if (typeof raw !== 'string' || Buffer.byteLength(raw, 'utf8') > MAX_MESSAGE_PAYLOAD_BYTES) return fail(where, `a text of at most ${MAX_MESSAGE_PAYLOAD_BYTES} UTF-8 bytes`, raw);
  return raw;
}

/** `host:port` of a peer (IPv6 hosts in brackets). */
function hostPort(s: string, where: string): { host: string; port: number } {
  const at = s.lastIndexOf(':');
  const port = Number(s.slice(at + 1));
  const host = s.slice(0, at).replace(/^\[|\]$/g, '');
  if (at <= 0 || host === '' || !/^\d+$/.test(s.slice(at + 1)) || port < 1 || port > 65535) return fail(where, 'HOST:PORT with a port 1–65535', s);
  return { host, port };
}

/** Switches: `--metrics`, `--metrics=false`; env/config `true|false|1|0|yes|no`. */
export function parseSwitch(raw: unknown, where: string): boolean {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'string') {
    const v = raw.trim().toLowerCase();
    if (v === '' || v === 'true' || v === '1' || v === 'yes') return true;
    if (v === 'false' || v === '0' || v === 'no') return false;
  }
  return fail(where, 'true or false', raw);
}

/** A list item read by a parser of its module (its error's message, a ConfigError naming where the value came from). */
function checkedBy<T>(parse: (s: string) => T): (s: string, where: string) => T {
  return (s, where) => {
    try {
      return parse(s);
    } catch (e) {
      throw new ConfigError(`${where}: ${(e as Error).message}`);
    }
  };
}

/** Lists: arrays from the config file, repeated flags, or comma-separated text. */
function list<T>(item: (s: string, where: string) => T) {
  return (raw: unknown, where: string): T[] => {
    const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : fail(where, 'a list of strings', raw);
    return items.map((s) => (typeof s === 'string' && s.trim() !== '' ? item(s.trim(), where) : fail(where, 'non-empty strings', s)));
  };
}

const def = <K extends OptionKey>(d: OptionDef<K>): OptionDef<K> => d;

/** Default worker threads: every core but the one serving RPC, at least one. */

/** Block interval of the embedded reg network; main and test use the reference's 30 s (reference-formats §14). */
const REG_BLOCK_INTERVAL_SECONDS = 3;
const REFERENCE_BLOCK_INTERVAL_SECONDS = 30;

export const OPTIONS: readonly OptionDef[] = [
  def({
    key: 'genesis', flag: 'genesis', env: 'DLTNODE_GENESIS', group: 'Chain', valueName: 'FILE',
    description: 'Genesis file of the network to join (written by dltnode init); sets the network and its block interval',
    defaultValue: () => undefined, defaultText: 'none (the embedded single-node network)', normalise: text('a file path'),
  }),
  def({
    key: 'network', flag: 'network', env: 'DLTNODE_NETWORK', group: 'Chain', valueName: 'main|test|reg',
    description: 'Network: its checksum lock and defaults (reg = a local network the node produces blocks for)',
    defaultValue: (r) => (r.genesis ? readGenesisFile(r.genesis).network : 'reg'), defaultText: "reg, or the genesis file's", normalise: oneOf(['main', 'test', 'reg'] as const),
  }),
  def({
    key: 'dataDir', flag: 'data-dir', env: 'DLTNODE_DATA_DIR', group: 'Chain', valueName: 'DIR',
    description: 'Directory of the LMDB state and the wallet keystore',
    defaultValue: (r) => join('.data', r.network ?? 'reg'), defaultText: './.data/<network>', normalise: text('a directory path'),
  }),
  def({
    key: 'blockInterval', flag: 'block-interval', env: 'DLTNODE_BLOCK_INTERVAL', group: 'Chain', valueName: 'SECONDS',
    description: "Seconds between produced blocks (a genesis file sets its network's; this overrides it only for the embedded network)",
    defaultValue: (r) => (r.genesis ? readGenesisFile(r.genesis).blockIntervalSeconds : r.network === 'reg' ? REG_BLOCK_INTERVAL_SECONDS : REFERENCE_BLOCK_INTERVAL_SECONDS),
    defaultText: `the genesis file's; else ${REG_BLOCK_INTERVAL_SECONDS} on reg, ${REFERENCE_BLOCK_INTERVAL_SECONDS} on main/test`, normalise: seconds(0.1),
  }),
  def({
    key: 'poolThreads', flag: 'pool-threads', env: 'DLTNODE_POOL_THREADS', group: 'Chain', valueName: 'N',
    description: 'Worker threads for PoW and RSA (0 = run in the main thread)',
    defaultValue: defaultPoolThreads, defaultText: 'available cores − 1, at least 1', normalise: integer(0, 1024),
  }),
  def({
    key: 'genesisBalance', flag: 'genesis-balance', env: 'DLTNODE_GENESIS_BALANCE', group: 'Chain', valueName: 'COINS',
    description: "Coins the genesis block credits to the node's wallet (a CoinNumber such as 1000000 or 0.5)",
    defaultValue: () => 1_000_000n * 100_000_000n, defaultText: '1000000',
    normalise: (raw, where) => {
      const s = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
      if (typeof s !== 'string') return fail(where, 'a CoinNumber string such as "1000000"', raw);
      try {
        return parseAmount(s);
      } catch (e) {
        throw new ConfigError(`${where}: ${(e as Error).message}`);
      }
    },
  }),
  def({
    key: 'walletPassword', flag: 'wallet-password', env: 'DLTNODE_WALLET_PASSWORD', group: 'Chain', valueName: 'PASSWORD',
    description: 'Encrypts the wallet keystore at rest (prefer the environment variable to the flag)',
    defaultValue: () => undefined, defaultText: 'none (keystore not encrypted)', normalise: text('a non-empty password'), secret: true,
  }),
  def({
    key: 'miningDifficulty', flag: 'mining-difficulty', env: 'DLTNODE_MINING_DIFFICULTY', group: 'Chain', valueName: 'U64',
    description:
      'reg only: fixes the Argon2 mining difficulty of every block from block 2 on, instead of computing it as the reference does (0 is the easiest: a hash passes with probability 2^-16); every node of a network needs the same value',
    defaultValue: () => undefined, defaultText: 'computed from the chain (11730489520294945089, the minimum, until blocks are solved)',
    normalise: (raw, where) => {
      const s = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
      if (typeof s !== 'string' || !/^\d{1,20}$/.test(s) || BigInt(s) > 0xffff_ffff_ffff_ffffn) return fail(where, 'an unsigned 64-bit integer', raw);
      return BigInt(s);
    },
  }),
  def({
    key: 'minerThreads', flag: 'miner-threads', env: 'DLTNODE_MINER_THREADS', group: 'Chain', valueName: 'N',
    description: "Threads of the built-in miner searching Argon2 nonces for the node's own address, worker threads of its own at the lowest OS priority (0 = off)",
    defaultValue: () => 0, defaultText: '0', normalise: integer(0, 256),
  }),
  def({
    key: 'signerMinerDuty', flag: 'signer-miner-duty', env: 'DLTNODE_SIGNER_MINER_DUTY', group: 'Chain', valueName: 'PERCENT',
    description: "Genesis networks: percent of time a master's signer miner keeps hashing to improve a solution it already holds (it always yields to the node's own work; dltnode devnet uses 25)",
    defaultValue: () => 100, defaultText: '100 (as the reference)', normalise: integer(1, 100),
  }),
  def({
    key: 'nameMonthBlocks', flag: 'name-month-blocks', env: 'DLTNODE_NAME_MONTH_BLOCKS', group: 'Chain', valueName: 'BLOCKS',
    description: 'reg only: blocks per name-system month (scaled down so expiry is reachable in tests)',
    defaultValue: () => undefined, defaultText: '86400 (consensus)', normalise: integer(1, 1_000_000_000),
  }),
  def({
    key: 'nameGraceBlocks', flag: 'name-grace-blocks', env: 'DLTNODE_NAME_GRACE_BLOCKS', group: 'Chain', valueName: 'BLOCKS',
    description: 'reg only: grace period of expired names, in blocks',
    defaultValue: () => undefined, defaultText: 'consensus value', normalise: integer(1, 1_000_000_000),
  }),
  def({
    key: 'role', flag: 'role', env: 'DLTNODE_ROLE', group: 'Network', valueName: 'master|relay|client',
    description: 'Role on the network: a master validates and produces blocks, a relay forwards messages to its clients, a client submits through them (status Node Type M, R, C)',
    defaultValue: () => 'master' as const, defaultText: 'master', normalise: oneOf(['master', 'relay', 'client'] as const),
  }),
  def({
    key: 'p2pHost', flag: 'p2p-host', env: 'DLTNODE_P2P_HOST', group: 'Network', valueName: 'HOST',
    description: 'Address the peer listener binds (with --p2p-port)',
    defaultValue: () => '127.0.0.1', defaultText: '127.0.0.1', normalise: text('a host name or IP address'),
  }),
  def({
    key: 'p2pPort', flag: 'p2p-port', env: 'DLTNODE_P2P_PORT', group: 'Network', valueName: 'PORT',
    description: 'Port of the peer listener (ws://host:port/p2p; 0 = any free port); without it the node only dials out',
    defaultValue: () => undefined, defaultText: 'none (no listener)', normalise: integer(0, 65535),
  }),
  def({
    key: 'publicHost', flag: 'public-host', env: 'DLTNODE_PUBLIC_HOST', group: 'Network', valueName: 'HOST',
    description: 'Host other nodes dial to reach this one (signed in its hello and keep-alives)',
    defaultValue: () => undefined, defaultText: 'the --p2p-host', normalise: text('a host name or IP address'),
  }),
  def({
    key: 'peer', flag: 'peer', env: 'DLTNODE_PEER', group: 'Network', valueName: 'HOST:PORT', repeatable: true,
    description: 'A node to keep a link to (its --p2p-port); in the config file "peer": [...]',
    defaultValue: () => [], defaultText: 'none', normalise: list(hostPort),
  }),
  def({
    key: 'seed', flag: 'seed', env: 'DLTNODE_SEED', group: 'Network', valueName: 'HOST:PORT', repeatable: true,
    description: 'A master put in the peer book at start (the reference\'s seed list; in the config file "seed": [...]): dialled when the node wants a master link, not kept linked (a client dials one only while it has no relay)',
    defaultValue: () => [], defaultText: 'none', normalise: list(hostPort),
  }),
  def({
    key: 'mqDriver', flag: 'mq-driver', env: 'DLTNODE_MQ_DRIVER', group: 'Messaging', valueName: 'none|mqtt|rabbitmq',
    description: "Publish a client's incoming messaging events to a message broker as QuIXI does (topics RequestAdd2, Chat, AppData, …; --role client only)",
    defaultValue: () => 'none' as const, defaultText: 'none', normalise: oneOf(['none', 'mqtt', 'rabbitmq'] as const),
  }),
  def({
    key: 'mqHost', flag: 'mq-host', env: 'DLTNODE_MQ_HOST', group: 'Messaging', valueName: 'HOST',
    description: 'Host of the message broker (with --mq-driver)',
    defaultValue: () => '127.0.0.1', defaultText: '127.0.0.1', normalise: text('a host name or IP address'),
  }),
  def({
    key: 'mqPort', flag: 'mq-port', env: 'DLTNODE_MQ_PORT', group: 'Messaging', valueName: 'PORT',
    description: 'Port of the message broker',
    defaultValue: () => undefined, defaultText: '1883 (mqtt), 5672 (rabbitmq)', normalise: integer(1, 65535),
  }),
  def({
    key: 'mqPayload', flag: 'mq-payload', env: 'DLTNODE_MQ_PAYLOAD', group: 'Messaging', valueName: 'A|B',
    description: "Payload shape of broker events: A = QuIXI v0.9.1b (sender as an object), B = newer Core (sender as a string)",
    defaultValue: () => 'A' as const, defaultText: 'A', normalise: oneOf(['A', 'B'] as const),
  }),
  def({
    key: 'nick', flag: 'nick', env: 'DLTNODE_NICK', group: 'Messaging', valueName: 'NAME',
    description:
      "Nickname this client sends its contacts (the nick message, as Spixi and QuIXI's --name: once the contact handshake completes and in answer to any contact's getNick); without it the nick sent is empty and contacts show this node's address",
    defaultValue: () => '', defaultText: 'none (contacts show the address)', normalise: nickname,
  }),
  def({
    key: 'rpcHost', flag: 'rpc-host', env: 'DLTNODE_RPC_HOST', group: 'RPC', valueName: 'HOST',
    description: 'Address the RPC listens on; a non-loopback address needs --rpc-user/--rpc-allow or --rpc-public',
    defaultValue: () => DEFAULT_RPC_HOST, defaultText: DEFAULT_RPC_HOST, normalise: text('a host name or IP address'),
  }),
  def({
    key: 'rpcPort', flag: 'rpc-port', env: 'DLTNODE_RPC_PORT', group: 'RPC', valueName: 'PORT',
    description: 'RPC port (0 = any free port)', defaultValue: () => DEFAULT_RPC_PORT, defaultText: String(DEFAULT_RPC_PORT), normalise: integer(0, 65535),
  }),
  def({
    key: 'rpcUser', flag: 'rpc-user', env: 'DLTNODE_RPC_USER', group: 'RPC', valueName: 'USER:PASSWORD', repeatable: true,
    description: 'HTTP Basic user allowed to call the RPC (comma-separated in the environment)',
    defaultValue: () => [], defaultText: 'none (no authentication)', secret: true,
    normalise: list(checkedBy(parseRpcUser)),
  }),
  def({
    key: 'rpcAllow', flag: 'rpc-allow', env: 'DLTNODE_RPC_ALLOW', group: 'RPC', valueName: 'IP|CIDR', repeatable: true,
    description: 'Remote address or range allowed to call the RPC (others get 403)',
    defaultValue: () => [], defaultText: 'any',
    normalise: list(checkedBy(checkAllowEntry)),
  }),
  def({
    key: 'rpcCors', flag: 'rpc-cors', env: 'DLTNODE_RPC_CORS', group: 'RPC', valueName: 'ORIGIN', repeatable: true,
    description: "Web origin (scheme://host[:port], or '*') whose pages may call the RPC from a browser, with CORS headers; pages of other origins get 403",
    defaultValue: () => [], defaultText: "none (the node's own page only)",
    normalise: list(checkedBy(checkCorsEntry)),
  }),
  def({
    key: 'rpcVhost', flag: 'rpc-vhost', env: 'DLTNODE_RPC_VHOST', group: 'RPC', valueName: 'NAME', repeatable: true,
    description: "Host name (or '*') the RPC answers to besides IP addresses, localhost and the --rpc-host name; other Host headers get 403 (DNS rebinding)",
    defaultValue: () => [], defaultText: 'none',
    normalise: list(checkedBy(checkVhostEntry)),
  }),
  def({
    key: 'rpcPublic', flag: 'rpc-public', env: 'DLTNODE_RPC_PUBLIC', group: 'RPC',
    description: 'Allow a non-loopback --rpc-host without authentication (logs a warning)',
    defaultValue: () => false, defaultText: 'off', normalise: parseSwitch,
  }),
  def({
    key: 'rpcTransport', flag: 'rpc-transport', env: 'DLTNODE_RPC_TRANSPORT', group: 'RPC', valueName: 'auto|uws|http',
    description: 'HTTP server: auto = http = node:http (RFC 9112 framing); uws = uWebSockets.js (faster; framing defects, loopback use only)',
    defaultValue: () => 'auto' as const, defaultText: 'auto', normalise: oneOf(['auto', 'uws', 'http'] as const),
  }),
  def({
    key: 'maxBodyBytes', flag: 'max-body-bytes', env: 'DLTNODE_MAX_BODY_BYTES', group: 'RPC', valueName: 'BYTES',
    description: 'Largest accepted request body (413 above it)',
    defaultValue: () => DEFAULT_MAX_BODY_BYTES, defaultText: String(DEFAULT_MAX_BODY_BYTES), normalise: integer(1024, 1 << 30),
  }),
  def({
    key: 'noWeb', flag: 'no-web', env: 'DLTNODE_NO_WEB', group: 'RPC',
    description: 'Do not serve the web wallet and status page at GET / (the RPC itself is unchanged)',
    defaultValue: () => false, defaultText: 'off (the page is served)', normalise: parseSwitch,
  }),
  def({
    key: 'logLevel', flag: 'log-level', env: 'DLTNODE_LOG_LEVEL', group: 'Logging and metrics', valueName: LOG_LEVELS.join('|'),
    description: 'Least severe level logged', defaultValue: () => 'info' as const, defaultText: 'info', normalise: oneOf(LOG_LEVELS),
  }),
  def({
    key: 'logFormat', flag: 'log-format', env: 'DLTNODE_LOG_FORMAT', group: 'Logging and metrics', valueName: 'json|pretty',
    description: 'Log lines as JSON or as human-readable text',
    defaultValue: () => (process.stdout.isTTY ? 'pretty' : 'json'), defaultText: 'pretty on a terminal, json otherwise', normalise: oneOf(LOG_FORMATS),
  }),
  def({
    key: 'metrics', flag: 'metrics', env: 'DLTNODE_METRICS', group: 'Logging and metrics',
    description: 'Serve Prometheus metrics at GET /metrics on the RPC port',
    defaultValue: () => false, defaultText: 'off', normalise: parseSwitch,
  }),
  def({
    key: 'metricsPort', flag: 'metrics-port', env: 'DLTNODE_METRICS_PORT', group: 'Logging and metrics', valueName: 'PORT',
    description: 'Serve /metrics on this separate loopback port instead (0 = any free port)',
    defaultValue: () => undefined, defaultText: 'none', normalise: integer(0, 65535),
  }),
  def({
    key: 'statusInterval', flag: 'status-interval', env: 'DLTNODE_STATUS_INTERVAL', group: 'Logging and metrics', valueName: 'SECONDS',
    description: 'Seconds between status log lines (height, pending pool, RPC req/s); 0 = none',
    defaultValue: () => 30, defaultText: '30', normalise: (raw, where) => {
      if (raw === 0 || (typeof raw === 'string' && /^\s*0+(\.0+)?\s*$/.test(raw))) return 0;
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : NaN;
      return Number.isFinite(n) && n >= 1 && n <= MAX_TIMER_SECONDS ? n : fail(where, `a number of seconds 1–${MAX_TIMER_SECONDS}, or 0 for no status line`, raw);
    },
  }),
  def({
    key: 'shutdownTimeout', flag: 'shutdown-timeout', env: 'DLTNODE_SHUTDOWN_TIMEOUT', group: 'Process', valueName: 'SECONDS',
    description: 'Longest wait for in-flight RPC requests on shutdown',
    defaultValue: () => 10, defaultText: '10', normalise: seconds(0),
  }),
];

/** Options that exist only on the reg network (reference-names.md §4.5/§5.3 constants are consensus elsewhere). */
export const REG_ONLY_KEYS: readonly OptionKey[] = ['nameMonthBlocks', 'nameGraceBlocks', 'miningDifficulty'];

/** The option declared with this flag name (also the config-file key). */
export function optionByFlag(flag: string): OptionDef | undefined {
  return OPTIONS.find((o) => o.flag === flag);
}
