// The engine of one agent: its tools' context, its views, and runs of programs one after another. It lives in the
// runner process (runner.ts); createRuntime in index.ts drives it from the embedding process.
import { callContext, type ToolsOptions } from "../bindings/index.ts";
import { readFile } from "../bindings/read_file.ts";
import { runCheckedSync } from "../bindings/define.ts";
import type { Baseline } from "./context.ts";
import { refusedRun, type RunOptions, runLimits } from "./limits.ts";
import { createSandbox, type RunObserver, type RunReport } from "./sandbox.ts";
import { createViews, DEFAULT_VIEW_CAPS, type ViewCaps } from "./views.ts";

/** Options of an engine: where its calls run, and what its context window holds besides its views. */
export interface EngineOptions extends ToolsOptions {
  viewCaps?: ViewCaps;
  baseline?: Baseline;
}

export function createEngine(options: EngineOptions) {
  const context = callContext(options);
  const views = createViews(
    (path, offset, limit) => runCheckedSync(readFile, { path, ...(offset === undefined ? {} : { offset }), ...(limit === undefined ? {} : { limit }) }, context),
    context.cwd,
    options.viewCaps ?? DEFAULT_VIEW_CAPS,
    options.baseline,
  );
  const sandbox = createSandbox({ context, views });
  return {
    views,
    run: async (source: string, run: RunOptions = {}, observer?: RunObserver): Promise<RunReport> => {
      const refused = refusedRun(run);
      if (refused) return refused;
      if (run.baseline) views.setBaseline(run.baseline);
      return sandbox.run(source, run.language ?? "ts", runLimits(run), observer);
    },
    /** Frees the isolate kept ready for the next program. */
    close: (): Promise<void> => sandbox.close(),
  };
}
