// What gg agent does once its command line is accepted: drives a model through either arm on a workspace, with a
// progress line per turn and per retry and a closing summary on stderr, and the answer on stdout (or the agent report
// with --json); or replays a transcript. Loaded only by gg agent.
import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import type { Configuration } from "../bindings/config.ts";
import { errorText } from "../bindings/define.ts";
import { sandboxWarning } from "../bindings/sandbox.ts";
import { type AgentReport, type CallOutcome, runAgent, totalsOf, type TurnRecord } from "../agent/loop.ts";
import { stopCommandsOnSignals } from "../host/shell.ts";
import type { Arm } from "../agent/prompts.ts";
import { type Catalog, CatalogError, loadCatalog, modelInfo } from "../agent/catalog.ts";
import type { Pricing } from "../agent/pricing.ts";
import { apiKeyFor, openAIProvider, scrubberOf, withholdKey } from "../agent/provider.ts";
import { differences, readTranscript, recordedCalls, replayOptions, TranscriptError, type TranscriptEntry, type TranscriptStart, toldTexts, transcriptWriter } from "../agent/transcript.ts";
import { plural } from "../host/lines.ts";
import { approverFor, type StandingAnswer } from "./approve.ts";
import { checkBaseURL, signalWords, UsageError, warmOf, workspaceOf } from "./command.ts";
import { retryLine, summaryText, turnLine } from "./summary.ts";

/** What `gg agent` is given, checked by the caller. */
export interface AgentFlags {
  model: string;
  arm: Arm;
  task: string;
  baseURL: string;
  /** A catalog file instead of the user's copy or the shipped one. */
  catalog?: string;
  workspace: string;
  config: Configuration;
  agent?: string;
  maxTurns?: number;
  budget?: number;
  /** --warm-cap, in MiB. */
  warmCap?: number;
  /** Where to write the run as JSON Lines. */
  transcript?: string;
  /** What an ask gets without a terminal (or always, when given). */
  approve?: StandingAnswer;
  json: boolean;
}

/** The task of --task or --task-file; `refuse` throws the command line's refusal. */
export function taskOf(task: string | undefined, file: string | undefined, refuse: (message: string) => never): string {
  if ((task === undefined) === (file === undefined)) refuse("gg agent needs one of --task TEXT or --task-file FILE");
  if (task !== undefined) return task;
  try {
    return readFileSync(file as string, "utf8");
  } catch (error) {
    return refuse(`Cannot read the task file ${file}: ${(error as Error).message}`);
  }
}

/**
 * What a command that calls a model needs before it starts: the key for `baseURL` (withheld from the commands agents
 * run, and scrubbed from whatever is printed or written) and the catalog; a missing key or an unreadable catalog is
 * refused.
 */
export function modelAccess(baseURL: string, catalogFile: string | undefined): { key: string; scrub: (text: string) => string; catalog: Catalog } {
  checkBaseURL(baseURL);
  const found = apiKeyFor(baseURL);
  if ("refused" in found) throw new UsageError(found.refused);
  let catalog: Catalog;
  try {
    catalog = loadCatalog(catalogFile).catalog;
  } catch (error) {
    throw error instanceof CatalogError ? new UsageError(error.message) : error;
  }
  withholdKey(found.key);
  return { key: found.key, scrub: scrubberOf(found.key), catalog };
}

/** A transcript opened at `file` (its folder made when missing); one that cannot be written is refused before the run. */
function openTranscript(file: string, start: Parameters<typeof transcriptWriter>[1], scrub: (text: string) => string): ReturnType<typeof transcriptWriter> {
  try {
    return transcriptWriter(file, start, scrub);
  } catch (error) {
    throw new UsageError(`Cannot write the transcript ${file}: ${(error as Error).message}; name a file in a folder you can write to`);
  }
}

/** Runs the agent: exit 0 when the model answered, 1 when the run ended otherwise; a provider or catalog that cannot be used is refused (exit 2). */
export async function runAgentCommand(flags: AgentFlags, out: (text: string) => void, err: (text: string) => void): Promise<number> {
  const { key, scrub, catalog } = modelAccess(flags.baseURL, flags.catalog);
  const [print, warn] = [(text: string) => out(scrub(text)), (text: string) => err(scrub(text))];
  const unconfinable = await sandboxWarning([flags.config]);
  if (unconfinable) warn(unconfinable);
  const provider = openAIProvider({ baseURL: flags.baseURL, apiKey: key, onRetry: (retry, maxRetries) => warn(retryLine(retry, maxRetries)) });
  const info = modelInfo(catalog, flags.model);
  const started = performance.now();
  const transcript = flags.transcript === undefined ? undefined : openTranscript(flags.transcript, { model: flags.model, arm: flags.arm, task: flags.task, config: flags.config, ...(flags.agent === undefined ? {} : { agent: flags.agent }), workspace: flags.workspace }, scrub);
  // What the run did so far, for a signal to end it with: its summary said, its transcript closed.
  const sofar: SoFar = { turns: [], calls: [] };
  // gg's own transcript, when it is in the workspace, is no file the run changed.
  const ours = flags.transcript === undefined ? (files: AgentReport["filesChanged"]) => files : notListing(relative(flags.workspace, resolve(flags.transcript)));
  stopCommandsOnSignals((signal) => {
    const report = cancelledRun(sofar, signal, info.pricing);
    transcript?.end(report);
    tell(report, flags, { print, warn, wallMs: performance.now() - started, pricing: info.pricing });
  });
  const ran = await runAgent({
    approve: approverFor(flags.approve, warn),
    onFiles: (files) => (sofar.files = () => ours(files())),
    onAnswer: (turn) => (sofar.answered = { turn, at: performance.now() }),
    onRecord: (entry) => {
      if (entry.type === "call") sofar.calls.push(entry.outcome);
      transcript?.onRecord(entry);
    },
    ...(info.vision === undefined ? {} : { vision: info.vision }),
    ...(info.contextLength === undefined ? {} : { contextLength: info.contextLength }),
    ...(info.pricing === undefined ? {} : { pricing: info.pricing }),
    provider,
    model: flags.model,
    arm: flags.arm,
    task: flags.task,
    workspace: flags.workspace,
    config: flags.config,
    ...(flags.agent === undefined ? {} : { agent: flags.agent }),
    ...(flags.maxTurns === undefined ? {} : { maxTurns: flags.maxTurns }),
    ...(flags.budget === undefined ? {} : { budgetSecs: flags.budget }),
    ...warmOf(flags.warmCap),
    onTurn: (turn) => {
      sofar.turns.push(turn);
      warn(turnLine(turn, flags.arm, performance.now() - started));
    },
  });
  const report = { ...ran, filesChanged: ours(ran.filesChanged) };
  transcript?.end(report);
  tell(report, flags, { print, warn, wallMs: performance.now() - started, pricing: info.pricing });
  return report.ok ? 0 : 1;
}

/** What leaves `path` (relative to the workspace) out of the files a run changed. */
function notListing(path: string): (files: AgentReport["filesChanged"]) => AgentReport["filesChanged"] {
  const others = (paths: string[]): string[] => paths.filter((file) => file !== path);
  return ({ created, modified, deleted }) => ({ created: others(created), modified: others(modified), deleted: others(deleted) });
}

/** Says how a run ended: the agent report as JSON, or the answer on stdout and the summary on stderr. */
function tell(report: AgentReport, flags: AgentFlags, to: { print: (text: string) => void; warn: (text: string) => void; wallMs: number; pricing: Pricing | undefined }): void {
  if (flags.json) return to.print(`${JSON.stringify(report)}\n`);
  if (report.ok) to.print(`${report.answer ?? ""}\n`);
  to.warn(summaryText(report, { arm: flags.arm, wallMs: to.wallMs, ...(to.pricing ? { pricing: to.pricing } : {}) }));
  if (report.error) to.warn(`gg: ${errorText(report.error)}\n`);
}

/** What a run has done so far: its ended turns and calls, the turn whose answer came last, the files it changed. */
interface SoFar {
  turns: TurnRecord[];
  calls: CallOutcome[];
  /** The turn whose answer came last, with its time until then, and when it came. */
  answered?: { turn: TurnRecord; at: number };
  files?: () => AgentReport["filesChanged"];
}

/** The report of a run a signal ended: what it did so far, cancelled; a turn cut short while its calls ran counts, since its request was billed. */
function cancelledRun(sofar: SoFar, signal: NodeJS.Signals, pricing: Pricing | undefined): AgentReport {
  const { answered } = sofar;
  const cut = answered !== undefined && answered.turn.turn > (sofar.turns.at(-1)?.turn ?? 0) ? answered : undefined;
  // The cut turn lasted until its answer came, and then until the signal.
  const turns = cut ? [...sofar.turns, { ...cut.turn, elapsedMs: Math.round(cut.turn.elapsedMs + performance.now() - cut.at) }] : sofar.turns;
  const during = cut ? `while turn ${cut.turn.turn}'s answer was carried out` : `in turn ${turns.length + 1}, waiting for the model`;
  return {
    ok: false,
    error: { code: "cancelled", message: `The run was cancelled by ${signalWords(signal)} ${during}; the commands it started were stopped, and the summary counts the calls that had ended` },
    turns,
    calls: sofar.calls,
    visionEvents: [],
    wastedRequests: 0,
    totals: totalsOf(turns, pricing),
    filesChanged: sofar.files?.() ?? { created: [], modified: [], deleted: [] },
  };
}

/**
 * gg agent --replay: re-executes a transcript's recorded answers on `workspace`, else on the workspace it recorded;
 * exit 0 when every outcome matches.
 */
export async function replayCommand(file: string, workspace: string | undefined, json: boolean, out: (text: string) => void, refuse: (message: string) => never): Promise<number> {
  let transcript;
  try {
    transcript = readTranscript(file);
  } catch (error) {
    if (!(error instanceof TranscriptError)) throw error;
    return refuse(error.message);
  }
  const replayed: TranscriptEntry[] = [];
  const where = workspace ?? recordedWorkspace(transcript.start, refuse);
  const report = await runAgent({ ...replayOptions(transcript.start, transcript.entries, where), onRecord: (entry) => replayed.push(entry) });
  const told = { then: toldTexts(transcript.entries), now: toldTexts(replayed) };
  const found = [...tamperedCalls(report.calls), ...differences(recordedCalls(transcript.entries), report.calls, told)];
  if (json) out(`${JSON.stringify({ matches: found.length === 0, differences: found, report })}\n`);
  else out(found.length === 0 ? `Replayed ${plural(report.turns.length, "turn")} and ${plural(report.calls.length, "call")}: every outcome matches the recording.\n` : `${found.join("\n")}\n`);
  return found.length === 0 ? 0 : 1;
}

/** The workspace a transcript recorded, when it is still a folder: a replay never runs its commands wherever it stands. */
function recordedWorkspace(start: TranscriptStart, refuse: (message: string) => never): string {
  if (start.workspace === undefined) return refuse("The transcript does not name the workspace it ran on (a study trial's folder does not outlive it, and older transcripts did not record it); name one with --workspace DIR");
  try {
    return workspaceOf(start.workspace);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return refuse(`The transcript ran on ${start.workspace}, which is not a folder here; name the workspace to replay it on with --workspace DIR`);
  }
}

/** A line for each call a replay refused as tampered (agent/loop.ts's calls, a program's own calls within them). */
function tamperedCalls(calls: readonly CallOutcome[]): string[] {
  return calls.flatMap((call, i) => {
    const refused = [call.approval, ...(call.calls ?? []).map((inner) => inner.approval)].filter((approval) => approval?.tampered);
    return refused.map((approval) => `call ${i + 1} (${call.name}): refused, nothing of it ran: ${approval?.reason}`);
  });
}
