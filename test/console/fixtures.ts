// What the console's tests and bench show it: real transcripts written by runAgent against the fake provider (a
// code run with a program, a run whose model refused a picture, a run whose replies hold markup), a generated
// 5,000-turn transcript, a catalog, and a study folder.
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ChatCompletion } from "openai/resources/chat/completions";
import type { AgentReport, Bands, TurnRecord } from "../../agent/loop.ts";
import { runAgent } from "../../agent/loop.ts";
import { transcriptWriter, type TranscriptEntry } from "../../agent/transcript.ts";
import type { TrialRecord } from "../../study/trials.ts";
import { call, fakeModel, type Step, type ToolCall } from "../provider.ts";
import { tempWorkspace } from "../workspace.ts";

const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==", "base64");

/** Markup a page must show as text, never run: a script, and an image whose error handler would mark the window. */
export const XSS = `<script>window.__pwned = "script"</script><img src=x onerror="window.__pwned = 'img'">`;

/** What a generated turn answered: text, or tool calls. */
type Reply = { content?: string; tool_calls?: ToolCall[] };

/** A response line's completion, as the loop records one. */
const completion = (reply: Reply, usage: object): ChatCompletion =>
  ({ id: "c", object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, finish_reason: "stop", logprobs: null, message: { role: "assistant", refusal: null, content: null, ...reply } }], usage }) as ChatCompletion;

/** Each request's usage in the recorded runs. */
const USAGE = { prompt_tokens: 1200, completion_tokens: 80, total_tokens: 1280 };

/**
 * Runs an agent against a fresh workspace holding a note and a picture, the fake provider answering `replies` in order
 * (with `refusePictures`, refusing a picture as a text-only model does), recording its transcript at `file`.
 */
async function record(file: string, model: string, arm: "tools" | "code", task: string, replies: Step[], refusePictures = false): Promise<AgentReport> {
  using ws = tempWorkspace();
  ws.put({ "notes.txt": "alpha\nbeta\n", "dot.png": PNG });
  await using fake = await fakeModel(replies, { usage: USAGE, refusePictures });
  const writer = transcriptWriter(file, { model, arm, task });
  const report = await runAgent({ provider: fake.provider, model, arm, task, workspace: ws.root, onRecord: writer.onRecord });
  writer.end(report);
  return report;
}

/** The models the fixtures use. */
export const MODELS = { declared: "acme/sees", learned: "acme/text-only", unknown: "acme/mystery", xss: "acme/xss" } as const;

/** A catalog: one model declaring image input, one declaring none (the learned one, whose refusal a run recorded), one without modalities. */
export function writeCatalog(file: string): void {
  const models = [
    { id: MODELS.declared, context_length: 128000, input_modalities: ["text", "image"], pricing: { prompt: 0.0000025, completion: 0.00001 } },
    { id: MODELS.unknown, context_length: 32000, pricing: { prompt: 0.0000001, completion: 0.0000004 } },
    { id: MODELS.xss, context_length: 8000, input_modalities: ["text"] },
  ];
  writeFileSync(file, `${JSON.stringify({ source: "test", fetched: "2026-01-01", models }, null, 2)}\n`);
}

/** Real runs into `dir`: code.jsonl (a program with calls, then an answer), vision.jsonl (a refused picture), xss.jsonl. */
export async function writeRuns(dir: string): Promise<void> {
  mkdirSync(join(dir, "nested"), { recursive: true });
  const program = "```ts\nconst text = await gg.files.readFile('notes.txt');\nawait gg.files.writeFile('out.txt', text.toUpperCase());\nreturn text.length;\n```";
  await record(join(dir, "code.jsonl"), MODELS.declared, "code", "Upper-case notes.txt into out.txt.", [{ content: program }, { content: "Wrote out.txt." }]);
  await record(join(dir, "nested", "vision.jsonl"), MODELS.learned, "tools", "What is dot.png?", [{ tool_calls: [call("a", "read_file", { path: "dot.png" })] }, { content: "A 1x1 PNG." }], true);
  await record(join(dir, "xss.jsonl"), MODELS.xss, "tools", `Repeat ${XSS}`, [{ tool_calls: [call("a", "write_file", { path: "page.html", content: XSS })] }, { content: `Here: ${XSS}` }]);
}

/** A transcript of `turns` turns, as the loop writes one (small requests: only the figures matter). */
export function writeLongRun(file: string, turns: number): void {
  const lines: TranscriptEntry[] = [{ type: "start", model: MODELS.unknown, arm: "tools", task: "A long run." }];
  const records: TurnRecord[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    const estimate: Bands = { system: 900, tools: 1400, messages: 40 * turn, toolResults: 25 * turn, views: 0 };
    const usage = { promptTokens: 2300 + 65 * turn, completionTokens: 30 };
    const reply = turn === turns ? { content: "Finished." } : { tool_calls: [{ id: `c${turn}`, type: "function" as const, function: { name: "list_dir", arguments: "{}" } }] };
    lines.push({ type: "request", turn, request: { model: MODELS.unknown, messages: [{ role: "user", content: "A long run." }] } });
    lines.push({ type: "response", turn, completion: completion(reply, { prompt_tokens: usage.promptTokens, completion_tokens: 30, total_tokens: usage.promptTokens + 30 }), retries: [] });
    if (turn < turns) lines.push({ type: "call", turn, outcome: { name: "list_dir", args: {}, ok: true, hash: "0".repeat(64) } });
    records.push({ turn, estimate, usage, calls: turn < turns ? 1 : 0, retries: [], elapsedMs: 5 });
  }
  const sum = (band: keyof Bands): number => records.reduce((total, record) => total + record.estimate[band], 0);
  const report: AgentReport = {
    ok: true,
    answer: "Finished.",
    turns: records,
    calls: [],
    visionEvents: [],
    wastedRequests: 0,
    totals: {
      estimate: { system: sum("system"), tools: sum("tools"), messages: sum("messages"), toolResults: sum("toolResults"), views: 0 },
      usage: { promptTokens: records.reduce((total, record) => total + (record.usage?.promptTokens ?? 0), 0), completionTokens: 30 * turns },
      turnsWithoutUsage: 0,
      retries: 0,
      cost: null,
    },
    filesChanged: { created: [], modified: [], deleted: [] },
  };
  lines.push({ type: "end", report });
  writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
}

/** The output of the check of the study's failing trial (add-test/tools/2), and the diff that trial left. */
export const FAILED_CHECK = "FAIL test/a.test.ts > adds\n  expected 3 to be 4\n";
export const FAILED_DIFF = "diff --git a/src/a.ts b/src/a.ts\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-export const add = (a, b) => a + b;\n+export const add = (a, b) => a - b;\n";

/** A study folder: two agents of one model differing in the arm, on two cases, two repeats each, with the trials' transcripts. */
export function writeStudy(dir: string, runsFrom: string): void {
  mkdirSync(join(dir, "transcripts", "fix-typo", "code"), { recursive: true });
  const config = { capabilities: {}, vision: true, agents: {}, openingTurn: { treeDepth: 2, treeTokens: 200, modules: ["files", "shell"] } };
  const agents = [
    { id: "code", model: MODELS.declared, arm: "code", config },
    { id: "tools", model: MODELS.declared, arm: "tools", config },
  ];
  writeFileSync(join(dir, "study.json"), `${JSON.stringify({ agents })}\n`);
  const records: TrialRecord[] = [];
  for (const name of ["fix-typo", "add-test"]) {
    for (const agent of agents) {
      for (const repeat of [1, 2]) {
        const pass = !(agent.arm === "tools" && name === "add-test" && repeat === 2);
        const billed = agent.arm === "code" ? 9000 + repeat * 100 : 14000 + repeat * 100;
        records.push({
          key: `${name}/${agent.id}/${repeat}`,
          case: name,
          agent: agent.id,
          model: agent.model,
          arm: agent.arm as "code" | "tools",
          repeat,
          commit: null,
          pass,
          error: null,
          check: { exitCode: pass ? 0 : 1, ms: 300, output: pass ? "" : FAILED_CHECK },
          turns: agent.arm === "code" ? 3 : 5,
          estimate: { system: 900, tools: 0, messages: 2000, toolResults: 3000, views: 1000, entered: 6900 },
          usage: { prompt: billed - 500, completion: 500, cached: null, cacheWritten: null, turnsWithoutUsage: 0 },
          cost: (billed - 500) * 0.0000025 + 500 * 0.00001,
          agentMs: 4000,
          overheadMs: 300,
          wallMs: 4300,
          retries: 0,
          wastedRequests: 0,
          filesChanged: { created: [], modified: ["src/a.ts"], deleted: [] },
          ended: "2026-01-01T00:00:00.000Z",
        });
      }
    }
  }
  writeFileSync(join(dir, "trials.jsonl"), records.map((line) => `${JSON.stringify(line)}\n`).join(""));
  // Two trials' transcripts, so the grid links to runs: one passed, one whose check failed (with its diff).
  copyFileSync(join(runsFrom, "code.jsonl"), join(dir, "transcripts", "fix-typo", "code", "1.jsonl"));
  mkdirSync(join(dir, "transcripts", "add-test", "tools"), { recursive: true });
  copyFileSync(join(runsFrom, "code.jsonl"), join(dir, "transcripts", "add-test", "tools", "2.jsonl"));
  mkdirSync(join(dir, "diffs", "add-test", "tools"), { recursive: true });
  writeFileSync(join(dir, "diffs", "add-test", "tools", "2.patch"), FAILED_DIFF);
}

/**
 * A runs folder no listing may fail on: a good run (good.jsonl), end lines whose report is null or {}, a .jsonl that
 * is not a transcript, and two link cycles (loop -> ., deep/up -> ..).
 */
export function writeHostileRuns(dir: string): void {
  mkdirSync(join(dir, "deep"), { recursive: true });
  writeLongRun(join(dir, "good.jsonl"), 3);
  const start = JSON.stringify({ type: "start", model: MODELS.unknown, arm: "tools", task: "A report edited by hand." });
  writeFileSync(join(dir, "null-report.jsonl"), `${start}\n${JSON.stringify({ type: "end", report: null })}\n`);
  writeFileSync(join(dir, "deep", "empty-report.jsonl"), `${start}\n${JSON.stringify({ type: "end", report: {} })}\n`);
  writeFileSync(join(dir, "trials.jsonl"), `${JSON.stringify({ key: "a/b/1", pass: true })}\n`);
  symlinkSync(".", join(dir, "loop"));
  symlinkSync("..", join(dir, "deep", "up"));
}

/** Why the console skips each of writeHostileRuns' files that is not a run, by its path under the folder. */
export const HOSTILE_SKIPPED = {
  "deep/empty-report.jsonl": "its end line's report is not a run's report: report must have required properties ok, turns, calls",
  "null-report.jsonl": "its end line's report is null, not a run's report",
  "trials.jsonl": "it is not a transcript: its first line is not a start line naming a model and a task",
} as const;

/** What writeTurnsRun's approvals record, and how the run page words them. */
export const APPROVALS = [
  { approval: { verdict: "allow", by: "default" }, words: "allowed by default" },
  // The part a shell call's rule was about, an agent's text: its U+202E is shown escaped, reordering nothing.
  { approval: { verdict: "deny", by: "rule 2", reason: "no pushes", part: "git push \u202eniam" }, words: "denied by rule 2: no pushes (for git push \\u202eniam)" },
] as const;

/** What writeTurnsRun's first turn retried, and how the run page words it. */
export const RETRY = { retry: { attempt: 1, status: 429, reason: "Rate limit reached for requests", waitMs: 2000 }, words: "Turn 1, retry 1: HTTP 429, Rate limit reached for requests (waited 2.0 s)" } as const;

/** A 3-turn run whose calls carry approvals and whose first request was retried; and beside it a run with no turns. */
export function writeTurnsRun(file: string, empty: string): void {
  writeLongRun(file, 3);
  let call = 0;
  const lines = readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown> & { type: string });
  for (const line of lines) {
    if (line.type === "call") (line.outcome as Record<string, unknown>).approval = APPROVALS[call++ % APPROVALS.length]?.approval;
    if (line.type === "response" && line.turn === 1) line.retries = [RETRY.retry];
    if (line.type === "end") {
      const report = line.report as AgentReport;
      (report.turns[0] as TurnRecord).retries = [RETRY.retry];
      report.totals.retries = 1;
    }
  }
  writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
  writeFileSync(empty, `${JSON.stringify({ type: "start", model: MODELS.unknown, arm: "tools", task: "Stopped at once." })}\n`);
}
