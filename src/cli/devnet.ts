/**
 * `dltnode devnet`: a whole local network on loopback in one command (issue 9 point 7). Each node
 * is its own process with its own data directory and ports, so a node that dies does not take the
 * others down. The first run creates the wallets and a genesis file that funds the masters and the
 * clients; a later run on the same `--dir` starts the same network again.
 *
 * Topology: every master dials every other master (a full mesh that a restarted master finds
 * again from its own command line; two masters dialling each other keep one link, the registry's
 * one-link-per-identity rule); every relay dials every master; client i dials relay i mod relays
 * (or the masters when there is no relay), which stays its primary relay, and links to the relay
 * nearest its sector as well (network/relay-choice.ts); it has the masters as seeds (`--seed`), to
 * find relays through should its relays go before it heard of any master.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { keystorePath } from '../wallet/keystore.js';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { genesisSignature, type GenesisSpec } from '../chain/genesis.js';
import { blockCountProblem, readGenesisFile, writeGenesisFile, type BlockCountField } from '../config/genesis-file.js';
import { ConfigError } from '../config/options.js';
import { MAX_TIMER_SECONDS } from '../clock.js';
import { createDataDir, DEVNET_COMMAND, lockDataDir } from '../node/data-dir-lock.js';
import { NodeWallet } from '../wallet/wallet.js';
import { parseCommandArgs } from './args.js';

export const DEVNET_HELP = `Usage: dltnode devnet [--masters N] [--relays N] [--clients N] [--block-interval SECONDS]
                      [--reward-maturity BLOCKS] [--superblock-period BLOCKS]
                      [--dir DIR] [--json] [--base-port PORT] [--mq-port PORT]

Starts a local network on 127.0.0.1: masters that produce blocks, relays, and clients funded by
the genesis. Prints a table of the nodes, then their merged log; Ctrl-C, SIGTERM, SIGHUP (the
terminal closed) or a closed output (devnet | head) stops every node.
  --masters N            masters (default 3)
  --relays N             relays (default 2: client i uses relay i, so two clients talk across relays)
  --clients N            clients (default 2)
  --block-interval S     seconds between blocks (default 1; fixed by the first run's genesis)
  --reward-maturity N    block n pays the signers of block n − N (default the reference's 960;
                         at least 6; fixed by the first run's genesis)
  --superblock-period N  every N-th block is a superblock (default the reference's 1000; at least 10;
                         fixed by the first run's genesis)
  --dir DIR              where the nodes' data directories and genesis.json live (default ./.data/devnet)
  --json                 print one JSON object per node (and the genesis path) instead of the table
  --base-port PORT       RPC ports PORT, PORT+1, …, peer ports PORT+100, … (default: free ports)
  --mq-port PORT         clients publish their messaging events to an MQTT broker on 127.0.0.1:PORT`;

/** Coins the genesis gives each master and each client. */
const MASTER_FUNDS = 1_000_000n * 100_000_000n;
const CLIENT_FUNDS = 100_000n * 100_000_000n;
/**
 * Signer-PoW difficulty floor of a devnet: 65536 coin, about 65,000 hashes per solution (~0.1 s on
 * one worker; the reference's 10 000 000 would take ~10 s each). It is also the smallest difficulty
 * the reference miner looks at (its pre-filter wants the hash's top two bytes zero).
 */
export const DEVNET_MIN_SIGNER_DIFFICULTY = 65_536n * 100_000_000n;
/**
 * A devnet's masters share one machine: once a master holds a solution of its cycle, its signer
 * miner hashes a quarter of the time to improve it (the reference hashes all the time).
 */
export const DEVNET_SIGNER_MINER_DUTY = 25;
/** Bounds that keep a devnet a devnet. */
const MAX_NODES_PER_ROLE = 32;

type Role = 'master' | 'relay' | 'client';

export interface DevnetNode {
  name: string;
  role: Role;
  address: string;
  rpcUrl: string;
  rpcPort: number;
  peerPort: number | null;
  dataDir: string;
  pid: number | null;
  /** The node's command line (argv, node's executable first), once started: to restart it by hand. */
  command?: string[];
}

export interface DevnetOptions {
  masters: number;
  relays: number;
  clients: number;
  blockInterval: number;
  dir: string;
  json: boolean;
  basePort: number | null;
  /** MQTT broker port the clients publish to (QuIXI bridge); null = none. */
  mqPort?: number | null;
  /** Genesis parameters of a new devnet (absent: the reference's 960 and 1000). */
  rewardMaturity?: bigint;
  superBlockPeriod?: bigint;
  /** Told how many new wallets' keys are about to be generated (seconds of RSA-4096 work). */
  onKeygen?: (count: number) => void;
}

export function parseDevnetArgs(argv: string[]): DevnetOptions | 'help' {
  const { values } = parseCommandArgs(argv, {
    masters: { type: 'string' },
    relays: { type: 'string' },
    clients: { type: 'string' },
    'block-interval': { type: 'string' },
    dir: { type: 'string' },
    json: { type: 'boolean' },
    'base-port': { type: 'string' },
    'mq-port': { type: 'string' },
    'reward-maturity': { type: 'string' },
    'superblock-period': { type: 'string' },
  }, 'devnet');
  if (values.help) return 'help';
  const count = (name: string, dflt: number, min: number): number => {
    const raw = values[name];
    if (raw === undefined) return dflt;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > MAX_NODES_PER_ROLE) throw new ConfigError(`--${name}: expected an integer ${min}–${MAX_NODES_PER_ROLE}, got '${String(raw)}'`);
    return n;
  };
  const interval = values['block-interval'] === undefined ? 1 : Number(values['block-interval']);
  if (!Number.isFinite(interval) || interval < 0.1 || interval > MAX_TIMER_SECONDS) {
    throw new ConfigError(`--block-interval: expected a number of seconds 0.1–${MAX_TIMER_SECONDS}, got '${String(values['block-interval'])}'`);
  }
  const base = values['base-port'] === undefined ? null : Number(values['base-port']);
  if (base !== null && (!Number.isInteger(base) || base < 1024 || base > 65000)) throw new ConfigError(`--base-port: expected an integer 1024–65000, got '${String(values['base-port'])}'`);
  const blocks = (flag: string, field: BlockCountField): { [k in BlockCountField]?: bigint } => {
    const raw = values[flag];
    if (raw === undefined) return {};
    const n = Number(raw);
    const problem = blockCountProblem(field, n);
    if (problem) throw new ConfigError(`--${flag}: expected ${problem}, got '${String(raw)}'`);
    return { [field]: BigInt(n) };
  };
  return {
    ...blocks('reward-maturity', 'rewardMaturity'),
    ...blocks('superblock-period', 'superBlockPeriod'),
    masters: count('masters', 3, 1),
    relays: count('relays', 2, 0),
    clients: count('clients', 2, 0),
    blockInterval: interval,
    dir: resolve((values.dir as string | undefined) ?? join('.data', 'devnet')),
    json: values.json === true,
    basePort: base,
    mqPort: mqPort(values['mq-port']),
  };
}

function mqPort(raw: unknown): number | null {
  if (raw === undefined) return null;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new ConfigError(`--mq-port: expected a port 1–65535, got '${String(raw)}'`);
  return n;
}

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => ok(port));
    });
  });
}

/** The nodes of the network, with wallets created and the genesis written (or read back). */
export async function prepareDevnet(o: DevnetOptions): Promise<{ nodes: DevnetNode[]; genesisPath: string; genesis: GenesisSpec }> {
  createDataDir(o.dir, '--dir');
  const plan: { name: string; role: Role }[] = [
    ...Array.from({ length: o.masters }, (_, i) => ({ name: `master-${i + 1}`, role: 'master' as const })),
    ...Array.from({ length: o.relays }, (_, i) => ({ name: `relay-${i + 1}`, role: 'relay' as const })),
    ...Array.from({ length: o.clients }, (_, i) => ({ name: `client-${i + 1}`, role: 'client' as const })),
  ];
  // RSA-4096 key generation runs on libuv's threads: all wallets at once.
  for (const p of plan) createDataDir(join(o.dir, p.name), '--dir');
  const newKeys = plan.filter((p) => !existsSync(keystorePath(join(o.dir, p.name)))).length;
  if (newKeys > 0) o.onKeygen?.(newKeys);
  const wallets = await Promise.all(plan.map((p) => NodeWallet.open(join(o.dir, p.name))));
  const genesisPath = join(o.dir, 'genesis.json');
  let genesis: GenesisSpec;
  if (existsSync(genesisPath)) {
    genesis = readGenesisFile(genesisPath);
  } else {
    genesis = {
      name: 'devnet',
      network: 'reg',
      timestamp: BigInt(Math.floor(Date.now() / 1000)),
      blockIntervalSeconds: o.blockInterval,
      allocations: plan.flatMap((p, i) => (p.role === 'relay' ? [] : [{ address: wallets[i]!.primary.primary, amount: p.role === 'master' ? MASTER_FUNDS : CLIENT_FUNDS }])),
      masters: plan.flatMap((p, i) => (p.role === 'master' ? [wallets[i]!.primary.primary] : [])),
      minSignerDifficulty: DEVNET_MIN_SIGNER_DIFFICULTY,
      ...(o.rewardMaturity !== undefined ? { rewardMaturity: o.rewardMaturity } : {}),
      ...(o.superBlockPeriod !== undefined ? { superBlockPeriod: o.superBlockPeriod } : {}),
    };
    // The first master creates the network: it signs the genesis transaction (src/chain/genesis.ts).
    genesis.signature = genesisSignature(genesis, (checksum) => wallets[0]!.primary.sign(checksum));
    writeGenesisFile(genesisPath, genesis);
  }
  const nodes: DevnetNode[] = [];
  for (let i = 0; i < plan.length; i++) {
    const p = plan[i]!;
    const rpcPort = o.basePort !== null ? o.basePort + i : await freePort();
    const peerPort = p.role === 'client' ? null : o.basePort !== null ? o.basePort + 100 + i : await freePort();
    nodes.push({ name: p.name, role: p.role, address: wallets[i]!.primary.primaryText, rpcUrl: `http://127.0.0.1:${rpcPort}`, rpcPort, peerPort, dataDir: join(o.dir, p.name), pid: null });
  }
  return { nodes, genesisPath, genesis };
}

/** The `start` arguments of one devnet node. */
export function devnetNodeArgs(node: DevnetNode, all: readonly DevnetNode[], genesisPath: string, mqPort: number | null = null): string[] {
  const masters = all.filter((n) => n.role === 'master');
  const relays = all.filter((n) => n.role === 'relay');
  let peers: DevnetNode[];
  let seeds: DevnetNode[] = [];
  // Every other master, not only the earlier ones: master-1 restarted alone must find the network.
  if (node.role === 'master') peers = masters.filter((m) => m !== node);
  else if (node.role === 'relay') peers = masters;
  else {
    const clients = all.filter((n) => n.role === 'client');
    peers = relays.length > 0 ? [relays[clients.indexOf(node) % relays.length]!] : masters;
    // The masters as seeds, as a deployed client has its network's seed masters: dialled only
    // when its relays are gone and it knows no other master (reference-network §2.2, §3.5).
    if (relays.length > 0) seeds = masters;
  }
  return [
    'start', '--genesis', genesisPath, '--data-dir', node.dataDir, '--role', node.role,
    '--rpc-port', String(node.rpcPort), '--log-format', 'json', '--status-interval', '0', '--pool-threads', '1',
    ...(node.role === 'master' ? ['--signer-miner-duty', String(DEVNET_SIGNER_MINER_DUTY)] : []),
    ...(node.peerPort !== null ? ['--p2p-port', String(node.peerPort)] : []),
    ...peers.flatMap((p) => ['--peer', `127.0.0.1:${p.peerPort}`]),
    ...seeds.flatMap((p) => ['--seed', `127.0.0.1:${p.peerPort}`]),
    ...(node.role === 'client' && mqPort !== null ? ['--mq-driver', 'mqtt', '--mq-host', '127.0.0.1', '--mq-port', String(mqPort)] : []),
  ];
}

const LEVELS: Record<number, string> = { 20: 'debug', 30: 'info ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
const SKIPPED = new Set(['level', 'time', 'pid', 'msg', 'hostname']);

/** One JSON log line of a node → `name  level  msg key=value…` (non-JSON lines pass through). */
export function compactLine(name: string, line: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return `${name.padEnd(10)} ${line}`;
  }
  const fields = Object.entries(rec)
    .filter(([k]) => !SKIPPED.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(' ');
  const time = typeof rec.time === 'string' ? rec.time.slice(11, 23) : '';
  return `${time} ${name.padEnd(10)} ${LEVELS[rec.level as number] ?? String(rec.level)} ${String(rec.msg ?? '')}${fields ? ` ${fields}` : ''}`;
}

/** The file in --dir with each node's command line (`name: command`), written at every start. */
export const DEVNET_COMMANDS_FILE = 'commands.txt';

/** `w` as one POSIX shell word: as is when it holds only safe characters, else single-quoted. */
export function shellWord(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replaceAll("'", `'\\''`)}'`;
}

/** What a devnet says before it generates the wallets of its new nodes. */
export const devnetKeygenLine = (count: number): string =>
  `generating ${count} wallet key${count === 1 ? '' : 's'} (RSA-4096) for the new nodes; this takes a few seconds`;

export function devnetTable(nodes: readonly DevnetNode[], genesisPath: string): string {
  const rows = [['node', 'role', 'address', 'RPC', 'peer port', 'pid', 'data directory']];
  for (const n of nodes) rows.push([n.name, n.role, n.address, n.rpcUrl, n.peerPort === null ? '-' : String(n.peerPort), String(n.pid ?? '-'), n.dataDir]);
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const lines = rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd());
  const commands = join(dirname(genesisPath), DEVNET_COMMANDS_FILE);
  return [...lines, '', `genesis: ${genesisPath}`, `each node's command line (to restart one by hand): ${commands}`, 'Ctrl-C stops every node.'].join('\n');
}

/** Runs the devnet until SIGINT, SIGTERM, SIGHUP or its output closes; resolves with the exit code. */
export async function devnetCommand(argv: string[]): Promise<number> {
  const o = parseDevnetArgs(argv);
  if (o === 'help') {
    console.log(DEVNET_HELP);
    return 0;
  }
  // One devnet per directory: a second one would start nodes that all exit at once (their data
  // directories in use) and then run on with none. Released when this process exits.
  lockDataDir(o.dir, { command: DEVNET_COMMAND, option: '--dir' });
  // First run: the keys take seconds (tens on a loaded machine) before the table; say why it waits
  // (stderr: --json keeps stdout for the node list).
  const { nodes, genesisPath } = await prepareDevnet({ ...o, onKeygen: (n) => process.stderr.write(`${devnetKeygenLine(n)}\n`) });
  const cli = join(dirname(fileURLToPath(import.meta.url)), 'main.js');
  const children = new Map<string, ChildProcess>();
  let stopping = false;
  // Output that cannot be written any more (`devnet | head`, a closed terminal) is dropped: the
  // stream's error stops the network instead (below).
  const broken = new Set<NodeJS.WriteStream>();
  const write = (stream: NodeJS.WriteStream, text: string): void => {
    if (!broken.has(stream) && !stream.destroyed) stream.write(text);
  };
  let finish!: (code: number) => void;
  const finished = new Promise<number>((r) => (finish = r));
  for (const node of nodes) {
    // Each node in its own process group: a terminal's Ctrl-C reaches only the devnet, which then
    // stops every node once (a node that got the signal twice would skip its graceful shutdown).
    // The nodes are in their own sessions too, so a closed terminal's SIGHUP reaches only the devnet.
    // The IPC channel, never written, closes when the devnet dies however it dies (SIGKILL, a
    // crash): that stops the node (src/cli/start.ts), which would otherwise run on as an orphan.
    node.command = [process.execPath, cli, ...devnetNodeArgs(node, nodes, genesisPath, o.mqPort ?? null)];
    const child = spawn(node.command[0]!, node.command.slice(1), { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], detached: true });
    node.pid = child.pid ?? null;
    children.set(node.name, child);
    for (const stream of [child.stdout, child.stderr]) {
      let rest = '';
      stream?.setEncoding('utf8');
      // Read even when nothing is printed: a node blocked on a full pipe would stop.
      stream?.on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop() ?? '';
        if (!o.json) for (const l of lines) if (l.trim()) write(process.stdout, `${compactLine(node.name, l)}\n`);
      });
    }
    child.on('exit', (code, signal) => {
      children.delete(node.name);
      if (stopping) return;
      // The last node gone on its own (ports taken, every node killed): nothing is left to run or stop.
      const left = children.size > 0;
      write(process.stderr, `${node.name} (pid ${node.pid}) exited with ${signal ?? `code ${code}`}; ${left ? 'the other nodes keep running' : 'no node is left running: the devnet ends'}\n`);
      if (!left) {
        stopping = true;
        finish(1);
      }
    });
  }
  const stop = (why: string): void => {
    if (stopping) return;
    stopping = true;
    write(process.stderr, `${why}: stopping ${children.size} nodes\n`);
    for (const child of children.values()) child.kill('SIGTERM');
    const check = setInterval(() => {
      if (children.size === 0) {
        clearInterval(check);
        finish(0);
      }
    }, 100);
    // A node that does not stop within its own shutdown timeout is killed.
    setTimeout(() => {
      for (const child of children.values()) child.kill('SIGKILL');
    }, 15_000).unref();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  // The terminal closed: the detached nodes would not hear of it and run on without their devnet.
  process.once('SIGHUP', () => stop('SIGHUP'));
  // A reader gone (EPIPE) or a terminal gone (EIO): an unhandled stream error would crash the
  // devnet, and its exit handler would SIGKILL every node mid-write.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      broken.add(stream);
      stop(err.code ?? 'output error');
    });
  }
  // However the devnet ends, its nodes end with it.
  process.once('exit', () => {
    for (const child of children.values()) child.kill('SIGKILL');
  });
  // README: "a master killed and restarted with its own command line finds the network".
  const commandsPath = join(o.dir, DEVNET_COMMANDS_FILE);
  writeFileSync(commandsPath, nodes.map((n) => `${n.name}: ${(n.command ?? []).map(shellWord).join(' ')}\n`).join(''));
  if (o.json) {
    for (const n of nodes) write(process.stdout, `${JSON.stringify(n)}\n`);
    write(process.stdout, `${JSON.stringify({ genesis: genesisPath })}\n`);
  } else {
    write(process.stdout, `${devnetTable(nodes, genesisPath)}\n`);
  }
  return finished;
}
