// list and glob (batch, seed 003): a directory's entries, and the files whose workspace-relative paths match any of
// a few glob patterns, both paged by a numeric cursor under one byte budget.
import { type Static, Type } from "typebox";
import { GgError } from "../host/errors.ts";
import { grouped } from "../host/lines.ts";
import { SKIPPED_DIRS, skipWalk, WALK_MAX_ENTRIES } from "../host/skipwalk.ts";
import { type BatchOutput, batchResult, BUDGET, createBudget, globMatcher, includeIgnoredParameter, LIST_LIMIT, maxBytesParameter, renderBatch, walkOptions, walkRootOf } from "./batch.ts";
import { type CallContext, defineCall } from "./define.ts";
import { EntryKind, LinkTarget, requireDirectory } from "./list_dir.ts";

const ListEntry = Type.Object(
  {
    path: Type.String({ description: "The entry: the call's path joined with its name." }),
    kind: EntryKind,
    linksTo: Type.Optional(LinkTarget),
  },
  { $id: "ListEntry", description: "One entry of a listed directory." },
);

const SKIPPED = `Directories on the skip list (${SKIPPED_DIRS.join(", ")}) left out.`;
export const ListResult = batchResult("ListResult", "What gg.files.list lists: one directory's entries, a page of them.", ListEntry, Type.Integer({ description: "The cursor of the next page." }), SKIPPED);
export type ListResult = BatchOutput<Static<typeof ListEntry>, number>;
export const GlobResult = batchResult("GlobResult", "What gg.files.glob found: the matching files' paths, a page of them.", Type.String(), Type.Integer({ description: "The cursor of the next page." }), SKIPPED);
export type GlobResult = BatchOutput<string, number>;

/** The parameters list and glob share. */
const paging = () => ({
  cursor: Type.Optional(Type.Integer({ minimum: 0, description: "The next of the previous page, to continue where it stopped. Default 0." })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_LIMIT.max, description: `Results per page: at most ${LIST_LIMIT.max}, default ${LIST_LIMIT.default}.` })),
  include_ignored: includeIgnoredParameter(),
  max_bytes: maxBytesParameter(),
});

/** A page of `all` from `cursor`: up to `limit` results, while they fit the byte budget. */
function page<Result>(all: Result[], cursor: number, limit: number, maxBytes: number | undefined, skipped: number): BatchOutput<Result, number> {
  const budget = createBudget(maxBytes);
  const results: Result[] = [];
  let at = cursor;
  while (at < all.length && results.length < limit && budget.takeResult(all[at])) results.push(all[at++] as Result);
  // A page with no result would hand back the cursor it was given: the call fails instead.
  if (results.length === 0 && at < all.length) {
    throw new GgError("over-cap", `Cannot answer from cursor ${at}: its result (${Buffer.byteLength(JSON.stringify(all[at]))} bytes of JSON) is over the output budget of ${maxBytes ?? BUDGET.default} bytes even alone; raise max_bytes (at most ${BUDGET.max})`);
  }
  const truncated = at < all.length;
  return { results, truncated, next: truncated ? at : null, skipped };
}

/** The directory a call walks, checked. */
function directoryOf(path: string | undefined, context: CallContext, action: string) {
  const root = walkRootOf(context.cwd, path);
  requireDirectory(context.files.stat(root.absolute, action).kind, path ?? ".", action);
  return root;
}

const walkRule = `A walk visits at most ${grouped(WALK_MAX_ENTRIES)} entries (more fails: pass a narrower path) and skip ${SKIPPED_DIRS.join(", ")} unless include_ignored is true; a path naming one of them is walked. This is a fixed list, not the ignore rules.`;
const output = "The answer is compact JSON {results, truncated, next, skipped}; truncated means more follow: pass next as cursor, with the same arguments.";

export const list = defineCall({
  name: "list",
  capability: "list-dir",
  walks: true,
  batch: true,
  brief: "List one directory's entries with their kinds, a page at a time.",
  code: { module: "files", name: "list", positional: ["path"] },
  result: ListResult,
  parameters: () => Type.Object({ path: Type.Optional(Type.String({ description: "Directory to list. Default: the working directory." })), ...paging() }, { additionalProperties: false }),
  description: () =>
    `List one directory's entries in path order, each {path, kind} with kind file, dir, symlink (with linksTo) or other. ${LIST_LIMIT.default} per page by default, at most ${LIST_LIMIT.max}, within the byte budget (max_bytes, default 12000). ${SKIPPED_DIRS.join(", ")} are left out and counted in skipped unless include_ignored is true. ${output} Use glob to find files anywhere below.`,
  run(args, context): ListResult {
    const { path, cursor = 0, limit = LIST_LIMIT.default, include_ignored = false, max_bytes } = args;
    const root = directoryOf(path, context, "list");
    const walk = skipWalk(root.absolute, root.shown, { includeIgnored: include_ignored, deep: false, ...walkOptions(context, list, args, path) });
    const entries = walk.entries.map(({ path: entry, kind, linksTo }) => ({ path: entry, kind, ...(linksTo ? { linksTo } : {}) }));
    return page(entries, cursor, limit, max_bytes, walk.skipped);
  },
  render: renderBatch,
});

export const glob = defineCall({
  name: "glob",
  capability: "list-dir",
  walks: true,
  batch: true,
  brief: "Find files by glob patterns (**, *, ?, {a,b}, [classes]) matched against their workspace-relative paths.",
  code: { module: "files", name: "glob", positional: ["patterns"] },
  result: GlobResult,
  parameters: () =>
    Type.Object(
      {
        patterns: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: 64, description: 'Glob patterns, e.g. ["src/**/*.rs", "tests/**/*.rs"]; a file matching any of them is listed.' }),
        path: Type.Optional(Type.String({ description: "Directory to walk. Default: the working directory. Patterns still match the full path from the working directory." })),
        ...paging(),
      },
      { additionalProperties: false },
    ),
  description: () =>
    `Find files whose paths, relative to the working directory, match any of the glob patterns: ** spans directories, * and ? stay within one name, {a,b} picks, [a-z] is a class; dot files match too. A pattern matches the whole path including its directories (src/**/*.ts, not *.ts, for files below src), even when path narrows the walk. Files (and links to files) in path order, ${LIST_LIMIT.default} per page by default, at most ${LIST_LIMIT.max}, within the byte budget (max_bytes, default 12000). ${walkRule} ${output}`,
  run(args, context): GlobResult {
    const { patterns, path, cursor = 0, limit = LIST_LIMIT.default, include_ignored = false, max_bytes } = args;
    const matches = globMatcher(patterns, "glob");
    const root = directoryOf(path, context, "glob");
    const walk = skipWalk(root.absolute, root.shown, { includeIgnored: include_ignored, deep: true, ...walkOptions(context, glob, args, path) });
    const files = walk.entries.filter((entry) => (entry.kind === "file" || entry.linksTo === "file") && matches(entry.path)).map((entry) => entry.path);
    return page(files, cursor, limit, max_bytes, walk.skipped);
  },
  render: renderBatch,
});
