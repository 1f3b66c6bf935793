import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest runs one file at a time on 2 cores (its default is one worker less than the cores), yet
    // most files spend their time waiting for the processes they drive (the tap, the agent, the
    // browser): two at a time use the second core, for the same CPU time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
