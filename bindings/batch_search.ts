// search (batch, seed 003): the lines of the workspace's files holding a literal (by default) or a Rust regex, each
// as a snippet bounded around its first match with up to 3 context lines, or only the matching files' paths; paged by
// a {file_index, line} cursor under the byte budget, at most 64 MiB of files read per page.
import { isUtf8 } from "node:buffer";
import type { RRegex } from "rregex";
import { type Static, Type } from "typebox";
import { GgError, isGgError, quote } from "../host/errors.ts";
import { binaryHead } from "../host/files.ts";
import { grouped } from "../host/lines.ts";
import { compileEngine, compileSearch } from "../host/regex.ts";
import { SKIPPED_DIRS, skipWalk, WALK_MAX_ENTRIES } from "../host/skipwalk.ts";
import { warmSearchHost } from "../host/warm.ts";
import { type BatchOutput, batchResult, BUDGET, createBudget, globMatcher, includeIgnoredParameter, MAX_CONTEXT_LINES, maxBytesParameter, PAGE_BYTES, renderBatch, SEARCH_LIMIT, walkOptions, walkRootOf } from "./batch.ts";
import { defineCall } from "./define.ts";
import { SEARCH_LINE_CHARS } from "./search.ts";

/** Files larger than this (bytes) are skipped, not read: 16 MiB. */
export const SEARCH_FILE_MAX_BYTES = 16 * 1024 * 1024;
/** Characters (code points) of a long line shown before its first match. */
export const SNIPPET_LEAD_CHARS = 40;

const SearchHit = Type.Object(
  {
    path: Type.String({ description: "The file, relative to the working directory (absolute when outside it)." }),
    line: Type.Integer({ description: "1-based line number." }),
    text: Type.String({
      description: `The line without its ending, at most ${SEARCH_LINE_CHARS} characters (code points) of it: a longer line is shown from up to ${SNIPPET_LEAD_CHARS} characters before its first match, with [\u2026N chars] and [N chars\u2026] marking the N characters cut at either end.`,
    }),
    before: Type.Optional(Type.Array(Type.String(), { description: `With context_lines: up to that many lines before, each cut at ${SEARCH_LINE_CHARS} characters with a [N chars\u2026] marker.` })),
    after: Type.Optional(Type.Array(Type.String(), { description: "With context_lines: up to that many lines after, cut the same way." })),
  },
  { $id: "SearchHit", description: "One matching line." },
);
export type SearchHit = Static<typeof SearchHit>;

const SearchNext = Type.Object(
  {
    file_index: Type.Integer({ description: "Index of the file to continue in, among the files the call searches, in path order." }),
    line: Type.Integer({ description: "0-based index of the first line of that file not yet reported (hit lines are 1-based)." }),
  },
  { description: "Pass as cursor, with the same other arguments, to continue." },
);
export type SearchNext = Static<typeof SearchNext>;

export const BatchSearchResult = batchResult(
  "BatchSearchResult",
  "What gg.files.search (batch) found: a page of matching lines, or of matching files' paths in files mode.",
  Type.Union([SearchHit, Type.String({ description: "In files mode: the path of a file with at least one match." })]),
  SearchNext,
  "Files examined on this page and skipped: binary (a NUL byte in the first 8 KiB), not valid UTF-8, over 16 MiB, or unreadable.",
);
export type BatchSearchResult = BatchOutput<SearchHit | string, SearchNext>;

/** Rust regex's meta characters (those regex::escape escapes): the pattern with each escaped matches itself. */
const RUST_META = /[\\.+*?()|[\]{}^$#&\-~]/g;
/** `text` as a Rust regex matching it literally. */
export const escapeRust = (text: string): string => text.replace(RUST_META, "\\$&");


/** Code points in UTF-8 `bytes` (continuation bytes are not counted). */
function codePoints(bytes: Buffer): number {
  let count = 0;
  for (const byte of bytes) if ((byte & 0xc0) !== 0x80) count++;
  return count;
}

/** `line` cut to its first `SEARCH_LINE_CHARS` characters, the rest counted in a trailing marker. */
function clip(line: string): string {
  const chars = [...line];
  if (chars.length <= SEARCH_LINE_CHARS) return line;
  return `${chars.slice(0, SEARCH_LINE_CHARS).join("")}[${chars.length - SEARCH_LINE_CHARS} chars\u2026]`;
}

/** `line` bounded around the match that starts at code point `at`: from up to 40 characters before it, 200 at most. */
export function snippet(line: string, at: number): string {
  const chars = [...line];
  if (chars.length <= SEARCH_LINE_CHARS) return line;
  const start = Math.max(0, Math.min(at, chars.length) - SNIPPET_LEAD_CHARS);
  const end = Math.min(chars.length, start + SEARCH_LINE_CHARS);
  const head = start > 0 ? `[\u2026${start} chars]` : "";
  const tail = end < chars.length ? `[${chars.length - end} chars\u2026]` : "";
  return `${head}${chars.slice(start, end).join("")}${tail}`;
}

/** The lines of a file's text as the matcher numbers them: split at \n, a \r before a \n dropped. */
function splitLines(text: string): string[] {
  const lines = text.split("\n");
  const last = lines.pop() as string;
  const ended = lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  if (last !== "") ended.push(last);
  return ended;
}

/** A file the call may search: its path as shown and matched by glob, and where it is. */
interface Eligible {
  path: string;
  absolute: string;
}

export const batchSearch = defineCall({
  name: "search",
  capability: "search",
  batch: true,
  walks: true,
  brief: "Search file contents for a literal or a Rust regex, with context lines and a cursor.",
  code: { module: "files", name: "search", positional: ["pattern"] },
  result: BatchSearchResult,
  parameters: () =>
    Type.Object(
      {
        pattern: Type.String({ minLength: 1, description: "Text to find on a line: matched literally (every character as itself) unless regex is true." }),
        regex: Type.Optional(Type.Boolean({ description: "Treat pattern as a Rust regular expression (no lookaround, no backreferences), matched against each line. Default false: literal." })),
        case_sensitive: Type.Optional(Type.Boolean({ description: "Match case exactly. Default true." })),
        glob: Type.Optional(Type.String({ minLength: 1, description: 'Only files whose path relative to the working directory matches this glob, e.g. "src/**/*.rs"; the whole path matches, directories included, even when path narrows the walk.' })),
        path: Type.Optional(Type.String({ description: "Directory to search below, or a single file. Default: the working directory." })),
        context_lines: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CONTEXT_LINES, description: `Lines shown before and after each hit: 0 to ${MAX_CONTEXT_LINES}, default 0.` })),
        mode: Type.Optional(Type.Enum(["content", "files"], { description: 'content: one hit per matching line. files: only the paths of files with a match. Default "content".' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SEARCH_LIMIT.max, description: `Hits (or files, in files mode) per page: at most ${SEARCH_LIMIT.max}, default ${SEARCH_LIMIT.default}.` })),
        cursor: Type.Optional(
          Type.Object(
            {
              file_index: Type.Integer({ minimum: 0, description: "next.file_index of the previous page." }),
              line: Type.Integer({ minimum: 0, description: "next.line of the previous page: 0-based." }),
            },
            { additionalProperties: false, description: "The next of the previous page, to continue where it stopped; pass the other arguments unchanged." },
          ),
        ),
        include_ignored: includeIgnoredParameter(),
        max_bytes: maxBytesParameter(),
      },
      { additionalProperties: false },
    ),
  description: () =>
    [
      "Search the contents of files below path (default the working directory; or one file) for pattern, line by line, in path order then line order.",
      "The pattern is literal and case-sensitive by default; case_sensitive: false ignores case; regex: true reads it as a Rust regular expression (not JavaScript: no lookaround, no backreferences), which never matches across lines.",
      'glob keeps the files whose whole path from the working directory matches it (src/**/*.ts, not *.ts, for files below src). mode "files" returns only the paths of files with a match.',
      `Each hit is {path, line, text}: line is 1-based; text is at most ${SEARCH_LINE_CHARS} characters, a longer line shown from ${SNIPPET_LEAD_CHARS} characters before its first match with [\u2026N chars] / [N chars\u2026] marking what was cut. context_lines (0 to ${MAX_CONTEXT_LINES}, default 0) adds before and after arrays.`,
      `${SEARCH_LIMIT.default} hits per page by default, at most ${SEARCH_LIMIT.max} (limit counts files in files mode), within the byte budget (max_bytes, ${BUDGET.min} to ${BUDGET.max}, default ${BUDGET.default}); a page reads at most 64 MiB of files.`,
      "The answer is compact JSON {results, truncated, next, skipped}; when truncated, pass next ({file_index, line}) as cursor with the same other arguments: its line is 0-based, unlike the 1-based lines of hits.",
      `Files that are binary (a NUL byte in the first 8 KiB), not valid UTF-8, over 16 MiB or unreadable are skipped and counted in skipped; symbolic links are not followed, except a path naming one.`,
      `Walks visit at most ${grouped(WALK_MAX_ENTRIES)} entries (more fails: pass a narrower path) and skip ${SKIPPED_DIRS.join(", ")} unless include_ignored is true; a path naming one of them is searched. This is a fixed list, not the ignore rules.`,
    ].join(" "),
  run(args, context): BatchSearchResult {
    const { pattern, regex = false, case_sensitive = true, glob, path, context_lines = 0, mode = "content", limit = SEARCH_LIMIT.default, cursor, include_ignored = false, max_bytes } = args;
    if (!regex && /[\r\n]/.test(pattern)) {
      throw new GgError("invalid-argument", `Cannot search for ${quote(pattern)}: it holds a line break, and search matches within one line; search for one line of it`);
    }
    const body = regex ? pattern : escapeRust(pattern);
    // A pattern of only whitespace holds no meta character: grouping it changes nothing but gets it past the blank check.
    const source = `${case_sensitive ? "" : "(?i)"}${pattern.trim() === "" ? `(?:${body})` : body}`;
    const matcher = compileSearch(source);

    const matchesGlob = glob === undefined ? () => true : globMatcher(glob, "search with glob");

    const root = walkRootOf(context.cwd, path);
    const kind = context.files.stat(root.absolute, "search").kind;
    if (kind === "other") throw new GgError("invalid-argument", `Cannot search ${path ?? "."}: it is neither a file nor a directory (a device, FIFO or socket); pass a file or a directory`);
    const candidates: Eligible[] =
      kind === "file"
        ? [{ path: root.shown, absolute: root.absolute }]
        : skipWalk(root.absolute, root.shown, { includeIgnored: include_ignored, deep: true, ...walkOptions(context, batchSearch, args, path) }).entries.filter((entry) => entry.kind === "file");
    const files = candidates.filter((file) => matchesGlob(file.path));
    // Warm: the files' stats are shared with a second thread ahead of the reads (from the cursor's file on).
    context.warm?.begin();
    const warm = context.warm ? warmSearchHost(context.files, context.warm, files.slice(cursor?.file_index ?? 0).map((file) => file.absolute)) : undefined;
    const host = warm ?? context.files;

    // Where a hit's first match starts, in bytes of its line: a case-sensitive literal is found as bytes; anything
    // else by the engine itself, so (?i)'s Unicode case folding is the matcher's own.
    const literal = !regex && case_sensitive ? Buffer.from(pattern) : undefined;
    let finder: RRegex | undefined;
    const firstMatch = (line: Buffer): number => {
      if (literal) return Math.max(0, line.indexOf(literal));
      // Compiled only when a snippet needs a regex's match position: a plain literal search never starts the engine.
      finder ??= compileEngine(source);
      return finder.find(line.toString("utf8"))?.start ?? 0;
    };

    const budget = createBudget(max_bytes);
    let scratch: Buffer = Buffer.allocUnsafe(1 << 20);
    const results: (SearchHit | string)[] = [];
    let skipped = 0;
    let pageBytes = 0;
    const first = cursor?.file_index ?? 0;
    /** Set when the page stops: where the next one starts. */
    let next: SearchNext | null = null;
    /** True once the page holds limit results: the rest of the file being scanned is only looked at for one more hit. */
    let full = false;

    /** Takes `result` while it fits the budget; a first result that never fits is an error, not an endless loop. */
    const take = (result: SearchHit | string, where: string): boolean => {
      if (budget.takeResult(result)) return true;
      if (results.length > 0) return false;
      throw new GgError(
        "over-cap",
        `Cannot return the ${mode === "files" ? "match" : "hit"} at ${where}: its ${Buffer.byteLength(JSON.stringify(result))} bytes do not fit the output budget of ${max_bytes ?? BUDGET.default} bytes; raise max_bytes (at most ${BUDGET.max})${context_lines > 0 ? " or lower context_lines" : ""} and call again with the same arguments`,
      );
    };

    try {
      for (let index = first; index < files.length; index++) {
        if (context.deadline !== undefined && (index - first) % 64 === 63 && Date.now() > context.deadline) {
          throw new GgError("timeout", `The search was stopped at the run's wall-clock budget after ${index - first} files; search a narrower path or glob, or ask for a larger budget`);
        }
        const file = files[index] as Eligible;
        let bytes: Buffer;
        try {
          const { size } = context.files.stat(file.absolute, "search");
          if (size > SEARCH_FILE_MAX_BYTES) {
            skipped++;
            continue;
          }
          // The page's read bound, by file size; the first file read on a page is always read.
          if (pageBytes > 0 && pageBytes + size > PAGE_BYTES) {
            next = { file_index: index, line: 0 };
            break;
          }
          // Through the search read: a warm runtime serves it from what it keeps.
          bytes = host.readFileInto(file.absolute, scratch);
          if (!host.keepsReads && bytes.length > scratch.length) scratch = bytes;
        } catch (error) {
          if (!isGgError(error)) throw error;
          // A file gone or unreadable since the walk is skipped, as a binary file is: the others are still searched.
          skipped++;
          continue;
        }
        pageBytes += bytes.length;
        // A binary file's read stopped at its head.
        if (binaryHead(bytes) || !isUtf8(bytes)) {
          skipped++;
          continue;
        }
        const from = index === first ? (cursor?.line ?? 0) : 0;
        let lines: string[] | undefined;
        // The file's lines, split only when a hit needs context; a byte-order mark is no part of the first.
        const allLines = (): string[] => (lines ??= splitLines(bytes.toString("utf8").replace(/^\uFEFF/, "")));
        matcher.scan(bytes, (number, text, start, end) => {
          if (number <= from) return true;
          if (full) {
            // One more hit after the limit: the page is truncated, and the next one starts at this line.
            next = { file_index: index, line: number - 1 };
            return false;
          }
          let result: SearchHit | string;
          if (mode === "files") {
            result = file.path;
          } else {
            const line = text.subarray(start, end);
            let shown = line.toString("utf8");
            let at = codePoints(line.subarray(0, firstMatch(line)));
            // A byte-order mark is not part of the first line's text.
            if (number === 1 && shown.startsWith("\uFEFF")) {
              shown = shown.slice(1);
              at = Math.max(0, at - 1);
            }
            const hit: SearchHit = { path: file.path, line: number, text: snippet(shown, at) };
            if (context_lines > 0) {
              // Line n is all[n - 1]: before takes the lines from number - context_lines, after those up to number + context_lines.
              const all = allLines();
              hit.before = all.slice(Math.max(0, number - 1 - context_lines), number - 1).map(clip);
              hit.after = all.slice(number, number + context_lines).map(clip);
            }
            result = hit;
          }
          if (!take(result, `${file.path}:${number}`)) {
            next = { file_index: index, line: number - 1 };
            return false;
          }
          results.push(result);
          if (results.length === limit) full = true;
          // In files mode one match is the file's answer: the next page starts at the next file.
          return mode !== "files";
        });
        if (next) break;
        if (full) {
          // The limit was reached and this file holds no further hit: the rest, if any, is in the files after it.
          if (index + 1 < files.length) next = { file_index: index + 1, line: 0 };
          break;
        }
      }
    } finally {
      finder?.free();
      warm?.finish();
      context.warm?.end();
    }
    return { results, truncated: next !== null, next, skipped };
  },
  render: renderBatch,
});
