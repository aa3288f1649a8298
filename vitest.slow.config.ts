import { defineConfig } from 'vitest/config';

// Slow suites: long fuzzing and load; not part of `npm test`.
export default defineConfig({
  test: {
    include: ['test/**/*.slow.test.ts'],
    testTimeout: 600_000,
    // One file at a time: the adversarial suites time `status` under load and must not share the
    // two cores with another suite's node.
    fileParallelism: false,
    pool: 'forks',
  },
});
