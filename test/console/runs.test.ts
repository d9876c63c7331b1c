// The console's reading of transcripts, without a browser: which files are runs (and why the others are skipped),
// what the list says of a run cut short, what its entered tokens are, that a run is found by its id among the given
// ones only, and that a runs folder with link cycles is walked once through.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bandsTotal } from "../../agent/bands.ts";
import type { AgentReport } from "../../agent/loop.ts";
import { listRuns, runDetail } from "../../console/api.ts";
import { isSkipped, readRun, summarize } from "../../console/runs.ts";
import { runFiles } from "../../console/walk.ts";
import { tempWorkspace } from "../workspace.ts";
import { MODELS, writeRuns } from "./fixtures.ts";

describe("console runs", () => {
  // The three runs are recorded once (each is a real agent run) and only read by the tests.
  let ws: ReturnType<typeof tempWorkspace>;
  beforeAll(async () => {
    ws = tempWorkspace();
    await writeRuns(join(ws.root, "runs"));
  });
  afterAll(() => ws[Symbol.dispose]());

  test("every *.jsonl under the folders is listed by folder index and path; a file that is not a transcript is skipped with why", async () => {
    writeFileSync(join(ws.root, "runs", "trials.jsonl"), '{"key":"a/b/1"}\n');
    const { files } = await runFiles([join(ws.root, "runs"), join(ws.root, "missing")]);
    expect(files.map((file) => file.id)).toEqual(["0/code.jsonl", "0/nested/vision.jsonl", "0/trials.jsonl", "0/xss.jsonl"]);
    const listed = await Promise.all(files.map((file) => summarize(file)));
    expect(listed.map((entry) => (isSkipped(entry) ? entry.reason : entry.model))).toEqual([MODELS.declared, MODELS.learned, "it is not a transcript: its first line is not a start line naming a model and a task", MODELS.xss]);
  });

  test("a run's entered tokens are every request's estimate added up, as gg agent's summary and a study's records count them, not the last request's", async () => {
    const file = join(ws.root, "runs", "code.jsonl");
    const report = (JSON.parse(readFileSync(file, "utf8").trim().split("\n").at(-1) as string) as { report: AgentReport }).report;
    const perRequest = report.turns.map((turn) => bandsTotal(turn.estimate));
    expect(perRequest.length).toBeGreaterThan(1);
    const listed = await summarize({ id: "0/code.jsonl", file, folder: join(ws.root, "runs") });
    if (isSkipped(listed)) throw new Error(listed.reason);
    expect(listed.entered).toBe(perRequest.reduce((sum, tokens) => sum + tokens, 0));
    expect(listed.entered).toBe(bandsTotal(report.totals.estimate));
    expect(listed.entered).toBeGreaterThan(perRequest.at(-1) as number);
  });

  test("a run cut short (no end line) is listed as unfinished, its turns counted from the answers recorded", async () => {
    const lines = readFileSync(join(ws.root, "runs", "code.jsonl"), "utf8").trim().split("\n");
    mkdirSync(join(ws.root, "cut"));
    writeFileSync(join(ws.root, "cut", "cut.jsonl"), `${lines.slice(0, -1).join("\n")}\n`);
    const run = { id: "0/cut.jsonl", file: join(ws.root, "cut", "cut.jsonl"), folder: join(ws.root, "cut") };
    expect(await summarize(run)).toMatchObject({ turns: 2, outcome: "unfinished", entered: null, billed: null });
    const detail = await readRun(run);
    if (isSkipped(detail)) throw new Error(detail.reason);
    expect(detail.turnsList.map((turn) => [turn.turn, turn.usage?.promptTokens])).toEqual([[1, 1200], [2, 1200]]);
    expect(detail.calls.map((call) => [call.turn, call.name])).toEqual([[1, "run_program"]]);
    expect(detail.filesChanged).toBeNull();
  });

  test("an end line whose report is null, {} or missing its turns is skipped with the reason, and the list still answers", async () => {
    const lines = readFileSync(join(ws.root, "runs", "code.jsonl"), "utf8").trim().split("\n");
    const dir = join(ws.root, "broken");
    mkdirSync(dir);
    const report = JSON.parse(lines.at(-1) as string).report as Record<string, unknown>;
    const ends = { null: null, empty: {}, list: [], noTurns: { ...report, turns: undefined }, badTurn: { ...report, turns: [{ turn: "one" }] } };
    for (const [name, end] of Object.entries(ends)) writeFileSync(join(dir, `${name}.jsonl`), `${[...lines.slice(0, -1), JSON.stringify({ type: "end", report: end })].join("\n")}\n`);
    const list = await listRuns({ runs: [dir, join(ws.root, "runs")], studies: [] });
    expect(list.runs.map((run) => run.id)).toEqual(["1/code.jsonl", "1/nested/vision.jsonl", "1/xss.jsonl"]);
    expect(Object.fromEntries(list.skipped.map((file) => [file.id, file.reason]))).toEqual({
      "0/badTurn.jsonl": "its end line's report is not a run's report: report.turns.0 must have required properties estimate, calls, retries, elapsedMs",
      "0/empty.jsonl": "its end line's report is not a run's report: report must have required properties ok, turns, calls",
      "0/list.jsonl": "its end line's report is a list, not a run's report",
      "0/noTurns.jsonl": "its end line's report is not a run's report: report must have required properties turns",
      "0/null.jsonl": "its end line's report is null, not a run's report",
      "1/trials.jsonl": "it is not a transcript: its first line is not a start line naming a model and a task",
    });
    expect(await runDetail({ runs: [dir], studies: [] }, "0/null.jsonl")).toMatchObject({ reason: "its end line's report is null, not a run's report" });
  });

  test("link cycles (loop -> ., deep/up -> ..) are walked once: each real folder read once, a run listed once per folder", async () => {
    const dir = join(ws.root, "cycles");
    mkdirSync(join(dir, "deep"), { recursive: true });
    writeFileSync(join(dir, "deep", "run.jsonl"), readFileSync(join(ws.root, "runs", "code.jsonl")));
    symlinkSync(".", join(dir, "loop"));
    symlinkSync("..", join(dir, "deep", "up"));
    symlinkSync(join(ws.root, "runs"), join(dir, "elsewhere"));
    symlinkSync("missing", join(dir, "dangling"));
    const { files, stopped } = await runFiles([dir]);
    expect(stopped).toBeUndefined();
    expect(files.map((file) => file.id)).toEqual(["0/deep/run.jsonl", "0/elsewhere/code.jsonl", "0/elsewhere/nested/vision.jsonl", "0/elsewhere/trials.jsonl", "0/elsewhere/xss.jsonl"]);
  });

  test("a walk stops after its bound of entries, keeps what it found and says where it stopped", async () => {
    const dir = join(ws.root, "many");
    mkdirSync(join(dir, "b"), { recursive: true });
    for (let index = 0; index < 30; index++) writeFileSync(join(dir, "b", `${String(index).padStart(2, "0")}.jsonl`), "{}\n");
    writeFileSync(join(dir, "a.jsonl"), "{}\n");
    const { files, stopped } = await runFiles([dir], 12);
    expect(files.map((file) => file.id)).toEqual(["0/a.jsonl", ...Array.from({ length: 10 }, (_, index) => `0/b/${String(index).padStart(2, "0")}.jsonl`)]);
    expect(stopped).toBe(`Stopped listing the runs folders after 12 entries (in ${join(dir, "b")}): later transcripts are not listed; give gg console a narrower --runs folder`);
  });

  test("a run is found by its id among the transcripts given, and by nothing else", async () => {
    const sources = { runs: [join(ws.root, "runs")], studies: [] };
    expect(await runDetail(sources, "0/code.jsonl")).toMatchObject({ answer: "Wrote out.txt." });
    for (const id of ["0/../runs/code.jsonl", "1/code.jsonl", join(ws.root, "runs", "code.jsonl"), "0/nested"]) expect(await runDetail(sources, id)).toBeUndefined();
  });
});
