// gg study on real git repositories against a fake provider on 127.0.0.1: the goal study (2 cases × 4 agents × 2
// repeats at concurrency 4), resuming after a SIGKILL, shards merged, a model refused pictures once per study, and a
// study file refused with every problem named.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, test } from "vitest";
import { main } from "../../cli/main.ts";
import { git } from "../../study/isolate.ts";
import type { StudyReport } from "../../study/report.ts";
import type { TrialRecord } from "../../study/trials.ts";
import { tempWorkspace } from "../workspace.ts";
import { fakeProvider, gitLines, gitRepo, writeTask } from "./fake.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==", "base64");

/** Runs gg in this process; its exit status and what it wrote. */
async function gg(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let [stdout, stderr] = ["", ""];
  const status = await main(args, (text) => (stdout += text), (text) => (stderr += text));
  return { status, stdout, stderr };
}

const records = (out: string): TrialRecord[] =>
  readFileSync(join(out, "trials.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TrialRecord);

/** Four agents: two models × two arms. */
const AGENTS = ["m1", "m2"].flatMap((model) => (["tools", "code"] as const).map((arm) => ({ id: `${model}-${arm}`, model, arm })));

/** A study over `repo` (a git repository) and `folder` (a plain one), written beside them; returns its path. */
function studyFile(root: string, put: (files: Record<string, string>) => void, extra: Record<string, unknown> = {}): string {
  put({
    "study.json": JSON.stringify({
      cases: [
        { id: "greet", workspace: "repo", ref: "main", task: writeTask("hello.txt", "hello"), check: "grep -qx hello hello.txt" },
        { id: "note", workspace: "folder", task: writeTask("note.txt", "noted"), check: "grep -qx noted note.txt" },
      ],
      agents: AGENTS,
      repeats: 2,
      ...extra,
    }),
    "catalog.json": JSON.stringify({ source: "test", fetched: "2026-01-01", models: [{ id: "m1", input_modalities: ["text"], pricing: { prompt: "0.000001", completion: "0.000002", input_cache_read: "0.0000001" } }, { id: "m2", input_modalities: ["text"] }] }),
  });
  return join(root, "study.json");
}

/** A workspace holding a small git repository (repo/) and a plain folder (folder/). */
function layout(ws: ReturnType<typeof tempWorkspace>): string {
  ws.put({ "folder/readme.md": "A plain folder.\n" });
  ws.put({ "repo/": "" });
  return gitRepo(join(ws.root, "repo"), { "repo/readme.md": "# A repository\n", "repo/src/a.ts": "export const a = 1;\n" }, ws.put);
}

/** Nothing of the study's left in the repository: no worktree but its own, no gg-study branch. */
function nothingLeft(repo: string, out: string): void {
  expect(gitLines(repo, "worktree", "list")).toHaveLength(1);
  expect(gitLines(repo, "branch", "--list", "gg-study/*")).toEqual([]);
  const left = existsSync(join(out, "worktrees")) ? readdirSync(join(out, "worktrees"), { recursive: true }).filter((name) => String(name).split("/").length >= 3) : [];
  expect(left).toEqual([]);
}

/** One case, four agents, two repeats: eight trials, two requests each, run two at once into results/. */
function oneCaseStudy(ws: ReturnType<typeof tempWorkspace>): { out: string; args: string[] } {
  layout(ws);
  const file = studyFile(ws.root, ws.put);
  const study = JSON.parse(readFileSync(file, "utf8")) as { cases: unknown[] };
  writeFileSync(file, JSON.stringify({ ...study, cases: study.cases.slice(0, 1) }));
  const out = join(ws.root, "results");
  return { out, args: ["study", "run", file, "--out", out, "--concurrency", "2", "--catalog", join(ws.root, "catalog.json")] };
}

describe("gg study", () => {
  test("2 cases × 4 agents × 2 repeats run as 16 trials, 4 at once and a model's own bound kept; each recorded with its transcript and patch, nothing left behind; the report pairs each code agent with its tools agent", async () => {
    using ws = tempWorkspace();
    const commit = layout(ws);
    const file = studyFile(ws.root, ws.put, { models: { m1: { concurrency: 1 } } });
    await using server = await fakeProvider({ wrong: "m2", delayMs: 20 });
    const out = join(ws.root, "results");
    const run = await gg("study", "run", file, "--out", out, "--concurrency", "4", "--base-url", server.baseURL, "--catalog", join(ws.root, "catalog.json"));
    expect(run.stderr).toMatch(/^16 trials: 0 finished earlier, 16 to run, 4 at once \(m1: at most 1\)\n/);
    expect(run.stderr).toMatch(/\[16\/16\] \S+ (pass|fail), 2 turns, 2,200 tokens, /);
    expect(run.status, run.stderr).toBe(0);
    const lines = records(out);
    expect(lines.map((line) => line.key).sort()).toEqual(["greet", "note"].flatMap((id) => AGENTS.flatMap((agent) => [1, 2].map((repeat) => `${id}/${agent.id}/${repeat}`))).sort());
    for (const line of lines) expect({ key: line.key, pass: line.pass, error: line.error }).toEqual({ key: line.key, pass: line.agent !== "m2-tools", error: null });
    expect(server.seen.maxInFlight).toBeLessThanOrEqual(4);
    expect(server.seen.maxInFlightByModel.m1).toBe(1);
    const greet = lines.find((line) => line.key === "greet/m1-tools/1") as TrialRecord;
    // Two turns of 1000 in (400 cached) and 100 out at $1, $0.1 (cached) and $2 per million tokens.
    expect(greet).toMatchObject({ commit, turns: 2, usage: { prompt: 2000, completion: 200, cached: 800, turnsWithoutUsage: 0 }, filesChanged: { created: ["hello.txt"], modified: [], deleted: [] }, check: { exitCode: 0 } });
    expect(greet.cost).toBeCloseTo(0.00168, 10);
    // The wall time holds the agent's run and the overhead.
    for (const line of lines) expect(line.wallMs).toBeGreaterThanOrEqual(line.agentMs + line.overheadMs - 1);
    expect(lines.find((line) => line.key === "greet/m2-code/1")?.cost).toBeNull();
    expect(readFileSync(join(out, "diffs/greet/m1-code/2.patch"), "utf8")).toContain("+++ b/hello.txt\n@@ -0,0 +1 @@\n+hello\n");
    // Worktrees are reused from trial to trial: each trial still starts from the case's commit, so each creates hello.txt.
    for (const agent of ["m1-tools", "m1-code", "m2-tools", "m2-code"]) {
      for (const repeat of [1, 2]) expect(readFileSync(join(out, `diffs/greet/${agent}/${repeat}.patch`), "utf8")).toMatch(/^diff --git a\/hello.txt b\/hello.txt\nnew file mode/);
    }
    expect(readFileSync(join(out, "diffs/note/m2-tools/1.patch"), "utf8")).toContain("+wrong\n");
    expect(readFileSync(join(out, "transcripts/note/m1-tools/1.jsonl"), "utf8").split("\n")[0]).toContain('"type":"start","model":"m1","arm":"tools"');
    nothingLeft(join(ws.root, "repo"), out);

    const report = JSON.parse((await gg("study", "report", out, "--json")).stdout) as StudyReport;
    expect(report.cells).toHaveLength(8);
    expect(report.pairs.map((pair) => [pair.case, pair.first, pair.second, pair.differ, pair.bothPass, pair.firstOnly, pair.secondOnly, pair.neither])).toEqual([
      ["greet", "m1-code", "m1-tools", "arm", 2, 0, 0, 0],
      ["greet", "m2-code", "m2-tools", "arm", 0, 2, 0, 0],
      ["note", "m1-code", "m1-tools", "arm", 2, 0, 0, 0],
      ["note", "m2-code", "m2-tools", "arm", 0, 2, 0, 0],
    ]);
    expect(report.pairs[1]?.costRatio).toBeNull();
    const text = (await gg("study", "report", out)).stdout;
    expect(text).toMatch(/^case +agent +model +arm +pass +errors +turns +billed +entered +cost +wall\n/);
    expect(text).toMatch(/\ngreet +m2-tools +m2 +tools +0\/2 +0 +2\.0 +2,200 +[\d,]+ +unknown +[\d.]+ s\n/);
    expect(text).toMatch(/\ngreet +m1 +m1-code +m1-tools +arm +×1\.00 +×1\.00 +2 +0 +0 +0\n/);
  });

  test("killed with SIGKILL mid-study, a re-run removes what it left, runs the rest, and repeats no finished trial", async () => {
    using ws = tempWorkspace();
    const { out, args } = oneCaseStudy(ws);
    {
      let answered = 0;
      await using first = await fakeProvider({ hold: () => ++answered > 6 });
      const child = spawn(process.execPath, [bin, ...args, "--base-url", first.baseURL], { stdio: "ignore" });
      while (first.held.length < 2) await sleep(20);
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("close", resolve));
    }
    // Two trials were in flight when it was killed: their worktrees and branches are left.
    const before = records(out);
    expect(before.length).toBeGreaterThanOrEqual(1);
    expect(gitLines(join(ws.root, "repo"), "branch", "--list", "gg-study/*")).toHaveLength(2);
    await using second = await fakeProvider();
    const rerun = await gg(...args, "--base-url", second.baseURL);
    expect(rerun.stderr).toMatch(new RegExp(`^removed 2 worktrees and 2 branches an earlier run left\n8 trials: ${before.length} finished earlier, ${8 - before.length} to run, 2 at once\n`));
    expect(rerun.status).toBe(0);
    const after = records(out);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.map((line) => line.key).sort()).toEqual(AGENTS.flatMap((agent) => [1, 2].map((repeat) => `greet/${agent.id}/${repeat}`)).sort());
    nothingLeft(join(ws.root, "repo"), out);
  });

  test.each(["SIGINT", "SIGTERM"] as const)("ended by %s mid-study, a run removes the worktrees and branches of its trials in flight, says so, and exits 128+n; a re-run goes on", async (signal) => {
    using ws = tempWorkspace();
    const { out, args } = oneCaseStudy(ws);
    {
      let answered = 0;
      await using first = await fakeProvider({ hold: () => ++answered > 2 });
      const child = spawn(process.execPath, [bin, ...args, "--base-url", first.baseURL], { stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      while (first.held.length < 2) await sleep(20);
      child.kill(signal);
      const status = await new Promise((resolve) => child.once("close", (code) => resolve(code)));
      expect(status, stderr).toBe(128 + (constants.signals[signal] ?? 0));
      const how = signal === "SIGINT" ? "Ctrl-C \\(SIGINT\\)" : signal;
      expect(stderr).toMatch(new RegExp(`\\ngg: the study was cancelled by ${how}; the trials in flight were stopped and are not recorded, removed 2 worktrees and 2 branches; run it again to go on where it stopped\\n$`));
    }
    nothingLeft(join(ws.root, "repo"), out);
    expect(gitLines(join(ws.root, "repo"), "status", "--porcelain")).toEqual([]);
    await using second = await fakeProvider();
    const rerun = await gg(...args, "--base-url", second.baseURL);
    expect(rerun.status, rerun.stderr).toBe(0);
    expect(rerun.stderr).not.toMatch(/an earlier run left/);
    expect(records(out).filter((record) => record.pass !== null)).toHaveLength(8);
    nothingLeft(join(ws.root, "repo"), out);
  });

  test("a check a signal cuts short is not recorded as a failure: the next run judges the trial again", async () => {
    using ws = tempWorkspace();
    const { out, args } = oneCaseStudy(ws);
    const file = args[2] as string;
    const study = JSON.parse(readFileSync(file, "utf8")) as { cases: { check: string }[] };
    // Each check says it started, then takes long: the signal comes while checks run.
    writeFileSync(file, JSON.stringify({ ...study, cases: study.cases.map((entry) => ({ ...entry, check: `touch ${join(ws.root, "checking")}; sleep 60` })) }));
    await using server = await fakeProvider();
    const child = spawn(process.execPath, [bin, ...args, "--base-url", server.baseURL], { stdio: "ignore" });
    while (!existsSync(join(ws.root, "checking"))) await sleep(20);
    child.kill("SIGINT");
    expect(await new Promise((resolve) => child.once("close", (code) => resolve(code)))).toBe(130);
    expect(existsSync(join(out, "trials.jsonl")) ? records(out).filter((record) => record.pass === false) : []).toEqual([]);
    nothingLeft(join(ws.root, "repo"), out);
  });

  test("a model of unknown vision refused the specs' picture costs one request for the whole study, concurrent trials and a resumed run included; every trial still passes", async () => {
    using ws = tempWorkspace();
    ws.put({ "repo/": "" });
    gitRepo(join(ws.root, "repo"), { "repo/specs/mockup.png": PNG as unknown as string, "repo/specs/notes.md": "Say hello.\n" }, ws.put);
    ws.put({
      "study.json": JSON.stringify({
        cases: [{ id: "look", workspace: "repo", ref: "main", task: writeTask("hello.txt", "hello"), specs: ["specs/*"], check: "grep -qx hello hello.txt" }],
        agents: [
          { id: "v-tools", model: "v", arm: "tools" },
          { id: "v-code", model: "v", arm: "code" },
        ],
        repeats: 3,
        models: { v: { concurrency: 2 } },
      }),
      "catalog.json": JSON.stringify({ source: "test", fetched: "2026-01-01", models: [] }),
    });
    await using server = await fakeProvider({ textOnly: ["v"], delayMs: 20 });
    const out = join(ws.root, "results");
    const args = ["study", "run", join(ws.root, "study.json"), "--out", out, "--base-url", server.baseURL, "--catalog", join(ws.root, "catalog.json"), "--concurrency", "6"];
    // Half the study first, the rest in a second run into the same folder: what the first learned holds for the second.
    const first = await gg(...args, "--shard", "1/2");
    expect(first.status, first.stderr).toBe(0);
    // The model's own bound, not --concurrency 6, says how many run at once; the catalog prices nothing: "cost unknown", never "$0 + unknown".
    expect(first.stderr).toMatch(/^3 trials \(shard 1\/2\): 0 finished earlier, 3 to run, 2 at once \(v: at most 2\)\n/);
    const progress = first.stderr.split("\n").filter((line) => line.startsWith("["));
    expect(progress).toHaveLength(3);
    for (const line of progress) expect(line).toMatch(/; \d+ passed, [\d,]+ tokens, cost unknown so far$/);
    expect(server.seen.pictures.v).toEqual({ sent: 1, refused: 1 });
    const run = await gg(...args);
    expect(run.status, run.stderr).toBe(0);
    expect(server.seen.pictures.v).toEqual({ sent: 1, refused: 1 });
    const lines = records(out);
    expect(lines.map((line) => line.pass)).toEqual([true, true, true, true, true, true]);
    expect(lines.reduce((sum, line) => sum + line.wastedRequests, 0)).toBe(1);
    // The specs were read whole into the opening context: the notes' text reached the model in every trial.
    const transcript = readFileSync(join(out, "transcripts/look/v-tools/1.jsonl"), "utf8");
    expect(transcript).toContain("Say hello.");
  });

  test("a study of one trial says so in the singular, and its cost at the catalog's prices", async () => {
    using ws = tempWorkspace();
    layout(ws);
    const file = studyFile(ws.root, ws.put, { cases: [{ id: "note", workspace: "folder", task: writeTask("note.txt", "noted"), check: "grep -qx noted note.txt" }], agents: [AGENTS[0]], repeats: 1 });
    await using server = await fakeProvider();
    const run = await gg("study", "run", file, "--out", join(ws.root, "results"), "--base-url", server.baseURL, "--catalog", join(ws.root, "catalog.json"));
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^1 trial: 0 finished earlier, 1 to run, 1 at once\n\[1\/1\] note\/m1-tools\/1 pass, 2 turns, 2,200 tokens, \$[\d.]+, [\d.]+ s; 1 passed, 2,200 tokens, \$[\d.]+ so far\n/);
  });

  test("a worktree another process is midway through making is waited out, not a failed trial", async () => {
    using ws = tempWorkspace();
    ws.put({ "repo/": "" });
    const repo = join(ws.root, "repo");
    gitRepo(repo, { "repo/a.txt": "a\n" }, ws.put);
    // What a concurrent `git worktree add` leaves for an instant: its files made, commondir truncated and not yet written.
    // Every git command that lists the worktrees dies on it ("failed to read .git/worktrees/busy/commondir: Success").
    const admin = join(repo, ".git/worktrees/busy");
    mkdirSync(admin, { recursive: true });
    mkdirSync(join(ws.root, "busy"));
    writeFileSync(join(ws.root, "busy/.git"), `gitdir: ${admin}\n`);
    writeFileSync(join(admin, "gitdir"), `${join(ws.root, "busy/.git")}\n`);
    writeFileSync(join(admin, "HEAD"), `${"0".repeat(40)}\n`);
    writeFileSync(join(admin, "commondir"), "");
    const finished = sleep(300).then(() => writeFileSync(join(admin, "commondir"), "../..\n"));
    await git(["worktree", "add", "--quiet", "-B", "trial", join(ws.root, "trial"), "HEAD"], repo);
    await finished;
    expect(readFileSync(join(ws.root, "trial/a.txt"), "utf8")).toBe("a\n");
  });

  test("a refused study file names every problem at once and exits 2", async () => {
    using ws = tempWorkspace();
    layout(ws);
    ws.put({
      "shape.json": JSON.stringify({ cases: [{ id: "a b", workspace: "repo", task: "t", extra: 1 }], agents: [{ id: "x", model: "m", arm: "cli" }], repeats: 0, color: "red" }),
      "disk.json": JSON.stringify({
        cases: [
          { id: "a", workspace: "repo", task: "t" },
          { id: "b", workspace: "missing", task: "t", taskFile: "t.md" },
          { id: "c", workspace: "repo", ref: "no-such-branch", task: "t" },
        ],
        agents: [
          { id: "x", model: "m", arm: "tools", config: [{ id: "shelf" }] },
          { id: "x", model: "m", arm: "code", agent: "reviewer" },
        ],
      }),
    });
    const shape = await gg("study", "run", join(ws.root, "shape.json"));
    expect(shape.status).toBe(2);
    expect(shape.stderr).toBe(
      [
        `gg: Cannot use the study ${join(ws.root, "shape.json")}:`,
        `  - the study has an unknown field "color"; its fields are "cases", "agents", "repeats", "maxTurns", "budgetSecs", "models"`,
        `  - cases[0] has an unknown field "extra"; its fields are "id", "workspace", "ref", "task", "taskFile", "specs", "check"`,
        `  - cases[0].id is "a b"; it must be an id of letters, digits, '.', '_' and '-' (starting with a letter or digit)`,
        `  - agents[0].arm is "cli"; it must be "tools" or "code"`,
        "  - repeats is 0; it must be a whole number of trials per case and agent, 1 or more",
        "",
      ].join("\n"),
    );
    // Problems of shape and of the disk together: all named in one refusal.
    ws.put({ "both.json": JSON.stringify({ cases: [{ id: "a", workspace: "missing", task: "t" }, { id: "a", workspace: "folder", task: "t" }], agents: [{ id: "x", model: "m", arm: "cli" }], color: "red" }) });
    const both = await gg("study", "run", join(ws.root, "both.json"));
    expect(both.status).toBe(2);
    expect(both.stderr.split("\n").filter((line) => line.startsWith("  - "))).toEqual([
      expect.stringContaining('the study has an unknown field "color"'),
      `  - agents[0].arm is "cli"; it must be "tools" or "code"`,
      expect.stringMatching(/^ {2}- case "a": workspace .*missing is not an existing folder$/),
      `  - case "a" is listed more than once; ids name trials, so each must be unique`,
    ]);
    const disk = await gg("study", "run", join(ws.root, "disk.json"));
    expect(disk.status).toBe(2);
    const problems = disk.stderr.split("\n").filter((line) => line.startsWith("  - "));
    expect(problems).toEqual([
      expect.stringMatching(/^ {2}- case "a": its workspace is in the git repository .*; name the commit, branch or tag its trials start from with "ref"/),
      expect.stringMatching(/^ {2}- case "b": workspace .*missing is not an existing folder$/),
      `  - case "b" needs one of "task" (text) or "taskFile" (a file), not both`,
      expect.stringMatching(/^ {2}- case "c" has ref "no-such-branch", which names no commit in /),
      expect.stringMatching(/^ {2}- agent "x"'s config: capability #1 has unknown id "shelf"; the capabilities are /),
      `  - agent "x" acts as agent "reviewer", which its config does not list; add "agents": [{"id": ..., "allow": [...]}] to it`,
      `  - agent "x" is listed more than once; ids name trials, so each must be unique`,
    ]);
  });
});
