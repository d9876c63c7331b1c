// Running a command: `sh -c` in its own process group with stdin closed, so a kill reaches every descendant, also
// ones that trap SIGTERM or daemonize inside the group. When sh exits, whatever it left running in its group is
// stopped too: a call never leaves processes behind, and never waits on a pipe a background job holds open.
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { existsSync, openSync, readdirSync, readFileSync } from "node:fs";
import { constants } from "node:os";
import type { Readable, Writable } from "node:stream";
import { GgError } from "./errors.ts";
import type { OutputSink } from "./output.ts";
import { bwrapArgs, EMPTY_FD, readsEmptyFd, type SandboxPolicy } from "./sandbox.ts";

/** Milliseconds between SIGTERM and SIGKILL when a process group is stopped. */
export const KILL_GRACE_MS = 1000;
/** Milliseconds to wait for the pipes to drain once the group is gone. */
const DRAIN_MS = 200;

/** How a command ended. */
export interface CommandOutcome {
  /** The exit status; 128 + the signal number when a signal ended it, as a shell reports it. */
  exitCode: number;
  /** The signal that ended sh, if one did. */
  signal?: string;
  /** True when the timeout stopped it. */
  timedOut: boolean;
  /** Wall time in milliseconds. */
  durationMs: number;
}

/** What to run. */
export interface CommandSpec {
  command: string;
  cwd: string;
  /** Milliseconds before the process group is stopped. */
  timeoutMs: number;
  sink: OutputSink;
  /** Stops the process group when aborted. */
  signal?: AbortSignal;
  /** Written to the command's stdin, which is then closed (an approval hook's request); absent, stdin is closed. */
  input?: string;
  /** Runs sh inside this sandbox, started by the bwrap named (host/sandbox_start.ts found it); absent, unconfined. */
  sandbox?: { bwrap: string; policy: SandboxPolicy };
}

const signalled = (pgid: number, signal: NodeJS.Signals | 0): boolean => {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
};

/** The fields of /proc/<pid>/stat past the command name (state, ppid, pgrp, ...); undefined when it cannot be read. */
function procStat(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/**
 * The process groups that hold a live (non-zombie) process, among `wanted`. kill(2) also finds zombies nobody has
 * reaped yet (a container's init may never reap them); /proc tells them apart where it exists.
 */
function liveAmong(wanted: ReadonlySet<number>): Set<number> {
  const live = new Set<number>();
  for (const pgid of wanted) if (signalled(pgid, 0)) live.add(pgid);
  if (live.size === 0) return live;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return live;
  }
  const seen = new Set<number>();
  for (const entry of entries) {
    if (entry.charCodeAt(0) > 57) continue;
    // Unreadable: the process ended while we looked.
    const fields = procStat(entry);
    if (fields && live.has(Number(fields[2])) && fields[0] !== "Z") seen.add(Number(fields[2]));
  }
  return seen;
}

/** Process groups of commands that have not been stopped yet. */
const liveGroups = new Set<number>();
let groupWatcher: ((pgid: number, live: boolean) => void) | undefined;

/**
 * Tells `watcher` of each command group as it starts and as it is gone, so a supervising process can kill what is
 * left if this one dies without its exit handlers (SIGKILL).
 */
export function watchCommandGroups(watcher: (pgid: number, live: boolean) => void): void {
  groupWatcher = watcher;
}

/** SIGKILLs every command group still running: for a process that is about to exit. */
export function killAllCommands(): void {
  killGroups(liveGroups);
  liveGroups.clear();
}

/** SIGKILLs every process group of `groups`; one already gone is skipped. */
export function killGroups(groups: Iterable<number>): void {
  for (const pgid of groups) signalled(pgid, "SIGKILL");
}

let exitHooked = false;

/**
 * Counts process group `pgid` among this process's commands until {@link releaseGroup}: a signal or this process's
 * exit kills it, and a supervising process is told of it (an MCP server gg started is one too).
 */
export function superviseGroup(pgid: number): void {
  liveGroups.add(pgid);
  groupWatcher?.(pgid, true);
  if (!exitHooked) {
    // Whatever ends this process, its commands end with it.
    exitHooked = true;
    process.on("exit", killAllCommands);
  }
}

/** Process group `pgid` is gone (or stopped): no longer killed at exit. */
export function releaseGroup(pgid: number): void {
  liveGroups.delete(pgid);
  groupWatcher?.(pgid, false);
}
/** How long a signalled process may take to say and tidy what it did before it exits. */
const LAST_WORDS_MS = 20_000;
/**
 * Makes SIGINT, SIGTERM and SIGHUP, which would end this process without its exit event (where live command groups
 * are killed), kill them too. For entry points only: a library must not take over its embedder's signals. `last`
 * runs once the commands are stopped, before the exit (what the run did so far, said); the exit waits for the promise
 * it returns, if any (a study's worktrees removed), for at most LAST_WORDS_MS. A second signal ends the process at once.
 */
export function stopCommandsOnSignals(last?: (signal: NodeJS.Signals) => void | Promise<void>): void {
  let exiting = false;
  for (const name of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    // Kept after the first: a second signal must end gg through here (its commands killed), not by default.
    process.on(name, () => {
      killAllCommands();
      const exit = (): never => process.exit(128 + (constants.signals[name] ?? 0));
      if (exiting) exit();
      exiting = true;
      // What `last` waits for (git, a file system) may hang: the exit comes within LAST_WORDS_MS all the same.
      setTimeout(exit, LAST_WORDS_MS);
      void Promise.resolve()
        .then(() => last?.(name))
        .then(exit, exit);
    });
  }
}

/** True while process `pid` runs: a zombie nobody has reaped yet has ended (where /proc tells them apart). */
function running(pid: number): boolean {
  const fields = procStat(pid);
  if (fields) return fields[0] !== "Z";
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Ends process `pid`, a supervised one that runs commands, and the command groups it reported, from an exit handler
 * (where nothing asynchronous runs). `groups` are SIGKILLed; SIGTERM then lets the process stop the commands it started
 * that `groups` does not list yet and exit; one that has not ended within KILL_GRACE_MS (its thread held by a program)
 * is SIGKILLed. Blocks until then: only as long as the process takes to end.
 */
export function endSupervised(pid: number, groups: Iterable<number>): void {
  killGroups(groups);
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  const until = Date.now() + KILL_GRACE_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (running(pid) && Date.now() < until) Atomics.wait(pause, 0, 0, 5);
  if (running(pid)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // It ended meanwhile.
    }
  }
}

/** Milliseconds to wait, after SIGKILL, for the kernel to end the group (a process in uninterruptible I/O lingers). */
const KILLED_WAIT_MS = 5000;

/** Groups being stopped: when each must be gone by (epoch ms), whether it was SIGKILLed, and who waits for it. */
const stopping = new Map<number, { deadline: number; killed?: boolean; done: () => void }>();
let poller: NodeJS.Timeout | undefined;
let pollSoon: NodeJS.Immediate | undefined;

/**
 * One look at every group being stopped (a single /proc scan however many there are). A group is done once no live
 * process is left in it: SIGKILL returns before the kernel has ended its targets, so a killed group is waited for too.
 */
function pollStopping(): void {
  const live = liveAmong(new Set(stopping.keys()));
  const now = Date.now();
  for (const [pgid, stop] of stopping) {
    if (live.has(pgid) && now < stop.deadline) continue;
    if (live.has(pgid) && !stop.killed) {
      signalled(pgid, "SIGKILL");
      stop.killed = true;
      stop.deadline = now + KILLED_WAIT_MS;
      continue;
    }
    stopping.delete(pgid);
    stop.done();
  }
  if (stopping.size === 0) {
    clearInterval(poller);
    poller = undefined;
  }
}

/** SIGTERM to the whole group, a grace period, then SIGKILL to whatever is left. */
export function stopGroup(pgid: number): Promise<void> {
  if (!signalled(pgid, "SIGTERM")) return Promise.resolve();
  return new Promise((done) => {
    const earlier = stopping.get(pgid);
    stopping.set(pgid, {
      deadline: earlier?.deadline ?? Date.now() + KILL_GRACE_MS,
      ...(earlier?.killed ? { killed: true } : {}),
      done: () => {
        earlier?.done();
        done();
      },
    });
    poller ??= setInterval(pollStopping, 20);
    // One look soon, shared by every group stopped in this turn (a run's end stops all its commands at once).
    pollSoon ??= setImmediate(() => {
      pollSoon = undefined;
      pollStopping();
    });
  });
}

/** Why sh did not start, as a launch-failed error that says what to do. */
function launchFailure(error: NodeJS.ErrnoException, spec: CommandSpec): GgError {
  if (spec.sandbox && error.code === "ENOENT" && existsSync(spec.cwd)) return new GgError("launch-failed", `Cannot run the command: ${spec.sandbox.bwrap} is gone; reinstall bubblewrap; nothing was run`);
  const reason =
    error.code === "E2BIG"
      ? `the command is ${Buffer.byteLength(spec.command)} bytes, and with the environment that is more than the system takes to start a process (E2BIG); write it to a script file and run that file (sh FILE)`
      : error.code !== "ENOENT"
        ? `${error.message}; check that sh can be started`
        : existsSync(spec.cwd)
          ? "sh was not found on the PATH; install a POSIX shell or fix PATH"
          : `the working directory ${spec.cwd} does not exist; create it or run from another directory`;
  return new GgError("launch-failed", `Cannot run the command: ${reason}`);
}

/** A descriptor open on /dev/null for the life of the process: where bwrap reads a hidden file's empty content. */
let emptyFd: number | undefined;

/** The program, its arguments and the stdio of the process that runs `spec.command`: sh, or bwrap running sh. */
function launch(spec: CommandSpec): [string, string[], ("ignore" | "pipe" | number)[]] {
  const stdio: ("ignore" | "pipe" | number)[] = [spec.input === undefined ? "ignore" : "pipe", "pipe", "pipe"];
  if (!spec.sandbox) return ["sh", ["-c", spec.command], stdio];
  const args = bwrapArgs(spec.sandbox.policy, spec.command);
  if (readsEmptyFd(args)) {
    emptyFd ??= openSync("/dev/null", "r");
    while (stdio.length < EMPTY_FD) stdio.push("ignore");
    stdio[EMPTY_FD] = emptyFd;
  }
  return [spec.sandbox.bwrap, args, stdio];
}

/**
 * Runs `spec.command` to its end or its timeout, feeding both streams to the sink as they arrive. In a sandbox, bwrap
 * leads the process group: stopping the group stops bwrap, and the kernel then ends everything in the sandbox's own
 * PID namespace (bwrap's --die-with-parent and --unshare-pid), children that left the group included.
 */
export function runCommand(spec: CommandSpec): Promise<CommandOutcome> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let child: ChildProcessByStdio<Writable | null, Readable, Readable>;
    try {
      const [program, args, stdio] = launch(spec);
      child = spawn(program, args, { cwd: spec.cwd, stdio, detached: true }) as unknown as typeof child;
    } catch (error) {
      // Some failures (E2BIG) are thrown rather than emitted.
      reject(launchFailure(error as NodeJS.ErrnoException, spec));
      return;
    }
    if (child.stdin) {
      // A command that exits without reading its input is no failure of ours.
      child.stdin.on("error", () => {});
      child.stdin.end(spec.input);
    }
    if (child.pid !== undefined) superviseGroup(child.pid);
    let settled = false;
    // What ended the command first: its timeout, its caller, or sh's own exit. A timeout that falls while a cancelled
    // or finished command's group is still being stopped (the SIGTERM grace) is no timeout.
    let stoppedBy: "timeout" | "caller" | "itself" | undefined;
    const stop = (by: "timeout" | "caller"): void => {
      if (stoppedBy !== undefined) return;
      stoppedBy = by;
      if (child.pid !== undefined) void stopGroup(child.pid);
    };
    const timer = setTimeout(() => stop("timeout"), spec.timeoutMs);
    const closed = [child.stdout, child.stderr].map((stream) => new Promise<void>((done) => stream.once("close", done)));
    const abort = (): void => stop("caller");
    spec.signal?.addEventListener("abort", abort, { once: true });
    if (spec.signal?.aborted) abort();

    child.on("error", (error: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.stdout.destroy();
      child.stderr.destroy();
      spec.signal?.removeEventListener("abort", abort);
      reject(launchFailure(error, spec));
    });
    child.stdout.on("data", (chunk: Buffer) => spec.sink.write("stdout", chunk));
    child.stderr.on("data", (chunk: Buffer) => spec.sink.write("stderr", chunk));
    child.on("exit", async (code, signal) => {
      // sh is gone: stop what it left in its group, then stop waiting on pipes held by anything that escaped it.
      stoppedBy ??= "itself";
      clearTimeout(timer);
      await stopGroup(child.pid as number);
      releaseGroup(child.pid as number);
      await new Promise<void>((done) => {
        const giveUp = setTimeout(done, DRAIN_MS);
        void Promise.all(closed).then(() => {
          clearTimeout(giveUp);
          done();
        });
      });
      child.stdout.destroy();
      child.stderr.destroy();
      spec.signal?.removeEventListener("abort", abort);
      if (settled) return;
      settled = true;
      const exitCode = code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
      resolve({ exitCode, ...(signal ? { signal } : {}), timedOut: stoppedBy === "timeout", durationMs: performance.now() - started });
    });
  });
}
