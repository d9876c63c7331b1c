// From what a run asks of the sandbox (its mode, its extra folders, the approval rules' path globs) to a policy of
// real paths that bwrapArgs turns into mounts. Globs are expanded to what exists when the command starts: a folder a
// glob covers whole (`secrets/**`) is one mount, and a glob that must be walked (`**/.env`) is matched entry by entry.
import { type Dirent, readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, relative } from "node:path";
import picomatch from "picomatch";
import { GgError } from "./errors.ts";
import { makeLogDir, SHELL_LOG_DIR } from "./logs.ts";
import { realPath } from "./paths.ts";
import { type ConfinedMode, PRIVATE_FOLDERS, type SandboxPolicy, within } from "./sandbox.ts";

/** What a run asks of the sandbox, before any path is resolved. */
export interface SandboxRequest {
  mode: ConfinedMode;
  network: boolean;
  workspace: string;
  cwd: string;
  /** Further folders the command may write, as configured: absolute, under `~/`, or relative to the workspace. */
  writable: readonly string[];
  /** Path globs of what the command may not read, as approval rules write them: relative to the workspace, or absolute. */
  readDenied: readonly string[];
  /** Path globs of what the command may not write. */
  writeDenied: readonly string[];
  /** Absolute paths that stay read-only whatever the folders: gg's own configuration and its hooks' scripts. */
  protect: readonly string[];
}

/** Entries a glob that must be walked may visit: beyond them the command is refused rather than left unguarded. */
export const GLOB_MAX_ENTRIES = 100_000;

/** A refusal to start a sandboxed command, worded as every such refusal is. */
const refused = (code: "launch-failed" | "not-found" | "over-cap", state: string): GgError => new GgError(code, `Cannot run the command in its sandbox: ${state}`);

/** Whether `absolute` exists (a dangling link does not). */
function kindOf(absolute: string): "folder" | "file" | undefined {
  try {
    return statSync(absolute).isDirectory() ? "folder" : "file";
  } catch {
    return undefined;
  }
}

/**
 * The existing paths (real, absolute) that path glob `glob` covers, as a rule matches them: relative to `workspace`
 * (a real path), or absolute. A folder the glob covers whole is given once, not entry by entry; a walk past
 * `maxEntries` entries is refused (over-cap).
 */
export function globPaths(glob: string, workspace: string, maxEntries = GLOB_MAX_ENTRIES): string[] {
  const absolute = glob.startsWith("/");
  const { base, glob: rest, isGlob } = picomatch.scan(glob);
  const start = absolute ? base || "/" : join(workspace, base);
  if (!isGlob || rest === "**") return kindOf(start) ? [realPath(start)] : [];
  const matches = picomatch(glob, { dot: true, strictBrackets: true });
  const found: string[] = [];
  let visited = 0;
  const walk = (dir: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // gone, or not a folder this process may read: no command reads it either
    }
    for (const entry of entries) {
      if (++visited > maxEntries) {
        throw refused("over-cap", `the path glob ${JSON.stringify(glob)} of an approval rule must be matched against more than ${maxEntries} entries of ${start} to find what it covers; write a narrower glob (name the folder, e.g. "config/**/.env")`);
      }
      const path = join(dir, entry.name);
      const named = absolute ? path : relative(workspace, path);
      if (matches(named)) found.push(realPath(path));
      else if (entry.isDirectory()) walk(path);
    }
  };
  walk(start);
  return found.filter((path) => kindOf(path));
}

/** A configured folder as an absolute path: `~/` is the home folder, a relative one the workspace's. */
const configuredFolder = (folder: string, workspace: string): string => (folder === "~" || folder.startsWith("~/") ? join(homedir(), folder.slice(1)) : folder.startsWith("/") ? folder : join(workspace, folder));

/** The files a command with network needs that the private folders would hide: resolv.conf where it points into /run. */
function networkFiles(): string[] {
  const resolv = realPath("/etc/resolv.conf");
  return resolv !== "/etc/resolv.conf" && PRIVATE_FOLDERS.some((folder) => within(resolv, folder)) && kindOf(resolv) ? [resolv] : [];
}

/**
 * The policy `request` comes to: every path real, every glob expanded to what exists now. Refuses (a GgError) when a
 * folder the command must see or write does not exist, or a glob would take too long to match.
 */
export function resolveSandbox(request: SandboxRequest): SandboxPolicy {
  const workspace = realPath(request.workspace);
  if (kindOf(workspace) !== "folder") throw refused("not-found", `the workspace ${request.workspace} is not a folder; create it or run gg in another`);
  const cwd = realPath(request.cwd);
  makeLogDir();
  const writable = request.writable.map((folder) => {
    const path = realPath(configuredFolder(folder, workspace));
    if (!kindOf(path)) throw refused("not-found", `the folder ${JSON.stringify(folder)} the shell capability makes writable (params.writable) does not exist; create it, or take it out of writable`);
    return path;
  });
  const hidden = request.readDenied.flatMap((glob) => globPaths(glob, workspace)).map((path) => ({ path, folder: kindOf(path) === "folder" }));
  // A repository's hooks and configuration run commands outside the sandbox later (a person's git commit): kept as they are.
  const git = request.mode === "workspace-write" && kindOf(join(workspace, ".git")) === "folder" ? [join(workspace, ".git/hooks"), join(workspace, ".git/config")] : [];
  const readOnly = [...request.writeDenied.flatMap((glob) => globPaths(glob, workspace)), ...[...request.protect, ...git].filter((path) => kindOf(path)).map((path) => realPath(path))];
  return {
    mode: request.mode,
    workspace,
    cwd,
    logDir: realPath(SHELL_LOG_DIR),
    writable,
    readOnly,
    hidden,
    network: request.network,
    ...(request.network ? { networkFiles: networkFiles() } : {}),
  };
}
