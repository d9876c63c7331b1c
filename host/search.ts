// Scanning files for a search: each file is read into one reused buffer and screened, and a file with a NUL byte
// counts as binary and yields nothing. (A second thread was measured and dropped: on these machines parallel reads
// gained ~20% on raw I/O, which a worker's ~45 ms start-up ate whole.)
import type { FileHost } from "./files.ts";
import { clipLine } from "./lines.ts";
import { compileSearch, type LineMatcher } from "./regex.ts";

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

/** The scanning state of one search: the compiled pattern and its read buffer. */
export interface Scanner {
  matcher: LineMatcher;
  scratch: Buffer;
  files: FileHost;
  /** Characters of a matching line kept; the rest are only counted. */
  clipChars: number;
}

/** Compiles `query` (invalid-argument when it is not a valid pattern) and prepares to scan. */
export const createScanner = (query: string, files: FileHost, clipChars: number): Scanner => ({
  matcher: compileSearch(query),
  scratch: Buffer.allocUnsafe(SCRATCH_BYTES),
  files,
  clipChars,
});

/** The matching lines of one file (at most `max`); a file with a NUL byte has none. Throws when it cannot be read. */
export function scanFile(scanner: Scanner, absolute: string, max: number): LineMatch[] {
  const bytes = scanner.files.readFileInto(absolute, scanner.scratch);
  const found: LineMatch[] = [];
  let binary: boolean | undefined;
  scanner.matcher.scan(bytes, (line, text, start, end) => {
    binary ??= text.indexOf(0) !== -1;
    if (binary) return false;
    found.push({ line, ...clipLine(text, start, end, scanner.clipChars) });
    return found.length < max;
  });
  return binary ? [] : found;
}

/** The outcome of searching many files. */
export interface SearchOutcome<File> {
  /** Matches in file order then line order, at most `max`. */
  matches: (LineMatch & { file: File })[];
  /** Files read; unreadable ones are skipped, as grep skips them. */
  searched: number;
}

/** Searches `files` in order for at most `max` matching lines, stopping as soon as it has them. */
export function searchFiles<File extends { absolute: string }>(scanner: Scanner, files: Iterable<File>, max: number): SearchOutcome<File> {
  const outcome: SearchOutcome<File> = { matches: [], searched: 0 };
  for (const file of files) {
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
