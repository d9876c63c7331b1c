// The runner process: hosts the isolates, so a program that brings V8 down (a hard out-of-memory aborts the
// process) takes this process with it and never the embedding one. It runs what createRuntime sends, one at a
// time, and streams each call and log entry back as it happens so they survive a crash. It holds the runtime's
// registry of external tools too: the MCP servers' connections, so that a program's call reaches its server with no
// other process in between (their process groups are reported like commands', so they end with this process
// whatever ends it); the application's functions stay in the embedding process, which runs their calls.
import { ftruncateSync, openSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { stopCommandsOnSignals, watchCommandGroups } from "../host/shell.ts";
import { compileProgram } from "./compile.ts";
import { createEngine, type EngineOptions } from "./engine.ts";
import type { RunOptions } from "./limits.ts";
import type { ApprovalAnswer, ApprovalRequest } from "../bindings/gate.ts";
import { type CallTool, createExternals, type ExternalCatalog, type ExternalOutput, type Externals, type ExternalTool } from "../bindings/external.ts";
import { configurationOf } from "../bindings/index.ts";
import { type CallError, GgError } from "../host/errors.ts";
import type { CallRecord, RunReport } from "./report.ts";
import type { OpenedView } from "./views.ts";
import type { ViewContent } from "./window.ts";

/** Milliseconds between two messages of a run's calls and logs, at least. */
const PROGRESS_MS = 20;

/** Messages from the embedding process. */
export type ToRunner = { type: "init"; options: EngineOptions; journal: string; firstViewId: number; asks: boolean; app?: readonly ExternalTool[] } | { type: "run"; id: number; source: string; run: RunOptions } | { type: "views" | "opening" | "text-only" | "reset" | "catalog"; id: number; waitMs?: number }
  | { type: "cancel"; id: number }
  | { type: "approval"; id: number; answer: ApprovalAnswer }
  | { type: "external-answer"; id: number; outcome: ExternalOutcome };
/** What a call of an application function came to, in the embedding process. */
export type ExternalOutcome = { ok: true; output: ExternalOutput } | { ok: false; error: CallError };
/** Messages to the embedding process. */
export type FromRunner =
  | { type: "ready" }
  | { type: "progress"; id: number; calls: { seq: number; record: CallRecord }[]; dropped: number; logs: RunReport["logs"] }
  | { type: "report"; id: number; report: RunReport }
  | { type: "group"; pgid: number; live: boolean }
  | { type: "answer"; id: number; answer: ViewContent[] | OpenedView[] | ExternalCatalog | undefined }
  | { type: "approve"; id: number; request: ApprovalRequest }
  | { type: "pause"; id: number; on: boolean }
  | { type: "external"; id: number; name: string; args: Record<string, unknown> }
  | { type: "external-cancel"; id: number };

// Nothing is sent once the embedding process has let go (the servers' groups end after that, as the runner closes).
const send = (message: FromRunner): void => {
  if (process.connected) process.send?.(message);
};

// Commands die with this process; the embedding process learns of each group, to kill them should it be SIGKILLed.
stopCommandsOnSignals();
watchCommandGroups((pgid, live) => send({ type: "group", pgid, live }));

let engine: ReturnType<typeof createEngine> | undefined;
let queue = Promise.resolve();
/** The runs under way or queued, by id, and those cancelled before they started. */
const cancels = new Map<number, AbortController>();
const cancelledEarly = new Set<number>();
/** The journal file's descriptor, when it could be opened, and its path. */
let journal: number | undefined;
let journalPath = "";
/** Asks put to the embedding process's `approve` and not yet answered, by id. */
const asks = new Map<number, (answer: ApprovalAnswer) => void>();
let nextAsk = 1;
/** Puts an ask to the embedding process, which holds the `approve` function. */
const askEmbedder = (request: ApprovalRequest): Promise<ApprovalAnswer> =>
  new Promise((resolve) => {
    const id = nextAsk++;
    asks.set(id, resolve);
    send({ type: "approve", id, request });
  });

/** Calls of application functions put to the embedding process and not yet answered, by id. */
const externalCalls = new Map<number, (outcome: ExternalOutcome) => void>();
let nextExternal = 1;
/** Runs an application function in the embedding process, which holds the functions. */
const callEmbedder: CallTool = (name, args, signal) =>
  new Promise((resolve, reject) => {
    const id = nextExternal++;
    const cancel = (): void => send({ type: "external-cancel", id });
    signal?.addEventListener("abort", cancel, { once: true });
    externalCalls.set(id, (outcome) => {
      signal?.removeEventListener("abort", cancel);
      if (outcome.ok) resolve(outcome.output);
      else reject(new GgError(outcome.error.code, outcome.error.message));
    });
    send({ type: "external", id, name, args });
  });

/** Appends `line` to the journal; a journal that cannot be written leaves the records to the channel alone. */
function journalWrite(line: string): void {
  if (journal === undefined) return;
  try {
    writeSync(journal, line);
  } catch {
    journal = undefined;
  }
}

/** The external tools: the configured MCP servers, and the application's functions by their tools. */
let externals: Externals | undefined;
/** The catalog the engine was given: a newer one (a server's tools changed) is given before the next program. */
let catalogInForce: ExternalCatalog | undefined;

/**
 * Starts the engine of `init`, its servers started beside it: each program waits for those it could name (their tools
 * type it), so a server slow to start delays only the programs that use it.
 */
async function start(init: Extract<ToRunner, { type: "init" }>): Promise<void> {
  journalPath = init.journal;
  try {
    journal = openSync(init.journal, "a");
  } catch {
    journal = undefined;
  }
  const { options } = init;
  externals = createExternals(configurationOf(options), init.app ? { tools: init.app, run: callEmbedder } : [], options.cwd ?? options.workspace);
  // Start esbuild's service (TypeScript's compiler) now, beside the servers' start, rather than in the first program's time.
  void compileProgram("0", "ts");
  catalogInForce = await externals?.catalog("");
  engine = createEngine(options, init.firstViewId, init.asks ? askEmbedder : undefined, catalogInForce && externals && { catalog: catalogInForce, callTool: externals.run, settle: externals.settle });
  send({ type: "ready" });
}

/**
 * The progress messages of run `id`. Calls and logs travel in batches, one every PROGRESS_MS at most, so a program's
 * quick calls (another MCP server's, say) cost no message each: a batch goes out that long after its first entry, or
 * before the program waits on the host (a command may be what brings this process down) once that long has passed
 * since the last.
 */
function progressOf(id: number) {
  let progress: Extract<FromRunner, { type: "progress" }> | undefined;
  let due: NodeJS.Timeout | undefined;
  let sentAt = Number.NEGATIVE_INFINITY;
  const flush = (): void => {
    clearTimeout(due);
    if (progress) {
      send(progress);
      sentAt = performance.now();
    }
    progress = undefined;
  };
  return {
    /** The batch under way, begun (and its sending set) if there is none. */
    batch(): Extract<FromRunner, { type: "progress" }> {
      if (!progress) {
        progress = { type: "progress", id, calls: [], dropped: 0, logs: [] };
        due = setTimeout(flush, PROGRESS_MS);
      }
      return progress;
    },
    /** Sends the batch under way, before the program waits on the host, unless the last went out within PROGRESS_MS. */
    flush: (): void => {
      if (performance.now() - sentAt >= PROGRESS_MS) flush();
    },
    /** Drops the batch under way: the run's report follows. */
    drop: (): void => {
      clearTimeout(due);
      progress = undefined;
    },
  };
}

/**
 * The journal of run `id`, emptied. A call that changes the disk or starts a process is written to it as it starts and
 * as it ends, with a blocking write: the record is on disk before the program can do anything else, even bring this
 * process down (a message could still sit in this process's queue for the channel).
 */
function journalOf(id: number) {
  if (journal !== undefined) {
    try {
      ftruncateSync(journal, 0);
    } catch {
      journal = undefined;
    }
  }
  const effects = new Set<number>();
  // A call past the listed ones is journaled by its seq alone, so it is counted and the journal stays small.
  const write = (seq: number, record: CallRecord | undefined): void => journalWrite(`${JSON.stringify({ id, seq, ...(record ? { record } : {}) })}\n`);
  return {
    /** Call `seq`, one with effects, starts (`listed`: within the calls a report lists). */
    started(record: CallRecord, seq: number, listed: boolean): void {
      if (listed) effects.add(seq);
      write(seq, listed ? record : undefined);
    },
    /** Call `seq` ended: written again if it was journaled as it started. */
    ended(record: CallRecord, seq: number): void {
      if (effects.delete(seq)) write(seq, record);
    },
  };
}

process.on("message", (message: ToRunner) => {
  if (message.type === "init") {
    void start(message);
    return;
  }
  if (message.type === "catalog") {
    // At once, not after the queue: a runtime's catalog is asked for while programs run.
    const { id, waitMs } = message;
    void Promise.resolve(waitMs === undefined ? externals?.catalog() : externals?.within(waitMs)).then((answer) => send({ type: "answer", id, answer }));
    return;
  }
  if (message.type === "approval") {
    asks.get(message.id)?.(message.answer);
    asks.delete(message.id);
    return;
  }
  if (message.type === "external-answer") {
    externalCalls.get(message.id)?.(message.outcome);
    externalCalls.delete(message.id);
    return;
  }
  const active = engine;
  if (!active) return;
  if (message.type === "cancel") {
    // At once, not after the queue: the run it names may be the one under way.
    const run = cancels.get(message.id);
    if (run) run.abort();
    else cancelledEarly.add(message.id);
    return;
  }
  if (message.type !== "run") {
    const { id, type } = message;
    queue = queue.then(() => {
      if (type === "text-only") active.textOnly();
      if (type === "reset") active.reset();
      send({ type: "answer", id, answer: type === "views" ? active.views.shown() : type === "opening" ? active.openingTurn() : [] });
    });
    return;
  }
  queue = queue.then(async () => {
    const { id } = message;
    // A server's tools changed since the last program, or one it could name was still starting: it sees them as they are now.
    const catalog = await externals?.catalog(message.source);
    if (catalog && catalog !== catalogInForce) {
      catalogInForce = catalog;
      active.setCatalog(catalog);
    }
    const progress = progressOf(id);
    const journaled = journalOf(id);
    let lost = false;
    const cancel = new AbortController();
    cancels.set(id, cancel);
    if (cancelledEarly.delete(id)) cancel.abort();
    const report = await active.run(message.source, message.run, {
      onEffect: (record, seq, listed) => {
        journaled.started(record, seq, listed);
        progress.batch().calls.push({ seq, record });
      },
      onCall: (record, seq) => {
        journaled.ended(record, seq);
        progress.batch().calls.push({ seq, record });
      },
      onDropped: () => {
        progress.batch().dropped++;
      },
      onLog: (entry) => progress.batch().logs.push(entry),
      flush: progress.flush,
      abandoned: () => {
        lost = true;
      },
      paused: (on) => send({ type: "pause", id, on }),
    }, cancel.signal);
    cancels.delete(id);
    progress.drop();
    const answer: FromRunner = { type: "report", id, report };
    // A thread still running a stopped program ends only with this process: leave once the report is out.
    if (lost) process.send?.(answer, () => process.exit(0));
    else send(answer);
  });
});
// The runtime closed, or the embedding process died (killed, it could not remove the journal's folder): the servers
// are shut down as the spec says (stdin closed, then their groups signalled), the journal, which no one will read now,
// is removed, and this process exits. A runner busy in a program cannot see this; the embedding process kills it.
process.on("disconnect", () => {
  // A runtime that closes removes it too, at once: only a process that died cannot.
  if (journalPath !== "") rmSync(dirname(journalPath), { recursive: true, force: true });
  void Promise.resolve(externals?.close()).finally(() => process.exit(0));
});
