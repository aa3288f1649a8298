#!/usr/bin/env node
/**
 * The `dltnode` command. `dltnode start [options]` runs a node; `dltnode init` writes a network's
 * genesis file; `dltnode wallet address` prints a data directory's address; `dltnode bench pow`
 * measures PoW verification; `--help`, `--version` and `--print-config` are answered without opening anything.
 * Exit codes: 0 stopped cleanly; 1 failed (startup or shutdown error); 2 bad command line or
 * configuration; 130 forced by a second signal.
 */
import { ConfigError } from '../config/options.js';
import { parseArgs, printableConfig, resolveConfig } from '../config/load.js';
import { mainHelp, startHelp } from '../config/help.js';
import { versionReport } from './version.js';
import { runStart } from './start.js';

const USAGE_ERROR_CODE = 2;

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'bench') return benchCommand(argv.slice(1));
  if (argv[0] === 'devnet') return (await import('./devnet.js')).devnetCommand(argv.slice(1));
  if (argv[0] === 'init') return (await import('./network-setup.js')).initCommand(argv.slice(1));
  if (argv[0] === 'wallet') return (await import('./network-setup.js')).walletCommand(argv.slice(1), process.env);
  const args = parseArgs(argv);
  if (args.version) {
    console.log(versionReport());
    return 0;
  }
  const [command, ...rest] = args.positionals;
  if (command === undefined) {
    console.log(mainHelp());
    return args.help ? 0 : USAGE_ERROR_CODE;
  }
  if (command !== 'start') throw new ConfigError(`Unknown command '${command}'; see dltnode --help`);
  if (rest.length > 0) throw new ConfigError(`Unexpected argument '${rest[0]}'; options start with --`);
  if (args.help) {
    console.log(startHelp());
    return 0;
  }
  const resolved = resolveConfig({ args, env: process.env });
  if (args.printConfig) {
    console.log(JSON.stringify(printableConfig(resolved), null, 2));
    return 0;
  }
  // Imported here so --help and --version never load LMDB or the worker pool.
  const [{ createNode }, { METHODS, LIGHT_METHODS }] = await Promise.all([import('../node/node.js'), import('../rpc/methods/index.js')]);
  // Relays and clients follow headers only: their table answers from headers, their own transactions and masters.
  const running = await runStart(resolved.config, { createNode, unused: resolved.unused, methods: resolved.config.role === 'master' ? METHODS : LIGHT_METHODS });
  return running.stopped;
}

/** `dltnode bench pow [...]`: the PoW verification benchmark (src/cli/bench-pow.ts). */
async function benchCommand(argv: string[]): Promise<number> {
  const { BENCH_POW_HELP, parseBenchPowArgs, runPowBench, formatPowBench } = await import('./bench-pow.js');
  const [suite, ...rest] = argv;
  if (suite === undefined || suite === '--help' || suite === '-h') {
    console.log(BENCH_POW_HELP);
    return suite === undefined ? USAGE_ERROR_CODE : 0;
  }
  if (suite !== 'pow') throw new ConfigError(`Unknown benchmark '${suite}'; dltnode bench pow is the one built in (npm run bench runs the comparisons)`);
  const opts = parseBenchPowArgs(rest);
  if (opts.help) {
    console.log(BENCH_POW_HELP);
    return 0;
  }
  if (opts.mining) {
    const { runMiningBench, formatMiningBench } = await import('./bench-mining.js');
    const mined = await runMiningBench(opts);
    console.log(opts.json ? JSON.stringify(mined) : formatMiningBench(mined));
    return 0;
  }
  const result = await runPowBench(opts);
  console.log(opts.json ? JSON.stringify(result) : formatPowBench(result));
  return 0;
}

/**
 * A failure is one line on stderr: messages that quote a file (JSON.parse's quotes the start of a
 * broken config, genesis or keystore file, line breaks included) are joined into one.
 */
function oneLine(message: string): string {
  return message.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    if (e instanceof ConfigError) {
      process.stderr.write(`dltnode: ${oneLine(e.message)}\n`);
      process.exitCode = USAGE_ERROR_CODE;
      return;
    }
    process.stderr.write(`dltnode: ${oneLine(e instanceof Error ? e.message : String(e))}\n`);
    if (e instanceof Error && e.stack && process.env.DLTNODE_DEBUG) process.stderr.write(`${e.stack}\n`);
    process.exitCode = 1;
  },
);
