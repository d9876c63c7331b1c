// Runs as the console shows them: the transcripts found under the folders it was given, each summed up for the list
// from its first and last lines, and read whole (all but its requests' bodies) for its page.
import { createHash } from "node:crypto";
import type { Stats } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { type Bands, bandsTotal } from "../agent/bands.ts";
import type { AgentReport, CallOutcome, TurnRecord, VisionEvent } from "../agent/loop.ts";
import type { Retry } from "../agent/provider.ts";
import type { TranscriptStart } from "../agent/transcript.ts";
import { usageOf } from "../agent/usage.ts";
import { reportProblem } from "./report_check.ts";
import type { RunFile } from "./walk.ts";

/** A .jsonl file that is not a run the console can show, and why. */
export interface SkippedFile {
  id: string;
  file: string;
  /** What is wrong with it, e.g. "its first line is not a transcript's start line". */
  reason: string;
}

/** One run in the list. */
export interface RunSummary {
  id: string;
  file: string;
  /** The folder given that holds it, so one trial's transcripts from three folders read as three. */
  folder: string;
  /** When the transcript was last written (ISO time). */
  modified: string;
  model: string;
  arm: string;
  task: string;
  agent?: string;
  turns: number;
  /** gg's estimate of every request, added up (tokens); null for a run that has no end line. */
  entered: number | null;
  /** The provider's count, prompt plus completion (tokens); null when it gave none. */
  billed: number | null;
  /** "answered", an error code, or "unfinished" (no end line). */
  outcome: string;
  visionRefusals: number;
}

/** One turn on a run's page: gg's estimate by band and the provider's count. */
export interface RunTurn {
  turn: number;
  estimate: Bands;
  usage?: TurnRecord["usage"];
  calls: number;
  /** Each request sent again, with why (a status and the provider's message, or the network failure). */
  retries: Retry[];
  elapsedMs: number;
  /** The model's reply: its text, and its tool calls' names (tools arm). */
  reply?: string;
}

/** A run's page. */
export interface RunDetail extends RunSummary {
  start: TranscriptStart;
  turnsList: RunTurn[];
  /**
   * Each call with the turn that made it (0 when the transcript does not say), and the text the model was told of it
   * (a tool result, a program's report) when the last request holds it.
   */
  calls: (CallOutcome & { turn: number; result?: string })[];
  visionEvents: VisionEvent[];
  filesChanged: AgentReport["filesChanged"] | null;
  /** The provider's counts added up, from the end line; null without one. */
  usage: AgentReport["totals"]["usage"] | null;
  answer: string | null;
  error: AgentReport["error"] | null;
  /** The views of the last request (code arm): each message's parts as text, pictures named by type, hash and size. */
  views: string[][];
}

const parse = (line: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

const isStart = (entry: Record<string, unknown> | undefined): entry is Record<string, unknown> & TranscriptStart =>
  entry?.type === "start" && typeof entry.model === "string" && typeof entry.task === "string";

/** Sums of a report's turns: entered as docs/context.md defines it (every request's estimate added up), billed. */
function figures(report: AgentReport | undefined): Pick<RunSummary, "entered" | "billed"> {
  if (!report?.totals) return { entered: null, billed: null };
  const { estimate, usage, turnsWithoutUsage } = report.totals;
  const entered = bandsTotal(estimate);
  const billed = turnsWithoutUsage === report.turns.length ? null : usage.promptTokens + usage.completionTokens;
  return { entered, billed };
}

const outcomeOf = (report: AgentReport | undefined): string => (report === undefined ? "unfinished" : report.ok ? "answered" : (report.error?.code ?? "failed"));

/** Summaries cached by file, kept while its size and time are the same. */
const summaries = new Map<string, { stamp: string; summary: RunSummary | SkippedFile }>();

/** Whether a listing is a file skipped rather than a run. */
export const isSkipped = (entry: RunSummary | SkippedFile): entry is SkippedFile => "reason" in entry;

/** The list entry of a transcript, or why the file is skipped (a study's trials.jsonl, a report edited by hand). */
export async function summarize(run: RunFile): Promise<RunSummary | SkippedFile> {
  let stamp: string;
  let text: string;
  let stats: Stats;
  try {
    stats = await stat(run.file);
    stamp = `${stats.size}:${stats.mtimeMs}`;
    const cached = summaries.get(run.file);
    if (cached?.stamp === stamp) return { ...cached.summary, id: run.id };
    text = await readFile(run.file, "utf8");
  } catch (error) {
    return { id: run.id, file: run.file, reason: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  const summary = summarizeText(run, text, new Date(stats.mtimeMs).toISOString());
  summaries.set(run.file, { stamp, summary });
  return summary;
}

/** The end line's report, undefined without an end line, or why the end line holds no report. */
function endOf(text: string): { report?: AgentReport; problem?: string } {
  const trimmed = text.trimEnd();
  const last = parse(trimmed.slice(trimmed.lastIndexOf("\n") + 1));
  if (last?.type !== "end") return {};
  const problem = reportProblem(last.report);
  return problem === undefined ? { report: last.report as AgentReport } : { problem };
}

function summarizeText(run: RunFile, text: string, modified: string): RunSummary | SkippedFile {
  const firstEnd = text.indexOf("\n");
  const start = parse(firstEnd < 0 ? text : text.slice(0, firstEnd));
  if (!isStart(start)) return { id: run.id, file: run.file, reason: "it is not a transcript: its first line is not a start line naming a model and a task" };
  const { report, problem } = endOf(text);
  if (problem !== undefined) return { id: run.id, file: run.file, reason: problem };
  const responses = report ? report.turns.length : (text.match(/^\{"type":"response"/gm) ?? []).length;
  return {
    id: run.id,
    file: run.file,
    folder: run.folder,
    modified,
    model: start.model,
    arm: String(start.arm),
    task: start.task,
    ...(typeof start.agent === "string" ? { agent: start.agent } : {}),
    turns: responses,
    ...figures(report),
    outcome: outcomeOf(report),
    visionRefusals: report?.visionEvents?.length ?? 0,
  };
}

/** The text of a message's content: its text parts, pictures named. */
function partsText(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return content.map((part: { type?: string; text?: string; image_url?: { url?: string } }) => (part.type === "text" ? String(part.text ?? "") : `[${part.type ?? "part"} ${part.image_url?.url ?? ""}]`));
}

/** The views of a request: its user messages made of parts (views messages are; the task and reports are plain text). */
function viewsOf(request: unknown): string[][] {
  const messages = (request as { messages?: { role?: string; content?: unknown }[] } | undefined)?.messages;
  if (!Array.isArray(messages)) return [];
  return messages.filter((message) => message.role === "user" && Array.isArray(message.content)).map((message) => partsText(message.content));
}

/**
 * The texts the model was told of its calls, by their sha256 (what a call's outcome records): the tool messages and
 * the plain user messages (program reports) of the last request, which holds the whole conversation.
 */
function resultsOf(request: unknown): Map<string, string> {
  const results = new Map<string, string>();
  const messages = (request as { messages?: { role?: string; content?: unknown }[] } | undefined)?.messages;
  for (const message of Array.isArray(messages) ? messages : []) {
    if (message.role !== "tool" && message.role !== "user") continue;
    const text = typeof message.content === "string" ? message.content : Array.isArray(message.content) ? String((message.content[0] as { text?: unknown } | undefined)?.text ?? "") : "";
    results.set(createHash("sha256").update(text).digest("hex"), text);
  }
  return results;
}

/** The reply of a response line: its text and its tool calls' names. */
function replyOf(completion: unknown): string | undefined {
  const message = (completion as { choices?: { message?: { content?: unknown; tool_calls?: { function?: { name?: string } }[] } }[] } | undefined)?.choices?.[0]?.message;
  if (!message) return undefined;
  const text = partsText(message.content).join("\n");
  const calls = (message.tool_calls ?? []).map((call) => call.function?.name ?? "?");
  return [text, ...(calls.length > 0 ? [`[tool calls: ${calls.join(", ")}]`] : [])].filter((part) => part !== "").join("\n");
}

/** A run's page, read from its transcript; why the file is skipped when it is not a run. */
export async function readRun(run: RunFile): Promise<RunDetail | SkippedFile> {
  const [text, stats] = await Promise.all([readFile(run.file, "utf8"), stat(run.file)]);
  const summary = summarizeText(run, text, new Date(stats.mtimeMs).toISOString());
  if (isSkipped(summary)) return summary;
  let start: TranscriptStart | undefined;
  let lastRequest: string | undefined;
  const calls: (CallOutcome & { turn: number })[] = [];
  const replies = new Map<number, string>();
  const usages = new Map<number, TurnRecord["usage"]>();
  const retries = new Map<number, Retry[]>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    // A request holds the whole conversation so far: only the last one is read (for its views).
    if (line.startsWith('{"type":"request"')) {
      lastRequest = line;
      continue;
    }
    const entry = parse(line);
    if (entry?.type === "start") start = entry as unknown as TranscriptStart;
    else if (entry?.type === "call" && typeof (entry.outcome as CallOutcome | undefined)?.name === "string") calls.push({ ...(entry.outcome as CallOutcome), turn: Number(entry.turn) || 0 });
    else if (entry?.type === "response") {
      const turn = Number(entry.turn);
      const reply = replyOf(entry.completion);
      if (reply !== undefined) replies.set(turn, reply);
      if (Array.isArray(entry.retries)) retries.set(turn, entry.retries as Retry[]);
      const usage = usageOf((entry.completion as { usage?: unknown } | undefined)?.usage);
      if (usage) usages.set(turn, usage);
    } else if (entry?.type === "request") lastRequest = line;
  }
  const report = endOf(text).report;
  const zero: Bands = { system: 0, tools: 0, messages: 0, toolResults: 0, views: 0 };
  // Without an end line, the turns are the answers recorded, with no estimate.
  const turns: RunTurn[] = report
    ? report.turns.map((turn) => ({ turn: turn.turn, estimate: turn.estimate, ...(turn.usage ? { usage: turn.usage } : {}), calls: turn.calls, retries: turn.retries, elapsedMs: turn.elapsedMs, ...(replies.has(turn.turn) ? { reply: replies.get(turn.turn) } : {}) }))
    : [...replies.keys()].map((turn) => ({ turn, estimate: zero, ...(usages.has(turn) ? { usage: usages.get(turn) } : {}), calls: calls.filter((call) => call.turn === turn).length, retries: retries.get(turn) ?? [], elapsedMs: 0, reply: replies.get(turn) }));
  const request = lastRequest === undefined ? undefined : parse(lastRequest)?.request;
  const results = resultsOf(request);
  const told = (call: CallOutcome & { turn: number }): CallOutcome & { turn: number; result?: string } => (results.has(call.hash) ? { ...call, result: results.get(call.hash) } : call);
  return {
    ...summary,
    start: start as TranscriptStart,
    turnsList: turns,
    calls: (calls.length > 0 || !report ? calls : report.calls.map((call) => ({ ...call, turn: 0 }))).map(told),
    visionEvents: report?.visionEvents ?? [],
    filesChanged: report?.filesChanged ?? null,
    usage: report?.totals?.usage ?? null,
    answer: report?.answer ?? null,
    error: report?.error ?? null,
    views: viewsOf(request),
  };
}
