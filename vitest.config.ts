import { defineConfig } from 'vitest/config';

// Files whose assertions are about time under a known load (a rate within 15 %, N requests in
// flight at once): they run after everything else, one at a time, so that the rest of the suite
// is not their load.
const TIMED = ['test/e2e/bulk-rate.test.ts', 'test/e2e/bulk-concurrency.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
    // vitest's default on 2 cores is one worker (cores - 1): the e2e files mostly wait on mcat
    // processes and the sandbox, so one at a time left the CPU idle half the run.
    // MCAT_TEST_WORKERS overrides it (a number, or a share of the cores such as "50%").
    maxWorkers: process.env.MCAT_TEST_WORKERS || 3,
    projects: [
      // unit, contract and property files share their workers (isolation off): a worker process
      // takes file after file and loads our modules once; a new process and a fresh load per
      // file cost more than most of these files take (CPU for the 60 files: ~32 s to ~20 s)
      { extends: true, test: { name: 'in-process', include: ['test/{unit,contract,property}/**/*.test.ts'], isolate: false } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], exclude: TIMED } },
      { extends: true, test: { name: 'timed', include: TIMED, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
