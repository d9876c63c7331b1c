// gg logs: what the shell's logs hold on this machine, and `gg logs clean` to remove those no running command holds.
import { Argument, Option } from "commander";
import { plural } from "../host/lines.ts";
import { cleanShellLogs, LOG_RETENTION, listShellLogs, SHELL_LOG_DIR, type ShellLog } from "../host/logs.ts";
import { defineCommand, type Io, options } from "./command.ts";

interface LogsFlags {
  dir?: string;
  json?: boolean;
}

export function logsCommand(io: Io) {
  return defineCommand(
    io,
    "logs",
    `show the shell's logs (kept ${LOG_RETENTION.maxAgeMs / 86_400_000} days and within ${LOG_RETENTION.maxBytes / 1024 ** 3} GiB, older ones removed as commands start); clean removes every log no running command holds`,
    ["gg logs", "gg logs clean"],
    async (action: "clean" | undefined, flags: LogsFlags) => {
      const dir = flags.dir ?? SHELL_LOG_DIR;
      if (action === "clean") {
        const removed = cleanShellLogs(dir);
        io.out(flags.json ? `${JSON.stringify({ ok: true, dir, ...removed })}\n` : `Removed ${plural(removed.files, "file")} (${megabytes(removed.bytes)}) from ${dir}.\n`);
        return 0;
      }
      const logs = listShellLogs(dir);
      if (flags.json) io.out(`${JSON.stringify({ ok: true, dir, logs })}\n`);
      else io.out(`${summary(logs, dir)}\n`);
      return 0;
    },
  )
    .addArgument(new Argument("[action]", "clean: remove every log no running command holds").choices(["clean"]))
    .addOption(new Option("--dir <dir>", `the log folder (default ${SHELL_LOG_DIR})`))
    .addOption(options.json("print the logs (path, bytes, modifiedMs, held), or what clean removed, as JSON"));
}

function summary(logs: ShellLog[], dir: string): string {
  if (logs.length === 0) return `No shell logs in ${dir}.`;
  const bytes = logs.reduce((sum, log) => sum + log.bytes, 0);
  const held = logs.filter((log) => log.held).length;
  const oldest = new Date(logs[0]?.modifiedMs ?? 0).toISOString().slice(0, 16).replace("T", " ");
  return `${plural(logs.length, "shell log file")} (${megabytes(bytes)}) in ${dir}, the oldest written ${oldest} UTC; ${held} held by running commands. gg logs clean removes the others.`;
}

const megabytes = (bytes: number): string => `${(bytes / 1024 ** 2).toFixed(1)} MB`;
