// Directory walks for tree and search: path order (siblings by name, depth first), ignore rules applied, entries the
// agent may not read left out (the caller's `hidden`), symbolic links listed but never followed (no cycles), and
// lazy, so a caller that stops early stops the I/O too.
import { statSync } from "node:fs";
import { enterScope, type IgnoreScope, isIgnored, rootScope } from "./ignore.ts";
import { withoutDots } from "./paths.ts";
import { listing, type WarmCache } from "./warm.ts";

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

/** A directory to walk: where it is and the ignore rules of the directories around it. */
export interface WalkDir {
  absolute: string;
  relative: string;
  /** Rules in force from enclosing directories; the directory's own rule files are read when it is listed. */
  inherited: IgnoreScope;
  /** A long-lived runtime's listings and contents, checked before each use; none for a one-shot walk. */
  warm?: WarmCache;
  /** Entries left out as if ignored, by their path below the walk's root: those the agent may not read. */
  hidden?: (relative: string) => boolean;
}

/** A listed directory: its visible entries, the rules in force inside it, and how many entries they left out. */
export interface Listing {
  entries: WalkEntry[];
  scope: IgnoreScope;
  /** Entries the ignore rules left out (not those `hidden` hides, which are not said to exist). */
  ignored: number;
}

/** The root of a walk at `absolute`, with the ignore rules of its enclosing directories, leaving out what `hidden` hides. */
export const walkRoot = (absolute: string, workspace: string, warm?: WarmCache, hidden?: (relative: string) => boolean): WalkDir => ({
  // One spelling of each path below it, so that what the warm state keeps is kept once.
  absolute: withoutDots(absolute),
  relative: "",
  inherited: rootScope(absolute, workspace),
  ...(warm ? { warm } : {}),
  ...(hidden ? { hidden } : {}),
});

/** Lists `dir`: entries that are not ignored, in path order. Throws the system error when it cannot be read. */
export function listDir(dir: WalkDir): Listing {
  // Only a walk's root is ever entered ignored (it was named): it is the one entry left out.
  if (dir.inherited.hidden) return { entries: [], scope: dir.inherited, ignored: 1 };
  const listed = listing(dir.absolute, dir.warm);
  const { dirents, paths } = listed;
  // The listing itself says which rule files exist, so no directory costs a failed open.
  const present = { ignore: false, gitignore: false, git: false };
  let links = false;
  for (const dirent of dirents) {
    if (dirent.name === ".ignore") present.ignore = true;
    else if (dirent.name === ".gitignore") present.gitignore = true;
    else if (dirent.name === ".git") present.git = dirent.isDirectory();
    links ||= dirent.isSymbolicLink();
  }
  const scope = enterScope(dir.inherited, dir.absolute, dir.relative, present, dir.warm);
  // What the last walk made of a kept listing holds while the rules in force and the path it is reached by are the
  // same (and no link's target, which may change, decided an entry's kind).
  const key = dir.hidden || links ? undefined : `${scope.key}\u0002${dir.relative}`;
  if (key !== undefined && listed.memo?.key === key) return { ...(listed.memo.value as Omit<Listing, "scope">), scope };
  const entries: WalkEntry[] = [];
  let ignored = 0;
  for (const [i, dirent] of dirents.entries()) {
    const symlink = dirent.isSymbolicLink();
    let directory = dirent.isDirectory();
    let file = dirent.isFile();
    const absolute = paths[i] as string;
    if (symlink) {
      try {
        const target = statSync(absolute);
        directory = target.isDirectory();
        file = target.isFile();
      } catch {
        // A dangling link shows as an entry that is neither.
      }
    }
    const relative = dir.relative === "" ? dirent.name : `${dir.relative}/${dirent.name}`;
    if (dir.hidden?.(relative)) continue;
    if (isIgnored(scope, relative, directory)) {
      ignored++;
      continue;
    }
    entries.push({ name: dirent.name, relative, absolute, directory, file, symlink });
  }
  // An entry and its relative path: about 100 bytes and the path's.
  if (key !== undefined) dir.warm?.remember(dir.absolute, key, { entries, ignored }, entries.reduce((sum, entry) => sum + 96 + entry.relative.length, 64));
  return { entries, scope, ignored };
}

/** The directory of `entry`, listed from directory `from`, whose rules are `scope`. */
export const enter = (scope: IgnoreScope, entry: WalkEntry, from: WalkDir): WalkDir => ({
  absolute: entry.absolute,
  relative: entry.relative,
  inherited: scope,
  ...(from.warm ? { warm: from.warm } : {}),
  ...(from.hidden ? { hidden: from.hidden } : {}),
});

/**
 * Every regular, non-ignored file under `dir` in path order; unreadable directories are skipped. `skipped` counts the
 * entries the ignore rules left out (an ignored directory once, whatever it holds) as the walk meets them.
 */
export function* walkFiles(dir: WalkDir, skipped: { ignored: number } = { ignored: 0 }): Generator<WalkEntry> {
  let listing: Listing;
  try {
    listing = listDir(dir);
  } catch {
    return;
  }
  skipped.ignored += listing.ignored;
  for (const entry of listing.entries) {
    if (entry.symlink) continue;
    if (entry.directory) yield* walkFiles(enter(listing.scope, entry, dir), skipped);
    else if (entry.file) yield entry;
  }
}
