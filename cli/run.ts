// gg run: a program (JS or TS, the body of an async function) against the gg global; exit 0 when it finished, 1 when
// it failed or was stopped. The runtime is loaded only when the command runs (cli/run_program.ts).
import { defineCommand, type Io, options } from "./command.ts";
import type { RunFlags } from "./run_program.ts";

export function runCommand(io: Io) {
  return defineCommand(
    io,
    "run <program>",
    "run a program (JS or TS, the body of an async function) against the gg global; - reads it from stdin",
    ["gg run examples/todos.ts", `echo 'return (await gg.files.listDir()).entries.length' | gg run - --check`],
    async (file: string, flags: RunFlags) => await (await import("./run_program.ts")).runProgram(file, flags, io),
  )
    .addOption(options.workspace())
    .addOption(options.config())
    .addOption(options.mcpConfig())
    .addOption(options.agent())
    .addOption(options.budget("wall-clock budget of the program (default 120); a shell command's timeout is clamped to it"))
    .addOption(options.cpu())
    .addOption(options.memory())
    .addOption(options.check())
    .addOption(options.warmCap())
    .addOption(options.approve())
    .addOption(options.json("print the run report as one JSON object"));
}
