// gg agent: drives a model (an OpenAI-compatible endpoint) through either arm on a workspace, or replays a transcript.
// The model client is loaded only when the command runs: it is not every command's cost.
import { Option } from "commander";
import { DEFAULT_BASE_URL } from "../agent/catalog.ts";
import type { Arm } from "../agent/prompts.ts";
import { agentOf, type Common, defineCommand, type Io, loadConfiguration, options, positive, UsageError, workspaceOf } from "./command.ts";

interface AgentOptions extends Common {
  model?: string;
  arm?: Arm;
  task?: string;
  taskFile?: string;
  baseUrl?: string;
  catalog?: string;
  maxTurns?: number;
  budget?: number;
  transcript?: string;
  replay?: string;
  cacheMarks?: boolean;
}

/** What --replay runs with; any other option is refused, since the transcript fixes it. */
const REPLAY_TAKES = new Set(["replay", "workspace", "json"]);

export function agentCommand(io: Io) {
  return defineCommand(
    io,
    "agent",
    "drive a model through either arm (key from GG_API_KEY, OPENAI_API_KEY or OPENROUTER_API_KEY): a line per turn and a summary on stderr, the answer on stdout",
    ['gg agent --model qwen3-coder --base-url http://127.0.0.1:8080/v1 --arm code --task "Count the TODOs per file" --transcript run.jsonl', "gg agent --replay run.jsonl --workspace ."],
    async (flags: AgentOptions) => {
      const refuse = (message: string): never => {
        throw new UsageError(message);
      };
      if (flags.replay !== undefined) {
        const extra = Object.keys(flags).filter((key) => !REPLAY_TAKES.has(key) && flags[key as keyof AgentOptions] !== undefined);
        if (extra.length > 0) refuse(`--replay takes only --workspace and --json (the transcript fixes the rest), got ${extra.map(optionName).join(", ")}`);
        const { replayCommand } = await import("./agent_run.ts");
        return await replayCommand(flags.replay, flags.workspace === undefined ? undefined : workspaceOf(flags.workspace), flags.json === true, io.out, refuse);
      }
      if (flags.model === undefined) refuse("gg agent needs --model ID, e.g. --model openai/gpt-4o-mini");
      if (flags.arm === undefined) refuse("gg agent needs --arm tools or --arm code");
      const loaded = await loadConfiguration(flags);
      // The command line's word on cache breakpoints goes in the configuration, which a transcript records.
      const config = flags.cacheMarks === undefined ? loaded : { ...loaded, cacheMarks: flags.cacheMarks };
      const workspace = workspaceOf(flags.workspace);
      const { runAgentCommand, taskOf } = await import("./agent_run.ts");
      return await runAgentCommand(
        {
          model: flags.model as string,
          arm: flags.arm as Arm,
          task: taskOf(flags.task, flags.taskFile, refuse),
          baseURL: flags.baseUrl ?? DEFAULT_BASE_URL,
          ...(flags.catalog === undefined ? {} : { catalog: flags.catalog }),
          workspace,
          config,
          ...agentOf(flags.agent),
          ...(flags.maxTurns === undefined ? {} : { maxTurns: flags.maxTurns }),
          ...(flags.budget === undefined ? {} : { budget: flags.budget }),
          ...(flags.transcript === undefined ? {} : { transcript: flags.transcript }),
          ...(flags.approve === undefined ? {} : { approve: flags.approve }),
          json: flags.json === true,
        },
        io.out,
        io.err,
      );
    },
  )
    .addOption(new Option("--model <id>", "the model, as the provider names it (the catalog gives its context length and vision)"))
    .addOption(options.arm())
    .addOption(new Option("--task <text>", "the task, as the first user message"))
    .addOption(new Option("--task-file <file>", "the task, read from a file"))
    .addOption(new Option("--base-url <url>", `an OpenAI-compatible endpoint, http:// or https:// (default ${DEFAULT_BASE_URL}); a server on this machine (localhost, 127.x.x.x) needs no API key`))
    .addOption(options.workspace())
    .addOption(options.config())
    .addOption(options.mcpConfig())
    .addOption(options.agent())
    .addOption(options.catalog())
    .addOption(new Option("--max-turns <n>", "the most model turns before the run stops (default 50)").argParser(positive(true)))
    .addOption(options.budget("wall-clock budget of the whole run (default 1800)"))
    .addOption(options.warmCap())
    .addOption(new Option("--cache-marks", "mark prompt-cache breakpoints (cache_control) in every request, as Anthropic's models need (default: by the model's id, or the configuration's model.cacheMarks)"))
    .addOption(new Option("--no-cache-marks", "never mark prompt-cache breakpoints"))
    .addOption(new Option("--transcript <file>", "write the run as JSON Lines, for --replay"))
    .addOption(options.approve())
    .addOption(new Option("--replay <file>", "re-execute a transcript's recorded answers on --workspace, else on the workspace it recorded; exit 0 when every outcome matches"))
    .addOption(options.json("print the agent report as one JSON object"));
}

/** `taskFile` as the command line spells it: --task-file. */
const optionName = (key: string): string => `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
