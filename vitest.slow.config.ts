import { defineConfig } from 'vitest/config';

// Slow suites: long fuzzing and load; not part of `npm test`.
export default defineConfig({
  test: {
    include: ['test/**/*.slow.test.ts'],
    testTimeout: 600_000,
    pool: 'forks',
  },
});
