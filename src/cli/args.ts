/**
 * Arguments of the subcommands other than `start` (init, wallet, devnet, bench pow): node:util
 * parseArgs, its errors as a ConfigError (exit code 2) naming the command's help and, for a
 * mistyped option, the nearest one, as `start` answers (src/config/load.ts).
 */
import { parseArgs } from 'node:util';
import { didYouMean } from '../config/load.js';
import { ConfigError } from '../config/options.js';

export type CommandOptionSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>;

export interface CommandArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** Parses `argv` of `dltnode <command>` (with --help/-h); positionals only when `allowPositionals`. */
export function parseCommandArgs(argv: string[], options: CommandOptionSpec, command: string, allowPositionals = false): CommandArgs {
  try {
    const r = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals });
    return { values: r.values as CommandArgs['values'], positionals: r.positionals };
  } catch (err) {
    const e = err as Error & { code?: string };
    // node's texts for these two suggest passing the word after `--`, which no command here takes.
    const word = /'([^']*)'/.exec(e.message)?.[1];
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && word) {
      const hint = word.startsWith('--') ? didYouMean(word.slice(2).split('=')[0]!, Object.keys(options)) : '';
      throw new ConfigError(`Unknown option '${word}'${hint}; see dltnode ${command} --help`);
    }
    if (e.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && word) throw new ConfigError(`Unexpected argument '${word}'; options start with --, see dltnode ${command} --help`);
    // node's texts run over several lines and end with a period; one line, then the help to read.
    throw new ConfigError(`${e.message.replace(/\s*\n\s*/g, ' ').replace(/\.$/, '')}; see dltnode ${command} --help`);
  }
}
