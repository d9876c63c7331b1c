// Real file I/O behind one interface, so bindings never touch `fs` and another backend can stand in.
// Synchronous on purpose: on the machines we measured, sync reads are several times faster than the thread pool.
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { fromSystemError, GgError } from "./errors.ts";
import { makeMissing } from "./folders.ts";
import type { GramQuery } from "./grams.ts";

/** What a path names, after following symlinks. */
export type EntryKind = "file" | "directory" | "other";

/** The facts about one path the tools need. */
export interface FileStat {
  kind: EntryKind;
  /** Size in bytes. */
  size: number;
}

/** One directory entry; symlinks are reported as what they point to. */
export interface DirEntry {
  name: string;
  kind: EntryKind;
  /** True when the entry is a symbolic link (walks do not descend through them). */
  symlink: boolean;
}

/** A window of whole lines read from a file, cut by a byte ceiling when needed. */
export interface LineWindow {
  /** The bytes of the window, line endings included. */
  bytes: Buffer;
  /** Lines in the whole file: a trailing newline ends the last line rather than starting one. */
  totalLines: number;
  /** 1-based number of the first line in the window. */
  firstLine: number;
  /** 1-based number of the last line in the window, whole or cut. */
  lastLine: number;
  /**
   * "lines": the byte ceiling dropped whole lines; "ending": it left out only `lastLine`'s line ending, the line's text
   * is whole; "line": it cut `lastLine`'s text short.
   */
  cut: "none" | "lines" | "ending" | "line";
  /** Bytes of `lastLine` when `cut` is "line". */
  cutLineBytes: number;
}

/** What a call is about to touch, as the kernel resolved it. */
export interface Touched {
  /** Its real path: the file's, or for a file yet to be made, its folder's joined with its name. */
  real: string;
  /** Its names (hard links): 0 for a file yet to be made, 1 for anything but a regular file. */
  links: number;
}

/** Judges what a call is about to touch; throws (a `denied` error) where the rules forbid it. */
export type TouchCheck = (touched: Touched) => void;

/** The file operations the filesystem calls are written against. */
export interface FileHost {
  /** Stats `path`, following symlinks; `action` words the error ("read", "list"). */
  stat(path: string, action?: string): FileStat;
  /** Reads a whole file. */
  readFile(path: string): Buffer;
  /**
   * Reads a file for a search into `scratch` when it fits, else into a new buffer; the result lives until the next
   * call. Bounded: a regular file is read up to its stat's size, one that stats as empty up to 16 MiB, anything else
   * refused; a binary file (a NUL in its first 8 KiB) comes back as its first read alone. `stated` gets the stat of
   * the open file, taken before the read.
   */
  readFileInto(path: string, scratch: Buffer, stated?: (stats: Stats) => void): Buffer;
  /**
   * Reads a file for a search as readFileInto does, but one larger than `scratch` in pieces of whole lines through it
   * so that it takes no fresh memory: `each` gets each piece, and whether it is the last, until it returns false; the
   * first piece of a binary file is its head alone. Returns the buffer to use next (larger when a line outgrew it).
   */
  readPieces?(path: string, scratch: Buffer, each: (piece: Buffer, last: boolean) => boolean, stated?: (stats: Stats) => void): Buffer;
  /** True when readFileInto may return a buffer the host keeps (a warm cache's): it must not become a scratch. */
  keepsReads?: boolean;
  /** False when what the host keeps shows the file lacks one of `grams`: a search skips it unread. */
  mayHold?(path: string, grams: GramQuery): boolean;
  /** Reads at most `bytes` bytes from the start of a file. */
  readHead(path: string, bytes: number): Buffer;
  /** Reads lines `first`..`first + count - 1` (to the end when `count` is undefined), at most `maxBytes` bytes. */
  readLines(path: string, first: number, count: number | undefined, maxBytes: number): LineWindow;
  /**
   * Replaces or creates a file, creating parents, keeping its mode and (where permitted) its owner: atomically by a
   * temp file renamed over it, except a file with several hard links, which is rewritten in place to keep them.
   * `check` judges the file as the write reaches it (its folder held open from then on) before anything is made.
   */
  writeAtomic(path: string, data: Uint8Array, check?: TouchCheck): { created: boolean };
  /**
   * Runs `use` with a path naming the file at `path` as opened once: `check` judges that file (its real path, its
   * links) first, and a later swap of a folder on `path` cannot change what `use` reads through it.
   */
  readHeld<T>(path: string, check: TouchCheck, use: (held: string) => T): T;
  /** Lists a directory in path order. */
  readDir(path: string): DirEntry[];
}

const CHUNK = 1 << 20;
// One read buffer for the line scans: they are synchronous, so it is never shared, and a read allocates nothing.
const chunk = Buffer.allocUnsafe(CHUNK);

const kindOf = (stats: { isFile(): boolean; isDirectory(): boolean }): EntryKind =>
  stats.isFile() ? "file" : stats.isDirectory() ? "directory" : "other";

/** Compares names by UTF-16 code units: the "path order" of every listing. */
export const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function withFd<T>(path: string, action: string, use: (fd: number) => T, flags: string | number = "r"): T {
  let fd: number;
  try {
    fd = openSync(path, flags);
  } catch (error) {
    throw fromSystemError(action, path, error);
  }
  try {
    return use(fd);
  } catch (error) {
    throw fromSystemError(action, path, error);
  } finally {
    closeSync(fd);
  }
}

/** Bytes at the start of a file looked at for a NUL byte, which marks it binary (as git and grep decide). */
export const BINARY_HEAD_BYTES = 8192;
/** Bytes a search reads of a file whose stat gives no size (procfs and sysfs files stat as empty): past it, it fails. */
const UNSIZED_READ_MAX_BYTES = 16 << 20;

/**
 * Bytes of the first read of a searched file larger than its buffer, and of the buffer when the caller lends none
 * (most source files in one read): enough to tell a binary file.
 */
const FIRST_READ_BYTES = 64 << 10;

/** True when the first bytes of a file hold a NUL: the file is binary, and a search takes nothing from it. */
export const binaryHead = (bytes: Buffer): boolean => bytes.subarray(0, BINARY_HEAD_BYTES).includes(0);

/** The refusal of `action` on something that is not a regular file (a device, FIFO or socket), with the way round it. */
export const notRegular = (path: string, action = "read"): GgError =>
  new GgError("invalid-argument", `Cannot ${action} ${path}: it is not a regular file (a device, FIFO or socket); use the shell with a bound, such as head -c 65536`);

/**
 * Reads a regular file for a search, never more than its stat says (a file growing meanwhile is read as it was), and
 * a file that stats as empty up to {@link UNSIZED_READ_MAX_BYTES}: a read that never ends (/proc/self/pagemap) is
 * bounded. The first read is the whole file when it fits `scratch` (or a small buffer), else its first 64 KiB; when
 * its head is binary, that read alone comes back and the rest is not read. A file larger than the buffer moves to one
 * of the file's size.
 */
function readSearched(fd: number, path: string, scratch?: Buffer, stats = fstatSync(fd)): Buffer {
  if (!stats.isFile()) throw notRegular(path);
  // One byte past the cap tells a file that did not end from one that ended just there.
  const most = stats.size > 0 ? stats.size : UNSIZED_READ_MAX_BYTES + 1;
  let buffer = scratch ?? Buffer.allocUnsafe(Math.min(most, FIRST_READ_BYTES));
  let length = 0;
  // A file that fits is read in one go; a larger one's head first, so a large binary file costs one small read.
  for (let wanted = most <= buffer.length ? most : FIRST_READ_BYTES; ; wanted = most) {
    // Past the head, a file larger than the buffer moves to one of its size, so only the head is copied (fresh
    // memory is costly to touch: a copy of the whole buffer cost more than the file's read).
    if (length === buffer.length || (length > 0 && wanted > buffer.length && stats.size > 0)) {
      const grown = Buffer.allocUnsafe(stats.size > 0 ? most : Math.min(most, buffer.length * 2));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const end = Math.min(wanted, buffer.length);
    const read = fill(fd, buffer, length, end);
    if (length === 0 && binaryHead(buffer.subarray(0, read))) return buffer.subarray(0, read);
    length = read;
    // Short of what was asked: the file ended.
    if (length < end || length === most) break;
  }
  if (stats.size === 0 && length > UNSIZED_READ_MAX_BYTES) {
    throw new GgError("over-cap", `Cannot read ${path}: it stats as empty and did not end within ${UNSIZED_READ_MAX_BYTES} bytes (a virtual file such as one of /proc); read a bounded part of it from the shell, such as head -c 65536`);
  }
  return buffer.subarray(0, length);
}

/**
 * {@link readSearched} of a file larger than `buffer`, in pieces of whole lines through it (touching fresh memory costs
 * more than reading the file): the head alone first, so a large binary file costs one small read, then the buffer
 * filled again and again, the part of a line it cut short carried to the next piece. A line longer than the buffer
 * moves to a buffer twice as large, which is returned.
 */
function readInPieces(fd: number, size: number, buffer: Buffer, each: (piece: Buffer, last: boolean) => boolean): Buffer {
  let held = fill(fd, buffer, 0, Math.min(FIRST_READ_BYTES, buffer.length));
  let left = size - held;
  if (binaryHead(buffer.subarray(0, held))) {
    each(buffer.subarray(0, held), true);
    return buffer;
  }
  for (;;) {
    const wanted = Math.min(buffer.length - held, left);
    const read = fill(fd, buffer, held, held + wanted) - held;
    held += read;
    left -= read;
    // Read to its stat's size, or shorter: the file ended.
    const ended = left === 0 || read < wanted;
    const cut = ended ? held : buffer.lastIndexOf(10, held - 1) + 1;
    if (cut === 0) {
      const grown = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(grown, 0, 0, held);
      buffer = grown;
      continue;
    }
    if (!each(buffer.subarray(0, cut), ended) || ended) return buffer;
    buffer.copyWithin(0, cut, held);
    held -= cut;
  }
}

/** Reads into buffer[from, to) until it is full or the file ends; the length read up to. */
function fill(fd: number, buffer: Buffer, from: number, to: number): number {
  let length = from;
  for (let n = -1; length < to && n !== 0; length += n) n = readSync(fd, buffer, length, to - length, null);
  return length;
}

/**
 * Reads a regular file to its end, starting in `buffer`; a file that outgrows it moves to a buffer sized by fstat.
 * A regular file's read comes back short only at its end, which saves the read that would return 0.
 */
function readToEnd(fd: number, buffer: Buffer): Buffer {
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(fstatSync(fd).size + 1, buffer.length * 2));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const wanted = buffer.length - length;
    const n = readSync(fd, buffer, length, wanted, null);
    length += n;
    if (n < wanted) return buffer.subarray(0, length);
  }
}

// One byte of slack, so a file read whole is known to be at its end without a second buffer.
const readAll = (fd: number): Buffer => readToEnd(fd, Buffer.allocUnsafe(fstatSync(fd).size + 1));

/** Index just past the last whole UTF-8 character in `bytes[0, end)`. */
function utf8Boundary(bytes: Buffer, end: number): number {
  let lead = end - 1;
  while (lead >= 0 && end - lead < 4 && ((bytes[lead] ?? 0) & 0xc0) === 0x80) lead--;
  if (lead < 0) return end;
  const byte = bytes[lead] ?? 0;
  const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  return end - lead >= need ? end : lead;
}

function readLines(fd: number, path: string, first: number, count: number | undefined, maxBytes: number): LineWindow {
  const lastWanted = count === undefined ? Infinity : first + count - 1;
  let newlines = 0;
  let start = first === 1 ? 0 : -1;
  let end = -1;
  let size = 0;
  let lastByte = -1;
  for (;;) {
    const n = readSync(fd, chunk, 0, CHUNK, size);
    if (n === 0) break;
    const view = chunk.subarray(0, n);
    for (let i = view.indexOf(10); i !== -1; i = view.indexOf(10, i + 1)) {
      newlines++;
      if (newlines === first - 1) start = size + i + 1;
      if (newlines === lastWanted) end = size + i + 1;
    }
    lastByte = view[n - 1] ?? -1;
    size += n;
  }
  const totalLines = newlines + (size > 0 && lastByte !== 10 ? 1 : 0);
  if (end === -1) end = size;
  if (start === -1 || first > Math.max(totalLines, 1)) {
    throw new GgError(
      "invalid-argument",
      `Cannot read ${path} from offset ${first}: the file has ${totalLines} line${totalLines === 1 ? "" : "s"}; use an offset from 1 to ${Math.max(totalLines, 1)}`,
    );
  }
  const lastLine = Math.min(lastWanted, totalLines);
  const length = end - start;
  const bytes = Buffer.allocUnsafe(Math.min(length, maxBytes));
  let got = 0;
  while (got < bytes.length) {
    const n = readSync(fd, bytes, got, bytes.length - got, start + got);
    if (n === 0) break;
    got += n;
  }
  const window = bytes.subarray(0, got);
  if (length <= maxBytes) return { bytes: window, totalLines, firstLine: first, lastLine, cut: "none", cutLineBytes: 0 };
  const lastNewline = window.lastIndexOf(10);
  if (lastNewline !== -1) {
    const kept = window.subarray(0, lastNewline + 1);
    let lines = 0;
    for (let i = kept.indexOf(10); i !== -1; i = kept.indexOf(10, i + 1)) lines++;
    return { bytes: kept, totalLines, firstLine: first, lastLine: first + lines - 1, cut: "lines", cutLineBytes: 0 };
  }
  // The first line alone is over the ceiling: measure it, then keep its head up to a character boundary.
  let lineBytes = got;
  let ended = false;
  let lastLineByte = window[got - 1];
  for (;;) {
    const n = readSync(fd, chunk, 0, CHUNK, start + lineBytes);
    if (n === 0) break;
    const nl = chunk.subarray(0, n).indexOf(10);
    if (nl !== -1) {
      if (nl > 0) lastLineByte = chunk[nl - 1];
      lineBytes += nl;
      ended = true;
      break;
    }
    lastLineByte = chunk[n - 1];
    lineBytes += n;
  }
  // A line whose text fits with only its ending (\n or \r\n) left out is whole, not cut.
  const textBytes = lineBytes - (ended && lastLineByte === 13 ? 1 : 0);
  if (textBytes <= got) {
    return { bytes: window.subarray(0, textBytes), totalLines, firstLine: first, lastLine: first, cut: "ending", cutLineBytes: 0 };
  }
  return {
    bytes: window.subarray(0, utf8Boundary(window, window.length)),
    totalLines,
    firstLine: first,
    lastLine: first,
    cut: "line",
    cutLineBytes: lineBytes,
  };
}

/**
 * Opens `path` for a search's read: without blocking, so a FIFO put in a file's place is refused rather than waited on;
 * `use` gets the open file and its stat (which `stated` is told first), errors typed.
 */
const searchedFd = <T>(path: string, stated: ((stats: Stats) => void) | undefined, use: (fd: number, stats: Stats) => T): T =>
  withFd(
    path,
    "read",
    (fd) => {
      const stats = fstatSync(fd);
      stated?.(stats);
      return use(fd, stats);
    },
    constants.O_RDONLY | constants.O_NONBLOCK,
  );

/** A file as a search reads it (see readSearched), errors typed. */
export const readSearchedFile = (path: string, scratch?: Buffer, stated?: (stats: Stats) => void): Buffer =>
  searchedFd(path, stated, (fd, stats) => readSearched(fd, path, scratch, stats));

/** {@link FileHost.readPieces} on the real file system. */
const readSearchedPieces = (path: string, scratch: Buffer, each: (piece: Buffer, last: boolean) => boolean, stated?: (stats: Stats) => void): Buffer =>
  searchedFd(path, stated, (fd, stats) => {
    // A file that fits is read whole, as readFileInto reads it (also one that stats as empty: procfs).
    if (!stats.isFile() || stats.size <= scratch.length) {
      const bytes = readSearched(fd, path, scratch, stats);
      each(bytes, true);
      return bytes.buffer === scratch.buffer ? scratch : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.buffer.byteLength - bytes.byteOffset);
    }
    return readInPieces(fd, stats.size, scratch, each);
  });

/** Bytes a file name may take (NAME_MAX on Linux and the common file systems). */
const NAME_MAX = 255;

/**
 * A temp file of gg's own: `.<name>.gg-<writer pid>-<12 hex digits>.tmp`. The pid says whose it is, so a later write
 * beside it can tell one left by a writer killed mid-write from one still being written.
 */
const TEMP_NAME = /^\..*\.gg-([1-9][0-9]{0,9})-[0-9a-f]{12}\.tmp$/s;

/** A fresh temp name beside `name`, within NAME_MAX bytes: a long name is shortened on a character boundary. */
function tempName(name: string): string {
  // Math.random, not node:crypto: loading crypto costs every gg process a few ms, and an exclusive create settles a clash.
  const suffix = `.gg-${process.pid}-${Math.floor(Math.random() * 2 ** 48).toString(16).padStart(12, "0")}.tmp`;
  const bytes = Buffer.from(name, "utf8");
  const room = NAME_MAX - 1 - Buffer.byteLength(suffix);
  const kept = bytes.length <= room ? name : bytes.subarray(0, utf8Boundary(bytes, room)).toString("utf8");
  return `.${kept}${suffix}`;
}

/** True when process `pid` is gone: a signal 0 to it finds no such process (EPERM means it lives, as another user's). */
function isDead(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

// A directory is swept at most this often per process: a write beside thousands of entries then lists them rarely.
const SWEEP_EVERY_MS = 10_000;
// A temp file is stale only once unchanged this long: a pid can look dead from another PID namespace (a container
// sharing the folder), whose writer is still writing and so keeps its file's mtime fresh.
const STALE_MS = 60_000;
const swept = new Map<string, number>();

/**
 * Removes from `dir` (known by its real path `key`) the temp files gg writers left when they were killed mid-write: only names gg gives its own
 * temp files, and only those whose writer pid is dead and not this process, unchanged for a minute. Best effort: a
 * failure changes nothing.
 */
function sweepTempFiles(dir: string, key = dir): void {
  const now = Date.now();
  if (now - (swept.get(key) ?? -Infinity) < SWEEP_EVERY_MS) return;
  if (swept.size >= 4096) swept.clear();
  swept.set(key, now);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(TEMP_NAME.exec(name)?.[1]);
    if (!pid || pid === process.pid || !isDead(pid)) continue;
    try {
      const stat = lstatSync(`${dir}/${name}`);
      if (!stat.isFile() || now - stat.mtimeMs < STALE_MS) continue;
      unlinkSync(`${dir}/${name}`);
    } catch {
      // Gone already (another writer swept it), or not ours to remove.
    }
  }
}

/** The error for ENOENT on creating an entry in `dir` when `dir` exists: its file system (/proc, /sys) makes only its own. */
const noNewEntries = (action: string, path: string, dir: string, entries: string): GgError =>
  new GgError(
    "permission-denied",
    `Cannot ${action} ${path}: ${dir} accepts no new ${entries} (a virtual file system such as /proc or /sys makes only its own); write somewhere else, or change a file it has in place from the shell`,
  );

/** What a path that is neither a file nor a directory is, for a message. */
const specialKind = (stats: Stats): string =>
  stats.isFIFO() ? "a FIFO (named pipe)" : stats.isSocket() ? "a socket" : stats.isCharacterDevice() ? "a character device" : stats.isBlockDevice() ? "a block device" : "a special file";

function writeAll(fd: number, data: Uint8Array): void {
  let written = 0;
  while (written < data.length) written += writeSync(fd, data, written, data.length - written);
}

/** Gives the temp file the replaced file's owner and mode, so the rename changes only the content. */
function keepOwnerAndMode(fd: number, original: Stats): void {
  try {
    // Before the chmod: a chown clears the set-user-ID and set-group-ID bits.
    fchownSync(fd, original.uid, original.gid);
  } catch (error) {
    // Only root may give a file away (EPERM), and an owner outside this user namespace cannot be set (EINVAL):
    // the file then becomes the writer's own, as an editor's save would make it.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EPERM" && code !== "EINVAL") throw error;
  }
  // open() applied the umask; the mode must survive exactly.
  fchmodSync(fd, original.mode & 0o7777);
}

/**
 * Linux's O_PATH: a folder held to reach what is in it, which needs no permission to read the folder (a write needs
 * only to write and search it). Not among Node's constants; this is its number on x86-64 and arm64.
 */
const O_PATH = 0o10000000;

/** The path that names what descriptor `fd` holds, whatever becomes of the path it was opened by (Linux's /proc). */
const heldPath = (fd: number): string => `/proc/self/fd/${fd}`;

/** `error` with `held` (a descriptor's path) in its message named `path` instead, as the caller gave it. */
const named = (error: unknown, held: string, path: string): unknown =>
  error instanceof GgError && error.message.includes(held) ? new GgError(error.code, error.message.replaceAll(held, path)) : error;

/**
 * Runs `use` on `path` held open: `use` gets a path naming the opened file itself (/proc/self/fd/N), so a folder on
 * `path` swapped for a link after `check` judged the file (its real path, its hard links) cannot change which file
 * `use` reads. Opened without blocking, so a FIFO is not waited on.
 */
function readHeld<T>(path: string, check: TouchCheck, use: (held: string) => T): T {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw fromSystemError("read", path, error);
  }
  const held = heldPath(fd);
  try {
    const stats = fstatSync(fd);
    check({ real: readlinkSync(held), links: stats.isFile() ? stats.nlink : 1 });
    return use(held);
  } catch (error) {
    throw named(error, held, path);
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens folder `dir` for a write of `path` (its file `name`), making what is missing of it through the nearest folder
 * that exists, held open: `check` judges the real path the file will have first, so a folder swapped for a link
 * cannot take the write (or a folder it makes) elsewhere. Returns the descriptor.
 */
function heldFolder(dir: string, path: string, name: string, check?: TouchCheck): number {
  let base = dir;
  let rest = "";
  let fd: number | undefined;
  while (fd === undefined) {
    try {
      fd = openSync(base, O_PATH | constants.O_DIRECTORY);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || dirname(base) === base) throw fromSystemError("write", path, error);
      rest = rest === "" ? basename(base) : `${basename(base)}/${rest}`;
      base = dirname(base);
    }
  }
  if (rest === "") return fd;
  const held = heldPath(fd);
  try {
    check?.({ real: `${readlinkSync(held)}/${rest}/${name}`, links: 0 });
    makeMissing(`${held}/${rest}`);
    return openSync(`${held}/${rest}`, O_PATH | constants.O_DIRECTORY);
  } catch (error) {
    const failed = error as NodeJS.ErrnoException;
    // The parent exists (it was found or just made), so ENOENT means its file system makes no new entries.
    if (failed.syscall === "mkdir" && failed.code === "ENOENT") throw noNewEntries("create the parent directory of", path, dirname((failed.path ?? held).replace(held, base)), "directories");
    throw named(failed.syscall === undefined ? error : fromSystemError("create the parent directory of", path, error), held, base);
  } finally {
    closeSync(fd);
  }
}

/** The file a write of `path` replaces: `path`, or where a symbolic link there leads (written through, as an editor does). */
function writeTarget(path: string): string {
  try {
    if (!lstatSync(path).isSymbolicLink()) return path;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return path;
    throw fromSystemError("write", path, error);
  }
  try {
    return realpathSync(path);
  } catch {
    return resolve(dirname(path), readlinkSync(path));
  }
}

/** What is at `at` (not following a link), or undefined when nothing is; a folder or a special file is refused. */
function replaced(at: string, path: string): Stats | undefined {
  let existing: Stats;
  try {
    existing = lstatSync(at);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw fromSystemError("write", path, error);
  }
  if (existing.isSymbolicLink()) throw new GgError("conflict", `Cannot write ${path}: it became a symbolic link while being written; nothing was written; write it again`);
  if (existing.isDirectory()) throw new GgError("invalid-argument", `Cannot write ${path}: it is a directory; name a file inside it`);
  // A rename would replace a FIFO, a socket or a device node with a file, and writing into one may block forever.
  if (!existing.isFile()) throw new GgError("invalid-argument", `Cannot write ${path}: it is ${specialKind(existing)}, not a regular file, and write_file replaces only regular files; write to it from the shell, or pick another path`);
  return existing;
}

/** Rewrites the file at `at` in place (a file with several hard links keeps them all). */
function writeInPlace(at: string, path: string, data: Uint8Array): void {
  try {
    const fd = openSync(at, constants.O_WRONLY | constants.O_NOFOLLOW);
    try {
      writeAll(fd, data);
      ftruncateSync(fd, data.length);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw fromSystemError("write", path, error);
  }
}

/** Writes `data` to a temp file in the folder `held` names, with `existing`'s owner and mode, and renames it to `name`. */
function writeReplacing(held: string, name: string, path: string, data: Uint8Array, existing: Stats | undefined): void {
  const temp = `${held}/${tempName(name)}`;
  let fd: number;
  try {
    fd = openSync(temp, "wx", existing ? existing.mode & 0o7777 : 0o666);
  } catch (error) {
    // The folder exists (it is held), so ENOENT says the temp file cannot be made there, not that a path is missing.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw noNewEntries("write", path, dirname(path), "files, and the write needs one for its temporary copy");
    throw fromSystemError("write", path, error);
  }
  try {
    try {
      writeAll(fd, data);
      if (existing) keepOwnerAndMode(fd, existing);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, `${held}/${name}`);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // The temp file was never created or is already gone.
    }
    throw fromSystemError("write", path, error);
  }
}

/**
 * Writes `data` to `path`, creating parents. A file with one name is replaced atomically: a temp file beside it,
 * given its owner and mode, is renamed over it, so a reader or a crash sees the old content or the new. A file with
 * several hard links is rewritten in place instead: a rename would leave the other names on the old content, and
 * keeping the links is worth more than atomicity there (a crash mid-write can leave that file torn). Its folder is
 * held open from the moment `check` judges the file's real path and links, and every step goes through it.
 */
function writeAtomic(path: string, data: Uint8Array, check?: TouchCheck): { created: boolean } {
  const ending = /\/\.{0,2}$/.exec(path)?.[0];
  if (ending) {
    throw new GgError("invalid-argument", `Cannot write ${path}: the path names a directory (it ends with ${ending}); end it with a file name instead`);
  }
  const target = writeTarget(path);
  const name = basename(target);
  const folder = heldFolder(dirname(target), path, name, check);
  const held = heldPath(folder);
  try {
    const existing = replaced(`${held}/${name}`, path);
    check?.({ real: `${readlinkSync(held)}/${name}`, links: existing?.nlink ?? 0 });
    if (existing && existing.nlink > 1) {
      writeInPlace(`${held}/${name}`, path, data);
      return { created: false };
    }
    // Before the write: what a killed writer left may be the space this one needs.
    sweepTempFiles(held, readlinkSync(held));
    writeReplacing(held, name, path, data, existing);
    return { created: existing === undefined };
  } catch (error) {
    throw named(error, held, dirname(target));
  } finally {
    closeSync(folder);
  }
}

/** The host's real file system. */
export const nodeFileHost: FileHost = {
  stat(path, action = "access") {
    try {
      const stats = statSync(path);
      return { kind: kindOf(stats), size: stats.size };
    } catch (error) {
      throw fromSystemError(action, path, error);
    }
  },
  readFile: (path) => withFd(path, "read", readAll),
  readFileInto: readSearchedFile,
  readPieces: readSearchedPieces,
  readHead: (path, bytes) =>
    withFd(path, "read", (fd) => {
      const buffer = Buffer.allocUnsafe(bytes);
      return buffer.subarray(0, readSync(fd, buffer, 0, bytes, 0));
    }),
  readLines: (path, first, count, maxBytes) => withFd(path, "read", (fd) => readLines(fd, path, first, count, maxBytes)),
  writeAtomic,
  readHeld,
  readDir(path) {
    try {
      const entries = readdirSync(path, { withFileTypes: true }).map((entry): DirEntry => {
        if (!entry.isSymbolicLink()) return { name: entry.name, kind: kindOf(entry), symlink: false };
        let kind: EntryKind = "other";
        try {
          kind = kindOf(statSync(`${path}/${entry.name}`));
        } catch {
          // A dangling link lists as "other".
        }
        return { name: entry.name, kind, symlink: true };
      });
      return entries.sort(byName);
    } catch (error) {
      throw fromSystemError("list", path, error);
    }
  },
};
