// Test fixture: an in-process engine on a temp workspace (fast), for everything but runner crashes.
import { parseConfiguration } from "../../bindings/config.ts";
import { createEngine, type EngineOptions } from "../../runtime/engine.ts";
import type { RunOptions } from "../../runtime/limits.ts";
import type { RunReport } from "../../runtime/report.ts";
import { type TempWorkspace, tempWorkspace } from "../workspace.ts";

/** A temp workspace with an engine running programs in it. */
export interface EngineWorkspace extends TempWorkspace {
  run(source: string, options?: RunOptions): Promise<RunReport>;
  engine: ReturnType<typeof createEngine>;
}

export function engineWorkspace(options: Partial<EngineOptions> & { configEntries?: unknown } = {}): EngineWorkspace {
  const ws = tempWorkspace();
  const { configEntries, ...rest } = options;
  const engine = createEngine({ workspace: ws.root, agent: "enginetest", ...(configEntries ? { config: parseConfiguration(configEntries) } : {}), ...rest });
  const removeWorkspace = ws[Symbol.dispose];
  return Object.assign(ws, {
    engine,
    run: (source: string, run?: RunOptions) => engine.run(source, run),
    [Symbol.dispose]() {
      void engine.close();
      removeWorkspace();
    },
  });
}
