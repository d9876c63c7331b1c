// The batch tools' walk (seed 003): a fixed list of directories skipped, not the ignore rules; entries the agent may
// not read left out (the caller's `hidden`); path order (siblings by name, depth first); symbolic links listed, never
// entered; and a hard bound on the entries visited.
import { statSync } from "node:fs";
import { GgError } from "./errors.ts";
import { grouped } from "./lines.ts";
import { withoutDots } from "./paths.ts";
import { listing, type WarmCache } from "./warm.ts";

/**
 * Directories a walk does not enter unless asked to: version control, dependencies and build output. Seed 003 names
 * .git, node_modules and target; the rest of its list is garbled, so gg adds the other version-control folders and
 * the Python ones that hold the same kind of bulk.
 */
export const SKIPPED_DIRS: readonly string[] = [".git", ".hg", ".svn", "node_modules", "target", "__pycache__", ".venv"];

/** The most entries one walk visits; one more fails, asking for a narrower path. */
export const WALK_MAX_ENTRIES = 10_000;

/** One entry a walk visited. */
export interface SkipWalkEntry {
  /** `/`-separated, as the walk's root was named joined with the path below it. */
  path: string;
  absolute: string;
  kind: "file" | "dir" | "symlink" | "other";
  /** For a symlink: what it points to. */
  linksTo?: "file" | "dir" | "other";
}

/** What a walk found: its entries in path order, and how many skipped directories it left out. */
export interface SkipWalk {
  entries: SkipWalkEntry[];
  skipped: number;
}

/**
 * The failure of a walk past {@link WALK_MAX_ENTRIES}: what its root holds that the walk leaves out, and narrower
 * paths (the root's own directories).
 */
function tooLarge(shown: string, top: { walked: string[]; skipped: string[] }): GgError {
  const some = (paths: string[]): string => paths.slice(0, 6).join(", ") + (paths.length > 6 ? `, and ${paths.length - 6} more` : "");
  const left = top.skipped.length > 0 ? `, besides ${some(top.skipped)} (on the skip list, left out)` : "";
  const narrower = top.walked.length > 0 ? `, such as one of its directories: ${some(top.walked)}` : "";
  return new GgError("over-cap", `Cannot walk ${shown || "the working directory"}: it holds more than ${grouped(WALK_MAX_ENTRIES)} entries, the most one walk visits${left}; pass a narrower path${narrower}`);
}

const kindOf = (stats: { isFile(): boolean; isDirectory(): boolean }): "file" | "dir" | "other" => (stats.isFile() ? "file" : stats.isDirectory() ? "dir" : "other");

/**
 * Walks the directory `absolute` (named `shown`, "" for the working directory), every entry below it; `deep` false
 * lists the directory's own entries only. The root itself is walked even when its name is on the skip list.
 */
export function skipWalk(absolute: string, shown: string, options: { includeIgnored: boolean; deep: boolean; warm?: WarmCache; hidden?: (relative: string) => boolean }): SkipWalk {
  const entries: SkipWalkEntry[] = [];
  let skipped = 0;
  /** The root's own directories, walked and skipped: what the failure of a walk too large names. */
  const top = { walked: [] as string[], skipped: [] as string[] };
  // `below` is the directory's path below the root ("" for the root), as `hidden` takes it.
  const visit = (dir: string, prefix: string, below: string): void => {
    let listed;
    try {
      listed = listing(dir, options.warm);
    } catch {
      // A directory that cannot be listed below the root shows as an empty one, as ls -R goes on past it.
      return;
    }
    if (below === "") {
      for (const dirent of listed.dirents) {
        if (!dirent.isDirectory() || options.hidden?.(dirent.name)) continue;
        const path = prefix === "" ? dirent.name : `${prefix}/${dirent.name}`;
        (options.includeIgnored || !SKIPPED_DIRS.includes(dirent.name) ? top.walked : top.skipped).push(path);
      }
    }
    for (const [i, dirent] of listed.dirents.entries()) {
      const path = prefix === "" ? dirent.name : `${prefix}/${dirent.name}`;
      const relative = below === "" ? dirent.name : `${below}/${dirent.name}`;
      // Left out as if it did not exist: neither shown nor counted.
      if (options.hidden?.(relative)) continue;
      const child = listed.paths[i] as string;
      let entry: SkipWalkEntry;
      if (dirent.isSymbolicLink()) {
        let linksTo: "file" | "dir" | "other" = "other";
        try {
          linksTo = kindOf(statSync(child));
        } catch {
          // A link to nothing.
        }
        entry = { path, absolute: child, kind: "symlink", linksTo };
      } else entry = { path, absolute: child, kind: kindOf(dirent) };
      if (entry.kind === "dir" && !options.includeIgnored && SKIPPED_DIRS.includes(dirent.name)) {
        skipped++;
        continue;
      }
      // The bound is the recursive walks': one directory's own entries are paged, however many.
      if (options.deep && entries.length === WALK_MAX_ENTRIES) throw tooLarge(shown, top);
      entries.push(entry);
      if (entry.kind === "dir" && options.deep) visit(child, path, relative);
    }
  };
  // One spelling of each path below it, so that what the warm state keeps is kept once.
  visit(withoutDots(absolute), shown, "");
  return { entries, skipped };
}
