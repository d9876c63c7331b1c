// search: matching lines across the workspace for a Rust regular expression, in path order then line order.
import { Type } from "typebox";
import { GgError } from "../host/errors.ts";
import { isIgnoredFile } from "../host/ignore.ts";
import { plural } from "../host/lines.ts";
import { joinDisplay, resolvePath } from "../host/paths.ts";
import { createScanner, type LineMatch, scanFile, searchFiles } from "../host/search.ts";
import { walkFiles, walkRoot } from "../host/walk.ts";
import { defineCall, textValue } from "./define.ts";

/** Matches a call that names no limit gets. */
export const SEARCH_DEFAULT_LIMIT = 50;
/** Most matches one call returns; larger limits are answered with this many. */
export const SEARCH_MAX_LIMIT = 200;
/** Characters of a matching line shown before it is cut. */
export const SEARCH_LINE_CHARS = 200;

/** A matching line as shown: cut at 200 characters (code points), annotated with how many were left out. */
const shown = (match: LineMatch): string => (match.more > 0 ? `${match.text} (${match.more} more chars...)` : match.text);

export const search = defineCall({
  name: "search",
  capability: "search",
  brief: "Find the lines matching a Rust regular expression across the workspace's files.",
  code: { module: "files", name: "search", positional: ["query"], returns: "string", value: textValue },
  parameters: () =>
    Type.Object(
      {
        query: Type.String({ description: "Rust regular expression tried against each line, e.g. foo|bar, fn\\s+update, (?i)todo." }),
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
  run({ query, path, limit = SEARCH_DEFAULT_LIMIT }, context) {
    const wanted = Math.min(limit, SEARCH_MAX_LIMIT);
    const absolute = resolvePath(context.cwd, path ?? ".");
    const display = path ?? ".";
    const root = context.files.stat(absolute, "search");
    if (root.kind === "other") throw new GgError("invalid-argument", `Cannot search ${display}: it is not a regular file or a directory`);
    const scanner = createScanner(query, context.files, SEARCH_LINE_CHARS);
    let lines: string[];
    let searched = 1;
    if (root.kind === "file") {
      // An ignored file is not searched even when named: it stays reachable through read_file and the other calls.
      const ignored = isIgnoredFile(absolute, context.workspace);
      if (ignored) searched = 0;
      lines = ignored ? [] : scanFile(scanner, absolute, wanted).map((match) => `${display}:${match.line}:${shown(match)}`);
    } else {
      const outcome = searchFiles(scanner, walkFiles(walkRoot(absolute, context.workspace)), wanted, context.deadline);
      lines = outcome.matches.map((match) => `${joinDisplay(path, match.file.relative)}:${match.line}:${shown(match)}`);
      searched = outcome.searched;
    }
    if (lines.length > 0) return { text: lines.join("\n") };
    return { text: `No matches for ${JSON.stringify(query)} in ${display} (${plural(searched, "file")} searched).` };
  },
});
