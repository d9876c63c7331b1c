// What a long-lived runtime keeps between searches: directory listings and file contents, each trusted only while
// the stat that vouched for it still holds. A listing is checked by its directory's stat (an entry created, deleted
// or renamed changes the directory's times); a file by its own (size, modification and change times, inode, device).
// The change time cannot be set back by a user process, so a rewrite that restores the size and the modification
// time is still seen. Timestamps are coarse (a kernel tick): an entry whose change time is too recent to rule out a
// second change within the same tick is not trusted (git's "racily clean" files), so the next search reads it again.
// A file also gets a trigram filter, built by the second thread between searches; a file a search skipped unread
// (the thread ruled it out) is kept by its filter alone, under the same rules.
// Past its budget it keeps what pays most, and never trades what a search will read again for what it reads now:
// - the index first: listings (with what the last walk made of each), ignore files, stamps and filters, a few
//   hundred bytes a file that each save a read; contents give way to them, never the other way round, and index
//   entries idle for two searches give way to new ones;
// - contents are kept from a file's second read on, and only the contents of a file idle for two searches give way
//   to others: a search of more than fits keeps what fits and reads the rest as a cold search does, where a
//   least-recently-used cache would evict, file by file, what the next search reads first;
// - what it will not keep it does not build: a read it has no room for goes through the search's own buffer, without
//   the stat that would vouch for it, and the second thread builds no more filters than there is room for.
import { type Dirent, readdirSync, type Stats, statSync } from "node:fs";
import { totalmem } from "node:os";
import { fromSystemError } from "./errors.ts";
import { binaryHead, byName, type FileHost, readSearchedFile } from "./files.ts";
import { createFilterStore, type FilterAt } from "./filters.ts";
import type { GramQuery } from "./grams.ts";
import { secondThread, type TakenStat as Stamp } from "./second.ts";

/**
 * Bytes kept by default (listings, filters and contents, each at its measured cost): a 160th of the machine's memory,
 * at least 64 MiB and at most 1 GiB (150 MiB on a 24 GB machine). Beside what a runner with no warm state holds after
 * the same searches (200-300 MiB), a runner holds about the budget more when filters and contents fill it (402 MiB
 * against 247 after searching ten copies of the bench corpus, 1.6 GB), up to 2.7 times it when a million small files'
 * listings do (702 against 302): bench/scale.ts.
 */
export const DEFAULT_WARM_CAP_BYTES = Math.min(1 << 30, Math.max(64 << 20, Math.floor(totalmem() / 160)));
/** How recent a change time must be for the entry not to be trusted: well over any kernel's timestamp tick. */
const RACY_MS = 2000;
/**
 * What one kept entry costs beside its bytes: its slots in the map and in its directory's index, the entry, its stamp
 * and its key (about 250 bytes measured for a path of 80 characters). So empty files count too.
 */
const ENTRY_BYTES = 256;
/** What one entry of a kept listing costs beside its name and path: its object and slot (172 bytes measured in all). */
const LISTED_BYTES = 64;
/** What a kept buffer costs beside its bytes: its object and backing store (about 110 bytes measured). */
const ARRAY_BYTES = 128;
/** Bytes of the smallest filter (16 words): what a file's filter costs at least. */
const SMALLEST_FILTER_BYTES = 64;
/** Files of a search's batch looked at to tell what the warm state holds of it. */
const SAMPLED_FILES = 256;
/** Searches an entry outlives unused before something else may take its place. */
const IDLE_SEARCHES = 2;

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
  /** The search that last used it (or during or after which it was kept). */
  seen: number;
  cost: number;
  bytes?: Buffer;
  /** True for the bytes of an ignore file: part of the index, which contents give way to. */
  rules?: boolean;
  /**
   * The trigram filter of the file, once the second thread has built it; a file the search skipped unread (the thread
   * ruled it out) is kept with its filter alone, and read from disk when a pattern's trigrams pass it.
   */
  grams?: FilterAt;
  dirents?: Dirent[];
  /** The absolute path of each of `dirents`: the same strings every walk, so their hashes are computed once. */
  paths?: string[];
  /** What a walk made of the listing, kept with it. */
  memo?: Memo & { cost: number };
}

/** A directory's entries in path order, and the absolute path of each. */
export interface DirListing {
  dirents: Dirent[];
  paths: string[];
  /** What a walk made of the kept listing, and under what (see {@link WarmCache.remember}). */
  memo?: Memo;
}

/** What a walk made of a listing (opaque here), and the key that says when it holds. */
export interface Memo {
  key: string;
  value: unknown;
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

/** Which part of the warm state an entry belongs to: the index (listings, ignore files, filters) or file contents. */
type Part = "index" | "contents";

/** The warm state of one runtime; every read stats what it returns, so nothing stale is ever handed out. */
export function createWarmCache(capBytes: number = DEFAULT_WARM_CAP_BYTES) {
  // One map for both kinds, and the hand that goes round it when room is made (a clock's: each round goes on from where
  // the last one stopped, passing over what it may not take, which a map's live iterator allows).
  const kept = new Map<string, Kept>();
  let hand = kept.entries();
  const store = createFilterStore();
  // Files kept since filters were last asked for, and files the searches skipped unread since then; and whether the
  // second thread is still at the last request (one at a time, so its work never piles up behind a busy runtime).
  let unfiltered = new Set<string>();
  let unread = new Set<string>();
  let filtering = false;
  // The kept paths directly below each directory: what goes when the directory does.
  const children = new Map<string, Set<string>>();
  let held = 0;
  /** Files kept (not listings, nor ignore files): with none, a search's reads need not look. */
  let files = 0;
  /** Bytes of file contents kept (ignore files aside): what the index may take the place of. */
  let contentBytes = 0;
  /** Searches begun; the search during which a round found no room for each part (none is made again before the next). */
  let search = 0;
  const full: Record<Part, number> = { index: -1, contents: -1 };
  /** Reads of the current search that were not kept, for want of room. */
  let declined = 0;
  /** Ends the current search's hold on the second thread's filter work. */
  let release: (() => void) | undefined;

  const contentCost = (bytes: Buffer | number): number => ARRAY_BYTES + (typeof bytes === "number" ? bytes : bytes.length);
  const filterCost = (filter: Uint32Array | FilterAt | undefined): number => (filter ? 4 * ("words" in filter ? filter.words : filter.length) : 0);
  /** Bytes of `entry` that are file contents, which the index may take the place of. */
  const contentOf = (entry: Kept): number => (entry.bytes && !entry.rules ? contentCost(entry.bytes) : 0);
  /** Not used by this search or the one before: something else may take its place. */
  const idle = (entry: Kept): boolean => entry.seen <= search - IDLE_SEARCHES;

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
    contentBytes -= contentOf(entry);
    if (entry.grams) store.free(entry.grams);
    if (!entry.dirents && !entry.rules) files--;
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
  /** Takes a file's contents out of its entry, keeping its filter; an entry without one goes. */
  const shed = (key: string, entry: Kept): void => {
    if (!entry.grams) return drop(key);
    const cost = contentOf(entry);
    delete entry.bytes;
    entry.cost -= cost;
    held -= cost;
    contentBytes -= cost;
  };
  /**
   * Makes room for `cost` more bytes of `part`. For the index: an entry idle for two searches goes, and so do the
   * contents of any file; for contents, only the contents of a file idle for two searches (its stamp and filter stay).
   * A round goes on from where the last one stopped. False when a whole round leaves too little: that part gets no room
   * made again until the next search, only what is free.
   */
  const makeRoom = (cost: number, part: Part): boolean => {
    if (held + cost <= capBytes) return true;
    if (cost > capBytes || full[part] === search) return false;
    for (let round = kept.size; held + cost > capBytes && round > 0; round--) {
      let next = hand.next();
      if (next.done) next = (hand = kept.entries()).next();
      if (next.done) break;
      const [key, entry] = next.value;
      if (part === "index" && idle(entry)) drop(key);
      else if (contentOf(entry) > 0 && (part === "index" || idle(entry))) shed(key, entry);
    }
    if (held + cost <= capBytes) return true;
    full[part] = search;
    return false;
  };
  /** Whether the second thread is building (or is to build) filters: the index is not complete. */
  const indexing = (): boolean => filtering || ((unfiltered.size > 0 || unread.size > 0) && secondThread.running());
  /**
   * Whether an entry of `part` may still be kept: there is room, or a round may make some. Contents wait for the index
   * to be built, which would take their place.
   */
  const roomFor = (part: Part): boolean => (part === "index" || !indexing()) && (held + ENTRY_BYTES + ARRAY_BYTES <= capBytes || full[part] !== search);
  /** Keeps `entry` under `key` in place of what was there, if room can be made for it. */
  const keep = (key: string, entry: Kept, part: Part): boolean => {
    drop(key);
    if (!makeRoom(entry.cost, part)) return false;
    kept.set(key, entry);
    held += entry.cost;
    contentBytes += contentOf(entry);
    if (!entry.dirents && !entry.rules) files++;
    // Indexed all the way up, so that forgetting any directory above reaches it.
    for (let path = pathOf(key); ; ) {
      const parent = parentOf(path);
      let siblings = children.get(parent);
      if (!siblings) children.set(parent, (siblings = new Set()));
      if (siblings.has(path) || parent === path) break;
      siblings.add(path);
      path = parent;
    }
    return true;
  };
  /** Adds `cost` bytes of `part` to the kept `entry` under `key`, if room can be made; false when it cannot. */
  const grow = (key: string, entry: Kept, cost: number, part: Part): boolean => {
    // Making room may have taken the entry itself (an entry is never idle once used, but may be shed).
    if (!makeRoom(cost, part) || kept.get(key) !== entry) return false;
    entry.cost += cost;
    held += cost;
    return true;
  };
  /** The kept `entry` if `stats` still vouch for it, marked used. */
  const fresh = (entry: Kept | undefined, stats: Stamp): Kept | undefined => {
    if (!entry?.trusted || !sameStamp(entry.stamp, stats)) return undefined;
    entry.seen = search;
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
    // What the index may still take: what is free, and what contents hold.
    const room = capBytes - (held - contentBytes);
    const smallest = ENTRY_BYTES + SMALLEST_FILTER_BYTES;
    const paths: string[] = [];
    const stamps: (Stamp | undefined)[] = [];
    for (const path of unfiltered) {
      const entry = kept.get(path);
      if (!entry || entry.grams || entry.dirents || entry.rules) continue;
      paths.push(path);
      stamps.push(entry.stamp);
    }
    // A file skipped unread may have been kept since (its filter came in from an earlier request).
    for (const path of unread) {
      if (kept.has(path)) continue;
      paths.push(path);
      stamps.push(undefined);
    }
    // With no room for a filter, nothing is asked for: the index is as complete as it can be.
    if (paths.length === 0 || room <= smallest) {
      unfiltered = new Set();
      unread = new Set();
      return;
    }
    const posted = secondThread.filter(paths, stamps, RACY_MS, { bytes: room, perNew: ENTRY_BYTES }, (filters, last) => {
      for (const { index, filter, stamp } of filters) {
        const path = paths[index] as string;
        const entry = kept.get(path);
        if (stamps[index] === undefined && !(entry && sameStamp(entry.stamp, stamp))) {
          // A file skipped unread, kept with its filter alone, under the stat the thread read it with (settled then).
          const alone: Kept = { stamp: stampOf(stamp), trusted: true, seen: search, cost: ENTRY_BYTES + filterCost(filter) };
          if (keep(path, alone, "index")) alone.grams = store.put(filter);
          continue;
        }
        // Built from the version this entry holds, or from none of it.
        if (!entry || entry.grams || !entry.trusted || !sameStamp(entry.stamp, stamp)) continue;
        if (grow(path, entry, filterCost(filter), "index")) entry.grams = store.put(filter);
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
    unfiltered = new Set();
    unread = new Set();
  }

  /**
   * The bytes of a file as a search reads them, from what is kept (checked by `taken`, or a stat); undefined when the
   * caller is to read it itself: nothing is kept of it (contents are kept from the second read of a file on, see
   * {@link seen}; an ignore file from its first), or only its stamp or filter and there is no room for its contents.
   */
  function read(path: string, taken: Stamp | undefined, part: Part): Buffer | undefined {
    if (files === 0 && part === "contents") return undefined;
    const entry = kept.get(path);
    // Used, whatever its version: what a search touches is not what gives way. One still without its filter (a request
    // that ran out of room left it out) is asked for again.
    if (entry) entry.seen = search;
    if (entry && !entry.grams && !entry.rules) unfiltered.add(path);
    if (!entry && part === "contents") return undefined;
    // Not statted when nothing kept can serve the read and nothing read would be kept.
    if (entry && !entry.bytes && !roomFor(part)) {
      declined++;
      return undefined;
    }
    const stats = taken ?? stat(path);
    const hit = fresh(entry, stats);
    if (hit?.bytes) return hit.bytes;
    if (entry && !hit) {
      drop(path);
      if (part === "contents") return undefined;
    }
    // Room made before the read, so a read that will not be kept takes no fresh memory: the caller reads it.
    const cost = contentCost(stats.size) + (hit ? 0 : ENTRY_BYTES);
    if (!settled(stats) || !makeRoom(cost, part)) {
      declined++;
      return undefined;
    }
    const bytes = readSearchedFile(path);
    // Kept only when it is the version the stat described (or a binary file's head, all a search needs of it): a
    // stamp or filter kept alone is of that version too.
    const whole = bytes.length === stats.size || (stats.size > bytes.length && binaryHead(bytes));
    if (!whole) {
      drop(path);
      return bytes;
    }
    if (!hit) keep(path, { stamp: stampOf(stats), trusted: true, seen: search, cost: ENTRY_BYTES + contentCost(bytes), bytes, rules: part === "index" }, part);
    else if (grow(path, hit, contentCost(bytes), part)) {
      hit.bytes = bytes;
      contentBytes += contentOf(hit);
    }
    return bytes;
  }

  return {
    /** A directory's entries in path order, as readdirSync gives them, and their paths; throws as readdirSync does. */
    readdir(dir: string): DirListing {
      const key = dirKey(dir);
      const before = kept.get(key);
      // Nothing kept and no room: listed as a walk without a warm state lists it.
      if (!before && !roomFor("index")) return listing(dir);
      const stats = stat(dir);
      const hit = fresh(before, stats);
      if (hit?.dirents && hit.paths) return { dirents: hit.dirents, paths: hit.paths, memo: hit.memo };
      const dirents = readdirSync(dir, { withFileTypes: true }).sort(byName);
      if (before?.dirents && before.paths) {
        // What vanished, or turned from a directory into something else or back, takes along what was kept of it.
        const now = new Map(dirents.map((dirent) => [dirent.name, dirent.isDirectory()]));
        before.dirents.forEach((old, i) => now.get(old.name) !== old.isDirectory() && forgetBelow(before.paths?.[i] as string));
      }
      const paths = childPaths(dir, dirents);
      const cost = ENTRY_BYTES + dirents.reduce((sum, dirent, i) => sum + LISTED_BYTES + dirent.name.length + (paths[i] as string).length, 0);
      keep(key, { stamp: stampOf(stats), trusted: settled(stats), seen: search, cost, dirents, paths }, "index");
      return { dirents, paths };
    },
    /**
     * Keeps with the listing of `dir`, if it is kept and there is room, what a walk made of it (its visible entries)
     * under `key` (what decides them), `cost` bytes more: the next walk under the same key takes it instead of deciding
     * again. It goes with the listing, when the directory changes.
     */
    remember(dir: string, key: string, value: unknown, cost: number): void {
      const path = dirKey(dir);
      const entry = kept.get(path);
      if (!entry?.dirents) return;
      const before = entry.memo?.cost ?? 0;
      delete entry.memo;
      entry.cost -= before;
      held -= before;
      if (grow(path, entry, cost, "index")) entry.memo = { key, value, cost };
    },
    /**
     * A file's bytes, as a search reads them (FileHost.readFileInto: bounded, a binary file's head alone), kept with the
     * index (ignore files are read through it); throws as it does. The buffer may be shared: never write to it.
     * `taken` is a stat of the file taken since the search began (by the second thread), used instead of a new one.
     */
    readFile: (path: string, taken?: Stamp): Buffer => read(path, taken, "index") ?? readSearchedFile(path),
    /** A file's contents as {@link readFile} reads them, kept if there is room; undefined when nothing is kept of it
     * and there is no room (the caller reads it itself). */
    readContents: (path: string, taken?: Stamp): Buffer | undefined => read(path, taken, "contents"),
    /**
     * Notes a file a search read itself, as the stat of its open file showed it: the first read of a version is kept
     * as its stamp alone (if the index has room), its filter asked for, and its contents kept if it is read again.
     */
    seen(path: string, stats: Stats): void {
      if (!roomFor("index")) {
        declined++;
        return;
      }
      if (kept.has(path) || !stats.isFile() || !settled(stats)) return;
      if (keep(path, { stamp: stampOf(stats), trusted: true, seen: search, cost: ENTRY_BYTES }, "index")) unfiltered.add(path);
      else declined++;
    },
    /** False when the file's kept filter shows it lacks one of `grams`: a search skips it unread. */
    mayHold(path: string, taken: Stamp | undefined, grams: GramQuery): boolean {
      if (files === 0) return true;
      const entry = kept.get(path);
      if (entry) entry.seen = search;
      // A filter that lets the pattern through is not worth a stat: the file is read whatever its version.
      if (!entry?.grams || store.mayHold(entry.grams, grams)) return true;
      const stats = taken ?? stat(path);
      const hit = fresh(entry, stats);
      if (!hit?.grams) {
        drop(path);
        return true;
      }
      return false;
    },
    /** Notes a file a search skipped unread: its filter is asked for with the next ones, if the index has room for it. */
    skippedUnread(path: string): void {
      const entry = files === 0 ? undefined : kept.get(path);
      if (entry) {
        // Used: and one still without its filter (a request that ran out of room left it out) is asked for again.
        entry.seen = search;
        if (!entry.grams && !entry.dirents && !entry.rules) unfiltered.add(path);
      } else if ((unread.size + 1) * (ENTRY_BYTES + SMALLEST_FILTER_BYTES) <= capBytes - (held - contentBytes)) unread.add(path);
    },
    /**
     * True when the warm state can neither serve nor keep any of `paths`: the index has no room, and none of a sample of
     * them is kept. A search of them is then better made as a cold one, without a look-up a file in a map of a million
     * (about a microsecond each: past the budget at a million files, they made warm searches 5-9% slower than cold).
     */
    keepsNoneOf(paths: string[]): boolean {
      if (roomFor("index")) return false;
      if (files === 0) return true;
      const step = Math.max(1, Math.floor(paths.length / SAMPLED_FILES));
      for (let i = 0; i < paths.length; i += step) if (kept.has(paths[i] as string)) return false;
      return true;
    },
    /**
     * True when nine in ten of `paths` or more are answered from what is kept (their contents, or a filter that rules
     * out `grams`): a search of them is better served by the stats of the second thread than by its screens. Files to
     * read from disk are better shared with its screens (it reads and rules out files from the last while the search
     * goes from the first): with the stats, the search would read them alone.
     */
    servesNearlyAll(paths: string[], grams: GramQuery | undefined): boolean {
      if (files * 10 < paths.length * 9) return false;
      // Told from a sample spread over the batch: a look at each cost a search of a million files 0.4 s.
      const step = Math.max(1, Math.floor(paths.length / SAMPLED_FILES));
      let [looked, served] = [0, 0];
      for (let i = 0; i < paths.length; i += step, looked++) {
        const entry = kept.get(paths[i] as string);
        if (entry && (entry.bytes || (grams && entry.grams && !store.mayHold(entry.grams, grams)))) served++;
      }
      return served * 10 >= looked * 9;
    },
    /**
     * A search begins: what it uses is kept over what others used before it, and the second thread's filter work waits
     * for its {@link end}.
     */
    begin(): void {
      search++;
      declined = 0;
      release?.();
      release = secondThread.hold();
    },
    /**
     * The search is over: the thread may build filters again, and is asked for those of the files kept since the last
     * time and of those skipped unread (as they are on disk then), as far as there is room; later searches use them.
     * One request at a time: what comes in meanwhile waits for it.
     */
    end(): void {
      release?.();
      release = undefined;
      filterKept();
    },
    /** Bytes kept now, at their measured cost: listings, ignore files, filters and contents. */
    heldBytes: (): number => held,
    /**
     * What is kept: directory listings, files with their contents, files by their filter alone, and the bytes of
     * contents and of filters; the reads of the last search that were not kept, for want of room; and whether the
     * second thread is building filters (contents wait for it).
     */
    files() {
      const count = { listings: 0, contents: 0, filtersAlone: 0, contentBytes, filterBytes: 0, declined, indexing: indexing() };
      for (const entry of kept.values()) {
        if (entry.dirents) count.listings++;
        else if (entry.bytes) count.contents++;
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
 * vouched for by a stat the second thread took ahead of it when there is one, the rest read as `host` reads them;
 * failures typed as the host's are. `finish` when the search is over.
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
  const kept = (path: string): Buffer | undefined => typed(path, () => warm.readContents(path, taken(path)));
  // A file read from disk is noted as its open file's stat shows it.
  const seen = (path: string) => (stats: Stats) => warm.seen(path, stats);
  return {
    ...host,
    readFileInto: (path, scratch) => kept(path) ?? host.readFileInto(path, scratch, seen(path)),
    // A file kept is read whole, one piece; the others as the host reads them.
    readPieces: (path, scratch, each) => {
      const bytes = kept(path);
      if (bytes) each(bytes, true);
      else if (host.readPieces) return host.readPieces(path, scratch, each, seen(path));
      else each(host.readFileInto(path, scratch, seen(path)), true);
      return scratch;
    },
    mayHold: (path, grams) => typed(path, () => warm.mayHold(path, taken(path), grams)),
    keepsReads: true,
    finish: () => job?.finish(),
  };
}

/** `host` with its whole-file reads served from `warm`, for searches that name no files ahead (the context's host). */
export const warmFileHost = (host: FileHost, warm: WarmCache): FileHost => warmSearchHost(host, warm, []);
