// Benchmark: what a study adds to each trial beyond the agent's own time (issue 20: goal <= 150 ms on a repository of
// 1,000 files): the worktree at the case's commit, the specs found, the transcript, the patch, the check, the
// worktree's removal and the record. The agent answers at once from an in-process provider (no network), and the
// figure is each record's overheadMs, which leaves the agent's run out. A plain folder (copied, not a worktree) is shown
// beside it. Medians of RUNS trials (default 15), one at a time. Then what a run costs per trial besides the agents,
// its fixed work included (the sweep, the first checkout, the pool's removal): the worktree case as one run, and as
// SHARDS shards run one after another (a shard pays the fixed work over fewer trials). Rerun: `node bench/study.ts`.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatCompletion } from "openai/resources/chat/completions";
import type { Provider } from "../agent/provider.ts";
import { parseStudy, type Study } from "../study/file.ts";
import { type RunOptions, runStudy } from "../study/run.ts";
import { median } from "./measure.ts";

const RUNS = Number(process.env.GG_BENCH_RUNS ?? 15);
const SHARDS = 3;
const GOAL_MS = 150;
const FILES = 1000;
const root = mkdtempSync(join(tmpdir(), "gg-bench-study-"));

/** A provider whose model answers at once, without a call. */
const instant: Provider = {
  complete: async () => ({
    completion: { id: "c", object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, finish_reason: "stop", logprobs: null, message: { role: "assistant", content: "Done.", refusal: null } }], usage: { prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010 } } as ChatCompletion,
    retries: [],
  }),
};

/** `FILES` files in folders of 50, and a spec. */
function fill(dir: string): void {
  for (let i = 0; i < FILES; i++) {
    const folder = join(dir, "src", `m${Math.floor(i / 50)}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `f${i}.ts`), `export const v${i} = ${i};\n`.repeat(20));
  }
  mkdirSync(join(dir, "specs"), { recursive: true });
  writeFileSync(join(dir, "specs", "spec.md"), "# The spec\n\nEvery value is exported.\n");
}

/** A run's wall time besides its agents' runs, per trial (ms). */
async function perTrial(study: Study, options: RunOptions): Promise<{ ms: number; trials: number }> {
  const started = performance.now();
  const outcome = await runStudy(study, options);
  if (outcome.records.some((record) => record.pass !== true)) throw new Error("a trial did not pass");
  const agents = outcome.records.reduce((sum, record) => sum + record.agentMs, 0);
  return { ms: (performance.now() - started - agents) / outcome.records.length, trials: outcome.records.length };
}

try {
  const repo = join(root, "repo");
  const folder = join(root, "folder");
  fill(repo);
  fill(folder);
  const git = (...args: string[]): string => execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@localhost", ...args], { cwd: repo, encoding: "utf8" });
  git("init", "--quiet", "--initial-branch=main");
  git("add", "-A");
  git("commit", "--quiet", "-m", "start");
  const study = parseStudy(
    {
      cases: [
        { id: "worktree", workspace: "repo", ref: "main", task: "Nothing to do.", specs: ["specs/*.md"], check: "test -f specs/spec.md" },
        { id: "copy", workspace: "folder", task: "Nothing to do.", specs: ["specs/*.md"], check: "test -f specs/spec.md" },
      ],
      agents: [{ id: "a", model: "m", arm: "tools" }],
      repeats: RUNS,
    },
    join(root, "study.json"),
  );
  const options = { concurrency: 1, provider: () => instant, catalog: { source: "bench", fetched: "", models: [] } };
  const outcome = await runStudy(study, { ...options, out: join(root, "out") });
  if (outcome.records.some((record) => record.pass !== true)) throw new Error("a trial did not pass");
  console.log(`study overhead per trial beyond the agent's time, ${FILES} files, medians of ${RUNS} (goal <= ${GOAL_MS} ms for the worktree):`);
  for (const id of ["worktree", "copy"]) {
    const records = outcome.records.filter((record) => record.case === id);
    const overhead = median(records.map((record) => record.overheadMs));
    const checks = median(records.map((record) => record.check?.ms ?? 0));
    const agent = median(records.map((record) => record.agentMs));
    console.log(`  ${id.padEnd(9)} ${String(overhead).padStart(5)} ms overhead (the check ${checks} ms of it); the agent's own run ${agent} ms${id === "worktree" && overhead > GOAL_MS ? "  OVER THE GOAL" : ""}`);
  }
  const worktrees = { ...study, cases: study.cases.filter((entry) => entry.id === "worktree") };
  const single = await perTrial(worktrees, { ...options, out: join(root, "single") });
  const shards: { ms: number; trials: number }[] = [];
  for (let index = 1; index <= SHARDS; index++) shards.push(await perTrial(worktrees, { ...options, out: join(root, `shard-${index}`), shard: { index, count: SHARDS } }));
  const shard = shards.reduce((sum, one) => sum + one.ms, 0) / SHARDS;
  console.log(`a run's time besides the agents per trial, its sweep, first checkout and removal included (worktree case):`);
  console.log(`  one run of ${single.trials} trials ${single.ms.toFixed(0).padStart(5)} ms; a shard of ${SHARDS} (${shards.map((one) => one.trials).join(", ")} trials; the mean of the ${SHARDS}) ${shard.toFixed(0).padStart(5)} ms, ×${(shard / single.ms).toFixed(2)} the one run's`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
