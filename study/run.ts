// Running a study: what an earlier run left is swept, the trials not yet finished run (at most `concurrency` at once,
// and at most a model's own concurrency of that model's), each in its own directory, judged by its case's check, and
// recorded the moment it ends: a line of trials.jsonl, its transcript, its patch. The runs share one vision ledger,
// so a model refused a picture is text-only for the rest of the study.
import { existsSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import picomatch from "picomatch";
import { type Catalog, modelInfo } from "../agent/catalog.ts";
import { type AgentReport, bandsTotal, runAgent } from "../agent/loop.ts";
import type { Provider } from "../agent/provider.ts";
import { transcriptWriter } from "../agent/transcript.ts";
import { createVisionLedger, type VisionLedger } from "../agent/vision.ts";
import { execute, shellPolicy, WHOLE_OUTPUT } from "../bindings/shell.ts";
import { excerpt, GgError } from "../host/errors.ts";
import { dollars, grouped, plural, seconds } from "../host/lines.ts";
import { walkFiles, walkRoot } from "../host/walk.ts";
import type { Study } from "./file.ts";
import { FoldersError, makeResultsFolder, recordedIdentity, studyIdentity } from "./identity.ts";
import { branchIdOf, diffOf, drainPool, git, type Isolation, isolate, releaseIsolation, type Swept, sweep } from "./isolate.ts";
import { appendRecord, billedOf, isFinished, latestByKey, readRecords, type Shard, shardOf, type Trial, type TrialRecord, trialsOf, verdictOf } from "./trials.ts";
import { makeFolder } from "../host/folders.ts";

/** How to run a study. */
export interface RunOptions {
  /** The output folder: trials.jsonl, transcripts/, diffs/, worktrees/ (relative to the current directory). */
  out: string;
  /** Trials in flight at once, the whole study over. */
  concurrency: number;
  shard?: Shard;
  /** Keep each trial's worktree (or copy) and branch. */
  keep?: boolean;
  /** The provider trial `trial` talks to. */
  provider(trial: Trial): Provider;
  catalog: Catalog;
  /** Applied to everything written (takes the API key out). */
  scrub?(text: string): string;
  /** Progress, a line at a time. */
  progress?(line: string): void;
  /** Once aborted, no trial starts and no trial is recorded (a signal ends the run; its sweep follows). */
  stop?: AbortSignal;
}

/** What a run did. */
export interface StudyOutcome {
  /** Trials of this shard. */
  total: number;
  /** Finished by an earlier run, so not run again. */
  skipped: number;
  /** Records this run appended. */
  records: TrialRecord[];
  /** What an earlier run had left behind, removed. */
  swept: Swept;
}

/** Bytes of a check's output kept in its record (the tail). */
const CHECK_OUTPUT_CHARS = 2000;

/**
 * How many of `trials` can run at once, as schedule runs them: at most `limit`, and of each model at most its own
 * concurrency; "2 at once (m: at most 2)" names the models whose own bound holds it under `limit`.
 */
export function atOnce(trials: Trial[], limit: number, perModel: Record<string, number>): string {
  const counts = new Map<string, number>();
  for (const trial of trials) counts.set(trial.agent.model, (counts.get(trial.agent.model) ?? 0) + 1);
  const bounded = [...counts].filter(([model]) => (perModel[model] ?? Number.POSITIVE_INFINITY) < Math.min(limit, counts.get(model) ?? 0));
  const most = Math.min(limit, [...counts].reduce((sum, [model, count]) => sum + Math.min(count, perModel[model] ?? Number.POSITIVE_INFINITY), 0));
  return `${most} at once${bounded.length > 0 ? ` (${bounded.map(([model]) => `${model}: at most ${perModel[model]}`).join(", ")})` : ""}`;
}

/** Runs `run` over `trials`, at most `limit` at once and at most `perModel[model]` of a model's. */
function schedule(trials: Trial[], limit: number, perModel: Record<string, number>, run: (trial: Trial) => Promise<void>): Promise<void> {
  const queue = [...trials];
  const busy = new Map<string, number>();
  let running = 0;
  return new Promise((done) => {
    const pump = (): void => {
      if (queue.length === 0 && running === 0) return done();
      for (let at = 0; at < queue.length && running < limit; ) {
        const trial = queue[at] as Trial;
        const model = trial.agent.model;
        if ((busy.get(model) ?? 0) >= (perModel[model] ?? Number.POSITIVE_INFINITY)) {
          at++;
          continue;
        }
        queue.splice(at, 1);
        running++;
        busy.set(model, (busy.get(model) ?? 0) + 1);
        void run(trial).finally(() => {
          running--;
          busy.set(model, (busy.get(model) ?? 1) - 1);
          pump();
        });
      }
    };
    pump();
  });
}

/**
 * The files of `dir` the globs match, in path order (the ignore rules apply, as in every walk). Each glob's walk starts
 * at its static base ("specs" of "specs/*.png"), not at the root of a big repository.
 */
function specFiles(dir: string, globs: string[]): string[] {
  const found = new Set<string>();
  for (const glob of globs) {
    const matches = picomatch(glob, { dot: true });
    const base = picomatch.scan(glob).base;
    const start = join(dir, base);
    if (!existsSync(start)) continue;
    for (const file of walkFiles(walkRoot(start, dir))) {
      const path = base === "" ? file.relative : `${base}/${file.relative}`;
      if (matches(path)) found.add(path);
    }
  }
  return [...found].sort();
}

/** The study as resolved, for the report (which agents differ in what), headed by its identity. */
function studyJson(study: Study, id: string): string {
  const { file, cases, agents, repeats, maxTurns, budgetSecs, concurrency } = study;
  return `${JSON.stringify({ id, file, cases: cases.map(({ task: _, ...entry }) => entry), agents, repeats, maxTurns, budgetSecs, concurrency }, null, 2)}\n`;
}

/** Refuses a folder holding another study's trials: its records would count as this study's. */
function claimFolder(study: Study, out: string): string {
  const id = studyIdentity(study);
  const recorded = recordedIdentity(out);
  if (recorded !== undefined && recorded !== id) {
    throw new FoldersError(`Cannot run the study ${study.file} into ${out}: it holds the trials of study ${recorded}, and the study file is now study ${id} (a case, an agent or a limit changed since; more repeats keep a study the same); run it into a new --out, or remove ${out} to start again`);
  }
  return id;
}

/** Results inside a case's repository ignore themselves, so they never show in its git status. */
function ignoreInRepositories(out: string, repos: string[]): void {
  const inside = repos.some((repo) => {
    const path = relative(repo, out);
    return path !== "" && !path.startsWith("..") && !isAbsolute(path);
  });
  if (inside && !existsSync(join(out, ".gitignore"))) writeFileSync(join(out, ".gitignore"), "# gg study results: not part of the repository\n*\n");
}

/** A trial's record but its wall time, which is taken once its directory is released. */
type Ended = Omit<TrialRecord, "wallMs">;

/** A record of a trial that got no verdict. */
function failedRecord(trial: Trial, code: string, message: string, started: number, commit: string | null): Ended {
  return {
    ...identity(trial),
    commit,
    pass: null,
    error: { code, message },
    check: null,
    turns: 0,
    estimate: { system: 0, tools: 0, messages: 0, toolResults: 0, views: 0, entered: 0 },
    usage: null,
    cost: null,
    agentMs: 0,
    overheadMs: Math.round(performance.now() - started),
    retries: 0,
    wastedRequests: 0,
    filesChanged: { created: [], modified: [], deleted: [] },
    ended: new Date().toISOString(),
  };
}

const identity = (trial: Trial) => ({ key: trial.key, case: trial.case.id, agent: trial.agent.id, model: trial.agent.model, arm: trial.agent.arm, repeat: trial.repeat });

/** Runs the case's check in the trial's directory, under the agent's shell policy: exit 0 passes; a timeout fails. */
async function judge(command: string, isolation: Isolation, trial: Trial): Promise<NonNullable<TrialRecord["check"]>> {
  const started = performance.now();
  try {
    const result = await execute(command, { cwd: isolation.dir, policy: shellPolicy(trial.agent.config) ?? WHOLE_OUTPUT, agent: "study-check" });
    return { exitCode: result.exitCode, ms: Math.round(performance.now() - started), output: result.output.slice(-CHECK_OUTPUT_CHARS) };
  } catch (error) {
    if (error instanceof GgError && error.code === "timeout") return { exitCode: 124, ms: Math.round(performance.now() - started), output: error.message.slice(-CHECK_OUTPUT_CHARS) };
    throw error;
  }
}

/** The record of a trial whose agent ran. */
function agentRecord(trial: Trial, report: AgentReport, commit: string): Omit<TrialRecord, "pass" | "check" | "agentMs" | "overheadMs" | "ended" | "wallMs"> {
  const { usage, turnsWithoutUsage, estimate, retries, cost } = report.totals;
  const reported = report.turns.length > turnsWithoutUsage;
  return {
    ...identity(trial),
    commit,
    error: report.error ?? null,
    turns: report.turns.length,
    estimate: { ...estimate, entered: bandsTotal(estimate) },
    usage: reported ? { prompt: usage.promptTokens, completion: usage.completionTokens, cached: usage.cachedTokens ?? null, cacheWritten: usage.cacheWriteTokens ?? null, turnsWithoutUsage } : null,
    cost,
    retries,
    wastedRequests: report.wastedRequests,
    filesChanged: report.filesChanged,
  };
}

/** One trial, start to record; never throws. */
async function runTrial(trial: Trial, study: Study, options: RunOptions, ledger: VisionLedger): Promise<Ended> {
  const started = performance.now();
  const scrub = options.scrub ?? ((text: string) => text);
  let isolation: Isolation | undefined;
  try {
    isolation = await isolate(trial.case, trial.key, options.out, branchIdOf(options.out), !options.keep);
  } catch (error) {
    return failedRecord(trial, "isolation-failed", `Cannot make trial ${trial.key}'s directory: ${(error as Error).message}`, started, trial.case.git?.commit ?? null);
  }
  try {
    const specs = specFiles(isolation.dir, trial.case.specs);
    const { agent, model, arm, config } = trial.agent;
    const transcriptFile = join(options.out, "transcripts", `${trial.key}.jsonl`);
    makeFolder(dirname(transcriptFile));
    const transcript = transcriptWriter(transcriptFile, { model, arm, task: trial.case.task, config, ...(agent === undefined ? {} : { agent }), specs }, scrub);
    const info = modelInfo(options.catalog, model);
    const agentStarted = performance.now();
    const report = await runAgent({
      provider: options.provider(trial),
      model,
      arm,
      task: trial.case.task,
      workspace: isolation.dir,
      config,
      ...(agent === undefined ? {} : { agent }),
      ...(study.maxTurns === undefined ? {} : { maxTurns: study.maxTurns }),
      ...(study.budgetSecs === undefined ? {} : { budgetSecs: study.budgetSecs }),
      ...(info.contextLength === undefined ? {} : { contextLength: info.contextLength }),
      ...(info.vision === undefined ? {} : { vision: info.vision }),
      ...(info.pricing === undefined ? {} : { pricing: info.pricing }),
      visionLedger: ledger,
      specs,
      onRecord: transcript.onRecord,
    });
    const agentMs = Math.round(performance.now() - agentStarted);
    transcript.end(report);
    const base = agentRecord(trial, report, isolation.commit);
    if (report.error?.code === "provider-error") return { ...base, pass: null, check: null, agentMs, overheadMs: Math.round(performance.now() - started - agentMs), ended: new Date().toISOString() };
    const patchFile = join(options.out, "diffs", `${trial.key}.patch`);
    makeFolder(dirname(patchFile));
    writeFileSync(patchFile, scrub(await diffOf(isolation)));
    let check: TrialRecord["check"] = null;
    try {
      if (trial.case.check !== undefined) check = await judge(trial.case.check, isolation, trial);
    } catch (error) {
      // The agent's run stands (its tokens and cost were spent); only the verdict is missing, and a re-run retries it.
      const message = `Cannot run the check of case ${trial.case.id}: ${(error as Error).message}`;
      return { ...base, pass: null, check: null, error: { code: "check-failed", message }, agentMs, overheadMs: Math.round(performance.now() - started - agentMs), ended: new Date().toISOString() };
    }
    const pass = check ? check.exitCode === 0 : report.ok;
    const kept = options.keep ? { kept: { path: isolation.root, ...(isolation.branch ? { branch: isolation.branch } : {}) } } : {};
    return { ...base, pass, check, agentMs, overheadMs: Math.round(performance.now() - started - agentMs), ...kept, ended: new Date().toISOString() };
  } catch (error) {
    return failedRecord(trial, "isolation-failed", `Cannot finish trial ${trial.key}: ${(error as Error).message}`, started, isolation.commit);
  } finally {
    if (!options.keep) await releaseIsolation(isolation).catch(() => {});
  }
}

/** The git repositories of the study's cases. */
const reposOf = (study: Study): string[] => [...new Set(study.cases.flatMap((entry) => (entry.git ? [entry.git.root] : [])))];

/**
 * Removes the worktrees and branches runs into `out` left in the cases' repositories, but those of trials `records`
 * (the folder's) say were kept (--keep): what a run does first, and what a run a signal ends does last.
 */
export async function sweepFolder(study: Study, given: string, records = readRecords(resolve(given))): Promise<Swept> {
  const out = resolve(given);
  const latest = latestByKey(records);
  const kept = new Set([...latest.values()].filter((record) => record.kept && isFinished(record)).map((record) => record.key));
  return sweep(out, branchIdOf(out), reposOf(study), kept);
}

/**
 * Runs the study's unfinished trials (of the shard) into `options.out`, appending a record as each ends; a folder
 * holding another study's trials, or one that cannot be made, is refused (FoldersError).
 */
export async function runStudy(study: Study, given: RunOptions): Promise<StudyOutcome> {
  // git runs in the case's repository: a relative folder would land there.
  const options = { ...given, out: resolve(given.out) };
  const { out } = options;
  const progress = options.progress ?? (() => {});
  const id = claimFolder(study, out);
  const repos = reposOf(study);
  makeResultsFolder(out);
  ignoreInRepositories(out, repos);
  writeFileSync(join(out, "study.json"), studyJson(study, id));
  const earlier = readRecords(out);
  const swept = await sweepFolder(study, out, earlier);
  const latest = latestByKey(earlier);
  if (swept.worktrees.length + swept.branches.length > 0) progress(`removed ${plural(swept.worktrees.length, "worktree")} and ${plural(swept.branches.length, "branch", "branches")} an earlier run left\n`);
  const all = options.shard ? shardOf(trialsOf(study), options.shard) : trialsOf(study);
  const pending = all.filter((trial) => !(latest.has(trial.key) && isFinished(latest.get(trial.key) as TrialRecord)));
  const skipped = all.length - pending.length;
  progress(`${plural(all.length, "trial")}${options.shard ? ` (shard ${options.shard.index}/${options.shard.count})` : ""}: ${skipped} finished earlier, ${pending.length} to run, ${atOnce(pending, options.concurrency, study.concurrency)}\n`);
  const ledger = createVisionLedger();
  // What earlier runs into this folder learned holds for this one: a model refused a picture sends none again.
  for (const record of earlier) if (record.wastedRequests > 0) ledger.refused(record.model);
  const records: TrialRecord[] = [];
  const totals = { passes: 0, tokens: 0, cost: 0, costKnown: true };
  await schedule(pending, options.concurrency, study.concurrency, async (trial) => {
    if (options.stop?.aborted) return;
    const started = performance.now();
    const record: TrialRecord = { ...(await runTrial(trial, study, options, ledger)), wallMs: 0 };
    // A trial the signal cut short (its check killed, its worktree swept) is run again by the next run.
    if (options.stop?.aborted) return;
    record.wallMs = Math.round(performance.now() - started);
    appendRecord(out, record);
    records.push(record);
    if (record.pass) totals.passes++;
    totals.tokens += billedOf(record) ?? 0;
    if (record.cost === null) totals.costKnown = false;
    else totals.cost += record.cost;
    // An error says what went wrong on the line itself, not only in trials.jsonl.
    const why = record.pass === null && record.error ? ` (${excerpt(record.error.message.replace(/\s+/g, " "), 300)})` : "";
    const trialLine = `${verdictOf(record)}${why}, ${plural(record.turns, "turn")}, ${grouped(billedOf(record) ?? 0)} tokens, ${dollars(record.cost)}, ${seconds(record.wallMs)}`;
    const cost = totals.costKnown ? dollars(totals.cost) : totals.cost === 0 ? "cost unknown" : `${dollars(totals.cost)} + unknown`;
    const soFar = `${totals.passes} passed, ${grouped(totals.tokens)} tokens, ${cost} so far`;
    progress(`[${skipped + records.length}/${all.length}] ${trial.key} ${trialLine}; ${soFar}\n`);
  });
  await drainPool(out);
  // Whatever a removal missed is forgotten.
  for (const repo of repos) await git(["worktree", "prune"], repo).catch(() => {});
  return { total: all.length, skipped, records, swept };
}
