// What a run reports, apart from the sandbox that fills it in, so the supervisor and the limits can build one
// without loading isolated-vm.
import type { Approval } from "../bindings/approval_match.ts";
import type { ErrorCode } from "../host/errors.ts";
import type { ConfinedMode } from "../host/sandbox.ts";
import type { TypeProblem } from "./check.ts";
import type { ViewSummary } from "./views.ts";

/** Calls a report lists; a loop of calls would otherwise grow it without bound (the rest are counted). */
export const CALL_RECORDS = 1000;

/** One console entry. */
export interface LogEntry {
  level: "log" | "info" | "warn" | "error" | "debug";
  text: string;
}

/** One gg call a program made. */
export interface CallRecord {
  /** e.g. "files.writeFile". */
  name: string;
  /** Its arguments as JSON, cut at 300 characters. */
  args: string;
  ok: boolean;
  /** The error code of a failed call. */
  code?: string;
  /** Milliseconds it took. */
  ms: number;
  /** The run ended while the call was still running (a command the program did not await): it was stopped. */
  unfinished?: true;
  /** The approval it ran or was denied under: the verdict, who decided, and how long it waited for a person. */
  approval?: Approval;
  /** The sandbox its command ran in (shell.shell); absent, it ran unconfined. */
  sandbox?: ConfinedMode;
}

/** Why a run failed: a code from the closed set, and the program's own line and column where there is one. */
export interface RunError {
  code: ErrorCode;
  message: string;
  line?: number;
  column?: number;
  /** For a type-error: every type error found (the first 20), at the program's own positions. */
  problems?: TypeProblem[];
}

/** What a run reports. */
export interface RunReport {
  ok: boolean;
  /** The returned value, as JSON-safe data. */
  result?: unknown;
  logs: LogEntry[];
  /** Console entries beyond the log limit, counted but not kept. */
  logsDropped: number;
  error?: RunError;
  /** The gg calls the program made, in order, including ones that failed: the first 1000 of them. */
  calls: CallRecord[];
  /** Calls past the first 1000, counted but not listed. */
  callsDropped: number;
  /** The views open at the end, with their token costs. */
  views: ViewSummary[];
  /** In a session whose programs keep state: why the realm earlier programs built was lost before this one ran. */
  stateLost?: string;
  /** Lines naming the open views whose files changed during the run (by the program or not): they show the text as it was. */
  stale?: string[];
  /** Wall-clock and CPU milliseconds, peak heap bytes, and for a checked program the milliseconds its check took. */
  usage: { wallMs: number; cpuMs: number; peakHeapBytes: number; checkMs?: number };
}

/** A report before anything ran. */
export const blankReport = (): RunReport => ({ ok: false, logs: [], logsDropped: 0, calls: [], callsDropped: 0, views: [], usage: { wallMs: 0, cpuMs: 0, peakHeapBytes: 0 } });

/** Hooks that see a run as it happens (the supervisor keeps them if the runner dies). */
export interface RunObserver {
  /** A call ended; `seq` numbers the run's calls in the order they started. */
  onCall?(record: CallRecord, seq: number): void;
  /**
   * A call that changes the disk or starts a process is about to run, recorded `unfinished` until its `onCall`: both
   * must be made safe at once (the process may die before the call returns, or right after).
   */
  onEffect?(record: CallRecord, seq: number, listed: boolean): void;
  /** A call past the listed ones ended: counted in callsDropped. */
  onDropped?(): void;
  onLog?(entry: LogEntry): void;
  /** The program is about to wait on a call (a command, say): what was observed so far should be made safe now. */
  flush?(): void;
  /** A stopped program's isolate kept running (an isolated-vm race): its thread is lost with this process. */
  abandoned?(): void;
  /** The run's clocks stopped (a call waits for a person) or ran again: its supervisor stops its own with them. */
  paused?(on: boolean): void;
}

/** A report's stateLost, said for why the realm was lost (`why` begins in lower case and has no final stop). */
export const stateLostNote = (why: string): string => `The state earlier programs left is gone: ${why}. Run again what this program needs from them.`;
