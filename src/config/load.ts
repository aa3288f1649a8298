/**
 * Resolving the effective configuration from the option table (options.ts): command-line flags,
 * `DLTNODE_*` environment variables, a JSON config file (`--config FILE`, keys = flag names), and
 * defaults — in that order of precedence (practice P51).
 */
import { readFileSync } from 'node:fs';
import { ConfigError, OPTIONS, REG_ONLY_KEYS, optionByFlag, type DltnodeConfig, type OptionDef, type OptionKey, type OptionSource } from './options.js';
import { formatAmount } from '../formats/amount.js';
import type { NodeOptions } from '../node/options.js';
import { readGenesisFile } from './genesis-file.js';

/** Flags that are not options of the table: they select what the command does. */
export const CONFIG_FLAG = 'config';
export const CONFIG_ENV = 'DLTNODE_CONFIG';

export interface ParsedArgs {
  /** Positional words (`start`). */
  positionals: string[];
  /** Raw flag values by flag name; repeatable flags keep every occurrence. */
  flags: Map<string, string[]>;
  /** Command switches outside the table: help, version, print-config. */
  help: boolean;
  version: boolean;
  printConfig: boolean;
  configFile: string | undefined;
}

/**
 * Reads `--flag value`, `--flag=value` and switches (`--metrics`, `--metrics=false`). Unknown flags
 * are refused with the nearest known name.
 */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const out: ParsedArgs = { positionals: [], flags: new Map(), help: false, version: false, printConfig: false, configFile: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') {
      out.help = true;
      continue;
    }
    if (arg === '-V' || arg === '--version') {
      out.version = true;
      continue;
    }
    if (arg === '--print-config') {
      out.printConfig = true;
      continue;
    }
    if (!arg.startsWith('--')) {
      if (arg.startsWith('-') && arg.length > 1) throw new ConfigError(`Unknown option ${arg}; see --help`);
      out.positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    let value: string | undefined = eq < 0 ? undefined : arg.slice(eq + 1);
    const isConfig = name === CONFIG_FLAG;
    const opt = isConfig ? undefined : optionByFlag(name);
    if (!isConfig && !opt) throw new ConfigError(`Unknown option --${name}${suggest(name)}; see --help`);
    const takesValue = isConfig || opt!.valueName !== undefined;
    if (value === undefined && takesValue) {
      value = argv[++i];
      if (value === undefined || value.startsWith('--')) throw new ConfigError(`Option --${name} needs a value (${isConfig ? 'FILE' : opt!.valueName})`);
    }
    if (isConfig) {
      out.configFile = value;
      continue;
    }
    const values = out.flags.get(name) ?? [];
    if (values.length > 0 && !opt!.repeatable) throw new ConfigError(`Option --${name} is given twice; it takes one value`);
    values.push(value ?? '');
    out.flags.set(name, values);
  }
  return out;
}

function suggest(name: string): string {
  return didYouMean(name, OPTIONS.map((o) => o.flag));
}

/** ` (did you mean --flag?)` for the flag nearest a mistyped one (edit distance under 3), else ''. */
export function didYouMean(name: string, flags: readonly string[]): string {
  let best: string | undefined;
  let bestDistance = 3;
  for (const flag of flags) {
    const d = editDistance(name, flag);
    if (d < bestDistance) {
      bestDistance = d;
      best = flag;
    }
  }
  return best ? ` (did you mean --${best}?)` : '';
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

export interface ResolveInput {
  args: ParsedArgs;
  env: NodeJS.ProcessEnv;
  /** Reads the config file (injected for tests); default: fs. */
  readFile?: (path: string) => string;
}

export interface ResolvedConfig {
  config: DltnodeConfig;
  sources: Record<OptionKey, OptionSource>;
  configFile: string | undefined;
  /** Options the user set that take no effect (a genesis file fixes them), one sentence each: `start` logs them as warnings. */
  unused: string[];
}

/**
 * The options a genesis file overrides, given by the user: a network's block interval and its
 * funded addresses are the genesis's (every master must produce on the same beat, §6 item 6), so
 * `--block-interval` and `--genesis-balance` only apply to the embedded network.
 */
function unusedWithGenesis(config: DltnodeConfig, sources: Record<OptionKey, OptionSource>): string[] {
  if (config.genesis === undefined) return [];
  const notes: string[] = [];
  if (sources.blockInterval !== 'default') {
    const own = readGenesisFile(config.genesis).blockIntervalSeconds;
    if (config.blockInterval !== own) notes.push(`--block-interval ${config.blockInterval} is not used: the genesis file ${config.genesis} sets ${own} s between blocks`);
  }
  if (sources.genesisBalance !== 'default') notes.push(`--genesis-balance is not used: the genesis file ${config.genesis} names the funded addresses`);
  return notes;
}

/** Applies flags > env > config file > defaults, normalising every value. */
export function resolveConfig(input: ResolveInput): ResolvedConfig {
  const { args, env } = input;
  const configFile = args.configFile ?? (env[CONFIG_ENV] || undefined);
  const fileValues = configFile ? readConfigFile(configFile, input.readFile ?? ((p) => readFileSync(p, 'utf8'))) : {};
  const config: Partial<DltnodeConfig> = {};
  const sources = {} as Record<OptionKey, OptionSource>;
  for (const opt of OPTIONS) {
    const flagValues = args.flags.get(opt.flag);
    const envValue = env[opt.env];
    let value: unknown;
    let source: OptionSource;
    if (flagValues !== undefined) {
      source = 'flag';
      value = normaliseFlag(opt, flagValues);
    } else if (envValue !== undefined && envValue !== '') {
      source = 'env';
      value = opt.normalise(envValue, `environment variable ${opt.env}`);
    } else if (Object.hasOwn(fileValues, opt.flag)) {
      source = 'config';
      value = opt.normalise(fileValues[opt.flag], `config file ${configFile} key "${opt.flag}"`);
    } else {
      source = 'default';
      value = opt.defaultValue(config);
    }
    (config as Record<string, unknown>)[opt.key] = value;
    sources[opt.key] = source;
  }
  const full = config as DltnodeConfig;
  for (const key of REG_ONLY_KEYS) {
    if (full.network !== 'reg' && full[key] !== undefined) {
      const opt = OPTIONS.find((o) => o.key === key)!;
      throw new ConfigError(`--${opt.flag} applies to --network reg only (the ${full.network} network uses the consensus value)`);
    }
  }
  // Contact messaging, and with it the broker bridge and the nick, runs on clients only (src/node/node.ts).
  if (full.role !== 'client') {
    const set = full.mqDriver !== 'none' ? 'mq-driver' : full.nick !== '' ? 'nick' : null;
    if (set) throw new ConfigError(`--${set} applies to --role client only (contact messaging runs on clients; this node is a ${full.role})`);
  }
  return { config: full, sources, configFile, unused: unusedWithGenesis(full, sources) };
}

function normaliseFlag(opt: OptionDef, values: string[]): unknown {
  const where = `--${opt.flag}`;
  if (opt.repeatable) return opt.normalise(values.flatMap((v) => v.split(',')), where);
  return opt.normalise(values[0], where);
}

function readConfigFile(path: string, read: (path: string) => string): Record<string, unknown> {
  let textContent: string;
  try {
    textContent = read(path);
  } catch (e) {
    throw new ConfigError(`Cannot read the config file ${path}: ${(e as Error).message}; check the path given to --config`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(textContent);
  } catch (e) {
    throw new ConfigError(`Config file ${path} is not valid JSON: ${(e as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`Config file ${path} must hold a JSON object whose keys are flag names, e.g. {"rpc-port": 8081}`);
  }
  for (const key of Object.keys(parsed)) {
    if (!optionByFlag(key)) throw new ConfigError(`Config file ${path}: unknown key "${key}"${suggest(key)}; keys are the flag names of --help`);
  }
  return parsed as Record<string, unknown>;
}

/** The part of the configuration the node core takes (src/node/options.ts). */
export function toNodeOptions(config: DltnodeConfig): NodeOptions {
  const genesis = config.genesis === undefined ? undefined : readGenesisFile(config.genesis);
  if (genesis && genesis.network !== config.network) {
    throw new ConfigError(`The genesis file ${config.genesis} is for the ${genesis.network} network, not ${config.network}; drop --network`);
  }
  const options: NodeOptions = {
    network: config.network,
    dataDir: config.dataDir,
    chain: genesis ? { genesisBalance: config.genesisBalance, genesis } : { genesisBalance: config.genesisBalance },
    // A network's block interval is its genesis's: every master must produce on the same beat.
    consensus: genesis
      ? {
          blockIntervalSeconds: genesis.blockIntervalSeconds,
          signerPow: { minDifficulty: genesis.minSignerDifficulty, ...(config.signerMinerDuty < 100 ? { duty: config.signerMinerDuty / 100 } : {}) },
        }
      : { blockIntervalSeconds: config.blockInterval },
    pool: { threads: config.poolThreads },
    names: {},
  };
  if (config.walletPassword !== undefined) options.walletPassword = config.walletPassword;
  // The peer network runs when the node listens, dials, joins a genesis network or is not a master.
  if (config.p2pPort !== undefined || config.peer.length > 0 || config.seed.length > 0 || genesis || config.role !== 'master') {
    options.p2p = { role: config.role, peers: config.peer, seeds: config.seed };
    if (config.p2pPort !== undefined) options.p2p.listen = { host: config.p2pHost, port: config.p2pPort };
    if (config.publicHost !== undefined) options.p2p.publicHost = config.publicHost;
  }
  if (config.mqDriver !== 'none') {
    options.mq = { driver: config.mqDriver, host: config.mqHost, shape: config.mqPayload };
    if (config.mqPort !== undefined) options.mq.port = config.mqPort;
  }
  if (config.nick !== '') options.messaging = { nick: config.nick };
  if (config.nameMonthBlocks !== undefined) options.names.monthBlocks = config.nameMonthBlocks;
  if (config.minerThreads > 0 || config.miningDifficulty !== undefined) {
    options.mining = { minerThreads: config.minerThreads, ...(config.miningDifficulty !== undefined ? { difficulty: config.miningDifficulty } : {}) };
  }
  if (config.nameGraceBlocks !== undefined) options.names.graceBlocks = config.nameGraceBlocks;
  return options;
}

/**
 * The effective configuration for --print-config: `config` is usable as a --config file (secrets
 * masked), `sources` tells where each value came from.
 */
export function printableConfig(resolved: ResolvedConfig): { config: Record<string, unknown>; sources: Record<string, OptionSource>; unused?: string[] } {
  const config: Record<string, unknown> = {};
  const sources: Record<string, OptionSource> = {};
  for (const opt of OPTIONS) {
    let value: unknown = resolved.config[opt.key];
    if (typeof value === 'bigint') value = value.toString();
    if (opt.key === 'genesisBalance') value = formatAmount(resolved.config.genesisBalance);
    if (opt.secret && value !== undefined && !(Array.isArray(value) && value.length === 0)) {
      value = Array.isArray(value) ? value.map((u: { user: string }) => `${u.user}:***`) : '***';
    }
    if (value !== undefined) config[opt.flag] = value;
    sources[opt.flag] = resolved.sources[opt.key];
  }
  return resolved.unused.length > 0 ? { config, sources, unused: resolved.unused } : { config, sources };
}
