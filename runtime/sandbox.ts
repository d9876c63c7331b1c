// Running one program in a fresh isolated-vm isolate against the gg global. The guest sees plain functions only:
// two host References (inline and waiting dispatchers) and one Callback (console) are captured by a strict-mode
// shim and never reachable from the program. Arguments cross as one JSON string and are parsed and validated on the
// host; results cross back as one JSON string and errors are rebuilt in the guest, so no host object ever reaches
// the program. The program runs synchronously on this thread, under the run's own timeout, until it first waits on
// a command; from then on a host watchdog (wall clock and CPU time) stops it, since isolated-vm's timeout ends there.
import ivm from "isolated-vm";
import { CALL_ERROR_CODES, clampMessage, type ErrorCode, isGgError } from "../host/errors.ts";
import { argumentsObject, forPrograms, type GgEnv, ggFunctions } from "./api.ts";
import { type CompiledProgram, compileProgram, type Language, originalPosition, PROGRAM_FILE } from "./compile.ts";
import { plural } from "../host/lines.ts";
import type { CheckOutcome, TypeProblem } from "./check.ts";
import { blankReport, CALL_RECORDS, type Limits } from "./limits.ts";
import type { ViewSummary } from "./views.ts";

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
  /** Wall-clock and CPU milliseconds, peak heap bytes, and for a checked program the milliseconds its check took. */
  usage: { wallMs: number; cpuMs: number; peakHeapBytes: number; checkMs?: number };
}

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
  /** The program is about to wait on the host (a command): what was observed so far should be made safe now. */
  flush?(): void;
  /** A stopped program's isolate kept running (an isolated-vm race): its thread is lost with this process. */
  abandoned?(): void;
}

/** Milliseconds a stopped program's isolate has to stop before the run is reported without it. */
const STOP_GRACE_MS = 1000;
const ABANDONED = Symbol("abandoned");

/** A call's arguments as its record keeps them: the first 300 characters of their JSON. */
const clipArgs = (json: string): string => (json.length > 300 ? `${json.slice(0, 300)}...` : json);


const LEVELS = ["log", "info", "warn", "error", "debug"] as const;
/** Characters of one console entry. */
const LOG_ENTRY_CHARS = 8192;
/** Characters of one call's arguments as JSON accepted from a program (a write of up to 64 MiB of text). */
const ARGS_CHARS = 64 * 1024 * 1024;

// Runs once per isolate, before the program: captures what it needs, then never exposes $0 or $1.
const SHIM = `'use strict';
const dispatch = $0, dispatchSync = $1, emit = $2, layout = JSON.parse($3), resultLimit = $4;
const { stringify, parse } = JSON;
const { freeze, defineProperty, getPrototypeOf, setPrototypeOf } = Object;
const { construct, apply } = Reflect;
const PromiseCtor = Promise, promiseThen = Promise.prototype.then;
const ErrorCtor = Error, StringCtor = String, RangeErrorCtor = RangeError, TypeErrorCtor = TypeError;
const fixed = (value) => ({ value, writable: false, enumerable: false, configurable: false });
// Memory that isolated-vm's allocator does not count: WebAssembly memories, growable SharedArrayBuffers and
// resizable ArrayBuffers. Programs get none of them, so the heap limit bounds everything they can hold.
for (const name of ["WebAssembly", "SharedArrayBuffer", "Atomics"]) delete globalThis[name];
const NativeArrayBuffer = ArrayBuffer;
const FixedArrayBuffer = function ArrayBuffer(length, options) {
  if (new.target === undefined) throw new TypeErrorCtor("Constructor ArrayBuffer requires 'new'");
  if (options !== undefined && options !== null && options.maxByteLength !== undefined) {
    throw new RangeErrorCtor("Resizable ArrayBuffers are not available to gg programs; allocate the size you need");
  }
  return construct(NativeArrayBuffer, [length], new.target);
};
setPrototypeOf(FixedArrayBuffer, getPrototypeOf(NativeArrayBuffer));
defineProperty(FixedArrayBuffer, "prototype", fixed(NativeArrayBuffer.prototype));
defineProperty(FixedArrayBuffer, "isView", { value: NativeArrayBuffer.isView, writable: true, configurable: true });
defineProperty(FixedArrayBuffer, Symbol.species, { get() { return this; }, configurable: true });
defineProperty(NativeArrayBuffer.prototype, "constructor", { value: FixedArrayBuffer, writable: true, configurable: true });
defineProperty(globalThis, "ArrayBuffer", { value: FixedArrayBuffer, writable: true, configurable: true });
const options = freeze({ __proto__: null, arguments: freeze({ __proto__: null, copy: true }), result: freeze({ __proto__: null, promise: true, copy: true }) });
const syncOptions = freeze({ __proto__: null, arguments: freeze({ __proto__: null, copy: true }), result: freeze({ __proto__: null, copy: true }) });
const format = (value) => {
  if (typeof value === "string") return value;
  try {
    if (value instanceof ErrorCtor) return StringCtor(value.stack || value.message);
    const json = stringify(value);
    return json === undefined ? StringCtor(value) : json;
  } catch {
    try { return StringCtor(value); } catch { return "[unprintable]"; }
  }
};
const encode = (args) => {
  while (args.length > 0 && args[args.length - 1] === undefined) args.length--;
  return stringify(args);
};
const answer = (reply) => {
  if (reply.ok) return reply.value;
  const error = new ErrorCtor(reply.error.message);
  defineProperty(error, "code", { value: reply.error.code, enumerable: true });
  throw error;
};
// Calls that finish on the host without waiting are made inline (a few microseconds); the rest cross as promises.
const callSync = async (index, args) => answer(parse(dispatchSync.applySync(undefined, [index, encode(args)], syncOptions)));
const callAsync = async (index, args) => answer(parse(await dispatch.apply(undefined, [index, encode(args)], options)));
const gg = {};
layout.forEach(([module, name, sync], index) => {
  gg[module] = gg[module] || {};
  gg[module][name] = sync ? (...args) => callSync(index, args) : (...args) => callAsync(index, args);
});
for (const module of Object.keys(gg)) freeze(gg[module]);
defineProperty(globalThis, "gg", fixed(freeze(gg)));
const logger = (level) => (...values) => {
  let text = "";
  for (let i = 0; i < values.length && text.length <= ${LOG_ENTRY_CHARS}; i++) text += (i ? " " : "") + format(values[i]);
  emit(level, text.length > ${LOG_ENTRY_CHARS} ? text.slice(0, ${LOG_ENTRY_CHARS}) + " [entry cut at ${LOG_ENTRY_CHARS} characters]" : text);
};
defineProperty(globalThis, "console", fixed(freeze({ log: logger(0), info: logger(1), warn: logger(2), error: logger(3), debug: logger(4) })));
// Messages to the host are built from null-prototype objects and strings, so no toJSON a program installs can
// rewrite them; the host checks them again all the same.
const record = (fields) => setPrototypeOf(fields, null);
const describe = (thrown) => {
  try {
    if (thrown instanceof ErrorCtor) {
      const code = typeof thrown.code === "string" ? thrown.code : "";
      return record({ name: StringCtor(thrown.name), message: StringCtor(thrown.message), code, stack: typeof thrown.stack === "string" ? thrown.stack : "" });
    }
    return record({ name: "Error", message: "the program threw a value that is not an Error: " + format(thrown), code: "", stack: "" });
  } catch {
    return record({ name: "Error", message: "the program threw a value that cannot be described", code: "", stack: "" });
  }
};
const failure = (code, message) => stringify(record({ ok: false, error: record({ code, message }) }));
const settled = (value) => {
  let json;
  try { json = stringify(value === undefined ? null : value); } catch (error) {
    return failure("invalid-result", "The returned value cannot be turned into JSON (" + format(error && error.message) + "); return plain data: strings, numbers, booleans, arrays and objects without cycles");
  }
  if (typeof json !== "string") json = "null";
  if (json.length > resultLimit) {
    return failure("result-too-large", "The returned value is " + json.length + " characters as JSON, over the " + resultLimit + "-character result limit; return a summary, or write the data to a file with gg.files.writeFile");
  }
  return '{"ok":true,"result":' + json + "}";
};
const threw = (thrown) => stringify(record({ ok: false, thrown: describe(thrown) }));
// The program's promise is followed with the then captured above, never one the program can replace.
defineProperty(globalThis, "__gg_settle", fixed((program) => new PromiseCtor((resolve) => {
  apply(promiseThen, program, [
    (value) => { try { resolve(settled(value)); } catch (error) { resolve(threw(error)); } },
    (thrown) => resolve(threw(thrown)),
  ]);
})));
`;

interface Thrown {
  name: string;
  message: string;
  code?: string;
  stack: string;
}

// The program's frames, as V8 writes them: the bare file name, never the tail of a longer path a program printed.
const FRAME = new RegExp(`(?<![\\w/.-])${PROGRAM_FILE.replace(".", "\\.")}:(\\d+):(\\d+)`, "g");

/** The program's own position of the first stack frame in compiled program code. */
function position(program: CompiledProgram, stack: string): { line?: number; column?: number } {
  FRAME.lastIndex = 0;
  const frame = FRAME.exec(stack);
  if (!frame) return {};
  return originalPosition(program, Number(frame[1]), Number(frame[2])) ?? {};
}

/**
 * A stack as the program wrote it: compiled positions mapped to its own lines; frames of gg's shim and of the
 * wrapper around the program left out.
 */
function mapStack(program: CompiledProgram, text: string): string {
  if (!text.includes(PROGRAM_FILE) && !text.includes("<isolated-vm>")) return text;
  return text.replace(/\n\s*at [^\n]*/g, (frame) => {
    if (frame.includes("<isolated-vm>")) return "";
    let inWrapper = false;
    const mapped = frame.replace(FRAME, (found, line: string, column: string) => {
      const original = originalPosition(program, Number(line), Number(column));
      if (!original) inWrapper = true;
      return original ? `${PROGRAM_FILE}:${original.line}:${original.column}` : found;
    });
    return inWrapper ? "" : mapped;
  });
}

/** Characters of an error message or stack kept from a program. */
const MESSAGE_CHARS = 8192;
const clip = (value: unknown, limit = MESSAGE_CHARS): string => (typeof value === "string" ? value : "").slice(0, limit);
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
  if (error && (error.code === "invalid-result" || error.code === "result-too-large")) return { ok: false, error: { code: error.code, message: clip(error.message) } };
  if (!thrown || typeof thrown !== "object") return malformed;
  const name = clip(thrown.name, 100);
  const code = isCallCode(thrown.code) ? thrown.code : "program-error";
  const label = code === "program-error" && name !== "Error" && name !== "" ? `${name}: ` : "";
  return { ok: false, error: { code, message: clampMessage(`${label}${clip(thrown.message)}`), ...position(program, clip(thrown.stack, 65536)) } };
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

/** What the bridge of a prepared isolate writes into while a program runs; undefined before and after. */
interface RunState {
  report: RunReport;
  program: CompiledProgram;
  /** Stops the run when it is past its budget: called on every synchronous call into the host. */
  guard(): void;
  /** Codes of the failed calls' messages: a gg error that ends the run unhandled arrives without its code. */
  failures: Map<string, ErrorCode>;
  /** Calls started and not yet answered (commands): listed as unfinished if the run ends first. */
  inFlight: Map<CallRecord, number>;
  observer: RunObserver;
  callEnv: GgEnv;
  ending: AbortController;
  logBytes: number;
  logLimit: number;
  /** The next call's `seq`: calls started so far. */
  nextSeq: number;
}

/** A fresh isolate with the gg global installed, waiting for its one program. */
interface Prepared {
  isolate: ivm.Isolate;
  context: ivm.Context;
  dispatchers: ivm.Reference[];
  memoryMb: number;
  resultChars: number;
  slot: { run?: RunState };
}

/** Creates an isolate and installs the shim; its bridge serves whichever run is in `slot`. */
async function prepare(env: GgEnv, memoryMb: number, resultChars: number): Promise<Prepared> {
  const isolate = new ivm.Isolate({ memoryLimit: memoryMb });
  const functions = ggFunctions(env.context.config);
  const slot: { run?: RunState } = {};
  /** One call from the program: checked, run and recorded; the reply is always a JSON string, never a throw. */
  const dispatch = (index: unknown, argsJson: unknown, inline: boolean): string | Promise<string> => {
    const run = slot.run;
    const started = performance.now();
    const seq = run ? run.nextSeq++ : 0;
    const fn = typeof index === "number" ? functions[index] : undefined;
    const name = fn ? `${fn.module}.${fn.name}` : "unknown";
    const text = typeof argsJson === "string" ? argsJson : "";
    const reply = (value: unknown, code?: ErrorCode): string => {
      if (run && !run.ending.signal.aborted) {
        if (code && typeof value === "string" && run.failures.size < CALL_RECORDS) run.failures.set(value, code);
        const full = run.report.calls.length >= CALL_RECORDS;
        // Past the listed calls, one that changes the disk or starts a process still reaches the observer, which
        // counts it as dropped: a crash report then says something happened that it does not list.
        if (full) run.report.callsDropped++;
        if (!full || fn?.effects) {
          const entry: CallRecord = { name, args: clipArgs(text), ok: !code, ...(code ? { code } : {}), ms: Math.round(performance.now() - started) };
          if (!full) run.report.calls.push(entry);
          run.observer.onCall?.(entry, seq);
        } else run.observer.onDropped?.();
      }
      return JSON.stringify(code ? { ok: false, error: { code, message: value } } : { ok: true, value: value === undefined ? null : value });
    };
    const failure = (error: unknown): string =>
      isGgError(error) ? reply(forPrograms(error.message), error.code) : reply(clampMessage(`gg.${name} failed on the host: ${error instanceof Error ? error.message : String(error)}`), "io-error");
    try {
      if (!run) return reply("Cannot call gg outside a run", "invalid-argument");
      // A loop of inline calls keeps this thread too busy for the watchdog's timers: each call checks the budget.
      if (inline) run.guard();
      if (!fn || typeof argsJson !== "string" || fn.sync !== inline) return reply("Cannot call an unknown gg function", "invalid-argument");
      if (text.length > ARGS_CHARS) return reply(`Cannot call gg.${name}: its arguments are ${text.length} characters as JSON, over the ${ARGS_CHARS} limit`, "invalid-argument");
      const given: unknown = JSON.parse(text);
      if (!Array.isArray(given)) return reply(`Cannot call gg.${name}: arguments did not arrive as a list`, "invalid-argument");
      const args = argumentsObject(fn, given.map((value) => (value === null ? undefined : value)), env.context.config);
      if (!args.ok) return reply(args.message, "invalid-argument");
      const unfinished = (): CallRecord => ({ name, args: clipArgs(text), ok: false, unfinished: true, ms: 0 });
      if (fn.effects) run.observer.onEffect?.(unfinished(), seq, run.report.calls.length < CALL_RECORDS);
      if (inline) return reply(fn.run(args.args, run.callEnv));
      run.observer.flush?.();
      const pending = unfinished();
      run.inFlight.set(pending, started);
      const settle = (answer: string): string => {
        run.inFlight.delete(pending);
        return answer;
      };
      return Promise.resolve(fn.run(args.args, run.callEnv)).then((value) => settle(reply(value)), (error: unknown) => settle(failure(error)));
    } catch (error) {
      return failure(error);
    }
  };
  const dispatcher = new ivm.Reference(async (index: unknown, argsJson: unknown) => dispatch(index, argsJson, false));
  const dispatcherSync = new ivm.Reference((index: unknown, argsJson: unknown) => dispatch(index, argsJson, true));
  const emit = new ivm.Callback(
    (level: unknown, text: unknown) => {
      const run = slot.run;
      if (!run || typeof text !== "string" || typeof level !== "number") return;
      run.guard();
      const entry: LogEntry = { level: LEVELS[level] ?? "log", text: mapStack(run.program, text) };
      // Each entry costs its line break too, so a flood of empty entries meets the limit as well.
      run.logBytes += Buffer.byteLength(text) + 1;
      if (run.logBytes > run.logLimit) {
        run.report.logsDropped++;
        return;
      }
      run.report.logs.push(entry);
      run.observer.onLog?.(entry);
    },
    // Synchronous, so a log written just before the program is stopped is already in the report.
    { sync: true },
  );
  const context = await isolate.createContext();
  const layout = JSON.stringify(functions.map((fn) => [fn.module, fn.name, fn.sync]));
  await context.evalClosure(SHIM, [dispatcher, dispatcherSync, emit, layout, resultChars]);
  return { isolate, context, dispatchers: [dispatcher, dispatcherSync], memoryMb, resultChars, slot };
}

function discard(prepared: Prepared): void {
  prepared.slot.run = undefined;
  for (const dispatcher of prepared.dispatchers) dispatcher.release();
  if (!prepared.isolate.isDisposed) prepared.isolate.dispose();
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
}

/**
 * Runs programs with the gg functions of `env`, one fresh isolate each. The next isolate is prepared as soon as a
 * run ends, so a program's start costs only its own compilation.
 */
export function createSandbox(env: GgEnv) {
  let spare: Promise<Prepared | undefined> | undefined;
  const make = (limits: Limits): Promise<Prepared | undefined> => prepare(env, limits.memoryMb, limits.resultChars).catch(() => undefined);
  const take = async (limits: Limits): Promise<Prepared> => {
    const ready = await spare;
    spare = undefined;
    if (ready && !ready.isolate.isDisposed && ready.memoryMb === limits.memoryMb && ready.resultChars === limits.resultChars) return ready;
    if (ready) discard(ready);
    return prepare(env, limits.memoryMb, limits.resultChars);
  };
  return {
    /** Runs `source` once under `limits` and reports what happened. Never throws. */
    async run(source: string, how: SandboxRun): Promise<RunReport> {
      const { language, limits, observer = {}, check, cancel } = how;
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
      const cancelled: RunError = { code: "cancelled", message: "The program was cancelled by its caller, with the commands it started; the calls listed ran before that" };
      if (cancel?.aborted) return finish(cancelled);
      const program = compileProgram(source, language);
      if (!("code" in program)) return finish({ code: "syntax-error", ...program, message: `The program does not compile: ${program.message}` });
      if (check) {
        const checkStarted = performance.now();
        let outcome: CheckOutcome;
        try {
          outcome = await check(source);
        } catch (error) {
          return finish({ code: "io-error", message: `Cannot type-check the program: ${error instanceof Error ? error.message : String(error)}; run it without check` });
        } finally {
          report.usage.checkMs = Math.round(performance.now() - checkStarted);
        }
        if (outcome.total > 0) return finish(typeError(outcome));
        // The check holds this thread (the first one loads the compiler): a cancel that fell due meanwhile is a timer
        // or an event still waiting to run, so let it run before deciding.
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (cancel?.aborted) return finish(cancelled);
        // The check counts toward the budget: one that spent it leaves no time to run in.
        if (performance.now() - started >= limits.budgetSecs * 1000) {
          return finish({ code: "timeout", message: `Type-checking the program took its whole wall-clock budget of ${limits.budgetSecs} s, so it did not run; ask for a larger budget` });
        }
      }
      let prepared: Prepared;
      try {
        prepared = await take(limits);
      } catch (error) {
        return finish({ code: "program-error", message: `Cannot start an isolate for the program: ${error instanceof Error ? error.message : String(error)}` });
      }
      const { isolate, context } = prepared;
      // The budget counts from the call to run: compiling, checking and taking an isolate come out of it.
      const budgetMs = limits.budgetSecs * 1000;
      const msLeft = (): number => started + budgetMs - performance.now();
      // Commands end a little before the run does (5% of the budget, at most 1 s), so a program sees their timeout.
      const deadline = Date.now() + msLeft() - Math.min(1000, budgetMs / 20);
      // Ending the run stops what its calls started: a command the program did not await does not outlive it.
      const ending = new AbortController();
      // CPU time of the run: the isolate's thread and the host work of its calls (a loop of inline calls or logs spends
      // most of its time on the host). A runner runs one program at a time, so the process's own count is the run's.
      const cpuAtStart = process.cpuUsage();
      const cpuSpent = (): number => {
        const spent = process.cpuUsage(cpuAtStart);
        return (spent.user + spent.system) / 1000;
      };
      let stopped: RunError | undefined;
      const overBudget: RunError = { code: "timeout", message: `The program was stopped at its wall-clock budget of ${limits.budgetSecs} s; do less per run, or ask for a larger budget` };
      const memoryLimit: RunError = { code: "memory-limit", message: `The program was stopped at its memory limit of ${limits.memoryMb} MB; keep less in memory at once (stream through files, or read windows)` };
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
      const onCancel = (): void => stop(cancelled);
      cancel?.addEventListener("abort", onCancel, { once: true });
      // Aborted while the isolate was being taken: stopped before it starts.
      if (cancel?.aborted) onCancel();
      const cpuLimitMs = limits.cpuSecs * 1000;
      const callEnv = { ...env, context: { ...env.context, deadline, signal: ending.signal } };
      const cpuStop: RunError = { code: "timeout", message: `The program was stopped at its CPU limit of ${limits.cpuSecs} s; look for a loop that never ends` };
      let guarded = 0;
      const guard = (): void => {
        if (msLeft() < 0) stop(overBudget);
        else if (++guarded % 128 === 0 && cpuSpent() > cpuLimitMs) stop(cpuStop);
      };
      prepared.slot.run = { report, program, guard, failures: new Map(), inFlight, observer, callEnv, ending, logBytes: 0, logLimit: limits.logBytes, nextSeq: 0 };
      const tick = Math.min(100, Math.max(5, Math.min(budgetMs, cpuLimitMs) / 20));
      // The timers cover what runs after the program's first wait on a command; until then the synchronous run's own
      // timeout holds it.
      const wallTimer = setTimeout(() => stop(isolate.isDisposed ? memoryLimit : overBudget), Math.max(0, msLeft()));
      const watchdog = setInterval(() => {
        if (isolate.isDisposed) return stop(memoryLimit);
        if (cpuSpent() > cpuLimitMs) stop(cpuStop);
        else {
          isolate
            .getHeapStatistics()
            .then((heap) => {
              report.usage.peakHeapBytes = Math.max(report.usage.peakHeapBytes, heap.used_heap_size);
            })
            .catch(() => {});
        }
      }, tick);

      // Which limit the synchronous run's own timeout stands for, should it fire.
      const cpuBound = cpuLimitMs < msLeft();
      try {
        const script = isolate.compileScriptSync(`__gg_settle(${program.code.trimEnd().replace(/;$/, "")})`, { filename: PROGRAM_FILE });
        // Synchronous up to the program's first wait on a command; the promise follows the rest natively.
        const timeout = Math.max(1, Math.ceil(Math.min(msLeft(), cpuLimitMs)));
        const running: Promise<unknown> = script.runSync(context, { timeout, promise: true, copy: true });
        running.catch(() => {});
        const settled = await Promise.race([running, abandoned]);
        if (settled === ABANDONED && stopped) {
          observer.abandoned?.();
          return finish({ ...stopped, message: `${stopped.message} (its isolate did not stop when told to, so gg's runner is restarted, and the views of earlier programs are lost)` });
        }
        if (stopped) return finish(stopped);
        const heap = isolate.getHeapStatisticsSync();
        report.usage.peakHeapBytes = Math.max(report.usage.peakHeapBytes, heap.used_heap_size);
        const read = readSettled(settled, program, limits);
        if (!read.ok) return finish(read.error);
        report.ok = true;
        report.result = read.result;
        return finish();
      } catch (error) {
        if (stopped) return finish(stopped);
        const message = error instanceof Error ? error.message : String(error);
        // The synchronous run's own timeout: the program never waited, so the watchdog could not run.
        if (/execution timed out/i.test(message)) {
          return finish(cpuBound ? cpuStop : overBudget);
        }
        // Past the memory limit isolated-vm disposes the isolate: the program's promise is then "abandoned".
        if (/memory limit/i.test(message) || isolate.isDisposed) return finish(memoryLimit);
        // A rejection nothing handled (isolated-vm copies its message and stack, not a gg error's code), a syntax
        // error V8 finds that esbuild did not, or the isolate failing under us.
        const stack = error instanceof Error && typeof error.stack === "string" ? error.stack : "";
        return finish({ code: prepared.slot.run?.failures.get(message) ?? "program-error", message, ...position(program, stack) });
      } finally {
        cancel?.removeEventListener("abort", onCancel);
        ending.abort();
        clearInterval(watchdog);
        clearTimeout(wallTimer);
        clearTimeout(giveUp);
        report.usage.cpuMs = Math.round(cpuSpent());
        prepared.slot.run = undefined;
        // Disposing this isolate and creating the next one are synchronous work: both wait until the report is out.
        spare = new Promise((resolve) =>
          setImmediate(() => {
            discard(prepared);
            resolve(make(limits));
          }),
        );
      }
    },
    /** Disposes the isolate kept ready for the next program. */
    async close(): Promise<void> {
      const ready = await spare;
      spare = undefined;
      if (ready) discard(ready);
    },
  };
}
