/**
 * The genesis file of a network (issue 9 point 6): written by `dltnode init`, read by every node
 * of that network (`--genesis FILE`). JSON, with addresses in Base58 and amounts as CoinNumber
 * strings, so a person can read and check it:
 *
 *   { "dltnodeGenesis": 1, "name": "devnet", "network": "reg", "timestamp": 1764000000,
 *     "blockIntervalSeconds": 1,
 *     "allocations": [{ "address": "…", "amount": "1000000.00000000" }],
 *     "masters": ["…"],
 *     "minSignerDifficulty": "65536.00000000", "rewardMaturity": 960, "superBlockPeriod": 1000,
 *     "signature": "…" }
 *
 * `minSignerDifficulty` (a CoinNumber, optional: the reference's 10000000 when absent) is the
 * floor of the signer-PoW difficulty a block signature or master keep-alive must reach.
 * `rewardMaturity` (optional, default 960) is how many blocks later a block's signers are paid;
 * `superBlockPeriod` (optional, default 1000) how often a superblock comes: a devnet may shorten
 * both to see them within minutes.
 * `signature` (optional) is the network creator's signature of the genesis transaction.
 *
 * `signature` (optional, hex) is the genesis transaction's signature by the network's creator
 * (`dltnode init --sign-with DIR`; src/chain/genesis.ts says why it is in the file).
 * Every error names the field and what is expected.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { MIN_REWARD_MATURITY, MIN_SUPERBLOCK_PERIOD, type GenesisSpec } from '../chain/genesis.js';
import { addressFromText, addressToText } from '../formats/address.js';
import { formatAmount, parseAmount } from '../formats/amount.js';
import { MIN_BLOCK_SIGNER_POW_DIFFICULTY } from '../consensus/signer-pow.js';
import { fromHex, toHex } from '../formats/bytes.js';
import { ConfigError } from './options.js';
import { MAX_TIMER_SECONDS } from '../clock.js';

export const GENESIS_FORMAT_VERSION = 1;
const NETWORKS = ['main', 'test', 'reg'] as const;
/** Shortest block interval a network may set (the option's floor). */
const MIN_BLOCK_INTERVAL_SECONDS = 0.1;
/** Bounds that keep a genesis reviewable and its block 1 small. */
const MAX_ALLOCATIONS = 10_000;
const MAX_MASTERS = 1_000;
/** Upper bound of the block-count parameters (the reference's values are 960 and 1000). */
const MAX_BLOCK_COUNT_PARAMETER = 1_000_000;
/** Longest genesis signature: an RSA-8192 signature (wallet keys are RSA-4096, 512 bytes). */
const MAX_SIGNATURE_BYTES = 1_024;

interface GenesisJson {
  dltnodeGenesis: number;
  name: string;
  network: string;
  timestamp: number;
  blockIntervalSeconds: number;
  allocations: { address: string; amount: string }[];
  masters: string[];
  minSignerDifficulty?: string;
  rewardMaturity?: number;
  superBlockPeriod?: number;
  signature?: string;
}

/** The genesis parameters that count blocks, with their lowest values. */
const BLOCK_COUNT_MIN = { rewardMaturity: MIN_REWARD_MATURITY, superBlockPeriod: MIN_SUPERBLOCK_PERIOD } as const;
export type BlockCountField = keyof typeof BLOCK_COUNT_MIN;

/** What is wrong with a block-count parameter ("must be …"), or null when it is fine. */
export function blockCountProblem(field: BlockCountField, value: unknown): string | null {
  const min = Number(BLOCK_COUNT_MIN[field]);
  return Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= MAX_BLOCK_COUNT_PARAMETER
    ? null
    : `a whole number of blocks from ${min} to ${MAX_BLOCK_COUNT_PARAMETER}`;
}

export function genesisToJson(spec: GenesisSpec): GenesisJson {
  return {
    dltnodeGenesis: GENESIS_FORMAT_VERSION,
    name: spec.name,
    network: spec.network,
    timestamp: Number(spec.timestamp),
    blockIntervalSeconds: spec.blockIntervalSeconds,
    allocations: spec.allocations.map((a) => ({ address: addressToText(a.address), amount: formatAmount(a.amount) })),
    masters: spec.masters.map(addressToText),
    minSignerDifficulty: formatAmount(spec.minSignerDifficulty),
    ...(spec.rewardMaturity !== undefined ? { rewardMaturity: Number(spec.rewardMaturity) } : {}),
    ...(spec.superBlockPeriod !== undefined ? { superBlockPeriod: Number(spec.superBlockPeriod) } : {}),
    ...(spec.signature ? { signature: toHex(spec.signature) } : {}),
  };
}

/**
 * Checks and converts a parsed genesis document. @throws ConfigError naming the field, as
 * `fieldName` words it (`dltnode init` names the option the value came from instead).
 */
export function genesisFromJson(doc: unknown, where = 'genesis', fieldName: (field: string) => string = (field) => field): GenesisSpec {
  const fail = (field: string, expected: string): never => {
    throw new ConfigError(`${where}: ${fieldName(field)} must be ${expected}`);
  };
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) fail('the document', 'a JSON object');
  const d = doc as Partial<GenesisJson>;
  if (d.dltnodeGenesis !== GENESIS_FORMAT_VERSION) fail('"dltnodeGenesis"', `${GENESIS_FORMAT_VERSION} (the format version)`);
  if (typeof d.name !== 'string' || d.name.length === 0 || d.name.length > 64) fail('"name"', 'a text of 1 to 64 characters');
  if (!NETWORKS.includes(d.network as (typeof NETWORKS)[number])) fail('"network"', `one of ${NETWORKS.join(', ')}`);
  if (!Number.isSafeInteger(d.timestamp) || d.timestamp! <= 0) fail('"timestamp"', 'Unix seconds (a positive integer)');
  if (typeof d.blockIntervalSeconds !== 'number' || !(d.blockIntervalSeconds >= MIN_BLOCK_INTERVAL_SECONDS && d.blockIntervalSeconds <= MAX_TIMER_SECONDS)) {
    fail('"blockIntervalSeconds"', `a number of seconds ${MIN_BLOCK_INTERVAL_SECONDS}–${MAX_TIMER_SECONDS}`);
  }
  if (!Array.isArray(d.allocations) || d.allocations.length === 0 || d.allocations.length > MAX_ALLOCATIONS) {
    fail('"allocations"', `a list of 1 to ${MAX_ALLOCATIONS} {address, amount}`);
  }
  if (!Array.isArray(d.masters) || d.masters.length === 0 || d.masters.length > MAX_MASTERS) fail('"masters"', `a list of 1 to ${MAX_MASTERS} addresses`);
  const address = (text: unknown, field: string): Uint8Array => {
    if (typeof text !== 'string') fail(field, 'a Base58 address');
    try {
      return addressFromText(text as string);
    } catch (err) {
      return fail(field, `a valid address (${(err as Error).message})`);
    }
  };
  const seen = new Set<string>();
  const allocations = d.allocations!.map((a, i) => {
    const field = `"allocations"[${i}]`;
    if (a === null || typeof a !== 'object') fail(field, 'an object {address, amount}');
    const addr = address(a.address, `${field}.address`);
    const key = addressToText(addr);
    if (seen.has(key)) fail(`${field}.address`, 'listed once (it repeats an earlier allocation)');
    seen.add(key);
    let amount = 0n;
    try {
      amount = parseAmount(String(a.amount));
    } catch (err) {
      fail(`${field}.amount`, `a CoinNumber such as "1000.5" (${(err as Error).message})`);
    }
    if (amount <= 0n) fail(`${field}.amount`, 'greater than 0');
    return { address: addr, amount };
  });
  const masterSet = new Set<string>();
  const masters = d.masters!.map((m, i) => {
    const addr = address(m, `"masters"[${i}]`);
    if (masterSet.has(addressToText(addr))) fail(`"masters"[${i}]`, 'listed once');
    masterSet.add(addressToText(addr));
    return addr;
  });
  let minSignerDifficulty = MIN_BLOCK_SIGNER_POW_DIFFICULTY;
  if (d.minSignerDifficulty !== undefined) {
    const expected = 'a CoinNumber string greater than 0, such as "65536"';
    if (typeof d.minSignerDifficulty !== 'string') fail('"minSignerDifficulty"', expected);
    try {
      minSignerDifficulty = parseAmount(d.minSignerDifficulty);
    } catch (err) {
      fail('"minSignerDifficulty"', `${expected} (${(err as Error).message})`);
    }
    if (minSignerDifficulty <= 0n) fail('"minSignerDifficulty"', expected);
  }
  const blockCount = (field: BlockCountField): bigint | undefined => {
    const v = d[field];
    if (v === undefined) return undefined;
    const problem = blockCountProblem(field, v);
    if (problem) fail(`"${field}"`, problem);
    return BigInt(v);
  };
  const rewardMaturity = blockCount('rewardMaturity');
  const superBlockPeriod = blockCount('superBlockPeriod');
  let signature: Uint8Array | undefined;
  if (d.signature !== undefined) {
    const text = d.signature;
    if (typeof text !== 'string' || !/^(?:[0-9a-f]{2})+$/.test(text) || text.length > 2 * MAX_SIGNATURE_BYTES) {
      fail('"signature"', `lowercase hex of 1 to ${MAX_SIGNATURE_BYTES} bytes (the genesis transaction's signature)`);
    }
    signature = fromHex(text);
  }
  return {
    ...(rewardMaturity !== undefined ? { rewardMaturity } : {}),
    ...(superBlockPeriod !== undefined ? { superBlockPeriod } : {}),
    name: d.name!,
    network: d.network as GenesisSpec['network'],
    timestamp: BigInt(d.timestamp!),
    blockIntervalSeconds: d.blockIntervalSeconds!,
    allocations,
    masters,
    minSignerDifficulty,
    ...(signature ? { signature } : {}),
  };
}

export function readGenesisFile(path: string): GenesisSpec {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`Genesis file ${path} cannot be read: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`Genesis file ${path} is not valid JSON: ${(err as Error).message}`);
  }
  return genesisFromJson(doc, `Genesis file ${path}`);
}

export function writeGenesisFile(path: string, spec: GenesisSpec): void {
  try {
    writeFileSync(path, `${JSON.stringify(genesisToJson(spec), null, 2)}\n`);
  } catch (err) {
    // node's text alone ("ENOENT: …, open 'PATH'") does not say what was being written.
    throw new Error(`cannot write the genesis file ${path}: ${(err as Error).message}`);
  }
}
