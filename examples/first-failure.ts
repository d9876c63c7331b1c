// Run the tests and open the first failing file at its failing line. The full log is on disk when the output is cut,
// so it is searched there rather than by running the tests again.
const run = await gg.shell.shell("npm test", { timeoutSecs: 600 });
if (run.exitCode === 0) return "the tests pass";
const full = run.truncated && run.files ? await gg.files.readFile(run.files.stdout, { limit: 100_000 }) : run.output;
const log = typeof full === "string" ? full : run.output;
for (const [, path, line] of log.matchAll(/((?:\/|\.\/)?[\w@.+-]+(?:\/[\w@.+-]+)*\.(?:[cm]?[jt]sx?|py|rs|go)):(\d+)/g)) {
  if (path.includes("node_modules") || path.startsWith("node:")) continue;
  try {
    const view = await gg.views.openFile(path, { offset: Math.max(1, Number(line) - 5), limit: 15 });
    return `exit code ${run.exitCode}: opened ${view.path} around line ${line}`;
  } catch (error) {
    if ((error as GgError).code !== "not-found") throw error;
  }
}
return `exit code ${run.exitCode}, but no failing file of the workspace was named in the output`;
