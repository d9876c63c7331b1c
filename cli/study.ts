// gg study: runs a study file's trials (cases × agents × repeats, each in its own worktree) into a folder, and reports
// one or more such folders. The study machinery is loaded only when the command runs.
import { Command, InvalidArgumentError, Option } from "commander";
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { DEFAULT_BASE_URL } from "../agent/catalog.ts";
import { stopCommandsOnSignals } from "../host/shell.ts";
import { defineCommand, type Io, options, positive, UsageError } from "./command.ts";

interface StudyFlags {
  out?: string;
  concurrency?: number;
  shard?: { index: number; count: number };
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
  cases     [{id, workspace, ref?, task | taskFile, specs?, check?}]: a folder (or a git repository at ref) to act on,
            the task, and check: a shell command run in the trial's worktree afterwards, exit 0 meaning pass
  agents    [{id, model, arm, config?, agent?}]: arm "tools" or "code"; config a file or an inline configuration
  repeats   trials per case and agent (default 1); maxTurns, budgetSecs: each trial's limits
  models    {"MODEL": {"concurrency": N}}: a model's own bound on trials at once
Every problem of a study file is named in one refusal (exit 2). docs/studies.md describes it all.
`;

/** gg study, with its two subcommands, each taking its own options. */
export function studyCommand(io: Io) {
  return new Command("study")
    .description("run a study (cases × agents × repeats, each trial in its own git worktree, judged by the case's check) and report it")
    .addHelpText("after", "\nExamples:\n  gg study run study.json --out results --concurrency 4\n  gg study report shard-1 shard-2 shard-3\n")
    .addCommand(runCommand(io))
    .addCommand(reportCommand(io));
}

function runCommand(io: Io) {
  return defineCommand(
    io,
    "run <study>",
    "run a study file's unfinished trials into a folder: trials.jsonl, transcripts/, diffs/ (exit 1 when a trial ended in a provider error)",
    ["gg study run study.json --out results --concurrency 4", "gg study run study.json --out shard-2 --shard 2/3"],
    async (file: string, flags: StudyFlags) => await runStudyCommand(file, flags, io),
  )
    .addHelpText("after", STUDY_FILE_HELP)
    .addOption(new Option("--out <dir>", "the folder of trials.jsonl, transcripts/, diffs/ (default: the study file's name with .results)"))
    .addOption(new Option("--concurrency <n>", `trials in flight at once (default ${DEFAULT_CONCURRENCY}); a model's own concurrency in the study bounds it further`).argParser(positive(true)))
    .addOption(new Option("--shard <i/n>", "only the I-th of N disjoint shares of the trials, e.g. 2/3").argParser(shardOption))
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
    ["gg study report results", "gg study report shard-1 shard-2 shard-3 --json"],
    async (dirs: string[], flags: { json?: boolean }) => {
      for (const dir of dirs) if (!existsSync(join(dir, "trials.jsonl"))) throw new UsageError(`Cannot report ${dir}: it holds no trials.jsonl; name a folder gg study run wrote (its --out)`);
      const { reportText, studyReport } = await import("../study/report.ts");
      const report = studyReport(dirs);
      io.out(flags.json ? `${JSON.stringify(report)}\n` : reportText(report));
      return 0;
    },
  ).addOption(options.json("print the report as one JSON object"));
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
  const baseURL = flags.baseUrl ?? DEFAULT_BASE_URL;
  const { modelAccess } = await import("./agent_run.ts");
  const { key, scrub, catalog } = modelAccess(baseURL, flags.catalog);
  stopCommandsOnSignals();
  const [{ runStudy }, { reportText, studyReport }, { retryLine }] = await Promise.all([import("../study/run.ts"), import("../study/report.ts"), import("./summary.ts")]);
  const out = flags.out ?? join(dirname(file), `${basename(file).replace(/\.json$/, "")}.results`);
  const warn = (text: string): void => io.err(scrub(text));
  const outcome = await runStudy(study, {
    out,
    concurrency: flags.concurrency ?? DEFAULT_CONCURRENCY,
    ...(flags.shard ? { shard: flags.shard } : {}),
    ...(flags.keep ? { keep: true } : {}),
    catalog,
    scrub,
    progress: warn,
    provider: (trial) => openAIProvider({ baseURL, apiKey: key, onRetry: (retry, maxRetries) => warn(`${trial.key}: ${retryLine(retry, maxRetries)}`) }),
  });
  const errors = outcome.records.filter((record) => record.pass === null).length;
  if (flags.json) io.out(`${JSON.stringify({ ok: errors === 0, out, trials: outcome.total, skipped: outcome.skipped, ran: outcome.records.length, errors })}\n`);
  else io.out(scrub(reportText(studyReport([out]))));
  return errors === 0 ? 0 : 1;
}
