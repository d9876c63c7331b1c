// gg agent: drives a model through either arm on a workspace, with a progress line per turn on stderr and the answer
// on stdout (or the agent report with --json).
import { readFileSync } from "node:fs";
import type { Configuration } from "../bindings/config.ts";
import { runAgent } from "../agent/loop.ts";
import type { Arm } from "../agent/prompts.ts";
import { openAIProvider, ProviderError } from "../agent/provider.ts";

/** Where requests go when --base-url names nothing: OpenRouter, whose model ids the catalog uses. */
export const DEFAULT_BASE_URL = "https://openrouter.ai/api/v1";

/** What `gg agent` is given, checked by the caller. */
export interface AgentFlags {
  model: string;
  arm: Arm;
  task: string;
  baseURL: string;
  workspace: string;
  config: Configuration;
  agent?: string;
  maxTurns?: number;
  budget?: number;
  json: boolean;
}

/** The task of --task or --task-file; `refuse` throws the command line's refusal. */
export function taskOf(task: string | undefined, file: string | undefined, refuse: (message: string) => never): string {
  if ((task === undefined) === (file === undefined)) refuse("gg agent needs one of --task TEXT or --task-file FILE");
  if (task !== undefined) return task;
  try {
    return readFileSync(file as string, "utf8");
  } catch (error) {
    return refuse(`Cannot read the task file ${file}: ${(error as Error).message}`);
  }
}

/** Runs the agent: exit 0 when the model answered, 1 when the run ended otherwise, 2 when the provider cannot be used. */
export async function runAgentCommand(flags: AgentFlags, out: (text: string) => void, err: (text: string) => void): Promise<number> {
  let provider;
  try {
    provider = openAIProvider({ baseURL: flags.baseURL });
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    err(`gg: ${error.message}\n`);
    return 2;
  }
  const started = performance.now();
  const report = await runAgent({
    provider,
    model: flags.model,
    arm: flags.arm,
    task: flags.task,
    workspace: flags.workspace,
    config: flags.config,
    ...(flags.agent === undefined ? {} : { agent: flags.agent }),
    ...(flags.maxTurns === undefined ? {} : { maxTurns: flags.maxTurns }),
    ...(flags.budget === undefined ? {} : { budgetSecs: flags.budget }),
    onTurn: (turn) => {
      const tokens = turn.usage ? `${turn.usage.promptTokens} in, ${turn.usage.completionTokens} out` : "tokens unknown";
      const retries = turn.retries.length > 0 ? `, ${turn.retries.length} retries` : "";
      err(`[turn ${turn.turn}] ${tokens}, ${turn.calls} ${flags.arm === "tools" ? "calls" : "programs"}${retries}, ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    },
  });
  if (flags.json) out(`${JSON.stringify(report)}\n`);
  else if (report.ok) out(`${report.answer ?? ""}\n`);
  else err(`gg: error[${report.error?.code}]: ${report.error?.message}\n`);
  return report.ok ? 0 : 1;
}
