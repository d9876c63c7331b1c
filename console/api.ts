// The console's JSON API: what each page asks for, from the files `gg console` was given and nothing else. The
// configuration is checked by the parser every run uses, and saved only to the --config file, by a rename.
import { existsSync, readFileSync } from "node:fs";
import { type Catalog, CatalogError, loadCatalog, modelInfo } from "../agent/catalog.ts";
import { type Pricing, runCost } from "../agent/pricing.ts";
import { CAPABILITIES, type CapabilityId, PARAM_KINDS, type ParamKind, VERDICTS } from "../bindings/capabilities.ts";
import { CALLS } from "../bindings/calls.ts";
import { ConfigError, defaultConfiguration, parseConfiguration } from "../bindings/config.ts";
import { offeredBy } from "../bindings/define.ts";
import { GgError } from "../host/errors.ts";
import { nodeFileHost } from "../host/files.ts";
import { recordedIdentity } from "../study/identity.ts";
import { countedRecords } from "../study/merge.ts";
import { studyReport } from "../study/report.ts";
import { isSkipped, readRun, type RunDetail, type RunSummary, type SkippedFile, summarize } from "./runs.ts";
import { type TrialView, trialView } from "./trial.ts";
import { runFiles, type Walk } from "./walk.ts";

/** What `gg console` was given. */
export interface ConsoleSources {
  config?: string;
  catalog?: string;
  runs: readonly string[];
  studies: readonly string[];
}

/** A group of the configuration page: its name as the seeds give it, what it holds in a line, its capabilities. */
export interface CapabilityGroup {
  name: string;
  holds: string;
  ids: readonly CapabilityId[];
  /** Whether the model's settings (vision, the opening turn) sit in this group too. */
  model?: true;
}

/** The capabilities' groups on the configuration page, in order, named as seeds 000 and 001 name them. */
export const CAPABILITY_GROUPS: readonly CapabilityGroup[] = [
  { name: "Filesystem", holds: "Reading, writing, editing, listing and searching the workspace's files.", ids: ["read-file", "write-file", "edit-file", "list-dir", "search"] },
  { name: "Models & tools", holds: "Shell commands, and what the model is sent: pictures, and the opening turn.", ids: ["shell"], model: true },
];

/** What the configuration page is built from: the file's JSON (or a fresh configuration's), and what may go in it. */
export interface ConfigurationState {
  /** The --config file, or null when none was given (nothing can be saved). */
  file: string | null;
  /** Whether the file exists yet. */
  exists: boolean;
  /** The file's JSON as written, or a fresh configuration's when there is no file. */
  json: unknown;
  /** Why the file could not be read or parsed as JSON (the page then starts from a fresh configuration). */
  unreadable?: string;
  groups: typeof CAPABILITY_GROUPS;
  capabilities: Record<string, { implementations: readonly string[]; params: readonly string[] }>;
  /** What each param holds: a count, true or false, folders, or one of a list of words (its field follows it). */
  paramKinds: Readonly<Record<string, ParamKind>>;
  /** Every call name, with the capability that provides it. */
  calls: { name: string; capability: string }[];
  verdicts: readonly string[];
  defaults: unknown;
}

/** A fresh configuration as a file writes it: every capability listed with its defaults. */
function freshJson(): unknown {
  const config = defaultConfiguration();
  return { capabilities: Object.entries(config.capabilities).map(([id, capability]) => ({ id, ...capability })), agents: [] };
}

/** The configuration page's starting point. */
export function configurationState(sources: ConsoleSources): ConfigurationState {
  const file = sources.config ?? null;
  const exists = file !== null && existsSync(file);
  let json = freshJson();
  let unreadable: string | undefined;
  if (exists) {
    try {
      json = JSON.parse(readFileSync(file as string, "utf8"));
    } catch (error) {
      unreadable = `Cannot read the configuration ${file}: ${(error as Error).message}; the page starts from a fresh configuration, which Save writes over it`;
    }
  }
  const calls = [...new Map(CALLS.map((call) => [call.name, { name: call.name, capability: call.capability as string }])).values()];
  return { file, exists, json, ...(unreadable ? { unreadable } : {}), groups: CAPABILITY_GROUPS, capabilities: CAPABILITIES, paramKinds: PARAM_KINDS, calls, verdicts: VERDICTS, defaults: freshJson() };
}

/** What the parser says of a configuration, and the calls its capabilities offer (an allowlist's choices). */
export interface ConfigurationCheck {
  problems: string[];
  offered: string[];
}

/** Checks `json` with the configuration parser itself. */
export function checkConfiguration(json: unknown): ConfigurationCheck {
  let problems: string[] = [];
  try {
    parseConfiguration(json);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems = [...error.problems];
  }
  return { problems, offered: offeredCalls(json) };
}

/** The calls the capabilities of `json` offer as written: enabled, under an implementation that has them. */
function offeredCalls(json: unknown): string[] {
  const record = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
  const entries = Array.isArray(json) ? json : record(json) && Array.isArray(json.capabilities) ? json.capabilities : [];
  const defaults = defaultConfiguration().capabilities;
  const chosen = new Map<string, { enabled: boolean; implementation: string }>(Object.entries(defaults).map(([id, capability]) => [id, capability]));
  for (const entry of entries) {
    if (!record(entry) || typeof entry.id !== "string" || !chosen.has(entry.id)) continue;
    const implementation = typeof entry.implementation === "string" ? entry.implementation : (CAPABILITIES[entry.id as CapabilityId].implementations[0] as string);
    chosen.set(entry.id, { enabled: entry.enabled !== false, implementation });
  }
  const offered = CALLS.filter((call) => {
    const capability = chosen.get(call.capability);
    return capability !== undefined && capability.enabled && offeredBy(call, capability.implementation);
  }).map((call) => call.name);
  return [...new Set(offered)];
}

/**
 * Writes `json` to the --config file when the parser accepts it; returns the refusals otherwise. The write is
 * write_file's: a temp file created exclusively under a random name beside the file (a link planted there makes the
 * create fail, never the write follow it), given the file's mode and owner, then renamed over it.
 */
export function saveConfiguration(sources: ConsoleSources, json: unknown): { saved: boolean; problems: string[]; file: string | null } {
  if (sources.config === undefined) return { saved: false, file: null, problems: ["Cannot save the configuration: gg console was started without --config FILE; start it with one to save"] };
  const { problems } = checkConfiguration(json);
  if (problems.length > 0) return { saved: false, problems, file: sources.config };
  try {
    nodeFileHost.writeAtomic(sources.config, Buffer.from(`${JSON.stringify(json, null, 2)}\n`));
  } catch (error) {
    if (!(error instanceof GgError)) throw error;
    return { saved: false, problems: [error.message], file: sources.config };
  }
  return { saved: true, problems: [], file: sources.config };
}

/** Vision as a model's page states it: exactly one of three. */
export type VisionKnowledge =
  | { kind: "declared"; sees: boolean; modalities: string[] }
  | { kind: "learned"; sees: false; run: string; runId: string; turn: number; message: string }
  | { kind: "unknown" };

/** One model: the catalog's entry, what runs learned of its vision, and how many runs used it. */
export interface ModelEntry {
  id: string;
  inCatalog: boolean;
  contextLength: number | null;
  modalities: string[] | null;
  /** USD per token. */
  pricing: Pricing | null;
  vision: VisionKnowledge;
  runs: number;
}

/** The catalog and where it came from, or why it could not be read. */
function catalogOf(sources: ConsoleSources): { catalog: Catalog | null; path: string | null; problem?: string } {
  try {
    const { catalog, path } = loadCatalog(sources.catalog);
    return { catalog, path };
  } catch (error) {
    if (!(error instanceof CatalogError)) throw error;
    return { catalog: null, path: sources.catalog ?? null, problem: error.message };
  }
}

/** Every transcript the console was given: under --runs, and under each study's transcripts/. */
export const allRunFiles = (sources: ConsoleSources): Promise<Walk> => runFiles([...sources.runs, ...sources.studies.map((dir) => `${dir}/transcripts`)]);

/** The Runs page: the runs, the .jsonl files that are not runs (with why), and why the walk stopped early if it did. */
export interface RunList {
  runs: RunSummary[];
  skipped: SkippedFile[];
  stopped?: string;
}

/** The runs' list. */
export async function listRuns(sources: ConsoleSources): Promise<RunList> {
  const walk = await allRunFiles(sources);
  const listed: (RunSummary | SkippedFile)[] = [];
  for (const run of walk.files) listed.push(await summarize(run));
  const runs = listed.filter((entry) => !isSkipped(entry)) as RunSummary[];
  return { runs, skipped: listed.filter(isSkipped), ...(walk.stopped ? { stopped: walk.stopped } : {}) };
}

/** A run's page as the API gives it: the run, what it cost at the catalog's prices, and its study trial when it is one. */
export type RunView = RunDetail & { cost: number | null; trial?: TrialView };

/** A run's page, by its id in the list; why it is skipped when it is not a run; undefined for an id that is not one of the given transcripts. */
export async function runDetail(sources: ConsoleSources, id: string): Promise<RunView | SkippedFile | undefined> {
  const run = (await allRunFiles(sources)).files.find((candidate) => candidate.id === id);
  if (run === undefined) return undefined;
  const detail = await readRun(run);
  if (isSkipped(detail)) return detail;
  const { catalog } = catalogOf(sources);
  const pricing = catalog ? modelInfo(catalog, detail.model).pricing : undefined;
  const cost = detail.billed !== null ? runCost(pricing, detail.turnsList.map((turn) => turn.usage)) : null;
  const trial = trialOfRun(sources, id);
  return { ...detail, cost, ...(trial ? { trial } : {}) };
}

/** The study trial a run under a study's transcripts/ recorded: the study is found by the id's folder index. */
function trialOfRun(sources: ConsoleSources, id: string): TrialView | undefined {
  const slash = id.indexOf("/");
  const study = sources.studies[Number(id.slice(0, slash)) - sources.runs.length];
  if (study === undefined) return undefined;
  try {
    return trialView(study, id.slice(slash + 1).replace(/\.jsonl$/, ""));
  } catch {
    // A trials.jsonl that cannot be read: the run's page still shows the run.
    return undefined;
  }
}

/** The first picture refusal recorded for each model, by any run given. */
async function refusals(runs: RunSummary[]): Promise<Map<string, Extract<VisionKnowledge, { kind: "learned" }>>> {
  const found = new Map<string, Extract<VisionKnowledge, { kind: "learned" }>>();
  for (const summary of runs) {
    if (summary.visionRefusals === 0 || found.has(summary.model)) continue;
    const detail = await readRun(summary);
    const event = isSkipped(detail) ? undefined : detail.visionEvents[0];
    if (event) found.set(summary.model, { kind: "learned", sees: false, run: summary.file, runId: summary.id, turn: event.turn, message: event.message });
  }
  return found;
}

/** The models page: the catalog's models, then those runs used that it lacks. */
export async function listModels(sources: ConsoleSources): Promise<{ catalog: string | null; source: string | null; fetched: string | null; problem?: string; models: ModelEntry[] }> {
  const { catalog, path, problem } = catalogOf(sources);
  const { runs } = await listRuns(sources);
  const learned = await refusals(runs);
  const used = new Map<string, number>();
  for (const run of runs) used.set(run.model, (used.get(run.model) ?? 0) + 1);
  const entries: ModelEntry[] = (catalog?.models ?? []).map((model) => ({
    id: model.id,
    inCatalog: true,
    contextLength: model.context_length ?? null,
    modalities: model.input_modalities ?? null,
    pricing: model.pricing ?? null,
    vision: learned.get(model.id) ?? (model.input_modalities ? { kind: "declared", sees: model.input_modalities.includes("image"), modalities: model.input_modalities } : { kind: "unknown" }),
    runs: used.get(model.id) ?? 0,
  }));
  const listed = new Set(entries.map((entry) => entry.id));
  for (const [id, count] of used) {
    if (listed.has(id)) continue;
    entries.push({ id, inCatalog: false, contextLength: null, modalities: null, pricing: null, vision: learned.get(id) ?? { kind: "unknown" }, runs: count });
  }
  return { catalog: path, source: catalog?.source ?? null, fetched: catalog?.fetched ?? null, ...(problem ? { problem } : {}), models: entries };
}

/** The --study folders by the study they record (a folder recording none stands alone), in the order given. */
function byStudy(dirs: readonly string[]): { study: string | null; dirs: string[]; indexes: number[] }[] {
  const groups = new Map<string, { study: string | null; dirs: string[]; indexes: number[] }>();
  for (const [index, dir] of dirs.entries()) {
    const study = existsSync(`${dir}/trials.jsonl`) ? (recordedIdentity(dir) ?? null) : null;
    const group = groups.get(study ?? `\0${index}`) ?? { study, dirs: [], indexes: [] };
    group.dirs.push(dir);
    group.indexes.push(index);
    groups.set(study ?? `\0${index}`, group);
  }
  return [...groups.values()];
}

/**
 * The studies page: each study's report (the same JSON as gg study report --json of its folders together: shards of
 * one study are one study), with the run id of each counted trial's transcript.
 */
export async function listStudies(sources: ConsoleSources): Promise<{ dir: string; dirs: string[]; study: string | null; report: ReturnType<typeof studyReport> | null; problem?: string; runs: Record<string, string> }[]> {
  const runs = new Set((await allRunFiles(sources)).files.map((run) => run.id));
  return byStudy(sources.studies).map(({ study, dirs, indexes }) => {
    const shown = { dir: dirs.join(", "), dirs, study };
    if (!existsSync(`${dirs[0]}/trials.jsonl`)) return { ...shown, report: null, problem: `Cannot report ${dirs[0]}: it holds no trials.jsonl; name a folder gg study run wrote (its --out)`, runs: {} };
    const counted = countedRecords(dirs, "newest");
    // A trial's transcript, in the folder its record came from: the run id the Runs page knows it by.
    const byKey: Record<string, string> = {};
    for (const { record, dir } of counted) {
      const id = `${sources.runs.length + (indexes[dirs.indexOf(dir)] as number)}/${record.key}.jsonl`;
      if (runs.has(id)) byKey[record.key] = id;
    }
    return { ...shown, report: studyReport(dirs, counted), runs: byKey };
  });
}
