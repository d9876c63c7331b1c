// Test helper: how many cases a property test tries. `npm test` tries a tenth of them, a quick pass on every run;
// `npm run test:deep` (GG_TEST_DEEP=1), which CI also runs, tries them all.

/** The runs of a property test: `full` under `npm run test:deep`, else a tenth of it (at least 10). */
export const numRuns = (full: number): number => (process.env.GG_TEST_DEEP === "1" ? full : Math.max(10, Math.round(full / 10)));
