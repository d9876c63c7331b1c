// The shell's logs: two files per offloaded command under /tmp/gg-shell. They are kept a week, and within 1 GiB all
// told: when gg starts a command it removes older ones, and the oldest past the bound (at most once a minute per
// process). A log some command still writes is never removed: this process knows its own, /proc shows the files
// other processes hold open, and where /proc is not there a log written in the last minute counts as held.
import { chmodSync, lstatSync, mkdirSync, readdirSync, readlinkSync, unlinkSync } from "node:fs";
import { fromSystemError } from "./errors.ts";

/** Where offloaded streams are written: outside any workspace, so a run's diff holds only the agent's work. */
export const SHELL_LOG_DIR = "/tmp/gg-shell";

/**
 * Makes the log folder if it is missing: shared by every user of the machine, like /tmp itself, world-writable and
 * sticky (the logs in it are private). A failure is a typed error.
 */
export function makeLogDir(): void {
  try {
    if (mkdirSync(SHELL_LOG_DIR, { recursive: true }) !== undefined) chmodSync(SHELL_LOG_DIR, 0o1777);
  } catch (error) {
    throw fromSystemError("create", SHELL_LOG_DIR, error);
  }
}

/** How long and how much the logs are kept. */
export interface LogRetention {
  /** Milliseconds since a command's last write after which its logs are removed. */
  maxAgeMs: number;
  /** Bytes of logs kept in all: past it, the oldest commands' logs are removed. */
  maxBytes: number;
}

/** A week, and 1 GiB. */
export const LOG_RETENTION: LogRetention = { maxAgeMs: 7 * 24 * 3600 * 1000, maxBytes: 1024 ** 3 };

/** One log file. */
export interface ShellLog {
  /** Absolute path. */
  path: string;
  bytes: number;
  /** Last write, epoch milliseconds. */
  modifiedMs: number;
  /** True when a command still running writes it (see the file's head): no cleaning removes it. */
  held: boolean;
}

/** What a cleaning removed. */
export interface Removed {
  /** Files removed. */
  files: number;
  bytes: number;
}

/** The names gg gives its logs: cmd-<agent>-<number>.stdout and .stderr. */
const LOG_NAME = /^(cmd-.+-\d{4,})\.(stdout|stderr)$/;
/** A log written this recently may belong to a command whose process cannot be seen: retention leaves it. */
const JUST_WRITTEN_MS = 60_000;
const RETAIN_EVERY_MS = 60_000;

/** The logs this process's running commands write. */
const open = new Set<string>();
const retained = new Map<string, number>();

/** Marks `paths` as written by a command of this process, until {@link releaseLogs}. */
export function holdLogs(paths: readonly string[]): void {
  for (const path of paths) open.add(path);
}

/** Marks `paths` as no longer written. */
export function releaseLogs(paths: readonly string[]): void {
  for (const path of paths) open.delete(path);
}

/** Files under `dir` that a live process holds open, by /proc; undefined where /proc cannot tell. */
function openElsewhere(dir: string): Set<string> | undefined {
  const found = new Set<string>();
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  if (pids.length === 0) return undefined;
  const prefix = `${dir}/`;
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or another user's: its logs are not this user's to remove either
    }
    for (const fd of fds) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (target.startsWith(prefix)) found.add(target);
      } catch {
        // closed meanwhile
      }
    }
  }
  return found;
}

/** This user's logs in `dir`, oldest first, with `held` left false. */
function scan(dir: string): ShellLog[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  const logs: ShellLog[] = [];
  for (const name of names) {
    if (!LOG_NAME.test(name)) continue;
    try {
      const stat = lstatSync(`${dir}/${name}`);
      if (stat.isFile() && (uid === undefined || stat.uid === uid)) logs.push({ path: `${dir}/${name}`, bytes: stat.size, modifiedMs: stat.mtimeMs, held: false });
    } catch {
      // removed meanwhile
    }
  }
  // Code units, not localeCompare: its first call loads the collation data, milliseconds on a command's start.
  return logs.sort((a, b) => a.modifiedMs - b.modifiedMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Marks the logs some running command writes; `now` dates what /proc's absence makes count as held. */
function markHeld(logs: ShellLog[], dir: string, now: number): ShellLog[] {
  const elsewhere = openElsewhere(dir);
  for (const log of logs) log.held = open.has(log.path) || (elsewhere ? elsewhere.has(log.path) : now - log.modifiedMs < JUST_WRITTEN_MS);
  return logs;
}

/** This user's shell logs in `dir` (default /tmp/gg-shell), oldest first: path, size, last write, and whether held. */
export function listShellLogs(dir = SHELL_LOG_DIR): ShellLog[] {
  return markHeld(scan(dir), dir, Date.now());
}

/** Removes `logs`, counting what went; one already gone or not ours to remove is skipped. */
function remove(logs: readonly ShellLog[]): Removed {
  const removed: Removed = { files: 0, bytes: 0 };
  for (const log of logs) {
    try {
      unlinkSync(log.path);
      removed.files++;
      removed.bytes += log.bytes;
    } catch {
      // another process took it first, or the sticky directory keeps another user's
    }
  }
  return removed;
}

/** Removes every shell log in `dir` (default /tmp/gg-shell) that no running command holds: `gg logs clean`. */
export function cleanShellLogs(dir = SHELL_LOG_DIR): Removed {
  return remove(listShellLogs(dir).filter((log) => !log.held));
}

/** One command's logs: its stdout and stderr files. */
interface CommandLogs {
  files: ShellLog[];
  bytes: number;
  /** The later of its files' last writes. */
  modifiedMs: number;
}

/** The logs in `dir` grouped by command, the command written longest ago first. */
function byCommand(logs: readonly ShellLog[], dir: string): CommandLogs[] {
  const commands = new Map<string, CommandLogs>();
  for (const log of logs) {
    const base = LOG_NAME.exec(log.path.slice(dir.length + 1))?.[1] ?? log.path;
    const command = commands.get(base) ?? { files: [], bytes: 0, modifiedMs: 0 };
    command.files.push(log);
    command.bytes += log.bytes;
    command.modifiedMs = Math.max(command.modifiedMs, log.modifiedMs);
    commands.set(base, command);
  }
  return [...commands.values()].sort((a, b) => a.modifiedMs - b.modifiedMs);
}

/** The commands whose logs `retention` removes, oldest first, leaving those `kept` says to keep (they still count). */
function overRetention(commands: readonly CommandLogs[], retention: LogRetention, now: number, kept: (command: CommandLogs) => boolean): CommandLogs[] {
  let total = commands.reduce((sum, command) => sum + command.bytes, 0);
  const doomed: CommandLogs[] = [];
  for (const command of commands) {
    if (now - command.modifiedMs <= retention.maxAgeMs && total <= retention.maxBytes) break;
    if (now - command.modifiedMs < JUST_WRITTEN_MS || kept(command)) continue;
    doomed.push(command);
    total -= command.bytes;
  }
  return doomed;
}

/**
 * Applies `retention` to the logs in `dir` (default /tmp/gg-shell): a command's two files go together, when its last
 * write is older than the age bound, or, oldest first, while the logs exceed the size bound. Logs a running command
 * holds, and logs written in the last minute, stay (and count toward the size).
 */
export function retainShellLogs(dir = SHELL_LOG_DIR, retention: LogRetention = LOG_RETENTION, now = Date.now()): Removed {
  const logs = scan(dir);
  const commands = byCommand(logs, dir);
  // Only with something to remove is it worth asking /proc who holds what.
  if (overRetention(commands, retention, now, () => false).length === 0) return { files: 0, bytes: 0 };
  markHeld(logs, dir, now);
  return remove(overRetention(commands, retention, now, (command) => command.files.some((log) => log.held)).flatMap((command) => command.files));
}

/** {@link retainShellLogs} as a command starts: at most once a minute per process, and never failing the command. */
export function retainOnStart(dir = SHELL_LOG_DIR): void {
  const now = Date.now();
  if (now - (retained.get(dir) ?? -Infinity) < RETAIN_EVERY_MS) return;
  retained.set(dir, now);
  try {
    retainShellLogs(dir, LOG_RETENTION, now);
  } catch {
    // best effort: a cleaning that fails leaves the logs as they were
  }
}
