import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Fast suite: everything under test/ except *.slow.test.ts (run by `npm run test:slow`).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.slow.test.ts', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Vitest's default (cores - 1) runs one file at a time on a 2-core machine. Most of the suite's
    // time is end-to-end files waiting on blocks and links, not computing, so two files at once
    // take 513 s where one at a time took 820 s; no test depends on timing.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    minWorkers: 1,
  },
});
