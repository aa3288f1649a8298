import { defineConfig } from 'vitest/config';

// Fast suite: everything under test/ except *.slow.test.ts (run by `npm run test:slow`).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.slow.test.ts', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
