// Paths resolve as any process in the container resolves them: relative to the working directory, absolute as
// themselves, `..` left to the kernel (no lexical normalisation, so symlinks behave as they do for a shell).
import { readlinkSync, realpathSync, statSync } from "node:fs";
import { GgError, quote } from "./errors.ts";
import { escapeUnshowable, hasUnshowable } from "./shown.ts";

/** Resolves a tool path against the working directory `cwd`; refuses the empty path and NUL bytes. */
export function resolvePath(cwd: string, path: string, field = "path"): string {
  if (path === "") {
    throw new GgError("invalid-argument", `Cannot use an empty ${field}: it would name the working directory itself; pass "." for that`);
  }
  if (path.includes("\0")) {
    throw new GgError("invalid-argument", `Cannot use ${field} ${quote(path)}: it contains a NUL byte`);
  }
  if (path.startsWith("/")) return path;
  return cwd.endsWith("/") ? cwd + path : `${cwd}/${path}`;
}

/**
 * One spelling of the file `path` names from `cwd`: its real path (`..`, `.` and symbolic links resolved by the
 * kernel) when it exists, else the absolute path without `.` segments or repeated and trailing slashes.
 */
export function pathKey(cwd: string, path: string): string {
  const absolute = resolvePath(cwd, path);
  try {
    return realpathSync.native(absolute);
  } catch {
    return withoutDots(absolute);
  }
}

/** Symbolic links a resolution follows at most, as Linux does (MAXSYMLINKS). */
const MAX_LINKS = 40;

/**
 * The file the absolute path `absolute` reaches as the kernel resolves it: symbolic links (`/proc/self/root` and
 * `/proc/self/cwd` among them), `.` and `..` resolved. For a path that does not exist yet, its nearest existing parent
 * is resolved and the rest appended; a dangling link is followed to where a write through it would land.
 */
export function realPath(absolute: string, links = 0): string {
  try {
    return realpathSync.native(absolute);
  } catch {
    // Missing, a dangling link, a loop, or not a directory on the way: resolved a segment at a time below.
  }
  const slash = absolute.lastIndexOf("/");
  const name = absolute.slice(slash + 1);
  const parent = realPath(slash <= 0 ? "/" : absolute.slice(0, slash), links);
  if (name === "" || name === ".") return parent;
  if (name === "..") return parent.slice(0, Math.max(1, parent.lastIndexOf("/")));
  const joined = parent === "/" ? `/${name}` : `${parent}/${name}`;
  if (links >= MAX_LINKS) return joined;
  let target: string;
  try {
    target = readlinkSync(joined);
  } catch {
    return joined;
  }
  return realPath(target.startsWith("/") ? target : `${parent}/${target}`, links + 1);
}

/**
 * Whether the kernel's resolution of the absolute path `absolute` passes through /proc (`/dev/fd` and `/dev/stdin` are
 * links into it): what such a path reaches depends on the process that opens it (its descriptors, its directory), so
 * gg's own resolution says nothing of what a command's would reach. Past 40 links it answers true.
 */
export function throughProc(absolute: string, links = 0): boolean {
  const names = absolute.split("/");
  let path = "";
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    if (name === "" || name === ".") continue;
    path = name === ".." ? path.slice(0, Math.max(0, path.lastIndexOf("/"))) : `${path}/${name}`;
    if (path === "/proc" || path.startsWith("/proc/")) return true;
    let target: string;
    try {
      target = readlinkSync(path);
    } catch {
      continue;
    }
    if (links >= MAX_LINKS) return true;
    const next = target.startsWith("/") ? target : `${path.slice(0, path.lastIndexOf("/"))}/${target}`;
    return throughProc([next, ...names.slice(i + 1)].join("/"), links + 1);
  }
  return false;
}

/** The names (hard links) of the regular file `absolute` reaches: 0 when there is none, 1 for anything but a regular file. */
export function hardLinks(absolute: string): number {
  try {
    const stats = statSync(absolute);
    return stats.isFile() ? stats.nlink : 1;
  } catch {
    return 0;
  }
}

/** An absolute path without `.` segments and without repeated or trailing slashes: the same file, whatever links lie on the way. */
export const withoutDots = (absolute: string): string => `/${absolute.split("/").filter((segment) => segment !== "" && segment !== ".").join("/")}`;

/** Joins a displayed root and a relative entry path, without doubling the separator. */
export function joinDisplay(root: string | undefined, relative: string): string {
  if (root === undefined || root === "." || root === "./") return relative;
  return root.endsWith("/") ? root + relative : `${root}/${relative}`;
}

/**
 * A path or file name as text shows it, on one line: as it is, or, when it holds a control character (or begins
 * with a quote, so a shown name that begins with one is always quoted), as a JSON string, quotes included:
 * `"a\nb.txt"`. That literal is the name as a tool call's JSON or a program's string spells it, so it can be given
 * back as it is shown.
 */
export function shownPath(path: string): string {
  if (!hasUnshowable(path) && !path.startsWith('"')) return path;
  // JSON.stringify escapes C0 alone; the rest become \u escapes, which JSON and JavaScript read back the same.
  return escapeUnshowable(JSON.stringify(path));
}

/** `message` with each of `paths` it quotes raw shown as {@link shownPath} shows it, so the message stays one line. */
export function showPathsIn(message: string, paths: readonly string[]): string {
  let shown = message;
  for (const path of paths) if (path !== "" && shownPath(path) !== path) shown = shown.replaceAll(path, shownPath(path));
  return shown;
}
