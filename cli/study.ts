// gg study: runs a study file's trials (cases × agents × repeats, each in its own worktree) into a folder, merges the
// folders of one study (shards) into one, and reports them. The study machinery is loaded only when the command runs.
import { Command, InvalidArgumentError, Option } from "commander";
import { existsSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { DEFAULT_BASE_URL } from "../agent/catalog.ts";
import { stopCommandsOnSignals } from "../host/shell.ts";
import { plural } from "../host/lines.ts";
import { defineCommand, type Io, options, positive, signalWords, UsageError } from "./command.ts";

interface StudyFlags {
  out?: string;
  concurrency?: number;
  shard?: { index: number; count: number };
  shards?: number;
  baseUrl?: string;
  catalog?: string;
  keep?: boolean;
  json?: boolean;
}

/** Trials in flight at once when --concurrency names none. */
const DEFAULT_CONCURRENCY = 4;

/** --shard I/N: the I-th of N, 1-based. */
function shardOption(text: string): { index: number; count: number } {
  const found = /^(\d+)\/(\d+)$/.exec(text);
  const [index, count] = [Number(found?.[1]), Number(found?.[2])];
  if (!found || count < 1 || index < 1 || index > count) throw new InvalidArgumentError("it must be I/N with 1 ≤ I ≤ N, e.g. 2/3");
  return { index, count };
}

/** What `gg help study run` says of the study file; docs/studies.md has the whole of it. */
const STUDY_FILE_HELP = `
The study file (JSON; relative paths start at its folder):
  cases     [{id, workspace, ref?, task | taskFile, specs?, check?}]: a folder
            (or a git repository at ref) to act on, the task, and check: a
            shell command run in the trial's worktree afterwards, exit 0 a pass
  agents    [{id, model, arm, config?, agent?}]: arm "tools" or "code";
            config a file or an inline configuration
  repeats   trials per case and agent (default 1)
  maxTurns, budgetSecs: each trial's limits
  models    {"MODEL": {"concurrency": N}}: a model's own bound on trials at once
Every problem of a study file is named in one refusal (exit 2).
docs/studies.md describes it all.
`;

/** gg study, with its two subcommands, each taking its own options. */
export function studyCommand(io: Io) {
  return new Command("study")
    .description("run a study (cases × agents × repeats, each trial in its own git worktree, judged by the case's check) and report it")
    .addHelpText("after", "\nExamples:\n  gg study run study.json --out results --concurrency 4\n  gg study merge shard-0 shard-1 shard-2 --out merged\n")
    .addCommand(runCommand(io))
    .addCommand(mergeCommand(io))
    .addCommand(reportCommand(io));
}

function runCommand(io: Io) {
  return defineCommand(
    io,
    "run <study>",
    "run a study file's unfinished trials into a folder: trials.jsonl, transcripts/, diffs/ (exit 1 when a trial ended in a provider error)",
    ["gg study run study.json --out results --concurrency 4", "JOB_COMPLETION_INDEX=1 gg study run study.json --out shard-1 --shards 3"],
    async (file: string, flags: StudyFlags) => await runStudyCommand(file, flags, io),
  )
    .addHelpText("after", STUDY_FILE_HELP)
    .addOption(new Option("--out <dir>", "the folder of trials.jsonl, transcripts/, diffs/, relative to the current directory (default: the study file's name with .results, beside it)"))
    .addOption(new Option("--concurrency <n>", `trials in flight at once (default ${DEFAULT_CONCURRENCY}); a model's own concurrency in the study bounds it further`).argParser(positive(true)))
    .addOption(new Option("--shard <i/n>", "only the I-th of N disjoint shares of the trials, e.g. 2/3").argParser(shardOption))
    .addOption(new Option("--shards <n>", "only this worker's share of N, its 0-based index read from JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN or GG_SHARD_INDEX (index I is --shard I+1/N)").argParser(positive(true)))
    .addOption(new Option("--base-url <url>", `an OpenAI-compatible endpoint (default ${DEFAULT_BASE_URL})`))
    .addOption(options.catalog())
    .addOption(new Option("--keep", "keep each trial's worktree and branch (recorded in trials.jsonl)"))
    .addOption(options.json("print the outcome (trials, skipped, ran, errors) as one JSON object instead of the report"));
}

function reportCommand(io: Io) {
  return defineCommand(
    io,
    "report <dirs...>",
    "report study folders (shards merged): a row per case and agent, then the pairs of agents that differ in one thing",
    ["gg study report results", "gg study report shard-0 shard-1 shard-2 --json"],
    async (dirs: string[], flags: { json?: boolean }) => {
      studyFolders(dirs, "report");
      const [{ reportText, studyReport }, { oneStudy }] = await Promise.all([import("../study/report.ts"), import("../study/identity.ts")]);
      await refused(() => oneStudy(dirs, `report ${dirs.join(", ")} together`));
      const report = studyReport(dirs);
      io.out(flags.json ? `${JSON.stringify(report)}\n` : reportText(report));
      return 0;
    },
  ).addOption(options.json("print the report as one JSON object"));
}

function mergeCommand(io: Io) {
  return defineCommand(
    io,
    "merge <dirs...>",
    "merge study folders of one study (shards) into one: each trial's record that counts, its transcript and patch (a trial with verdicts in two folders is refused)",
    ["gg study merge shard-0 shard-1 shard-2 --out merged", "gg study merge shards/* --out merged --prefer newest"],
    async (dirs: string[], flags: { out: string; prefer?: "newest" }) => {
      studyFolders(dirs, "merge");
      const { mergeFolders } = await import("../study/merge.ts");
      const merged = await refused(() => mergeFolders(dirs, flags.out, flags.prefer ?? "none"));
      const verdicts = merged.records.filter((record) => record.pass !== null).length;
      io.out(`Merged ${merged.records.length} trials of study ${merged.study ?? "(not recorded)"} from ${dirs.length} folders into ${flags.out}: ${verdicts} with a verdict, ${merged.records.length - verdicts} without.\n`);
      return 0;
    },
  )
    .addOption(new Option("--out <dir>", "the merged folder (new, or an earlier merge of the same study)").makeOptionMandatory())
    .addOption(new Option("--prefer <which>", "for a trial with verdicts in two folders, take the newest rather than refuse").choices(["newest"]));
}

/** Refuses a folder that gg study run did not write. */
function studyFolders(dirs: string[], action: string): void {
  for (const dir of dirs) if (!existsSync(join(dir, "trials.jsonl"))) throw new UsageError(`Cannot ${action} ${dir}: it holds no trials.jsonl; name a folder gg study run wrote (its --out)`);
}

/** `work`'s result; study folders refused (different studies, conflicting verdicts) as a usage error (exit 2). */
async function refused<T>(work: () => T | Promise<T>): Promise<T> {
  const { FoldersError } = await import("../study/identity.ts");
  try {
    return await work();
  } catch (error) {
    if (error instanceof FoldersError) throw new UsageError(error.message);
    throw error;
  }
}

/** The shard --shard or --shards names, if any; both together, or --shards without an index, refused. */
async function shardOf(flags: StudyFlags): Promise<{ index: number; count: number } | undefined> {
  if (flags.shards === undefined) return flags.shard;
  const { SHARD_VARIABLES, shardFromEnvironment } = await import("../study/shard.ts");
  if (flags.shard) throw new UsageError(`Cannot take both --shard ${flags.shard.index}/${flags.shard.count} and --shards ${flags.shards}: --shards reads the index from ${SHARD_VARIABLES.join(", ")}; give one of them`);
  const found = shardFromEnvironment(flags.shards);
  if ("refused" in found) throw new UsageError(found.refused);
  return found.shard;
}

/** gg study run: exit 0 when every trial has a verdict, 1 when some ended in an error, 2 for a refused study. */
async function runStudyCommand(file: string, flags: StudyFlags, io: Io): Promise<number> {
  const { loadStudy, StudyError } = await import("../study/file.ts");
  const { openAIProvider } = await import("../agent/provider.ts");
  let study;
  try {
    study = loadStudy(file);
  } catch (error) {
    if (error instanceof StudyError) throw new UsageError(error.message);
    throw error;
  }
  const shard = await shardOf(flags);
  const baseURL = flags.baseUrl ?? DEFAULT_BASE_URL;
  const { modelAccess } = await import("./agent_run.ts");
  const { key, scrub, catalog } = modelAccess(baseURL, flags.catalog);
  const [{ runStudy, sweepFolder }, { reportText, studyReport }, { retryLine }] = await Promise.all([import("../study/run.ts"), import("../study/report.ts"), import("./summary.ts")]);
  const out = resolve(flags.out ?? join(dirname(file), `${basename(file).replace(/\.json$/, "")}.results`));
  const warn = (text: string): void => io.err(scrub(text));
  const { sandboxWarning } = await import("../bindings/sandbox.ts");
  const unconfinable = await sandboxWarning(study.agents.map((agent) => agent.config));
  if (unconfinable) warn(unconfinable);
  // A signal leaves the cases' repositories as they were: no trial starts or is recorded any more, and the worktrees
  // of the trials in flight go with their branches.
  const stop = new AbortController();
  stopCommandsOnSignals(async (signal) => {
    stop.abort();
    const swept = await sweepFolder(study, out).catch(() => undefined);
    const removed = swept ? `removed ${plural(swept.worktrees.length, "worktree")} and ${plural(swept.branches.length, "branch", "branches")}` : "some worktrees may be left for the next run into the folder to remove";
    io.err(`gg: the study was cancelled by ${signalWords(signal)}; the trials in flight were stopped and are not recorded, ${removed}; run it again to go on where it stopped\n`);
  });
  const outcome = await refused(() =>
    runStudy(study, {
      out,
      concurrency: flags.concurrency ?? DEFAULT_CONCURRENCY,
      ...(shard ? { shard } : {}),
      ...(flags.keep ? { keep: true } : {}),
      catalog,
      scrub,
      progress: warn,
      stop: stop.signal,
      provider: (trial) => openAIProvider({ baseURL, apiKey: key, onRetry: (retry, maxRetries) => warn(`${trial.key}: ${retryLine(retry, maxRetries)}`) }),
    }),
  );
  const errors = outcome.records.filter((record) => record.pass === null).length;
  if (flags.json) io.out(`${JSON.stringify({ ok: errors === 0, out, trials: outcome.total, skipped: outcome.skipped, ran: outcome.records.length, errors })}\n`);
  else io.out(scrub(reportText(studyReport([out]))));
  return errors === 0 ? 0 : 1;
}
