// The limits of a run, apart from the sandbox so the embedding process can know them without loading isolated-vm.

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

