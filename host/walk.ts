// Directory walks for tree and search: path order (siblings by name, depth first), ignore rules applied, symbolic
// links listed but never followed (no cycles), and lazy, so a caller that stops early stops the I/O too.
import { readdirSync, statSync } from "node:fs";
import { byName } from "./files.ts";
import { enterScope, type IgnoreScope, isIgnored, rootScope } from "./ignore.ts";

/** One entry a walk shows. */
export interface WalkEntry {
  name: string;
  /** Path relative to the walk root, `/`-separated. */
  relative: string;
  /** Path as the kernel resolves it. */
  absolute: string;
  /** A directory, or a symbolic link to one. */
  directory: boolean;
  /** A regular file, or a symbolic link to one (FIFOs and sockets are neither, so search never blocks on one). */
  file: boolean;
  /** A symbolic link: shown, never entered. */
  symlink: boolean;
}

/** A directory being walked: where it is and the ignore rules in force inside it. */
export interface WalkDir {
  absolute: string;
  relative: string;
  scope: IgnoreScope;
}

/** The root of a walk at `absolute`, with the ignore rules of its enclosing directories. */
export const walkRoot = (absolute: string, workspace: string): WalkDir => ({
  absolute,
  relative: "",
  scope: rootScope(absolute, workspace),
});

/** The entries of `dir` that are not ignored, in path order. Throws the system error when it cannot be read. */
export function visibleEntries(dir: WalkDir): WalkEntry[] {
  const entries = readdirSync(dir.absolute, { withFileTypes: true }).sort(byName);
  const shown: WalkEntry[] = [];
  for (const entry of entries) {
    const symlink = entry.isSymbolicLink();
    let directory = entry.isDirectory();
    let file = entry.isFile();
    const absolute = `${dir.absolute === "/" ? "" : dir.absolute}/${entry.name}`;
    if (symlink) {
      try {
        const target = statSync(absolute);
        directory = target.isDirectory();
        file = target.isFile();
      } catch {
        // A dangling link shows as a file.
      }
    }
    const relative = dir.relative === "" ? entry.name : `${dir.relative}/${entry.name}`;
    if (isIgnored(dir.scope, relative, directory)) continue;
    shown.push({ name: entry.name, relative, absolute, directory, file, symlink });
  }
  return shown;
}

/** The walk state inside a directory entry. */
export const enter = (dir: WalkDir, entry: WalkEntry): WalkDir => ({
  absolute: entry.absolute,
  relative: entry.relative,
  scope: enterScope(dir.scope, entry.absolute, entry.relative),
});

/** Every regular, non-ignored file under `root` in path order; unreadable directories are skipped. */
export function* walkFiles(root: WalkDir): Generator<WalkEntry> {
  let entries: WalkEntry[];
  try {
    entries = visibleEntries(root);
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry.symlink) continue;
    if (entry.directory) yield* walkFiles(enter(root, entry));
    else if (entry.file) yield entry;
  }
}
