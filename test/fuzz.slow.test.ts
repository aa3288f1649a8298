/**
 * Long fuzzing (`npm run test:slow`): the codec and name-payload property suites with 50× the runs
 * of `npm test` (DLTNODE_FUZZ_SCALE overrides). Importing a suite registers its tests here.
 */
import { afterEach } from 'vitest';

process.env.DLTNODE_FUZZ_SCALE ??= '50';

// The property tests are synchronous, and together run for minutes. Vitest's worker waits at most
// 60 s for the runner's reply to its progress calls, and reads that reply only when its event loop
// reaches the poll phase: a macrotask between tests lets it, so the run does not end with
// "Timeout calling onTaskUpdate" although every test passed.
afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)));

await import('./codec/wasm-codec.test.js');
await import('./codec/transaction.test.js');
await import('./names/payloads.property.test.js');
