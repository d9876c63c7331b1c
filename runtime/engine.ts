// The engine of one agent: its tools' context, its views, and runs of programs one after another. It lives in the
// runner process (runner.ts); createRuntime in index.ts drives it from the embedding process.
import { callContext, type ToolsOptions } from "../bindings/index.ts";
import { readFile } from "../bindings/read_file.ts";
import { runCheckedSync } from "../bindings/define.ts";
import { createChecker } from "./check.ts";
import type { Baseline } from "./context.ts";
import { renderDts } from "./docs.ts";
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
  // Against the gg global this agent holds; the compiler loads on the first check and stays warm.
  const checker = createChecker(renderDts(context.config));
  return {
    views,
    run: async (source: string, run: RunOptions = {}, observer?: RunObserver): Promise<RunReport> => {
      const refused = refusedRun(run);
      if (refused) return refused;
      if (run.baseline) views.setBaseline(run.baseline);
      const language = run.language ?? "ts";
      // JavaScript is run as it is: only TypeScript declares the types a check needs.
      return sandbox.run(source, language, runLimits(run), observer, run.check && language === "ts" ? checker.check : undefined);
    },
    /** Frees the isolate kept ready for the next program. */
    close: (): Promise<void> => sandbox.close(),
  };
}
