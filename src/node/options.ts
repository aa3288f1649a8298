/**
 * What the node core needs to start (the contract between the CLI/config layer in src/cli and
 * src/config, and the node assembly in src/node/node.ts), nested by module so each takes only its
 * own part (lodestar's `IBeaconNodeOptions`). The flat option table in src/config/options.ts stays
 * the one source of flags, environment names and defaults; `toNodeOptions` does the nesting.
 */
import type { Network } from '../codec/types.js';
import type { GenesisSpec } from '../chain/genesis.js';

export interface NodeOptions {
  network: Network;
  /** Directory holding the LMDB environment and the keystore. */
  dataDir: string;
  /** Encrypts the keystore at rest when set. */
  walletPassword?: string;
  chain: {
    /** Raw CoinNumber (10⁻⁸ units) credited to the node's wallet by the embedded network's genesis block. */
    genesisBalance: bigint;
    /** The network's genesis (`--genesis FILE`); absent on the embedded network. */
    genesis?: GenesisSpec;
  };
  consensus: {
    /** Seconds between produced blocks (reg default: a few seconds). */
    blockIntervalSeconds: number;
    /**
     * Signer proof of work among masters (reference-network §3.3–§3.4, §5.2), on for a genesis
     * network: a master runs the signer miner and its keep-alives carry a solution; master
     * keep-alives must carry one, and a master checks it. Absent: the embedded lone network (one
     * signer, no PoW, `Signer Hashrate` 0).
     */
    signerPow?: {
      /** Floor of the minimum difficulty of one signature or keep-alive PoW (the genesis's `minSignerDifficulty`). */
      minDifficulty: bigint;
      /** Share of time the signer miner hashes once it holds a solution of its cycle, (0, 1] (`--signer-miner-duty`). */
      duty?: number;
    };
  };
  /** The peer network (issue 9); absent: a lone node that neither listens nor dials. */
  p2p?: {
    role: 'master' | 'relay' | 'client';
    /** Peer listener; absent: the node only dials out. */
    listen?: { host: string; port: number };
    /** Host others dial (default the listen host). */
    publicHost?: string;
    peers: { host: string; port: number }[];
    /** Masters put in the peer book at start (`--seed`), dialled only when needed. */
    seeds?: { host: string; port: number }[];
  };
  /** The message-queue bridge of the messaging service (reference-quixi-events §1); absent: none. */
  mq?: { driver: 'mqtt' | 'rabbitmq'; host: string; port?: number; shape: 'A' | 'B' };
  /** The messaging service of a client (src/messaging); absent: its defaults. */
  messaging?: {
    /** Nickname sent to contacts (`--nick`); absent or '': an empty nick, as the reference with no name set. */
    nick?: string;
  };
  pool: {
    /** Worker threads of the node's one pool; 0 = run in-process (tests, tiny machines). */
    threads: number;
  };
  /**
   * `reg` only: name-system constants scaled down so tests can reach expiry quickly
   * (reference-names.md §4.5/§5.3). Ignored (consensus values used) on main and test.
   */
  names: {
    monthBlocks?: number;
    graceBlocks?: number;
  };
  /** Mining (src/mining): `difficulty` reg only (produced blocks' Argon2 difficulty); the built-in miner's threads. */
  mining?: {
    difficulty?: bigint;
    minerThreads?: number;
  };
}

export type { Logger } from '../log/logger.js';
