// Stops a running program at its limits. The program runs synchronously on this thread, under the run's own timeout,
// until it first waits on a command; from then on timers here stop it at its wall clock and CPU time, since
// isolated-vm's timeout ends there, and every synchronous call into the host checks them too. Past its memory limit
// isolated-vm disposes the isolate. A stopped isolate that does not stop within a grace is given up on.
import type ivm from "isolated-vm";
import type { Limits } from "./limits.ts";
import type { RunError, RunReport } from "./report.ts";

/** Milliseconds a stopped program's isolate has to stop before the run is reported without it. */
const STOP_GRACE_MS = 1000;
/** Milliseconds between reckonings of the deadline the program's synchronous entries share, and past it, their slack. */
const ENTRY_RECKON_MS = 100;
const ENTRY_SLACK_MS = 2;
/** What {@link Watchdog.abandoned} resolves to. */
export const ABANDONED = Symbol("abandoned");

/** The error of a run its caller cancelled. */
export const CANCELLED: RunError = { code: "cancelled", message: "The program was cancelled by its caller, with the commands it started; the calls listed ran before that" };

/** The errors of a run stopped at one of its limits. */
export const limitErrors = (limits: Limits): Record<"overBudget" | "cpuStop" | "memoryLimit", RunError> => ({
  overBudget: { code: "timeout", message: `The program was stopped at its wall-clock budget of ${limits.budgetSecs} s; do less per run, or ask for a larger budget` },
  cpuStop: { code: "timeout", message: `The program was stopped at its CPU limit of ${limits.cpuSecs} s; look for a loop that never ends` },
  memoryLimit: { code: "memory-limit", message: `The program was stopped at its memory limit of ${limits.memoryMb} MB; keep less in memory at once (stream through files, or read windows)` },
});

/** The limits of one run, watched. */
interface Watchdog {
  /** Milliseconds left of the wall-clock budget (negative past it). */
  msLeft(): number;
  /** Stops the run past its budget, or (every 128th call) past its CPU time: for each synchronous call into the host. */
  guard(): void;
  /** Why the run was stopped, once it was. */
  stopped(): RunError | undefined;
  /** Stops the run with `error` (a synchronous entry into the isolate that ran out of time, or of memory). */
  stop(error: RunError): void;
  /** Resolves {@link ABANDONED} when a stopped isolate has not stopped within the grace. */
  abandoned: Promise<typeof ABANDONED>;
  /** The timeout of the synchronous run in milliseconds, and the limit it stands for should it fire. */
  syncLimit(): { timeoutMs: number; error: RunError };
  /** The same for each synchronous entry that resumes the program with a call's answer (see entryLimit). */
  entryLimit(): { timeoutMs: number; error: RunError };
  /** CPU milliseconds of the run so far: the isolate's thread and the host work of its calls. */
  cpuSpent(): number;
  /**
   * Stops the wall clock (a call waiting for a person is not charged to the budget) until the returned function is
   * called; pauses may overlap, and the clock runs again when the last one ends.
   */
  pause(): () => void;
  /** Milliseconds the wall clock has been stopped so far. */
  pausedMs(): number;
  /** Ends the watch: its timers and its cancel listener. */
  end(): void;
}

/** Watches `isolate` running a program that started (performance.now()) at `started`; `cancel` stops it as cancelled. */
export function watch(isolate: ivm.Isolate, limits: Limits, started: number, cancel: AbortSignal | undefined, report: RunReport): Watchdog {
  const budgetMs = limits.budgetSecs * 1000;
  const cpuLimitMs = limits.cpuSecs * 1000;
  let pauses = 0;
  let pausedSince = 0;
  let pausedBefore = 0;
  const pausedMs = (): number => pausedBefore + (pauses > 0 ? performance.now() - pausedSince : 0);
  // The budget counts from the call to run: compiling, checking and taking an isolate come out of it; time spent
  // waiting for a person does not.
  const msLeft = (): number => started + budgetMs + pausedMs() - performance.now();
  // A runner runs one program at a time, so the process's own CPU count is the run's.
  const cpuAtStart = process.cpuUsage();
  const cpuSpent = (): number => {
    const spent = process.cpuUsage(cpuAtStart);
    return (spent.user + spent.system) / 1000;
  };
  const { overBudget, cpuStop, memoryLimit } = limitErrors(limits);
  let stopped: RunError | undefined;
  // Disposing the isolate ends its program; should it still be running a moment later (isolated-vm can miss the
  // termination of a thread mid-loop), the run is reported without it rather than waiting forever.
  let giveUp: NodeJS.Timeout | undefined;
  let stopGrace = (): void => {};
  const abandoned = new Promise<typeof ABANDONED>((resolve) => {
    stopGrace = () => {
      giveUp = setTimeout(() => resolve(ABANDONED), STOP_GRACE_MS);
    };
  });
  const stop = (error: RunError): void => {
    if (stopped) return;
    stopped = error;
    if (!isolate.isDisposed) isolate.dispose();
    stopGrace();
  };
  const onCancel = (): void => stop(CANCELLED);
  cancel?.addEventListener("abort", onCancel, { once: true });
  // Aborted while the isolate was being taken: stopped before it starts.
  if (cancel?.aborted) onCancel();
  // The CPU time left counts, since a program enters the isolate synchronously at its start and again at each answer.
  const syncLimit = (): { timeoutMs: number; error: RunError } => {
    const cpuLeft = cpuLimitMs - cpuSpent();
    return { timeoutMs: Math.max(1, Math.ceil(Math.min(msLeft(), cpuLeft))), error: cpuLeft < msLeft() ? cpuStop : overBudget };
  };
  // isolated-vm gives a timeout a thread of its own unless a thread it has waits for an earlier one, and that thread
  // sleeps until the deadline even when the entry ended long before: a deadline that shrinks with each entry would
  // start a thread at each. So entries share one deadline, a little after the limit, reckoned again (with the CPU
  // time, a system call) at most every ENTRY_RECKON_MS.
  let entry: { at: number; deadline: number; error: RunError } | undefined;
  const entryLimit = (): { timeoutMs: number; error: RunError } => {
    const now = performance.now();
    if (!entry || now - entry.at > ENTRY_RECKON_MS) {
      const limit = syncLimit();
      entry = { at: now, deadline: now + limit.timeoutMs, error: limit.error };
    }
    return { timeoutMs: Math.max(1, Math.ceil(entry.deadline - now) + ENTRY_SLACK_MS), error: entry.error };
  };
  let guarded = 0;
  const guard = (): void => {
    if (pauses === 0 && msLeft() < 0) stop(overBudget);
    else if (++guarded % 128 === 0 && cpuSpent() > cpuLimitMs) stop(cpuStop);
  };
  const tick = Math.min(100, Math.max(5, Math.min(budgetMs, cpuLimitMs) / 20));
  const armWall = (): NodeJS.Timeout => setTimeout(() => stop(isolate.isDisposed ? memoryLimit : overBudget), Math.max(0, msLeft()));
  let wallTimer = armWall();
  const pause = (): (() => void) => {
    if (pauses++ === 0) {
      pausedSince = performance.now();
      clearTimeout(wallTimer);
    }
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      if (--pauses > 0) return;
      pausedBefore += performance.now() - pausedSince;
      if (!stopped) wallTimer = armWall();
    };
  };
  const interval = setInterval(() => {
    if (isolate.isDisposed) return stop(memoryLimit);
    if (cpuSpent() > cpuLimitMs) return stop(cpuStop);
    isolate
      .getHeapStatistics()
      .then((heap) => {
        report.usage.peakHeapBytes = Math.max(report.usage.peakHeapBytes, heap.used_heap_size);
      })
      .catch(() => {});
  }, tick);
  return {
    msLeft,
    guard,
    stopped: () => stopped,
    abandoned,
    stop,
    syncLimit,
    entryLimit,
    cpuSpent,
    pause,
    pausedMs,
    end(): void {
      cancel?.removeEventListener("abort", onCancel);
      clearInterval(interval);
      clearTimeout(wallTimer);
      clearTimeout(giveUp);
    },
  };
}
