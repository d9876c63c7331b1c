// A run report as the model reads it: what it printed, what it returned (compact JSON), or the error with where it
// happened and the calls made before it; never the program, which the model has. The next message of a code agent's
// loop, and run_program's text over MCP.
import { errorText } from "../bindings/define.ts";
import { plural } from "../host/lines.ts";
import type { RunReport } from "../runtime/index.ts";

/** The text of a run report for the model. */
export function reportText(report: RunReport): string {
  const parts: string[] = report.stateLost ? [report.stateLost] : [];
  if (report.logs.length > 0 || report.logsDropped > 0) {
    const lines = report.logs.map((entry) => `${entry.level === "log" ? "" : `[${entry.level}] `}${entry.text}`);
    if (report.logsDropped > 0) lines.push(`[${plural(report.logsDropped, "more entry", "more entries")} dropped at the log limit]`);
    parts.push(`Console:\n${lines.join("\n")}`);
  }
  // Compact JSON: indentation would cost the model's window about two fifths more for nothing it reads.
  if (report.ok) parts.push(`Returned:\n${JSON.stringify(report.result ?? null)}`);
  else if (report.error) {
    const { code, message, line, column, problems } = report.error;
    const where = line === undefined || problems ? "" : ` (line ${line}, column ${column})`;
    parts.push(`${errorText({ code, message })}${where}`);
    if (report.calls.length > 0) parts.push(`Calls made before it ended: ${callsMade(report)}`);
  }
  if (report.stale) parts.push(`Stale views:\n${report.stale.join("\n")}`);
  return parts.join("\n\n");
}

/** A run's calls in order with their state: "files.writeFile ok, shell.shell unfinished, and 3 more". */
export function callsMade(report: Pick<RunReport, "calls" | "callsDropped">): string {
  const calls = report.calls.map((call) => `${call.name} ${call.unfinished ? "unfinished" : call.ok ? "ok" : `failed (${call.code})`}`);
  return `${calls.join(", ")}${report.callsDropped > 0 ? `, and ${report.callsDropped} more` : ""}`;
}
