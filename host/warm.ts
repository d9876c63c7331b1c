// What a long-lived runtime keeps between searches: directory listings and file contents, each trusted only while
// the stat that vouched for it still holds. A listing is checked by its directory's stat (an entry created, deleted
// or renamed changes the directory's times); a file by its own (size, modification and change times, inode, device).
// The change time cannot be set back by a user process, so a rewrite that restores the size and the modification
// time is still seen. Timestamps are coarse (a kernel tick): an entry whose change time is too recent to rule out a
// second change within the same tick is not trusted (git's "racily clean" files), so the next search reads it again.
import { type Dirent, readdirSync, readFileSync, type Stats, statSync } from "node:fs";
import { fromSystemError } from "./errors.ts";
import { byName, type FileHost } from "./files.ts";
import { statAhead, type TakenStat as Stamp } from "./statahead.ts";

/** Bytes kept by default (file contents, and listings at their estimated size): past it, the least used go. */
export const DEFAULT_WARM_CAP_BYTES = 256 * 1024 * 1024;
/** How recent a change time must be for the entry not to be trusted: well over any kernel's timestamp tick. */
const RACY_MS = 2000;
/** What one kept entry costs beside its bytes (the map entry, its key and stamp): so empty files count too. */
const ENTRY_BYTES = 128;

// A stamp (the TakenStat of a stat) identifies one version of a file or directory on disk.
const stampOf = ({ size, mtimeMs, ctimeMs, ino, dev }: Stamp): Stamp => ({ size, mtimeMs, ctimeMs, ino, dev });
const sameStamp = (a: Stamp, b: Stamp): boolean => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.dev === b.dev;

/** Whether an entry read now may be trusted later: its last change is old enough that no second one can share it. */
const settled = (stats: Stamp): boolean => Date.now() - stats.ctimeMs > RACY_MS;

/** One kept thing: a file's bytes or a directory's listing, with the stamp that vouches for it and what it costs. */
interface Kept {
  stamp: Stamp;
  /** False for a listing seen too recently to trust: kept only to tell what vanished from it next time. */
  trusted: boolean;
  /** Used since it was kept, or since the clock last passed it. */
  used?: boolean;
  cost: number;
  bytes?: Buffer;
  dirents?: Dirent[];
}

const parentOf = (path: string): string => path.slice(0, Math.max(1, path.lastIndexOf("/")));

/** The warm state of one runtime; every read stats what it returns, so nothing stale is ever handed out. */
export function createWarmCache(capBytes: number = DEFAULT_WARM_CAP_BYTES) {
  // One map for both kinds, keyed by "f" or "d" and the absolute path, in least-recently-used order.
  const kept = new Map<string, Kept>();
  // The kept paths directly below each directory: what goes when the directory does.
  const children = new Map<string, Set<string>>();
  let held = 0;

  /**
   * Takes `path` out of its directory's index once nothing is kept at or below it (neither kind, nor any child), and
   * so on upwards: the index reaches everything kept, so forgetting a directory reaches all of it.
   */
  const unlink = (path: string): void => {
    if (kept.has(`f${path}`) || kept.has(`d${path}`) || children.has(path)) return;
    const parent = parentOf(path);
    const siblings = children.get(parent);
    if (!siblings?.delete(path) || siblings.size > 0) return;
    children.delete(parent);
    if (parent !== path) unlink(parent);
  };
  const drop = (key: string): void => {
    const entry = kept.get(key);
    if (!entry) return;
    held -= entry.cost;
    kept.delete(key);
    unlink(key.slice(1));
  };
  /** Forgets everything kept at or below `path`: what a directory no longer holds. */
  const forgetBelow = (path: string): void => {
    const below = children.get(path);
    children.delete(path);
    for (const child of below ?? []) forgetBelow(child);
    drop(`f${path}`);
    drop(`d${path}`);
    unlink(path);
  };
  /**
   * Keeps `entry` under `key`, making room by dropping the least recently used: from the oldest, an entry used since
   * it was kept gets a second chance at the end of the line (the clock algorithm; a hit costs a flag, not a move).
   */
  const keep = (key: string, entry: Kept): void => {
    drop(key);
    if (entry.cost > capBytes) return;
    for (const [oldest, candidate] of kept) {
      if (held + entry.cost <= capBytes) break;
      if (candidate.used) {
        candidate.used = false;
        kept.delete(oldest);
        kept.set(oldest, candidate);
      } else drop(oldest);
    }
    kept.set(key, entry);
    held += entry.cost;
    // Indexed all the way up, so that forgetting any directory above reaches it.
    for (let path = key.slice(1); ; ) {
      const parent = parentOf(path);
      let siblings = children.get(parent);
      if (!siblings) children.set(parent, (siblings = new Set()));
      if (siblings.has(path) || parent === path) break;
      siblings.add(path);
      path = parent;
    }
  };
  /** The entry under `key` if `stats` still vouch for it, marked used. */
  const fresh = (key: string, stats: Stamp): Kept | undefined => {
    const entry = kept.get(key);
    if (!entry?.trusted || !sameStamp(entry.stamp, stats)) return undefined;
    entry.used = true;
    return entry;
  };
  /** Stats `path`; a path gone or unreadable takes along what was kept of it. */
  const stat = (path: string): Stats => {
    try {
      return statSync(path);
    } catch (error) {
      forgetBelow(path);
      throw error;
    }
  };

  return {
    /** A directory's entries in path order, as readdirSync gives them; throws as it does. */
    readdir(dir: string): Dirent[] {
      const stats = stat(dir);
      const key = `d${dir}`;
      const hit = fresh(key, stats);
      if (hit?.dirents) return hit.dirents;
      const before = kept.get(key)?.dirents;
      const dirents = readdirSync(dir, { withFileTypes: true }).sort(byName);
      if (before) {
        // What vanished, or turned from a directory into something else or back, takes along what was kept of it.
        const now = new Map(dirents.map((dirent) => [dirent.name, dirent.isDirectory()]));
        for (const old of before) if (now.get(old.name) !== old.isDirectory()) forgetBelow(`${dir === "/" ? "" : dir}/${old.name}`);
      }
      const cost = ENTRY_BYTES + dirents.reduce((sum, dirent) => sum + ENTRY_BYTES + dirent.name.length, 0);
      keep(key, { stamp: stampOf(stats), trusted: settled(stats), cost, dirents });
      return dirents;
    },
    /**
     * A file's bytes, as readFileSync gives them; throws as it does. The buffer is shared: never write to it.
     * `taken` is a stat of the file taken since the search began (by the second thread), used instead of a new one.
     */
    readFile(path: string, taken?: Stamp): Buffer {
      const stats = taken ?? stat(path);
      const key = `f${path}`;
      const hit = fresh(key, stats);
      if (hit?.bytes) return hit.bytes;
      drop(key);
      const bytes = readFileSync(path);
      // Kept only when it is the version the stat described and it cannot hide a second change.
      if (bytes.length === stats.size && settled(stats)) keep(key, { stamp: stampOf(stats), trusted: true, cost: ENTRY_BYTES + bytes.length, bytes });
      return bytes;
    },
    /** Bytes kept now: file contents, and listings at their estimated size. */
    heldBytes: (): number => held,
  };
}

/** The warm state of one runtime. */
export type WarmCache = ReturnType<typeof createWarmCache>;

/**
 * The host one search of `paths` (in the order it reads them) uses: its whole-file reads served from `warm`, each
 * vouched for by a stat the second thread took ahead of it when there is one, failures typed as the host's are.
 * `finish` when the search is over.
 */
export function warmSearchHost(host: FileHost, warm: WarmCache, paths: string[]): FileHost & { finish(): void } {
  const job = statAhead.begin(paths);
  const index = job ? new Map(paths.map((path, i) => [path, i])) : undefined;
  return {
    ...host,
    readFileInto(path) {
      const at = index?.get(path);
      try {
        return warm.readFile(path, at === undefined ? undefined : job?.stat(at));
      } catch (error) {
        throw fromSystemError("read", path, error);
      }
    },
    keepsReads: true,
    finish: () => job?.finish(),
  };
}

/** `host` with its whole-file reads served from `warm`, for searches that name no files ahead (the context's host). */
export const warmFileHost = (host: FileHost, warm: WarmCache): FileHost => warmSearchHost(host, warm, []);
