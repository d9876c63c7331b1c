// Benchmark: what a study adds to each trial beyond the agent's own time (issue 20: goal <= 150 ms on a repository of
// 1,000 files): the worktree at the case's commit, the specs found, the transcript, the patch, the check, the
// worktree's removal and the record. The agent answers at once from an in-process provider (no network), and the
// figure is each record's overheadMs, which leaves the agent's run out. A plain folder (copied, not a worktree) is shown
// beside it. Medians of RUNS trials (default 15), one at a time. Rerun: `node bench/study.ts`.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatCompletion } from "openai/resources/chat/completions";
import type { Provider } from "../agent/provider.ts";
import { parseStudy } from "../study/file.ts";
import { runStudy } from "../study/run.ts";
import { median } from "./measure.ts";

const RUNS = Number(process.env.GG_BENCH_RUNS ?? 15);
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
  const outcome = await runStudy(study, { out: join(root, "out"), concurrency: 1, provider: () => instant, catalog: { source: "bench", fetched: "", models: [] } });
  if (outcome.records.some((record) => record.pass !== true)) throw new Error("a trial did not pass");
  console.log(`study overhead per trial beyond the agent's time, ${FILES} files, medians of ${RUNS} (goal <= ${GOAL_MS} ms for the worktree):`);
  for (const id of ["worktree", "copy"]) {
    const records = outcome.records.filter((record) => record.case === id);
    const overhead = median(records.map((record) => record.overheadMs));
    const checks = median(records.map((record) => record.check?.ms ?? 0));
    const agent = median(records.map((record) => record.agentMs));
    console.log(`  ${id.padEnd(9)} ${String(overhead).padStart(5)} ms overhead (the check ${checks} ms of it); the agent's own run ${agent} ms${id === "worktree" && overhead > GOAL_MS ? "  OVER THE GOAL" : ""}`);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
