// gg call: one tool call, its result printed exactly as the model receives it. The tools are loaded only when the
// command runs (cli/call_tool.ts).
import type { CallFlags } from "./call_tool.ts";
import { defineCommand, type Io, options } from "./command.ts";

export function callCommand(io: Io) {
  return defineCommand(
    io,
    "call <tool> [args_json]",
    "run one tool call and print its result as the model receives it, then a newline (exit 1 when the call fails, 2 when its arguments are refused); gg tools lists the tools and their parameters",
    [`gg call tree '{"depth": 2}'`, `gg call search '{"query": "TODO", "path": "src"}' --json`],
    async (tool: string, argsText: string | undefined, flags: CallFlags) => await (await import("./call_tool.ts")).callTool(tool, argsText, flags, io),
  )
    .addOption(options.workspace())
    .addOption(options.config())
    .addOption(options.mcpConfig())
    .addOption(options.agent())
    .addOption(options.budget("wall-clock budget of the call; a shell command's timeout is clamped to it"))
    .addOption(options.approve())
    .addOption(options.json('print one JSON object: {"ok": true, "text", "attachments"} (shell: {"ok": true, "exitCode", "output", "truncated", "files"}) or {"ok": false, "error"}'));
}
