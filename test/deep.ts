// Test helper: how much a heavy test does. `npm test` is a quick pass on every run (a tenth of a property test's
// cases, smaller inputs, a whole build left out); `npm run test:deep` (GG_TEST_DEEP=1), which CI also runs, does it all.

/** Whether this is the deep run. */
export const deep = process.env.GG_TEST_DEEP === "1";

/** A heavy test's size or count: `full` in the deep run, else `quick`. */
export const deepOr = <T>(full: T, quick: T): T => (deep ? full : quick);

/** The runs of a property test: `full` under `npm run test:deep`, else a tenth of it (at least 10). */
export const numRuns = (full: number): number => deepOr(full, Math.max(10, Math.round(full / 10)));
