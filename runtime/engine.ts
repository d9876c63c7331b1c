// The engine of one agent: its tools' context, its views, and runs of programs one after another. It lives in the
// runner process (runner.ts); createRuntime in index.ts drives it from the embedding process.
import { callContext, type ToolsOptions } from "../bindings/index.ts";
import { readFile } from "../bindings/read_file.ts";
import { runCheckedSync } from "../bindings/define.ts";
import type { Approve } from "../bindings/gate.ts";
import type { CallTool, ExternalCatalog } from "../bindings/external.ts";
import { createChecker } from "./check.ts";
import { externalEnv } from "./external_api.ts";
import type { Baseline } from "./context.ts";
import { renderDts } from "./docs.ts";
import { refusedRun, type RunOptions, runLimits } from "./limits.ts";
import type { RunObserver, RunReport } from "./report.ts";
import { createSandbox } from "./sandbox.ts";
import { openingTurn } from "./opening.ts";
import { createViews, DEFAULT_VIEW_CAPS, type OpenedView, type ViewCaps } from "./views.ts";

/** Options of an engine: where its calls run, and what its context window holds besides its views. */
export interface EngineOptions extends ToolsOptions {
  viewCaps?: ViewCaps;
  baseline?: Baseline;
  /** The model was found unable to see pictures: reads describe them, whatever the configuration says. */
  textOnly?: boolean;
  /** Files the opening turn opens whole as views (a test case's specs), each with the limit that reads it whole. */
  specs?: readonly { path: string; limit: number }[];
  /** Programs share one realm: each one's top-level declarations stay for the next, as in a notebook (realm.ts). */
  keepState?: boolean;
}

/**
 * An engine; `firstViewId` numbers its first view (a runtime gives each runner its own range). Its calls are made from
 * programs (the code arm); `approve`, when given, is who an ask is put to (the runner's relay to the embedding process).
 */
export function createEngine(options: EngineOptions, firstViewId = 1, approve: Approve | undefined = options.approve, external?: { catalog: ExternalCatalog; callTool: CallTool; settle?: (server: string) => Promise<ExternalCatalog> }) {
  const context = callContext(options);
  context.approvals = { arm: "code", runId: context.approvals?.runId ?? "", ...(approve ? { approve } : {}) };
  if (options.textOnly) context.config = { ...context.config, vision: false };
  const views = createViews(
    (path, offset, limit, touch) => runCheckedSync(readFile, { path, ...(offset === undefined ? {} : { offset }), ...(limit === undefined ? {} : { limit }) }, touch ? { ...context, touch } : context),
    context.cwd,
    options.viewCaps ?? DEFAULT_VIEW_CAPS,
    options.baseline,
    firstViewId,
  );
  // The external tools in force: their catalog and their calls are the runner's registry's (an MCP server's reached from
  // there, an application function's relayed to the embedding process).
  let tools = external && externalEnv(external.catalog, external.callTool, context.config, external.settle);
  // Against the gg global this agent holds; the compiler loads on the first check and stays warm.
  const checker = createChecker(renderDts(context.config, tools?.catalog));
  // In a session that keeps state, the checker follows the realm: what ran in it is declared for the next check.
  const sandbox = createSandbox({ context, views, external: () => tools }, options.keepState === true, { ran: checker.ran, ended: checker.forget });
  return {
    views,
    run: async (source: string, run: RunOptions = {}, observer?: RunObserver, cancel?: AbortSignal): Promise<RunReport> => {
      const refused = refusedRun(run);
      if (refused) return refused;
      if (run.baseline) views.setBaseline(run.baseline);
      const language = run.language ?? "ts";
      views.nextTurn();
      const report = await sandbox.run(source, {
        language,
        limits: runLimits(run),
        ...(observer ? { observer } : {}),
        // JavaScript is run as it is: only TypeScript declares the types a check needs.
        ...(run.check && language === "ts" ? { check: checker.check } : {}),
        ...(cancel ? { cancel } : {}),
        ...(run.recorded ? { recorded: run.recorded } : {}),
      });
      // What the program changed (by a write, an edit or a command) under an open view, named in its report.
      const stale = views.check();
      return stale.length > 0 ? { ...report, stale, views: views.list() } : report;
    },
    /** Opens the opening turn's views (see Runtime.openingTurn) and returns them. */
    openingTurn: (): OpenedView[] => openingTurn(context, views, options.specs),
    /** Stops showing pictures: later reads describe them, and the open views give theirs up (see withdrawPictures). */
    textOnly(): void {
      context.config = { ...context.config, vision: false };
      views.withdrawPictures();
    },
    /** The external tools' catalog changed (a server's tools did): the next program sees the new one. */
    setCatalog(catalog: ExternalCatalog): void {
      if (!external) return;
      tools = externalEnv(catalog, external.callTool, context.config, external.settle);
      checker.declare(renderDts(context.config, catalog));
    },
    /** Ends the realm of a session that keeps state: the next program starts empty. */
    reset(): void {
      sandbox.reset();
    },
    /** Frees the isolates kept: the realm, and the one ready for the next program. */
    close: (): Promise<void> => sandbox.close(),
  };
}
