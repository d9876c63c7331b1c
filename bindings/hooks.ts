// Hooks run commands too, so they share the shell's output policy: a command hook's output is offloaded under the
// agent's policy unless the hook names its own mode (same vocabulary, refused on the same terms); a script hook's
// stdout is its verdict and comes back whole. An agent without a shell has no policy: its command hooks' output
// comes back whole, under the 16 KiB byte cap alone.
import { GgError } from "../host/errors.ts";
import type { OutputPolicy } from "../host/output.ts";
import { SHELL_OUTPUT_PARAMS } from "./capabilities.ts";
import { checkImplementation, ConfigError, type Configuration, show } from "./config.ts";
import { execute, type ShellResult, shellPolicy } from "./shell.ts";

/** A hook that runs a command and reports its output like the shell call does. */
export interface CommandHook {
  type: "command";
  command: string;
  timeoutSecs?: number;
  /** Its own output mode, in the shell capability's terms; absent, the agent's shell policy applies. */
  output?: { implementation: string; params: Record<string, unknown> };
}

/** A hook whose stdout is a verdict for gg to read, returned whole. */
export interface ScriptHook {
  type: "script";
  command: string;
  timeoutSecs?: number;
}

export type Hook = CommandHook | ScriptHook;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Validates hook declarations, refusing them (every problem named) as a configuration is refused. */
export function parseHooks(input: unknown): Hook[] {
  const problems: string[] = [];
  if (!Array.isArray(input)) throw new ConfigError(["hooks must be a JSON array of {\"type\": \"command\" | \"script\", \"command\": ...}"]);
  const hooks = input.flatMap((hook, index): Hook[] => {
    const name = `hook #${index + 1}`;
    if (!isRecord(hook) || (hook.type !== "command" && hook.type !== "script")) {
      problems.push(`${name} must be an object with "type": "command" or "script"`);
      return [];
    }
    const fields = hook.type === "command" ? ["type", "command", "timeoutSecs", "output"] : ["type", "command", "timeoutSecs"];
    for (const key of Object.keys(hook)) {
      if (!fields.includes(key) && !(key === "output" && hook.type === "script")) problems.push(`${name} has an unknown field "${key}"; its fields are ${fields.map((f) => `"${f}"`).join(", ")}`);
    }
    if (typeof hook.command !== "string" || hook.command === "") problems.push(`${name} needs a "command" string`);
    if (hook.timeoutSecs !== undefined && !(typeof hook.timeoutSecs === "number" && hook.timeoutSecs > 0 && Number.isFinite(hook.timeoutSecs))) {
      problems.push(`${name} has timeoutSecs ${show(hook.timeoutSecs)}; it must be a positive number of seconds`);
    }
    if (hook.output !== undefined) {
      if (hook.type === "script") problems.push(`${name} is a script hook, whose stdout is always read whole; remove "output"`);
      else if (!isRecord(hook.output)) problems.push(`${name} has output ${show(hook.output)}; use {"implementation": "offload", "params": {"maxLines": 200, "maxChars": 8000}}`);
      else {
        for (const key of Object.keys(hook.output)) {
          if (key !== "implementation" && key !== "params") problems.push(`${name} output has an unknown field "${key}"; its fields are "implementation", "params"`);
        }
        checkImplementation("shell", `${name} output`, hook.output, true, problems, SHELL_OUTPUT_PARAMS);
      }
    }
    return [hook as unknown as Hook];
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return hooks;
}

/** The policy a command hook's output gets: its own mode, else the agent's shell policy, else none. */
export function hookPolicy(hook: CommandHook, config: Configuration): OutputPolicy | undefined {
  if (!hook.output) return shellPolicy(config);
  return {
    mode: hook.output.implementation as OutputPolicy["mode"],
    maxLines: Number(hook.output.params.maxLines),
    maxChars: Number(hook.output.params.maxChars),
  };
}

/** Where a hook runs. */
export interface HookContext {
  cwd: string;
  config: Configuration;
  agent: string;
  deadline?: number;
}

/**
 * Runs a hook: a command hook under its output policy, a script hook with its stdout whole as `output`. A hook
 * {@link parseHooks} would refuse is refused here too, with invalid-argument, before anything starts.
 */
export async function runHook(hook: Hook, context: HookContext): Promise<ShellResult> {
  try {
    parseHooks([hook]);
  } catch (error) {
    if (error instanceof ConfigError) throw new GgError("invalid-argument", `Cannot run the hook: ${error.problems.join("; ")}`);
    throw error;
  }
  return execute(hook.command, {
    cwd: context.cwd,
    ...(hook.timeoutSecs === undefined ? {} : { timeoutSecs: hook.timeoutSecs }),
    policy: hook.type === "script" ? "verdict" : hookPolicy(hook, context.config),
    agent: context.agent,
    ...(context.deadline === undefined ? {} : { deadline: context.deadline }),
  });
}
