// createRuntime: runs programs in a runner process it starts and restarts, so nothing a program does (a hard
// out-of-memory in V8 included) can take the embedding process down. Runs are queued, one at a time; the runner is
// supervised apart from the queue (superviseRunner), and a run it owes is tracked in pending.ts.
import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { newRunId } from "../bindings/approval_match.ts";
import type { ApprovalAnswer, ApprovalRequest } from "../bindings/gate.ts";
import { endSupervised, killGroups } from "../host/shell.ts";
import type { EngineOptions } from "./engine.ts";
import type { ExternalOutcome, FromRunner, ToRunner } from "./runner.ts";
import { appPart, type ExternalCatalog, heldCatalog } from "../bindings/external.ts";
import { appFunctionsOf, type Functions } from "../bindings/toolset.ts";
import { configurationOf } from "../bindings/index.ts";
import { isGgError } from "../host/errors.ts";
import { refusedRun, type RunOptions, runLimits } from "./limits.ts";
import { awaitRun, mergeJournal, type Pending, place, RUNNER_GRACE_SECS } from "./pending.ts";
import { blankReport, type RunError, type RunReport, stateLostNote } from "./report.ts";
import type { OpenedView } from "./views.ts";
import type { ViewContent } from "./window.ts";

export { RUNNER_GRACE_SECS } from "./pending.ts";

// Beside this file: in the sources, in dist/runtime, and in dist/ for the CLI's bundle and its chunks (the build keeps
// them in one folder for this).
const runnerPath = fileURLToPath(new URL(`./runner${extname(fileURLToPath(import.meta.url))}`, import.meta.url));

/** A runner's journal: where it writes the calls that change the disk or start a process, before and after each. */
interface Journal {
  /** The file; "" without one (no usable temp folder), when the channel alone carries the calls. */
  path: string;
  remove(): void;
}

/**
 * A private journal for a runner, read when it dies, since the channel may not have carried its last calls out.
 * Removed with the runner, and when this process exits (a CLI stopped by Ctrl-C never calls close).
 */
function openJournal(): Journal {
  try {
    const dir = mkdtempSync(join(tmpdir(), "gg-runner-"));
    const remove = (): void => rmSync(dir, { recursive: true, force: true });
    process.on("exit", remove);
    return {
      path: join(dir, "calls.jsonl"),
      remove: () => {
        process.off("exit", remove);
        remove();
      },
    };
  } catch {
    return { path: "", remove: () => {} };
  }
}

/** What a runner says about runs and questions: everything but its own bookkeeping. */
type RunnerMessage = Exclude<FromRunner, { type: "ready" | "group" }>;

/** A module that turns on V8's compile cache (in the system's temp folder; where it cannot, nothing happens). */
const COMPILE_CACHE = `data:text/javascript,${encodeURIComponent('import module from "node:module"; module.enableCompileCache?.();')}`;

/**
 * Starts a runner process with `init`; `ready` resolves when it can take runs. The command groups it has running
 * are killed if it dies before stopping them, and it is killed when this process exits, busy or not.
 */
function spawnRunner(init: Extract<ToRunner, { type: "init" }>, onMessage: (message: RunnerMessage) => void, onExit: (code: number | null, signal: NodeJS.Signals | null) => void): { child: ChildProcess; ready: Promise<void> } {
  // The runner gets none of this process's Node flags (an --input-type or a test runner's loader would break it), only
  // V8's compile cache, turned on before its modules load: a fifth of its start; and a young generation of 16 MiB
  // rather than the 64 V8 gives a machine of this size, which a search's walk fills with garbage and keeps resident
  // (a runner that searched ten copies of the bench corpus held 150 MiB less, searching as fast). Its stdout is this
  // process's stderr: stdout may be a protocol channel (gg mcp) that nothing else may write to.
  const child = fork(runnerPath, [], { stdio: ["ignore", 2, "inherit", "ipc"], serialization: "advanced", execArgv: ["--import", COMPILE_CACHE, "--max-semi-space-size=8"] });
  const groups = new Set<number>();
  const ready = new Promise<void>((resolve) => {
    child.on("message", (message: FromRunner) => {
      if (message.type === "ready") return resolve();
      if (message.type === "group") {
        if (message.live) groups.add(message.pgid);
        else groups.delete(message.pgid);
        return;
      }
      onMessage(message);
    });
  });
  // This process exiting (gg stopped by a signal, or done) ends the runner and its commands here and now: no exit event
  // of the runner's is seen after this one.
  const killOnExit = (): void => {
    if (child.pid !== undefined) endSupervised(child.pid, groups);
  };
  process.on("exit", killOnExit);
  child.on("exit", (code, signal) => {
    process.off("exit", killOnExit);
    killGroups(groups);
    onExit(code, signal);
  });
  child.send(init);
  return { child, ready };
}

/**
 * The runner process of a runtime: started when first needed and after it dies, serving one run or question at a
 * time (its caller queues them), and closed for good by `close`.
 */
function superviseRunner(given: RuntimeOptions) {
  // `approve` stays here (a function cannot cross to the runner): the runner puts its asks to this process. So do the
  // application's functions: they run here, and the runner, which holds the registry and the MCP servers, relays their
  // calls.
  const { approve, functions, external: _surface, ...rest } = given;
  const config = configurationOf(given);
  const app = appPart(appFunctionsOf(functions) ?? []);
  /** Whether the runner holds MCP servers, which end with it; and whether there are external tools at all. */
  const servers = Object.values(config.mcpServers ?? {}).some((entry) => entry.enabled !== false);
  const external = servers || app.tools.length > 0;
  /** Application functions' calls under way for each runner: aborted when it cancels them or dies. */
  const externalCalls = new Map<ChildProcess, Map<number, AbortController>>();
  const options: EngineOptions = { ...rest, runId: given.runId ?? newRunId() };
  let runner: ChildProcess | undefined;
  /** The current runner's journal. */
  let journal: Journal = { path: "", remove: () => {} };
  let ready: Promise<void> | undefined;
  let pending: Pending | undefined;
  let nextId = 1;
  /** Runners started so far. */
  let generation = 0;
  /** Set by close: nothing starts again. */
  let closed = false;
  /** Set by describePictures: every runner from then on describes pictures. */
  let textOnly = false;
  /** Programs run in the current runner: its realm holds their state, when programs keep it. */
  let programs = 0;
  /** Why the realm was lost with a runner: said in the next program's report. */
  let lost: string | undefined;
  /** Answers awaited from the runner for `ask`, by request id. */
  const requests = new Map<number, (answer: unknown) => void>();

  const start = (): Promise<void> => {
    journal.remove();
    const own = openJournal();
    journal = own;
    // View ids go on from where the last runner's stopped (by a million a runner), so they name one view each for
    // the runtime's life.
    const init = { type: "init" as const, options: textOnly ? { ...options, textOnly } : options, journal: own.path, firstViewId: generation++ * 1_000_000 + 1, asks: approve !== undefined, ...(app.tools.length > 0 ? { app: app.tools } : {}) };
    const spawned = spawnRunner(init, onMessage, (code, signal) => onExit(spawned.child, own, code, signal));
    runner = spawned.child;
    ready = spawned.ready;
    return ready;
  };

  /** Waits for the runner, started if there is none (it lists the external tools before it is ready). */
  const connected = (): Promise<void> => (runner ? (ready as Promise<void>) : start());

  /** Runs an application function the runner asked for, and sends back what it came to; a failure is data, never a throw. */
  const runExternal = (id: number, name: string, args: Record<string, unknown>): void => {
    const child = runner;
    if (!child) return;
    const control = new AbortController();
    const calls = externalCalls.get(child) ?? new Map<number, AbortController>();
    externalCalls.set(child, calls.set(id, control));
    void app.run(name, args, control.signal)
      .then(
        (output): ExternalOutcome => ({ ok: true, output }),
        (error: unknown): ExternalOutcome => ({ ok: false, error: isGgError(error) ? { code: error.code, message: error.message } : { code: "tool-error", message: error instanceof Error ? error.message : String(error) } }),
      )
      .then((outcome) => {
        calls.delete(id);
        const message: ToRunner = { type: "external-answer", id, outcome };
        if (child.connected) child.send(message);
      });
  };

  const onMessage = (message: RunnerMessage): void => {
    if (message.type === "answer") {
      requests.get(message.id)?.(message.answer);
      requests.delete(message.id);
      return;
    }
    if (message.type === "approve") return relayAsk(message.id, message.request);
    if (message.type === "external") return runExternal(message.id, message.name, message.args);
    if (message.type === "external-cancel") return runner && externalCalls.get(runner)?.get(message.id)?.abort();
    if (!pending || message.id !== pending.id) return;
    if (message.type === "pause") return pending.pause(message.on);
    if (message.type === "progress") {
      for (const { seq, record } of message.calls) place(pending, seq, record);
      pending.report.callsDropped += message.dropped;
      pending.report.logs.push(...message.logs);
      watching?.(pending.report);
    } else settle(message.report);
  };

  /** Puts a runner's ask to `approve` and sends back its answer, as plain data; a failure to answer is a deny. */
  const relayAsk = (id: number, request: ApprovalRequest): void => {
    const child = runner;
    void (async (): Promise<ApprovalAnswer> => {
      if (!approve) return { verdict: "deny", reason: "no one could be asked in this run" };
      const answer = await approve(request);
      const verdict = answer?.verdict === "allow" || answer?.verdict === "ask" ? answer.verdict : "deny";
      return { verdict, ...(typeof answer?.reason === "string" ? { reason: answer.reason } : {}), ...(answer?.by === "client" || answer?.by === "standing" ? { by: answer.by } : {}) };
    })()
      .catch((error: unknown): ApprovalAnswer => ({ verdict: "deny", reason: `asking failed: ${error instanceof Error ? error.message : String(error)}` }))
      .then((answer) => {
        const message: ToRunner = { type: "approval", id, answer };
        if (child?.connected) child.send(message);
      });
  };

  /** Runner `child` ended: the run under way is reported with what it did, and the next run starts a fresh runner. */
  const onExit = (child: ChildProcess, own: Journal, code: number | null, signal: NodeJS.Signals | null): void => {
    if (runner === child) runner = undefined;
    // What the runner asked of the servers is of no use to anyone now.
    for (const control of externalCalls.get(child)?.values() ?? []) control.abort();
    externalCalls.delete(child);
    if (options.keepState && programs > 0 && !closed) lost = `gg's runner process ended (${signal ?? `exit code ${code}`}) and was restarted, and the realm ended with it${servers ? " (the MCP servers were started again, without what they held in memory)" : ""}`;
    programs = 0;
    // The views died with the runner: a question about them gets the answer of a runtime that has none.
    for (const answer of requests.values()) answer(undefined);
    requests.clear();
    if (pending && own.path) mergeJournal(pending, own.path);
    if (runner === undefined) journal.remove();
    if (pending) pending.report.usage.wallMs = Math.round(performance.now() - pending.started);
    const report = pending?.report ?? blankReport();
    settle({
      ...report,
      ok: false,
      error: report.error ?? (closed ? { code: "cancelled", message: "The runtime was closed while the program ran, and the program was stopped with it" } : runnerDeath(code, signal, servers)),
    });
  };

  const settle = (report: RunReport): void => {
    const current = pending;
    if (!current) return;
    pending = undefined;
    watching = undefined;
    clearTimeout(current.timer);
    current.done(report);
  };

  /** Sees the report of the run under way each time the runner's calls and logs arrive. */
  let watching: ((report: RunReport) => void) | undefined;

  /** Runs a program whose options were checked; aborting `signal` cancels it, and `watch` sees its report as it grows. */
  const execute = async (source: string, run: RunOptions, signal: AbortSignal | undefined, watch?: (report: RunReport) => void): Promise<RunReport> => {
    const closedFirst: RunReport = { ...blankReport(), error: { code: "cancelled", message: "The runtime was closed before the program started; nothing ran" } };
    if (closed) return closedFirst;
    await connected();
    // Closed while its servers started.
    if (closed || !runner) return closedFirst;
    const id = nextId++;
    /** Stops a runner that does not answer in time, and says why in the report. */
    const giveUp = (error: RunError): void => {
      const current = pending;
      if (current?.id !== id) return;
      runner?.kill("SIGKILL");
      current.report.error = error;
    };
    const cancel = (): void => {
      const message: ToRunner = { type: "cancel", id };
      runner?.send(message);
    };
    watching = watch;
    const said = lost;
    lost = undefined;
    programs++;
    const report = await new Promise<RunReport>((resolve) => {
      pending = awaitRun(id, runLimits(run).budgetSecs, signal, { cancel, giveUp, done: resolve });
      const message: ToRunner = { type: "run", id, source, run };
      runner?.send(message);
    });
    return said && !report.stateLost ? { ...report, stateLost: stateLostNote(said) } : report;
  };

  /**
   * Asks the runner about its views or its catalog; `startRunner` starts a runner there is none of. `none` is the answer
   * of a runtime without one (closed, not started, or ended before it answered).
   */
  const ask = async <T>(question: "views" | "opening" | "text-only" | "reset" | "catalog", startRunner: boolean, none: T, waitMs?: number): Promise<T> => {
    if (closed || (!runner && !startRunner)) return none;
    await connected();
    if (closed || !runner) return none;
    const child = runner;
    const id = nextId++;
    const answer = await new Promise<T | undefined>((resolve) => {
      requests.set(id, resolve as (value: unknown) => void);
      const message: ToRunner = { type: question, id, ...(waitMs === undefined ? {} : { waitMs }) };
      child?.send(message);
    });
    return answer ?? none;
  };

  return {
    execute,
    ask,
    /** The external tools' catalog, their servers started if they were not (undefined when the runtime has none). */
    catalog: async (options: CatalogOptions = {}): Promise<ExternalCatalog | undefined> => {
      const waitMs = options.waitSecs === undefined ? undefined : options.waitSecs * 1000;
      const catalog = external ? await ask<ExternalCatalog | undefined>("catalog", true, undefined, waitMs) : undefined;
      return catalog && heldCatalog(catalog, config);
    },
    /** From now on runners describe pictures. */
    describePictures(): void {
      textOnly = true;
    },
    /** Stops the runner process (a busy one after the grace); nothing starts again. */
    close(): Promise<void> {
      closed = true;
      for (const calls of externalCalls.values()) for (const control of calls.values()) control.abort();
      const child = runner;
      // Seen after spawnRunner's own exit listener has killed the command groups the runner left.
      const exited = child && child.exitCode === null && child.signalCode === null ? new Promise<void>((done) => child.once("exit", () => done())) : undefined;
      child?.disconnect();
      // The runner shuts its MCP servers down and exits. One busy in a program cannot see the disconnect: it is stopped
      // after the grace, with its commands and servers.
      if (child) setTimeout(() => child.kill("SIGKILL"), RUNNER_GRACE_SECS * 1000).unref();
      runner = undefined;
      // Now, not when the runner's exit is seen: the embedding process may be gone by then.
      journal.remove();
      return Promise.resolve(exited);
    },
  };
}

/** The Node major isolated-vm 7 has native builds for, and the package's engines name. */
const NODE_MAJOR = 24;

/** How long a runtime's catalog waits for its servers: each until it is listed, or `waitSecs` at most. */
export interface CatalogOptions {
  waitSecs?: number;
}

/**
 * Options of a runtime: its engine's, and the application's own functions (AppFunctions, or an AI SDK ToolSet's tools),
 * offered to programs as gg.app.<name>.
 */
export interface RuntimeOptions extends EngineOptions {
  functions?: Functions;
}

/** A runtime for one agent: its workspace, configuration and views persist across the programs it runs. */
export function createRuntime(options: RuntimeOptions) {
  // Else the runner dies at start with isolated-vm's "No native build was found for ... node=20".
  if (Number(process.versions.node.split(".")[0]) < NODE_MAJOR) {
    throw new Error(`Cannot run programs on Node ${process.versions.node}: gg needs Node ${NODE_MAJOR} or later (its sandbox, isolated-vm, is built for it); install Node ${NODE_MAJOR} (nvm install ${NODE_MAJOR}, or https://nodejs.org), or run your script with npx -p node@${NODE_MAJOR} node`);
  }
  const supervisor = superviseRunner(options);
  let queue: Promise<unknown> = Promise.resolve();
  /** Runs `work` after everything asked for so far: runs and questions about the views, one at a time. */
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work);
    queue = result.catch(() => {});
    return result;
  };

  return {
    /**
     * Runs one program; never throws: every outcome is in the report. Aborting `signal` cancels it (cancelled);
     * `onProgress` sees the report as it grows (its calls and logs so far), whenever the runner sends them.
     */
    run: (source: string, run: RunOptions = {}, control: { signal?: AbortSignal; onProgress?: (report: RunReport) => void } = {}): Promise<RunReport> =>
      serially(async () => {
        const refused = refusedRun(run);
        if (refused) return refused;
        if (control.signal?.aborted) return { ...blankReport(), error: { code: "cancelled", message: "The program was cancelled by its caller before it started; nothing ran" } };
        return supervisor.execute(source, run, control.signal, control.onProgress);
      }),
    /**
     * What the open views put in front of the model (each view's text, and its picture while it is current), after
     * every run asked for so far: what an agent loop sends with its next request.
     */
    views: (): Promise<ViewContent[]> => serially(() => supervisor.ask<ViewContent[]>("views", false, [])),
    /**
     * Opens the window a code agent meets before its first turn, as the configuration's openingTurn sets it: a view
     * of the workspace's tree and one of each held module's docs. Returns the views opened, with their costs: what an
     * embedder sends as its first messages.
     */
    openingTurn: (): Promise<OpenedView[]> => serially(() => supervisor.ask<OpenedView[]>("opening", true, [])),
    /**
     * For a model found unable to see pictures: from now on reads describe them, and the open views give theirs up,
     * each leaving a note where it was. A runner started later keeps to it.
     */
    textOnly: async (): Promise<void> => {
      supervisor.describePictures();
      await serially(() => supervisor.ask<void>("text-only", false, undefined));
    },
    /**
     * The other MCP servers' tools and the application's functions that programs can call (gg.mcp, gg.app), as one
     * catalog; their servers start now if they have not, each waited for (or for `waitSecs` at most: one not listed by
     * then is still starting, and a program that names it waits for it). Undefined when the runtime has none.
     */
    catalog: (options?: CatalogOptions): Promise<ExternalCatalog | undefined> => supervisor.catalog(options),
    /** Ends the realm of a runtime whose programs keep state (keepState): the next program starts empty. */
    reset: async (): Promise<void> => {
      await serially(() => supervisor.ask<void>("reset", false, undefined));
    },
    /**
     * Stops the runner process (a busy one after the grace) and the MCP servers it started, and refuses further runs;
     * resolves once they have exited, the runner's commands with it.
     */
    close: (): Promise<void> => supervisor.close(),
  };
}

export type Runtime = ReturnType<typeof createRuntime>;
export type { RunOptions } from "./limits.ts";
export type { CallRecord, LogEntry, RunError, RunReport } from "./report.ts";
export type { OpenedView, ViewSummary } from "./views.ts";
export type { ViewContent } from "./window.ts";
export type { Baseline } from "./context.ts";
export { DEFAULT_LIMITS, type Limits } from "./limits.ts";

/**
 * Why a runner ended under a program: V8 aborts it (SIGABRT or SIGTRAP) when a heap outgrows what it can hold. The
 * runner turns SIGINT, SIGTERM and SIGHUP into exit code 128 + the signal's number, after stopping its commands.
 */
function runnerDeath(code: number | null, signal: NodeJS.Signals | null, servers: boolean): RunError {
  const held = servers ? "; the MCP servers it held were stopped with it, and the next program starts them again, without what they held in memory" : "";
  const lost = `the calls listed ran before that, except any marked unfinished, which were under way (a write or edit among them may or may not have reached the disk), and the views of earlier programs were lost with the runner${held}`;
  const relayed = code !== null && code > 128 ? Object.entries(constants.signals).find(([, number]) => number === code - 128)?.[0] : undefined;
  const ended = signal ?? relayed;
  if (code === 0 && !signal) return { code: "program-error", message: `The runtime was closed while the program ran; ${lost}` };
  if (ended === undefined || ended === "SIGABRT" || ended === "SIGTRAP") {
    return { code: "memory-limit", message: `The program brought its runner process down (${ended ?? `exit code ${code}`}), most likely by using memory far past its limit; ${lost}` };
  }
  return { code: "program-error", message: `The runner process was ended by ${ended}, from outside gg or by a command the program ran; ${lost}` };
}
