// Running one program in a fresh isolated-vm isolate against the gg global: compile, type-check when asked, take a
// prepared isolate, run under the watchdog, and read what the program settled to. The guest side is the shim
// (shim.ts), the host side of its calls the bridge (bridge.ts), the limits the watchdog (watchdog.ts). The guest
// sees plain functions only, arguments and results cross as JSON strings, and errors are rebuilt in the guest, so no
// host object ever reaches the program.
import type ivm from "isolated-vm";
import { CALL_ERROR_CODES, clampMessage, type ErrorCode } from "../host/errors.ts";
import { plural } from "../host/lines.ts";
import type { GgEnv } from "./api.ts";
import { discard, type Prepared, prepare, recordedLedger } from "./bridge.ts";
import type { CheckOutcome, TypeProblem } from "./check.ts";
import { type CompiledProgram, compileProgram, type Language, missingGlobalHint, PROGRAM_FILE, position } from "./compile.ts";
import type { Limits } from "./limits.ts";
import { blankReport, type CallRecord, type RunError, type RunObserver, type RunReport, stateLostNote } from "./report.ts";
import { ABANDONED, CANCELLED, limitErrors, watch } from "./watchdog.ts";

interface Thrown {
  name: string;
  message: string;
  code?: string;
  stack: string;
}
/** Characters of an error message or stack kept from a program. */
const READ_CHARS = 8192;
/** Milliseconds the restore between a session's programs may take: a few, more only after a program piled onto the builtins. */
const IDLE_RESTORE_MS = 250;
const clip = (value: unknown, limit = READ_CHARS): string => (typeof value === "string" ? value : "").slice(0, limit);
const isCallCode = (code: unknown): code is ErrorCode => typeof code === "string" && (CALL_ERROR_CODES as readonly string[]).includes(code);

/** What the guest's settle message says, checked field by field: the guest is trusted with nothing. */
function readSettled(outcome: unknown, program: CompiledProgram, limits: Limits): { ok: true; result: unknown } | { ok: false; error: RunError } {
  const malformed = { ok: false as const, error: { code: "program-error" as const, message: "The program ended in a way gg cannot read" } };
  if (typeof outcome !== "string") return malformed;
  if (outcome.length > limits.resultChars + 64) {
    return { ok: false, error: { code: "result-too-large", message: `The returned value is over the ${limits.resultChars}-character result limit; return a summary, or write the data to a file with gg.files.writeFile` } };
  }
  let settled: { ok?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown }; thrown?: Partial<Record<keyof Thrown, unknown>> };
  try {
    settled = JSON.parse(outcome) as typeof settled;
  } catch {
    return malformed;
  }
  if (settled.ok === true) return { ok: true, result: settled.result };
  const { error, thrown } = settled;
  if (error && (error.code === "invalid-result" || error.code === "result-too-large")) return { ok: false, error: { code: error.code, message: clampMessage(clip(error.message)) } };
  if (!thrown || typeof thrown !== "object") return malformed;
  const name = clip(thrown.name, 100);
  const code = isCallCode(thrown.code) ? thrown.code : "program-error";
  const label = code === "program-error" && name !== "Error" && name !== "" ? `${name}: ` : "";
  const hinted = name === "ReferenceError" ? missingGlobalHint(clip(thrown.message)) : "";
  return { ok: false, error: { code, message: clampMessage(`${label}${clip(thrown.message)}${hinted}`), ...position(program, clip(thrown.stack, 65536)) } };
}

/** The report's error for a program that does not type-check: every problem listed, up to the shown bound. */
function typeError({ problems, total }: CheckOutcome): RunError {
  const first = problems[0] as TypeProblem;
  const more = total > problems.length ? `\n(and ${total - problems.length} more)` : "";
  const listed = problems.map((problem) => `line ${problem.line}, column ${problem.column}: ${problem.message}`).join("\n");
  return {
    code: "type-error",
    message: clampMessage(`The program does not type-check (${plural(total, "error")}), so nothing ran; fix these and run it again:\n${listed}${more}`),
    line: first.line,
    column: first.column,
    problems,
  };
}

/**
 * The limit that ended a synchronous entry into `isolate` which threw `error` after `ms` of its `timeoutMs`, if one
 * did: told by the isolate's state and the time spent, not by the message, which a rejection the program left
 * unhandled can copy.
 */
function limitHit(error: unknown, isolate: ivm.Isolate, ms: number, timeoutMs: number): "timeout" | "memory" | undefined {
  // Past its memory limit isolated-vm disposes the isolate.
  if (isolate.isDisposed) return "memory";
  // A timer may fire a millisecond early.
  return error instanceof Error && error.message === "Script execution timed out." && ms >= timeoutMs - 1 ? "timeout" : undefined;
}

/** How one program runs in the sandbox. */
export interface SandboxRun {
  language: Language;
  limits: Limits;
  observer?: RunObserver;
  /** Type-checks the program before it runs, when given. */
  check?: (source: string) => Promise<CheckOutcome>;
  /** Stops the program (cancelled) when aborted. */
  cancel?: AbortSignal;
  /** A replay's recorded calls, whose approvals the program's calls take (see RunOptions.recorded). */
  recorded?: readonly CallRecord[];
}

/** One run's report as it is being made. */
interface RunFrame {
  report: RunReport;
  /** performance.now() at the call to run: the budget counts from it. */
  started: number;
  /** Calls started and not yet answered: listed as unfinished if the run ends first. */
  inFlight: Map<CallRecord, number>;
  /** The report, with `error` if given, the calls still in flight, the views and the wall time. */
  finish(error?: RunError): RunReport;
  /** Set when the program was stopped (a limit, a cancel): its isolate is in no state to run another. */
  stopped?: RunError;
}

/**
 * Runs programs with the gg functions of `env`, one fresh isolate each; or, when the sandbox `keeps` state, all in one
 * isolate, the session's realm, where each program's top-level bindings stay for the next (realm.ts). The next
 * isolate is prepared as soon as a run ends that needs one, so a program's start costs only its own compilation.
 */
export function createSandbox(given: GgEnv, keeps = false, realmEvents: { ran?(source: string): void; ended?(): void } = {}) {
  let spare: Promise<Prepared | undefined> | undefined;
  /** The session's realm, between its programs. */
  let realm: Prepared | undefined;
  /** Why the realm was lost since the last program: said in the next one's report. */
  let lost: string | undefined;
  const env: GgEnv = keeps ? { ...given, held: () => realm?.held ?? [] } : given;
  const make = (limits: Limits): Promise<Prepared | undefined> => prepare(env, limits.memoryMb, limits.resultChars, keeps).catch(() => undefined);
  const fits = (ready: Prepared, limits: Limits): boolean => !ready.isolate.isDisposed && ready.memoryMb === limits.memoryMb && ready.resultChars === limits.resultChars;
  const take = async (limits: Limits): Promise<Prepared> => {
    if (realm && fits(realm, limits)) {
      await restoring;
      return realm;
    }
    if (realm) {
      lost = `this program's memory or result limit differs from the realm's (${realm.memoryMb} MB, ${realm.resultChars} characters), so it starts a new realm`;
      end();
    }
    const ready = await spare;
    spare = undefined;
    if (ready && fits(ready, limits)) return ready;
    if (ready) discard(ready);
    return prepare(env, limits.memoryMb, limits.resultChars, keeps);
  };
  /** Ends the realm: what it held is gone. */
  const end = (): void => {
    if (realm) discard(realm);
    realm = undefined;
    realmEvents.ended?.();
  };
  /** Programs started and not yet ended: none may be running while the builtins are restored between them. */
  let running = 0;
  /** The restore between programs, while it runs: the next program compiles beside it and waits for it to run. */
  let restoring: Promise<void> | undefined;
  /**
   * Restores the realm's builtins once the report is out, while no program runs, so that the next program starts
   * without doing it (most of a session program's start). It runs on the isolate's thread, so a program sent at once
   * is compiled meanwhile rather than after it. A restore a program started before, or one that ran out its bound,
   * is left to the next program's start, as is one after guest code ran meanwhile (the shim's flag).
   */
  const restoreSoon = (prepared: Prepared): void => {
    setImmediate(() => {
      if (realm !== prepared || running > 0 || prepared.isolate.isDisposed || !prepared.restoreIdle) return;
      // One that fails leaves the restore to the next program's start.
      restoring = prepared.restoreIdle.apply(undefined, [], { timeout: IDLE_RESTORE_MS }).then(
        () => {},
        () => {},
      );
    });
  };
  /** After a run in `prepared`: the realm is kept, unless the program was stopped; else the next isolate is made. */
  const after = (prepared: Prepared, source: string, how: SandboxRun, frame: RunFrame): void => {
    if (keeps && !frame.stopped) {
      realm = prepared;
      realmEvents.ran?.(source);
      restoreSoon(prepared);
      return;
    }
    if (keeps) {
      lost = `the program before this one was stopped (${frame.stopped?.code}), which ended the realm it ran in, so this one starts a new realm`;
      realmEvents.ended?.();
    }
    realm = undefined;
    // Disposing this isolate and creating the next one are synchronous work: both wait until the report is out.
    spare = new Promise((resolve) =>
      setImmediate(() => {
        discard(prepared);
        resolve(make(how.limits));
      }),
    );
  };
  /** One run of `source`, as {@link run} makes it. */
  const runOnce = async (source: string, how: SandboxRun): Promise<RunReport> => {
    const frame = startFrame(env);
    if (lost) frame.report.stateLost = stateLostNote(lost);
    lost = undefined;
    if (how.cancel?.aborted) return frame.finish(CANCELLED);
    const program = await compileProgram(source, how.language, keeps);
    if (!("code" in program)) return frame.finish({ code: "syntax-error", ...program, message: `The program does not compile: ${program.message}` });
    // Cancelled while esbuild worked: nothing ran, and the realm stays as it was.
    if (how.cancel?.aborted) return frame.finish(CANCELLED);
    const refused = await typeCheck(source, how, frame);
    if (refused) return frame.finish(refused);
    let prepared: Prepared;
    try {
      prepared = await take(how.limits);
    } catch (error) {
      return frame.finish({ code: "program-error", message: `Cannot start an isolate for the program: ${error instanceof Error ? error.message : String(error)}` });
    }
    try {
      return await execute(prepared, program, how, env, frame);
    } finally {
      after(prepared, source, how, frame);
    }
  };
  return {
    /** Runs `source` once under `limits` and reports what happened. Never throws. */
    async run(source: string, how: SandboxRun): Promise<RunReport> {
      running++;
      try {
        return await runOnce(source, how);
      } finally {
        running--;
      }
    },
    /** Ends the realm without a word: the caller asked for a fresh one. */
    reset(): void {
      end();
      lost = undefined;
    },
    /** Disposes the isolates kept: the realm, and the one ready for the next program. */
    async close(): Promise<void> {
      end();
      const ready = await spare;
      spare = undefined;
      if (ready) discard(ready);
    },
  };
}

/** A run's report, begun now. */
function startFrame(env: GgEnv): RunFrame {
  const started = performance.now();
  const report = blankReport();
  const inFlight = new Map<CallRecord, number>();
  const finish = (error?: RunError): RunReport => {
    if (error) report.error = error;
    for (const [call, since] of inFlight) report.calls.push({ ...call, ms: Math.round(performance.now() - since) });
    report.views = env.views.list();
    report.usage.wallMs = Math.round(performance.now() - started);
    return report;
  };
  return { report, started, inFlight, finish };
}

/** Type-checks the program when the run asks for it: the error that keeps it from running, or undefined. */
async function typeCheck(source: string, { check, cancel, limits }: SandboxRun, { report, started }: RunFrame): Promise<RunError | undefined> {
  if (!check) return undefined;
  const checkStarted = performance.now();
  let outcome: CheckOutcome;
  try {
    outcome = await check(source);
  } catch (error) {
    return { code: "io-error", message: `Cannot type-check the program: ${error instanceof Error ? error.message : String(error)}; run it without check` };
  } finally {
    report.usage.checkMs = Math.round(performance.now() - checkStarted);
  }
  if (outcome.total > 0) return typeError(outcome);
  // The check holds this thread (the first one loads the compiler): a cancel that fell due meanwhile is a timer or an
  // event still waiting to run, so let it run before deciding.
  await new Promise((resolve) => setTimeout(resolve, 0));
  if (cancel?.aborted) return CANCELLED;
  // The check counts toward the budget: one that spent it leaves no time to run in.
  if (performance.now() - started >= limits.budgetSecs * 1000) {
    return { code: "timeout", message: `Type-checking the program took its whole wall-clock budget of ${limits.budgetSecs} s, so it did not run; ask for a larger budget` };
  }
  return undefined;
}

/**
 * What resumes the program waiting on call `id` with its reply, here and now, under the run's limits. What else the
 * entry throws is a rejection left unhandled at its end (isolated-vm judges each entry on its own), which the program
 * may still handle after a later answer (awaiting calls in order): it does not fail the run.
 */
function waker(prepared: Prepared, watchdog: ReturnType<typeof watch>, limits: Limits): (id: number, reply: string) => void {
  const { isolate } = prepared;
  return (id, reply) => {
    if (watchdog.stopped() || isolate.isDisposed) return;
    const limit = watchdog.entryLimit();
    const entered = performance.now();
    try {
      prepared.settle.applySync(undefined, [id, reply], { timeout: limit.timeoutMs });
    } catch (error) {
      const hit = limitHit(error, isolate, performance.now() - entered, limit.timeoutMs);
      if (hit === "timeout") watchdog.stop(limit.error);
      else if (hit === "memory") watchdog.stop(limitErrors(limits).memoryLimit);
    }
  };
}

/** Runs a compiled program in a prepared isolate, under its limits, and finishes its report. */
async function execute(prepared: Prepared, program: CompiledProgram, how: SandboxRun, env: GgEnv, frame: RunFrame): Promise<RunReport> {
  const { limits, observer = {}, cancel } = how;
  const { report, finish } = frame;
  const stop = (error: RunError): RunReport => {
    frame.stopped = error;
    return finish(error);
  };
  const { isolate, context } = prepared;
  const watchdog = watch(isolate, limits, frame.started, cancel, report);
  // Commands end a little before the run does (5% of the budget, at most 1 s), so a program sees their timeout.
  const deadline = Date.now() + watchdog.msLeft() - Math.min(1000, (limits.budgetSecs * 1000) / 20);
  // Ending the run stops what its calls started: a command the program did not await does not outlive it.
  const ending = new AbortController();
  const callContext = { ...env.context, deadline, signal: ending.signal, program: true as const };
  // While a call waits for a person the run's clocks stop: its budget, its commands' deadline, and the supervisor's.
  const pause = (): (() => void) => {
    const resume = watchdog.pause();
    observer.paused?.(true);
    return () => {
      resume();
      callContext.deadline = deadline + watchdog.pausedMs();
      observer.paused?.(false);
    };
  };
  if (env.context.approvals) callContext.approvals = { ...env.context.approvals, pause };
  const callEnv = { ...env, context: callContext };
  const wake = waker(prepared, watchdog, limits);
  prepared.slot.run = { report, program, guard: watchdog.guard, failures: new Map(), inFlight: frame.inFlight, observer, callEnv, ending, logBytes: 0, logLimit: limits.logBytes, nextSeq: 0, wake, ...(how.recorded ? { recorded: recordedLedger(how.recorded) } : {}) };
  // The synchronous run's own timeout, and the limit it stands for should it fire.
  const sync = watchdog.syncLimit();
  const entered = performance.now();
  try {
    const script = isolate.compileScriptSync(`__gg_settle(${program.code.trimEnd().replace(/;$/, "")})`, { filename: PROGRAM_FILE });
    // Synchronous up to the program's first wait on a call; each call's answer resumes it synchronously (wake).
    const running: Promise<unknown> = script.runSync(context, { timeout: sync.timeoutMs, promise: true, copy: true });
    running.catch(() => {});
    const settled = await Promise.race([running, watchdog.abandoned]);
    const stopped = watchdog.stopped();
    if (settled === ABANDONED && stopped) {
      observer.abandoned?.();
      return stop({ ...stopped, message: `${stopped.message} (its isolate did not stop when told to, so gg's runner is restarted, and the views of earlier programs are lost)` });
    }
    if (stopped) return stop(stopped);
    const heap = isolate.getHeapStatisticsSync();
    report.usage.peakHeapBytes = Math.max(report.usage.peakHeapBytes, heap.used_heap_size);
    const read = readSettled(settled, program, limits);
    if (!read.ok) return finish(read.error);
    report.ok = true;
    report.result = read.result;
    return finish();
  } catch (error) {
    const stopped = watchdog.stopped();
    if (stopped) return stop(stopped);
    const message = error instanceof Error ? error.message : String(error);
    const hit = limitHit(error, isolate, performance.now() - entered, sync.timeoutMs);
    // The synchronous run's own timeout: the program never waited, so the watchdog could not run.
    if (hit === "timeout") return stop(sync.error);
    if (hit === "memory") return stop(limitErrors(limits).memoryLimit);
    // A rejection nothing handled (isolated-vm copies its message and stack, not a gg error's code), a syntax
    // error V8 finds that esbuild did not, or the isolate failing under us.
    const stack = error instanceof Error && typeof error.stack === "string" ? error.stack : "";
    return finish({ code: prepared.slot.run?.failures.get(message) ?? "program-error", message, ...position(program, stack) });
  } finally {
    watchdog.end();
    ending.abort();
    report.usage.cpuMs = Math.round(watchdog.cpuSpent());
    prepared.slot.run = undefined;
  }
}
