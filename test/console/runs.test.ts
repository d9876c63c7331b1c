// The console's reading of transcripts, without a browser: which files are runs, what the list says of a run cut
// short, and that a run is found by its id among the given ones only.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runDetail } from "../../console/api.ts";
import { readRun, runFiles, summarize } from "../../console/runs.ts";
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

  test("every *.jsonl under the folders is listed by folder index and path; a file that is not a transcript is left out", async () => {
    writeFileSync(join(ws.root, "runs", "trials.jsonl"), '{"key":"a/b/1"}\n');
    const files = runFiles([join(ws.root, "runs"), join(ws.root, "missing")]);
    expect(files.map((file) => file.id)).toEqual(["0/code.jsonl", "0/nested/vision.jsonl", "0/trials.jsonl", "0/xss.jsonl"]);
    expect(files.map((file) => summarize(file)?.model)).toEqual([MODELS.declared, MODELS.learned, undefined, MODELS.xss]);
  });

  test("a run cut short (no end line) is listed as unfinished, its turns counted from the answers recorded", async () => {
    const whole = join(ws.root, "runs", "code.jsonl");
    const lines = readFileSync(whole, "utf8").trim().split("\n");
    mkdirSync(join(ws.root, "cut"));
    writeFileSync(join(ws.root, "cut", "cut.jsonl"), `${lines.slice(0, -1).join("\n")}\n`);
    const run = { id: "0/cut.jsonl", file: join(ws.root, "cut", "cut.jsonl") };
    expect(summarize(run)).toMatchObject({ turns: 2, outcome: "unfinished", entered: null, billed: null });
    const detail = readRun(run);
    expect(detail?.turnsList.map((turn) => [turn.turn, turn.usage?.promptTokens])).toEqual([[1, 1200], [2, 1200]]);
    expect(detail?.calls.map((call) => [call.turn, call.name])).toEqual([[1, "run_program"]]);
    expect(detail?.filesChanged).toBeNull();
  });

  test("a run is found by its id among the transcripts given, and by nothing else", async () => {
    const sources = { runs: [join(ws.root, "runs")], studies: [] };
    expect(runDetail(sources, "0/code.jsonl")?.answer).toBe("Wrote out.txt.");
    for (const id of ["0/../runs/code.jsonl", "1/code.jsonl", join(ws.root, "runs", "code.jsonl"), "0/nested"]) expect(runDetail(sources, id)).toBeUndefined();
  });
});
