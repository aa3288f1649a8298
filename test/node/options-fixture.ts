/**
 * Options of an in-process node for the tests of src/node: a `reg` node on `dataDir` with a funded
 * genesis, blocks an hour apart (none made while a test looks) and no worker threads.
 */
import type { NodeOptions } from '../../src/node/options.js';

export const inProcessNodeOptions = (dataDir: string): NodeOptions => ({
  network: 'reg',
  dataDir,
  chain: { genesisBalance: 1_000_000n * 100_000_000n },
  consensus: { blockIntervalSeconds: 3600 },
  pool: { threads: 0 },
  names: {},
});
