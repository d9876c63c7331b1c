// The gg command line: a contract other tools script against. Exit 0: the call succeeded; 1: the call failed;
// 2: the command line or the configuration was refused.
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { ConfigError, type Configuration, defaultConfiguration, forAgent, parseConfiguration } from "../bindings/config.ts";
import { errorText } from "../bindings/define.ts";
import { quote } from "../host/errors.ts";
import { createTools } from "../bindings/index.ts";
import { stopCommandsOnSignals } from "../host/shell.ts";
import { renderApiDoc, searchDocs } from "../runtime/docs.ts";
import { createRuntime } from "../runtime/index.ts";
import { printPrompt } from "./prompt.ts";
import { type RunOptions, runProblems } from "../runtime/limits.ts";
import type { ViewSummary } from "../runtime/views.ts";

const USAGE = `Usage:
  gg call TOOL [ARGS_JSON] [--workspace DIR] [--config FILE] [--agent ID] [--budget SECONDS] [--json]
  gg run PROGRAM.ts|- [--workspace DIR] [--config FILE] [--agent ID] [--budget SECONDS] [--cpu SECONDS] [--memory MB] [--check] [--json]
  gg tools [--config FILE] [--agent ID]
  gg docs [--search QUERY] [--config FILE] [--agent ID] [--json]
  gg prompt --arm tools|code [--workspace DIR] [--config FILE] [--agent ID]
  gg mcp [--workspace DIR] [--config FILE] [--agent ID]
  gg agent --model ID --arm tools|code (--task TEXT | --task-file FILE) [--base-url URL] [--workspace DIR]
           [--config FILE] [--agent ID] [--catalog FILE] [--max-turns N] [--budget SECONDS] [--transcript FILE] [--json]
  gg agent --replay FILE [--workspace DIR] [--json]
  gg models [--catalog FILE] [--json]
  gg models refresh [--base-url URL]

  call   run one tool call and print its result exactly as the model receives it
  run    run a program (JS or TS, the body of an async function) against the gg global; - reads it from stdin
  tools  print the JSON tool definitions of the enabled calls
  docs   print the gg API reference (docs/api.md); --search ranks the functions whose name, module or brief match
  prompt print the system prompt of an arm; a code agent's is followed by its opening turn on the workspace
  mcp    serve the agent's tools, run_program, search_docs, the docs and the prompts over MCP on stdio
  models list the model catalog (context length, input modalities); refresh rewrites your copy from OpenRouter's list
  agent  drive a model (an OpenAI-compatible endpoint; key from GG_API_KEY, OPENAI_API_KEY or OPENROUTER_API_KEY)
         through either arm: a line per turn on stderr, the answer on stdout

Options:
  --workspace DIR  workspace root; relative paths resolve against it (default: the current directory)
  --config FILE    JSON capability configuration (default: every capability on, read-file default-cap, lineCap 2000)
  --agent ID       the agent to act as: its allowlist in the configuration decides its calls; it names its shell logs
  --budget SECONDS wall-clock budget of the run (run: default 120); a shell command's timeout is clamped to it
  --cpu SECONDS    CPU time of a program (run: default the budget)
  --memory MB      heap of a program's isolate (default 128)
  --check          type-check a TypeScript program first (against the gg global and the ES library); a program with
                   type errors is reported with all of them and does not run
  --json           print one JSON object: {"ok": true, "text", "attachments"} (shell: {"ok": true, "exitCode",
                   "output", "truncated", "files"}) or {"ok": false, "error"}`;

/** A refused command line or configuration. */
class UsageError extends Error {}

/** The configuration in `file` (or the default one) as agent `agent` sees it; an agent the file does not list is refused. */
function loadConfiguration(file: string | undefined, agent: string | undefined): Configuration {
  const config = readConfiguration(file);
  if (agent !== undefined && !Object.hasOwn(config.agents, agent)) {
    const known = Object.keys(config.agents);
    throw new UsageError(`No agent ${JSON.stringify(agent)} in ${file ?? "the configuration"}; ${known.length > 0 ? `the agents are ${known.map((id) => JSON.stringify(id)).join(", ")}` : 'it lists none (add "agents": [{"id": ..., "allow": [...]}])'}`);
  }
  return forAgent(config, agent);
}

function readConfiguration(file: string | undefined): Configuration {
  if (file === undefined) return defaultConfiguration();
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`Cannot read the configuration ${file}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`Cannot parse the configuration ${file}: ${(error as Error).message}; it must be a JSON array of capabilities`);
  }
  return parseConfiguration(json);
}

function workspaceOf(dir: string | undefined): string {
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

function positiveNumber(option: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!(value > 0) || !Number.isFinite(value)) throw new UsageError(`${option} ${text} is not a positive number`);
  return value;
}

interface RunFlags {
  workspace: string;
  config: Configuration;
  agent: string | undefined;
  budget: number | undefined;
  memory: number | undefined;
  cpu: number | undefined;
  check: boolean;
  json: boolean;
}

/** One open view in a line: what it shows and what it costs. */
function describeView(view: ViewSummary): string {
  const cost = `${view.tokens} tokens`;
  if (view.image) {
    const size = view.image.width ? ` ${view.image.width}x${view.image.height}` : "";
    const state = view.image.retired ? ", retired" : view.image.attached ? "" : ", not attached";
    return `${view.path} (${view.image.format}${size}${state}, ${view.image.estimated ? "~" : ""}${cost})`;
  }
  const window = view.window && view.window.total > 0 ? ` lines ${view.window.first}-${view.window.last} of ${view.window.total}` : " (empty)";
  return `${view.path}${window} (~${cost})`;
}

/** gg run: exit 0 when the program finished, 1 when it failed or was stopped. */
async function runProgramFile(rest: string[], flags: RunFlags, out: (text: string) => void): Promise<number> {
  const [file, ...extra] = rest;
  if (file === undefined) throw new UsageError("gg run needs a PROGRAM file, e.g. gg run examples/todos.ts");
  if (extra.length > 0) throw new UsageError(`gg run takes one PROGRAM file, got extra ${extra.join(" ")}`);
  let source: string;
  try {
    source = readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (error) {
    throw new UsageError(`Cannot read the program ${file}: ${(error as Error).message}`);
  }
  const options: RunOptions = {
    language: /\.[cm]?js$/.test(file) ? "js" : "ts",
    ...(flags.budget === undefined ? {} : { budget: flags.budget }),
    ...(flags.memory === undefined ? {} : { memory: flags.memory }),
    ...(flags.cpu === undefined ? {} : { limits: { cpuSecs: flags.cpu } }),
    ...(flags.check ? { check: true } : {}),
  };
  const problems = runProblems(options, { budget: "--budget", memory: "--memory", "limits.cpuSecs": "--cpu" });
  if (problems.length > 0) throw new UsageError(`Cannot run with these limits: ${problems.join("; ")}`);
  const runtime = createRuntime({ workspace: flags.workspace, config: flags.config, ...(flags.agent === undefined ? {} : { agent: flags.agent }) });
  try {
    const report = await runtime.run(source, options);
    if (flags.json) out(`${JSON.stringify(report)}\n`);
    else {
      for (const entry of report.logs) out(`${entry.level === "log" ? "" : `[${entry.level}] `}${entry.text}\n`);
      if (report.logsDropped > 0) out(`[${report.logsDropped} more log entries dropped at the log limit]\n`);
      if (report.ok) out(`${typeof report.result === "string" ? report.result : JSON.stringify(report.result, null, 2)}\n`);
      else if (report.error) {
        // A type error's message lists every position already.
        const where = report.error.line === undefined || report.error.problems ? "" : ` (line ${report.error.line}, column ${report.error.column})`;
        out(`${errorText(report.error)}${where}\n`);
      }
      if (report.views.length > 0) out(`[views open: ${report.views.map(describeView).join("; ")}]\n`);
    }
    return report.ok ? 0 : 1;
  } finally {
    runtime.close();
  }
}

/** Runs the CLI on `argv` (without node and script), writing to `out`; returns the exit status. */
export async function main(argv: readonly string[], out: (text: string) => void = (t) => process.stdout.write(t), err: (text: string) => void = (t) => process.stderr.write(t)): Promise<number> {
  let json = false;
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        workspace: { type: "string" },
        config: { type: "string" },
        agent: { type: "string" },
        budget: { type: "string" },
        memory: { type: "string" },
        cpu: { type: "string" },
        json: { type: "boolean", default: false },
        check: { type: "boolean", default: false },
        arm: { type: "string" },
        search: { type: "string" },
        model: { type: "string" },
        task: { type: "string" },
        "task-file": { type: "string" },
        "base-url": { type: "string" },
        "max-turns": { type: "string" },
        catalog: { type: "string" },
        transcript: { type: "string" },
        replay: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
    json = values.json;
    const [command, ...rest] = positionals;
    if (values.help || command === undefined || command === "help") {
      out(`${USAGE}\n`);
      return command === undefined && !values.help ? 2 : 0;
    }
    const config = loadConfiguration(values.config, values.agent);
    const agent = values.agent === undefined ? {} : { agent: values.agent };
    // Ctrl-C or a kill of gg ends the commands it started too, rather than leaving them to init.
    if (command === "call" || command === "run" || command === "mcp" || command === "agent") stopCommandsOnSignals();
    if (command === "tools") {
      if (rest.length > 0) throw new UsageError(`gg tools takes no arguments, got ${rest.join(" ")}`);
      out(`${JSON.stringify(createTools({ workspace: process.cwd(), config }).definitions(), null, 2)}\n`);
      return 0;
    }
    if (command === "docs") {
      if (rest.length > 0) throw new UsageError(`gg docs takes no arguments, got ${rest.join(" ")}; to search, pass --search QUERY`);
      if (values.search === undefined) out(renderApiDoc(config));
      else {
        const matches = searchDocs(values.search, config);
        if (json) out(`${JSON.stringify(matches)}\n`);
        else if (matches.length === 0) out(`No function of the gg global matches ${JSON.stringify(values.search)}.\n`);
        else out(matches.map((match) => `${match.function}: ${match.brief}\n  ${match.signature}\n`).join(""));
      }
      return 0;
    }
    if (command === "mcp") {
      if (rest.length > 0) throw new UsageError(`gg mcp takes no arguments, got ${rest.join(" ")}`);
      // Loaded here: the MCP SDK is a third of the bundle, and no other command needs it.
      const { serveStdio } = await import("../mcp/server.ts");
      return await serveStdio({ workspace: workspaceOf(values.workspace), config, ...agent });
    }
    if (command === "models") {
      const { printModels } = await import("./agent.ts");
      return await printModels(rest, { ...(values.catalog === undefined ? {} : { catalog: values.catalog }), ...(values["base-url"] === undefined ? {} : { baseURL: values["base-url"] }), json }, out, err, (message) => {
        throw new UsageError(message);
      });
    }
    if (command === "agent") {
      if (rest.length > 0) throw new UsageError(`gg agent takes no arguments, got ${rest.join(" ")}`);
      const refuse = (message: string): never => {
        throw new UsageError(message);
      };
      if (values.replay !== undefined) {
        const { replayCommand } = await import("./agent.ts");
        return await replayCommand(values.replay, workspaceOf(values.workspace), json, out, refuse);
      }
      if (values.model === undefined) throw new UsageError("gg agent needs --model ID, e.g. --model openai/gpt-4o-mini");
      if (values.arm !== "tools" && values.arm !== "code") throw new UsageError(`gg agent needs --arm tools or --arm code${values.arm === undefined ? "" : `, got ${JSON.stringify(values.arm)}`}`);
      const maxTurns = positiveNumber("--max-turns", values["max-turns"]);
      const budgetSecs = positiveNumber("--budget", values.budget);
      if (maxTurns !== undefined && !Number.isInteger(maxTurns)) throw new UsageError(`--max-turns ${values["max-turns"]} is not a whole number`);
      // Loaded here, as gg mcp's server is: the model client is not every command's cost.
      const { DEFAULT_BASE_URL, runAgentCommand, taskOf } = await import("./agent.ts");
      return await runAgentCommand(
        {
          model: values.model,
          arm: values.arm,
          task: taskOf(values.task, values["task-file"], refuse),
          baseURL: values["base-url"] ?? DEFAULT_BASE_URL,
          ...(values.catalog === undefined ? {} : { catalog: values.catalog }),
          workspace: workspaceOf(values.workspace),
          config,
          ...agent,
          ...(maxTurns === undefined ? {} : { maxTurns }),
          ...(budgetSecs === undefined ? {} : { budget: budgetSecs }),
          ...(values.transcript === undefined ? {} : { transcript: values.transcript }),
          json,
        },
        out,
        err,
      );
    }
    if (command === "prompt") {
      if (rest.length > 0) throw new UsageError(`gg prompt takes no arguments, got ${rest.join(" ")}`);
      if (values.arm !== "tools" && values.arm !== "code") throw new UsageError(`gg prompt needs --arm tools or --arm code${values.arm === undefined ? "" : `, got ${JSON.stringify(values.arm)}`}`);
      return await printPrompt(values.arm, { config, ...agent, workspace: workspaceOf(values.workspace) }, out);
    }
    const budget = positiveNumber("--budget", values.budget);
    if (command === "run") return await runProgramFile(rest, { workspace: workspaceOf(values.workspace), config, agent: values.agent, budget, memory: positiveNumber("--memory", values.memory), cpu: positiveNumber("--cpu", values.cpu), check: values.check, json }, out);
    if (command !== "call") throw new UsageError(`Unknown command ${JSON.stringify(command)}; the commands are call, run, tools, docs, prompt, mcp, agent and models`);
    const [tool, argsText, ...extra] = rest;
    if (tool === undefined) throw new UsageError("gg call needs a TOOL name, e.g. gg call tree '{\"depth\":2}'");
    if (extra.length > 0) throw new UsageError(`gg call takes TOOL and one ARGS_JSON, got extra ${extra.join(" ")}`);
    let args: unknown = {};
    if (argsText !== undefined) {
      try {
        args = JSON.parse(argsText);
      } catch (error) {
        throw new UsageError(`Cannot parse ARGS_JSON ${quote(argsText)}: ${(error as Error).message}; pass one JSON object, e.g. '{"path": "README.md"}'`);
      }
    }
    // One call, then the process ends: nothing is kept for a next search (the cold path).
    const tools = createTools({ workspace: workspaceOf(values.workspace), config, ...agent, ...(budget === undefined ? {} : { budgetSecs: budget }), warm: false });
    // A tool this configuration lacks (unknown, or its capability disabled) is a refused command line.
    const names = tools.names();
    if (!names.includes(tool)) throw new UsageError(`No tool ${JSON.stringify(tool)} in this configuration; the tools are ${names.join(", ")}`);
    const result = await tools.call(tool, args);
    if (json) {
      out(`${JSON.stringify(tools.json(tool, result))}\n`);
    } else {
      out(result.ok ? result.text : errorText(result.error));
    }
    return result.ok ? 0 : 1;
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof ConfigError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS"))) throw error;
    const message = (error as Error).message;
    if (json) out(`${JSON.stringify({ ok: false, error: { code: "invalid-argument", message } })}\n`);
    else err(`gg: ${message}\n${error instanceof UsageError || error instanceof ConfigError ? "" : `${USAGE}\n`}`);
    return 2;
  }
}
