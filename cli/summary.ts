// What `gg agent` tells a person on stderr in text mode: a line per turn, a line per retry as it is decided, and a
// closing summary of the run (turns, calls by name, files changed, tokens, cost, wall time). Stdout keeps the answer.
import { type AgentReport, bandsTotal, type CallOutcome, type TurnRecord } from "../agent/loop.ts";
import type { Pricing } from "../agent/pricing.ts";
import type { Arm } from "../agent/prompts.ts";
import type { Retry } from "../agent/provider.ts";
import type { Usage } from "../agent/usage.ts";
import { dollars, grouped, plural, seconds } from "../host/lines.ts";

/** Names a file list shows before "and N more". */
const NAMES_SHOWN = 5;

/** " (64 cached, 100 written to the cache)": what the provider said of its prompt cache, or "" when it said nothing. */
function cacheNote(usage: Usage, grouping: (count: number) => string): string {
  const parts = [...(usage.cachedTokens ? [`${grouping(usage.cachedTokens)} cached`] : []), ...(usage.cacheWriteTokens ? [`${grouping(usage.cacheWriteTokens)} written to the cache`] : [])];
  return parts.length > 0 ? ` (${parts.join(", ")})` : "";
}

/** `retry 2/4 in 1.0 s: 503`, or the network failure named in place of the status. */
export const retryLine = (retry: Retry, maxRetries: number): string => `retry ${retry.attempt}/${maxRetries} in ${seconds(retry.waitMs)}: ${retry.status ?? retry.reason}\n`;

/** `[turn 2] 100 in (40 cached), 10 out (gg's estimate 95 in), 1 call, 1 retry, 3.2 s`: `elapsedMs` since the start. */
export function turnLine(turn: TurnRecord, arm: Arm, elapsedMs: number): string {
  const { usage } = turn;
  const billed = usage ? `${usage.promptTokens} in${cacheNote(usage, String)}, ${usage.completionTokens} out` : "usage not reported";
  const retries = turn.retries.length > 0 ? `, ${plural(turn.retries.length, "retry", "retries")}` : "";
  return `[turn ${turn.turn}] ${billed} (gg's estimate ${bandsTotal(turn.estimate)} in), ${plural(turn.calls, arm === "tools" ? "call" : "program")}${retries}, ${seconds(elapsedMs)}\n`;
}

/** Calls counted by name in the order first made: "read_file 2, edit_file 1 (1 failed), shell 2 (2 in the sandbox)". */
function byName(calls: { name: string; ok: boolean; sandbox?: string }[]): string {
  const seen = new Map<string, { made: number; failed: number; confined: number }>();
  for (const call of calls) {
    const entry = seen.get(call.name) ?? { made: 0, failed: 0, confined: 0 };
    entry.made++;
    if (!call.ok) entry.failed++;
    if (call.sandbox) entry.confined++;
    seen.set(call.name, entry);
  }
  return [...seen]
    .map(([name, { made, failed, confined }]) => {
      const notes = [...(failed > 0 ? [`${failed} failed`] : []), ...(confined > 0 ? [`${confined} in the sandbox`] : [])];
      return `${name} ${made}${notes.length > 0 ? ` (${notes.join(", ")})` : ""}`;
    })
    .join(", ");
}

/** The calls line: the tool calls by name, or the programs and the gg calls they made by name. */
function callsLine(calls: CallOutcome[], arm: Arm): string {
  if (calls.length === 0) return "none";
  if (arm === "tools") return `${grouped(calls.length)}: ${byName(calls)}`;
  const failed = calls.filter((call) => !call.ok).length;
  const inner = calls.flatMap((call) => call.calls ?? []);
  const dropped = calls.reduce((sum, call) => sum + (call.callsDropped ?? 0), 0);
  const programs = `${plural(calls.length, "program")}${failed > 0 ? ` (${failed} failed)` : ""}`;
  if (inner.length === 0) return `${programs}, no gg calls`;
  return `${programs}, ${plural(inner.length + dropped, "gg call")}: ${byName(inner)}${dropped > 0 ? `, and ${grouped(dropped)} not listed` : ""}`;
}

/** The files line: "1 created (b.txt), 2 modified (a.txt, c.txt)", each list cut at a few names. */
function filesLine(changed: AgentReport["filesChanged"]): string {
  const kinds = (["created", "modified", "deleted"] as const).filter((kind) => changed[kind].length > 0);
  if (kinds.length === 0) return "none changed";
  return kinds
    .map((kind) => {
      const paths = changed[kind];
      const more = paths.length > NAMES_SHOWN ? `, and ${grouped(paths.length - NAMES_SHOWN)} more` : "";
      return `${grouped(paths.length)} ${kind} (${paths.slice(0, NAMES_SHOWN).join(", ")}${more})`;
    })
    .join(", ");
}

/** The tokens line: billed as the provider counted them, entered as gg estimated what it sent. */
function tokensLine(report: AgentReport): string {
  const { usage, turnsWithoutUsage, estimate } = report.totals;
  const entered = `entered ${grouped(bandsTotal(estimate))} in (gg's estimate)`;
  if (report.turns.length === 0) return "none billed";
  if (turnsWithoutUsage === report.turns.length) return `billed: not reported by the provider; ${entered}`;
  const cached = cacheNote(usage, grouped);
  const missing = turnsWithoutUsage > 0 ? `, not reported for ${plural(turnsWithoutUsage, "turn")}` : "";
  return `billed ${grouped(usage.promptTokens + usage.completionTokens)}: ${grouped(usage.promptTokens)} in${cached}, ${grouped(usage.completionTokens)} out${missing}; ${entered}`;
}

/** The cost line (the report's cost, reckoned request by request), or undefined when the catalog has no prices for the model. */
function costLine(report: AgentReport, pricing: Pricing | undefined): string | undefined {
  const { usage, turnsWithoutUsage, cost } = report.totals;
  if (!pricing || cost === null) return undefined;
  const notes = [
    ...(turnsWithoutUsage > 0 ? [`${plural(turnsWithoutUsage, "turn")} without usage not counted`] : []),
    ...(usage.cachedTokens && pricing.input_cache_read === undefined ? ["cached tokens at the prompt price"] : []),
    ...(usage.cacheWriteTokens && pricing.input_cache_write === undefined ? ["cache writes at the prompt price"] : []),
  ];
  return `${dollars(cost)} at the catalog's prices${notes.length > 0 ? ` (${notes.join("; ")})` : ""}`;
}

/** The closing summary of a run, a labelled line each (run, calls, files, tokens, cost); `wallMs` is the command's time. */
export function summaryText(report: AgentReport, run: { arm: Arm; wallMs: number; pricing?: Pricing }): string {
  const retries = report.totals.retries > 0 ? `, ${plural(report.totals.retries, "retry", "retries")}` : "";
  const lines: [string, string | undefined][] = [
    ["run", `${plural(report.turns.length, "turn")} in ${seconds(run.wallMs)}${retries}`],
    ["calls", callsLine(report.calls, run.arm)],
    ["files", filesLine(report.filesChanged)],
    ["tokens", tokensLine(report)],
    ["cost", costLine(report, run.pricing)],
  ];
  return lines.flatMap(([label, text]) => (text === undefined ? [] : [`${label.padEnd(8)}${text}\n`])).join("");
}
