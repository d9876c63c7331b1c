// The limits of a run, apart from the sandbox so the embedding process can know them without loading isolated-vm.
import { callError } from "../host/errors.ts";
import type { Language } from "./compile.ts";
import type { Baseline } from "./context.ts";
import { blankReport, type RunReport } from "./report.ts";

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
}

/** Bounds each limit must fall in; isolated-vm refuses heaps under 8 MB, and Node's timers stop at ~24.8 days. */
const BOUNDS: Record<keyof Limits, { min: number; max: number; unit: string; whole?: boolean }> = {
  budgetSecs: { min: 0.001, max: 24 * 3600, unit: "seconds" },
  cpuSecs: { min: 0.001, max: 24 * 3600, unit: "seconds" },
  memoryMb: { min: 8, max: 65536, unit: "MB", whole: true },
  logBytes: { min: 0, max: 64 * 1024 * 1024, unit: "bytes", whole: true },
  resultChars: { min: 2, max: 64 * 1024 * 1024, unit: "characters", whole: true },
};

/** What is wrong with `limits`, one line per bad value; empty when they can be honoured. */
export function limitProblems(limits: Limits): string[] {
  const problems: string[] = [];
  for (const [name, bound] of Object.entries(BOUNDS) as [keyof Limits, (typeof BOUNDS)[keyof Limits]][]) {
    const value = limits[name];
    const ok = typeof value === "number" && Number.isFinite(value) && value >= bound.min && value <= bound.max && (!bound.whole || Number.isInteger(value));
    if (!ok) problems.push(`${name} ${String(value)} is not ${bound.whole ? "a whole number" : "a number"} of ${bound.unit} from ${bound.min} to ${bound.max}`);
  }
  return problems;
}

/** The limits of a run: defaults, then `budget` and `memory`, then explicit `limits`. */
export function runLimits(run: RunOptions): Limits {
  return {
    ...DEFAULT_LIMITS,
    ...(run.budget === undefined ? {} : { budgetSecs: run.budget, cpuSecs: run.budget }),
    ...(run.memory === undefined ? {} : { memoryMb: run.memory }),
    ...run.limits,
  };
}

/** What is wrong with a run's options: its limits, and a baseline that is not counts of tokens. */
export function runProblems(run: RunOptions): string[] {
  const problems = limitProblems(runLimits(run));
  if (run.check !== undefined && typeof run.check !== "boolean") problems.push(`check ${String(run.check)} is not true or false`);
  if (run.language !== undefined && run.language !== "ts" && run.language !== "js") problems.push(`language ${String(run.language)} is not "ts" or "js"`);
  for (const [band, tokens] of Object.entries(run.baseline ?? {})) {
    if (band === "viewMessages") {
      if (typeof tokens !== "boolean") problems.push(`baseline.viewMessages ${String(tokens)} is not true or false`);
    } else if (!["system", "messages", "toolResults"].includes(band)) problems.push(`baseline has an unknown band "${band}"; the bands are system, messages, toolResults`);
    else if (!(typeof tokens === "number" && Number.isInteger(tokens) && tokens >= 0)) problems.push(`baseline.${band} ${String(tokens)} is not a whole number of tokens, 0 or more`);
  }
  return problems;
}

/** The report of a run refused for its options (invalid-argument, every bad value named), or undefined. */
export function refusedRun(run: RunOptions): RunReport | undefined {
  const problems = runProblems(run);
  if (problems.length === 0) return undefined;
  return { ...blankReport(), error: callError("invalid-argument", `Cannot run the program with these options: ${problems.join("; ")}`) };
}
