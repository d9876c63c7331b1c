import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Most tests wait on child processes, timers and sockets more than they compute: three files at once keep a
    // 2-core machine busy (vitest's default there is one).
    maxWorkers: 3,
    // Files share their workers (each file's modules are still loaded afresh): a worker's start is ~0.6 s of CPU.
    isolate: false,
    // A bound on a hung test, not a speed check: generous enough to hold on a machine loaded many times over.
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
