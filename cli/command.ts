// What every gg command is made of: the streams it writes to, its refusal, the options several commands share, and
// one way to declare a command (commander's declaration, from which both its parsing and its help come).
import { readFileSync, statSync } from "node:fs";
import { totalmem } from "node:os";
import { resolve } from "node:path";
import { Command, InvalidArgumentError, Option } from "commander";
import type { Configuration } from "../bindings/config.ts";
import type { ExternalSurface } from "../bindings/external.ts";
import { realPath } from "../host/paths.ts";

/** Where a command writes, and the exit status it leaves: 0 success, 1 the call failed, 2 the command line refused. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  status: number;
}

/** A refused command line or configuration (exit 2). */
export class UsageError extends Error {}

/** The options several commands take, each declared once. */
export const options = {
  workspace: () => new Option("--workspace <dir>", "workspace root; relative paths resolve against it (default: the current directory)"),
  config: () => new Option("--config <file>", "JSON capability configuration (default: every capability on)"),
  mcpConfig: () => new Option("--mcp-config <file>", 'other MCP servers whose tools programs and tool calls can use: {"mcpServers": {...}}, as .mcp.json writes it'),
  agent: () => new Option("--agent <id>", "the agent to act as: its allowlist in the configuration decides its calls, and it names its shell logs"),
  json: (what = "print one JSON object instead of text") => new Option("--json", what),
  budget: (what: string) => new Option("--budget <seconds>", what).argParser(positive()),
  cpu: () => new Option("--cpu <seconds>", "CPU time of a program (default: its budget)").argParser(positive()),
  memory: () => new Option("--memory <mb>", "heap of a program's isolate in MB (default 128)").argParser(positive()),
  check: () => new Option("--check", "type-check a TypeScript program first (against the gg global and the ES library); one with type errors is reported with all of them and does not run"),
  catalog: () => new Option("--catalog <file>", "a model catalog file instead of your copy or the shipped one"),
  approve: () => new Option("--approve <answer>", "what a call whose verdict is ask gets when no terminal can ask a person (default deny); given, it answers every ask").choices(["allow", "deny"]),
  arm: () => new Option("--arm <arm>", "tool calls or programs").choices(["tools", "code"]),
  warmCap: () =>
    new Option("--warm-cap <mib>", "memory in MiB for what searches keep between calls (listings, filters, contents; default: a 160th of the machine's memory, 64 to 1024); 0 keeps nothing").argParser(warmMib),
};

/** --warm-cap's parser: 0, or MiB up to the machine's memory (more is a slip of the finger, never a budget). */
function warmMib(text: string): number {
  const value = Number(text);
  const machine = Math.floor(totalmem() / 2 ** 20);
  if (!(value >= 0) || !Number.isFinite(value)) throw new InvalidArgumentError("it must be 0 (keep nothing) or a number of MiB");
  if (value > machine) throw new InvalidArgumentError(`it is over this machine's memory, ${machine} MiB`);
  return value;
}

/** The warm state's option for a runtime or tools from `--warm-cap` (in MiB): none given keeps the default. */
export const warmOf = (mib: number | undefined): { warm?: false | { capBytes: number } } =>
  mib === undefined ? {} : { warm: mib === 0 ? false : { capBytes: Math.round(mib * 2 ** 20) } };

/** What the shared options parse to. */
export interface Common {
  workspace?: string;
  approve?: "allow" | "deny";
  config?: string;
  mcpConfig?: string;
  agent?: string;
  json?: boolean;
}

/**
 * A command named `name`: `summary` heads its help and the command list, `examples` end its help. `act` gets the
 * parsed arguments (commander's order: positionals, then the options) and returns the exit status.
 */
export function defineCommand(io: Io, usage: string, summary: string, examples: readonly string[], act: (...args: never[]) => Promise<number>): Command {
  const [name = usage, ...args] = usage.split(" ");
  const command = new Command(name).description(summary).addHelpText("after", `\nExamples:\n${examples.map((example) => `  ${example}`).join("\n")}\n`);
  for (const arg of args) command.argument(arg);
  return command.action(async (...parsed: unknown[]) => {
    io.status = await act(...(parsed.slice(0, -1) as never[]));
  });
}

/** A number option's parser: a positive finite number (commander names the option in the refusal). */
export function positive(whole = false): (text: string) => number {
  return (text) => {
    const value = Number(text);
    if (!(value > 0) || !Number.isFinite(value)) throw new InvalidArgumentError("it must be a positive number");
    if (whole && !Number.isInteger(value)) throw new InvalidArgumentError("it must be a whole number");
    return value;
  };
}

/**
 * The configuration in `file` (or the default one) as agent `agent` sees it; an agent the file does not list is refused.
 * Its parser is loaded here, by the commands that need it, so that the others start without it.
 */
export async function loadConfiguration(flags: Pick<Common, "config" | "agent" | "mcpConfig">): Promise<Configuration> {
  const { config: file, agent, mcpConfig } = flags;
  const { defaultConfiguration, forAgent, parseConfiguration, withMcpConfig } = await import("../bindings/config.ts");
  const base = file === undefined ? defaultConfiguration() : { ...parseConfiguration(readJson(file)), ownFiles: [realPath(resolve(file))] };
  // The MCP configuration names programs gg starts unconfined: it is gg's own file as the configuration is.
  const config = mcpConfig === undefined ? base : { ...withMcpConfig(base, readJson(mcpConfig), mcpConfig), ownFiles: [...(base.ownFiles ?? []), realPath(resolve(mcpConfig))] };
  if (agent !== undefined && !Object.hasOwn(config.agents, agent)) {
    const known = Object.keys(config.agents);
    throw new UsageError(`No agent ${JSON.stringify(agent)} in ${file ?? "the configuration"}; ${known.length > 0 ? `the agents are ${known.map((id) => JSON.stringify(id)).join(", ")}` : 'it lists none (add "agents": [{"id": ..., "allow": [...]}])'}`);
  }
  return forAgent(config, agent);
}

/**
 * The external tools of `config` (its MCP servers, started now in `workspace`) for a command that offers tool calls,
 * and their end.
 */
export async function externalTools(config: Configuration, workspace = process.cwd()): Promise<{ external?: ExternalSurface; close(): Promise<void> }> {
  const { createExternals } = await import("../bindings/external.ts");
  const externals = createExternals(config, [], workspace);
  if (!externals) return { close: async () => {} };
  return { external: await externals.surface(), close: () => externals.close() };
}

/** The JSON of configuration file `file`. (The file in force is gg's own: an agent's write of it is asked, bindings/approval_own.ts.) */
function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`Cannot read the configuration ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`Cannot parse the configuration ${file}: ${(error as Error).message}; it must be a JSON array of capabilities`);
  }
}

/** The workspace directory `dir` names (default the current directory), refused when it is not one. */
export function workspaceOf(dir: string | undefined): string {
  const workspace = resolve(dir ?? process.cwd());
  let isDir = false;
  try {
    isDir = statSync(workspace).isDirectory();
  } catch {
    // Reported below.
  }
  if (!isDir) throw new UsageError(`Cannot use workspace ${workspace}: it is not an existing directory`);
  return workspace;
}

/** Refuses a --base-url that is not an http:// or https:// URL (`127.0.0.1:8089` would otherwise read as a remote host needing a key). */
export function checkBaseURL(baseURL: string): void {
  let protocol: string | undefined;
  try {
    protocol = new URL(baseURL).protocol;
  } catch {
    // Reported below.
  }
  if (protocol !== "http:" && protocol !== "https:") throw new UsageError(`Cannot use --base-url ${baseURL}: it needs http:// or https://, e.g. http://${baseURL.replace(/^\w+:\/*/, "")}`);
}

/** The agent option as the options objects of the runtime and the tools take it. */
export const agentOf = (agent: string | undefined): { agent?: string } => (agent === undefined ? {} : { agent });

/** A signal as a person at a terminal knows it. */
export const signalWords = (signal: NodeJS.Signals): string => (signal === "SIGINT" ? "Ctrl-C (SIGINT)" : signal);
