// What a long-lived runtime keeps between searches: directory listings and file contents, each trusted only while
// the stat that vouched for it still holds. A listing is checked by its directory's stat (an entry created, deleted
// or renamed changes the directory's times); a file by its own (size, modification and change times, inode, device).
// The change time cannot be set back by a user process, so a rewrite that restores the size and the modification
// time is still seen. Timestamps are coarse (a kernel tick): an entry whose change time is too recent to rule out a
// second change within the same tick is not trusted (git's "racily clean" files), so the next search reads it again.
// A file also gets a trigram filter, built by the second thread between searches; a file a search skipped unread
// (the thread ruled it out) is kept by its filter alone, under the same rules.
import { type Dirent, readdirSync, type Stats, statSync } from "node:fs";
import { fromSystemError } from "./errors.ts";
import { binaryHead, byName, type FileHost, readSearchedFile } from "./files.ts";
import { type GramQuery, mayHold } from "./grams.ts";
import { secondThread, type TakenStat as Stamp } from "./second.ts";

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
  /**
   * The trigram filter of the file, once the second thread has built it; a file the search skipped unread (the thread
   * ruled it out) is kept with its filter alone, and read from disk when a pattern's trigrams pass it.
   */
  grams?: Uint32Array;
  dirents?: Dirent[];
  /** The absolute path of each of `dirents`: the same strings every walk, so their hashes are computed once. */
  paths?: string[];
}

/** A directory's entries in path order, and the absolute path of each. */
export interface DirListing {
  dirents: Dirent[];
  paths: string[];
}

/** Lists `dir` as a walk sees it, from `warm` when there is one; throws the system error when it cannot be read. */
export function listing(dir: string, warm?: WarmCache): DirListing {
  if (warm) return warm.readdir(dir);
  const dirents = readdirSync(dir, { withFileTypes: true }).sort(byName);
  return { dirents, paths: childPaths(dir, dirents) };
}

const childPaths = (dir: string, dirents: Dirent[]): string[] => dirents.map((dirent) => `${dir === "/" ? "" : dir}/${dirent.name}`);

const parentOf = (path: string): string => path.slice(0, Math.max(1, path.lastIndexOf("/")));
// A file is kept under its path (the walk's own string, whose hash V8 keeps), a listing under its path and a slash.
const dirKey = (path: string): string => `${path}/`;
const pathOf = (key: string): string => (key.length > 1 && key.endsWith("/") ? key.slice(0, -1) : key);

/** The warm state of one runtime; every read stats what it returns, so nothing stale is ever handed out. */
export function createWarmCache(capBytes: number = DEFAULT_WARM_CAP_BYTES) {
  // One map for both kinds, in least-recently-used order.
  const kept = new Map<string, Kept>();
  // Files kept since filters were last asked for, and files the searches skipped unread since then; and whether the
  // second thread is still at the last request (one at a time, so its work never piles up behind a busy runtime).
  let unfiltered: string[] = [];
  let unread = new Set<string>();
  let filtering = false;
  // The kept paths directly below each directory: what goes when the directory does.
  const children = new Map<string, Set<string>>();
  let held = 0;

  /**
   * Takes `path` out of its directory's index once nothing is kept at or below it (neither kind, nor any child), and
   * so on upwards: the index reaches everything kept, so forgetting a directory reaches all of it.
   */
  const unlink = (path: string): void => {
    if (kept.has(path) || kept.has(dirKey(path)) || children.has(path)) return;
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
    unlink(pathOf(key));
  };
  /** Forgets everything kept at or below `path`: what a directory no longer holds. */
  const forgetBelow = (path: string): void => {
    const below = children.get(path);
    children.delete(path);
    for (const child of below ?? []) forgetBelow(child);
    drop(path);
    drop(dirKey(path));
    unlink(path);
  };
  /** Drops the least recently used until `more` bytes fit: from the oldest, an entry used since it was kept gets a
   * second chance at the end of the line (the clock algorithm; a hit costs a flag, not a move). */
  const makeRoom = (more: number): void => {
    for (const [oldest, candidate] of kept) {
      if (held + more <= capBytes) break;
      if (candidate.used) {
        candidate.used = false;
        kept.delete(oldest);
        kept.set(oldest, candidate);
      } else drop(oldest);
    }
  };
  const filterCost = (filter: Uint32Array | undefined): number => filter?.byteLength ?? 0;
  /** Keeps `entry` under `key`, making room for it. */
  const keep = (key: string, entry: Kept): void => {
    drop(key);
    if (entry.cost > capBytes) return;
    makeRoom(entry.cost);
    kept.set(key, entry);
    held += entry.cost;
    if (entry.bytes) unfiltered.push(key);
    // Searches ask for filters as they end; reads alone never do, so the list forgets what is gone from time to time.
    if (unfiltered.length > 2 * kept.size + 1024) unfiltered = unfiltered.filter((path) => kept.get(path)?.bytes);
    // Indexed all the way up, so that forgetting any directory above reaches it.
    for (let path = pathOf(key); ; ) {
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

  function filterKept(): void {
    if (filtering) return;
    const paths: string[] = [];
    const stamps: (Stamp | undefined)[] = [];
    for (const path of unfiltered) {
      const entry = kept.get(path);
      if (!entry?.bytes || entry.grams) continue;
      paths.push(path);
      stamps.push(entry.stamp);
    }
    for (const path of unread) {
      paths.push(path);
      stamps.push(undefined);
    }
    if (paths.length === 0) return;
    const posted = secondThread.filter(paths, stamps, RACY_MS, (filters, last) => {
      for (const { index, filter, stamp } of filters) {
        const path = paths[index] as string;
        const entry = kept.get(path);
        const bytes = filterCost(filter);
        if (stamps[index] === undefined && !(entry && sameStamp(entry.stamp, stamp))) {
          // A file skipped unread, kept with its filter alone, under the stat the thread read it with (settled then).
          keep(path, { stamp: stampOf(stamp), trusted: true, cost: ENTRY_BYTES + bytes, grams: filter });
          continue;
        }
        // Built from the version this entry holds, or from none of it.
        if (!entry || entry.grams || !entry.trusted || !sameStamp(entry.stamp, stamp)) continue;
        makeRoom(bytes);
        if (kept.get(path) !== entry) continue;
        entry.grams = filter;
        entry.cost += bytes;
        held += bytes;
      }
      // What came in while it was busy is asked for next.
      if (last) {
        filtering = false;
        filterKept();
      }
    });
    // Without the thread (not started yet) the lists wait for a later search.
    if (!posted) return;
    filtering = true;
    unfiltered = [];
    unread = new Set();
  }

  function read(path: string, taken: Stamp | undefined, grams?: GramQuery): Buffer | undefined {
    const stats = taken ?? stat(path);
    const hit = fresh(path, stats);
    if (grams && hit?.grams && !mayHold(hit.grams, grams)) return undefined;
    if (hit?.bytes) return hit.bytes;
    const bytes = readSearchedFile(path);
    // Kept only when it is the version the stat described (or a binary file's head, all a search needs of it) and it
    // cannot hide a second change; a filter kept alone is the filter of that version too.
    const whole = bytes.length === stats.size || (stats.size > bytes.length && binaryHead(bytes));
    if (whole && settled(stats)) {
      const filter = hit?.grams;
      keep(path, { stamp: stampOf(stats), trusted: true, cost: ENTRY_BYTES + bytes.length + filterCost(filter), bytes, ...(filter ? { grams: filter } : {}) });
    } else drop(path);
    return bytes;
  }

  return {
    /** A directory's entries in path order, as readdirSync gives them, and their paths; throws as readdirSync does. */
    readdir(dir: string): DirListing {
      const stats = stat(dir);
      const key = dirKey(dir);
      const hit = fresh(key, stats);
      if (hit?.dirents && hit.paths) return { dirents: hit.dirents, paths: hit.paths };
      const before = kept.get(key);
      const dirents = readdirSync(dir, { withFileTypes: true }).sort(byName);
      if (before?.dirents && before.paths) {
        // What vanished, or turned from a directory into something else or back, takes along what was kept of it.
        const now = new Map(dirents.map((dirent) => [dirent.name, dirent.isDirectory()]));
        before.dirents.forEach((old, i) => now.get(old.name) !== old.isDirectory() && forgetBelow(before.paths?.[i] as string));
      }
      const paths = childPaths(dir, dirents);
      const cost = ENTRY_BYTES + dirents.reduce((sum, dirent, i) => sum + ENTRY_BYTES + dirent.name.length + (paths[i] as string).length, 0);
      keep(key, { stamp: stampOf(stats), trusted: settled(stats), cost, dirents, paths });
      return { dirents, paths };
    },
    /**
     * A file's bytes, as a search reads them (FileHost.readFileInto: bounded, a binary file's head alone); throws as it
     * does. The buffer is shared: never write to it.
     * `taken` is a stat of the file taken since the search began (by the second thread), used instead of a new one.
     */
    readFile(path: string, taken?: Stamp): Buffer {
      return read(path, taken) as Buffer;
    },
    /** {@link readFile}, or undefined when the file's kept filter shows it lacks one of `grams`. */
    readScreened: (path: string, taken: Stamp | undefined, grams: GramQuery): Buffer | undefined => read(path, taken, grams),
    /** Notes a file a search skipped unread: its filter is asked for with the next ones. */
    skippedUnread(path: string): void {
      // Bounded by the most files the cap can keep (each costs an entry and the smallest filter).
      if (unread.size < capBytes / (ENTRY_BYTES + 64)) unread.add(path);
    },
    /**
     * True when most of `paths` are kept: a search of them is better served by the stats of the second thread than
     * by its screens.
     */
    keepsMost: (paths: string[]): boolean => paths.reduce((known, path) => known + (kept.has(path) ? 1 : 0), 0) * 2 >= paths.length,
    /**
     * Asks the second thread for the filters of the files kept since the last time and of those skipped unread (as
     * they are on disk then); later searches use them. One request at a time: what comes in meanwhile waits for it.
     */
    filterKept,
    /** Bytes kept now: file contents, and listings at their estimated size. */
    heldBytes: (): number => held,
    /** Files kept with their contents, files kept by their filter alone, and the bytes of all the filters. */
    files(): { contents: number; filtersAlone: number; filterBytes: number } {
      const count = { contents: 0, filtersAlone: 0, filterBytes: 0 };
      for (const entry of kept.values()) {
        if (entry.bytes) count.contents++;
        else if (entry.grams) count.filtersAlone++;
        count.filterBytes += filterCost(entry.grams);
      }
      return count;
    },
  };
}

/** The warm state of one runtime. */
export type WarmCache = ReturnType<typeof createWarmCache>;

/**
 * The host one search of `paths` (in the order it reads them) uses: its whole-file reads served from `warm`, each
 * vouched for by a stat the second thread took ahead of it when there is one, failures typed as the host's are.
 * `finish` when the search is over (and ask for the filters of what it kept, {@link WarmCache.filterKept}).
 */
export function warmSearchHost(host: FileHost, warm: WarmCache, paths: string[]): FileHost & { finish(): void } {
  secondThread.collect();
  const job = secondThread.statAhead(paths);
  const taken = (path: string): Stamp | undefined => job?.stat(path);
  const typed = <T>(path: string, read: () => T): T => {
    try {
      return read();
    } catch (error) {
      throw fromSystemError("read", path, error);
    }
  };
  const readFileInto = (path: string): Buffer => typed(path, () => warm.readFile(path, taken(path)));
  return {
    ...host,
    readFileInto,
    // A warm search reads each file whole, from what it keeps: one piece.
    readPieces: (path, scratch, each) => {
      each(readFileInto(path), true);
      return scratch;
    },
    readScreened: (path, grams) => typed(path, () => warm.readScreened(path, taken(path), grams)),
    keepsReads: true,
    finish: () => job?.finish(),
  };
}

/** `host` with its whole-file reads served from `warm`, for searches that name no files ahead (the context's host). */
export const warmFileHost = (host: FileHost, warm: WarmCache): FileHost => warmSearchHost(host, warm, []);
