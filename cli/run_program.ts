// gg run's work: the program read, run against the gg global with its logs printed as they come, and its report said.
import { readFileSync } from "node:fs";
import { errorText } from "../bindings/define.ts";
import { shownPath } from "../host/paths.ts";
import { stopCommandsOnSignals } from "../host/shell.ts";
import { callsMade } from "../agent/report.ts";
import { plural } from "../host/lines.ts";
import { createRuntime, type RunError, type RunReport } from "../runtime/index.ts";
import { blankReport } from "../runtime/report.ts";
import { type RunOptions, runProblems } from "../runtime/limits.ts";
import type { ViewSummary } from "../runtime/views.ts";
import { approverFor } from "./approve.ts";
import { agentOf, type Common, type Io, loadConfiguration, signalWords, UsageError, warmOf, workspaceOf } from "./command.ts";

/** What gg run is given, checked by commander. */
export interface RunFlags extends Common {
  budget?: number;
  cpu?: number;
  memory?: number;
  check?: boolean;
  warmCap?: number;
}

/** gg run FILE: exit 0 when the program finished, 1 when it failed or was stopped. */
export async function runProgram(file: string, flags: RunFlags, io: Io): Promise<number> {
  const source = readProgram(file);
  const config = await loadConfiguration(flags);
  const workspace = workspaceOf(flags.workspace);
  const options = runOptions(file, flags);
  // Logs are printed as they arrive; a signal prints the run so far before gg ends.
  const shown = { logs: 0, report: blankReport() };
  stopCommandsOnSignals((signal) => {
    const cancelled = cancelledReport(shown.report, signal);
    if (flags.json) return io.out(`${JSON.stringify(cancelled)}\n`);
    printLogs(cancelled, shown, io.out);
    io.err(`gg: ${errorText(cancelled.error as RunError)}\n`);
  });
  const runtime = createRuntime({ workspace, config, ...agentOf(flags.agent), approve: approverFor(flags.approve, io.err), ...warmOf(flags.warmCap) });
  try {
    const onProgress = (report: RunReport): void => {
      shown.report = report;
      if (!flags.json) printLogs(report, shown, io.out);
    };
    const report = await runtime.run(source, options, { onProgress });
    if (flags.json) io.out(`${JSON.stringify(report)}\n`);
    else printReport(report, shown, io.out);
    return report.ok ? 0 : 1;
  } finally {
    runtime.close();
  }
}

function readProgram(file: string): string {
  try {
    return readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (error) {
    throw new UsageError(`Cannot read the program ${file}: ${(error as Error).message}`);
  }
}

function runOptions(file: string, flags: RunFlags): RunOptions {
  const options: RunOptions = {
    language: /\.[cm]?js$/.test(file) ? "js" : "ts",
    ...(flags.budget === undefined ? {} : { budget: flags.budget }),
    ...(flags.memory === undefined ? {} : { memory: flags.memory }),
    ...(flags.cpu === undefined ? {} : { limits: { cpuSecs: flags.cpu } }),
    ...(flags.check ? { check: true } : {}),
  };
  const problems = runProblems(options, { budget: "--budget", memory: "--memory", "limits.cpuSecs": "--cpu" });
  if (problems.length > 0) throw new UsageError(`Cannot run with these limits: ${problems.join("; ")}`);
  return options;
}

/** The log entries of `report` not printed yet, printed. */
function printLogs(report: RunReport, shown: { logs: number }, out: (text: string) => void): void {
  for (const entry of report.logs.slice(shown.logs)) out(`${entry.level === "log" ? "" : `[${entry.level}] `}${entry.text}\n`);
  shown.logs = Math.max(shown.logs, report.logs.length);
}

/** The run so far, ended by `signal`: cancelled, naming the calls already made. */
function cancelledReport(report: RunReport, signal: NodeJS.Signals): RunReport {
  const calls = report.calls.length + report.callsDropped;
  const made = calls === 0 ? "no gg calls made" : `after ${plural(calls, "gg call")}: ${callsMade(report)}`;
  return { ...report, ok: false, error: { code: "cancelled", message: `The run was cancelled by ${signalWords(signal)}, ${made}; the commands it started were stopped` } };
}

function printReport(report: RunReport, shown: { logs: number }, out: (text: string) => void): void {
  printLogs(report, shown, out);
  if (report.logsDropped > 0) out(`[${plural(report.logsDropped, "more log entry", "more log entries")} dropped at the log limit]\n`);
  if (report.ok) out(`${typeof report.result === "string" ? report.result : JSON.stringify(report.result, null, 2)}\n`);
  else if (report.error) {
    // A type error's message lists every position already.
    const where = report.error.line === undefined || report.error.problems ? "" : ` (line ${report.error.line}, column ${report.error.column})`;
    out(`${errorText(report.error)}${where}\n`);
  }
  if (report.views.length > 0) out(`[views open: ${report.views.map(describeView).join("; ")}]\n`);
}

/** One open view in a line: what it shows and what it costs. */
function describeView(view: ViewSummary): string {
  const cost = `${view.tokens} tokens`;
  if (view.image) {
    const size = view.image.width ? ` ${view.image.width}x${view.image.height}` : "";
    const state = view.image.retired ? ", retired" : view.image.attached ? "" : ", not attached";
    return `${shownPath(view.path)} (${view.image.format}${size}${state}, ${view.image.estimated ? "~" : ""}${cost})`;
  }
  const window = view.window && view.window.total > 0 ? ` lines ${view.window.first}-${view.window.last} of ${view.window.total}` : " (empty)";
  return `${shownPath(view.path)}${window} (~${cost})`;
}
