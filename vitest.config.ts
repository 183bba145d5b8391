import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'plugins/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    globalSetup: ['./test/support/run-temp-dir.ts'],
    // expect.poll without a timeout of its own waits this long (vitest's default is 1 s). A poll says
    // "eventually": it waits for another process, a socket, a file or a timer chain, which on a
    // busy 2-core CI machine can take over a second. A poll that holds the product to a bound
    // passes that bound itself; this changes only how long a missing result is looked for.
    expect: { poll: { timeout: 10_000 } },
    reporters: ['default', './test/support/plain-summary-reporter.ts'],
  },
});
