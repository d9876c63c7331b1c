// The report of one or more study folders (an unsharded run's, or every shard's): a row per case × agent, and paired
// rows for agents that differ in one thing (same model and case: the arm, or one setting of the configuration), each
// pair compared repeat by repeat. Folders are taken together as gg study merge takes them (the newest of two verdicts).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { StudyAgent } from "./file.ts";
import { dollars, grouped } from "../host/lines.ts";
import { type Counted, countedRecords } from "./merge.ts";
import { billedOf, type TrialRecord } from "./trials.ts";

/** One case × agent. */
export interface Cell {
  case: string;
  agent: string;
  model: string;
  arm: string;
  trials: number;
  /** Trials with a verdict, and how many passed. */
  judged: number;
  passes: number;
  /** passes / judged, or null with none judged. */
  passRate: number | null;
  /** Trials that ended without a verdict (provider errors). */
  errors: number;
  /** Means per judged trial; a figure no trial reported is null. */
  turns: number | null;
  billed: number | null;
  entered: number | null;
  /** USD; null when the catalog has no prices for the model. */
  cost: number | null;
  wallSecs: number | null;
}

/** Two agents that differ in one thing, on one case: the first's figures over the second's, and verdicts by repeat. */
export interface Pair {
  case: string;
  model: string;
  first: string;
  second: string;
  /** What differs: "arm", or the configuration's setting (e.g. capability "shell"). */
  differ: string;
  billedRatio: number | null;
  costRatio: number | null;
  /** Repeats both judged, by outcome. */
  bothPass: number;
  firstOnly: number;
  secondOnly: number;
  neither: number;
}

/** A report: every record that counts, the cells and the pairs. */
export interface StudyReport {
  trials: TrialRecord[];
  cells: Cell[];
  pairs: Pair[];
}

const mean = (values: (number | null)[]): number | null => {
  const known = values.filter((value): value is number => value !== null);
  return known.length === 0 ? null : known.reduce((sum, value) => sum + value, 0) / known.length;
};

/** The agents as the folders' study.json describe them, by id (the first folder naming one wins). */
function agentsOf(dirs: string[]): Map<string, StudyAgent> {
  const agents = new Map<string, StudyAgent>();
  for (const dir of dirs) {
    const file = join(dir, "study.json");
    if (!existsSync(file)) continue;
    for (const agent of (JSON.parse(readFileSync(file, "utf8")) as { agents: StudyAgent[] }).agents) if (!agents.has(agent.id)) agents.set(agent.id, agent);
  }
  return agents;
}

/** What two agents' configurations differ in, a name each. */
function configDifferences(a: StudyAgent, b: StudyAgent): string[] {
  const same = (x: unknown, y: unknown): boolean => JSON.stringify(x) === JSON.stringify(y);
  const found: string[] = [];
  const ids = new Set([...Object.keys(a.config.capabilities), ...Object.keys(b.config.capabilities)]);
  for (const id of ids) if (!same(a.config.capabilities[id as keyof typeof a.config.capabilities], b.config.capabilities[id as keyof typeof b.config.capabilities])) found.push(`capability "${id}"`);
  if (a.config.vision !== b.config.vision) found.push("vision");
  if (!same(a.config.allow, b.config.allow)) found.push("allowlist");
  if (!same(a.config.openingTurn, b.config.openingTurn)) found.push("openingTurn");
  return found;
}

/** What sets two agents of one model apart, when it is one thing; undefined otherwise. */
function oneDifference(a: StudyAgent, b: StudyAgent): string | undefined {
  if (a.model !== b.model) return undefined;
  const differences = [...(a.arm === b.arm ? [] : ["arm"]), ...configDifferences(a, b)];
  return differences.length === 1 ? differences[0] : undefined;
}

function cellOf(records: TrialRecord[]): Cell {
  const first = records[0] as TrialRecord;
  const judged = records.filter((record) => record.pass !== null);
  const passes = judged.filter((record) => record.pass).length;
  return {
    case: first.case,
    agent: first.agent,
    model: first.model,
    arm: first.arm,
    trials: records.length,
    judged: judged.length,
    passes,
    passRate: judged.length === 0 ? null : passes / judged.length,
    errors: records.length - judged.length,
    turns: mean(judged.map((record) => record.turns)),
    billed: mean(judged.map(billedOf)),
    entered: mean(judged.map((record) => record.estimate.entered)),
    cost: judged.some((record) => record.cost === null) ? null : mean(judged.map((record) => record.cost)),
    wallSecs: mean(judged.map((record) => record.wallMs / 1000)),
  };
}

/** The pair of `first` and `second` on one case, from their records. */
function pairOf(caseId: string, first: Cell, second: Cell, differ: string, records: TrialRecord[]): Pair {
  const ratio = (x: number | null, y: number | null): number | null => (x === null || y === null || y === 0 ? null : x / y);
  const byRepeat = (agent: string): Map<number, boolean> => new Map(records.filter((record) => record.case === caseId && record.agent === agent && record.pass !== null).map((record) => [record.repeat, record.pass as boolean]));
  const [a, b] = [byRepeat(first.agent), byRepeat(second.agent)];
  const pair: Pair = { case: caseId, model: first.model, first: first.agent, second: second.agent, differ, billedRatio: ratio(first.billed, second.billed), costRatio: ratio(first.cost, second.cost), bothPass: 0, firstOnly: 0, secondOnly: 0, neither: 0 };
  for (const [repeat, passed] of a) {
    if (!b.has(repeat)) continue;
    const other = b.get(repeat) as boolean;
    if (passed && other) pair.bothPass++;
    else if (passed) pair.firstOnly++;
    else if (other) pair.secondOnly++;
    else pair.neither++;
  }
  return pair;
}

/** The report of the study folders `dirs`, merged (`counted`: their records that count, when already read). */
export function studyReport(dirs: string[], counted: Counted[] = countedRecords(dirs, "newest")): StudyReport {
  const trials = counted.map(({ record }) => record).sort((x, y) => (x.case < y.case ? -1 : x.case > y.case ? 1 : x.agent < y.agent ? -1 : x.agent > y.agent ? 1 : x.repeat - y.repeat));
  const groups = new Map<string, TrialRecord[]>();
  for (const record of trials) groups.set(`${record.case}/${record.agent}`, [...(groups.get(`${record.case}/${record.agent}`) ?? []), record]);
  const cells = [...groups.values()].map(cellOf);
  const agents = agentsOf(dirs);
  const pairs: Pair[] = [];
  for (const [index, x] of cells.entries()) {
    for (const y of cells.slice(index + 1)) {
      const [a, b] = [agents.get(x.agent), agents.get(y.agent)];
      const differ = x.case === y.case && a && b ? oneDifference(a, b) : undefined;
      if (differ === undefined) continue;
      // The code arm first, so ratios read "code over tools".
      const [first, second] = differ === "arm" && x.arm !== "code" ? [y, x] : [x, y];
      pairs.push(pairOf(x.case, first, second, differ, trials));
    }
  }
  return { trials, cells, pairs };
}

/** Rows as columns padded to their widest cell. */
function table(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join("  ").trimEnd()).join("\n");
}

const whole = (value: number | null): string => (value === null ? "–" : grouped(Math.round(value)));
const times = (value: number | null): string => (value === null ? "–" : `×${value.toFixed(2)}`);

/** The report as a person reads it. */
export function reportText(report: StudyReport): string {
  if (report.cells.length === 0) return "No trials recorded yet.\n";
  const cells = table([
    ["case", "agent", "model", "arm", "pass", "errors", "turns", "billed", "entered", "cost", "wall"],
    ...report.cells.map((cell) => [
      cell.case,
      cell.agent,
      cell.model,
      cell.arm,
      `${cell.passes}/${cell.judged}`,
      String(cell.errors),
      cell.turns === null ? "–" : cell.turns.toFixed(1),
      whole(cell.billed),
      whole(cell.entered),
      dollars(cell.cost),
      cell.wallSecs === null ? "–" : `${cell.wallSecs.toFixed(1)} s`,
    ]),
  ]);
  const note = "Per case and agent: passes of trials judged, then means per judged trial (tokens billed by the provider, entered by gg's estimate; cost at the catalog's prices).";
  if (report.pairs.length === 0) return `${cells}\n\n${note}\n`;
  const pairs = table([
    ["case", "model", "first", "second", "differ in", "billed", "cost", "both pass", "first only", "second only", "neither"],
    ...report.pairs.map((pair) => [pair.case, pair.model, pair.first, pair.second, pair.differ, times(pair.billedRatio), times(pair.costRatio), String(pair.bothPass), String(pair.firstOnly), String(pair.secondOnly), String(pair.neither)]),
  ]);
  return `${cells}\n\n${note}\n\n${pairs}\n\nPairs: agents of one model differing in one thing, on one case; ratios are the first's mean over the second's, verdicts compared repeat by repeat.\n`;
}
