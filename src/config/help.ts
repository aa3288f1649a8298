/**
 * `--help` text generated from the option table (practice P51), and the markdown flag reference of
 * README "Running a node" generated from the same table.
 */
import { OPTIONS, type OptionDef } from './options.js';
import { CONFIG_ENV, CONFIG_FLAG } from './load.js';

/** Column of the descriptions in --help. */
const HELP_FLAG_WIDTH = 32;

const GROUP_ORDER: OptionDef['group'][] = ['Chain', 'Network', 'Messaging', 'RPC', 'Logging and metrics', 'Process'];

function flagSyntax(o: OptionDef): string {
  return o.valueName ? `--${o.flag} ${o.valueName}` : `--${o.flag}`;
}

/** Text of `dltnode start --help`. */
export function startHelp(): string {
  const lines = [
    'Usage: dltnode start [options]',
    '',
    'Starts a node: opens the state in --data-dir, produces blocks on reg, and serves the RPC.',
    'Precedence: flags > environment (DLTNODE_*) > config file (--config, keys = flag names) > defaults.',
  ];
  const width = HELP_FLAG_WIDTH;
  for (const group of GROUP_ORDER) {
    lines.push('', `${group}:`);
    for (const o of OPTIONS.filter((x) => x.group === group)) {
      const flag = flagSyntax(o);
      // A flag longer than the column gets its own line.
      if (flag.length >= width) lines.push(`  ${flag}`, `  ${''.padEnd(width)}${o.description}`);
      else lines.push(`  ${flag.padEnd(width)}${o.description}`);
      lines.push(`  ${''.padEnd(width)}default: ${o.defaultText}; env ${o.env}${o.repeatable ? '; repeatable' : ''}`);
    }
  }
  lines.push(
    '',
    'Other:',
    `  ${`--${CONFIG_FLAG} FILE`.padEnd(width)}JSON config file (env ${CONFIG_ENV})`,
    `  ${'--print-config'.padEnd(width)}Print the effective configuration with each value's source, then exit`,
    `  ${'-h, --help'.padEnd(width)}This help`,
  );
  return lines.join('\n');
}

/** Text of `dltnode --help`. */
export function mainHelp(): string {
  return [
    'Usage: dltnode <command> [options]',
    '',
    'Commands:',
    '  start        Start a node (see dltnode start --help)',
    '  devnet       Start a local network: masters, relays and clients on 127.0.0.1 (see dltnode devnet --help)',
    '  init         Write the genesis file of a new network (see dltnode init --help)',
    '  wallet address --data-dir DIR   Print (creating if needed) the wallet address of a data directory',
    '  bench pow    Measure PoW verification: verifications/s and latency (see dltnode bench pow --help)',
    '',
    'Options:',
    '  -V, --version  Print the versions of the node, the WASM build, the transport and Node.js',
    '  -h, --help     This help',
  ].join('\n');
}

/** Markdown table of every option (README "Running a node"). */
export function optionsMarkdown(): string {
  const rows = ['| Flag (= config key) | Environment | Default | Meaning |', '| --- | --- | --- | --- |'];
  for (const group of GROUP_ORDER) {
    for (const o of OPTIONS.filter((x) => x.group === group)) {
      rows.push(`| \`${flagSyntax(o)}\` | \`${o.env}\` | ${o.defaultText} | ${o.description}${o.repeatable ? ' (repeatable)' : ''} |`);
    }
  }
  return rows.join('\n');
}
