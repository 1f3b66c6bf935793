import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Guards against a hang, not timings (tests assert none), so no test sets a smaller one of its own:
    // the heaviest tests (floods of 40-150 MiB through the tap and the indexers) took 15-30 s alone,
    // over 60 s beside other work on 2 cores, and several minutes on a machine loaded fifteen times
    // over; the commands they run get 5 minutes each (RUN_HANG_MS in test/helpers.ts).
    testTimeout: 600_000,
    hookTimeout: 600_000,
    // expect.poll waits for a state the page or a process reaches after an action: its own 1 s was
    // passed by pages on a 2-core machine loaded by another run. Like the timeouts above, it guards
    // against a hang, not a time (a poll ends as soon as its assertion holds).
    expect: { poll: { timeout: 120_000 } },
    pool: 'forks',
    // The tap exits within a moment of its agent and leaves what its recorder has not indexed by then
    // to a detached indexer (see src/tap/run.ts). Most tests read the database as soon as the tap has
    // exited: they give it time to finish its recording itself. Tests of the exit set their own.
    env: { ACP_INSPECT_FINISH_WAIT_MS: '60000' },
    // A run leaves nothing behind: no process it started, nothing in its temp folder (see the file).
    globalSetup: ['test/leak-check.ts'],
    // Vitest runs one file at a time on 2 cores (its default is one worker less than the cores), yet
    // most files spend their time waiting for the processes they drive (the tap, the agent, the
    // browser): two at a time use the second core, for the same CPU time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
