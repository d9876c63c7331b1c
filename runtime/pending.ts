// A run the supervisor waits on: its report, built from the runner's messages and, should the runner die first, from
// its journal of the calls that change the disk or start a process.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { type Approval, isDecidedBy } from "../bindings/approval_match.ts";
import { ERROR_CODES, type ErrorCode } from "../host/errors.ts";
import { type ConfinedMode, SANDBOX_MODES } from "../host/sandbox.ts";
import { blankReport, CALL_RECORDS, type CallRecord, type RunError, type RunReport } from "./report.ts";

/**
 * Seconds past a run's budget after which a runner that has not answered is killed. The runner stops overruns
 * itself; this catches the one case it cannot: its thread stuck inside V8 (a rejection whose getters never return,
 * read while the program runs on the runner's main thread).
 */
export const RUNNER_GRACE_SECS = 2;

/** A run sent to the runner and not yet answered. */
export interface Pending {
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
  /** The runner's clocks stopped (`on`: a call waits for a person) or ran again: the give-up timer follows them. */
  pause(on: boolean): void;
}

/** What the supervisor does for a run it waits on. */
interface RunHooks {
  /** Passes a cancel to the runner. */
  cancel(): void;
  /** Stops the runner, which did not answer in time, and says why in the report. */
  giveUp(error: RunError): void;
  /** Takes the report. */
  done(report: RunReport): void;
}

/**
 * Run `id`, about to be sent, awaited. A cancel (`signal` aborted, before or after it is sent) reaches the runner
 * between two steps of the program; one that never yields its thread is given up on after the grace, as is a runner
 * stuck past the budget (a host call that never returns).
 */
export function awaitRun(id: number, budgetSecs: number, signal: AbortSignal | undefined, hooks: RunHooks): Pending {
  const onAbort = (): void => {
    hooks.cancel();
    setTimeout(
      () => hooks.giveUp({ code: "cancelled", message: "The program was cancelled by its caller and did not stop, so its runner was stopped, and the views of earlier programs were lost with it; the calls listed ran before that" }),
      RUNNER_GRACE_SECS * 1000,
    ).unref();
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  // Aborted while the runner was starting: the run is sent, and its cancel right after it.
  if (signal?.aborted) queueMicrotask(onAbort);
  const done = (report: RunReport): void => {
    signal?.removeEventListener("abort", onAbort);
    hooks.done(report);
  };
  let due = performance.now() + (budgetSecs + RUNNER_GRACE_SECS) * 1000;
  const arm = (): NodeJS.Timeout => setTimeout(() => hooks.giveUp({ code: "timeout", message: `The program did not finish within its ${budgetSecs} s budget and its runner was stopped` }), Math.max(0, due - performance.now()));
  let pauses = 0;
  let since = 0;
  const pending: Pending = {
    id,
    report: blankReport(),
    started: performance.now(),
    calls: new Map(),
    dropped: new Set(),
    done: (report) => {
      clearTimeout(pending.timer);
      done(report);
    },
    timer: arm(),
    pause(on) {
      if (on && pauses++ === 0) {
        since = performance.now();
        clearTimeout(pending.timer);
      } else if (!on && pauses > 0 && --pauses === 0) {
        due += performance.now() - since;
        pending.timer = arm();
      }
    },
  };
  return pending;
}

/**
 * Records a call the runner reported: its start (unfinished), or its end, which replaces an unfinished start and
 * nothing else; past the listed calls, or without a record, it is counted in callsDropped, once per seq.
 */
export function place(pending: Pending, seq: number, record: CallRecord | undefined): void {
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
  const { name, args, ok, code, ms, unfinished, approval, sandbox } = value as Record<string, unknown>;
  if (typeof name !== "string" || !/^[a-z]+\.[A-Za-z]+$/.test(name) || typeof args !== "string" || args.length > 400) return undefined;
  if (typeof ok !== "boolean" || typeof ms !== "number" || !Number.isFinite(ms) || (unfinished !== undefined && unfinished !== true)) return undefined;
  if (code !== undefined && !(ERROR_CODES as readonly unknown[]).includes(code)) return undefined;
  const decided = recordedApproval(approval);
  const confined = (SANDBOX_MODES as readonly unknown[]).includes(sandbox) && sandbox !== "off" ? { sandbox: sandbox as ConfinedMode } : {};
  return { name, args, ok, ...(code === undefined ? {} : { code: code as ErrorCode }), ms, ...(unfinished ? { unfinished: true as const } : {}), ...(decided ? { approval: decided } : {}), ...confined };
}

/** A recorded approval (a journal's, or a transcript's), rebuilt field by field; undefined when there is none or it is not one. */
export function recordedApproval(value: unknown): Approval | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { verdict, by, reason, waitedMs } = value as Record<string, unknown>;
  if ((verdict !== "allow" && verdict !== "deny") || !isDecidedBy(by)) return undefined;
  return {
    verdict,
    by,
    ...(typeof reason === "string" ? { reason: reason.slice(0, 2000) } : {}),
    ...(typeof waitedMs === "number" && Number.isFinite(waitedMs) ? { waitedMs } : {}),
  };
}

/**
 * Adds the journal's records of the pending run to its report, then orders the calls as they started. A line that is
 * not a record (torn, as the runner died writing it, or forged) is skipped.
 */
export function mergeJournal(pending: Pending, journal: string): void {
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
