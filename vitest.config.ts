import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Most tests wait on child processes, timers and sockets more than they compute: four files at once keep a
    // 2-core machine busy (vitest's default there is one).
    maxWorkers: 4,
    // Files share their workers and the modules they load: a worker's start is ~0.6 s of CPU, 92 times over. No test
    // may leave state behind it (a stubbed variable, a listener, a process-wide setting).
    isolate: false,
    // A bound on a hung test, not a speed check: generous enough to hold on a machine loaded many times over.
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
