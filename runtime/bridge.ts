// The host side of the gg global in a prepared isolate: the dispatchers the shim calls, which check, run and record
// each call and always answer with a JSON string, and the console callback. They serve whichever run is in the
// isolate's slot, so an isolate can be prepared before its program arrives.
import ivm from "isolated-vm";
import { clampMessage, type ErrorCode, isGgError } from "../host/errors.ts";
import { type Approval, type CallOrigin, Undecided } from "../bindings/gate.ts";
import { argumentsObject, forPrograms, type GgEnv, type GgFunction, ggFunctions } from "./api.ts";
import { type CompiledProgram, mapStack } from "./compile.ts";
import { recordedApproval } from "./pending.ts";
import { type HeldName, readHeld } from "./realm.ts";
import { CALL_RECORDS, type CallRecord, type LogEntry, type RunObserver, type RunReport } from "./report.ts";
import { namespaceLayout } from "./external_api.ts";
import { REALM_SHIM, SHIM, UNSENT_CHARS } from "./shim.ts";

/** A call's arguments as its record keeps them: the first 300 characters of their JSON. */
const clipArgs = (json: string): string => (json.length > 300 ? `${json.slice(0, 300)}...` : json);

/** A replay's recorded approvals, by the function and arguments their calls were recorded with, each taken once, in order. */
export type Ledger = Map<string, Approval[]>;
const ledgerKey = (name: string, args: string): string => `${name}\n${args}`;

/** The ledger of `records` (as a transcript holds them, so each approval is checked field by field). */
export function recordedLedger(records: readonly CallRecord[]): Ledger {
  const ledger: Ledger = new Map();
  for (const record of records) {
    const approval = recordedApproval(record?.approval);
    if (!approval || typeof record.name !== "string" || typeof record.args !== "string") continue;
    const key = ledgerKey(record.name, record.args);
    ledger.set(key, [...(ledger.get(key) ?? []), approval]);
  }
  return ledger;
}

const LEVELS = ["log", "info", "warn", "error", "debug"] as const;
/** The answer to an inline call whose approval must be waited for: the shim makes it again as a promise. */
const DEFER = '{"defer":true}';
/** Characters of one call's arguments as JSON accepted from a program (a write of up to 64 MiB of text). */
const ARGS_CHARS = 64 * 1024 * 1024;

/** The refusal of a call whose arguments the guest could not turn into JSON, for the `reason` it gives. */
const unsendable = (name: string, reason: string): string =>
  `Cannot call gg.${name}: its arguments cannot be sent as JSON (${reason.slice(0, UNSENT_CHARS).replace(/\s+/g, " ")}); pass plain data: strings, numbers, booleans, arrays and objects, without BigInts, cycles, nesting thousands of levels deep, or getters and Proxies that throw`;

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
  /** A replay's recorded approvals, which the calls take instead of being decided. */
  recorded?: Ledger;
  /** Settles waiting call `id` with `reply` in the isolate, where the program goes on at once (sandbox.ts). */
  wake(id: number, reply: string): void;
}

/** A fresh isolate with the gg global installed, waiting for its one program. */
export interface Prepared {
  isolate: ivm.Isolate;
  context: ivm.Context;
  dispatchers: ivm.Reference[];
  memoryMb: number;
  resultChars: number;
  slot: { run?: RunState };
  /** The shim's settle(id, reply): called synchronously, it resumes the program waiting on call `id`. */
  settle: ivm.Reference;
  /** What the realm held when its last program ended (a session that keeps state). */
  held: HeldName[];
  /** Restores the builtins between a session's programs, so that the next one need not as it starts. */
  restoreIdle?: ivm.Reference;
}

/**
 * The host's answer to one call from the program, `inline` or waited on: checked, run and recorded; the reply is
 * always a JSON string, never a throw.
 */
function callDispatch(env: GgEnv, functions: readonly GgFunction[], slot: { run?: RunState }) {
  return (index: unknown, argsJson: unknown, unsent: unknown, inline: boolean): string | Promise<string> => {
    const run = slot.run;
    const started = performance.now();
    const seq = run ? run.nextSeq++ : 0;
    const fn = typeof index === "number" ? functions[index] : undefined;
    const name = fn ? `${fn.module}.${fn.name}` : "unknown";
    const text = typeof argsJson === "string" ? argsJson : "";
    const origin: CallOrigin = { from: "program", seq };
    const recorded = run?.recorded?.get(ledgerKey(name, clipArgs(text)))?.shift();
    if (recorded) origin.recorded = recorded;
    /** Whether the call changes the disk or starts a process, once its arguments are read. */
    let effects = false;
    const reply = (value: unknown, code?: ErrorCode): string => {
      if (run && !run.ending.signal.aborted) {
        if (code && typeof value === "string" && run.failures.size < CALL_RECORDS) run.failures.set(value, code);
        const full = run.report.calls.length >= CALL_RECORDS;
        // Past the listed calls, one that changes the disk or starts a process still reaches the observer, which
        // counts it as dropped: a crash report then says something happened that it does not list.
        if (full) run.report.callsDropped++;
        if (!full || effects) {
          const entry: CallRecord = { name, args: clipArgs(text), ok: !code, ...(code ? { code } : {}), ms: Math.round(performance.now() - started), ...(origin.approval ? { approval: origin.approval } : {}), ...(origin.sandbox ? { sandbox: origin.sandbox } : {}) };
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
      // A loop of calls keeps this thread too busy for the watchdog's timers: each call checks the budget.
      run.guard();
      // An inline function comes as a promise too when its approval had to wait (see DEFER).
      const known = fn !== undefined && (fn.sync || !inline);
      if (known && typeof unsent === "string") return reply(unsendable(name, unsent), "invalid-argument");
      if (!known || typeof argsJson !== "string") return reply("Cannot call an unknown gg function", "invalid-argument");
      if (text.length > ARGS_CHARS) return reply(`Cannot call gg.${name}: its arguments are ${text.length} characters as JSON, over the ${ARGS_CHARS} limit`, "invalid-argument");
      const given: unknown = JSON.parse(text);
      if (!Array.isArray(given)) return reply(`Cannot call gg.${name}: arguments did not arrive as a list`, "invalid-argument");
      const args = argumentsObject(fn, given.map((value) => (value === null ? undefined : value)), env.context.config);
      if (!args.ok) return reply(args.message, "invalid-argument");
      const unfinished = (): CallRecord => ({ name, args: clipArgs(text), ok: false, unfinished: true, ms: 0 });
      effects = typeof fn.effects === "function" ? fn.effects(args.args, env) : fn.effects === true;
      if (effects) run.observer.onEffect?.(unfinished(), seq, run.report.calls.length < CALL_RECORDS);
      if (inline) {
        try {
          return reply(fn.run(args.args, run.callEnv, origin, true));
        } catch (error) {
          if (!(error instanceof Undecided)) throw error;
          // Nothing ran: the call is made again, as a promise, under this number.
          run.nextSeq--;
          return DEFER;
        }
      }
      run.observer.flush?.();
      const pending = unfinished();
      run.inFlight.set(pending, started);
      const settle = (answer: string): string => {
        run.inFlight.delete(pending);
        return answer;
      };
      return Promise.resolve(fn.run(args.args, run.callEnv, origin, false)).then((value) => settle(reply(value)), (error: unknown) => settle(failure(error)));
    } catch (error) {
      return failure(error);
    }
  };
}

/** The console of the program: each entry's stack mapped to its own lines, kept up to the run's log limit. */
function log(slot: { run?: RunState }) {
  return (level: unknown, text: unknown) => {
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
  };
}

/**
 * Creates an isolate and installs the shim; its bridge serves whichever run is in `slot`. An isolate that `keeps`
 * state is a session's realm (REALM_SHIM); else it runs one program.
 */
export async function prepare(env: GgEnv, memoryMb: number, resultChars: number, keeps: boolean): Promise<Prepared> {
  const isolate = new ivm.Isolate({ memoryLimit: memoryMb });
  const functions = ggFunctions(env.context.config, env.external?.()?.catalog);
  const slot: { run?: RunState } = {};
  const dispatch = callDispatch(env, functions, slot);
  // A call that waits: started now, settled by its number when done (unless its run is over by then).
  const dispatcher = new ivm.Reference((id: unknown, index: unknown, argsJson: unknown, unsent: unknown): string => {
    const run = slot.run;
    const reply = dispatch(index, argsJson, unsent, false);
    if (typeof reply === "string") return reply;
    void reply.then((answer) => {
      if (run && slot.run === run && typeof id === "number") run.wake(id, answer);
    });
    return "";
  });
  const dispatcherSync = new ivm.Reference((index: unknown, argsJson: unknown, unsent: unknown) => dispatch(index, argsJson, unsent, true));
  const emit = new ivm.Callback(
    log(slot),
    // Synchronous, so a log written just before the program is stopped is already in the report.
    { sync: true },
  );
  const context = await isolate.createContext();
  const layout = JSON.stringify(functions.map((fn) => [fn.module, fn.name, fn.sync]));
  const prepared: Omit<Prepared, "settle"> & { settle?: ivm.Reference } = { isolate, context, dispatchers: [dispatcher, dispatcherSync], memoryMb, resultChars, slot, held: [] };
  const args = [dispatcher, dispatcherSync, emit, layout, resultChars];
  // The namespaces of the external tools, asked for by the version the guest holds: "" while it is the one in force.
  const namespaces = new ivm.Callback((known: unknown) => {
    const external = env.external?.();
    return !external || external.catalog.version === known ? "" : JSON.stringify(namespaceLayout(external));
  }, { sync: true });
  const held = keeps
    ? new ivm.Callback((json: unknown) => {
        prepared.held = readHeld(json);
      }, { sync: true })
    : null;
  const made = (await context.evalClosure(keeps ? REALM_SHIM : SHIM, [...args, held, namespaces], { result: { reference: true } })) as ivm.Reference;
  const settle = made.getSync(0, { reference: true }) as ivm.Reference;
  if (keeps) prepared.restoreIdle = made.getSync(1, { reference: true }) as ivm.Reference;
  made.release();
  return Object.assign(prepared, { settle });
}

/** Retires a prepared isolate: its bridge serves no run, its dispatchers are released, and it is disposed. */
export function discard(prepared: Prepared): void {
  prepared.slot.run = undefined;
  for (const dispatcher of prepared.dispatchers) dispatcher.release();
  prepared.settle.release();
  prepared.restoreIdle?.release();
  if (!prepared.isolate.isDisposed) prepared.isolate.dispose();
}
