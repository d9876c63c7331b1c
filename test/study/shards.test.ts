// A study spread over workers, on real git repositories and real processes against the fake provider: the Kubernetes
// example's own command line run once per index (concurrently, as pods), merged, equal to one process's run; a shard
// killed and re-run; --out relative to where gg runs (inside the case's repository too), or absent (beside the study
// file, itself in the case's repository); a study's identity (a re-run against another port or from another directory
// runs nothing; a changed study is refused); merge and report refusing different studies and conflicting verdicts; the
// console showing a study's folders as one study.
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, test, vi } from "vitest";
import { main } from "../../cli/main.ts";
import { listStudies } from "../../console/api.ts";
import type { StudyReport } from "../../study/report.ts";
import { readRecords, type TrialRecord } from "../../study/trials.ts";
import { tempWorkspace } from "../workspace.ts";
import { fakeProvider, gitLines, gitRepo, writeTask } from "./fake.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");
const manifest = readFileSync(join(import.meta.dirname, "../../examples/study/kubernetes.yaml"), "utf8");
const SHARD_VARIABLES = ["JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "GG_SHARD_INDEX"];

/** Runs gg in this process; its exit status and what it wrote. */
async function gg(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let [stdout, stderr] = ["", ""];
  const status = await main(args, (text) => (stdout += text), (text) => (stderr += text));
  return { status, stdout, stderr };
}

/** Starts gg as its own process in `cwd`, the shard variables only as `env` sets them. */
function ggProcess(args: string[], cwd: string, env: Record<string, string> = {}): ChildProcess & { done: Promise<{ status: number | null; stderr: string }> } {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !SHARD_VARIABLES.includes(name)));
  const child = spawn(process.execPath, [bin, ...args], { cwd, env: { ...clean, ...env }, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ status: number | null; stderr: string }>((resolve) => child.once("close", (status) => resolve({ status, stderr })));
  return Object.assign(child, { done });
}

/** The shard variables as a worker sets them, for gg run in this process. */
function workerEnv(env: Record<string, string>): void {
  for (const name of SHARD_VARIABLES) vi.stubEnv(name, env[name] ?? "");
}
afterEach(() => vi.unstubAllEnvs());

/** Two agents of the tools arm (the code arm's sandbox process would only slow these tests). */
const AGENTS = ["m1", "m2"].map((model) => ({ id: `${model}-tools`, model, arm: "tools" }));

/** A study over repo/ (a git repository) and, unless `gitOnly`, folder/ (a plain one), in the workspace's root. */
function layout(ws: ReturnType<typeof tempWorkspace>, study: Record<string, unknown>, gitOnly = false): string {
  ws.put({ "folder/readme.md": "A plain folder.\n", "repo/": "" });
  gitRepo(join(ws.root, "repo"), { "repo/readme.md": "# A repository\n" }, ws.put);
  const cases = [
    { id: "greet", workspace: "repo", ref: "main", task: writeTask("hello.txt", "hello"), check: "grep -qx hello hello.txt" },
    { id: "note", workspace: "folder", task: writeTask("note.txt", "noted"), check: "grep -qx noted note.txt" },
  ];
  ws.put({
    "study.json": JSON.stringify({ cases: gitOnly ? cases.slice(0, 1) : cases, agents: AGENTS, ...study }),
    "catalog.json": JSON.stringify({ source: "test", fetched: "2026-01-01", models: [{ id: "m1", input_modalities: ["text"], pricing: { prompt: "0.000001", completion: "0.000002" } }] }),
  });
  return join(ws.root, "study.json");
}

/** Nothing of any study left in the repository: one worktree, no gg-study branch, nothing untracked. */
function nothingLeft(repo: string): void {
  expect(gitLines(repo, "worktree", "list")).toHaveLength(1);
  expect(gitLines(repo, "branch", "--list", "gg-study/*")).toEqual([]);
  expect(gitLines(repo, "status", "--porcelain")).toEqual([]);
}

const verdicts = (records: TrialRecord[]): [string, boolean | null][] => records.map((record): [string, boolean | null] => [record.key, record.pass]).sort(([a], [b]) => (a < b ? -1 : 1));

/** A report without wall times, which differ from run to run. */
async function reportOf(...dirs: string[]): Promise<unknown> {
  const run = await gg("study", "report", ...dirs, "--json");
  expect(run.status, run.stderr).toBe(0);
  const { trials, cells, pairs } = JSON.parse(run.stdout) as StudyReport;
  return { trials: verdicts(trials), cells: cells.map(({ wallSecs: _, ...cell }) => cell), pairs };
}

/** A container's args in the manifest (a JSON array on one line), with $(VAR) expanded from `env` as Kubernetes does. */
function containerArgs(marker: string, env: Record<string, string>): string[] {
  const line = manifest.split("\n").find((text) => /^\s*args: \[/.test(text) && text.includes(marker));
  if (!line) throw new Error(`no args line with ${marker} in the manifest`);
  return (JSON.parse(line.replace(/^\s*args: /, "")) as string[]).map((arg) => arg.replace(/\$\((\w+)\)/g, (_, name: string) => env[name] ?? ""));
}

describe("a study over several workers", () => {
  test("the Kubernetes example's command line, once per index with JOB_COMPLETION_INDEX set and all at once, merges to exactly the 12 trials of one process's run: keys, verdicts, report, transcripts and patches", async () => {
    using ws = tempWorkspace();
    const file = layout(ws, { repeats: 3 });
    await using server = await fakeProvider({ wrong: "m2" });
    const test = ["--base-url", server.baseURL, "--catalog", join(ws.root, "catalog.json"), "--concurrency", "4"];
    const completions = Number(/^\s*completions: (\d+)$/m.exec(manifest)?.[1]);
    expect(manifest).toMatch(/^\s*completionMode: Indexed$/m);
    const indexes = Array.from({ length: completions }, (_, index) => String(index));
    const shardArgs = indexes.map((index) => containerArgs('"--shards"', { JOB_COMPLETION_INDEX: index }));
    expect(shardArgs[0]).toContain(String(completions));
    // The workers share the repository, as pods sharing one volume do; the manifest's paths are relative to /work.
    const pods = indexes.map((index, at) => ggProcess([...(shardArgs[at] as string[]), ...test], ws.root, { JOB_COMPLETION_INDEX: index }));
    const whole = await gg("study", "run", file, "--out", join(ws.root, "whole"), ...test);
    expect(whole.status, whole.stderr).toBe(0);
    for (const pod of pods) {
      const done = await pod.done;
      // A trial's error names itself on the run's progress line.
      expect(done.status, done.stderr).toBe(0);
    }
    const merge = await ggProcess(containerArgs('"merge"', {}), ws.root).done;
    expect(merge.status, merge.stderr).toBe(0);
    const out = join(ws.root, "results/merged");
    const merged = readRecords(out);
    const one = readRecords(join(ws.root, "whole"));
    expect(one).toHaveLength(12);
    expect(one.flatMap((record) => (record.error ? [`${record.key}: ${record.error.message}`] : []))).toEqual([]);
    expect(merged.map((record) => record.key).sort()).toEqual([...new Set(merged.map((record) => record.key))].sort());
    expect(verdicts(merged)).toEqual(verdicts(one));
    for (const { key } of merged) {
      expect(readFileSync(join(out, "transcripts", `${key}.jsonl`), "utf8")).toContain('"type":"end"');
      expect(existsSync(join(out, "diffs", `${key}.patch`))).toBe(true);
    }
    const shards = indexes.map((index) => join(ws.root, `results/shard-${index}`));
    expect(await reportOf(out)).toEqual(await reportOf(join(ws.root, "whole")));
    expect(await reportOf(...shards)).toEqual(await reportOf(out));
    nothingLeft(join(ws.root, "repo"));
  }, 300_000);

  test("a shard killed with SIGKILL mid-run (its --out relative, inside the case's repository) and run again merges with the other to every key exactly once; SLURM's and GG_SHARD_INDEX's indexes slice as --shard I+1/N", async () => {
    using ws = tempWorkspace();
    const file = layout(ws, { repeats: 3 }, true);
    const repo = join(ws.root, "repo");
    const common = ["--catalog", join(ws.root, "catalog.json"), "--concurrency", "2"];
    await using server = await fakeProvider();
    workerEnv({ GG_SHARD_INDEX: "0" });
    const first = await gg("study", "run", file, "--shards", "2", "--out", join(ws.root, "shard-0"), "--base-url", server.baseURL, ...common);
    expect(first.stderr).toContain("3 trials (shard 1/2)");
    expect(first.status, first.stderr).toBe(0);
    {
      let answered = 0;
      // Of three trials two at once: one ends, the other and the third wait on their second answer when the shard is killed.
      await using held = await fakeProvider({ hold: () => ++answered > 3 });
      const slurm = { SLURM_ARRAY_TASK_ID: "5", SLURM_ARRAY_TASK_MIN: "4" };
      const child = ggProcess(["study", "run", "../study.json", "--shards", "2", "--out", "results", "--base-url", held.baseURL, ...common], repo, slurm);
      while (held.held.length < 2) await sleep(20);
      child.kill("SIGKILL");
      await child.done;
    }
    const killed = readRecords(join(repo, "results"));
    expect(killed).toHaveLength(1);
    expect(gitLines(repo, "branch", "--list", "gg-study/*")).toHaveLength(2);
    workerEnv({ SLURM_ARRAY_TASK_ID: "5", SLURM_ARRAY_TASK_MIN: "4" });
    const again = await gg("study", "run", file, "--shards", "2", "--out", join(repo, "results"), "--base-url", server.baseURL, ...common);
    expect(again.stderr).toMatch(/^removed 2 worktrees and 2 branches an earlier run left\n3 trials \(shard 2\/2\): 1 finished earlier, 2 to run/);
    expect(again.status, again.stderr).toBe(0);
    nothingLeft(repo);
    const merged = await gg("study", "merge", join(ws.root, "shard-0"), join(repo, "results"), "--out", join(ws.root, "merged"));
    expect(merged.status, merged.stderr).toBe(0);
    const keys = readRecords(join(ws.root, "merged")).map((record) => record.key);
    expect(keys.sort()).toEqual(["m1-tools", "m2-tools"].flatMap((agent) => [1, 2, 3].map((repeat) => `greet/${agent}/${repeat}`)).sort());
    // The slices are --shard's: positions 1, 3, 5 and 2, 4, 6 of the study's order.
    expect(readRecords(join(ws.root, "shard-0")).map((record) => record.key).sort()).toEqual(["greet/m1-tools/1", "greet/m1-tools/3", "greet/m2-tools/2"]);
  }, 300_000);

  test("with no --out, the results land beside the study file, which lies inside the case's repository; killed with SIGKILL and run again from there, the repository is left as it was", async () => {
    using ws = tempWorkspace();
    const repo = join(ws.root, "repo");
    const study = { cases: [{ id: "greet", workspace: ".", ref: "main", task: writeTask("hello.txt", "hello"), check: "grep -qx hello hello.txt" }], agents: AGENTS.slice(0, 1), repeats: 2 };
    ws.put({ "repo/": "", "catalog.json": JSON.stringify({ source: "test", fetched: "2026-01-01", models: [] }) });
    gitRepo(repo, { "repo/readme.md": "# A repository\n", "repo/study.json": JSON.stringify(study) }, ws.put);
    const args = ["study", "run", "study.json", "--concurrency", "2", "--catalog", join(ws.root, "catalog.json")];
    {
      await using held = await fakeProvider({ hold: () => true });
      const child = ggProcess([...args, "--base-url", held.baseURL], repo);
      while (held.held.length < 2) await sleep(20);
      child.kill("SIGKILL");
      await child.done;
    }
    expect(gitLines(repo, "branch", "--list", "gg-study/*")).toHaveLength(2);
    expect(gitLines(repo, "status", "--porcelain")).toEqual([]);
    await using server = await fakeProvider();
    const again = await ggProcess([...args, "--base-url", server.baseURL], repo).done;
    expect(again.stderr).toMatch(/^removed 2 worktrees and 2 branches an earlier run left\n2 trials: 0 finished earlier, 2 to run/);
    expect(again.status, again.stderr).toBe(0);
    expect(verdicts(readRecords(join(repo, "study.results")))).toEqual([["greet/m1-tools/1", true], ["greet/m1-tools/2", true]]);
    nothingLeft(repo);
  }, 300_000);

  test("--shards refuses a worker without its index, an index out of range, and --shard beside it (exit 2, naming the variables)", async () => {
    using ws = tempWorkspace();
    const file = layout(ws, {}, true);
    const run = (...args: string[]) => gg("study", "run", file, "--out", join(ws.root, "out"), ...args);
    workerEnv({});
    const none = await run("--shards", "3");
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/JOB_COMPLETION_INDEX .*SLURM_ARRAY_TASK_ID minus SLURM_ARRAY_TASK_MIN .*GG_SHARD_INDEX, and none is set/);
    workerEnv({ JOB_COMPLETION_INDEX: "3" });
    const beyond = await run("--shards", "3");
    expect(beyond.status).toBe(2);
    expect(beyond.stderr).toContain("needs a 0-based index from 0 to 2, but JOB_COMPLETION_INDEX=3 gives 3");
    workerEnv({ SLURM_ARRAY_TASK_ID: "2" });
    const slurm = await run("--shards", "3");
    expect(slurm.status).toBe(2);
    expect(slurm.stderr).toContain("SLURM_ARRAY_TASK_MIN");
    workerEnv({ GG_SHARD_INDEX: "1" });
    const both = await run("--shards", "3", "--shard", "1/3");
    expect(both.status).toBe(2);
    expect(both.stderr).toContain("--shards reads the index from JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, GG_SHARD_INDEX");
    expect(existsSync(join(ws.root, "out"))).toBe(false);
    // An --out that cannot be made (under a file, a file itself; in /proc, where Node's own recursive mkdir would loop) is refused too.
    ws.put({ taken: "a file" });
    for (const out of [join(ws.root, "taken", "out"), join(ws.root, "taken"), "/proc/nope/out"]) {
      const unwritable = await gg("study", "run", file, "--out", out, "--shard", "1/3", "--base-url", "http://127.0.0.1:9");
      expect(unwritable).toMatchObject({ status: 2, stderr: expect.stringMatching(/^gg: Cannot write into .*; give --out a folder you can write to\n$/) });
    }
  });

  test("--out is relative to where gg runs, also inside a plain folder the study copies; a finished study re-run against another port, or from another directory, runs nothing; a changed study is refused; merge and report refuse different studies and conflicting verdicts; the console shows a study's folders as one", async () => {
    using ws = tempWorkspace();
    const file = layout(ws, { agents: AGENTS.slice(0, 1), repeats: 2 });
    await using server = await fakeProvider();
    const common = (url: string) => ["--catalog", join(ws.root, "catalog.json"), "--concurrency", "4", "--base-url", url];
    const inFolder = await ggProcess(["study", "run", "../study.json", "--out", "results", ...common(server.baseURL)], join(ws.root, "folder")).done;
    expect(inFolder.status, inFolder.stderr).toBe(0);
    const out = join(ws.root, "folder/results");
    expect(verdicts(readRecords(out))).toEqual([["greet/m1-tools/1", true], ["greet/m1-tools/2", true], ["note/m1-tools/1", true], ["note/m1-tools/2", true]]);
    nothingLeft(join(ws.root, "repo"));
    const id = (JSON.parse(readFileSync(join(out, "study.json"), "utf8")) as { id: string }).id;
    expect(id).toMatch(/^[0-9a-f]{16}$/);

    await using other = await fakeProvider();
    const again = await gg("study", "run", file, "--out", out, ...common(other.baseURL));
    expect(again.stderr).toMatch(/^4 trials: 4 finished earlier, 0 to run/);
    expect(again.status).toBe(0);
    using moved = tempWorkspace();
    cpSync(ws.root, moved.root, { recursive: true });
    const elsewhere = await gg("study", "run", join(moved.root, "study.json"), "--out", join(moved.root, "folder/results"), ...common(other.baseURL));
    expect(elsewhere.stderr).toMatch(/^4 trials: 4 finished earlier, 0 to run/);
    expect(elsewhere.status).toBe(0);
    expect(other.requests.length).toBe(0);
    expect((JSON.parse(readFileSync(join(moved.root, "folder/results/study.json"), "utf8")) as { id: string }).id).toBe(id);

    // Another task is another study: its folder is refused, merged or reported with this one.
    const study = JSON.parse(readFileSync(file, "utf8")) as { cases: { task: string }[] };
    (study.cases[0] as { task: string }).task = writeTask("hello.txt", "hi");
    writeFileSync(join(ws.root, "changed.json"), JSON.stringify(study));
    const changed = await gg("study", "run", join(ws.root, "changed.json"), "--out", out, ...common(server.baseURL));
    expect(changed.status).toBe(2);
    expect(changed.stderr).toMatch(new RegExp(`it holds the trials of study ${id}, and the study file is now study [0-9a-f]{16}`));
    const second = join(ws.root, "second");
    expect((await gg("study", "run", join(ws.root, "changed.json"), "--out", second, "--shard", "1/4", ...common(server.baseURL))).status).toBe(0);
    for (const command of ["merge", "report"]) {
      const refused = await gg("study", command, out, second, ...(command === "merge" ? ["--out", join(ws.root, "merged")] : []));
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(new RegExp(`different studies: study ${id} in ${out}; study [0-9a-f]{16} in ${second}`));
    }

    // The same trial judged twice, in two folders: a conflict, unless the newest is preferred.
    const twin = join(ws.root, "twin");
    cpSync(out, twin, { recursive: true });
    const [head, ...rest] = readRecords(twin);
    writeFileSync(join(twin, "trials.jsonl"), [{ ...(head as TrialRecord), pass: false, ended: "2999-01-01T00:00:00.000Z" }, ...rest].map((record) => `${JSON.stringify(record)}\n`).join(""));
    const conflict = await gg("study", "merge", out, twin, "--out", join(ws.root, "merged"));
    expect(conflict.status).toBe(2);
    expect(conflict.stderr).toContain(`verdicts in two folders: ${head?.key} (in ${out} and ${twin})`);
    // A refused merge leaves no folder behind; one into a file is refused in one line.
    expect(existsSync(join(ws.root, "merged"))).toBe(false);
    writeFileSync(join(ws.root, "a-file"), "");
    expect(await gg("study", "merge", out, "--out", join(ws.root, "a-file"))).toMatchObject({ status: 2, stderr: expect.stringMatching(/^gg: Cannot write into .*a-file: EEXIST: .*; give --out a folder you can write to\n$/) });
    expect((await gg("study", "merge", out, twin, "--out", join(ws.root, "merged"), "--prefer", "newest")).status).toBe(0);
    expect(readRecords(join(ws.root, "merged")).find((record) => record.key === head?.key)?.pass).toBe(false);

    // Two folders of one study (a shard of each half) are one study in the console; the other study stands apart.
    const half = join(ws.root, "half");
    expect((await gg("study", "run", file, "--out", half, "--shard", "1/2", ...common(server.baseURL))).status).toBe(0);
    const studies = await listStudies({ runs: [], studies: [half, second, out] });
    expect(studies.map((entry) => entry.dirs)).toEqual([[half, out], [second]]);
    const [one] = studies;
    expect(one?.report?.trials).toHaveLength(4);
    expect(one?.runs["greet/m1-tools/2"]).toBe("2/greet/m1-tools/2.jsonl");
    expect(one?.runs["greet/m1-tools/1"]).toBe("0/greet/m1-tools/1.jsonl");
  }, 300_000);
});
