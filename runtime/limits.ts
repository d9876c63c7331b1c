// The limits of a run, apart from the sandbox so the embedding process can know them without loading isolated-vm.
import { callError } from "../host/errors.ts";
import type { Language } from "./compile.ts";
import type { Baseline } from "./context.ts";
import { blankReport, type CallRecord, type RunReport } from "./report.ts";

/** The limits of one run. */
export interface Limits {
  /** Wall-clock budget in seconds; gg.shell timeouts are clamped to what is left of it. */
  budgetSecs: number;
  /** CPU time of the run in seconds: its isolate and the host work of its calls. */
  cpuSecs: number;
  /** Heap of the isolate in MB (isolated-vm's guideline: hostile code may reach 2-3 times it before it is stopped). */
  memoryMb: number;
  /** Bytes of console output kept; later entries are counted, not kept. */
  logBytes: number;
  /** Characters of the returned value as JSON. */
  resultChars: number;
}

/** Limits of a fresh runtime. */
export const DEFAULT_LIMITS: Limits = { budgetSecs: 120, cpuSecs: 120, memoryMb: 128, logBytes: 64 * 1024, resultChars: 64 * 1024 };


/** Options of one run. */
export interface RunOptions {
  language?: Language;
  /** Wall-clock budget in seconds (default 120); also the CPU limit unless `limits.cpuSecs` says otherwise. */
  budget?: number;
  /** Heap of the isolate in MB (default 128). */
  memory?: number;
  limits?: Partial<Limits>;
  /** Tokens of the context bands gg does not hold (system prompt, messages, tool results) as they stand now. */
  baseline?: Baseline;
  /**
   * Type-check a TypeScript program against the gg global and the ES library before it runs: a program with type
   * errors fails with type-error, listing them, and nothing runs. JavaScript programs are run unchecked.
   */
  check?: boolean;
  /**
   * A replay's recorded calls of this program: a call takes the approval of the first recorded call of the same
   * function with the same arguments (as records show them) not yet taken, and no rule, hook or person decides it.
   * A call with none is decided as the configuration says.
   */
  recorded?: readonly CallRecord[];
}

/** Bounds each limit must fall in; isolated-vm refuses heaps under 8 MB, and Node's timers stop at ~24.8 days. */
const BOUNDS: Record<keyof Limits, { min: number; max: number; unit: string; what: string; whole?: boolean }> = {
  budgetSecs: { min: 0.001, max: 24 * 3600, unit: "seconds", what: "budget" },
  cpuSecs: { min: 0.001, max: 24 * 3600, unit: "seconds", what: "CPU limit" },
  memoryMb: { min: 8, max: 65536, unit: "MB", what: "heap", whole: true },
  logBytes: { min: 0, max: 64 * 1024 * 1024, unit: "bytes", what: "log limit", whole: true },
  resultChars: { min: 2, max: 64 * 1024 * 1024, unit: "characters", what: "result limit", whole: true },
};

/** The options of a run a caller can set, as RunOptions names them. */
export type RunOption = "budget" | "memory" | `limits.${keyof Limits}` | "check" | "language" | "baseline" | "recorded";

/**
 * How a caller names the options it takes (the command line's flags, an MCP tool's arguments), so a problem is
 * worded as its user set it; an option left out keeps its RunOptions name.
 */
export type OptionNames = Partial<Record<RunOption, string>>;

/** What is wrong with `value` as the limit `limit`, or undefined when it can be honoured. */
function limitProblem(limit: keyof Limits, value: unknown): string | undefined {
  const { min, max, unit, what, whole } = BOUNDS[limit];
  if (typeof value !== "number" || !Number.isFinite(value)) return `is not a number of ${unit}`;
  if (value > max) return `is over the largest ${what}, ${max} ${unit}`;
  if (value < min) return `is under the smallest ${what}, ${min} ${unit}`;
  if (whole && !Number.isInteger(value)) return `is not a whole number of ${unit}`;
  return undefined;
}

/** The option that set each limit of `run`: its own field under `limits`, else `budget` or `memory`. */
function limitSources(run: RunOptions): [RunOption, keyof Limits, unknown][] {
  const sources: [RunOption, keyof Limits, unknown][] = [];
  for (const limit of Object.keys(BOUNDS) as (keyof Limits)[]) {
    const own = run.limits?.[limit];
    const shared = limit === "memoryMb" ? run.memory : limit === "budgetSecs" || limit === "cpuSecs" ? run.budget : undefined;
    if (own !== undefined) sources.push([`limits.${limit}`, limit, own]);
    else if (shared !== undefined) sources.push([limit === "memoryMb" ? "memory" : "budget", limit, shared]);
  }
  return sources;
}

/** The limits of a run: defaults, then `budget` and `memory`, then explicit `limits`. */
export function runLimits(run: RunOptions): Limits {
  return {
    ...DEFAULT_LIMITS,
    ...(run.budget === undefined ? {} : { budgetSecs: run.budget, cpuSecs: run.budget }),
    ...(run.memory === undefined ? {} : { memoryMb: run.memory }),
    // A limit given as undefined keeps its default, as runProblems takes it.
    ...Object.fromEntries(Object.entries(run.limits ?? {}).filter(([, value]) => value !== undefined)),
  };
}

/**
 * What is wrong with a run's options, one line per option its caller set, named as `names` spells it: a limit that
 * another option set (the CPU limit from the budget) is reported against that option, once.
 */
export function runProblems(run: RunOptions, names: OptionNames = {}): string[] {
  const name = (option: RunOption): string => names[option] ?? option;
  const problems: string[] = [];
  const reported = new Set<RunOption>();
  for (const [option, limit, value] of limitSources(run)) {
    const problem = reported.has(option) ? undefined : limitProblem(limit, value);
    if (!problem) continue;
    reported.add(option);
    problems.push(`${name(option)} ${String(value)} ${problem}`);
  }
  if (run.check !== undefined && typeof run.check !== "boolean") problems.push(`${name("check")} ${String(run.check)} is not true or false`);
  if (run.language !== undefined && run.language !== "ts" && run.language !== "js") problems.push(`${name("language")} ${String(run.language)} is not "ts" or "js"`);
  if (run.recorded !== undefined && !Array.isArray(run.recorded)) problems.push(`${name("recorded")} is not a list of call records`);
  const baseline = name("baseline");
  for (const [band, tokens] of Object.entries(run.baseline ?? {})) {
    if (band === "viewMessages") {
      if (typeof tokens !== "boolean") problems.push(`${baseline}.viewMessages ${String(tokens)} is not true or false`);
    } else if (!["system", "messages", "toolResults"].includes(band)) problems.push(`${baseline} has an unknown band "${band}"; the bands are system, messages, toolResults`);
    else if (!(typeof tokens === "number" && Number.isInteger(tokens) && tokens >= 0)) problems.push(`${baseline}.${band} ${String(tokens)} is not a whole number of tokens, 0 or more`);
  }
  return problems;
}

/** The report of a run refused for its options (invalid-argument, every bad value named), or undefined. */
export function refusedRun(run: RunOptions): RunReport | undefined {
  const problems = runProblems(run);
  if (problems.length === 0) return undefined;
  return { ...blankReport(), error: callError("invalid-argument", `Cannot run the program with these options: ${problems.join("; ")}`) };
}
