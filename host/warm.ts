// What a long-lived runtime keeps between searches: directory listings and file contents, each trusted only while
// the stat that vouched for it still holds. A listing is checked by its directory's stat (an entry created, deleted
// or renamed changes the directory's times); a file by its own (size, modification and change times, inode, device).
// The change time cannot be set back by a user process, so a rewrite that restores the size and the modification
// time is still seen. Timestamps are coarse (a kernel tick): an entry whose change time is too recent to rule out a
// second change within the same tick is not kept (git's "racily clean" files), so the next search reads it again.
import { type Dirent, readdirSync, readFileSync, type Stats, statSync } from "node:fs";
import { byName, type FileHost } from "./files.ts";

/** Bytes of file contents kept by default: past it, what does not fit is read from disk each time. */
export const DEFAULT_WARM_CAP_BYTES = 256 * 1024 * 1024;
/** How recent a change time must be for the entry not to be trusted: well over any kernel's timestamp tick. */
const RACY_MS = 2000;

/** What identifies one version of a file or directory on disk. */
const stampOf = (stats: Stats): string => `${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.ino}:${stats.dev}`;

/** Whether an entry read now may be trusted later: its last change is old enough that no second one can share it. */
const settled = (stats: Stats): boolean => Date.now() - stats.ctimeMs > RACY_MS;

interface Kept<T> {
  stamp: string;
  value: T;
}

/** The warm state of one runtime; every read stats what it returns, so nothing stale is ever handed out. */
export function createWarmCache(capBytes: number = DEFAULT_WARM_CAP_BYTES) {
  const listings = new Map<string, Kept<Dirent[]>>();
  const contents = new Map<string, Kept<Buffer>>();
  let held = 0;

  const forget = (path: string): void => {
    const kept = contents.get(path);
    if (kept) held -= kept.value.length;
    contents.delete(path);
  };
  /** Forgets everything kept at or below `path`: what a listing no longer holds. */
  const forgetBelow = (path: string): void => {
    forget(path);
    listings.delete(path);
    const prefix = `${path}/`;
    for (const key of contents.keys()) if (key.startsWith(prefix)) forget(key);
    for (const key of listings.keys()) if (key.startsWith(prefix)) listings.delete(key);
  };

  return {
    /** A directory's entries in path order, as readdirSync gives them; throws as it does. */
    readdir(dir: string): Dirent[] {
      const stats = statSync(dir);
      const stamp = stampOf(stats);
      const kept = listings.get(dir);
      if (kept?.stamp === stamp) return kept.value;
      const dirents = readdirSync(dir, { withFileTypes: true }).sort(byName);
      if (kept) {
        // Names gone from the directory take what was kept of them along.
        const names = new Set(dirents.map((dirent) => dirent.name));
        for (const old of kept.value) if (!names.has(old.name)) forgetBelow(`${dir === "/" ? "" : dir}/${old.name}`);
      }
      if (settled(stats)) listings.set(dir, { stamp, value: dirents });
      else listings.delete(dir);
      return dirents;
    },
    /** A file's bytes, as readFileSync gives them; throws as it does. The buffer is shared: never write to it. */
    readFile(path: string): Buffer {
      const stats = statSync(path);
      const stamp = stampOf(stats);
      const kept = contents.get(path);
      if (kept?.stamp === stamp) return kept.value;
      forget(path);
      const bytes = readFileSync(path);
      // Kept only when it is the version the stat described, it cannot hide a second change, and it fits the cap.
      if (bytes.length === stats.size && settled(stats) && held + bytes.length <= capBytes) {
        contents.set(path, { stamp, value: bytes });
        held += bytes.length;
      }
      return bytes;
    },
    /** Bytes of file contents kept now. */
    heldBytes: (): number => held,
  };
}

/** The warm state of one runtime. */
export type WarmCache = ReturnType<typeof createWarmCache>;

/** `host` with its whole-file reads for searches served from `warm`. */
export const warmFileHost = (host: FileHost, warm: WarmCache): FileHost => ({ ...host, readFileInto: (path) => warm.readFile(path), keepsReads: true });
