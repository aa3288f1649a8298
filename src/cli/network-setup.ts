/**
 * Setting up a network before its nodes first run (issue 9 point 6):
 *
 * - `dltnode wallet address --data-dir DIR`: creates the wallet of a data directory if it has none
 *   and prints its primary address, so a genesis can fund and name the node before it starts;
 * - `dltnode init --out FILE --fund ADDRESS=COINS … --master ADDRESS … [--sign-with DIR]`: writes a
 *   genesis file, its genesis transaction signed by the wallet of DIR when given (src/chain/genesis.ts).
 *
 * Both answer a bad argument with exit code 2 and a sentence naming it.
 */
import { existsSync } from 'node:fs';
import { genesisSignature, type GenesisSpec } from '../chain/genesis.js';
import { addressFromText, addressToText } from '../formats/address.js';
import { parseAmount } from '../formats/amount.js';
import { writeGenesisFile, genesisFromJson, genesisToJson } from '../config/genesis-file.js';
import { ConfigError } from '../config/options.js';
import { NodeWallet, WALLET_KEYGEN_LOG } from '../wallet/wallet.js';
import { createDataDir } from '../node/data-dir-lock.js';
import { parseCommandArgs } from './args.js';

export const WALLET_HELP = `Usage: dltnode wallet address --data-dir DIR [--wallet-password PASSWORD]

Prints the primary address of the node wallet in DIR, creating the wallet (an RSA-4096 key) if DIR
holds none. The password may also come from DLTNODE_WALLET_PASSWORD.`;

export const INIT_HELP = `Usage: dltnode init --out FILE --fund ADDRESS=COINS [--fund …] --master ADDRESS [--master …]
                    [--name NAME] [--network reg|test|main] [--block-interval SECONDS] [--timestamp UNIX]
                    [--min-signer-difficulty COINS] [--reward-maturity BLOCKS] [--superblock-period BLOCKS]
                    [--sign-with DIR [--wallet-password PASSWORD]]

Writes the genesis file of a new network. Start every node of that network with --genesis FILE.
  --fund ADDRESS=COINS   an address funded by block 1 (repeatable)
  --master ADDRESS       a master that proposes blocks, in proposer order (repeatable); it need not
                         be funded: a master needs no balance (the reference's
                         minimumMasterNodeFunds is 0)
  --name NAME            the network's name (default devnet)
  --network NAME         whose checksum lock it uses (default reg)
  --block-interval S     seconds between blocks (default 1)
  --timestamp UNIX       time of block 1 (default now)
  --min-signer-difficulty COINS
                         least signer-PoW difficulty of a block signature or master keep-alive
                         (default 10000000, the reference's: ~10^7 hashes per solution; a devnet
                         wants a small one such as 65536); any amount above 0, up to 8 decimals:
                         below 2 every hash that reads positive qualifies (~2 hashes per solution)
  --reward-maturity N    block n pays the signers of block n − N their signing reward and fees
                         (default the reference's 960; at least 6)
  --superblock-period N  every N-th block is a superblock (default the reference's 1000; at least 10)

  --sign-with DIR        sign the genesis transaction with the wallet of data directory DIR (the
                         network's creator; created if DIR holds none), as the reference's genesis
                         node signs it; the password may also come from DLTNODE_WALLET_PASSWORD`;

/** Said on stderr before a new keystore's RSA-4096 key is generated (seconds; stdout keeps the answer). */
const keygenNotice = { onCreate: (): void => void process.stderr.write(`${WALLET_KEYGEN_LOG}\n`) };

/** `dltnode wallet <subcommand>`; resolves with the exit code. */
export async function walletCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { 'data-dir': { type: 'string' }, 'wallet-password': { type: 'string' } }, 'wallet', true);
  if (values.help) {
    console.log(WALLET_HELP);
    return 0;
  }
  if (positionals.length === 0) throw new ConfigError('dltnode wallet needs a command: dltnode wallet address --data-dir DIR');
  if (positionals[0] !== 'address' || positionals.length > 1) throw new ConfigError(`Unknown wallet command '${positionals.join(' ')}'; dltnode wallet address --data-dir DIR`);
  const dataDir = values['data-dir'] as string | undefined;
  if (!dataDir) throw new ConfigError('dltnode wallet address needs --data-dir DIR');
  createDataDir(dataDir);
  const wallet = await NodeWallet.open(dataDir, (values['wallet-password'] as string | undefined) ?? env.DLTNODE_WALLET_PASSWORD, keygenNotice);
  console.log(wallet.primary.primaryText);
  return 0;
}

/** The genesis described by `dltnode init`'s arguments. @throws ConfigError naming the argument */
export function genesisFromArgs(argv: string[], nowS = Math.floor(Date.now() / 1000)): { out: string; spec: GenesisSpec; signWith?: { dataDir: string; password?: string } } | 'help' {
  const { values } = parseCommandArgs(argv, {
    out: { type: 'string' },
    fund: { type: 'string', multiple: true },
    master: { type: 'string', multiple: true },
    name: { type: 'string' },
    network: { type: 'string' },
    'block-interval': { type: 'string' },
    timestamp: { type: 'string' },
    'min-signer-difficulty': { type: 'string' },
    'reward-maturity': { type: 'string' },
    'superblock-period': { type: 'string' },
    'sign-with': { type: 'string' },
    'wallet-password': { type: 'string' },
  }, 'init');
  if (values.help) return 'help';
  const out = values.out as string | undefined;
  if (!out) throw new ConfigError('dltnode init needs --out FILE');
  const funds = (values.fund as string[] | undefined) ?? [];
  const masters = (values.master as string[] | undefined) ?? [];
  if (funds.length === 0) throw new ConfigError('dltnode init needs at least one --fund ADDRESS=COINS');
  if (masters.length === 0) throw new ConfigError('dltnode init needs at least one --master ADDRESS');
  const allocations = funds.map((f) => {
    const at = f.lastIndexOf('=');
    if (at <= 0) throw new ConfigError(`--fund ${f}: expected ADDRESS=COINS`);
    let address: Uint8Array;
    try {
      address = addressFromText(f.slice(0, at));
    } catch (err) {
      throw new ConfigError(`--fund ${f}: ${(err as Error).message}`);
    }
    let amount: bigint;
    try {
      amount = parseAmount(f.slice(at + 1));
    } catch (err) {
      throw new ConfigError(`--fund ${f}: ${(err as Error).message}`);
    }
    return { address: addressToText(address), amount: f.slice(at + 1) };
  });
  const interval = values['block-interval'] === undefined ? 1 : Number(values['block-interval']);
  const timestamp = values.timestamp === undefined ? nowS : Number(values.timestamp);
  // The file's own checks (the same a node runs when it reads the file) validate the rest.
  const spec = genesisFromJson(
    {
      dltnodeGenesis: 1,
      name: (values.name as string | undefined) ?? 'devnet',
      network: (values.network as string | undefined) ?? 'reg',
      timestamp,
      blockIntervalSeconds: interval,
      allocations,
      masters,
      ...(values['min-signer-difficulty'] !== undefined ? { minSignerDifficulty: values['min-signer-difficulty'] } : {}),
      ...blockCountArgs(values),
    },
    'dltnode init',
    (field) => initOptionOf(field, funds, masters),
  );
  const signWith = values['sign-with'] as string | undefined;
  const password = values['wallet-password'] as string | undefined;
  if (password !== undefined && signWith === undefined) throw new ConfigError('--wallet-password belongs to --sign-with DIR');
  return { out, spec, ...(signWith !== undefined ? { signWith: { dataDir: signWith, ...(password !== undefined ? { password } : {}) } } : {}) };
}

/** The genesis file's fields as the options of `dltnode init` that set them. */
const INIT_OPTION_OF_FIELD: Record<string, string> = {
  '"name"': '--name',
  '"network"': '--network',
  '"timestamp"': '--timestamp',
  '"blockIntervalSeconds"': '--block-interval',
  '"minSignerDifficulty"': '--min-signer-difficulty',
  '"rewardMaturity"': '--reward-maturity',
  '"superBlockPeriod"': '--superblock-period',
  '"allocations"': '--fund',
  '"masters"': '--master',
};

/** A field a check of the genesis refused, named as the option (and value) the user typed. */
function initOptionOf(field: string, funds: string[], masters: string[]): string {
  const listed = /^"(allocations|masters)"\[(\d+)\]/.exec(field);
  if (listed) return listed[1] === 'masters' ? `--master ${masters[Number(listed[2])]}` : `--fund ${funds[Number(listed[2])]}`;
  return INIT_OPTION_OF_FIELD[field] ?? field;
}

/** `--reward-maturity` / `--superblock-period` as the genesis file's fields (whose checks then run and name them). */
function blockCountArgs(values: Record<string, unknown>): { rewardMaturity?: number; superBlockPeriod?: number } {
  return {
    ...(values['reward-maturity'] !== undefined ? { rewardMaturity: Number(values['reward-maturity']) } : {}),
    ...(values['superblock-period'] !== undefined ? { superBlockPeriod: Number(values['superblock-period']) } : {}),
  };
}

export async function initCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const parsed = genesisFromArgs(argv);
  if (parsed === 'help') {
    console.log(INIT_HELP);
    return 0;
  }
  // Nodes started from a genesis file refuse any other one (their block 1 is built from it): a
  // second init over it would leave every data directory of the network unable to start.
  if (existsSync(parsed.out)) {
    throw new ConfigError(`${parsed.out} exists: a network's genesis is fixed once its nodes have started from it; give another --out, or remove the file first`);
  }
  if (parsed.signWith) {
    createDataDir(parsed.signWith.dataDir);
    const wallet = await NodeWallet.open(parsed.signWith.dataDir, parsed.signWith.password ?? env.DLTNODE_WALLET_PASSWORD, keygenNotice);
    parsed.spec.signature = genesisSignature(parsed.spec, (checksum) => wallet.primary.sign(checksum));
  }
  writeGenesisFile(parsed.out, parsed.spec);
  const json = genesisToJson(parsed.spec);
  console.log(
    `genesis of network ${json.name} (${json.network}) written to ${parsed.out}: ${json.allocations.length} funded addresses, ${json.masters.length} masters` +
      (json.signature ? ', genesis transaction signed' : ''),
  );
  return 0;
}
