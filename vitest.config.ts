import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Integration tests start real servers on 127.0.0.1; keep parallelism modest on a 2-core box.
    maxWorkers: 2,
  },
});
