// The limits of a run, apart from the sandbox so the embedding process can know them without loading isolated-vm.
import type { Language } from "./compile.ts";

/** The limits of one run. */
export interface Limits {
  /** Wall-clock budget in seconds; gg.shell timeouts are clamped to what is left of it. */
  budgetSecs: number;
  /** CPU time of the isolate in seconds. */
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

