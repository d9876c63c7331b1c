// search: matching lines across the workspace for a Rust regular expression, in path order then line order.
import { type Static, Type } from "typebox";
import { GgError } from "../host/errors.ts";
import { isIgnoredFile } from "../host/ignore.ts";
import { plural } from "../host/lines.ts";
import { joinDisplay, resolvePath, shownPath } from "../host/paths.ts";
import { createScanner, scanFile, searchWalk } from "../host/search.ts";
import { walkFiles, walkRoot } from "../host/walk.ts";
import { hiddenBelow } from "./approval_walk.ts";
import { defineCall } from "./define.ts";

/** Matches a call that names no limit gets. */
export const SEARCH_DEFAULT_LIMIT = 50;
/** Most matches one call returns; larger limits are answered with this many. */
export const SEARCH_MAX_LIMIT = 200;
/** Characters of a matching line shown before it is cut. */
export const SEARCH_LINE_CHARS = 200;

/** Queries that show the syntax. */
const QUERY_EXAMPLES = "foo|bar, fn\\s+update, (?i)todo";

/** One matching line, as data. */
export const SearchMatch = Type.Object(
  {
    path: Type.String({ description: "The file: the call's path joined with the file's path below it (the path itself when it names a file)." }),
    line: Type.Integer({ description: "1-based line number." }),
    text: Type.String({ description: `The line without its ending: its first ${SEARCH_LINE_CHARS} characters (Unicode code points, not UTF-16 units).` }),
    cut: Type.Optional(Type.Integer({ description: `Characters (code points) of the line beyond the first ${SEARCH_LINE_CHARS}, when it was cut.` })),
  },
  { $id: "SearchMatch", description: "One matching line." },
);
export type SearchMatch = Static<typeof SearchMatch>;

/** A search, as data. */
export const SearchResult = Type.Object(
  {
    matches: Type.Array(SearchMatch, { description: "Matching lines in path order, then line order." }),
    filesSearched: Type.Integer({ description: "Files read before the search ended (at the limit, or having read them all)." }),
    limitReached: Type.Boolean({ description: "True when the list is exactly limit long: more matches may exist, so narrow the query or the path." }),
    ignored: Type.Optional(Type.Integer({ description: "When the ignore rules (.gitignore, .ignore, .git/info/exclude, .git) left entries out of the walk before it ended: how many, each counted where the walk met it (an ignored directory once, whatever it holds)." })),
  },
  { $id: "SearchResult", description: "What gg.files.search found." },
);
export type SearchResult = Static<typeof SearchResult>;

/** A matching line as the tool shows it: path:line:text, a cut line annotated with how many characters were left out. */
const shown = (match: SearchMatch): string => `${shownPath(match.path)}:${match.line}:${match.text}${match.cut ? ` (${match.cut} more chars...)` : ""}`;

export const search = defineCall({
  name: "search",
  capability: "search",
  walks: true,
  brief: "Find the lines matching a Rust regular expression across the workspace's files.",
  code: {
    module: "files",
    name: "search",
    positional: ["query"],
    note: () => `query e.g. ${QUERY_EXAMPLES}. limit: default ${SEARCH_DEFAULT_LIMIT}, at most ${SEARCH_MAX_LIMIT}.`,
  },
  result: SearchResult,
  parameters: () =>
    Type.Object(
      {
        query: Type.String({ description: `Rust regular expression tried against each line, e.g. ${QUERY_EXAMPLES}.` }),
        path: Type.Optional(Type.String({ description: "Directory or single file to search. Default: the working directory." })),
        limit: Type.Optional(Type.Integer({ minimum: 1, description: `Matches to return. Default ${SEARCH_DEFAULT_LIMIT}, at most ${SEARCH_MAX_LIMIT}.` })),
      },
      { additionalProperties: false },
    ),
  description: () =>
    "Search file contents for a regular expression in Rust syntax (foo|bar, fn\\s+update, (?i)todo; no look-around or " +
    "backreferences), tried against each line on its own. Results come in path order, then line order, one per line " +
    `as path:line:text. At most ${SEARCH_MAX_LIMIT} matches (default ${SEARCH_DEFAULT_LIMIT}): a list exactly limit long ` +
    "may have been cut, so narrow the query or the path rather than paging. Lines over 200 characters are cut. Files " +
    "excluded by .gitignore or .ignore, .git, and binary files (with a NUL byte) are skipped; read_file still reaches them by path.",
  run({ query, path, limit = SEARCH_DEFAULT_LIMIT }, context): SearchResult {
    const wanted = Math.min(limit, SEARCH_MAX_LIMIT);
    const absolute = resolvePath(context.cwd, path ?? ".");
    const display = path ?? ".";
    const root = context.files.stat(absolute, "search");
    if (root.kind === "other") throw new GgError("invalid-argument", `Cannot search ${display}: it is not a regular file or a directory`);
    const scanner = createScanner(query, context.files, SEARCH_LINE_CHARS);
    const matched = (file: string, found: { line: number; text: string; more: number }): SearchMatch => ({
      path: file,
      line: found.line,
      text: found.text,
      ...(found.more > 0 ? { cut: found.more } : {}),
    });
    let matches: SearchMatch[];
    let filesSearched = 1;
    const skipped = { ignored: 0 };
    if (root.kind === "file") {
      // An ignored file is not searched even when named: it stays reachable through read_file and the other calls.
      if (isIgnoredFile(absolute, context.workspace)) skipped.ignored = 1;
      filesSearched = 1 - skipped.ignored;
      matches = skipped.ignored ? [] : scanFile(scanner, absolute, wanted).map((found) => matched(display, found));
    } else {
      const hidden = hiddenBelow(context.config, search, { query, path, limit }, display, context);
      const walk = walkFiles(walkRoot(absolute, context.workspace, context.warm, hidden), skipped);
      const outcome = searchWalk(scanner, walk, wanted, context.warm, context.deadline);
      matches = outcome.matches.map((found) => matched(joinDisplay(path, found.file.relative), found));
      filesSearched = outcome.searched;
    }
    return { matches, filesSearched, limitReached: matches.length === wanted, ...(skipped.ignored > 0 ? { ignored: skipped.ignored } : {}) };
  },
  render: ({ matches, filesSearched, ignored }, { query, path }) =>
    matches.length > 0
      ? matches.map(shown).join("\n")
      : `No matches for ${JSON.stringify(query)} in ${shownPath(path ?? ".")} (${plural(filesSearched, "file")} searched${ignored ? `; ${plural(ignored, "ignored entry", "ignored entries")} left out` : ""}).`,
});
