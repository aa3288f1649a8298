/**
 * What the node core needs to start (the contract between the CLI/config layer in src/cli and
 * src/config, and the node assembly in src/node/node.ts). The option table in
 * src/config/options.ts is the one source of flags/env/config-file names and defaults; it
 * produces this object.
 */
import type { Network } from '../codec/types.js';

export interface NodeOptions {
  network: Network;
  /** Directory holding the LMDB environment and the keystore. */
  dataDir: string;
  /** Seconds between produced blocks (reg default: a few seconds). */
  blockIntervalSeconds: number;
  /** PoW/RSA worker threads; 0 = run in-process (tests, tiny machines). */
  poolThreads: number;
  /** Raw CoinNumber (10⁻⁸ units) credited to the node's wallet by the genesis block. */
  genesisBalance: bigint;
  /** Encrypts the keystore at rest when set. */
  walletPassword?: string;
  /**
   * `reg` only: name-system constants scaled down so tests can reach expiry quickly
   * (reference-names.md §4.5/§5.3). Ignored (consensus values used) on main and test.
   */
  nameMonthBlocks?: number;
  nameGraceBlocks?: number;
}

/** Minimal logger shape (pino-compatible) injected into the node's modules. */
export interface Logger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
  debug(obj: object | string, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}
