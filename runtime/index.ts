// createRuntime: runs programs in a runner process it starts and restarts, so nothing a program does (a hard
// out-of-memory in V8 included) can take the embedding process down. Runs are queued, one at a time.
import { type ChildProcess, fork } from "node:child_process";
import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ERROR_CODES, type ErrorCode } from "../host/errors.ts";
import { endSupervised } from "../host/shell.ts";
import type { EngineOptions } from "./engine.ts";
import type { FromRunner, ToRunner } from "./runner.ts";
import { blankReport, CALL_RECORDS, refusedRun, type RunOptions, runLimits } from "./limits.ts";
import type { CallRecord, RunError, RunReport } from "./sandbox.ts";
import type { OpenedView } from "./views.ts";
import type { ViewContent } from "./window.ts";

/**
 * Seconds past a run's budget after which a runner that has not answered is killed. The runner stops overruns
 * itself; this catches the one case it cannot: its thread stuck inside V8 (a rejection whose getters never return,
 * read while the program runs on the runner's main thread).
 */
export const RUNNER_GRACE_SECS = 2;

// Beside this file: in the sources, in dist/runtime, and in dist/ for the CLI's bundle and its chunks (the build keeps
// them in one folder for this).
const runnerPath = fileURLToPath(new URL(`./runner${extname(fileURLToPath(import.meta.url))}`, import.meta.url));

interface Pending {
  id: number;
  report: RunReport;
  /** performance.now() when the run was sent. */
  started: number;
  /** Where each call the runner reported sits in `report.calls`, by its seq: an ended call replaces its start. */
  calls: Map<number, number>;
  /** The seqs of calls reported past the listed ones, each counted once in `callsDropped`. */
  dropped: Set<number>;
  done(report: RunReport): void;
  timer: NodeJS.Timeout;
}

/** A runtime for one agent: its workspace, configuration and views persist across the programs it runs. */
export function createRuntime(options: EngineOptions) {
  let runner: ChildProcess | undefined;
  /** Removes the current runner's journal directory. */
  let removeJournal = (): void => {};
  let ready: Promise<void> | undefined;
  let pending: Pending | undefined;
  let nextId = 1;
  /** Runners started so far. */
  let generation = 0;
  /** Set by close: nothing starts again. */
  let closed = false;
  /** Set by textOnly: every runner from then on describes pictures. */
  let textOnly = false;
  let queue: Promise<unknown> = Promise.resolve();
  /** Answers awaited from the runner for `ask`, by request id. */
  const requests = new Map<number, (answer: unknown) => void>();

  const start = (): Promise<void> => {
    // The runner gets none of this process's Node flags (an --input-type or a test runner's loader would break it).
    // Its stdout is this process's stderr: stdout may be a protocol channel (gg mcp) that nothing else may write to.
    // Where the runner writes the calls that change the disk or start a process, before and after each: read when it
    // dies, since the channel may not have carried them out. A private directory, removed with the runner, and when
    // this process exits (a CLI stopped by Ctrl-C never calls close). Without one (no usable temp folder), the
    // channel alone carries the calls.
    let journal = "";
    removeJournal();
    try {
      const journalDir = mkdtempSync(join(tmpdir(), "gg-runner-"));
      journal = join(journalDir, "calls.jsonl");
      const remove = (): void => rmSync(journalDir, { recursive: true, force: true });
      process.on("exit", remove);
      removeJournal = () => {
        process.off("exit", remove);
        remove();
      };
    } catch {
      removeJournal = () => {};
    }
    const child = fork(runnerPath, [], { stdio: ["ignore", 2, "inherit", "ipc"], serialization: "advanced", execArgv: [] });
    runner = child;
    // The command groups this runner has running: if it dies before stopping them, they are killed here.
    const groups = new Set<number>();
    ready = new Promise((resolve) => {
      child.on("message", (message: FromRunner) => {
        if (message.type === "ready") return resolve();
        if (message.type === "answer") {
          requests.get(message.id)?.(message.answer);
          requests.delete(message.id);
          return;
        }
        if (message.type === "group") {
          if (message.live) groups.add(message.pgid);
          else groups.delete(message.pgid);
          return;
        }
        if (!pending || message.id !== pending.id) return;
        if (message.type === "progress") {
          for (const { seq, record } of message.calls) place(pending, seq, record);
          pending.report.callsDropped += message.dropped;
          pending.report.logs.push(...message.logs);
        } else settle(message.report);
      });
    });
    // This process exiting (gg run or gg mcp stopped by a signal, or done) takes the runner along, busy or not, and
    // the commands it runs: no exit event of the runner's is seen after this one.
    const killOnExit = (): void => {
      if (child.pid !== undefined) endSupervised(child.pid, groups);
    };
    process.on("exit", killOnExit);
    child.on("exit", (code, signal) => {
      process.off("exit", killOnExit);
      if (runner === child) runner = undefined;
      // The views died with the runner: a question about them gets the answer of a runtime that has none.
      for (const answer of requests.values()) answer([]);
      requests.clear();
      for (const pgid of groups) {
        try {
          process.kill(-pgid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
      // The runner died under a program: report what it did before, and start afresh next time.
      if (pending && journal) mergeJournal(pending, journal);
      if (runner === undefined) removeJournal();
      if (pending) pending.report.usage.wallMs = Math.round(performance.now() - pending.started);
      const report = pending?.report ?? blankReport();
      settle({
        ...report,
        ok: false,
        error: report.error ?? (closed ? { code: "cancelled", message: "The runtime was closed while the program ran, and the program was stopped with it" } : runnerDeath(code, signal)),
      });
    });
    // View ids go on from where the last runner's stopped (by a million a runner), so they name one view each for
    // the runtime's life.
    const message: ToRunner = { type: "init", options: textOnly ? { ...options, textOnly } : options, journal, firstViewId: generation++ * 1_000_000 + 1 };
    child.send(message);
    return ready;
  };

  const settle = (report: RunReport): void => {
    const current = pending;
    if (!current) return;
    pending = undefined;
    clearTimeout(current.timer);
    current.done(report);
  };

  const execute = async (source: string, run: RunOptions, signal: AbortSignal | undefined): Promise<RunReport> => {
    const refused = refusedRun(run);
    if (refused) return refused;
    if (signal?.aborted) return { ...blankReport(), error: { code: "cancelled", message: "The program was cancelled by its caller before it started; nothing ran" } };
    if (closed) return { ...blankReport(), error: { code: "cancelled", message: "The runtime was closed before the program started; nothing ran" } };
    if (!runner) await start();
    else await ready;
    const id = nextId++;
    const budget = runLimits(run).budgetSecs;
    /** Stops a runner that does not answer in time, and says why in the report. */
    const giveUp = (error: RunError): void => {
      const current = pending;
      if (current?.id !== id) return;
      runner?.kill("SIGKILL");
      current.report.error = error;
    };
    // A cancel reaches the runner between two steps of the program; a program that never yields its thread is
    // stopped with its runner after the grace.
    const onAbort = (): void => {
      const cancel: ToRunner = { type: "cancel", id };
      runner?.send(cancel);
      setTimeout(
        () => giveUp({ code: "cancelled", message: "The program was cancelled by its caller and did not stop, so its runner was stopped, and the views of earlier programs were lost with it; the calls listed ran before that" }),
        RUNNER_GRACE_SECS * 1000,
      ).unref();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    return new Promise<RunReport>((resolve) => {
      // Aborted while the runner was starting: the run is sent, and its cancel right after it.
      if (signal?.aborted) queueMicrotask(onAbort);
      const done = (report: RunReport): void => {
        signal?.removeEventListener("abort", onAbort);
        resolve(report);
      };
      // A runner stuck past the budget (a host call that never returns): stop it, and report a timeout.
      const timer = setTimeout(() => giveUp({ code: "timeout", message: `The program did not finish within its ${budget} s budget and its runner was stopped` }), (budget + RUNNER_GRACE_SECS) * 1000);
      pending = { id, report: blankReport(), started: performance.now(), calls: new Map(), dropped: new Set(), done, timer };
      const message: ToRunner = { type: "run", id, source, run };
      runner?.send(message);
    });
  };

  /** Runs `work` after everything asked for so far: runs and questions about the views, one at a time. */
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work);
    queue = result.catch(() => {});
    return result;
  };

  /** Asks the runner about its views, after every run asked for so far; `start` starts a runner there is none of. */
  const ask = <T>(question: "views" | "opening" | "text-only", startRunner: boolean): Promise<T> =>
    serially(async (): Promise<T> => {
      if (closed || (!runner && !startRunner)) return [] as T;
      if (!runner) await start();
      else await ready;
      const child = runner;
      const id = nextId++;
      return new Promise((answer) => {
        requests.set(id, answer as (value: unknown) => void);
        const message: ToRunner = { type: question, id };
        child?.send(message);
      });
    });

  return {
    /** Runs one program; never throws: every outcome is in the report. Aborting `signal` cancels it (cancelled). */
    run: (source: string, run: RunOptions = {}, control: { signal?: AbortSignal } = {}): Promise<RunReport> => serially(() => execute(source, run, control.signal)),
    /**
     * What the open views put in front of the model (each view's text, and its picture while it is current), after
     * every run asked for so far: what an agent loop sends with its next request.
     */
    views: (): Promise<ViewContent[]> => ask<ViewContent[]>("views", false),
    /**
     * Opens the window a code agent meets before its first turn, as the configuration's openingTurn sets it: a view
     * of the workspace's tree and one of each held module's docs. Returns the views opened, with their costs: what an
     * embedder sends as its first messages.
     */
    openingTurn: (): Promise<OpenedView[]> => ask<OpenedView[]>("opening", true),
    /**
     * For a model found unable to see pictures: from now on reads describe them, and the open views give theirs up,
     * each leaving a note where it was. A runner started later keeps to it.
     */
    textOnly: async (): Promise<void> => {
      textOnly = true;
      await ask<void>("text-only", false);
    },
    /** Stops the runner process (a busy one after the grace) and refuses further runs. */
    close(): void {
      closed = true;
      const child = runner;
      child?.disconnect();
      // A runner busy in a program cannot see the disconnect: it is stopped after the grace, with its commands.
      if (child) setTimeout(() => child.kill("SIGKILL"), RUNNER_GRACE_SECS * 1000).unref();
      runner = undefined;
      // Now, not when the runner's exit is seen: the embedding process may be gone by then.
      removeJournal();
    },
  };
}

export type Runtime = ReturnType<typeof createRuntime>;
export type { EngineOptions as RuntimeOptions } from "./engine.ts";
export type { RunOptions } from "./limits.ts";
export type { CallRecord, LogEntry, RunError, RunReport } from "./sandbox.ts";
export type { OpenedView, ViewSummary } from "./views.ts";
export type { ViewContent } from "./window.ts";
export type { Baseline } from "./context.ts";
export { DEFAULT_LIMITS, type Limits } from "./limits.ts";

/**
 * Records a call the runner reported: its start (unfinished), or its end, which replaces an unfinished start and
 * nothing else; past the listed calls, or without a record, it is counted in callsDropped, once per seq.
 */
function place(pending: Pending, seq: number, record: CallRecord | undefined): void {
  const { report, calls, dropped } = pending;
  const at = calls.get(seq);
  if (at !== undefined) {
    if (record && report.calls[at]?.unfinished) report.calls[at] = record;
    return;
  }
  if (dropped.has(seq)) return;
  if (!record || report.calls.length >= CALL_RECORDS) {
    dropped.add(seq);
    report.callsDropped++;
    return;
  }
  calls.set(seq, report.calls.push(record) - 1);
}

/** Bytes of a journal read: past them (a million writes), later calls go uncounted rather than flood this process. */
const JOURNAL_BYTES = 64 * 1024 * 1024;

/** A journal line's record, rebuilt field by field: the journal is a file a program's commands could write to. */
function journalRecord(value: unknown): CallRecord | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { name, args, ok, code, ms, unfinished } = value as Record<string, unknown>;
  if (typeof name !== "string" || !/^[a-z]+\.[A-Za-z]+$/.test(name) || typeof args !== "string" || args.length > 400) return undefined;
  if (typeof ok !== "boolean" || typeof ms !== "number" || !Number.isFinite(ms) || (unfinished !== undefined && unfinished !== true)) return undefined;
  if (code !== undefined && !(ERROR_CODES as readonly unknown[]).includes(code)) return undefined;
  return { name, args, ok, ...(code === undefined ? {} : { code: code as ErrorCode }), ms, ...(unfinished ? { unfinished: true as const } : {}) };
}

/**
 * Adds the journal's records of the pending run to its report, then orders the calls as they started. A line that is
 * not a record (torn, as the runner died writing it, or forged) is skipped.
 */
function mergeJournal(pending: Pending, journal: string): void {
  let text = "";
  try {
    const fd = openSync(journal, "r");
    try {
      const buffer = Buffer.alloc(Math.min(fstatSync(fd).size, JOURNAL_BYTES));
      text = buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString("utf8");
    } finally {
      closeSync(fd);
    }
  } catch {
    return;
  }
  for (const line of text.split("\n")) {
    let entry: { id?: unknown; seq?: unknown; record?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (entry.id !== pending.id || typeof entry.seq !== "number" || !Number.isInteger(entry.seq)) continue;
    const record = entry.record === undefined ? undefined : journalRecord(entry.record);
    if (entry.record !== undefined && !record) continue;
    place(pending, entry.seq, record);
  }
  const { report, calls } = pending;
  report.calls = [...calls].sort(([a], [b]) => a - b).map(([, at]) => report.calls[at] as CallRecord);
}

/**
 * Why a runner ended under a program: V8 aborts it (SIGABRT or SIGTRAP) when a heap outgrows what it can hold. The
 * runner turns SIGINT, SIGTERM and SIGHUP into exit code 128 + the signal's number, after stopping its commands.
 */
function runnerDeath(code: number | null, signal: NodeJS.Signals | null): RunError {
  const lost =
    "the calls listed ran before that, except any marked unfinished, which were under way (a write or edit among them may or may not have reached the disk), and the views of earlier programs were lost with the runner";
  const relayed = code !== null && code > 128 ? Object.entries(constants.signals).find(([, number]) => number === code - 128)?.[0] : undefined;
  const ended = signal ?? relayed;
  if (code === 0 && !signal) return { code: "program-error", message: `The runtime was closed while the program ran; ${lost}` };
  if (ended === undefined || ended === "SIGABRT" || ended === "SIGTRAP") {
    return { code: "memory-limit", message: `The program brought its runner process down (${ended ?? `exit code ${code}`}), most likely by using memory far past its limit; ${lost}` };
  }
  return { code: "program-error", message: `The runner process was ended by ${ended}, from outside gg or by a command the program ran; ${lost}` };
}
