// Runs as the console shows them: the transcripts found under the folders it was given, each summed up for the list
// from its first and last lines, and read whole (all but its requests' bodies) for its page.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type { AgentReport, Bands, CallOutcome, TurnRecord, VisionEvent } from "../agent/loop.ts";
import type { TranscriptStart } from "../agent/transcript.ts";
import { usageOf } from "../agent/usage.ts";

/** A transcript the console may read: its id (how the page names it) and its file. */
export interface RunFile {
  /** The folder's index among those given and the path under it, e.g. "0/study/a/1.jsonl". */
  id: string;
  file: string;
}

/** One run in the list. */
export interface RunSummary {
  id: string;
  file: string;
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
  retries: number;
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
  answer: string | null;
  error: AgentReport["error"] | null;
  /** The views of the last request (code arm): each message's parts as text, pictures named by type, hash and size. */
  views: string[][];
}

/** Every *.jsonl file under `dirs`, recursively, in path order. */
export function runFiles(dirs: readonly string[]): RunFile[] {
  const found: RunFile[] = [];
  dirs.forEach((dir, index) => {
    let names: string[];
    try {
      names = readdirSync(dir, { recursive: true, encoding: "utf8" });
    } catch {
      return;
    }
    for (const name of names.sort()) {
      if (!name.endsWith(".jsonl")) continue;
      const file = join(dir, name);
      try {
        if (!statSync(file).isFile()) continue;
      } catch {
        continue;
      }
      found.push({ id: `${index}/${relative(dir, file).split("\\").join("/")}`, file });
    }
  });
  return found;
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

/** Sums of a report's turns. */
function figures(report: AgentReport | undefined): Pick<RunSummary, "entered" | "billed"> {
  if (!report?.totals) return { entered: null, billed: null };
  const { estimate, usage, turnsWithoutUsage } = report.totals;
  const entered = estimate.system + estimate.tools + estimate.messages + estimate.toolResults + estimate.views;
  const billed = turnsWithoutUsage === report.turns.length ? null : usage.promptTokens + usage.completionTokens;
  return { entered, billed };
}

const outcomeOf = (report: AgentReport | undefined): string => (report === undefined ? "unfinished" : report.ok ? "answered" : (report.error?.code ?? "failed"));

/** Summaries cached by file, kept while its size and time are the same. */
const summaries = new Map<string, { stamp: string; summary: RunSummary | undefined }>();

/** The list entry of a transcript, or undefined when the file is not one (a study's trials.jsonl, say). */
export function summarize(run: RunFile): RunSummary | undefined {
  let stamp: string;
  try {
    const stats = statSync(run.file);
    stamp = `${stats.size}:${stats.mtimeMs}`;
  } catch {
    return undefined;
  }
  const cached = summaries.get(run.file);
  if (cached?.stamp === stamp) return cached.summary && { ...cached.summary, id: run.id };
  const summary = summarizeText(run, readFileSync(run.file, "utf8"));
  summaries.set(run.file, { stamp, summary });
  return summary;
}

function summarizeText(run: RunFile, text: string): RunSummary | undefined {
  const firstEnd = text.indexOf("\n");
  const start = parse(firstEnd < 0 ? text : text.slice(0, firstEnd));
  if (!isStart(start)) return undefined;
  const lastLine = text.trimEnd().slice(text.trimEnd().lastIndexOf("\n") + 1);
  const last = parse(lastLine);
  const report = last?.type === "end" ? (last.report as AgentReport) : undefined;
  const responses = report ? report.turns.length : (text.match(/^\{"type":"response"/gm) ?? []).length;
  return {
    id: run.id,
    file: run.file,
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

/** A run's page, read from its transcript; undefined when the file is not a transcript. */
export function readRun(run: RunFile): RunDetail | undefined {
  const text = readFileSync(run.file, "utf8");
  const summary = summarizeText(run, text);
  if (!summary) return undefined;
  let start: TranscriptStart | undefined;
  let report: AgentReport | undefined;
  let lastRequest: string | undefined;
  const calls: (CallOutcome & { turn: number })[] = [];
  const replies = new Map<number, string>();
  const usages = new Map<number, TurnRecord["usage"]>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    // A request holds the whole conversation so far: only the last one is read (for its views).
    if (line.startsWith('{"type":"request"')) {
      lastRequest = line;
      continue;
    }
    const entry = parse(line);
    if (entry?.type === "start") start = entry as unknown as TranscriptStart;
    else if (entry?.type === "end") report = entry.report as AgentReport;
    else if (entry?.type === "call") calls.push({ ...(entry.outcome as CallOutcome), turn: Number(entry.turn) || 0 });
    else if (entry?.type === "response") {
      const turn = Number(entry.turn);
      const reply = replyOf(entry.completion);
      if (reply !== undefined) replies.set(turn, reply);
      const usage = usageOf((entry.completion as { usage?: unknown } | undefined)?.usage);
      if (usage) usages.set(turn, usage);
    } else if (entry?.type === "request") lastRequest = line;
  }
  const zero: Bands = { system: 0, tools: 0, messages: 0, toolResults: 0, views: 0 };
  // Without an end line, the turns are the answers recorded, with no estimate.
  const turns: RunTurn[] = report
    ? report.turns.map((turn) => ({ turn: turn.turn, estimate: turn.estimate, ...(turn.usage ? { usage: turn.usage } : {}), calls: turn.calls, retries: turn.retries.length, elapsedMs: turn.elapsedMs, ...(replies.has(turn.turn) ? { reply: replies.get(turn.turn) } : {}) }))
    : [...replies.keys()].map((turn) => ({ turn, estimate: zero, ...(usages.has(turn) ? { usage: usages.get(turn) } : {}), calls: calls.filter((call) => call.turn === turn).length, retries: 0, elapsedMs: 0, reply: replies.get(turn) }));
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
    answer: report?.answer ?? null,
    error: report?.error ?? null,
    views: viewsOf(request),
  };
}
