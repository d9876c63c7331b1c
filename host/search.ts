// Scanning files for a search: each file is read into one reused buffer and screened, and a file with a NUL byte
// counts as binary and yields nothing; one with a NUL in its first 8 KiB is known from its first read alone. A search
// of many files shares the work with the process's second thread.
import { GgError } from "./errors.ts";
import { binaryHead, type FileHost } from "./files.ts";
import { clipLine, countNewlines, plural } from "./lines.ts";
import { compileSearch, type LineMatcher } from "./regex.ts";
import { secondThread } from "./second.ts";
import { type WarmCache, warmSearchHost } from "./warm.ts";

/** A matching line of a file. */
export interface LineMatch {
  /** 1-based line number. */
  line: number;
  /** The line without its ending, decoded as UTF-8, at most `clipChars` characters of it. */
  text: string;
  /** Characters of the line beyond `text`. */
  more: number;
}

/** Bytes of the buffer files are read into; larger files get their own. */
const SCRATCH_BYTES = 4 << 20;
/**
 * Bytes of a file matched at once, rounded up to whole lines: a file far larger (past V8's ~512 MB string limit, or
 * the engine's memory) is matched piece by piece, which per-line matching allows.
 */
const SEGMENT_BYTES = 64 << 20;
/** The UTF-8 byte order mark, which is not part of the first line's text (as ripgrep treats it). */
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** The scanning state of one search: the compiled pattern and its read buffer. */
export interface Scanner {
  matcher: LineMatcher;
  scratch: Buffer;
  files: FileHost;
  /** Characters of a matching line kept; the rest are only counted. */
  clipChars: number;
  segmentBytes: number;
  /** True for a file known to hold no match without reading it (the second thread screened it). */
  ruledOut?: (absolute: string) => boolean;
}

/**
 * The read buffer every scanner starts with: searches run one at a time, each to its end, so one buffer serves them
 * all, rather than a fresh 4 MiB each search that the allocator holds on to once freed.
 */
let shared: Buffer | undefined;

/** Compiles `query` (invalid-argument when it is not a valid pattern) and prepares to scan. */
export const createScanner = (query: string, files: FileHost, clipChars: number, segmentBytes = SEGMENT_BYTES): Scanner => ({
  matcher: compileSearch(query),
  scratch: (shared ??= Buffer.allocUnsafe(SCRATCH_BYTES)),
  files,
  clipChars,
  segmentBytes,
});

/** The matching lines of one file (at most `max`); a file with a NUL byte has none. Throws when it cannot be read. */
export function scanFile(scanner: Scanner, absolute: string, max: number): LineMatch[] {
  if (scanner.ruledOut?.(absolute)) return [];
  const { files, matcher } = scanner;
  if (matcher.grams && files.mayHold && !files.mayHold(absolute, matcher.grams)) return [];
  if (!files.readPieces) return scanWhole(scanner, files.readFileInto(absolute, scanner.scratch), max);
  let found: LineMatch[] = [];
  const lines = { before: 0 };
  let first = true;
  scanner.scratch = files.readPieces(absolute, scanner.scratch, (piece, last) => {
    // A file read whole comes as one piece, a binary one as its head alone (which scanWhole finds binary).
    if (first && last) {
      found = scanWhole(scanner, piece, max);
      return false;
    }
    first = false;
    // A NUL anywhere makes the file binary: each piece is looked at, since the earlier ones are gone by the end.
    if (piece.includes(0)) {
      found = [];
      return false;
    }
    if (found.length < max) scanSegment(scanner, piece, max, found, lines);
    if (!last) lines.before += countNewlines(piece);
    return true;
  });
  return found;
}

/** The matching lines of a file held whole: a file with a NUL byte has none. */
function scanWhole(scanner: Scanner, bytes: Buffer, max: number): LineMatch[] {
  if (binaryHead(bytes)) return [];
  const found: LineMatch[] = [];
  const lines = { before: 0 };
  let binary: boolean | undefined;
  for (let from = 0; from < bytes.length && found.length < max; ) {
    const newline = from + scanner.segmentBytes >= bytes.length ? -1 : bytes.indexOf(10, from + scanner.segmentBytes - 1);
    const to = newline === -1 ? bytes.length : newline + 1;
    const segment = bytes.subarray(from, to);
    scanSegment(scanner, segment, max, found, lines);
    // Lines matched first, the NUL looked for after: most files have no match, and need no look.
    if (found.length > 0 && (binary ??= bytes.includes(0))) return [];
    if (to < bytes.length) lines.before += countNewlines(segment);
    from = to;
  }
  return found;
}

/**
 * Adds to `found` the matching lines of `segment`, whole lines of a file after its first `lines.before` (the file's
 * byte order mark left out of its first line), up to `max`.
 */
function scanSegment(scanner: Scanner, segment: Buffer, max: number, found: LineMatch[], lines: { before: number }): void {
  const text = lines.before === 0 && segment.subarray(0, 3).equals(BOM) ? segment.subarray(3) : segment;
  scanner.matcher.scan(text, (line, decoded, start, end) => {
    found.push({ line: lines.before + line, ...clipLine(decoded, start, end, scanner.clipChars) });
    return found.length < max;
  });
}

/** The outcome of searching many files. */
export interface SearchOutcome<File> {
  /** Matches in file order then line order, at most `max`. */
  matches: (LineMatch & { file: File })[];
  /** Files read; unreadable ones are skipped, as grep skips them. */
  searched: number;
}

/**
 * Searches `files` in order for at most `max` matching lines, stopping as soon as it has them. Past `deadline`
 * (epoch ms: the end of a run's budget) it fails with timeout rather than outlive the run.
 */
export function searchFiles<File extends { absolute: string }>(scanner: Scanner, files: Iterable<File>, max: number, deadline?: number): SearchOutcome<File> {
  const outcome: SearchOutcome<File> = { matches: [], searched: 0 };
  for (const file of files) {
    if (deadline !== undefined && outcome.searched % 64 === 63 && Date.now() > deadline) {
      throw new GgError("timeout", `The search was stopped at the run's wall-clock budget after ${plural(outcome.searched, "file")}; search a narrower path, or ask for a larger budget`);
    }
    let found: LineMatch[];
    try {
      found = scanFile(scanner, file.absolute, max - outcome.matches.length);
    } catch {
      continue;
    }
    outcome.searched++;
    for (const match of found) outcome.matches.push({ ...match, file });
    if (outcome.matches.length >= max) break;
  }
  return outcome;
}

/**
 * Files a search of a walk takes at first, doubling each batch up to the most: the second thread works on each batch
 * while it is scanned, and fewer hand-overs leave it more of them.
 */
const BATCH_FILES = [512, 8192];

/**
 * {@link searchFiles} over a walk, `files` taken a batch at a time, each shared with the second thread: it stats the
 * files of a batch `warm` nearly all answers from what it keeps (contents, or filters that rule the pattern out), and
 * screens the others (the files skipped unread are then filtered for the next searches, as far as there is room). A
 * search that has its matches early stops walking, as it would alone.
 */
export function searchWalk<File extends { absolute: string }>(scanner: Scanner, files: Iterable<File>, max: number, warm: WarmCache | undefined, deadline?: number): SearchOutcome<File> {
  const outcome: SearchOutcome<File> = { matches: [], searched: 0 };
  const batch: File[] = [];
  let size = BATCH_FILES[0] as number;
  const scan = (): void => {
    const paths = batch.map((file) => file.absolute);
    const { screen, grams } = scanner.matcher;
    // A batch the warm state can neither serve nor keep is searched as a cold search does.
    const kept = warm?.keepsNoneOf(paths) ? undefined : warm;
    const statted = !screen || (kept?.servesNearlyAll(paths, grams) ?? false);
    const shared = kept ? warmSearchHost(scanner.files, kept, statted ? paths : []) : undefined;
    const screened = !statted && screen ? secondThread.screenAhead(paths, screen) : undefined;
    const ruledOut = (path: string): boolean => {
      if (!screened?.ruledOut(path)) return false;
      kept?.skippedUnread(path);
      return true;
    };
    try {
      const found = searchFiles({ ...scanner, ...(shared ? { files: shared } : {}), ...(screened ? { ruledOut } : {}) }, batch, max - outcome.matches.length, deadline);
      outcome.matches.push(...found.matches);
      outcome.searched += found.searched;
    } finally {
      shared?.finish();
      screened?.finish();
    }
    batch.length = 0;
    size = Math.min(size * 2, BATCH_FILES[1] as number);
  };
  // From its first listing to its last file: the thread builds filters while the runtime is idle, never meanwhile.
  warm?.begin();
  try {
    for (const file of files) {
      batch.push(file);
      if (batch.length < size) continue;
      scan();
      if (outcome.matches.length >= max) return outcome;
    }
    if (batch.length > 0) scan();
    return outcome;
  } finally {
    warm?.end();
  }
}
