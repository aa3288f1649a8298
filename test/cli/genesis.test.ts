/**
 * A network is defined by its genesis (issue 9 point 6): `dltnode init` writes the file, every node
 * started with it builds the same block 1 whatever its own wallet, and bad files or arguments are
 * refused with a sentence naming the field.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createNode } from '../../src/index.js';
import { genesisFromJson, genesisToJson, readGenesisFile, writeGenesisFile } from '../../src/config/genesis-file.js';
import { MIN_BLOCK_SIGNER_POW_DIFFICULTY } from '../../src/consensus/signer-pow.js';
import { DEVNET_MIN_SIGNER_DIFFICULTY, prepareDevnet } from '../../src/cli/devnet.js';
import { genesisFromArgs } from '../../src/cli/network-setup.js';
import { toNodeOptions, resolveConfig, parseArgs } from '../../src/config/load.js';
import { silentLog } from '../chain/fixture.js';
import { toStringForm } from '../../src/chain/tx-json.js';
import { INFINIMINE_ADDRESS } from '../../src/formats/constants.js';
import { verifySignature } from '../../src/formats/rsa.js';
import { NodeWallet } from '../../src/wallet/wallet.js';
import { newDataDir } from '../e2e/harness.js';

const run = promisify(execFile);
const CLI = join(process.cwd(), 'dist', 'cli', 'main.js');
const A = '4L5vswa8yS9VKsZzDJ2ry9gWY7KQon5bkvhG1CUuepkwvcy1xQmLsHA9DPmCDbufr';
const tmp = mkdtempSync(join(tmpdir(), 'dltnode-genesis-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('genesis file', () => {
  it('dltnode init arguments become a checked genesis; the JSON form round-trips', () => {
    const r = genesisFromArgs(['--out', 'g.json', '--fund', `${A}=1000.5`, '--master', A, '--name', 'lab', '--block-interval', '0.5', '--timestamp', '1764000000']);
    if (r === 'help') throw new Error('unexpected help');
    expect(r.spec).toMatchObject({ name: 'lab', network: 'reg', timestamp: 1764000000n, blockIntervalSeconds: 0.5 });
    expect(r.spec.allocations[0]!.amount).toBe(100_050_000_000n);
    expect(genesisFromJson(JSON.parse(JSON.stringify(genesisToJson(r.spec))))).toEqual(r.spec);
    const signed = { ...r.spec, signature: Uint8Array.of(1, 2, 0xff) };
    expect(genesisToJson(signed).signature).toBe('0102ff');
    expect(genesisFromJson(JSON.parse(JSON.stringify(genesisToJson(signed))))).toEqual(signed);
    expect(() => genesisFromJson({ ...genesisToJson(r.spec), signature: 'xyz' })).toThrow(/"signature" must be lowercase hex/);
    expect(() => genesisFromJson({ ...genesisToJson(r.spec), signature: 'ab'.repeat(1025) })).toThrow(/"signature" must be lowercase hex of 1 to 1024 bytes/);
  });

  it('a genesis file that cannot be written is said with its path', () => {
    const r = genesisFromArgs(['--out', 'g.json', '--fund', `${A}=1`, '--master', A]);
    if (r === 'help') throw new Error('unexpected help');
    const out = join(tmp, 'no-such-dir', 'g.json');
    expect(() => writeGenesisFile(out, r.spec)).toThrow(`cannot write the genesis file ${out}: ENOENT: no such file or directory`);
  });

  it('dltnode init refuses a stray argument or an unknown option instead of ignoring it, naming it and --help', () => {
    const ok = ['--out', 'g.json', '--fund', `${A}=1`, '--master', A];
    expect(() => genesisFromArgs([...ok, 'lab'])).toThrow(/^Unexpected argument 'lab'; options start with --, see dltnode init --help$/);
    expect(() => genesisFromArgs([...ok, '--nme', 'lab'])).toThrow(/^Unknown option '--nme' \(did you mean --name\?\); see dltnode init --help$/);
    expect(() => genesisFromArgs([...ok, '--bogus'])).toThrow(/^Unknown option '--bogus'; see dltnode init --help$/);
  });

  it('a negative value read as an option is said in one sentence, ending with the help to read', () => {
    // node:util's text ends with a period and spans lines; '.; see …' read as a typo.
    expect(() => genesisFromArgs(['--out', 'g.json', '--fund', `${A}=1`, '--master', A, '--timestamp', '-1'])).toThrow(
      "Option '--timestamp' argument is ambiguous. Did you forget to specify the option argument for '--timestamp'? To specify an option argument starting with a dash use '--timestamp=-XYZ'; see dltnode init --help",
    );
  });

  it('dltnode init and wallet name the option a typo meant, as dltnode start does', () => {
    expect(() => genesisFromArgs(['--out', 'g.json', '--fund', `${A}=1`, '--mastr', A])).toThrow("Unknown option '--mastr' (did you mean --master?); see dltnode init --help");
    expect(() => genesisFromArgs(['--out', 'g.json', '--fund', `${A}=1`, '--master', A, '--block-intervall=2'])).toThrow("Unknown option '--block-intervall' (did you mean --block-interval?)");
  });

  it('reward maturity and superblock period: absent by default (960 and 1000), settable by init, round-tripping in the file', () => {
    const plain = genesisFromArgs(['--out', 'g.json', '--fund', `${A}=1`, '--master', A]);
    if (plain === 'help') throw new Error('unexpected help');
    expect(plain.spec.rewardMaturity).toBeUndefined();
    expect(plain.spec.superBlockPeriod).toBeUndefined();
    expect(genesisToJson(plain.spec)).not.toHaveProperty('rewardMaturity');
    const short = genesisFromArgs(['--out', 'g.json', '--fund', `${A}=1`, '--master', A, '--reward-maturity', '12', '--superblock-period', '20']);
    if (short === 'help') throw new Error('unexpected help');
    expect(short.spec).toMatchObject({ rewardMaturity: 12n, superBlockPeriod: 20n });
    expect(genesisToJson(short.spec)).toMatchObject({ rewardMaturity: 12, superBlockPeriod: 20 });
    expect(genesisFromJson(JSON.parse(JSON.stringify(genesisToJson(short.spec))))).toEqual(short.spec);
  });

  it.each([
    [['--out', 'x', '--fund', `${A}=1`, '--master', A, '--reward-maturity', '5'], /^dltnode init: --reward-maturity must be a whole number of blocks from 6/],
    [['--out', 'x', '--fund', `${A}=1`, '--master', A, '--reward-maturity', '12.5'], /--reward-maturity must be/],
    [['--out', 'x', '--fund', `${A}=1`, '--master', A, '--superblock-period', '0'], /--superblock-period must be a whole number of blocks from 10/],
    [['--fund', `${A}=1`, '--master', A], /needs --out FILE/],
    [['--out', 'x', '--master', A], /at least one --fund/],
    [['--out', 'x', '--fund', `${A}=1`], /at least one --master/],
    [['--out', 'x', '--fund', 'nope=1', '--master', A], /--fund nope=1/],
    [['--out', 'x', '--fund', `${A}=1e5`, '--master', A], /--fund .*exponent/],
    [['--out', 'x', '--fund', `${A}=1`, '--fund', `${A}=2`, '--master', A], /repeats an earlier allocation/],
    [['--out', 'x', '--fund', `${A}=1`, '--master', A, '--block-interval', '0'], /--block-interval must be/],
    // A longer Node.js timer fires after 1 ms: every master would produce every few ms.
    [['--out', 'x', '--fund', `${A}=1`, '--master', A, '--block-interval', '2200000'], /--block-interval must be a number of seconds 0.1–2147483/],
    [['--out', 'x', '--fund', `${A}=1`, '--master', A, '--network', 'moon'], /--network must be one of main, test, reg/],
    // init's checks are the file's; they name the option the user typed, not the file's field
    [['--out', 'x', '--fund', `${A}=1`, '--master', `${A.slice(0, -1)}${A.endsWith('z') ? 'y' : 'z'}`], /^dltnode init: --master \S+ must be a valid address \(.*checksum/],
    [['--out', 'x', '--fund', `${A}=1`, '--master', A, '--master', A], new RegExp(`--master ${A} must be listed once`)],
    [['--out', 'x', '--fund', `${A}=1`, '--master', A, '--timestamp', '0'], /--timestamp must be Unix seconds/],
    [['--out', 'x', '--fund', `${A}=1`, '--master', A, '--bogus'], /Unknown option/],
    [['--out', 'x', '--fund', `${A}=1`, '--master', A, '--wallet-password', 'p'], /--wallet-password belongs to --sign-with/],
  ])('refuses %j', (argv, message) => {
    expect(() => genesisFromArgs(argv as string[])).toThrow(message);
  });

  it('refuses a file that is not a genesis, naming the field', () => {
    const bad = join(tmp, 'bad.json');
    writeFileSync(bad, JSON.stringify({ dltnodeGenesis: 1, name: 'x', network: 'reg', timestamp: 1, blockIntervalSeconds: 1, allocations: [{ address: A, amount: '-1' }], masters: [A] }));
    expect(() => readGenesisFile(bad)).toThrow(/"allocations"\[0\]\.amount must be/);
    writeFileSync(bad, '{');
    expect(() => readGenesisFile(bad)).toThrow(/is not valid JSON/);
    expect(() => readGenesisFile(join(tmp, 'missing.json'))).toThrow(/cannot be read/);
  });

  it('wallet address, init and two nodes with different wallets: the same block 1, funds as allocated', async () => {
    const dirB = join(tmp, 'node-b');
    const { stdout: addressB } = await run(process.execPath, [CLI, 'wallet', 'address', '--data-dir', dirB]);
    const { stdout: again } = await run(process.execPath, [CLI, 'wallet', 'address', '--data-dir', dirB]);
    expect(again).toBe(addressB); // the wallet is created once
    const { dataDir: dirA, address: addressA } = await newDataDir();
    const file = join(tmp, 'genesis.json');
    const b = addressB.trim();
    // The creator (A) signs the genesis transaction; the signature travels in the file.
    await run(process.execPath, [CLI, 'init', '--out', file, '--fund', `${addressA}=500`, '--fund', `${b}=250.25`, '--master', addressA, '--master', b, '--sign-with', dirA]);
    const written = JSON.parse(readFileSync(file, 'utf8'));
    expect(written.masters).toEqual([addressA, b]);
    // A second init over it is refused (exit 2), the file kept.
    const again2 = await run(process.execPath, [CLI, 'init', '--out', file, '--fund', `${addressA}=1`, '--master', addressA]).then(() => null, (e: { code: number; stderr: string }) => e);
    expect(again2?.code).toBe(2);
    expect(again2?.stderr).toMatch(/genesis\.json exists: a network's genesis is fixed once its nodes have started from it/);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(written);
    expect(written.signature).toMatch(/^[0-9a-f]{1024}$/);
    const keyA = (await NodeWallet.open(dirA)).primary.publicKey;

    const blocks: string[] = [];
    for (const dir of [dirA, dirB]) {
      const { config } = resolveConfig({ args: parseArgs(['--genesis', file, '--data-dir', dir, '--pool-threads', '0']), env: {} });
      const opts = toNodeOptions(config);
      expect(opts.consensus.blockIntervalSeconds).toBe(1);
      const node = await createNode({ ...opts, consensus: { blockIntervalSeconds: 3600 } }, silentLog);
      const { chain } = node.modules;
      const one = chain.getBlock(1n)!;
      blocks.push(Buffer.from(one.bytes).toString('hex'));
      expect(one.block.signatures).toEqual([]);
      expect(chain.supply()).toBe(75_025_000_000n);
      // The reference's genesis shape: pubKey InfiniMine, from {"1": total}, the creator's signature.
      const [genesis] = chain.blockTransactions(one.block);
      expect(toStringForm(genesis!)).toMatchObject({ type: '3', pubKey: INFINIMINE_ADDRESS, from: { '1': '750.25000000' }, fee: '0.00000000', signature: written.signature });
      expect(verifySignature(keyA, genesis!.checksum, genesis!.tx.signature!)).toBe(true);
      await node.close();
    }
    expect(blocks[0]).toBe(blocks[1]);
    rmSync(dirA, { recursive: true, force: true });
  });

  it('refuses --network that contradicts the genesis file', () => {
    const file = join(tmp, 'g2.json');
    writeFileSync(file, JSON.stringify({ dltnodeGenesis: 1, name: 'x', network: 'test', timestamp: 1, blockIntervalSeconds: 1, allocations: [{ address: A, amount: '1' }], masters: [A] }));
    const { config } = resolveConfig({ args: parseArgs(['--genesis', file, '--network', 'reg']), env: {} });
    expect(() => toNodeOptions(config)).toThrow(/for the test network, not reg/);
    expect(resolveConfig({ args: parseArgs(['--genesis', file]), env: {} }).config.network).toBe('test');
  });

  it('names --block-interval and --genesis-balance as not used when a genesis file fixes them (start logs it)', () => {
    const file = join(tmp, 'g-unused.json');
    writeFileSync(file, JSON.stringify({ dltnodeGenesis: 1, name: 'x', network: 'reg', timestamp: 1, blockIntervalSeconds: 2, allocations: [{ address: A, amount: '1' }], masters: [A] }));
    const unused = (args: string[], env: NodeJS.ProcessEnv = {}) => resolveConfig({ args: parseArgs(args), env }).unused;
    expect(unused(['--genesis', file])).toEqual([]);
    // the genesis's own interval given again changes nothing
    expect(unused(['--genesis', file, '--block-interval', '2'])).toEqual([]);
    expect(unused(['--genesis', file, '--block-interval', '0.5'], { DLTNODE_GENESIS_BALANCE: '5' })).toEqual([
      `--block-interval 0.5 is not used: the genesis file ${file} sets 2 s between blocks`,
      `--genesis-balance is not used: the genesis file ${file} names the funded addresses`,
    ]);
    // the embedded network takes both
    expect(unused(['--block-interval', '0.5', '--genesis-balance', '5'])).toEqual([]);
  });

  it('minSignerDifficulty: the reference floor by default, set by init, written small by devnet, the floor of the node\'s signer PoW', async () => {
    const args = ['--out', 'g.json', '--fund', `${A}=1`, '--master', A];
    const plain = genesisFromArgs(args);
    const small = genesisFromArgs([...args, '--min-signer-difficulty', '65536']);
    if (plain === 'help' || small === 'help') throw new Error('unexpected help');
    expect(plain.spec.minSignerDifficulty).toBe(MIN_BLOCK_SIGNER_POW_DIFFICULTY);
    expect(small.spec.minSignerDifficulty).toBe(65_536n * 100_000_000n);
    expect(genesisToJson(small.spec).minSignerDifficulty).toBe('65536.00000000');
    expect(genesisFromJson(JSON.parse(JSON.stringify(genesisToJson(small.spec))))).toEqual(small.spec);
    // an older file without the field: the reference floor
    const { minSignerDifficulty: _, ...older } = genesisToJson(small.spec);
    expect(genesisFromJson(older).minSignerDifficulty).toBe(MIN_BLOCK_SIGNER_POW_DIFFICULTY);
    for (const bad of ['0', '-5', 'lots', 7]) {
      expect(() => genesisFromJson({ ...older, minSignerDifficulty: bad })).toThrow(/"minSignerDifficulty" must be a CoinNumber string greater than 0/);
    }
    expect(() => genesisFromArgs([...args, '--min-signer-difficulty', '0'])).toThrow(/--min-signer-difficulty must be a CoinNumber/);
    // a genesis network's node gets it as its signer-PoW floor; the embedded network has no signer PoW
    const file = join(tmp, 'g3.json');
    writeGenesisFile(file, small.spec);
    expect(toNodeOptions(resolveConfig({ args: parseArgs(['--genesis', file]), env: {} }).config).consensus.signerPow).toEqual({ minDifficulty: 65_536n * 100_000_000n });
    expect(toNodeOptions(resolveConfig({ args: parseArgs([]), env: {} }).config).consensus.signerPow).toBeUndefined();
    const { genesis } = await prepareDevnet({ masters: 1, relays: 0, clients: 0, blockInterval: 1, dir: join(tmp, 'devnet'), json: true, basePort: null });
    expect(genesis.minSignerDifficulty).toBe(DEVNET_MIN_SIGNER_DIFFICULTY);
  });
});
