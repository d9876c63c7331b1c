// gg call: one tool call, its result printed exactly as the model receives it.
import { createTools } from "../bindings/index.ts";
import { errorText } from "../bindings/define.ts";
import { quote } from "../host/errors.ts";
import { stopCommandsOnSignals } from "../host/shell.ts";
import { approverFor } from "./approve.ts";
import { agentOf, type Common, defineCommand, type Io, loadConfiguration, options, UsageError, workspaceOf } from "./command.ts";

export function callCommand(io: Io) {
  return defineCommand(
    io,
    "call <tool> [args_json]",
    "run one tool call and print its result as the model receives it, then a newline (exit 1 when the call fails)",
    [`gg call tree '{"depth": 2}'`, `gg call search '{"pattern": "TODO", "path": "src"}' --json`],
    async (tool: string, argsText: string | undefined, flags: Common & { budget?: number }) => {
      const args = parseArgsJson(argsText);
      const config = loadConfiguration(flags.config, flags.agent);
      stopCommandsOnSignals();
      // One call, then the process ends: nothing is kept for a next search (the cold path).
      const tools = createTools({ workspace: workspaceOf(flags.workspace), config, ...agentOf(flags.agent), approve: approverFor(flags.approve, io.err), ...(flags.budget === undefined ? {} : { budgetSecs: flags.budget }), warm: false });
      // A tool this configuration lacks (unknown, or its capability disabled) is a refused command line.
      const names = tools.names();
      if (!names.includes(tool)) throw new UsageError(`No tool ${JSON.stringify(tool)} in this configuration; the tools are ${names.join(", ")}`);
      const result = await tools.call(tool, args);
      io.out(flags.json ? `${JSON.stringify(tools.json(tool, result))}\n` : `${result.ok ? result.text : errorText(result.error)}\n`);
      return result.ok ? 0 : 1;
    },
  )
    .addOption(options.workspace())
    .addOption(options.config())
    .addOption(options.agent())
    .addOption(options.budget("wall-clock budget of the call; a shell command's timeout is clamped to it"))
    .addOption(options.approve())
    .addOption(options.json('print one JSON object: {"ok": true, "text", "attachments"} (shell: {"ok": true, "exitCode", "output", "truncated", "files"}) or {"ok": false, "error"}'));
}

function parseArgsJson(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`Cannot parse ARGS_JSON ${quote(text)}: ${(error as Error).message}; pass one JSON object, e.g. '{"path": "README.md"}'`);
  }
}
