// Transcripts and replay: a run written as JSON Lines (its start, every request with its pictures as hash and size,
// every answer, every call's outcome, its end), and a provider that answers from a transcript, so a recorded run is
// re-executed against a workspace without a model and its outcomes compared.
import { withoutServerSecrets } from "../bindings/mcp_config.ts";
import { createHash } from "node:crypto";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { structuredPatch } from "diff";
import type { ChatCompletion } from "openai/resources/chat/completions";
import { type AgentOptions, type AgentReport, type CallOutcome, hashOf, type LoopRecord } from "./loop.ts";
import type { Arm } from "./prompts.ts";
import type { Provider } from "./provider.ts";
import { makeFolder } from "../host/folders.ts";

/** The first line of a transcript: what a replay needs to run the same agent again. */
export interface TranscriptStart {
  type: "start";
  model: string;
  arm: Arm;
  task: string;
  config?: unknown;
  agent?: string;
  /** Files read whole into the opening context (a study case's specs). */
  specs?: string[];
  /** The workspace the run acted on (absolute): where a replay runs when given no other. */
  workspace?: string;
}

/** One line of a transcript. */
export type TranscriptEntry = TranscriptStart | LoopRecord | { type: "end"; report: AgentReport };

/** A picture in a request, as a transcript keeps it: its hash and size, never its bytes. */
const redact = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value), (key, inner: unknown) => {
    if (key !== "url" || typeof inner !== "string" || !inner.startsWith("data:")) return inner;
    const base64 = inner.slice(inner.indexOf(",") + 1);
    const bytes = Buffer.from(base64, "base64");
    return `picture:${inner.slice(5, inner.indexOf(";"))};sha256=${hashBytes(bytes)};bytes=${bytes.length}`;
  });

const hashBytes = (bytes: Buffer): string => createHash("sha256").update(bytes).digest("hex");

/**
 * Writes a transcript to `file` (replacing it): returns the loop's hooks and the closing line. `scrub` is applied to
 * every line written (the command line's takes the API key out, wherever the model may have found it).
 */
export function transcriptWriter(file: string, start: Omit<TranscriptStart, "type">, scrub: (text: string) => string = (text) => text) {
  makeFolder(dirname(resolve(file)));
  // The servers' secrets stay out: a replay runs no server, and reads the rules alone of the configuration.
  writeFileSync(file, scrub(`${JSON.stringify({ type: "start", ...start, ...(start.config === undefined ? {} : { config: withoutServerSecrets(start.config) }) })}\n`));
  const write = (entry: TranscriptEntry): void => appendFileSync(file, scrub(`${JSON.stringify(entry.type === "request" ? { ...entry, request: redact(entry.request) } : entry)}\n`));
  return { onRecord: write, end: (report: AgentReport): void => write({ type: "end", report }) };
}

/** A transcript that cannot be replayed, naming the line. */
export class TranscriptError extends Error {}

/** Reads a transcript, refusing it at its first bad line. */
export function readTranscript(file: string): { start: TranscriptStart; entries: TranscriptEntry[] } {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new TranscriptError(`Cannot read the transcript ${file}: ${(error as Error).message}`);
  }
  const entries: TranscriptEntry[] = [];
  text.split("\n").forEach((line, index) => {
    if (line === "") return;
    let entry: { type?: unknown };
    try {
      entry = JSON.parse(line) as { type?: unknown };
    } catch (error) {
      throw new TranscriptError(`Cannot replay ${file}: line ${index + 1} is not JSON (${(error as Error).message})`);
    }
    if (!["start", "request", "response", "call", "end"].includes(entry.type as string)) throw new TranscriptError(`Cannot replay ${file}: line ${index + 1} is not a transcript entry`);
    if ((entry.type === "start") !== (index === 0)) throw new TranscriptError(`Cannot replay ${file}: line ${index + 1}: a transcript starts with its one "start" line`);
    entries.push(entry as TranscriptEntry);
  });
  const start = entries[0];
  if (start?.type !== "start" || typeof start.model !== "string" || typeof start.task !== "string" || (start.arm !== "tools" && start.arm !== "code")) {
    throw new TranscriptError(`Cannot replay ${file}: line 1 must be the start of a run (model, arm, task)`);
  }
  return { start, entries };
}

/** A provider answering with a transcript's recorded answers, in order; past them, the run ends with an error. */
export function replayProvider(entries: TranscriptEntry[]): Provider {
  const answers = entries.flatMap((entry) => (entry.type === "response" ? [entry.completion as ChatCompletion] : []));
  return {
    complete: async () => {
      const completion = answers.shift();
      if (!completion) throw new Error("The transcript has no more answers");
      return { completion, retries: [] };
    },
  };
}

/** Lines of difference a replay shows for one call's result at most. */
const DIFF_LINES = 40;

/** The texts a run's requests told the model (tool results, programs' reports), by their hash: what a difference shows. */
export function toldTexts(entries: readonly TranscriptEntry[]): Map<string, string> {
  const texts = new Map<string, string>();
  for (const entry of entries) {
    if (entry.type !== "request") continue;
    for (const message of entry.request.messages) {
      if (message.role !== "tool" && message.role !== "user") continue;
      const content: unknown = message.content;
      const text = typeof content === "string" ? content : Array.isArray(content) ? (content as { type?: string; text?: string }[]).find((part) => part.type === "text")?.text : undefined;
      if (text !== undefined) texts.set(hashOf(text), text);
    }
  }
  return texts;
}

/** The lines that changed between two results, as a unified diff cut at {@link DIFF_LINES} lines. */
function textDifference(then: string, now: string): string {
  // Results rarely end in a newline: when neither does, jsdiff's "\ No newline at end of file" says nothing.
  const ended = (text: string): string => (then.endsWith("\n") || now.endsWith("\n") ? text : `${text}\n`);
  const lines = structuredPatch("then", "now", ended(then), ended(now), "", "", { context: 1 }).hunks.flatMap((hunk) => [`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`, ...hunk.lines]);
  const shown = lines.slice(0, DIFF_LINES).map((line) => `  ${line}`);
  if (lines.length > DIFF_LINES) shown.push(`  (${lines.length - DIFF_LINES} more lines of difference)`);
  return ["  --- then", "  +++ now", ...shown].join("\n");
}

/**
 * Where a replay's outcomes differ from the recorded ones, call by call. With the texts each run told the model
 * ({@link toldTexts}), a different result shows the lines that changed; else its hashes.
 */
export function differences(recorded: CallOutcome[], replayed: CallOutcome[], told?: { then: Map<string, string>; now: Map<string, string> }): string[] {
  const found: string[] = [];
  for (let i = 0; i < Math.max(recorded.length, replayed.length); i++) {
    const then = recorded[i];
    const now = replayed[i];
    if (!then || !now) {
      found.push(`call ${i + 1}: ${then ? `${then.name} was made then, not now` : `${now?.name} is made now, not then`}`);
      continue;
    }
    const state = (outcome: CallOutcome): string => (outcome.ok ? "succeeded" : `failed with ${outcome.code}`);
    if (then.name !== now.name) found.push(`call ${i + 1}: ${then.name} then, ${now.name} now`);
    else if (then.ok !== now.ok || then.code !== now.code) found.push(`call ${i + 1} (${now.name}): ${state(then)} then, ${state(now)} now`);
    else if (then.hash !== now.hash) {
      const [before, after] = [told?.then.get(then.hash), told?.now.get(now.hash)];
      found.push(before !== undefined && after !== undefined ? `call ${i + 1} (${now.name}): a different result:\n${textDifference(before, after)}` : `call ${i + 1} (${now.name}): a different result (sha256 ${then.hash.slice(0, 12)} then, ${now.hash.slice(0, 12)} now)`);
    }
  }
  return found;
}

/**
 * The options of a run that re-executes a transcript's recorded answers against `workspace`, its calls taking the
 * recorded approvals (no one is asked: a call the recording holds no decision for is decided as configured, an ask
 * being a deny).
 */
export function replayOptions(start: TranscriptStart, entries: TranscriptEntry[], workspace: string): AgentOptions {
  return {
    provider: replayProvider(entries),
    recorded: recordedCalls(entries),
    model: start.model,
    arm: start.arm,
    task: start.task,
    workspace,
    ...(start.config === undefined ? {} : { config: start.config }),
    ...(start.agent === undefined ? {} : { agent: start.agent }),
    ...(start.specs === undefined ? {} : { specs: start.specs }),
  };
}

/** The recorded calls of a transcript. */
export const recordedCalls = (entries: TranscriptEntry[]): CallOutcome[] => entries.flatMap((entry) => (entry.type === "call" ? [entry.outcome] : []));
